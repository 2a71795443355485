"""manage_issue_comment.py, the only writer, and the comment-id hand-off (seed 003)."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from tests.realshapes import exchange, needs
from tests.support import OWNER, REPO, REPOSITORY, Run, clean_env, run_script, script_env

ISSUE = 5


@pytest.fixture
def issue(fake):
    fake.add_repo(OWNER, "hello")
    fake.add_issue(OWNER, "hello", ISSUE)
    fake.add_comments(OWNER, "hello", ISSUE, 12)
    return fake


def write(env, *args, body: bytes = b"hello"):
    return run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--body-file", "-",
                      *args, env=env, stdin=body)


def run_fetch(command: str, env) -> Run:
    """Run `handoff.fetch` exactly as given, from the bundle root."""
    argv = shlex.split(command)
    assert argv[0] == "python3"
    proc = subprocess.run([sys.executable] + argv[1:], cwd=REPO, env=env, capture_output=True,
                          check=False)
    return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def test_create_returns_the_id_url_times_and_a_handoff(issue):
    env = script_env(issue)
    r = write(env, "--action", "create", "--issue", ISSUE)
    assert r.code == 0, r
    doc = r.json
    stored = issue.get_comment(int(doc["commentId"]))
    assert isinstance(doc["commentId"], str) and doc["message"] == \
        f"Successfully created comment on #{ISSUE}"
    assert doc["url"] == stored["html_url"] and doc["createdAt"] == stored["created_at"]
    assert doc["updatedAt"] == stored["updated_at"]
    hand = doc["handoff"]
    assert hand == {"repository": REPOSITORY, "number": ISSUE, "commentId": doc["commentId"],
                    "fetch": hand["fetch"]}
    assert f"--api-url {issue.url}" in hand["fetch"]  # the API is not github.com
    assert [q.method for q in issue.requests] == ["POST"]
    assert issue.requests[0].json() == {"body": "hello"}


def test_update_returns_the_same_fields(issue):
    env = script_env(issue)
    cid = write(env, "--action", "create", "--issue", ISSUE).json["commentId"]
    issue.advance(60)
    r = write(env, "--action", "update", "--comment-id", cid, body=b"edited")
    assert r.code == 0, r
    doc = r.json
    assert doc["commentId"] == cid and doc["message"] == \
        f"Successfully updated comment on #{ISSUE}"
    assert doc["updatedAt"] != doc["createdAt"]
    assert issue.get_comment(int(cid))["body"] == "edited"
    assert issue.requests[-1].method == "PATCH"


@pytest.mark.parametrize("body", [
    b'quotes " \' ` $(rm -rf /) \\n backslash \\ and emoji \xf0\x9f\x98\x80',
    b"crlf\r\nline two\r\n", b"trailing newline\n", "中文 + 日本語".encode(),
    b"x" * 65536,
])
def test_bodies_are_sent_exactly_as_read(issue, body):
    r = write(script_env(issue), "--action", "create", "--issue", ISSUE, body=body)
    assert r.code == 0, r
    assert issue.get_comment(int(r.json["commentId"]))["body"] == body.decode()


@pytest.mark.parametrize("body, why", [
    (b"nul \x00 inside", "NUL"), (b"\xff\xfe bad utf-8", "UTF-8"), (b"", "empty"),
    (b"  \n\t ", "empty"), ("é".encode() * 65537, "65536"),
])
def test_bad_bodies_are_usage_errors_before_sending(issue, body, why):
    r = write(script_env(issue), "--action", "create", "--issue", ISSUE, body=body)
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    assert why in r.json["error"]["message"]
    assert issue.requests == []


def test_body_from_a_file(issue, tmp_path):
    path = tmp_path / "reply.md"
    path.write_bytes(b"# Reply\n\n- point one\n")
    r = run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--action", "create",
                   "--issue", ISSUE, "--body-file", path, env=script_env(issue))
    assert r.code == 0, r
    assert issue.get_comment(int(r.json["commentId"]))["body"] == "# Reply\n\n- point one\n"


@pytest.mark.parametrize("args", [["--action", "create"],
                                  ["--action", "update"],
                                  ["--action", "create", "--issue", "5", "--comment-id", "9"],
                                  ["--action", "delete", "--issue", "5"]])
def test_flag_conflicts_are_usage_errors(issue, args):
    r = write(script_env(issue), *args)
    assert r.code == 2, r
    assert issue.requests == []


def test_missing_issue_is_404_and_forbidden_is_403(issue):
    env = script_env(issue)
    r = write(env, "--action", "create", "--issue", 999)
    assert r.code == 4 and r.json["error"]["status"] == 404, r
    cid = write(env, "--action", "create", "--issue", ISSUE).json["commentId"]
    r = write(script_env(issue, token="not-the-author", login="mallory"), "--action", "update",
              "--comment-id", cid, body=b"hijack")
    assert r.code == 3 and r.json["error"]["status"] == 403, r
    assert issue.get_comment(int(cid))["body"] == "hello"


def test_no_token_is_an_auth_error_before_any_request(issue, tmp_path):
    env = clean_env(GITHUB_API_URL=issue.url, HOME=str(tmp_path), PATH="/usr/bin:/bin",
                    GH_CONFIG_DIR=str(tmp_path))
    r = write(env, "--action", "create", "--issue", ISSUE)
    assert r.code == 3 and r.json["error"]["code"] == "auth", r
    assert issue.requests == []


def test_dry_run_needs_no_token_and_sends_nothing(issue, tmp_path):
    env = clean_env(GITHUB_API_URL=issue.url, HOME=str(tmp_path), GH_CONFIG_DIR=str(tmp_path))
    r = write(env, "--action", "update", "--comment-id", "4300000001", "--dry-run",
              body=b"new text")
    assert r.code == 0, r
    req = r.json["request"]
    assert req["method"] == "PATCH" and req["url"].endswith("/issues/comments/4300000001")
    assert req["json"] == {"body": "new text"} and issue.requests == []


def test_handoff_round_trip_over_three_cycles(issue):
    """Reviewer posts and hands off the id; the author reads exactly that comment, answers and
    hands back; three times. Each read is one request, whatever the thread's length."""
    env = script_env(issue)
    previous = None
    for cycle in range(3):
        for role in ("reviewer", "author"):
            body = f"{role} cycle {cycle}".encode()
            posted = write(env, "--action", "create", "--issue", ISSUE, body=body)
            assert posted.code == 0, posted
            hand = posted.json["handoff"]
            issue.clear_log()
            got = run_fetch(hand["fetch"], env)
            assert got.code == 0, got
            comments = got.json["comments"]
            assert [c["id"] for c in comments] == [int(hand["commentId"])]
            assert comments[0]["body"] == body.decode()
            assert len(issue.requests) == 1 and issue.requests[0].method == "GET"
            if previous is not None:
                since = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue",
                                   ISSUE, "--since-comment-id", previous, env=env)
                assert [c["id"] for c in since.json["comments"]] == [int(hand["commentId"])]
            previous = hand["commentId"]


