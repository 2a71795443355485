"""get_pr_comments.py, driven as an agent drives it: subprocesses against the fake GitHub.

Review threads come from GraphQL, the timeline from REST; request counts are read from the
fake's log. The query text the script sends is also checked against GitHub's real schema
(../shared/github/schema.graphql) when that folder is present.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support import OWNER, REPOSITORY, clean_env, run_script, script_env

NAME = "hello"
PR = 7
SCHEMA = Path(__file__).resolve().parents[1] / ".." / "shared" / "github" / "schema.graphql"
BOT = "copilot-pull-request-reviewer"
HIDDEN = "\x1b[2J\u202etxt.exe\U000e0041"  # ESC, a bidi override, a Unicode tag character


@pytest.fixture
def pr(fake):
    """octo/hello with open PR #7 and nothing on it yet."""
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", head_ref="feature")
    return fake


def get(fake, *args, pr_number=PR, cwd=None, env=None):
    """get_pr_comments.py --repo octo/hello --pr 7 ARGS (JSON unless ARGS choose)."""
    target = ["--repo", REPOSITORY, "--pr", pr_number] if pr_number is not None else []
    fmt = [] if "--format" in args else ["--format", "json"]
    return run_script("get_pr_comments.py", *target, *fmt, *args,
                      env=env or script_env(fake), cwd=cwd)


def graphql_requests(fake):
    return [r for r in fake.requests if r.method == "POST" and r.path.endswith("/graphql")]


def timeline_requests(fake):
    return [r for r in fake.requests if r.method == "GET"
            and (r.path.endswith(f"/issues/{PR}/comments") or r.path.endswith(f"/pulls/{PR}/reviews"))]


def assert_error(run, code, exit_code):
    assert run.code == exit_code, run
    doc = run.json
    assert set(doc) == {"error"} and set(doc["error"]) == {"code", "message", "status",
                                                         "retry_after_seconds"}
    assert doc["error"]["code"] == code, run
    assert f"error ({code})" in run.stderr
    return doc["error"]


def thread(fake, path="src/app.py", line=10, comments=None, **kw):
    return fake.add_review_thread(OWNER, NAME, PR, path, line=line, comments=comments, **kw)


def by(user, body="Please look at this.", **kw):
    return {"user": user, "body": body, **kw}


COMMENT_KEYS = ["id", "author", "authorType", "authorAssociation", "body", "bodyChars",
                "bodyTruncated", "hiddenCharacters", "commentType", "createdAt", "updatedAt",
                "lastEditedAt", "url", "line",
                "originalLine", "position", "file", "state"]


# --------------------------------------------------------------------------- completeness


def test_long_pr_comes_back_whole_within_nine_requests(pr):
    # One review wraps every thread's first comment, so the timeline is one page, as in the
    # contract's example: 120 threads, one of 150 comments, a one-page timeline.
    review = pr.add_review(OWNER, NAME, PR, "bob", "COMMENTED", body="")
    threads = [thread(pr, path=f"src/f{i % 7}.py", line=i + 1,
                      comments=[by("bob", f"t{i}", review_id=review["id"])])
               for i in range(120)]
    long = threads[105]  # on the second page of threads
    replies = pr.add_thread_comments(long["id"], 149, user="alice")
    pr.add_comment(OWNER, NAME, PR, "Looks good overall", user="carol")
    pr.clear_log()

    run = get(pr)

    assert run.code == 0, run
    doc = run.json
    assert [t["id"] for t in doc["reviewThreads"]] == [t["id"] for t in threads]
    got_long = doc["reviewThreads"][105]["comments"]
    assert [c["id"] for c in got_long] == long["comment_ids"] + replies
    assert len(got_long) == 150
    assert [c["body"] for c in got_long[1:]] == [f"reply {i}" for i in range(149)]
    assert all(len(t["comments"]) == 1 for i, t in enumerate(doc["reviewThreads"]) if i != 105)
    assert [c["body"] for c in doc["timelineComments"]] == ["Looks good overall"]
    assert doc["limitations"] == []
    # 2 pages of threads + 1 further page of the long thread + reviews + conversation comments
    gql = graphql_requests(pr)
    assert len(gql) == 3
    assert [json.loads(r.body)["variables"].get("id") for r in gql] == [None, None, long["id"]]
    assert len(timeline_requests(pr)) == 2
    assert len(pr.requests) == 5 <= 9


