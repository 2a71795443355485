"""`--include-events` (CONTRACT section 21), run as an agent runs it: subprocesses against the
fake GitHub, request counts from the fake's log.

What happened, not only what was written: events after the round's event cursor under either
order of the list, the conversation's state, a pull request's pushes (the ref probe, compare,
force pushes, an older-dated fast-forward) and the threads a push outdated; the first ask of a
round confirmed without the flag; waking; --limit and the filters; a transferred issue's 301;
a 403, a 404 and a malformed event; the summary's escapes; the idle bounds (issue round 2, pull
request round 4, the inbox the sum), all 304; no GraphQL without a push.
"""

from __future__ import annotations

import threading

import pytest

from tests.events_support import (
    FLAG,
    ISSUE,
    NAME,
    PR,
    checkpoint,
    kinds,
    paths,
    settle,
    statuses,
)
from tests.support import OWNER, Agent, inbox, latest, script_env


@pytest.fixture(params=["ascending", "descending"])
def issue(fake, request):
    fake.events_order = request.param
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    return fake


@pytest.fixture
def agent(issue, tmp_path):
    return Agent(issue, tmp_path, "--issue", ISSUE)


@pytest.fixture(params=["ascending", "descending"])
def pr(fake, request):
    fake.events_order = request.param
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    return fake


@pytest.fixture
def pagent(pr, tmp_path):
    return Agent(pr, tmp_path, "--pr", PR)


# --------------------------------------------------------------------------- an issue's round


def test_first_look_sets_the_cursor_then_events_come_once_and_idle_polls_are_304(issue, agent):
    issue.add_label(OWNER, NAME, ISSUE, "old", by="bob")  # before the first look: not reported
    issue.add_comment(OWNER, NAME, ISSUE, "hello", user="alice")
    r = agent.check(FLAG)
    assert r.code == 0, r
    doc = r.json
    assert doc["events"] == [] and doc["event_count"] == 0
    assert doc["state"] == {"state": "open", "locked": False, "moved_to": None}
    assert doc["recommended_checkpoint"]["events"]["last_event_id"] == max(
        issue.event_ids(OWNER, NAME, ISSUE))
    assert "/repos/octo/hello/issues/5" in paths(issue)  # the state, read once
    assert agent.confirm(doc["snapshot_id"]).code == 0

    issue.advance(5)
    issue.close_issue(OWNER, NAME, ISSUE, by="alice")
    issue.add_label(OWNER, NAME, ISSUE, "wontfix\u202e", by="bob")
    issue.add_event(OWNER, NAME, ISSUE, "subscribed", actor="carol")  # never returned
    r = agent.check(FLAG)
    assert r.code == 0, r
    doc = r.json
    assert kinds(doc) == ["closed", "labeled"] and doc["has_updates"] is True
    closed, labeled = doc["events"]
    assert closed["actor"] == "alice" and closed["actor_type"] == "User"
    assert labeled["label"] == {"name": "wontfix<U+202E>"}
    assert labeled["hidden_characters"] == 1 and labeled["text_truncated"] is False
    assert doc["state"]["state"] == "closed"
    assert doc["filtered_out"] == {"events": {"other_kind": 1}}
    assert doc["more_available_by_kind"] == {"comments": False, "events": False}
    assert "/repos/octo/hello/issues/5" not in paths(issue)  # the state comes from the events
    assert any("--unfollow" in w for w in doc["warnings"])
    assert agent.confirm(doc["snapshot_id"]).code == 0
    assert checkpoint(agent)["events"]["state"]["state"] == "closed"

    for _ in range(2):  # idle: one conditional request per list, both 304
        r = agent.check(FLAG)
        assert r.code == 0 and r.json["has_updates"] is False and r.json["events"] == [], r
        assert statuses(issue) == [304, 304], paths(issue)
        assert r.json["state"]["state"] == "closed"


def test_the_first_ask_reports_the_events_since_tracking_began(issue, agent):
    issue.date_follows_clock = True  # GitHub's Date and the events' times on one clock
    issue.add_comment(OWNER, NAME, ISSUE, "hello", user="alice")
    issue.add_label(OWNER, NAME, ISSUE, "before", by="bob")
    issue.advance(5)
    settle(agent)  # confirmed without the flag: tracked_since recorded, no event cursor
    cp = checkpoint(agent)
    assert cp["tracked_since"] and "events" not in cp
    issue.advance(5)
    issue.add_label(OWNER, NAME, ISSUE, "after", by="bob")
    issue.lock_issue(OWNER, NAME, ISSUE, reason="too heated", by="alice")
    r = agent.check(FLAG)
    assert r.code == 0, r
    doc = r.json
    assert kinds(doc) == ["labeled", "locked"], doc["events"]
    assert doc["events"][0]["label"]["name"] == "after"
    assert doc["events"][1]["lock_reason"] == "too heated"
    assert doc["state"]["locked"] is True
    assert agent.confirm(doc["snapshot_id"]).code == 0
    cp = checkpoint(agent)
    assert cp["events"]["last_event_id"] == max(issue.event_ids(OWNER, NAME, ISSUE))
    r = agent.check(FLAG)
    assert r.json["events"] == [] and statuses(issue) == [304, 304]


