"""GitHub's recorded answers replayed through the scripts (issue 39, "What real use found").

Each test serves a real answer from ``../shared/github/realshapes/`` (tests/realshapes.py) with
its recorded headers, through the fake, and runs the scripts as an agent does."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.events_support import FLAG, ISSUE, NAME, PR
from tests.realshapes import exchange, needs
from tests.support import OWNER, REPO, Agent, run_script, script_env


@pytest.fixture
def pr(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    return fake


@pytest.fixture
def issue(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    return fake


# ----------------------------------------------------------------- 1. a count says its reason

EVENTS = "PullRequest.testGetIssueEvents.txt"


def _replay_events(fake, name, number):
    ex = exchange("pygithub/" + name, "/events")
    fake.inject("GET", rf"/issues/{number}/events$", status=ex.status,
                headers=ex.replay_headers(), body=ex.body)
    return ex


@needs("pygithub/" + EVENTS)
@pytest.mark.parametrize("ignore", [None, "jacquev6"])
def test_kinds_the_bundle_does_not_report_are_counted_as_such_not_as_filtered(pr, tmp_path,
                                                                              ignore):
    """PR 31's recorded events (2019): subscribed and referenced beside merged, closed,
    assigned and labeled. The two are `other_kind`, and the warning says so: no author filter
    was given, so none is named (with one, each count says its own reason)."""
    agent = Agent(pr, tmp_path, "--pr", PR)
    extra = ["--ignore-author", ignore] if ignore else []
    agent.look_and_confirm(FLAG, *extra)
    _replay_events(pr, EVENTS, PR)
    r = agent.check(FLAG, *extra)
    assert r.code == 0, r
    doc = r.json
    warnings = doc["warnings"]
    kinds_warning = [w for w in warnings if "other_kind" in w]
    assert len(kinds_warning) == 1, warnings
    assert kinds_warning[0].startswith("2 event(s) of kinds this bundle does not report"), warnings
    if ignore is None:
        assert [e["event"] for e in doc["events"]] == ["merged", "closed", "assigned", "labeled"]
        assert doc["filtered_out"] == {"events": {"other_kind": 2}}
        assert not any("author filter" in w for w in warnings), warnings
    else:
        assert doc["events"] == []
        assert doc["filtered_out"] == {"events": {"other_kind": 2, "ignore_author": 4}}
        assert [w for w in warnings if "author filters" in w] == [
            "4 item(s) left out by author filters (see filtered_out); the recommended "
            "checkpoint moves past them"], warnings
    assert "warning:" not in r.stderr  # the JSON holds them (amendments, turn 6)


# ----------------------------------------------------------------- 2. a summary never says None

def _replay_comments(fake, name, number):
    ex = exchange("pygithub/" + name, "/comments")
    fake.inject("GET", rf"/issues/{number}/comments$", status=ex.status, times=None,
                headers=ex.replay_headers(), body=ex.body)
    return ex


@needs("pygithub/Issue.testGetComments.txt", "pygithub/PullRequest.testGetIssueComments.txt")
@pytest.mark.parametrize("flag,number,name", [
    ("--issue", ISSUE, "Issue.testGetComments.txt"),
    ("--pr", PR, "PullRequest.testGetIssueComments.txt"),
])
def test_a_2012_comment_without_url_or_association_is_said_plainly(issue, tmp_path, flag,
                                                                   number, name):
    """GitHub's 2012 comments have no html_url, author_association, user.type: the JSON says
    null, the summary says so in words, never a literal None."""
    if flag == "--pr":
        issue.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    ex = _replay_comments(issue, name, number)
    recorded = ex.json
    assert all("html_url" not in c and "author_association" not in c for c in recorded)
    agent = Agent(issue, tmp_path, flag, number)
    ids = [c["id"] for c in recorded]
    for run in (agent.check, agent.latest):
        r = run("--format", "summary")
        assert r.code == 0, r
        out = r.stdout
        assert "None" not in out, out
        for cid in ids:
            assert f"--- comment {cid} by " in out, out
        heads = [line for line in out.splitlines() if line.startswith("--- comment ")]
        assert len(heads) == len(ids) and all("(association not given)" in h for h in heads), out
        assert out.count("    (no URL in GitHub's answer)") == len(ids), out
        j = run()
        assert j.code == 0, j
        shown = j.json.get("new_comments", j.json.get("comments"))
        assert [c["id"] for c in shown] == ids
        assert all(c["url"] is None and c["author_association"] is None for c in shown), shown


# ----------------------------------------------------------------- 3. an HTML error page

HTML_503 = "Exceptions.testNonJsonDataReturnedByGithub.txt"


EXCERPT = "503 Service Unavailable No server is available to handle this request."


def _serve_html_503(fake, path, method="GET"):
    ex = exchange("pygithub/" + HTML_503)
    assert ex.status == 503 and ex.body.startswith("<html>")
    assert ex.headers["content-type"].startswith("application/json")  # as recorded: a lie
    fake.inject(method, path, status=ex.status, times=None, headers=ex.replay_headers(),
                body=ex.body)


def _assert_plain_503(r, excerpt=EXCERPT):
    assert r.code == 6, r
    error = json.loads(r.stdout)["error"]
    assert error["code"] == "server" and error["status"] == 503, error
    message = error["message"]
    assert "<" not in message and ">" not in message, message
    assert message.count("HTTP 503") == 1 and excerpt in message, message
    assert "Traceback" not in r.stderr and "<html>" not in r.stderr, r.stderr


@needs("pygithub/" + HTML_503)
@pytest.mark.parametrize("script", ["get_latest_comments.py", "check_issue_updates.py"])
def test_a_503_html_page_is_said_as_its_status_and_a_plain_excerpt(issue, tmp_path, script):
    """GitHub's recorded 503 (2012): an nginx HTML page, sent as application/json."""
    _serve_html_503(issue, rf"/issues/{ISSUE}/comments$")
    agent = Agent(issue, tmp_path, "--issue", ISSUE)
    _assert_plain_503(agent.run(script))
    r = agent.run(script, "--format", "summary")
    _assert_plain_503(r)