def test_comment_shape_is_the_shared_one_with_thread_fields(pr):
    thread(pr, path="src/app.py", line=12, start_line=10, comments=[by("alice")])
    thread(pr, path="src/old.py", line=3, is_outdated=True, viewer_can_resolve=False)
    pr.add_review(OWNER, NAME, PR, "carol", "CHANGES_REQUESTED", body="Needs tests")
    pr.add_comment(OWNER, NAME, PR, "A question", user="dave", association="CONTRIBUTOR")

    run = get(pr, "--refresh")

    assert run.code == 0, run
    doc = run.json
    assert list(doc) == ["repository", "pullRequest", "title", "state", "url", "retrievedAt",
                         "refreshed", "reviewThreads", "timelineComments", "limitations"]
    assert (doc["repository"], doc["pullRequest"], doc["title"], doc["state"]) == (
        REPOSITORY, PR, "Add the parser", "OPEN")
    assert doc["url"] == f"https://github.com/{REPOSITORY}/pull/{PR}"
    assert doc["refreshed"] is True and doc["retrievedAt"].endswith("Z")
    multi, outdated = doc["reviewThreads"]
    assert {k: multi[k] for k in ("isResolved", "isOutdated", "canResolve", "file", "line",
                                  "startLine")} == {
        "isResolved": False, "isOutdated": False, "canResolve": True, "file": "src/app.py",
        "line": 12, "startLine": 10}
    assert multi["id"].startswith("PRRT_")
    assert (outdated["isOutdated"], outdated["line"], outdated["canResolve"]) == (True, None, False)
    inline = multi["comments"][0]
    assert list(inline) == COMMENT_KEYS
    assert inline["commentType"] == "inline" and inline["file"] == "src/app.py"
    assert (inline["line"], inline["originalLine"], inline["state"]) == (12, 12, None)
    assert isinstance(inline["position"], int)
    assert inline["url"].endswith(f"#discussion_r{inline['id']}")
    assert outdated["comments"][0]["originalLine"] == 3 and outdated["comments"][0]["line"] is None
    review, comment = doc["timelineComments"]
    assert list(review) == COMMENT_KEYS and list(comment) == COMMENT_KEYS
    assert (review["commentType"], review["state"], review["body"]) == (
        "review", "CHANGES_REQUESTED", "Needs tests")
    assert review["file"] is None and review["line"] is None and review["position"] is None
    assert (comment["commentType"], comment["author"], comment["authorAssociation"]) == (
        "issue_comment", "dave", "CONTRIBUTOR")
    assert comment["state"] is None and comment["file"] is None


def test_timeline_is_in_ascending_time_then_id(pr):
    pr.add_comment(OWNER, NAME, PR, "third", user="a", created_at="2026-01-03T00:00:00Z")
    pr.add_review(OWNER, NAME, PR, "b", "APPROVED", body="second",
                  submitted_at="2026-01-02T00:00:00Z")
    pr.add_comment(OWNER, NAME, PR, "first", user="c", created_at="2026-01-01T00:00:00Z")
    doc = get(pr).json
    assert [c["body"] for c in doc["timelineComments"]] == ["first", "second", "third"]


def test_ids_above_2_to_the_31_are_numbers(pr):
    t = thread(pr, comments=[by("alice")])
    review = pr.add_review(OWNER, NAME, PR, "carol", "APPROVED", body="ok")
    comment = pr.add_comment(OWNER, NAME, PR, "hi", user="dave")
    run = get(pr)
    doc = run.json
    ids = [doc["reviewThreads"][0]["comments"][0]["id"]] + [c["id"] for c in
                                                             doc["timelineComments"]]
    assert ids == [t["comment_ids"][0], review["id"], comment["id"]]
    assert all(type(i) is int and i > 2**31 for i in ids)
    assert comment["id"] > 2**32
    for i in ids:  # numbers in the JSON text, not strings
        assert f'"id": {i}' in run.stdout