def test_without_the_flag_no_request_and_every_write_keeps_the_cursor(issue, agent):
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    settle(agent, FLAG)
    events = checkpoint(agent)["events"]
    issue.add_comment(OWNER, NAME, ISSUE, "one more", user="alice")
    issue.add_comment(OWNER, NAME, ISSUE, "and another", user="alice")
    issue.close_issue(OWNER, NAME, ISSUE, by="alice")
    r = agent.check()
    assert r.code == 0, r
    assert "events" not in r.json and "state" not in r.json
    assert not [p for p in paths(issue) if p.endswith("/events")]
    assert r.json["recommended_checkpoint"]["events"] == events
    through = r.json["new_comments"][0]["id"]
    assert agent.confirm(r.json["snapshot_id"], "--through", through).code == 0
    assert checkpoint(agent)["events"] == events  # a partial confirm keeps it
    assert agent.latest("--update-state").code == 0
    assert checkpoint(agent)["events"] == events  # a read of get_latest_comments.py too
    r = agent.check(FLAG)
    assert kinds(r.json) == ["closed"]  # what happened meanwhile, once


def test_limit_takes_the_oldest_events_and_each_is_one_unit(issue, agent):
    settle(agent, FLAG)
    issue.advance(5)
    for name in ("a", "b", "c", "d", "e"):
        issue.add_label(OWNER, NAME, ISSUE, name, by="bob")
    seen = []
    for _ in range(3):
        r = agent.check(FLAG, "--limit", 2)
        assert r.code == 0, r
        seen += [e["label"]["name"] for e in r.json["events"]]
        assert agent.confirm(r.json["snapshot_id"]).code == 0
    assert seen == ["a", "b", "c", "d", "e"]
    r = agent.check(FLAG, "--limit", 2)
    assert r.json["events"] == [] and r.json["more_available_by_kind"]["events"] is False


def test_one_page_per_hundred_new_events(issue, agent):
    settle(agent, FLAG)
    issue.advance(5)
    for i in range(150):
        issue.add_label(OWNER, NAME, ISSUE, f"l{i}", by="bob")
    r = agent.check(FLAG, "--limit", 200)
    assert r.code == 0, r
    assert r.json["event_count"] == 150
    reads = [q for q in issue.requests if q.path.endswith("/events")]
    assert len(reads) <= 3, [(q.query, q.status) for q in reads]  # the probe, then 2 pages
    assert agent.confirm(r.json["snapshot_id"]).code == 0
    r = agent.check(FLAG)
    assert r.json["events"] == [] and statuses(issue) == [304, 304]


def test_filters_apply_to_the_actor_and_the_end_passes_humans_only(issue, agent):
    settle(agent, FLAG)
    issue.advance(5)
    issue.add_label(OWNER, NAME, ISSUE, "triage", by="helper[bot]")
    issue.close_issue(OWNER, NAME, ISSUE, by="stale[bot]")
    issue.reopen_issue(OWNER, NAME, ISSUE, by="octocat")
    r = agent.check(FLAG, "--humans-only", "--ignore-author", "@me")
    assert r.code == 0, r
    assert kinds(r.json) == ["closed"]  # a bot's close is the end of the conversation
    assert r.json["filtered_out"]["events"] == {"humans_only": 1, "ignore_author": 1}
    assert r.json["state"]["state"] == "open"  # every event up to the cursor applied


def test_a_wait_wakes_on_a_close_by_a_bot_under_humans_only(issue, agent):
    settle(agent, FLAG)
    issue.clear_log()
    count = {"n": 0}
    lock = threading.Lock()

    def on_request(entry):
        if entry.path.endswith("/events") and entry.headers.get("if-none-match"):
            with lock:
                count["n"] += 1
                if count["n"] == 2:
                    issue.advance(60)
                    issue.close_issue(OWNER, NAME, ISSUE, by="stale[bot]")
    issue.on_request(on_request)
    env = script_env(issue, GH_MONITOR_TEST_TIME_SCALE="0.02")
    r = agent.check(FLAG, "--humans-only", "--wait", 3600, "--poll-interval", 5, env=env)
    issue.clear_hooks()
    assert r.code == 0, r
    assert kinds(r.json) == ["closed"] and r.json["has_updates"] is True
    assert r.json["polls"] in (2, 3)  # landed as the second poll's events probe was asked