@needs("pygithub/" + HTML_503)
def test_a_503_html_page_in_get_pr_comments(issue, tmp_path):
    issue.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    _serve_html_503(issue, r"/graphql$", method="POST")
    r = run_script("get_pr_comments.py", "--repo", f"{OWNER}/{NAME}", "--pr", PR,
                   "--format", "json", env=script_env(issue))
    _assert_plain_503(r)


@needs("pygithub/" + HTML_503)
def test_a_503_html_page_in_the_shell_fallback(issue, gh_env, tmp_path):
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed; the shell fallback tests need it (apt-get install jq)")
    issue.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    _serve_html_503(issue, rf"/pulls/{PR}$")
    tmpdir = tmp_path / "script-tmp"
    tmpdir.mkdir()
    r = run_script("get-pr-comments.sh", "--repo", f"{OWNER}/{NAME}", "--pr", PR, "--format",
                   "json", env={**gh_env, "TMPDIR": str(tmpdir)}, timeout=60)
    # gh parses a body sent as JSON and prints its parse error, never the page: the fallback
    # says what it can (the status, not JSON), never gh's "invalid character '<' ..."
    _assert_plain_503(r, excerpt="not JSON")
    assert "invalid character" not in r.stdout + r.stderr, r


# The page GitHub itself serves on a 5xx ("Unicorn!"): a long head of styles before its words.
UNICORN = ("<!DOCTYPE html>\n<html><head><title>Unicorn! &middot; GitHub</title><style "
           "type=\"text/css\" media=\"screen\">\n" + "body { background: #f1f1f1; }\n" * 200
           + "</style></head>\n<body><!-- a comment -->\n<p><strong>No server is currently "
           "available to service your request.</strong></p>\n<p>Sorry about that &amp; "
           "<script>evil()</script>please try refreshing.</p>\n" + "<p>x</p>" * 400
           + "</body></html>\n")
UNICORN_WORDS = ("Unicorn! \u00b7 GitHub No server is currently available to service your "
                 "request. Sorry about that & please try refreshing.")


@pytest.mark.parametrize("content_type", ["text/html; charset=utf-8",
                                          "application/json; charset=utf-8"])
def test_a_long_html_page_is_cut_to_its_first_words(issue, tmp_path, content_type):
    issue.inject("GET", rf"/issues/{ISSUE}/comments$", status=502, times=None,
                 headers={"content-type": content_type}, body=UNICORN)
    r = Agent(issue, tmp_path, "--issue", ISSUE).latest()
    assert r.code == 6, r
    message = r.json["error"]["message"]
    assert UNICORN_WORDS in message and "background" not in message, message
    assert "evil" not in message and "<" not in message and len(message) < 400, message