def test_bot_logins_use_rest_spelling_in_threads_and_timeline(pr):
    thread(pr, comments=[by(BOT, "Consider a guard here", user_type="Bot")])
    pr.add_review(OWNER, NAME, PR, BOT, "COMMENTED", body="Summary of changes",
                  user_type="Bot")
    doc = get(pr).json
    inline = doc["reviewThreads"][0]["comments"][0]
    review = doc["timelineComments"][0]
    assert (inline["author"], inline["authorType"]) == (f"{BOT}[bot]", "Bot")
    assert (review["author"], review["authorType"]) == (f"{BOT}[bot]", "Bot")


# --------------------------------------------------------------------------- filters


def test_resolved_threads_are_left_out_unless_asked(pr):
    open_ = thread(pr, line=1)
    done = thread(pr, line=2, is_resolved=True)
    default = get(pr).json
    assert [t["id"] for t in default["reviewThreads"]] == [open_["id"]]
    both = get(pr, "--include-resolved").json
    assert [(t["id"], t["isResolved"]) for t in both["reviewThreads"]] == [
        (open_["id"], False), (done["id"], True)]


def test_file_filter_keeps_only_that_files_threads_and_says_timeline_is_untouched(pr):
    a = thread(pr, path="src/a.py")
    thread(pr, path="src/b.py")
    a2 = thread(pr, path="src/a.py", line=20)
    pr.add_comment(OWNER, NAME, PR, "general", user="carol")
    doc = get(pr, "--file", "./src/a.py").json
    assert [t["id"] for t in doc["reviewThreads"]] == [a["id"], a2["id"]]
    assert [c["body"] for c in doc["timelineComments"]] == ["general"]
    assert any("--file src/a.py" in x and "timeline items have no file" in x
               for x in doc["limitations"]), doc["limitations"]


def test_author_filter_applies_to_thread_comments_and_timeline(pr):
    mixed = thread(pr, comments=[by("alice", "a1"), by("Bob", "b1"), by("alice", "a2")])
    thread(pr, comments=[by("bob", "b2")])
    pr.add_review(OWNER, NAME, PR, "alice", "APPROVED", body="ship it")
    pr.add_comment(OWNER, NAME, PR, "alice says", user="alice")
    pr.add_comment(OWNER, NAME, PR, "carol says", user="carol")

    doc = get(pr, "--author", "ALICE").json

    assert [t["id"] for t in doc["reviewThreads"]] == [mixed["id"]]  # bob's thread dropped
    assert [c["body"] for c in doc["reviewThreads"][0]["comments"]] == ["a1", "a2"]
    assert [c["body"] for c in doc["timelineComments"]] == ["ship it", "alice says"]


@pytest.mark.parametrize("spelling", [BOT, f"{BOT}[bot]"])
def test_author_filter_accepts_a_bot_with_or_without_the_suffix(pr, spelling):
    thread(pr, comments=[by(BOT, "bot note", user_type="Bot")])
    thread(pr, comments=[by("alice")])
    pr.add_review(OWNER, NAME, PR, BOT, "COMMENTED", body="bot summary", user_type="Bot")
    doc = get(pr, "--author", spelling).json
    assert [c["body"] for t in doc["reviewThreads"] for c in t["comments"]] == ["bot note"]
    assert [c["body"] for c in doc["timelineComments"]] == ["bot summary"]


def test_no_timeline_sends_no_rest_timeline_requests(pr):
    thread(pr)
    pr.add_comment(OWNER, NAME, PR, "general", user="carol")
    pr.clear_log()
    run = get(pr, "--no-timeline")
    assert run.code == 0, run
    assert run.json["timelineComments"] == []
    assert timeline_requests(pr) == []
    assert [r.method for r in pr.requests] == ["POST"]
    assert any("--no-timeline" in x for x in run.json["limitations"])


