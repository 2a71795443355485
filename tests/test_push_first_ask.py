"""The pushes of section 21 after the turn 6 amendments (CONTRACT "Section 21, the first ask
includes pushes" and "whose push is left out"), run as an agent runs them: subprocesses
against the fake GitHub, request counts from the fake's log.

- The first ask of a push: a round handled without `--include-events` records
  `handled_head` (from the thread query's `headRefOid`, else the newest review returned), and
  the first flagged check reports exactly the commits pushed since, with the threads they
  outdated; an older checkpoint falls back to the newest handled review (one read of it);
  a round with no head evidence says why `pushes` is null.
- A push made while a closed pull request was briefly reopened is returned.
- Two inbox snapshots whose heads were seen in the same second: the older confirmed after
  the newer is already applied.
- The user's own force push (ignored with `--ignore-author @me`) followed by carol's commit
  does not hide carol's commit.
- Without the flag the idle costs are unchanged: issue round 1, pull-request round 2, all 304.
"""

from __future__ import annotations

import json

import pytest

from tests.events_support import FLAG, ISSUE, NAME, PR, checkpoint, kinds, paths, settle, statuses
from tests.support import OWNER, Agent, inbox, latest

UNKNOWN = "the head when this round was handled is unknown: pushes are reported from now on"


@pytest.fixture(params=["ascending", "descending"])
def pr(fake, request):
    fake.events_order = request.param
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    return fake


@pytest.fixture
def pagent(pr, tmp_path):
    return Agent(pr, tmp_path, "--pr", PR)


def head_of(fake):
    return fake.store.issue_or_raise(OWNER, NAME, PR).pull.head_sha


def carol_threads(fake):
    for path, line in (("a.py", 3), ("b.py", 9), ("c.py", 12)):
        fake.add_review_thread(OWNER, NAME, PR, path, line=line,
                               comments=[{"user": "carol", "body": f"look at {path}"}])


# --------------------------------------------------------------------------- the first ask


def test_the_first_ask_reports_the_commits_pushed_since_the_handled_round(pr, pagent):
    carol_threads(pr)
    handled = head_of(pr)
    doc = settle(pagent)  # handled without the flag: her reviews and inline comments
    cp = checkpoint(pagent)
    assert "head" not in cp
    assert cp["handled_head"]["sha"] == handled and cp["handled_head"]["source"] == "threads"
    assert "pushes" not in doc  # no flag: no such field
    for _ in range(2):  # the idle cost without the flag is unchanged: 2 requests, both 304
        r = pagent.check()
        assert r.code == 0 and r.json["has_updates"] is False, r
        assert statuses(pr) == [304, 304], paths(pr)
        assert "pushes" not in r.json
    assert checkpoint(pagent)["handled_head"] == cp["handled_head"]  # copied, never moved
    pr.advance(5)
    shas = pr.push(OWNER, NAME, PR, count=2, author="alice", outdate_paths=["a.py", "b.py"])
    r = pagent.check(FLAG)
    assert r.code == 0, r
    push = r.json["pushes"]
    assert push is not None, r.json["warnings"]
    assert [c["sha"] for c in push["commits"]] == shas
    assert push["previous_head_sha"] == handled and push["head_sha"] == shas[-1]
    assert push["force_pushed"] is False and push["approximate"] is False
    assert sorted(t["path"] for t in r.json["outdated_threads"]) == ["a.py", "b.py"]
    assert r.json["has_updates"] is True
    assert not any(UNKNOWN in w for w in r.json["warnings"])
    assert pagent.confirm(r.json["snapshot_id"]).code == 0
    cp = checkpoint(pagent)
    assert cp["head"]["sha"] == shas[-1] and "handled_head" not in cp  # dropped once set
    r = pagent.check(FLAG)  # once: the next check is quiet
    assert r.json["pushes"] is None and r.json["outdated_threads"] == []
    assert statuses(pr) == [304, 304, 304, 304], paths(pr)


def test_the_newest_review_is_the_evidence_when_no_thread_query_was_sent(pr, pagent):
    pr.add_review(OWNER, NAME, PR, "carol", "CHANGES_REQUESTED", body="please split it")
    reviewed = head_of(pr)
    settle(pagent)  # a review without inline comments: no GraphQL, its commit_id recorded
    assert not [p for p in paths(pr) if p.endswith("/graphql")]
    hh = checkpoint(pagent)["handled_head"]
    assert hh["sha"] == reviewed and hh["source"] == "review"
    pr.advance(5)
    shas = pr.push(OWNER, NAME, PR, count=1, author="alice")
    r = pagent.check(FLAG)
    assert r.code == 0, r
    push = r.json["pushes"]
    assert [c["sha"] for c in push["commits"]] == shas and push["approximate"] is True


def test_an_older_checkpoint_compares_from_the_newest_handled_review(pr, pagent):
    carol_threads(pr)
    reviewed = head_of(pr)
    settle(pagent)
    cp = checkpoint(pagent)
    del cp["handled_head"]  # as a version before the amendment wrote it
    pagent.file().write_text(json.dumps(cp))
    pr.advance(5)
    shas = pr.push(OWNER, NAME, PR, count=2, author="alice", outdate_paths=["c.py"])
    r = pagent.check(FLAG)
    assert r.code == 0, r
    push = r.json["pushes"]
    assert [c["sha"] for c in push["commits"]] == shas
    assert push["previous_head_sha"] == reviewed and push["approximate"] is True
    assert [t["path"] for t in r.json["outdated_threads"]] == ["c.py"]
    last = cp["reviews"]["last_review_id"]
    assert paths(pr).count(f"/repos/{OWNER}/{NAME}/pulls/{PR}/reviews/{last}") == 1


