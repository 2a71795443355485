"""scripts/get-pr-comments.sh, run with bash and the real gh and jq against the fake GitHub.

gh talks to the fake as host github.localhost (the `gh_env` fixture). The script is run as an
agent runs it: a subprocess whose stdout, stderr, exit code, temp files and requests are checked.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import NAME, OWNER, REPOSITORY, SCRIPTS, run_script, script_env

sys.path.insert(0, str(SCRIPTS))
from ghcomments.text.normalize import count_hidden  # noqa: E402  (the Python path's own count)

SH = "get-pr-comments.sh"
PR = 7
T0 = dt.datetime(2026, 3, 1, 12, 0, 0, tzinfo=dt.timezone.utc)
COMMENT_KEYS = {
    "id", "author", "authorType", "authorAssociation", "body", "bodyChars", "bodyTruncated",
    "hiddenCharacters", "commentType", "createdAt", "updatedAt", "lastEditedAt", "url", "line",
    "originalLine", "position", "file", "state",
}
TOP_KEYS = {
    "repository", "pullRequest", "title", "state", "url", "retrievedAt", "refreshed",
    "reviewThreads", "reviewComments", "timelineComments", "limitations",
}
RESOLUTION_NOTE = ("review thread resolution state is unavailable through the REST fallback: "
                   "reviewThreads is empty and resolved comments are included")
# What must never reach a terminal raw: C0 but tab and newline, DEL, C1, bidi controls,
# zero-width and invisible characters, Unicode tags.
RAW_HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\u200b-\u200d\u2060-\u2064\ufeff\u180e\U000e0000-\U000e007f]"
)


def at(minutes: float) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


@pytest.fixture
def sh_env(gh_env, tmp_path):
    """gh_env plus jq (required: a skip outside CI, a failure in CI) and a private TMPDIR."""
    if shutil.which("jq") is None:
        message = "jq is not installed; the shell fallback tests need it (apt-get install jq)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    tmpdir = tmp_path / "script-tmp"
    tmpdir.mkdir()
    return {**gh_env, "TMPDIR": str(tmpdir)}


def run_sh(env, *args, cwd=None):
    return run_script(SH, *args, env=env, cwd=cwd, timeout=60)


def run_json(env, *args, cwd=None):
    result = run_sh(env, "--repo", REPOSITORY, "--pr", PR, "--format", "json", *args, cwd=cwd)
    assert result.code == 0, result
    return result.json


def make_pr(fake, **kw):
    fake.add_repo(OWNER, NAME)
    return fake.add_pull(OWNER, NAME, PR, **kw)


def assert_error(result, exit_code: int, code: str, status=None):
    assert result.code == exit_code, result
    doc = json.loads(result.stdout)
    assert set(doc) == {"error"}
    assert set(doc["error"]) == {"code", "message", "status", "retry_after_seconds"}
    assert doc["error"]["code"] == code
    assert doc["error"]["status"] == status
    assert result.stderr.strip() and len(result.stderr.strip().splitlines()) == 1, result
    return doc["error"]


@pytest.fixture
def feedback(fake):
    """A PR with inline threads on two files, reviews and issue comments at known times."""
    make_pr(fake, title="Add the parser")
    t1 = fake.add_review_thread(OWNER, NAME, PR, "src/parser.py", line=12, comments=[
        {"user": "bob", "body": "Off by one?", "created_at": at(3)},
        {"user": "alice", "body": "Fixed.", "association": "OWNER", "created_at": at(9)},
    ])
    t2 = fake.add_review_thread(OWNER, NAME, PR, "README.md", line=4, is_resolved=True,
                                comments=[{"user": "Carol", "body": "Typo", "created_at": at(1)}])
    t3 = fake.add_review_thread(OWNER, NAME, PR, "src/parser.py", line=40, is_outdated=True,
                                comments=[{"user": "bob", "body": "Old remark",
                                           "created_at": at(3)}])
    approved = fake.add_review(OWNER, NAME, PR, "dave", "APPROVED", "", submitted_at=at(20))
    changes = fake.add_review(OWNER, NAME, PR, "erin", "CHANGES_REQUESTED", "Needs tests",
                              association="COLLABORATOR", submitted_at=at(5))
    said = fake.add_review(OWNER, NAME, PR, "frank", "COMMENTED", "Looks fine overall",
                           submitted_at=at(5))
    bot_review = fake.add_review(OWNER, NAME, PR, "linter", "COMMENTED", "2 warnings",
                                 user_type="Bot", association="NONE", submitted_at=at(7))
    c1 = fake.add_comment(OWNER, NAME, PR, "Thanks for the PR", user="alice",
                          association="OWNER", created_at=at(2))
    c2 = fake.add_comment(OWNER, NAME, PR, "Deployed preview", user="ci-bot", user_type="Bot",
                          created_at=at(4))
    return {"threads": (t1, t2, t3), "approved": approved, "changes": changes, "said": said,
            "bot_review": bot_review, "human": c1, "bot": c2}


# --------------------------------------------------------------------------- output shape


def test_json_has_the_contract_shape_and_fields(fake, sh_env, feedback):
    out = run_json(sh_env)
    assert set(out) == TOP_KEYS
    assert out["repository"] == REPOSITORY and out["pullRequest"] == PR
    assert out["title"] == "Add the parser" and out["state"] == "OPEN"
    assert out["url"] == f"https://github.com/{REPOSITORY}/pull/{PR}"
    assert out["refreshed"] is True and out["reviewThreads"] == []
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", out["retrievedAt"])
    assert out["limitations"][0] == RESOLUTION_NOTE
    for comment in out["reviewComments"] + out["timelineComments"]:
        assert set(comment) == COMMENT_KEYS
        assert type(comment["id"]) is int and comment["bodyTruncated"] is False

    t1, t2, t3 = feedback["threads"]
    inline = out["reviewComments"]
    # ascending createdAt, then id; resolved and outdated comments are included
    assert [c["id"] for c in inline] == [t2["comment_ids"][0], t1["comment_ids"][0],
                                          t3["comment_ids"][0], t1["comment_ids"][1]]
    first = inline[1]
    assert first == {
        "id": t1["comment_ids"][0], "author": "bob", "authorType": "User",
        "authorAssociation": "MEMBER", "body": "Off by one?", "bodyChars": 11,
        "bodyTruncated": False, "hiddenCharacters": 0, "commentType": "inline",
        "createdAt": "2026-03-01T12:03:00Z", "updatedAt": "2026-03-01T12:03:00Z",
        "lastEditedAt": None,  # not over REST (issue 29): GitHub's OpenAPI has no such field
        "url": f"https://github.com/{REPOSITORY}/pull/{PR}#discussion_r{t1['comment_ids'][0]}",
        "line": 12, "originalLine": 12, "position": 4, "file": "src/parser.py", "state": None,
    }
    outdated = inline[2]
    assert outdated["line"] is None and outdated["originalLine"] == 40
    assert outdated["position"] is None

    timeline = out["timelineComments"]
    expected_order = [feedback["human"]["id"], feedback["changes"]["id"], feedback["said"]["id"],
                      feedback["bot_review"]["id"], feedback["approved"]["id"]]
    assert [c["id"] for c in timeline] == expected_order  # the bot's issue comment is left out
    changes = timeline[1]
    assert changes == {
        "id": feedback["changes"]["id"], "author": "erin", "authorType": "User",
        "authorAssociation": "COLLABORATOR", "body": "Needs tests", "bodyChars": 11,
        "bodyTruncated": False, "hiddenCharacters": 0, "commentType": "review",
        "createdAt": "2026-03-01T12:05:00Z", "updatedAt": None, "lastEditedAt": None,
        "url": feedback["changes"]["html_url"],
        "line": None, "originalLine": None, "position": None, "file": None,
        "state": "CHANGES_REQUESTED",
    }
    human = timeline[0]
    assert human["commentType"] == "issue_comment" and human["state"] is None
    assert human["url"] == feedback["human"]["html_url"] and human["authorAssociation"] == "OWNER"
    assert timeline[3]["author"] == "linter[bot]" and timeline[3]["authorType"] == "Bot"
    assert not any("caret" in note for note in out["limitations"])


@pytest.mark.parametrize("state, expected", [("open", "OPEN"), ("closed", "CLOSED"),
                                             ("merged", "MERGED")])
def test_pull_request_state_is_open_closed_or_merged(fake, sh_env, state, expected):
    make_pr(fake, state=state)
    out = run_json(sh_env)
    assert out["state"] == expected
    assert out["reviewComments"] == [] and out["timelineComments"] == []


def test_reads_every_page_of_long_lists(fake, sh_env):
    make_pr(fake)
    fake.clock = at(0)
    thread = fake.add_review_thread(OWNER, NAME, PR, "big.py", line=1, comments=[
        {"user": "bob", "body": "root", "created_at": at(-1000)}])
    inline_ids = thread["comment_ids"] + fake.add_thread_comments(thread["id"], 149)
    issue_ids = fake.add_comments(OWNER, NAME, PR, 130, start=at(-500))
    for i in range(101):
        fake.add_review(OWNER, NAME, PR, f"reviewer{i}", "APPROVED", f"ok {i}",
                        submitted_at=at(-400 + i))
    out = run_json(sh_env, "--include-system")
    assert [c["id"] for c in out["reviewComments"]] == inline_ids
    assert len(inline_ids) == 150
    issue_out = [c["id"] for c in out["timelineComments"] if c["commentType"] == "issue_comment"]
    assert issue_out == issue_ids
    reviews = [c for c in out["timelineComments"] if c["commentType"] == "review"]
    assert len(reviews) == 101 + 2  # 101 approvals and the two wrappers of the inline comments
    gets = [r for r in fake.requests if r.method == "GET" and r.status == 200]
    followed = [r.path for r in gets if r.path.startswith("/repositories/")]
    # page 2 of each list is read through GitHub's Link (…/repositories/{id}/…)
    assert sum(p.endswith("/pulls/7/comments") for p in followed) == 1
    assert sum(p.endswith("/issues/7/comments") for p in followed) == 1
    assert sum(p.endswith("/pulls/7/reviews") for p in followed) == 1
    assert len(fake.requests) == 7  # the PR + 2 pages of each list


# --------------------------------------------------------------------------- filters


def test_file_filter_keeps_inline_comments_on_that_path_only(fake, sh_env, feedback):
    out = run_json(sh_env, "--file", "src/parser.py")
    assert {c["file"] for c in out["reviewComments"]} == {"src/parser.py"}
    assert len(out["reviewComments"]) == 3
    everything = run_json(sh_env)
    assert out["timelineComments"] == everything["timelineComments"]  # left as they are
    assert any("--file" in note and "timeline" in note for note in out["limitations"])
    assert not any("--file" in note for note in everything["limitations"])
    none = run_json(sh_env, "--file", "src/parser")  # a path, not a prefix
    assert none["reviewComments"] == []


def test_author_filter_ignores_case_and_the_bot_suffix(fake, sh_env, feedback):
    out = run_json(sh_env, "--author", "BOB")
    assert [c["author"] for c in out["reviewComments"]] == ["bob", "bob"]
    assert out["timelineComments"] == []
    carol = run_json(sh_env, "--author", "carol")  # GitHub keeps the login's own case
    assert [c["author"] for c in carol["reviewComments"]] == ["Carol"]
    bot = run_json(sh_env, "--author", "linter")  # also matches linter[bot] itself
    assert [c["author"] for c in bot["timelineComments"]] == ["linter[bot]"]
    alice = run_json(sh_env, "--author", "alice", "--file", "src/parser.py")
    assert [c["body"] for c in alice["reviewComments"]] == ["Fixed."]
    assert [c["body"] for c in alice["timelineComments"]] == ["Thanks for the PR"]


def test_system_events_are_left_out_unless_asked_for(fake, sh_env, feedback):
    default = run_json(sh_env)
    ids = {c["id"] for c in default["timelineComments"]}
    assert feedback["bot"]["id"] not in ids  # an issue comment by a bot
    assert feedback["approved"]["id"] in ids  # a bodiless APPROVED review stays
    assert feedback["bot_review"]["id"] in ids  # a review by a bot stays
    wrappers = [c for c in default["timelineComments"]
                if c["state"] == "COMMENTED" and c["body"] == ""]
    assert wrappers == []
    assert any("5 system event(s) left out" in n for n in default["limitations"])

    everything = run_json(sh_env, "--include-system")
    all_ids = {c["id"] for c in everything["timelineComments"]}
    assert feedback["bot"]["id"] in all_ids
    wrappers = [c for c in everything["timelineComments"]
                if c["state"] == "COMMENTED" and c["body"] == ""]
    assert len(wrappers) == 4  # the review wrapping each of the 4 inline comments
    assert len(everything["timelineComments"]) == len(default["timelineComments"]) + 5
    assert not any("system event" in n for n in everything["limitations"])
    assert everything["reviewComments"] == default["reviewComments"]


# --------------------------------------------------------------------------- bodies


def test_bodies_are_returned_unchanged(fake, sh_env):
    make_pr(fake)
    bodies = [
        'quotes "double" and \'single\', `code`, $(date) and ${HOME}',
        "unicode: café, 日本語, emoji 😀👍🏽, flag 🇫🇷, math 𝔸",
        "lines\r\nwith CRLF\nand\ttabs\n\nHTTP/1.1 200 OK\r\nX-Header: not a header",
        'regex \\d+\\.\\w, path C:\\Users and JSON {"a": [1, 2]}',
        "hidden: zero\u200bwidth, bidi \u202egnp.exe\u202c, tag \U000e0041\U000e0042, "
        "bom \ufeff, lone cr\r, del \x7f",
        "",
    ]
    ids = [fake.add_comment(OWNER, NAME, PR, b, created_at=at(i))["id"]
           for i, b in enumerate(bodies)]
    out = run_json(sh_env)
    got = {c["id"]: c for c in out["timelineComments"]}
    for cid, body in zip(ids, bodies):
        assert got[cid]["body"] == body
        assert got[cid]["bodyChars"] == len(body)
        assert got[cid]["hiddenCharacters"] == count_hidden(body)
    assert got[ids[4]]["hiddenCharacters"] == 8
    assert got[ids[2]]["hiddenCharacters"] == 0  # CRLF line ends and tabs do not count
    assert not any("caret notation" in note for note in out["limitations"])
    # a body with backslashes may have held literal \u00XX text, which gh 2.23 rewrites
    notes = [n for n in out["limitations"] if "literal \\u00XX" in n]
    assert len(notes) == 1 and str(ids[3]) in notes[0]
    assert not any(str(cid) in notes[0] for cid in ids[:3] + ids[4:])


def test_literal_unicode_escape_text_is_reported(fake, sh_env):
    make_pr(fake)
    body = "write \\u00e9 or \\u0041, not \\x41"
    comment = fake.add_comment(OWNER, NAME, PR, body)
    out = run_json(sh_env)
    returned = out["timelineComments"][0]["body"]
    # gh 2.23 decodes the literal text (\u00e9 becomes \é); a gh that does not keeps it
    assert returned in (body, "write \\é or \\A, not \\x41")
    assert out["timelineComments"][0]["bodyChars"] == len(returned)
    notes = [n for n in out["limitations"] if "literal \\u00XX" in n]
    assert len(notes) == 1 and str(comment["id"]) in notes[0]


def test_large_ids_stay_exact(fake, sh_env):
    make_pr(fake)
    near = 2**53 - 1000  # the largest ids jq 1.6 keeps exact are below 2**53
    fake.store._seq.update(comment=near, review_comment=near - 500, review=near - 900)
    thread = fake.add_review_thread(OWNER, NAME, PR, "a.py", line=1)
    review = fake.add_review(OWNER, NAME, PR, "dave", "APPROVED", "ok")
    comment = fake.add_comment(OWNER, NAME, PR, "hi")
    assert comment["id"] > 2**52
    out = run_json(sh_env, "--include-system")
    assert [c["id"] for c in out["reviewComments"]] == thread["comment_ids"]
    ids = {c["id"] for c in out["timelineComments"]}
    assert {review["id"], comment["id"]} <= ids
    assert f'#issuecomment-{comment["id"]}' in json.dumps(out)
    # the raw JSON text holds the ids as plain integers, not 9.007e+15
    raw = run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR, "--format", "json").stdout
    assert f'"id": {comment["id"]},' in raw


def test_control_characters_rewritten_by_gh_are_reported(fake, sh_env):
    make_pr(fake, title="Fix \x1b[1mbold\x1b[0m title")
    escaped = fake.add_comment(OWNER, NAME, PR, "red \x1b[31malert\x1b[0m, bell \x07, nul \x00",
                               created_at=at(1))
    plain = fake.add_comment(OWNER, NAME, PR, "nothing odd here", created_at=at(2))
    literal = fake.add_comment(OWNER, NAME, PR, "the text \\u001b is not an escape",
                               created_at=at(3))
    other = fake.add_comment(OWNER, NAME, PR, "del \x7f, c1 \x85\x9b, ff \x0c, bs \x08",
                             created_at=at(4))
    out = run_json(sh_env)
    got = {c["id"]: c for c in out["timelineComments"]}
    body = got[escaped["id"]]["body"]
    assert "\x1b" not in body and body.startswith("red ^[[31malert^[[0m")  # gh's caret notation
    for comment in got.values():  # the counts describe the text as returned
        assert comment["bodyChars"] == len(comment["body"])
        assert comment["hiddenCharacters"] == count_hidden(comment["body"])
    assert got[plain["id"]]["body"] == "nothing odd here"
    assert got[literal["id"]]["body"] != "the text \\u001b is not an escape"  # gh: "\^["
    notes = [n for n in out["limitations"] if n.startswith("gh rewrites control characters")]
    assert len(notes) == 1
    note = notes[0]
    assert str(escaped["id"]) in note and str(literal["id"]) in note
    assert str(plain["id"]) not in note
    assert "bodyChars" in note and "hiddenCharacters" in note
    assert any(n.startswith("the title may have been rewritten") for n in out["limitations"])
    assert out["title"] == "Fix ^[[1mbold^[[0m title"
    # DEL, C1, form feed and backspace are not rewritten by gh 2.23 (newer gh writes C1 as
    # carets): either way they are counted from the text returned
    assert got[other["id"]]["hiddenCharacters"] >= 3


def test_summary_shows_hidden_characters_as_escapes(fake, sh_env, feedback):
    fake.add_comment(OWNER, NAME, PR, "look \u202eevil\u202c \U000e0041 zw\u200b del\x7f "
                     "c1\x85 bs\x08 cr\rx esc\x1b[2J", created_at=at(30))
    fake.add_review_thread(OWNER, NAME, PR, "odd\u200bname.py", line=2, comments=[
        {"user": "bob", "body": "tab\there\r\nnext line", "created_at": at(31)}])
    result = run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR)
    assert result.code == 0, result
    text = result.stdout
    assert not RAW_HIDDEN.search(text.replace("\t", "")), result
    for escape in ("<U+202E>", "<U+202C>", "<U+E0041>", "<U+200B>", "<U+007F>", "<U+0085>",
                   "<U+0008>", "<U+000D>"):
        assert escape in text
    assert "^[[2J" in text  # gh's rewrite of ESC, inert
    lines = text.splitlines()
    assert lines[0] == f"Pull request {REPOSITORY}#{PR}: Add the parser"
    assert "State: OPEN" in lines and f"URL: https://github.com/{REPOSITORY}/pull/{PR}" in lines
    assert any(line.startswith("Retrieved: ") for line in lines)
    inline_at = lines.index("Inline review comments (resolution state unknown): 5")
    general_at = lines.index("General feedback (reviews, issue comments): 6")
    notes_at = lines.index("Notes:")
    assert inline_at < general_at < notes_at
    inline_block = lines[inline_at:general_at]
    assert "  src/parser.py" in inline_block and "  README.md" in inline_block
    assert "  odd<U+200B>name.py" in inline_block
    assert "      Off by one?" in inline_block and "      next line" in inline_block
    assert any("erin (COLLABORATOR), review CHANGES_REQUESTED" in ln
               for ln in lines[general_at:notes_at])
    assert f"  - {RESOLUTION_NOTE}" in lines[notes_at:]


def test_summary_is_the_default_format(fake, sh_env):
    make_pr(fake)
    result = run_sh(sh_env, "--owner", OWNER, "--repo", NAME, "--pr", PR)
    assert result.code == 0, result
    assert "Inline review comments (resolution state unknown): 0" in result.stdout
    assert "  (none)" in result.stdout
    assert result.stdout.lstrip()[:1] != "{"


# --------------------------------------------------------------------------- errors


def test_missing_pull_request_is_exit_4(fake, sh_env):
    fake.add_repo(OWNER, NAME)
    error = assert_error(run_sh(sh_env, "--repo", REPOSITORY, "--pr", 99), 4, "not_found", 404)
    assert f"{REPOSITORY}#99" in error["message"]
    assert_error(run_sh(sh_env, "--repo", "octo/nothing", "--pr", 1), 4, "not_found", 404)


def test_server_error_is_exit_6_without_retry(fake, sh_env):
    make_pr(fake)
    fake.inject(path=r"/pulls/7/comments$", status=500)
    assert_error(run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR), 6, "server", 500)
    assert len([r for r in fake.requests if r.path.endswith("/pulls/7/comments")]) == 1


@pytest.mark.parametrize("fault", [{"status": 502}, {"mode": "truncate"}, {"mode": "close"}])
def test_bad_gateway_and_broken_connections_are_retried(fake, sh_env, fault):
    make_pr(fake)
    fake.add_review_thread(OWNER, NAME, PR, "a.py", line=1)
    fake.inject(path=r"/pulls/7/comments$", times=1, **fault)
    out = run_json(sh_env)
    assert len(out["reviewComments"]) == 1
    assert len([r for r in fake.requests if r.path.endswith("/pulls/7/comments")]) == 2


def test_persistent_unavailability_is_exit_6_after_three_attempts(fake, sh_env):
    make_pr(fake)
    fake.inject(path=r"/pulls/7$", status=503, times=None)
    assert_error(run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR), 6, "server", 503)
    assert len(fake.requests) == 3


@pytest.mark.parametrize("mode, code", [("malformed", "server"), ("close", "network")])
def test_broken_responses_are_exit_6(fake, sh_env, mode, code):
    make_pr(fake)
    fake.inject(path=r"/pulls/7$", mode=mode, times=None if mode == "close" else 1)
    error = assert_error(run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR), 6, code,
                         200 if mode == "malformed" else None)
    assert error["retry_after_seconds"] is None
    assert len(fake.requests) == (1 if mode == "malformed" else 3)


def test_failed_second_page_gives_an_error_not_half_a_result(fake, sh_env):
    make_pr(fake)
    thread = fake.add_review_thread(OWNER, NAME, PR, "a.py", line=1)
    fake.add_thread_comments(thread["id"], 120)
    fake.inject(path=r"^/repositories/\d+/pulls/7/comments$", status=404)
    result = run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR, "--format", "json")
    assert_error(result, 4, "not_found", 404)


def test_primary_rate_limit_is_exit_5_with_the_reset_wait(fake, sh_env):
    make_pr(fake)
    fake.clear_log()
    fake.rate_limit(0, reset=int(time.time()) + 120)
    error = assert_error(run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR), 5, "rate_limited",
                         403)
    assert 100 <= error["retry_after_seconds"] <= 120
    assert len(fake.requests) == 1  # not retried


def test_429_rate_limit_is_exit_5(fake, sh_env):
    make_pr(fake)
    fake.rate_limit(0, reset=int(time.time()) + 30, status=429)
    error = assert_error(run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR), 5, "rate_limited",
                         429)
    assert 10 <= error["retry_after_seconds"] <= 30


def test_secondary_rate_limit_uses_retry_after(fake, sh_env):
    make_pr(fake)
    fake.secondary_rate_limit(retry_after=42, path=r"/pulls/7/comments$")
    error = assert_error(run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR), 5, "rate_limited",
                         403)
    assert error["retry_after_seconds"] == 42


def test_forbidden_without_rate_limit_is_exit_3(fake, sh_env):
    make_pr(fake)
    fake.inject(path=r"/pulls/7$", status=403,
                body={"message": "Resource not accessible by integration", "status": "403"})
    assert_error(run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR), 3, "auth", 403)


def test_bad_credentials_are_exit_3(fake, sh_env):
    make_pr(fake)
    env = {**sh_env, "GH_TOKEN": "ghp_notKnownToTheFake0000000000000000000000"}
    assert_error(run_sh(env, "--repo", REPOSITORY, "--pr", PR), 3, "auth", 401)


def test_gh_not_logged_in_is_exit_3_without_a_request(fake, sh_env, tmp_path):
    make_pr(fake)
    empty = tmp_path / "empty-gh-config"
    empty.mkdir()
    env = {k: v for k, v in sh_env.items() if k != "GH_TOKEN"}
    env["GH_CONFIG_DIR"] = str(empty)
    error = assert_error(run_sh(env, "--repo", REPOSITORY, "--pr", PR), 3, "auth")
    assert "github.localhost" in error["message"]
    assert fake.requests == []


def test_gh_without_auth_token_command_is_checked_with_auth_status(fake, sh_env, tmp_path):
    make_pr(fake, title="Old gh")
    bindir = tmp_path / "old-gh"
    bindir.mkdir()
    shim = bindir / "gh"  # a gh older than 2.17: no `gh auth token`
    shim.write_text("#!/usr/bin/env bash\n"
                    'if [ "$1 $2" = "auth token" ]; then\n'
                    '  echo \'unknown command "token" for "gh auth"\' >&2; exit 1\n'
                    "fi\n"
                    f'exec {shutil.which("gh")} "$@"\n')
    shim.chmod(0o755)
    env = {**sh_env, "PATH": f"{bindir}{os.pathsep}{sh_env['PATH']}"}
    assert run_json(env)["title"] == "Old gh"
    fake.clear_log()
    env.pop("GH_TOKEN")
    assert_error(run_sh(env, "--repo", REPOSITORY, "--pr", PR), 3, "auth")
    assert not [r for r in fake.requests if "/repos/" in r.path]  # `gh auth status` may ask


def test_a_failing_timeline_source_becomes_a_limitation(fake, sh_env, feedback):
    fake.inject(path=r"/issues/7/comments$", status=500)
    out = run_json(sh_env)
    assert len(out["reviewComments"]) == 4
    assert {c["commentType"] for c in out["timelineComments"]} == {"review"}
    gaps = [n for n in out["limitations"] if n.startswith("issue comments unavailable")]
    assert len(gaps) == 1 and "500" in gaps[0]


@pytest.mark.parametrize("args, needle", [
    ((), "--pr"),
    (("--repo", REPOSITORY), "--pr"),
    (("--repo", REPOSITORY, "--pr", "abc"), "positive integer"),
    (("--repo", REPOSITORY, "--pr", "0"), "positive integer"),
    (("--repo", REPOSITORY, "--pr", "7x"), "positive integer"),
    (("--repo", REPOSITORY, "--pr", "7", "--format", "xml"), "--format"),
    (("--repo", REPOSITORY, "--pr", "7", "--verbose"), "unrecognized flag: --verbose"),
    (("--repo", REPOSITORY, "--pr", "7", "extra"), "unexpected argument"),
    (("--repo", REPOSITORY, "--pr"), "needs a value"),
    (("--repo", REPOSITORY, "--pr", "--format", "json"), "needs a value"),
    (("--repo", NAME, "--pr", "7"), "--owner"),
    (("--owner", OWNER, "--pr", "7"), "--repo"),
    (("--owner", "other", "--repo", REPOSITORY, "--pr", "7"), "conflicts"),
    (("--owner", "-bad-", "--repo", NAME, "--pr", "7"), "invalid owner"),
    (("--repo", "octo/..", "--pr", "7"), "invalid repository"),
    (("--repo", "octo/a/b", "--pr", "7"), "invalid repository"),
    (("--repo", REPOSITORY, "--pr", "7", "--file", ""), "--file"),
])
def test_usage_errors_are_exit_2_before_any_request(fake, sh_env, tmp_path, args, needle):
    result = run_sh(sh_env, *args, cwd=tmp_path)  # tmp_path: no git remote to fall back on
    error = assert_error(result, 2, "usage")
    assert needle in error["message"]
    assert fake.requests == []


def test_missing_tool_is_a_usage_error(fake, sh_env, tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(shutil.which("bash"), bindir / "bash")
    os.symlink(shutil.which("gh"), bindir / "gh")  # no jq on this PATH
    env = {**sh_env, "PATH": str(bindir)}
    result = run_script(SH, "--repo", REPOSITORY, "--pr", PR, env=env)
    error = assert_error(result, 2, "usage")
    assert "jq is not installed" in error["message"]


def test_help_lists_examples_and_exit_codes(sh_env):
    result = run_sh(sh_env, "--help")
    assert result.code == 0 and result.stderr == ""
    assert "Examples:" in result.stdout and "Exit codes" in result.stdout
    for code in ("0", "2", "3", "4", "5", "6"):
        assert re.search(rf"^\s+{code}\s+\S", result.stdout, re.M)
    assert run_sh(sh_env, "-h").stdout == result.stdout


# --------------------------------------------------------------------------- environment


@pytest.mark.parametrize("remote", [
    "https://github.com/octo/hello.git",
    "git@github.com:octo/hello.git",
    "ssh://git@ssh.github.com:443/octo/hello",
])
def test_repository_defaults_to_the_origin_remote(fake, sh_env, tmp_path, remote):
    if shutil.which("git") is None:
        if os.environ.get("CI"):
            pytest.fail("git is not installed")
        pytest.skip("git is not installed")
    make_pr(fake, title="From the remote")
    work = tmp_path / "checkout"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "remote", "add", "origin", remote], check=True)
    result = run_sh(sh_env, "--pr", PR, "--format", "json", cwd=work)
    assert result.code == 0, result
    assert result.json["repository"] == REPOSITORY
    assert result.json["title"] == "From the remote"


def test_no_temp_files_are_left_behind(fake, sh_env, feedback):
    tmpdir = Path(sh_env["TMPDIR"])
    assert run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR).code == 0
    assert list(tmpdir.iterdir()) == []
    assert run_sh(sh_env, "--repo", REPOSITORY, "--pr", 99).code == 4
    assert list(tmpdir.iterdir()) == []
    fake.inject(path=r"/pulls/7/comments$", status=500)
    assert run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR, "--format", "json").code == 6
    assert list(tmpdir.iterdir()) == []


def test_forced_colour_or_terminal_in_the_environment_changes_nothing(fake, sh_env, feedback):
    plain = run_json(sh_env)
    forced = run_json({**sh_env, "CLICOLOR_FORCE": "1", "GH_FORCE_TTY": "1", "PAGER": "false"})
    assert forced["reviewComments"] == plain["reviewComments"]
    assert forced["timelineComments"] == plain["timelineComments"]


def test_only_get_requests_are_sent(fake, sh_env, feedback):
    run_json(sh_env, "--include-system")
    run_sh(sh_env, "--repo", REPOSITORY, "--pr", PR)
    assert fake.requests and {r.method for r in fake.requests} == {"GET"}
    for r in fake.requests:
        assert r.headers["accept"] == "application/vnd.github+json"
        assert r.headers["x-github-api-version"] == "2022-11-28"
    assert all(r.path.startswith(("/repos/octo/hello/", "/repositories/"))
               for r in fake.requests)


# --------------------------------------------------------------------------- the Python path


def _caret(text: str) -> str:
    """gh's rewrite of the C0 controls this comparison uses (ESC, BEL, NUL)."""
    return re.sub("[\x00\x07\x1b]", lambda m: "^" + chr(ord(m.group(0)) + 64), text)