def test_a_long_html_page_in_the_shell_fallback(issue, gh_env, tmp_path):
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed; the shell fallback tests need it (apt-get install jq)")
    issue.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    issue.inject("GET", rf"/pulls/{PR}$", status=502, times=None,
                 headers={"content-type": "text/html; charset=utf-8"}, body=UNICORN)
    tmpdir = tmp_path / "script-tmp"
    tmpdir.mkdir()
    r = run_script("get-pr-comments.sh", "--repo", f"{OWNER}/{NAME}", "--pr", PR, "--format",
                   "json", env={**gh_env, "TMPDIR": str(tmpdir)}, timeout=60)
    assert r.code == 6, r
    message = json.loads(r.stdout)["error"]["message"]
    # the shell reads the common entities only (&amp; &lt; &gt; &quot; &#39; &nbsp;)
    assert message.count("HTTP 502") == 1 and UNICORN_WORDS.split("GitHub ")[1] in message, \
        message
    assert "<" not in message and "background" not in message and len(message) < 400, message


# ----------------------------------------------------------------- 4. legacy inline comments

LEGACY = "PullRequestComment.setUp.txt"
LEGACY_ID = 1580134


def _legacy_pr(fake):
    """PR 31 of PyGithub/PyGithub and its legacy inline comment, served as GitHub recorded it
    (2025: `pull_request_review_id: null`), alone and in the PR's review-comment list."""
    fake.add_repo("PyGithub", "PyGithub")
    fake.add_pull("PyGithub", "PyGithub", 31, title="Title edited by PyGithub", user="jacquev6")
    ex = exchange("pygithub/" + LEGACY, f"/pulls/comments/{LEGACY_ID}")
    assert ex.json["pull_request_review_id"] is None and ex.json["id"] == LEGACY_ID
    fake.inject("GET", rf"/pulls/comments/{LEGACY_ID}$", status=200, times=None,
                headers=ex.replay_headers(), body=ex.body)
    fake.inject("GET", r"/pulls/31/comments$", status=200, times=None,
                headers=ex.replay_headers(), body="[" + ex.body + "]")
    return ex


@needs("pygithub/" + LEGACY)
def test_a_legacy_inline_comment_is_read_by_id_and_not_by_a_round(fake, tmp_path):
    """docs/reference.md "Legacy inline comments": a round reads inline comments through their
    reviews, so one without a review is never returned by it; `--review-comment-id` reads it.
    If a round ever reads the PR's review-comment list, this test fails: update the doc."""
    _legacy_pr(fake)
    env = script_env(fake)
    base = ("--repo", "PyGithub/PyGithub", "--pr", 31, "--root", tmp_path)
    r = run_script("get_latest_comments.py", *base, "--review-comment-id", LEGACY_ID, env=env)
    assert r.code == 0, r
    (comment,) = r.json["review_comments"]
    assert comment["id"] == LEGACY_ID and comment["review_id"] is None
    assert comment["path"] == "codegen/templates/GithubObject.py"
    assert comment["body"] == "Review comment created for PyGithub\n"

    for _ in range(2):  # the first look, then a check after it was confirmed
        fake.clear_log()
        r = run_script("check_issue_updates.py", *base, env=env)
        assert r.code == 0, r
        assert LEGACY_ID not in [c["id"] for c in r.json["new_review_comments"]], r
        assert not any(q.path.endswith("/pulls/31/comments") for q in fake.requests), \
            [q.path for q in fake.requests]
        c = run_script("get_latest_comments.py", *base, "--confirm-updates", "--snapshot-id",
                       r.json["snapshot_id"], env=env)
        assert c.code == 0, c


@needs("pygithub/" + LEGACY)
def test_a_legacy_inline_comment_in_the_shell_fallback(fake, gh_env, tmp_path):
    """The shell fallback reads the PR's review-comment list (REST), where it is."""
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed; the shell fallback tests need it (apt-get install jq)")
    _legacy_pr(fake)
    tmpdir = tmp_path / "script-tmp"
    tmpdir.mkdir()
    r = run_script("get-pr-comments.sh", "--repo", "PyGithub/PyGithub", "--pr", 31, "--format",
                   "json", env={**gh_env, "TMPDIR": str(tmpdir)}, timeout=60)
    assert r.code == 0, r
    (comment,) = r.json["reviewComments"]
    assert comment["id"] == LEGACY_ID and comment["file"] == "codegen/templates/GithubObject.py"


def test_the_reference_says_which_inline_comments_a_round_does_not_return():
    text = (REPO / "docs" / "reference.md").read_text(encoding="utf-8")
    start = text.index("**Legacy inline comments are not returned by a round**")
    said = " ".join(text[start:start + 1500].split())
    for needed in ("pull_request_review_id: null", "--review-comment-id ID",
                   "get-pr-comments.sh", "get_pr_comments.py", "**assumed**"):
        assert needed in said, needed