def test_system_events_are_dropped_unless_include_system(pr):
    steps = [
        lambda: thread(pr, comments=[by(BOT, "bot inline", user_type="Bot")]),  # + a wrapper
        lambda: pr.add_comment(OWNER, NAME, PR, "Deploy preview", user="netlify", user_type="Bot"),
        lambda: pr.add_comment(OWNER, NAME, PR, "human comment", user="carol"),
        lambda: pr.add_review(OWNER, NAME, PR, BOT, "COMMENTED", body="bot review body",
                              user_type="Bot"),
        *[lambda s=s: pr.add_review(OWNER, NAME, PR, "dave", s, body="")
          for s in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED")],
        lambda: pr.add_review(OWNER, NAME, PR, "erin", "COMMENTED", body=""),
    ]
    for step in steps:  # one minute apart: the timeline order is the order added
        step()
        pr.advance(60)

    default = get(pr).json
    kept = [(c["commentType"], c["author"], c["state"]) for c in default["timelineComments"]]
    assert kept == [("issue_comment", "carol", None),
                    ("review", f"{BOT}[bot]", "COMMENTED"),
                    ("review", "dave", "APPROVED"), ("review", "dave", "CHANGES_REQUESTED"),
                    ("review", "dave", "DISMISSED")]
    assert default["reviewThreads"][0]["comments"][0]["author"] == f"{BOT}[bot]"

    everything = get(pr, "--include-system").json
    extra = [c for c in everything["timelineComments"] if c not in default["timelineComments"]]
    assert sorted((c["commentType"], c["author"], c["state"]) for c in extra) == [
        ("issue_comment", "netlify[bot]", None),
        ("review", f"{BOT}[bot]", "COMMENTED"),  # the wrapper of the inline comment
        ("review", "erin", "COMMENTED")]
    assert all(c["body"] == "" for c in extra if c["commentType"] == "review")


def test_trusted_only_keeps_owner_member_collaborator_comments(pr):
    thread(pr, comments=[by("alice", "member", association="MEMBER"),
                         by("zed", "drive-by", association="NONE")])
    pr.add_comment(OWNER, NAME, PR, "outsider", user="yan", association="NONE")
    pr.add_comment(OWNER, NAME, PR, "collab", user="xia", association="COLLABORATOR")
    doc = get(pr, "--trusted-only").json
    assert [c["body"] for c in doc["reviewThreads"][0]["comments"]] == ["member"]
    assert [c["body"] for c in doc["timelineComments"]] == ["collab"]


# --------------------------------------------------------------------------- target


def git_checkout(tmp_path, branch="feature", remote=f"https://github.com/{OWNER}/{NAME}.git"):
    """A git checkout with an origin remote and `branch` checked out (no commits needed)."""
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(HOME=str(tmp_path), GIT_CONFIG_NOSYSTEM="1")
    for args in (["init", "-q"], ["remote", "add", "origin", remote],
                 ["symbolic-ref", "HEAD", f"refs/heads/{branch}"]):
        subprocess.run(["git", *args], cwd=work, env=env, check=True, capture_output=True)
    return work


def active(fake, cwd, *args):
    return run_script("get_pr_comments.py", "--format", "json", *args, cwd=cwd,
                      env=script_env(fake))


def pulls_requests(fake):
    return [r for r in fake.requests if r.method == "GET" and r.path.endswith("/pulls")]


def test_active_pr_is_the_open_pr_of_the_checked_out_branch(fake, tmp_path):
    work = git_checkout(tmp_path)
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, 3, head_ref="feature", state="closed")
    fake.add_pull(OWNER, NAME, 4, head_ref="feature", head_owner="mallory")  # a fork's branch
    fake.add_pull(OWNER, NAME, 9, head_ref="feature", title="The active one")
    fake.add_pull(OWNER, NAME, 10, head_ref="other")
    fake.add_review_thread(OWNER, NAME, 9, "src/app.py", line=1)

    for args in ([], ["--active"]):  # --active is implied without --pr
        fake.clear_log()
        run = active(fake, work, *args)
        assert run.code == 0, run
        assert (run.json["repository"], run.json["pullRequest"]) == (REPOSITORY, 9)
        assert run.json["title"] == "The active one" and len(run.json["reviewThreads"]) == 1
        (lookup,) = pulls_requests(fake)
        assert lookup.path == f"/repos/{OWNER}/{NAME}/pulls"
        assert lookup.query["state"] == "open" and lookup.query["head"] == f"{OWNER}:feature"


