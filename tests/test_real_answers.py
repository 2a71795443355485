"""GitHub's recorded answers replayed through the scripts (issue 39, "What real use found").

Each test serves a real answer from ``../shared/github/realshapes/`` (tests/realshapes.py) with
its recorded headers, through the fake, and runs the scripts as an agent does."""

from __future__ import annotations

import pytest

from tests.events_support import FLAG, ISSUE, NAME, PR
from tests.realshapes import exchange, needs
from tests.support import OWNER, Agent


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
    assert r.stderr.count("author filters") == (0 if ignore is None else 1), r.stderr


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