def test_a_transferred_issue_is_reported_moved_and_no_redirect_is_followed(issue, agent):
    issue.add_repo(OWNER, "elsewhere")
    settle(agent, FLAG)
    issue.advance(5)
    issue.transfer_issue(OWNER, NAME, ISSUE, OWNER, "elsewhere")
    r = agent.check(FLAG)
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is True
    assert "/repositories/" in doc["state"]["moved_to"]
    assert [q.status for q in issue.requests] == [301]  # the comments' 301: nothing followed
    assert agent.confirm(doc["snapshot_id"]).code == 0
    r = agent.check(FLAG)
    assert r.code == 0 and r.json["has_updates"] is False, r  # told once
    assert r.json["state"]["moved_to"] == doc["state"]["moved_to"]


def test_a_403_on_the_events_gives_null_and_a_warning(issue, agent):
    settle(agent, FLAG)
    issue.inject(path=r"/issues/5/events$", status=403, times=None,
                 body={"message": "Resource not accessible by integration"})
    r = agent.check(FLAG)
    assert r.code == 0, r
    assert r.json["events"] is None
    assert any("events and pushes" in w for w in r.json["warnings"])


def test_a_404_on_the_events_is_the_rounds_error_and_a_bad_event_is_exit_6(issue, agent):
    settle(agent, FLAG)
    issue.clear_faults()
    issue.inject(path=r"/issues/5/events$", status=404, times=None,
                 body={"message": "Not Found"})
    r = agent.check(FLAG)
    assert r.code == 4, r
    issue.clear_faults()
    issue.inject(path=r"/issues/5/events$", status=200, times=None,
                 body=[{"id": "12", "event": "closed", "created_at": "2026-01-01T00:00:00Z"}])
    r = agent.check(FLAG)
    assert r.code == 6 and r.json["error"]["code"] == "server", r


def test_the_summary_shows_events_escaped(issue, agent):
    settle(agent, FLAG)
    issue.advance(5)
    issue.rename_issue(OWNER, NAME, ISSUE, "New\ntitle\u2028x", by="bob")
    issue.close_issue(OWNER, NAME, ISSUE, by="alice")
    r = agent.check(FLAG, "--format", "summary")
    assert r.code == 0, r
    text = r.stdout
    assert "closed by alice" in text
    assert "New<U+000A>title<U+2028>x" in text
    assert "state: closed" in text
    assert "\u2028" not in text


# --------------------------------------------------------------------------- a pull request's round


def test_a_push_reports_its_commits_and_the_threads_it_outdated(pr, pagent):
    pr.add_review_thread(OWNER, NAME, PR, "a.py", line=3,
                         comments=[{"user": "carol", "body": "rename this"}])
    pr.add_review_thread(OWNER, NAME, PR, "b.py", line=9,
                         comments=[{"user": "carol", "body": "and this"}])
    doc = settle(pagent, FLAG)
    assert doc["pushes"] is None and doc["state"]["merged"] is False
    head = checkpoint(pagent)["head"]
    for _ in range(2):  # idle: reviews, conversation, events, head — all 304, no GraphQL
        r = pagent.check(FLAG)
        assert r.code == 0 and r.json["has_updates"] is False, r
        assert statuses(pr) == [304, 304, 304, 304], paths(pr)
    pr.advance(5)
    shas = pr.push(OWNER, NAME, PR, count=2, author="alice",
                   messages=["Fix it\n\nlong body", "x" * 300], outdate_paths=["a.py"])
    r = pagent.check(FLAG)
    assert r.code == 0, r
    push = r.json["pushes"]
    assert [c["sha"] for c in push["commits"]] == shas
    assert push["previous_head_sha"] == head["sha"] and push["head_sha"] == shas[-1]
    assert push["force_pushed"] is False and r.json["has_updates"] is True
    assert push["commits"][0]["message"] == "Fix it"
    assert len(push["commits"][1]["message"]) == 200
    assert [t["path"] for t in r.json["outdated_threads"]] == ["a.py"]
    assert r.json["outdated_threads"][0]["line"] is None
    assert r.json["outdated_threads"][0]["original_line"] == 3
    assert len([p for p in paths(pr) if p.endswith("/graphql")]) == 1
    assert not [p for p in paths(pr) if p.endswith("/commits")]  # never the date-sorted list
    assert pagent.confirm(r.json["snapshot_id"]).code == 0
    assert checkpoint(pagent)["head"]["sha"] == shas[-1]
    r = pagent.check(FLAG)
    assert r.json["pushes"] is None and statuses(pr) == [304, 304, 304, 304]


