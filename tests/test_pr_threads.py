"""Thread state in a pull request's rounds (CONTRACT section 15, "Threads in rounds").

A `--pr` round that returns inline comments also returns `threads` (one entry per thread those
comments belong to) and gives each comment its `thread_id`, from GraphQL `reviewThreads`, read
only then: a no-change poll, an idle wait and a round of conversation comments send no GraphQL
query, and a round sends at most one per 100 threads of the pull request. Reads by id carry no
thread data; where GraphQL cannot be read the round still succeeds with `threads: null`.
Scripts run as subprocesses against the fake; counts come from the fake's log.
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import time

import pytest

from tests.support import (
    OWNER,
    REPOSITORY,
    SCRIPT_PYTHON,
    SCRIPTS,
    Agent,
    run_script,
    script_env,
)

NAME = "hello"
PR = 7
ME = "octocat"  # the login script_env's token belongs to
THREAD_KEYS = {"id", "root_comment_id", "path", "line", "is_resolved", "is_outdated",
               "viewer_can_resolve", "viewer_can_unresolve", "viewer_can_reply"}
SYSTEM_NOTE = "REST has no thread resolution state"


@pytest.fixture
def pr(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user=ME)
    return fake


@pytest.fixture
def agent(pr, tmp_path):
    return Agent(pr, tmp_path, "--pr", PR)


def graphql(fake):
    return [q for q in fake.requests if q.path == "/graphql"]


def rest(fake):
    return [q for q in fake.requests if q.path != "/graphql"]


def ids(items):
    return [x["id"] for x in items]


def review(fake, n, user="bob", body="Please see the notes.", state="COMMENTED", first=0):
    """A submitted review opening n new threads; its comment ids."""
    comments = [{"path": f"src/mod{i % 5}.py", "line": 10 + i, "body": f"note {i}"}
                for i in range(first, first + n)]
    started = fake.start_review(OWNER, NAME, PR, user, body=body, comments=comments)
    fake.advance(60)
    fake.submit_review(started["id"], state=state)
    fake.advance(60)
    return list(started["comment_ids"])


def node_of(fake, thread_id):
    return fake.store.nodes[thread_id]


def expected(fake, thread_id, viewer=ME):
    """The thread as the fake's model holds it, in the round's shape."""
    t = node_of(fake, thread_id)
    can = t.viewer_can_resolve
    return {"id": t.node_id, "root_comment_id": t.comments[0].id, "path": t.path,
            "line": t.line, "is_resolved": t.is_resolved, "is_outdated": t.is_outdated,
            "viewer_can_resolve": can and not t.is_resolved,
            "viewer_can_unresolve": can and t.is_resolved, "viewer_can_reply": True}


def thread_id_of(fake, comment_id):
    return fake.store.review_comments[comment_id].thread.node_id


# -- what the round holds ----------------------------------------------------------------------

def test_round_threads_and_thread_ids_match_the_fakes_threads(pr, agent):
    done = pr.add_review_thread(OWNER, NAME, PR, "src/done.py", line=4, is_resolved=True,
                                comments=[{"user": "bob", "body": "fixed?"}])
    moved = pr.add_review_thread(OWNER, NAME, PR, "src/moved.py", line=9, is_outdated=True,
                                 viewer_can_resolve=False,
                                 comments=[{"user": "carol", "body": "old line"}])
    pr.advance(60)
    cids = review(pr, 2)
    answer = pr.reply_to_review_comment(done["comment_ids"][0], "carol", "still broken")
    pr.advance(60)
    r = agent.check()
    assert r.code == 0, r
    doc = r.json
    comments = doc["new_review_comments"]
    assert ids(comments) == [done["comment_ids"][0], moved["comment_ids"][0], *cids,
                             answer["id"]]
    for c in comments:
        assert c["thread_id"] == thread_id_of(pr, c["id"]), c
    want = [done["id"], moved["id"]] + [thread_id_of(pr, c) for c in cids]
    assert [t["id"] for t in doc["threads"]] == want  # one per thread, in comment order
    for t in doc["threads"]:
        assert set(t) == THREAD_KEYS
        assert t == expected(pr, t["id"]), t
    resolved, outdated = doc["threads"][0], doc["threads"][1]
    assert resolved["is_resolved"] is True and resolved["viewer_can_unresolve"] is True
    assert resolved["viewer_can_resolve"] is False
    assert outdated["is_outdated"] is True and outdated["line"] is None
    assert outdated["viewer_can_resolve"] is outdated["viewer_can_unresolve"] is False
    assert len(graphql(pr)) == 1 and doc["requests"] == len(pr.requests)
    assert not any(SYSTEM_NOTE in w for w in doc["warnings"]), doc["warnings"]
    # the updates file carries the same document; the checkpoint-mode read the same threads
    updates = json.loads(agent.file("updates").read_text())
    assert updates["threads"] == doc["threads"]
    assert [c["thread_id"] for c in updates["new_review_comments"]] == \
        [c["thread_id"] for c in comments]
    latest = agent.latest()
    assert latest.code == 0, latest
    assert latest.json["threads"] == doc["threads"]
    assert [c["thread_id"] for c in latest.json["review_comments"]] == \
        [c["thread_id"] for c in comments]


def test_next_round_shows_a_thread_resolved_after_the_resolve(pr, agent):
    cids = review(pr, 1)
    first = agent.look_and_confirm()
    (thread,) = first["threads"]
    assert thread["is_resolved"] is False and thread["viewer_can_resolve"] is True
    pr.reply_to_review_comment(cids[0], "bob", "Thanks, that fixes it")
    pr.advance(60)
    pr.resolve_thread(thread["id"], by="bob")
    r = agent.check()
    assert r.code == 0, r
    (again,) = r.json["threads"]
    assert again["id"] == thread["id"] and again["is_resolved"] is True
    assert again["viewer_can_unresolve"] is True and again["viewer_can_resolve"] is False


# -- when GraphQL is read ------------------------------------------------------------------------

def test_no_graphql_query_on_a_no_change_poll_or_a_conversation_round(pr, agent):
    review(pr, 3)
    agent.look_and_confirm()
    r = agent.check()
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert graphql(pr) == [] and set(agent.statuses()) == {304}, pr.requests
    assert r.json["threads"] == []
    pr.add_comment(OWNER, NAME, PR, "A remark in the conversation.", user="carol")
    pr.advance(60)
    r = agent.check()
    assert r.code == 0, r
    assert len(r.json["new_comments"]) == 1 and r.json["new_review_comments"] == []
    assert r.json["threads"] == [] and graphql(pr) == [], pr.requests


def test_no_graphql_query_on_an_idle_wait(pr, tmp_path):
    env = script_env(pr, GH_MONITOR_TEST_TIME_SCALE="0.02")
    agent = Agent(pr, tmp_path, "--pr", PR, env=env)
    review(pr, 2)
    agent.look_and_confirm()
    r = agent.check("--wait", 20, "--poll-interval", 5)
    assert r.code == 0, r
    assert r.json["has_updates"] is False and r.json["polls"] >= 2
    assert graphql(pr) == [] and set(agent.statuses()) == {304}, pr.requests
    assert r.json["threads"] == []


def test_at_most_one_query_per_100_threads_on_a_pr_of_250_threads(pr, agent):
    cids = review(pr, 250)
    r = agent.check("--limit", 1)
    assert r.code == 0, r
    assert len(r.json["threads"]) == 250 and len(r.json["new_review_comments"]) == 250
    assert len(graphql(pr)) <= math.ceil(250 / 100), graphql(pr)
    assert agent.confirm(r.json["snapshot_id"]).code == 0
    # a reply in the oldest thread: pages come from both ends in turn, the newest first, so
    # the oldest thread is on the second page read, not the third
    answer = pr.reply_to_review_comment(cids[0], "carol", "on the first note")
    pr.advance(60)
    r = agent.check()
    assert r.code == 0, r
    assert ids(r.json["new_review_comments"]) == [answer["id"]]
    assert [t["root_comment_id"] for t in r.json["threads"]] == [cids[0]]
    assert r.json["new_review_comments"][0]["thread_id"] == thread_id_of(pr, cids[0])
    assert len(graphql(pr)) == 2 and r.json["requests"] == len(pr.requests), pr.requests
    assert agent.confirm(r.json["snapshot_id"]).code == 0
    # a new review opening a thread: found on the first page read
    new = review(pr, 1, user="dave", first=300)
    r = agent.check()
    assert r.code == 0, r
    assert [t["root_comment_id"] for t in r.json["threads"]] == new
    assert len(graphql(pr)) == 1, pr.requests
    assert agent.confirm(r.json["snapshot_id"]).code == 0
    # a reply in a thread in the middle, whose root no page holds until the last: still at
    # most one query per 100 threads (251 now: 3)
    middle = pr.reply_to_review_comment(cids[125], "carol", "and the middle one")
    pr.advance(60)
    r = agent.check()
    assert r.code == 0, r
    assert [t["root_comment_id"] for t in r.json["threads"]] == [cids[125]]
    assert r.json["new_review_comments"][0]["id"] == middle["id"]
    assert len(graphql(pr)) <= math.ceil(251 / 100), pr.requests


def test_reads_by_id_carry_no_thread_data(pr, agent):
    cids = review(pr, 2)
    rid = pr.store.review_comments[cids[0]].review.id
    for args in (("--review-id", rid), ("--review-comment-id", cids[1])):
        r = agent.latest(*args)
        assert r.code == 0, r
        assert "threads" not in r.json
        assert r.json["review_comments"] and all("thread_id" not in c
                                                 for c in r.json["review_comments"])
        assert graphql(pr) == [], pr.requests


# -- whose comments count ------------------------------------------------------------------------

def test_own_reply_is_left_out_with_ignore_author_me_and_counted(pr, agent):
    cids = review(pr, 2)
    agent.look_and_confirm("--ignore-author", "@me")
    body = agent.root / "reply.md"
    body.write_text("Fixed in abc123.\n")
    mine = run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--action", "reply",
                      "--pr", PR, "--review-comment-id", cids[0], "--body-file", body,
                      env=agent.env)
    assert mine.code == 0, mine
    pr.advance(60)
    r = agent.check("--ignore-author", "@me")
    assert r.code == 0, r
    assert r.json["has_updates"] is False and r.json["threads"] == []
    assert r.json["filtered_out"]["review_comments"] == {"ignore_author": 1}
    assert graphql(pr) == [], pr.requests  # nothing returned: no thread read
    theirs = pr.reply_to_review_comment(cids[1], "bob", "And this one?")
    pr.advance(60)
    r = agent.check("--ignore-author", "@me")
    assert r.code == 0, r
    assert ids(r.json["new_review_comments"]) == [theirs["id"]]
    assert int(mine.json["commentId"]) not in ids(r.json["new_review_comments"])
    assert [t["root_comment_id"] for t in r.json["threads"]] == [cids[1]]
    assert r.json["filtered_out"]["review_comments"] == {"ignore_author": 1}


# -- when GraphQL cannot be read -----------------------------------------------------------------

@pytest.mark.parametrize("failure", ["FORBIDDEN", "502", "no token", "malformed"])
def test_a_failed_thread_read_is_threads_null_and_a_warning(pr, agent, failure):
    cids = review(pr, 2)
    env = agent.env
    if failure == "FORBIDDEN":
        pr.inject_graphql_error("FORBIDDEN", times=None)
    elif failure == "502":
        pr.inject("POST", r"/graphql$", times=None, status=502)
    elif failure == "malformed":  # types are checked on the way in
        pr.inject("POST", r"/graphql$", times=None, status=200, body={"data": {"repository": {
            "pullRequest": {"reviewThreads": {"totalCount": 2, "nodes": "not a list"}}}}})
    else:
        env = script_env(pr, token=None)
    r = agent.check("--max-wait", 0, env=env)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_review_comments"]) == cids
    assert doc["threads"] is None
    assert all(c["thread_id"] is None for c in doc["new_review_comments"])
    assert any(w.startswith("threads is null") for w in doc["warnings"]), doc["warnings"]
    assert any(SYSTEM_NOTE in w for w in doc["warnings"]), doc["warnings"]
    assert doc["requests"] == len(pr.requests)
    if failure == "no token":
        assert graphql(pr) == []  # GitHub's GraphQL API never answers anonymously
    assert json.loads(agent.file("updates").read_text())["threads"] is None


# -- --transport gh ------------------------------------------------------------------------------

def test_threads_under_transport_gh(pr, tmp_path, gh_env):
    done = pr.add_review_thread(OWNER, NAME, PR, "src/done.py", line=4, is_resolved=True)
    pr.advance(60)
    cids = review(pr, 1)
    agent = Agent(pr, tmp_path, "--pr", PR, env=gh_env)
    r = agent.check("--transport", "gh")
    assert r.code == 0, r
    threads = r.json["threads"]
    assert [t["id"] for t in threads] == [done["id"], thread_id_of(pr, cids[0])]
    assert threads == [expected(pr, t["id"]) for t in threads]
    assert len(graphql(pr)) == 1, pr.requests


def test_the_summary_names_each_inline_comments_thread_state(pr, agent):
    done = pr.add_review_thread(OWNER, NAME, PR, "src/done.py", line=4, is_resolved=True)
    pr.advance(60)
    cids = review(pr, 1)
    r = agent.check("--format", "summary")
    assert r.code == 0, r
    lines = [line for line in r.stdout.splitlines() if line.startswith("--- inline comment")]
    assert len(lines) == 2, r.stdout
    assert lines[0].endswith(f"thread {done['comment_ids'][0]} {done['id']}, resolved)")
    assert lines[1].endswith(f"thread {cids[0]} {thread_id_of(pr, cids[0])}, unresolved)")


# -- signals: an interrupted round returns nothing, `threads` included ---------------------------

def _spawn(agent, *args, **env):
    cmd = [SCRIPT_PYTHON, str(SCRIPTS / "check_issue_updates.py"), "--repo", REPOSITORY,
           "--pr", str(PR), "--root", str(agent.root), *map(str, args)]
    return subprocess.Popen(cmd, env=dict(agent.env, **env), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _wait_for(predicate, proc, seconds=60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        if proc.poll() is not None:
            raise AssertionError(f"exited early: {proc.communicate()}")
        time.sleep(0.02)
    raise AssertionError("the process never got there")


@pytest.mark.parametrize("moment", ["during the thread read", "before the commit point"])
def test_an_interrupted_round_has_empty_threads_and_leaves_the_files(pr, agent, moment):
    review(pr, 1)
    agent.look_and_confirm()
    review(pr, 2, user="carol")
    before = {p.name: p.read_bytes() for p in agent.file().parent.glob("*.json")}
    pr.clear_log()
    if moment == "during the thread read":
        pr.inject("POST", r"/graphql$", mode="delay", delay=20)
        proc = _spawn(agent)
        _wait_for(lambda: graphql(pr), proc)
    else:
        proc = _spawn(agent, GH_MONITOR_TEST_WRITE_PAUSE="write:30")
        _wait_for(lambda: list(agent.file().parent.glob(".*tmp-*")), proc)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, (out, err)
    doc = json.loads(out)
    assert doc["interrupted"] is True and doc["snapshot_id"] is None, doc
    assert doc["new_review_comments"] == [] and doc["threads"] == []
    assert {p.name: p.read_bytes() for p in agent.file().parent.glob("*.json")} == before