def test_a_round_with_no_head_evidence_says_why_pushes_is_null(pr, pagent):
    pr.add_comment(OWNER, NAME, PR, "any news?", user="carol")
    settle(pagent)  # only a conversation comment: nothing showed the head
    assert "handled_head" not in checkpoint(pagent)
    pr.advance(5)
    pr.push(OWNER, NAME, PR, count=1, author="alice")
    r = pagent.check(FLAG)
    assert r.code == 0, r
    assert r.json["pushes"] is None
    assert any(UNKNOWN in w for w in r.json["warnings"]), r.json["warnings"]
    assert pagent.confirm(r.json["snapshot_id"]).code == 0
    pr.advance(5)
    shas = pr.push(OWNER, NAME, PR, count=1, author="alice")
    r = pagent.check(FLAG)  # from now on: reported
    assert [c["sha"] for c in r.json["pushes"]["commits"]] == shas
    assert not any(UNKNOWN in w for w in r.json["warnings"])


def test_without_the_flag_the_issue_round_stays_one_304(pr, tmp_path):
    pr.add_issue(OWNER, NAME, ISSUE, title="Bug")
    agent = Agent(pr, tmp_path, "--issue", ISSUE)
    pr.add_comment(OWNER, NAME, ISSUE, "hello", user="alice")
    settle(agent)
    assert "handled_head" not in checkpoint(agent)
    r = agent.check()
    assert r.code == 0 and statuses(pr) == [304], paths(pr)


# --------------------------------------------------------------------------- a brief reopen


def test_a_push_while_a_closed_pull_request_was_briefly_reopened_is_returned(pr, pagent):
    settle(pagent, FLAG)
    pr.close_issue(OWNER, NAME, PR, by="alice")
    settle(pagent, FLAG)
    r = pagent.check(FLAG)  # closed: no head probe
    assert statuses(pr) == [304, 304, 304], paths(pr)
    pr.advance(5)
    pr.reopen_issue(OWNER, NAME, PR, by="alice")
    shas = pr.push(OWNER, NAME, PR, count=1, author="alice")
    pr.close_issue(OWNER, NAME, PR, by="alice")
    r = pagent.check(FLAG)
    assert r.code == 0, r
    assert kinds(r.json) == ["reopened", "closed"]
    assert r.json["pushes"] is not None, r.json
    assert [c["sha"] for c in r.json["pushes"]["commits"]] == shas
    assert pagent.confirm(r.json["snapshot_id"]).code == 0
    r = pagent.check(FLAG)  # closed again: quiet, no head probe
    assert r.json["pushes"] is None and statuses(pr) == [304, 304, 304], paths(pr)


# --------------------------------------------------------------------------- the same second


def test_the_older_inbox_snapshot_of_the_same_second_is_already_applied(pr, tmp_path):
    pr.date_follows_clock = True  # GitHub's Date on the fake's clock: one second for both
    refs = ["--follow", f"{OWNER}/{NAME}/pull/{PR}"]
    for _ in range(2):
        r = inbox(pr, tmp_path, *refs, FLAG)
        assert r.code == 0, r
        assert latest(pr, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                      r.json["snapshot_id"]).code == 0
    pr.advance(5)
    pr.push(OWNER, NAME, PR, count=1, author="alice")
    older = inbox(pr, tmp_path, *refs, FLAG)
    assert older.code == 0, older
    pr.push(OWNER, NAME, PR, count=1, author="alice")  # the same second
    newer = inbox(pr, tmp_path, *refs, FLAG)
    assert newer.code == 0, newer
    heads = [d.json["conversations"][0]["recommended_checkpoint"]["head"]
             for d in (older, newer)]
    assert heads[0]["seen_at"] == heads[1]["seen_at"] and heads[0]["sha"] != heads[1]["sha"]
    c = latest(pr, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               newer.json["snapshot_id"])
    assert c.code == 0 and c.json["confirmed"], c
    c = latest(pr, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               older.json["snapshot_id"])
    assert c.code == 0, c
    assert c.json["already_applied"] and not c.json["refused"], c.json


# --------------------------------------------------------------------------- whose push


def test_my_force_push_then_carols_commit_returns_carols_commit(pr, pagent):
    pr.push(OWNER, NAME, PR, count=2, author="alice")
    settle(pagent, FLAG, "--ignore-author", "@me")
    pr.advance(5)
    pr.push(OWNER, NAME, PR, count=1, author="octocat", force=True)  # the user's own rebase
    pr.advance(5)
    carols = pr.push(OWNER, NAME, PR, count=1, author="carol")
    r = pagent.check(FLAG, "--ignore-author", "@me")
    assert r.code == 0, r
    push = r.json["pushes"]
    assert push is not None, r.json
    assert push["force_pushed"] is True
    assert [c["sha"] for c in push["commits"]] == carols
    assert r.json["has_updates"] is True
    # the user's force push alone stays left out
    assert pagent.confirm(r.json["snapshot_id"]).code == 0
    pr.advance(5)
    pr.push(OWNER, NAME, PR, count=1, author="octocat", force=True)
    r = pagent.check(FLAG, "--ignore-author", "@me")
    assert r.code == 0 and r.json["pushes"] is None, r
    assert r.json["filtered_out"]["pushes"] == {"ignore_author": 1}