def test_an_older_dated_fast_forward_is_a_push_not_a_force_push(pr, pagent):
    settle(pagent, FLAG)
    pr.advance(5)
    old = "2020-01-01T00:00:00Z"
    shas = pr.push(OWNER, NAME, PR, count=1, author="alice", committed_at=old)
    r = pagent.check(FLAG)
    assert r.code == 0, r
    assert [c["sha"] for c in r.json["pushes"]["commits"]] == shas
    assert r.json["pushes"]["force_pushed"] is False


def test_a_force_push_and_a_lost_head(pr, pagent):
    pr.push(OWNER, NAME, PR, count=3, author="alice")
    settle(pagent, FLAG)
    pr.advance(5)
    new = pr.push(OWNER, NAME, PR, count=2, author="alice", force=True)
    r = pagent.check(FLAG, "--limit", 1)
    assert r.code == 0, r
    push = r.json["pushes"]
    assert push["force_pushed"] is True and [c["sha"] for c in push["commits"]] == new[-1:]
    assert "head_ref_force_pushed" in kinds(r.json)
    assert pagent.confirm(r.json["snapshot_id"]).code == 0
    head = checkpoint(pagent)["head"]["sha"]
    pr.advance(5)
    newer = pr.push(OWNER, NAME, PR, count=1, author="alice")
    pr.gc(head)  # GitHub no longer has the recorded head: compare answers 404
    r = pagent.check(FLAG)
    assert r.code == 0, r
    assert r.json["pushes"]["force_pushed"] is True
    assert r.json["pushes"]["commits"][-1]["sha"] == newer[-1]


def test_my_own_push_does_not_wake_a_wait_and_a_merge_does(pr, pagent):
    settle(pagent, FLAG)
    pr.advance(5)
    pr.push(OWNER, NAME, PR, count=1, author="octocat")  # the agent's own push
    env = script_env(pr, GH_MONITOR_TEST_TIME_SCALE="0.01")
    r = pagent.check(FLAG, "--ignore-author", "@me", "--wait", 10, "--poll-interval", 5,
                     env=env)
    assert r.code == 0, r
    assert r.json["has_updates"] is False and r.json["pushes"] is None
    assert r.json["filtered_out"]["pushes"] == {"ignore_author": 1}
    assert pagent.confirm(r.json["snapshot_id"]).code == 0
    pr.merge_pull(OWNER, NAME, PR, by="mergify[bot]")
    r = pagent.check(FLAG, "--humans-only", "--wait", 10, env=env)
    assert r.code == 0, r
    assert kinds(r.json) == ["merged", "closed"]
    assert r.json["state"] == {"state": "closed", "merged": True, "draft": False,
                               "locked": False, "moved_to": None}


def test_review_requests_and_draft_changes_on_a_pull_request(pr, pagent):
    settle(pagent, FLAG)
    pr.advance(5)
    pr.set_draft(OWNER, NAME, PR, True, by="alice")
    pr.request_review(OWNER, NAME, PR, reviewer="octocat", by="alice")
    pr.request_review(OWNER, NAME, PR, team="core", by="alice")
    pr.set_draft(OWNER, NAME, PR, False, by="alice")
    r = pagent.check(FLAG)
    assert r.code == 0, r
    assert kinds(r.json) == ["convert_to_draft", "review_requested", "review_requested",
                             "ready_for_review"]
    assert r.json["events"][1]["requested_reviewer"] == "octocat"
    assert r.json["events"][2]["requested_team"]["slug"] == "core"
    assert r.json["state"]["draft"] is False
    assert r.json["pushes"] is None and not [p for p in paths(pr) if p.endswith("/graphql")]


# --------------------------------------------------------------------------- the inbox


def test_the_inbox_idle_bound_with_the_flag(pr, tmp_path):
    pr.add_issue(OWNER, NAME, ISSUE, title="Bug")
    refs = ["--follow", f"{OWNER}/{NAME}#{ISSUE}", "--follow", f"{OWNER}/{NAME}/pull/{PR}"]

    def confirm(doc):
        c = latest(pr, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   doc["snapshot_id"])
        assert c.code == 0, c

    for _ in range(2):  # the first look sets every cursor; the second is quiet
        r = inbox(pr, tmp_path, *refs, FLAG)
        assert r.code == 0, r
        confirm(r.json)
    pr.advance(5)
    pr.close_issue(OWNER, NAME, ISSUE, by="alice")
    pr.push(OWNER, NAME, PR, count=1, author="alice")
    r = inbox(pr, tmp_path, *refs, FLAG)
    assert r.code == 0, r
    conv = {c["key"]: c for c in r.json["conversations"]}
    assert sorted(len(c["events"]) + len((c.get("pushes") or {}).get("commits") or [])
                  for c in conv.values()) == [1, 1]
    confirm(r.json)
    for _ in range(2):
        r = inbox(pr, tmp_path, *refs, FLAG)
        assert r.code == 0 and r.json["has_updates"] is False, r
        assert statuses(pr) == [304] * 6, paths(pr)  # issue round 2 + pull request round 4


