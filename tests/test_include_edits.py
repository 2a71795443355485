"""`--include-edits` (CONTRACT section 19), run as an agent runs it: subprocesses against the
fake GitHub, request counts from the fake's log.

Issue 23's "Done when": an edit inside and one outside the first look's tail; a check without
the flag between two with it; a confirm that is already applied only when the watermark
matches; several edits in one second; an edit between a check and its confirm; a bot's edit
under --humans-only; a new comment edited before it was returned (new, not edited); an inline
comment edited on a pull request, with its thread; a wait that wakes on an edit; settled polls
all 304 within one more request per list; a far-future updated_at refused.
"""

from __future__ import annotations

import datetime as dt
import json
import threading

import pytest

from tests.support import OWNER, REPOSITORY, Agent, run_script, script_env

NAME = "hello"
ISSUE, PR = 5, 7
FLAG = "--include-edits"


@pytest.fixture
def issue(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    return fake


@pytest.fixture
def agent(issue, tmp_path):
    return Agent(issue, tmp_path, "--issue", ISSUE)


def ids(items):
    return [x["id"] for x in items]


def statuses(fake):
    return [q.status for q in fake.requests if q.path != "/rate_limit"]


def since_reads(fake):
    return [q for q in fake.requests if "since" in q.query]


def same(a, b):
    """Two positions as printed, but for the informational `last_seen_comment_updated_at`."""
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k != "last_seen_comment_updated_at"}
        return x
    return strip(a) == strip(b)


def settle(agent, *args):
    """Check and confirm until a check returns nothing and needs no confirm."""
    for _ in range(4):
        r = agent.check(*args)
        assert r.code == 0, r
        doc = r.json
        if same(doc["previous_checkpoint"], doc["recommended_checkpoint"]) and not \
                doc["has_updates"]:
            return doc
        c = agent.confirm(doc["snapshot_id"])
        assert c.code == 0, c
    raise AssertionError("the round did not settle")


def confirmed(agent, *args):
    r = agent.check(*args)
    assert r.code == 0, r
    c = agent.confirm(r.json["snapshot_id"])
    assert c.code == 0, c
    return r.json


# --------------------------------------------------------------------------- issue rounds


def test_first_look_establishes_edits_inside_and_outside_its_tail_are_not_reported(issue, agent):
    old = issue.add_comments(OWNER, NAME, ISSUE, 30)
    issue.advance(60)
    issue.edit_comment(old[0], "outside the tail, edited before the first look")
    issue.edit_comment(old[-1], "inside the tail, edited before the first look")
    first = agent.check(FLAG, "--limit", 5)
    assert first.code == 0, first
    doc = first.json
    assert ids(doc["new_comments"]) == old[-5:]
    assert doc["new_comments"][-1]["body"] == "inside the tail, edited before the first look"
    assert doc["edited_comments"] == [] and doc["edited_comment_count"] == 0
    watermark = doc["recommended_checkpoint"]["edits"]
    assert set(watermark) == {"through", "seen_count"}  # stdout: the summary only
    private = json.loads(agent.file("updates").read_text())
    assert set(private["recommended_checkpoint"]["edits"]) == {"through", "seen", "moved_at"}  # turn 5: moved_at = read_at
    assert len(since_reads(issue)) == 1
    agent.confirm(doc["snapshot_id"])
    stored = json.loads(agent.file().read_text())
    assert stored["edits"]["through"] == watermark["through"]
    again = agent.check(FLAG)
    assert again.json["edited_comments"] == [] and again.json["new_comments"] == []
    issue.advance(60)
    issue.edit_comment(old[0], "outside, edited after")
    issue.edit_comment(old[-1], "inside, edited after")
    later = agent.check(FLAG)
    assert ids(later.json["edited_comments"]) == [old[0], old[-1]]
    assert [c["body"] for c in later.json["edited_comments"]] == [
        "outside, edited after", "inside, edited after"]
    assert later.json["has_updates"] is True and later.json["edited_comment_count"] == 2