def test_active_without_an_open_pr_is_a_usage_error_naming_repo_and_pr(fake, tmp_path):
    work = git_checkout(tmp_path)
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, 3, head_ref="feature", state="merged")
    run = active(fake, work)
    err = assert_error(run, "usage", 2)
    assert "--repo" in err["message"] and "--pr" in err["message"]
    assert f"{OWNER}:feature" in err["message"]
    assert graphql_requests(fake) == []


def test_active_with_several_open_prs_lists_them(fake, tmp_path):
    work = git_checkout(tmp_path)
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, 11, head_ref="feature", base_ref="main", title="Into main")
    fake.add_pull(OWNER, NAME, 12, head_ref="feature", base_ref="release", title="Backport")
    run = active(fake, work)
    err = assert_error(run, "usage", 2)
    assert err["message"].index("#11 Into main") < err["message"].index("#12 Backport")
    assert "--pr" in err["message"]
    assert graphql_requests(fake) == []


def test_explicit_pr_without_a_repository_outside_a_git_checkout_is_exit_2(fake, tmp_path):
    env = script_env(fake, GIT_CEILING_DIRECTORIES=str(tmp_path.parent))
    run = run_script("get_pr_comments.py", "--pr", PR, cwd=tmp_path, env=env)
    err = assert_error(run, "usage", 2)
    assert "--repo" in err["message"]
    no_pr = run_script("get_pr_comments.py", cwd=tmp_path, env=env)
    err = assert_error(no_pr, "usage", 2)
    assert "--repo" in err["message"] and "--pr" in err["message"]
    assert fake.requests == []


def test_pr_and_active_together_are_refused_before_any_request(pr):
    err = assert_error(get(pr, "--active"), "usage", 2)
    assert "--active" in err["message"]
    assert pr.requests == []


def test_missing_token_is_an_auth_error_before_any_request(pr):
    run = get(pr, env=script_env(pr, token=None))
    assert_error(run, "auth", 3)
    assert pr.requests == []


def test_gh_transport_reads_threads_and_timeline_through_the_real_gh_cli(pr, gh_env):
    t = thread(pr, comments=[by(BOT, "bot note", user_type="Bot")])
    replies = pr.add_thread_comments(t["id"], 120)
    pr.add_comment(OWNER, NAME, PR, "conversation", user="carol")
    pr.clear_log()
    run = run_script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", PR, "--transport", "gh",
                     "--format", "json", env=gh_env)
    assert run.code == 0, run
    (got,) = run.json["reviewThreads"]
    assert [c["id"] for c in got["comments"]] == t["comment_ids"] + replies
    assert got["comments"][0]["author"] == f"{BOT}[bot]"
    assert [c["body"] for c in run.json["timelineComments"]] == ["conversation"]
    assert [r.target for r in graphql_requests(pr)] == ["http://api.github.localhost/graphql"] * 2


# --------------------------------------------------------------------------- summary


