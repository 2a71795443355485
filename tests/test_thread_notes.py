"""The thread-state notes of a pull request's round (CONTRACT section 12, amended in turn 6).

"REST has no thread resolution state: run get_pr_comments.py ..." appears only where inline
comments are returned without thread state (the GraphQL thread query failed, or a read by id
did not send it); a round that returns no inline comment, or returns them with `threads`, says
nothing about threads. A warning appears once per `warnings` list (the inbox's top level never
repeats a round's), and stderr repeats warnings only with `--format summary`.
Scripts run as subprocesses against the fake.
"""

from __future__ import annotations

import pytest

from tests.support import OWNER, Agent, by_key, inbox, script_env

NAME = "hello"
PR = 7
ME = "octocat"
SYSTEM_NOTE = "REST has no thread resolution state"
THREADS_NOTE = "threads holds the resolution state"


def thread_notes(warnings):
    return [w for w in warnings if SYSTEM_NOTE in w or THREADS_NOTE in w]


def graphql(fake):
    return [q for q in fake.requests if q.path == "/graphql"]


@pytest.fixture
def pr(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user=ME)
    return fake


@pytest.fixture
def agent(pr, tmp_path):
    return Agent(pr, tmp_path, "--pr", PR)


def review(fake, n, user="bob", number=PR):
    comments = [{"path": f"src/mod{i}.py", "line": 10 + i, "body": f"note {i}"} for i in range(n)]
    started = fake.start_review(OWNER, NAME, number, user, body="See the notes.",
                                comments=comments)
    fake.advance(60)
    fake.submit_review(started["id"], state="COMMENTED")
    fake.advance(60)
    return list(started["comment_ids"])


def test_no_thread_note_on_a_round_without_inline_comments(pr, agent):
    first = agent.check()  # a first look at a pull request with nothing on it
    assert first.code == 0, first
    assert first.json["new_review_comments"] == [] and thread_notes(first.json["warnings"]) == []
    assert agent.confirm(first.json["snapshot_id"]).code == 0
    pr.add_comment(OWNER, NAME, PR, "A remark in the conversation.", user="carol")
    pr.advance(60)
    r = agent.check()  # conversation comments only
    assert r.code == 0 and len(r.json["new_comments"]) == 1, r
    assert r.json["warnings"] == [], r.json["warnings"]
    latest = agent.latest()  # the checkpoint-mode read of the same round
    assert latest.code == 0 and len(latest.json["comments"]) == 1, latest
    assert latest.json["warnings"] == [], latest.json["warnings"]
    assert agent.confirm(r.json["snapshot_id"]).code == 0
    idle = agent.check()  # a no-change poll
    assert idle.code == 0 and idle.json["has_updates"] is False, idle
    assert idle.json["warnings"] == [], idle.json["warnings"]


def test_no_thread_note_when_the_threads_were_read(pr, agent):
    review(pr, 2)
    r = agent.check()
    assert r.code == 0 and len(r.json["new_review_comments"]) == 2, r
    assert r.json["threads"] and len(graphql(pr)) == 1
    assert thread_notes(r.json["warnings"]) == [], r.json["warnings"]
    latest = agent.latest()
    assert latest.code == 0 and latest.json["threads"], latest
    assert thread_notes(latest.json["warnings"]) == [], latest.json["warnings"]


def test_the_note_once_when_the_thread_query_fails(pr, agent):
    review(pr, 2)
    pr.inject_graphql_error("FORBIDDEN", times=None)
    r = agent.check("--max-wait", 0)
    assert r.code == 0 and r.json["threads"] is None, r
    assert len([w for w in r.json["warnings"] if SYSTEM_NOTE in w]) == 1, r.json["warnings"]
    assert not any(THREADS_NOTE in w for w in r.json["warnings"])
    latest = agent.latest("--max-wait", 0)
    assert latest.code == 0 and latest.json["threads"] is None, latest
    assert len([w for w in latest.json["warnings"] if SYSTEM_NOTE in w]) == 1


def test_a_read_by_id_of_inline_comments_says_no_thread_state_was_read(pr, agent):
    cids = review(pr, 2)
    rid = pr.store.review_comments[cids[0]].review.id
    for args in (("--review-id", rid), ("--review-comment-id", cids[1])):
        r = agent.latest(*args)
        assert r.code == 0 and r.json["review_comments"], r
        assert graphql(pr) == []  # a read by id sends no thread query
        assert [w for w in r.json["warnings"] if SYSTEM_NOTE in w] == thread_notes(
            r.json["warnings"]) and len(thread_notes(r.json["warnings"])) == 1, r.json
    said = pr.add_comment(OWNER, NAME, PR, "A remark in the conversation.", user="carol")
    r = agent.latest("--comment-id", said["id"])
    assert r.code == 0 and r.json["review_comments"] == [], r
    assert r.json["warnings"] == [], r.json["warnings"]


def test_the_inbox_repeats_no_rounds_warning_at_its_top_level(pr, tmp_path):
    pr.add_pull(OWNER, NAME, 8, title="Another", user=ME)
    review(pr, 1)
    pr.inject_graphql_error("FORBIDDEN", times=None)
    keys = [f"{OWNER}/{NAME}/pull/{PR}", f"{OWNER}/{NAME}/pull/8"]
    r = inbox(pr, tmp_path, "--follow", keys[0], "--follow", keys[1], "--max-wait", 0)
    assert r.code == 0, r
    rounds = by_key(r.json)
    assert list(rounds) == [keys[0]] and r.json["quiet"] == [keys[1]], r.json
    warned = rounds[keys[0]]["warnings"]
    assert len([w for w in warned if SYSTEM_NOTE in w]) == 1, warned
    assert len(warned) == len(set(warned)), warned
    assert not set(r.json["warnings"]) & set(warned), r.json["warnings"]
    assert thread_notes(r.json["warnings"]) == []


def test_stderr_repeats_warnings_only_with_format_summary(pr, agent):
    review(pr, 1)
    pr.inject_graphql_error("FORBIDDEN", times=None)
    r = agent.check("--max-wait", 0)
    assert r.code == 0 and any(SYSTEM_NOTE in w for w in r.json["warnings"]), r
    assert "warning:" not in r.stderr and SYSTEM_NOTE not in r.stderr, r.stderr
    s = agent.check("--max-wait", 0, "--format", "summary")
    assert s.code == 0, s
    assert SYSTEM_NOTE in s.stdout
    assert [line for line in s.stderr.splitlines() if SYSTEM_NOTE in line], s.stderr


def test_stderr_of_an_issue_check_holds_no_warning_either(fake, tmp_path):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, 3, title="A bug")
    for i in range(25):  # more than --limit: the tail's warning about the history not read
        fake.add_comment(OWNER, NAME, 3, f"comment {i}", user="bob")
    agent = Agent(fake, tmp_path, "--issue", 3, env=script_env(fake))
    r = agent.check()
    assert r.code == 0 and r.json["warnings"], r
    assert "warning:" not in r.stderr, r.stderr
