"""An adversarial review of issue 23's watermark (`--include-edits`, CONTRACT section 19):
each test proves a defect found by attacking it, run as an agent runs the scripts
(subprocesses against the fake GitHub, request counts from its log)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.support import OWNER, Agent

NAME = "hello"
ISSUE = 5
FLAG = "--include-edits"


@pytest.fixture
def issue(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    return fake


@pytest.fixture
def agent(issue, tmp_path):
    return Agent(issue, tmp_path, "--issue", ISSUE)


def confirmed(agent, *args):
    r = agent.check(*args)
    assert r.code == 0, r
    c = agent.confirm(r.json["snapshot_id"])
    assert c.code == 0, c
    return r.json


def test_a_future_updated_at_within_the_days_slack_does_not_blind_the_watermark(issue, agent):
    """An `updated_at` a few hours after the response's `Date` passes the one-day bound (it
    is not malformed), but if it set W, every edit of the next hours (updated_at < W - 1 h)
    would never be read. It is recorded as given and W stays within the read's `Date` plus
    the hour of overlap, so the next read starts no later than that `Date`."""
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    issue.clock = now - dt.timedelta(minutes=10)
    old = issue.add_comments(OWNER, NAME, ISSUE, 3)
    confirmed(agent, FLAG)  # establishes W
    issue.edit_comment(old[0], "from three hours ahead", at=now + dt.timedelta(hours=3))
    first = confirmed(agent, FLAG)
    assert [c["id"] for c in first["edited_comments"]] == [old[0]]
    stored = json.loads(agent.file().read_text())["edits"]["through"]
    assert dt.datetime.fromisoformat(stored.replace("Z", "+00:00")) <= now + dt.timedelta(
        minutes=65), stored
    issue.clock = now + dt.timedelta(seconds=30)
    issue.edit_comment(old[1], "a real edit, half a minute later")
    second = confirmed(agent, FLAG)
    assert [c["id"] for c in second["edited_comments"]] == [old[1]]
    third = confirmed(agent, FLAG)
    assert third["edited_comments"] == [] and not third["has_updates"]
    idle = agent.check(FLAG)  # the future item stays in the window: still two 304s
    assert idle.code == 0 and not idle.json["has_updates"], idle
    assert [q.status for q in issue.requests if q.path != "/rate_limit"] == [304, 304]


def test_a_future_created_at_as_the_establishing_anchor_does_not_blind_the_watermark(issue,
                                                                                       agent):
    """Establishing sets W at least the anchor A (the newest comment's `created_at`). A
    comment created (so far as its data says) three hours after the `Date` is not malformed,
    but as A it would hold W there: every edit of the next two hours would be unread."""
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    issue.clock = now - dt.timedelta(minutes=10)
    old = issue.add_comments(OWNER, NAME, ISSUE, 3)
    confirmed(agent)  # a checkpoint without a watermark
    ahead = issue.add_comment(OWNER, NAME, ISSUE, "from three hours ahead",
                              created_at=now + dt.timedelta(hours=3))["id"]
    first = confirmed(agent, FLAG)  # establishes W (the future comment is new)
    assert [c["id"] for c in first["new_comments"]] == [ahead]
    stored = json.loads(agent.file().read_text())["edits"]["through"]
    assert dt.datetime.fromisoformat(stored.replace("Z", "+00:00")) <= now + dt.timedelta(
        minutes=65), stored
    issue.clock = now + dt.timedelta(seconds=30)
    issue.edit_comment(old[1], "a real edit, half a minute later")
    second = confirmed(agent, FLAG)
    assert [c["id"] for c in second["edited_comments"]] == [old[1]]
    third = confirmed(agent, FLAG)
    assert third["edited_comments"] == [] and not third["has_updates"]


PR = 7


def test_max_pages_cutting_the_review_list_does_not_lose_an_inline_edit(fake, tmp_path):
    """An edited inline comment is reported only when its review is one the cursor passed,
    which may take the review list (one request per 100 reviews). With --max-pages cutting
    that list, a review past the cut is not known to be passed; the edit must then stay for
    a later check (the watermark does not move past it), not be dropped for good."""
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    fake.clock = now - dt.timedelta(hours=3)
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user="octocat")
    for i in range(100):
        fake.add_review(OWNER, NAME, PR, "bob", "COMMENTED", body=f"review {i}")
        fake.advance(1)
    started = fake.start_review(OWNER, NAME, PR, "bob", body="see notes",
                                comments=[{"path": "src/a.py", "line": 3, "body": "note"}])
    fake.advance(1)
    fake.submit_review(started["id"], state="COMMENTED")
    inline = started["comment_ids"][0]
    agent = Agent(fake, tmp_path, "--pr", PR)
    for _ in range(4):  # settle with the flag: every review passed, the watermark set
        r = agent.check(FLAG)
        assert r.code == 0, r
        if not r.json["has_updates"] and r.json["previous_checkpoint"] == r.json[
                "recommended_checkpoint"]:
            break
        assert agent.confirm(r.json["snapshot_id"]).code == 0
    fake.clock = now
    fake.edit_review_comment(inline, "note, but rename this")
    cut = agent.check(FLAG, "--max-pages", "1")
    assert cut.code == 0, cut
    reported = [c["id"] for c in cut.json.get("edited_review_comments", [])]
    if not reported:
        assert cut.json["more_available"] is True, cut.json
        assert agent.confirm(cut.json["snapshot_id"]).code == 0
        later = agent.check(FLAG)
        assert later.code == 0, later
        reported = [c["id"] for c in later.json["edited_review_comments"]]
    assert reported == [inline]


@pytest.mark.parametrize("bad", [None, "yesterday"])
@pytest.mark.parametrize("flag", [(), (FLAG,)])
def test_a_returned_comment_whose_updated_at_is_not_a_time_is_malformed(issue, agent, bad,
                                                                        flag):
    """Once a watermark is stored, every write records the returned items' pairs, a check
    without the flag included. A new comment whose `updated_at` is null or not a time (the
    id read's answer; the `since` read's is checked already) was an internal error (exit 1,
    "ValueError: not a time"); it is a malformed answer (exit 6), and nothing is written."""
    old = issue.add_comments(OWNER, NAME, ISSUE, 3)
    confirmed(agent, FLAG)
    new = issue.add_comment(OWNER, NAME, ISSUE, "new")
    body = [issue.get_comment(i) for i in old] + [dict(new, updated_at=bad)]
    issue.inject("GET", rf"/issues/{ISSUE}/comments$", times=None, status=200,
                 headers={"Content-Type": "application/json"}, body=json.dumps(body))
    files = {k: agent.file(k).read_bytes() for k in ("", "updates")}
    r = agent.check(*flag)
    assert r.code == 6, r
    assert r.json["error"]["code"] == "server" and "not a time" in r.json["error"]["message"]
    assert "Traceback" not in r.stderr
    assert {k: agent.file(k).read_bytes() for k in files} == files