def test_shell_matches_python_path(fake, sh_env, feedback):
    fake.add_comment(OWNER, NAME, PR, "esc \x1b[31mred\x1b[0m bell \x07 — café 😀",
                     created_at=at(40))
    fake.add_review_thread(OWNER, NAME, PR, "src/parser.py", line=7, comments=[
        {"user": "copilot-pull-request-reviewer", "user_type": "Bot", "body": "Consider\r\nthis",
         "association": "NONE", "created_at": at(41)}])
    shell = run_json(sh_env, "--include-system")
    python = run_script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", PR, "--format",
                        "json", "--include-resolved", "--include-system",
                        env=script_env(fake))
    assert python.code == 0, python
    py = python.json
    py_inline = {c["id"]: c for t in py["reviewThreads"] for c in t["comments"]}
    py_timeline = {c["id"]: c for c in py["timelineComments"]}
    assert set(py_inline) == {c["id"] for c in shell["reviewComments"]}
    assert list(py_timeline) == [c["id"] for c in shell["timelineComments"]]  # same order
    for mine in shell["reviewComments"] + shell["timelineComments"]:
        theirs = dict((py_inline if mine["commentType"] == "inline" else py_timeline)[mine["id"]])
        if _caret(theirs["body"]) != theirs["body"]:  # gh's rewrite: compare modulo it
            theirs["body"] = _caret(theirs["body"])
            theirs["bodyChars"] = len(theirs["body"])
            theirs["hiddenCharacters"] = count_hidden(theirs["body"])
        for key in sorted(COMMENT_KEYS):
            assert mine[key] == theirs.get(key), (mine["id"], key, mine[key], theirs.get(key))


@pytest.mark.parametrize("args", [(), ("--author", "linter[bot]"),
                                  ("--file", "src/parser.py", "--author", "BOB")])
def test_shell_and_python_paths_apply_the_same_filters(fake, sh_env, feedback, args):
    shell = run_json(sh_env, *args)
    python = run_script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", PR, "--format",
                        "json", "--include-resolved", *args, env=script_env(fake))
    assert python.code == 0, python
    py = python.json
    py_inline = sorted(c["id"] for t in py["reviewThreads"] for c in t["comments"])
    assert py_inline == sorted(c["id"] for c in shell["reviewComments"])
    assert [c["id"] for c in py["timelineComments"]] == \
        [c["id"] for c in shell["timelineComments"]]