# GitHub's answers recorded in 2012 (PyGithub's ReplayData): a comment without `issue_url`.
EDIT_2012 = "pygithub/IssueComment.testEdit.txt"
CREATE_2012 = "pygithub/Issue.testCreateComment.txt"


@needs(EDIT_2012)
def test_an_update_answered_without_issue_url_names_no_issue_it_does_not_know(issue):
    """An update takes no --issue and reads nothing first: when GitHub's answer names no issue
    (no `issue_url`), the hand-off says it cannot name it — never `--issue 0`, never '#None',
    and no request spent to learn it."""
    ex = exchange(EDIT_2012, "/issues/comments/20227753")
    assert ex.method == "PATCH" and ex.status == 200 and "issue_url" not in ex.json
    cid = ex.json["id"]
    issue.inject("PATCH", rf"/issues/comments/{cid}$", status=ex.status,
                 headers=ex.replay_headers(), body=ex.body)
    r = write(script_env(issue), "--action", "update", "--comment-id", cid,
              body=b"Comment edited by PyGithub")
    assert r.code == 0, r
    doc = r.json
    assert "None" not in doc["message"] and "--issue 0" not in r.stdout
    assert doc["message"] == f"Successfully updated comment {cid} (GitHub's answer names no issue)"
    assert doc["commentId"] == str(cid) and doc["updatedAt"] == ex.json["updated_at"]
    assert doc["handoff"] == {"repository": REPOSITORY, "number": None,
                              "commentId": str(cid), "fetch": None}
    assert "wait" not in doc
    [warning] = doc["warnings"]
    assert "issue_url" in warning and "handoff.number and handoff.fetch are null" in warning
    assert (f"python3 scripts/get_latest_comments.py --repo {REPOSITORY} --issue N "
            f"--comment-id {cid}") in warning
    assert "warning:" not in r.stderr  # the JSON holds it (amendments, turn 6)
    assert [q.method for q in issue.requests] == ["PATCH"]


@needs(CREATE_2012)
def test_a_create_answered_without_issue_url_hands_off_the_issue_it_was_given(issue):
    """A create names its issue on the command line: the hand-off and the wait use it when
    GitHub's answer has no `issue_url`."""
    ex = exchange(CREATE_2012, "/issues/28/comments")
    assert ex.method == "POST" and ex.status == 201 and "issue_url" not in ex.json
    cid = ex.json["id"]
    issue.inject("POST", rf"/issues/{ISSUE}/comments$", status=ex.status,
                 headers=ex.replay_headers(), body=ex.body)
    r = write(script_env(issue), "--action", "create", "--issue", ISSUE)
    assert r.code == 0, r
    doc = r.json
    assert doc["message"] == f"Successfully created comment on #{ISSUE}"
    hand = doc["handoff"]
    assert hand["number"] == ISSUE and hand["commentId"] == str(cid)
    assert f"--issue {ISSUE} --comment-id {cid}" in hand["fetch"]
    assert f"--issue {ISSUE} --after-comment-id {cid}" in doc["wait"]
    assert doc["warnings"] == []