def test_once_per_edit_several_in_one_second_and_settled_polls_cost_one_more_304(issue, agent):
    old = issue.add_comments(OWNER, NAME, ISSUE, 10)
    settle(agent)
    issue.clear_log()
    plain = agent.check()
    assert statuses(issue) == [304]  # without the flag: one conditional request
    assert plain.code == 0
    settle(agent, FLAG)
    flagged = agent.check(FLAG)
    assert flagged.json["has_updates"] is False
    assert statuses(issue) == [304, 304]  # with it: one more, answered 304
    issue.advance(60)
    for cid in old[2:5]:  # three edits in one second
        issue.edit_comment(cid, f"edited {cid}")
    r = agent.check(FLAG)
    assert ids(r.json["edited_comments"]) == old[2:5]
    assert r.json["requests"] <= 3
    agent.confirm(r.json["snapshot_id"])
    assert agent.check(FLAG).json["edited_comments"] == []
    settle(agent, FLAG)
    agent.check(FLAG)
    assert statuses(issue) == [304, 304]


def test_a_check_without_the_flag_between_two_with_it(issue, agent):
    old = issue.add_comments(OWNER, NAME, ISSUE, 5)
    settle(agent, FLAG)
    issue.advance(60)
    issue.edit_comment(old[1], "edited while the flag was off")
    new = issue.add_comment(OWNER, NAME, ISSUE, "new, never edited")["id"]
    edited_new = issue.add_comment(OWNER, NAME, ISSUE, "new, edited before it was read")["id"]
    issue.advance(5)
    issue.edit_comment(edited_new, "new, edited before it was read (v2)")
    off = agent.check()
    assert ids(off.json["new_comments"]) == [new, edited_new]
    assert "edited_comments" not in off.json
    # the watermark is kept, the returned items recorded
    assert off.json["recommended_checkpoint"]["edits"]["through"] == \
        off.json["previous_checkpoint"]["edits"]["through"]
    agent.confirm(off.json["snapshot_id"])
    on = agent.check(FLAG)
    assert ids(on.json["edited_comments"]) == [old[1]]  # reported when the flag is on again
    agent.confirm(on.json["snapshot_id"])
    issue.advance(60)
    issue.edit_comment(new, "now edited")
    assert ids(agent.check(FLAG).json["edited_comments"]) == [new]


def test_a_confirm_is_already_applied_only_when_the_watermark_matches(issue, agent):
    old = issue.add_comments(OWNER, NAME, ISSUE, 5)
    settle(agent)  # a checkpoint without a watermark
    est = agent.check(FLAG)
    assert est.json["edited_comments"] == []
    assert est.json["recommended_checkpoint"]["last_comment_id"] == old[-1]
    assert est.json["previous_checkpoint"].get("edits") is None
    c = agent.confirm(est.json["snapshot_id"])
    assert c.json["already_applied"] is False and c.json["state_updated"] is True
    again = agent.confirm(est.json["snapshot_id"])
    assert again.json["already_applied"] is True
    issue.advance(60)
    issue.edit_comment(old[0], "edited")
    r = agent.check(FLAG)
    assert ids(r.json["edited_comments"]) == [old[0]]
    stale = json.loads(agent.file("updates").read_text())
    issue.advance(60)
    issue.edit_comment(old[1], "edited too")
    newer = agent.check(FLAG)
    assert ids(newer.json["edited_comments"]) == [old[0], old[1]]
    assert agent.confirm(newer.json["snapshot_id"]).json["state_updated"] is True
    stored = agent.file().read_bytes()
    # the same id cursor as the stored one, another watermark: not already applied, and
    # read from a watermark that is no longer stored: refused (compare-and-swap)
    assert stale["recommended_checkpoint"]["last_comment_id"] == old[-1]
    agent.file("updates").write_text(json.dumps(stale))
    refused = agent.confirm(stale["snapshot_id"])
    assert refused.code == 7 and refused.json["error"]["code"] == "state", refused
    assert agent.file().read_bytes() == stored


def test_an_edit_between_a_check_and_its_confirm_is_reported_next(issue, agent):
    old = issue.add_comments(OWNER, NAME, ISSUE, 5)
    settle(agent, FLAG)
    issue.advance(60)
    issue.edit_comment(old[2], "first edit")
    r = agent.check(FLAG)
    assert [c["body"] for c in r.json["edited_comments"]] == ["first edit"]
    issue.advance(1)
    issue.edit_comment(old[2], "second edit")
    agent.confirm(r.json["snapshot_id"])
    nxt = agent.check(FLAG)
    assert [c["body"] for c in nxt.json["edited_comments"]] == ["second edit"]