def test_with_include_edits_too_the_idle_bound_is_3_and_6(pr, pagent, tmp_path):
    pr.add_issue(OWNER, NAME, ISSUE, title="Bug")
    issue_agent = Agent(pr, tmp_path, "--issue", ISSUE)
    pr.add_comment(OWNER, NAME, ISSUE, "hello", user="alice")
    pr.add_comment(OWNER, NAME, PR, "hello", user="alice")
    for agent, bound in ((issue_agent, 3), (pagent, 6)):
        settle(agent, FLAG, "--include-edits")
        for _ in range(2):
            r = agent.check(FLAG, "--include-edits")
            assert r.code == 0 and r.json["has_updates"] is False, r
            assert statuses(pr) == [304] * bound, paths(pr)


def test_a_deleted_fork_falls_back_to_the_pull_request_head(pr, pagent):
    settle(pagent, FLAG)
    pr.delete_head_repo(OWNER, NAME, PR)
    pr.advance(5)
    shas = pr.push(OWNER, NAME, PR, count=1, author="alice")
    r = pagent.check(FLAG)
    assert r.code == 0, r
    assert [c["sha"] for c in r.json["pushes"]["commits"]] == shas
    assert any("cannot be read" in w for w in r.json["warnings"]), r.json["warnings"]
    assert pagent.confirm(r.json["snapshot_id"]).code == 0
    r = pagent.check(FLAG)
    assert r.code == 0 and r.json["pushes"] is None, r


def test_max_total_counts_events_as_items_and_loses_none(pr, tmp_path):
    pr.add_issue(OWNER, NAME, ISSUE, title="Bug")
    refs = ["--follow", f"{OWNER}/{NAME}#{ISSUE}", "--follow", f"{OWNER}/{NAME}/pull/{PR}"]
    for _ in range(2):
        r = inbox(pr, tmp_path, *refs, FLAG)
        assert r.code == 0, r
        assert latest(pr, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                      r.json["snapshot_id"]).code == 0
    pr.advance(5)
    for i in range(4):
        pr.add_label(OWNER, NAME, ISSUE, f"i{i}", by="bob")
        pr.add_label(OWNER, NAME, PR, f"p{i}", by="bob")
    pr.push(OWNER, NAME, PR, count=2, author="alice")
    seen = []
    for _ in range(6):
        r = inbox(pr, tmp_path, *refs, FLAG, "--max-total", 3)
        assert r.code == 0, r
        items = 0
        for conv in r.json["conversations"]:
            seen += [(conv["key"], e["label"]["name"]) for e in conv["events"]]
            seen += [(conv["key"], "push") for _ in [conv.get("pushes")] if _]
            items += len(conv["events"]) + (1 if conv.get("pushes") else 0)
        assert items <= 3
        if not r.json["has_updates"]:
            break
        assert latest(pr, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                      r.json["snapshot_id"]).code == 0
    assert sorted(seen) == sorted(set(seen)) and len(seen) == 9, seen


def test_through_gh_the_idle_bound_holds_and_a_followed_redirect_is_moved_to(fake, gh_env,
                                                                           tmp_path):
    fake.add_repo(OWNER, NAME)
    fake.add_repo(OWNER, "elsewhere")
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    gh = ("--transport", "gh")
    pagent = Agent(fake, tmp_path, "--pr", PR, env=gh_env)
    settle(pagent, FLAG, *gh)
    r = pagent.check(FLAG, *gh)
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert statuses(fake) == [304] * 4, paths(fake)
    agent = Agent(fake, tmp_path, "--issue", ISSUE, env=gh_env)
    settle(agent, FLAG, *gh)
    fake.advance(5)
    fake.transfer_issue(OWNER, NAME, ISSUE, OWNER, "elsewhere")
    r = agent.check(FLAG, *gh)
    assert r.code == 0, r
    assert r.json["has_updates"] is True and r.json["state"]["moved_to"], r
    assert r.json["new_comments"] == []