def test_summary_follows_seed_000_order(pr):
    pr.add_pull(OWNER, NAME, 8, title="Merged work", state="merged")
    for path, line in (("src/a.py", 1), ("src/b.py", 2), ("src/a.py", 3)):
        pr.add_review_thread(OWNER, NAME, 8, path, line=line,
                             comments=[{"user": "alice", "body": f"fix {path}:{line}"}])
    pr.add_review_thread(OWNER, NAME, 8, "src/c.py", line=4, is_resolved=True,
                         comments=[{"user": "bob", "body": "resolved one"}])
    pr.add_review(OWNER, NAME, 8, "carol", "CHANGES_REQUESTED", body="general review")

    run = get(pr, "--format", "summary", "--include-resolved", pr_number=8)

    assert run.code == 0, run
    text = run.stdout
    order = [f"{REPOSITORY}#8", "Merged work", "MERGED", f"https://github.com/{REPOSITORY}/pull/8",
             "Retrieved:", "refreshed: yes", "Unresolved review threads (3)", "  src/a.py",
             "fix src/a.py:1", "fix src/a.py:3", "  src/b.py", "fix src/b.py:2",
             "General review and timeline feedback", "general review",
             "Resolved review threads (1)", "resolved one", "Notes"]
    positions = [text.find(s) for s in order]
    assert -1 not in positions, [s for s in order if s not in text]
    assert positions == sorted(positions), list(zip(order, positions))
    assert text.count("\n  src/a.py\n") == 1  # one header per file
    assert "CHANGES_REQUESTED" in text and "alice" in text and "inline" in text

    plain = run_script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", 8,
                       env=script_env(pr)).stdout  # summary is the default format
    assert plain.startswith(f"Pull request {REPOSITORY}#8\n")
    assert "Resolved review threads" not in plain and "resolved one" not in plain
    assert "1 resolved thread(s) not shown" in plain.split("Notes")[1]


def test_summary_notes_name_limitations_and_skipped_parts(pr):
    thread(pr)
    text = get(pr, "--format", "summary", "--no-timeline").stdout
    notes = text.split("\nNotes\n")[1]
    assert "--no-timeline" in notes
    assert "(not read: --no-timeline)" in text.split("\nNotes\n")[0]


def test_hidden_characters_are_escaped_in_summary_and_kept_in_json(pr):
    thread(pr, path=f"src/{HIDDEN}.py", comments=[by("alice", f"look {HIDDEN} here")])
    pr.add_comment(OWNER, NAME, PR, f"note {HIDDEN}", user="carol")

    text = get(pr, "--format", "summary").stdout
    for ch in ("\x1b", "\u202e", "\U000e0041"):
        assert ch not in text
    assert text.count("<U+001B>[2J<U+202E>txt.exe<U+E0041>") == 3  # file header + 2 bodies
    assert "3 hidden chars shown as <U+…>" in text

    doc = get(pr).json
    inline = doc["reviewThreads"][0]["comments"][0]
    assert inline["body"] == f"look {HIDDEN} here"  # GitHub's text, unchanged
    assert (inline["hiddenCharacters"], inline["bodyChars"]) == (3, len(f"look {HIDDEN} here"))
    revealed = get(pr, "--reveal-hidden").json["timelineComments"][0]
    assert revealed["body"] == "note <U+001B>[2J<U+202E>txt.exe<U+E0041>"


def test_max_body_chars_cuts_bodies_and_marks_them(pr):
    thread(pr, comments=[by("alice", "x" * 50)])
    inline = get(pr, "--max-body-chars", "10").json["reviewThreads"][0]["comments"][0]
    assert (inline["body"], inline["bodyTruncated"], inline["bodyChars"]) == ("x" * 10, True, 50)


# --------------------------------------------------------------------------- failures


@pytest.mark.parametrize("kind, code, exit_code", [
    ("NOT_FOUND", "not_found", 4), ("FORBIDDEN", "auth", 3),
    ("RATE_LIMITED", "rate_limited", 5), ("SERVICE_UNAVAILABLE", "server", 6)])
def test_graphql_errors_on_the_threads_map_to_exit_codes(pr, kind, code, exit_code):
    thread(pr)
    pr.inject_graphql_error(kind)
    err = assert_error(get(pr), code, exit_code)
    assert kind in err["message"]
    if kind == "RATE_LIMITED":
        assert 3000 < err["retry_after_seconds"] <= 3600  # from x-ratelimit-reset
    assert timeline_requests(pr) == []  # the core failed: nothing more was asked