def test_a_bots_edit_under_humans_only_is_counted_not_returned(issue, agent):
    bot = issue.add_comment(OWNER, NAME, ISSUE, "CI: running", user="ci", user_type="Bot")["id"]
    human = issue.add_comment(OWNER, NAME, ISSUE, "LGTM", user="maintainer")["id"]
    settle(agent, FLAG, "--humans-only")
    issue.advance(60)
    issue.edit_comment(bot, "CI: passed")
    issue.edit_comment(human, "LGTM, but rename this")
    r = agent.check(FLAG, "--humans-only")
    assert ids(r.json["edited_comments"]) == [human]
    assert r.json["filtered_out"]["edited_conversation"] == {"humans_only": 1}
    agent.confirm(r.json["snapshot_id"])
    assert agent.check(FLAG).json["edited_comments"] == []  # passed, like a left-out comment


def test_a_new_comment_edited_before_it_was_returned_is_new_not_edited(issue, agent):
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    settle(agent, FLAG)
    issue.advance(60)
    cid = issue.add_comment(OWNER, NAME, ISSUE, "draft")["id"]
    issue.advance(10)
    issue.edit_comment(cid, "final")
    r = agent.check(FLAG)
    assert ids(r.json["new_comments"]) == [cid] and r.json["new_comments"][0]["body"] == "final"
    assert r.json["edited_comments"] == []
    agent.confirm(r.json["snapshot_id"])
    assert agent.check(FLAG).json["edited_comments"] == []


def test_limit_bounds_edited_comments_and_the_rest_come_next(issue, agent):
    old = issue.add_comments(OWNER, NAME, ISSUE, 6)
    settle(agent, FLAG)
    issue.advance(60)
    for cid in old:
        issue.edit_comment(cid, f"edited {cid}")
    r = agent.check(FLAG, "--limit", 4)
    assert ids(r.json["edited_comments"]) == old[:4] and r.json["more_available"] is True
    agent.confirm(r.json["snapshot_id"])
    r2 = agent.check(FLAG, "--limit", 4)
    assert ids(r2.json["edited_comments"]) == old[4:]


def test_a_far_future_updated_at_is_refused_and_nothing_is_written(issue, agent):
    old = issue.add_comments(OWNER, NAME, ISSUE, 3)
    settle(agent, FLAG)
    before = agent.file().read_bytes()
    issue.edit_comment(old[0], "from the future",
                       at=dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=2))
    r = agent.check(FLAG)
    assert r.code == 6 and r.json["error"]["code"] == "server", r
    assert "more than a day after" in r.json["error"]["message"]
    assert agent.file().read_bytes() == before


def test_a_wait_wakes_on_an_edit(issue, agent):
    old = issue.add_comments(OWNER, NAME, ISSUE, 5)
    settle(agent, FLAG)
    issue.clear_log()
    count = {"n": 0}
    lock = threading.Lock()

    def on_request(entry):
        if entry.headers.get("if-none-match") and "since" in entry.query:
            with lock:
                count["n"] += 1
                if count["n"] == 2:
                    issue.advance(60)
                    issue.edit_comment(old[3], "changed my mind")
    issue.on_request(on_request)
    env = script_env(issue, GH_MONITOR_TEST_TIME_SCALE="0.02")
    r = agent.check(FLAG, "--wait", 3600, "--poll-interval", 5, env=env)
    issue.clear_hooks()
    assert r.code == 0, r
    assert ids(r.json["edited_comments"]) == [old[3]] and r.json["has_updates"] is True
    assert r.json["polls"] == 2  # the edit landed as the second poll asked


# --------------------------------------------------------------------------- pull requests


@pytest.fixture
def pr(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user="octocat")
    return fake


