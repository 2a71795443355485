"""Hostile values in what `--include-events` reads (issue 39; CONTRACT sections 17 and 22):
an event's `created_at`, a pushed commit's date and sha, a compare page larger than any GitHub
sends. Each is exit 6 — never exit 0 echoing the value, never a traceback — and the checkpoint
is left as it was. Driven as tests/test_attack_30.py drives events and pushes: the fake's own
answer, read once, altered, and served in its place."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.events_support import FLAG, ISSUE, NAME, PR, checkpoint, settle
from tests.support import OWNER, TOKEN, Agent, script_env

BAD_TIMES = ["0000-01-01T00:00:00Z", "10000-01-01T00:00:00Z", "garbage"]


@pytest.fixture
def issue(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    return fake


@pytest.fixture
def pr(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    return fake


def fetch(fake, path):
    """The fake's own answer to GET `path` (JSON)."""
    script_env(fake)  # the token is known to the fake
    req = urllib.request.Request(f"{fake.url}{path}",
                                 headers={"Authorization": f"token {TOKEN}",
                                          "User-Agent": "test"})
    return json.loads(urllib.request.urlopen(req).read())


def refused(agent, r, before, value=None):
    assert r.code == 6, r
    assert "Traceback" not in r.stderr, r.stderr
    assert json.loads(r.stdout)["error"]["code"] == "server", r.stdout
    assert agent.file().read_bytes() == before
    if value is not None:
        assert "malformed" in r.stdout, r.stdout


# --------------------------------------------------------------------------- events


@pytest.mark.parametrize("bad", BAD_TIMES)
def test_an_event_time_outside_1970_to_9999_or_not_a_time_is_exit_6(issue, tmp_path, bad):
    agent = Agent(issue, tmp_path, "--issue", ISSUE)
    settle(agent, FLAG)
    before = agent.file().read_bytes()
    issue.add_label(OWNER, NAME, ISSUE, "bug", by="bob")
    events = fetch(issue, f"/repos/{OWNER}/{NAME}/issues/{ISSUE}/events?per_page=100")
    events[-1]["created_at"] = bad
    issue.inject("GET", rf"/issues/{ISSUE}/events$", status=200, times=None, body=events)
    refused(agent, agent.check(FLAG), before, bad)


@pytest.mark.parametrize("bad", BAD_TIMES)
def test_an_event_time_on_the_first_ask_is_exit_6(issue, tmp_path, bad):
    """The first flagged check reads the list from its newest end, comparing times."""
    agent = Agent(issue, tmp_path, "--issue", ISSUE)
    issue.add_comment(OWNER, NAME, ISSUE, "hello", user="alice")
    settle(agent)  # without the flag: no event cursor yet
    before = agent.file().read_bytes()
    issue.add_label(OWNER, NAME, ISSUE, "bug", by="bob")
    events = fetch(issue, f"/repos/{OWNER}/{NAME}/issues/{ISSUE}/events?per_page=100")
    for e in events:
        e["created_at"] = bad
    issue.inject("GET", rf"/issues/{ISSUE}/events$", status=200, times=None, body=events)
    refused(agent, agent.check(FLAG), before, bad)


# --------------------------------------------------------------------------- pushes


def _pushed(pr, tmp_path, count=1):
    agent = Agent(pr, tmp_path, "--pr", PR)
    settle(agent, FLAG)
    before = agent.file().read_bytes()
    old = checkpoint(agent)["head"]["sha"]
    new = pr.push(OWNER, NAME, PR, count=count, author="alice")[-1]
    return agent, before, old, new


@pytest.mark.parametrize("bad", ["0000-01-01T00:00:00Z", "10000-01-01T00:00:00Z"])
@pytest.mark.parametrize("who", ["committer", "author"])
def test_a_pushed_commit_date_outside_1970_to_9999_is_exit_6(pr, tmp_path, bad, who):
    agent, before, old, new = _pushed(pr, tmp_path)
    compare = fetch(pr, f"/repos/{OWNER}/{NAME}/compare/{old}...{new}?per_page=100&page=1")
    compare["commits"][-1]["commit"][who]["date"] = bad
    pr.inject("GET", r"/compare/", status=200, times=None, body=compare)
    refused(agent, agent.check(FLAG), before, bad)


@pytest.mark.parametrize("sha", ["abc", "g" * 40, "A" * 40])
def test_a_compare_commit_whose_sha_is_not_40_hex_is_exit_6(pr, tmp_path, sha):
    agent, before, old, new = _pushed(pr, tmp_path)
    compare = fetch(pr, f"/repos/{OWNER}/{NAME}/compare/{old}...{new}?per_page=100&page=1")
    compare["commits"][-1]["sha"] = sha
    pr.inject("GET", r"/compare/", status=200, times=None, body=compare)
    refused(agent, agent.check(FLAG), before, sha)


def test_a_compare_page_of_300_commits_is_exit_6(pr, tmp_path):
    """The bundle asks for 100 a page; GitHub's compare never sends more than 250 commits in
    one answer (its reference: "up to 250 commits", paged since 2021). 300 is not GitHub."""
    agent, before, old, new = _pushed(pr, tmp_path, count=300)
    pages = [fetch(pr, f"/repos/{OWNER}/{NAME}/compare/{old}...{new}?per_page=100&page={p}")
             for p in (1, 2, 3)]
    whole = dict(pages[0], commits=[c for p in pages for c in p["commits"]])
    assert len(whole["commits"]) == 300 and whole["total_commits"] == 300
    pr.inject("GET", r"/compare/", status=200, times=None, body=whole)
    refused(agent, agent.check(FLAG), before, "300")


# --------------------------------------------------------------------------- head_ref_deleted


@pytest.mark.parametrize("gone", ["branch", "fork", "branch after merge"])
def test_a_head_that_cannot_be_read_is_said_once(pr, tmp_path, gone):
    """The head probe fails, then the fallback's own read of the branch fails the same way (or
    finds no head repository): one warning says why the head comes from the pull request —
    not two near-identical ones."""
    agent = Agent(pr, tmp_path, "--pr", PR)
    settle(agent, FLAG)
    if gone == "branch after merge":
        pr.merge_pull(OWNER, NAME, PR, by="alice")
    if gone == "fork":
        pr.delete_head_repo(OWNER, NAME, PR)
    else:
        pr.delete_head_ref(OWNER, NAME, PR, by="alice")
    r = agent.check(FLAG)
    assert r.code == 0, r
    about_head = [w for w in r.json["warnings"] if w.startswith("the head ")]
    assert len(about_head) == 1, r.json["warnings"]
    assert "read from the pull request" in about_head[0]
    if gone == "fork":
        assert "deleted fork" in about_head[0]
    assert r.stderr.count("the head ") <= 1, r.stderr


def test_a_date_far_from_this_machines_clock_is_said_once(pr, tmp_path):
    """GitHub's `Date` years ahead (a server's clock, or this machine's): read_at is not
    recorded, said once — not once for each kind the round reads."""
    pr.clock = "2031-05-01T10:00:00Z"
    pr.date_follows_clock = True
    agent = Agent(pr, tmp_path, "--pr", PR)
    r = agent.check(FLAG, "--include-checks")
    assert r.code == 0, r
    said = [w for w in r.json["warnings"] if "more than a day from this machine's clock" in w]
    assert len(said) == 1, r.json["warnings"]