def test_a_missing_pull_request_is_exit_4(pr):
    err = assert_error(get(pr, pr_number=99), "not_found", 4)
    assert "99" in err["message"]


def test_a_502_storm_on_graphql_is_exit_6_after_three_attempts(pr):
    pr.inject("POST", r"/graphql$", times=None, status=502)
    err = assert_error(get(pr, "--max-wait", "0"), "server", 6)
    assert err["status"] == 502
    assert len(graphql_requests(pr)) == 3
    assert timeline_requests(pr) == []


@pytest.mark.parametrize("failing, survivor, label", [
    (rf"/pulls/{PR}/reviews$", "conversation", "reviews unavailable"),
    (rf"/issues/{PR}/comments$", "review", "conversation comments unavailable")])
def test_a_failing_timeline_part_leaves_the_rest_and_a_limitation(pr, failing, survivor, label):
    thread(pr, comments=[by("alice", "inline")])
    pr.add_review(OWNER, NAME, PR, "carol", "APPROVED", body="review")
    pr.add_comment(OWNER, NAME, PR, "conversation", user="dave")
    pr.inject("GET", failing, times=None, status=502)

    run = get(pr, "--max-wait", "0")

    assert run.code == 0, run
    doc = run.json
    assert [c["body"] for c in doc["reviewThreads"][0]["comments"]] == ["inline"]
    assert [c["body"] for c in doc["timelineComments"]] == [survivor]
    assert any(label in x and "502" in x for x in doc["limitations"]), doc["limitations"]
    assert len([r for r in pr.requests if r.status == 502]) == 3  # retried, then given up


def test_an_http_500_on_reviews_is_a_limitation_in_the_summary_too(pr):
    thread(pr)
    pr.inject("GET", rf"/pulls/{PR}/reviews$", status=500)
    run = get(pr, "--format", "summary")
    assert run.code == 0, run
    assert "reviews unavailable" in run.stdout.split("\nNotes\n")[1]


# --------------------------------------------------------------------------- GitHub's schema


@pytest.fixture(scope="module")
def github_schema():
    if not SCHEMA.is_file():
        pytest.skip(f"GitHub's GraphQL schema not found at {SCHEMA.resolve()} (the shared/ "
                    "folder beside the repository); the query is still checked by the fake")
    graphql = pytest.importorskip("graphql", reason="graphql-core is a dev dependency")
    return graphql.build_schema(SCHEMA.read_text(encoding="utf-8"), assume_valid=True,
                                assume_valid_sdl=True)


def deprecated_fields(schema, document):
    """(type, field) of every deprecated field the query selects."""
    from graphql import TypeInfo, TypeInfoVisitor, Visitor, visit

    info, found = TypeInfo(schema), []

    class Check(Visitor):
        def enter_field(self, node, *_):
            field = info.get_field_def()
            if field is not None and field.deprecation_reason:
                found.append((info.get_parent_type().name, node.name.value))

    visit(document, TypeInfoVisitor(info, Check()))
    return found


def test_queries_sent_are_valid_for_githubs_schema_and_avoid_deprecated_fields(pr,
                                                                             github_schema):
    from graphql import parse, validate

    t = thread(pr)
    pr.add_thread_comments(t["id"], 120)  # forces the node(id:) query too
    pr.clear_log()
    assert get(pr, "--no-timeline").code == 0
    queries = {json.loads(r.body)["query"] for r in graphql_requests(pr)}
    assert len(queries) == 2
    for text in queries:
        document = parse(text)
        assert validate(github_schema, document) == []
        assert deprecated_fields(github_schema, document) == [
            ("PullRequestReviewComment", "position")]
        assert "fullDatabaseId" in text and "databaseId" not in text.replace(
            "fullDatabaseId", "")