def review(fake, n, user="bob"):
    comments = [{"path": f"src/mod{i}.py", "line": 10 + i, "body": f"note {i}"}
                for i in range(n)]
    started = fake.start_review(OWNER, NAME, PR, user, body="see notes", comments=comments)
    fake.advance(60)
    fake.submit_review(started["id"], state="COMMENTED")
    fake.advance(60)
    return list(started["comment_ids"])


def test_an_inline_comment_edited_on_a_pull_request_comes_with_its_thread(pr, tmp_path):
    agent = Agent(pr, tmp_path, "--pr", PR)
    inline = review(pr, 2)
    pr.add_comment(OWNER, NAME, PR, "a conversation comment", user="bob")
    settle(agent, FLAG)
    draft = pr.start_review(OWNER, NAME, PR, "octocat", comments=[
        {"path": "src/x.py", "line": 3, "body": "my draft"}])
    pr.advance(60)
    pr.edit_review_comment(inline[1], "note 1, but also rename this")
    pr.edit_review_comment(draft["comment_ids"][0], "my draft, edited")  # a draft: never
    r = agent.check(FLAG)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["edited_review_comments"]) == [inline[1]]
    edited = doc["edited_review_comments"][0]
    assert edited["body"] == "note 1, but also rename this"
    assert edited["thread_id"] and edited["thread_id"] in ids(doc["threads"])
    assert doc["edited_review_comment_count"] == 1 and doc["edited_comments"] == []
    assert doc["new_review_comments"] == [] and doc["has_updates"] is True
    agent.confirm(doc["snapshot_id"])
    assert agent.check(FLAG).json["edited_review_comments"] == []


def test_a_pull_requests_settled_poll_with_the_flag_is_four_304s(pr, tmp_path):
    agent = Agent(pr, tmp_path, "--pr", PR)
    review(pr, 2)
    pr.add_comment(OWNER, NAME, PR, "a conversation comment", user="bob")
    settle(agent)
    agent.check()
    plain = statuses(pr)
    assert plain == [304, 304]
    settle(agent, FLAG)
    agent.check(FLAG)
    assert statuses(pr) == [304] * 4
    assert not [q for q in pr.requests if q.path == "/graphql"]


def test_edits_are_not_read_by_a_plain_run_of_the_scripts(issue, agent, tmp_path):
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    r = run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--root", tmp_path, env=script_env(issue))
    assert r.code == 0 and "edited_comments" not in r.json
    assert since_reads(issue) == []


def test_establishing_on_an_old_checkpoint_reads_only_the_last_hours_window(issue, agent):
    old = issue.add_comments(OWNER, NAME, ISSUE, 300)  # a minute apart: five hours
    c = agent.latest("--since-comment-id", old[9], "--limit", 1, "--update-state")
    assert c.code == 0 and c.json["state_updated"] is True, c
    cut = agent.check(FLAG, "--limit", 5)  # a batch cut short: establishing waits
    assert cut.code == 0 and cut.json["more_available"] is True, cut
    assert since_reads(issue) == [] and "edits" not in cut.json["recommended_checkpoint"]
    r = agent.check(FLAG, "--limit", 300)  # reaches the end: established from its last hour
    assert r.code == 0, r
    reads = since_reads(issue)
    assert len(reads) == 1 and reads[0].status == 200  # not the 290 comments since the cursor
    assert len(json.loads(reads[0].response_body)) <= 62
    assert r.json["edited_comments"] == [] and "edits" in r.json["recommended_checkpoint"]
    agent.confirm(r.json["snapshot_id"])
    issue.advance(60)
    issue.edit_comment(old[5], "an old one, edited now")
    assert ids(agent.check(FLAG, "--limit", 5).json["edited_comments"]) == [old[5]]


def test_the_summary_format_lists_edited_comments_after_the_new_ones(issue, agent):
    old = issue.add_comments(OWNER, NAME, ISSUE, 3)
    settle(agent, FLAG)
    issue.advance(60)
    issue.edit_comment(old[1], "LGTM, but rename \x1b[31mthis")
    r = agent.check(FLAG, "--format", "summary")
    assert r.code == 0, r
    assert "edited since handled: 1 comment(s)" in r.stdout
    assert "LGTM, but rename <U+001B>[31mthis" in r.stdout and "\x1b" not in r.stdout
