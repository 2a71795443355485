"""check_issue_updates.py --wait: polling until the reply comes (CONTRACT section 13).

Driven as an agent drives it: the real script as a subprocess against the fake. Arrivals are
deterministic: a request hook posts the comment when the k-th conditional poll reaches the fake
(before it is answered), never a sleep. Every wait is shrunk with the test-only
GH_MONITOR_TEST_TIME_SCALE; assertions count polls and requests, and any bound on wall time is
generous (the tests must pass on a busy machine).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support import (
    OWNER,
    REPOSITORY,
    SCRIPT_PYTHON,
    SCRIPTS,
    TOKEN,
    clean_env,
    run_script,
    script_env,
)

ISSUE = 5
PR = 7
SCALE = "0.02"  # --wait 3600 --poll-interval 5: polls 0.1 s apart, 72 s in all
# Where a test runs a wait to its end, polls are 0.5 s apart. A poll late by more than that (a
# busy machine; the first poll that finds news imports `requests`) lets the schedule skip one:
# such tests bound the count by the schedule's and assert one request per poll.
SLOW = "0.1"
STATE = Path(".tmp") / "runs" / "default" / "gh-issue-comment-monitor"


# -- fixtures and helpers -------------------------------------------------------------------------

@pytest.fixture
def issue(fake):
    fake.add_repo(OWNER, "hello")
    fake.add_issue(OWNER, "hello", ISSUE)
    return fake


@pytest.fixture
def env(fake):
    return script_env(fake, GH_MONITOR_TEST_TIME_SCALE=SCALE)


@pytest.fixture
def root(tmp_path):
    return tmp_path


def check(env, root, *args, number=("--issue", ISSUE), timeout=150):
    return run_script("check_issue_updates.py", "--repo", REPOSITORY, *number, "--root", root,
                      *args, env=env, timeout=timeout)


def latest(env, root, *args, number=("--issue", ISSUE)):
    return run_script("get_latest_comments.py", "--repo", REPOSITORY, *number, "--root", root,
                      *args, env=env)


def ids(items):
    return [c["id"] for c in items]


def checkpoint_file(root):
    return root / STATE / "octo-hello-5.json"


def updates_file(root):
    return root / STATE / "octo-hello-5-updates.json"


def tree(root):
    """Every file under root with its bytes (the state, byte for byte)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def nonzero(counts):
    """filtered_out without zero counts or empty kinds (only non-zero reasons need appear)."""
    if isinstance(counts, dict):
        out = {k: nonzero(v) for k, v in counts.items()}
        return {k: v for k, v in out.items() if v}
    return counts


def conditional(entry):
    return entry.method == "GET" and bool(entry.headers.get("if-none-match"))


def comment_list_reads(fake):
    return [r for r in fake.requests if r.method == "GET" and "/issues/" in r.path
            and r.path.endswith("/comments")]


def core_used(fake, token=TOKEN):
    """The token's core rate-limit use, from GET /rate_limit (which costs nothing)."""
    req = urllib.request.Request(fake.url + "/rate_limit", headers={
        "Authorization": f"token {token}", "User-Agent": "wait-tests",
        "Accept": "application/vnd.github+json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.load(resp)["resources"]["core"]["used"]


def script_requests(fake):
    """The log without the tests' own GET /rate_limit look-ups."""
    return [r for r in fake.requests if r.path != "/rate_limit"]


class OnPoll:
    """Run ``actions[n]`` when the n-th conditional GET reaches the fake, before it is answered.

    A poll is one conditional request on an issue (two on a pull request), so on an issue with
    a poll hint the n-th conditional request is the n-th poll."""

    def __init__(self, fake, actions=None):
        self.actions = dict(actions or {})
        self.count = 0
        self.results = {}
        self.entries = []
        self._lock = threading.Lock()
        fake.on_request(self)

    def __call__(self, entry):
        if not conditional(entry):
            return
        with self._lock:
            self.count += 1
            n = self.count
            self.entries.append(entry)
        action = self.actions.get(n)
        if action is not None:
            self.results[n] = action()


def seeded(fake, env, root, count=30):
    """An issue whose checkpoint (with its poll hint) is at its newest comment; log cleared."""
    history = fake.add_comments(OWNER, "hello", ISSUE, count)
    r = check(env, root)
    assert r.code == 0, r
    c = latest(env, root, "--confirm-updates", "--snapshot-id", r.json["snapshot_id"])
    assert c.code == 0 and c.json["state_updated"] is True, c
    fake.clear_log()
    return history


def human(fake, body="the reply", user="maintainer"):
    return lambda: fake.add_comment(OWNER, "hello", ISSUE, body, user=user,
                                    association="MEMBER")["id"]


def assert_no_page_read_twice(fake):
    """A page read in full (200) is never read again unchanged: each version once."""
    seen = set()
    for r in fake.requests:
        if r.method == "GET" and r.status == 200 and r.path != "/rate_limit":
            key = (r.path, tuple(sorted(r.query.items())), r.response_body)
            assert key not in seen, (f"read twice, unchanged: {r!r}; the log: "
                                     f"{[(q, q.headers.get('if-none-match')) for q in fake.requests]}")
            seen.add(key)


# -- idle waits: N polls are N conditional requests, all 304, free -------------------------------

def test_idle_wait_of_n_polls_is_n_conditional_requests_all_304_and_free(issue, root):
    env = script_env(issue, GH_MONITOR_TEST_TIME_SCALE=SLOW)
    history = seeded(issue, env, root)
    checkpoint = checkpoint_file(root).read_bytes()
    used = core_used(issue)
    started = time.monotonic()
    r = check(env, root, "--wait", 20, "--poll-interval", 5)
    elapsed = time.monotonic() - started
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is False and doc["new_comments"] == []
    assert 2 <= doc["polls"] <= 5  # at 0, 5, 10, 15 and the last at 20 (late ones skipped)
    assert doc["waited_seconds"] >= 19
    sent = script_requests(issue)
    assert len(sent) == doc["polls"] == doc["requests"]
    assert all(conditional(q) for q in sent), sent
    assert [q.status for q in sent] == [304] * doc["polls"]
    assert len({q.response_headers["x-ratelimit-remaining"] for q in sent}) == 1
    assert len({q.response_headers["x-ratelimit-used"] for q in sent}) == 1
    assert core_used(issue) == used  # 0 rate-limit points
    assert doc["recommended_checkpoint"]["last_comment_id"] == history[-1]
    assert doc["latest_comment"]["id"] == history[-1]
    assert checkpoint_file(root).read_bytes() == checkpoint
    assert json.loads(updates_file(root).read_text())["snapshot_id"] == doc["snapshot_id"]
    assert elapsed < 60


def test_wait_of_one_second_polls_at_the_start_and_at_the_end(issue, root):
    env = script_env(issue)  # real seconds: a scaled 1 s wait is shorter than one poll
    seeded(issue, env, root)
    r = check(env, root, "--wait", 1, "--poll-interval", 5)
    assert r.code == 0, r
    assert r.json["has_updates"] is False and r.json["polls"] == 2
    assert [q.status for q in script_requests(issue)] == [304, 304]


def test_wait_returns_at_once_when_a_comment_is_already_there(issue, env, root):
    seeded(issue, env, root)
    new = issue.add_comment(OWNER, "hello", ISSUE, "already here", user="bob")["id"]
    started = time.monotonic()
    r = check(env, root, "--wait", 3600, "--poll-interval", 5)
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is True and ids(doc["new_comments"]) == [new]
    assert doc["polls"] == 1 and doc["waited_seconds"] < 3600
    assert time.monotonic() - started < 30  # the whole wait would be 72 s
    assert doc["requests"] == len(script_requests(issue)) <= 2


# -- waking: at the poll that sees the arrival ---------------------------------------------------

@pytest.mark.parametrize("k", [2, 5])
def test_wait_wakes_at_the_poll_that_sees_the_arrival(issue, env, root, k):
    history = seeded(issue, env, root)
    hooks = OnPoll(issue, {k: human(issue)})
    started = time.monotonic()
    r = check(env, root, "--wait", 3600, "--poll-interval", 5)
    elapsed = time.monotonic() - started
    assert r.code == 0, r
    arrived = hooks.results[k]
    doc = r.json
    assert doc["has_updates"] is True
    assert ids(doc["new_comments"]) == [arrived]
    assert doc["new_comments"][0]["body"] == "the reply"
    assert doc["polls"] == k
    assert (k - 1) * 5 - 1 <= doc["waited_seconds"] < 3600
    assert doc["recommended_checkpoint"]["last_comment_id"] == arrived
    assert doc["previous_checkpoint"]["last_comment_id"] == history[-1]
    assert doc["latest_comment"]["id"] == arrived
    assert "interrupted" not in doc or doc["interrupted"] is False
    sent = script_requests(issue)
    assert [q.status for q in sent[: k - 1]] == [304] * (k - 1)
    assert sent[k - 1].status == 200 and conditional(sent[k - 1])
    assert len(sent) == doc["requests"] <= k + 1  # the changed probe, and at most one more read
    assert elapsed < 60  # woke long before the 72 s the whole wait would take


def test_wait_from_after_comment_id_without_checkpoint_wakes_on_arrival(issue, env, root):
    """Right after posting: the agent's comment id is the cursor; nothing is stored."""
    issue.add_comments(OWNER, "hello", ISSUE, 40)
    mine = issue.add_comment(OWNER, "hello", ISSUE, "my question", user="octocat")["id"]
    hooks = OnPoll(issue, {2: human(issue)})  # the first poll reads; the 3rd is the 2nd probe
    r = check(env, root, "--after-comment-id", mine, "--wait", 3600, "--poll-interval", 5)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_comments"]) == [hooks.results[2]]
    assert doc["polls"] == 3 and doc["has_updates"] is True
    assert doc["previous_checkpoint"]["last_comment_id"] == mine
    assert not checkpoint_file(root).exists()  # still read-only
    assert_no_page_read_twice(issue)


# -- whose comments wake it ----------------------------------------------------------------------

FILTERS = {
    "humans-only": (["--humans-only"], dict(user="ci-helper[bot]", user_type="Bot"),
                    "humans_only"),
    "ignore @me": (["--ignore-author", "@me"], dict(user="octocat"), "ignore_author"),
    "ignore a bare name": (["--ignore-author", "Renovate"],
                           dict(user="renovate[bot]", user_type="Bot"), "ignore_author"),
    "ignore a user": (["--ignore-author", "deploy-user"], dict(user="deploy-user"),
                      "ignore_author"),
}


@pytest.mark.parametrize("flags, author, reason", FILTERS.values(), ids=list(FILTERS))
def test_a_left_out_comment_does_not_wake_the_wait_a_later_human_one_does(
        issue, env, root, flags, author, reason):
    history = seeded(issue, env, root)

    def left_out():
        return issue.add_comment(OWNER, "hello", ISSUE, "automated note",
                                 association="MEMBER", **author)["id"]

    hooks = OnPoll(issue, {2: left_out, 4: human(issue)})
    r = check(env, root, "--wait", 3600, "--poll-interval", 5, *flags)
    assert r.code == 0, r
    skipped, reply = hooks.results[2], hooks.results[4]
    doc = r.json
    assert doc["polls"] == 4
    assert doc["has_updates"] is True and ids(doc["new_comments"]) == [reply]
    assert skipped < reply and skipped not in ids(doc["new_comments"])
    assert nonzero(doc["filtered_out"]) == {reason: 1}  # counted once, though seen twice
    assert doc["previous_checkpoint"]["last_comment_id"] == history[-1]
    assert doc["recommended_checkpoint"]["last_comment_id"] == reply
    assert_no_page_read_twice(issue)
    sent = script_requests(issue)
    assert [q.status for q in hooks.entries[:4]][::2] == [304, 304]  # polls 1 and 3: nothing
    assert len(sent) == doc["requests"] <= 4 + 2  # 4 probes, at most one more read per change
    assert [q.path for q in sent if q.path == "/user"] == (
        ["/user"] if "@me" in flags else [])


def test_only_left_out_arrivals_time_out_with_the_checkpoint_moved_past_them(issue, root):
    env = script_env(issue, GH_MONITOR_TEST_TIME_SCALE=SLOW)
    history = seeded(issue, env, root)
    bot = lambda: issue.add_comment(OWNER, "hello", ISSUE, "CI passed", user="ci-helper[bot]",
                                    user_type="Bot", association="NONE")["id"]
    hooks = OnPoll(issue, {2: bot, 3: bot})
    r = check(env, root, "--wait", 30, "--poll-interval", 5, "--humans-only")
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is False and doc["new_comments"] == []
    assert 3 <= doc["polls"] <= 7 and doc["waited_seconds"] >= 29
    assert nonzero(doc["filtered_out"]) == {"humans_only": 2}
    assert doc["previous_checkpoint"]["last_comment_id"] == history[-1]
    assert doc["recommended_checkpoint"]["last_comment_id"] == hooks.results[3]
    assert_no_page_read_twice(issue)
    # confirming moves past them; the next check finds nothing and reads nothing twice
    c = latest(env, root, "--confirm-updates", "--snapshot-id", doc["snapshot_id"])
    assert c.code == 0 and c.json["state_updated"] is True, c
    assert json.loads(checkpoint_file(root).read_text())["last_comment_id"] == hooks.results[3]
    r = check(env, root, "--humans-only")
    assert r.code == 0 and r.json["has_updates"] is False and r.json["new_comments"] == [], r
    assert nonzero(r.json["filtered_out"]) == {}


def test_a_burst_of_left_out_comments_larger_than_a_batch_hides_no_human_reply(issue, env,
                                                                               root):
    history = seeded(issue, env, root)

    def burst():
        bots = issue.add_comments(OWNER, "hello", ISSUE, 30, user="ci-helper[bot]",
                                  user_type="Bot")
        return bots, human(issue)()

    hooks = OnPoll(issue, {2: burst})
    r = check(env, root, "--wait", 3600, "--poll-interval", 5, "--humans-only", "--limit", 10)
    assert r.code == 0, r
    bots, reply = hooks.results[2]
    doc = r.json
    assert ids(doc["new_comments"]) == [reply] and doc["has_updates"] is True
    assert nonzero(doc["filtered_out"]) == {"humans_only": 30}
    assert doc["previous_checkpoint"]["last_comment_id"] == history[-1]
    assert doc["recommended_checkpoint"]["last_comment_id"] == reply
    assert doc["more_available"] is False
    assert_no_page_read_twice(issue)
    assert len(script_requests(issue)) == doc["requests"] <= 3  # 2 probes, at most 1 more read


def test_own_comment_posted_with_the_writer_does_not_wake_the_wait(issue, env, root):
    """The agent posts, then waits for the answer from after its own comment."""
    issue.add_comments(OWNER, "hello", ISSUE, 12)
    posted = run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--action", "create",
                        "--issue", ISSUE, "--body-file", "-", env=env, stdin=b"Which version?")
    assert posted.code == 0, posted
    mine, me = int(posted.json["commentId"]), posted.json["author"]
    assert me == "octocat"
    issue.clear_log()
    hooks = OnPoll(issue, {
        1: lambda: issue.add_comment(OWNER, "hello", ISSUE, "Also: which OS?", user=me)["id"],
        3: human(issue, "3.12 on Linux", user="reporter")})
    r = check(env, root, "--after-comment-id", mine, "--wait", 3600, "--poll-interval", 5,
              "--ignore-author", "@me")
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_comments"]) == [hooks.results[3]]
    assert doc["new_comments"][0]["author"] == "reporter"
    assert doc["polls"] == 4
    assert nonzero(doc["filtered_out"]) == {"ignore_author": 1}
    assert doc["recommended_checkpoint"]["last_comment_id"] == hooks.results[3]
    assert [q.path for q in issue.requests].count("/user") == 1
    assert_no_page_read_twice(issue)


# -- the updates file is written once, at the end ------------------------------------------------

def test_updates_file_is_written_once_at_the_end(issue, env, root):
    seeded(issue, env, root)
    before = updates_file(root).read_bytes()
    seen_during = []

    def look():
        seen_during.append(updates_file(root).read_bytes())

    def bot():
        look()
        return issue.add_comment(OWNER, "hello", ISSUE, "bot", user="x[bot]",
                                 user_type="Bot")["id"]

    def reply():
        look()
        return human(issue)()

    hooks = OnPoll(issue, {1: look, 2: bot, 3: look, 4: reply})
    r = check(env, root, "--wait", 3600, "--poll-interval", 5, "--humans-only")
    assert r.code == 0, r
    assert len(seen_during) == 4 and all(b == before for b in seen_during)
    stored = json.loads(updates_file(root).read_text())
    assert stored["snapshot_id"] == r.json["snapshot_id"] != json.loads(before)["snapshot_id"]
    assert ids(stored["new_comments"]) == ids(r.json["new_comments"]) == [hooks.results[4]]
    # and the round closes as usual
    c = latest(env, root, "--confirm-updates", "--snapshot-id", r.json["snapshot_id"])
    assert c.code == 0 and c.json["next_checkpoint"]["last_comment_id"] == hooks.results[4], c


# -- rate limits inside the wait -----------------------------------------------------------------

def test_a_rate_limit_whose_reset_falls_inside_the_remaining_wait_is_waited_out(issue, env,
                                                                                 root):
    seeded(issue, env, root)
    reset = []

    def limit_and_reply():
        reset.append(int(time.time()) + 3)
        issue.rate_limit(remaining=0, reset=reset[0])
        return human(issue)()

    hooks = OnPoll(issue, {2: limit_and_reply})
    # --max-wait 1 alone would give up on a 3 s reset: while waiting it is the remaining wait
    r = check(env, root, "--wait", 3600, "--poll-interval", 5, "--max-wait", 1)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_comments"]) == [hooks.results[2]]
    sent = script_requests(issue)
    statuses = [q.status for q in sent]
    assert statuses.count(403) == 1, statuses  # waited out once, not hammered
    after = sent[statuses.index(403) + 1]
    assert after.status == 200 and after.time >= reset[0], statuses


def test_a_rate_limit_whose_reset_falls_after_the_wait_is_exit_5_at_once(issue, env, root):
    seeded(issue, env, root)
    state = tree(root)
    reset = int(time.time()) + 7200
    OnPoll(issue, {2: lambda: issue.rate_limit(remaining=0, reset=reset)})
    started = time.monotonic()
    r = check(env, root, "--wait", 3600, "--poll-interval", 5)
    elapsed = time.monotonic() - started
    assert r.code == 5 and r.json["error"]["code"] == "rate_limited", r
    assert r.json["error"]["retry_after_seconds"] > 3600
    assert elapsed < 30  # at once: the wait had 70 s to go
    assert [q.status for q in script_requests(issue)] == [304, 403]
    assert tree(root) == state  # nothing written


# -- signals ---------------------------------------------------------------------------------

def _spawn_wait(env, root, *args):
    cmd = [SCRIPT_PYTHON, str(SCRIPTS / "check_issue_updates.py"), "--repo", REPOSITORY,
           "--issue", str(ISSUE), "--root", str(root), "--wait", "3600", "--poll-interval", "5",
           *[str(a) for a in args]]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)],
                         ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("moment", ["during-a-poll", "between-polls"])
def test_a_signal_mid_wait_prints_one_interrupted_document_and_changes_nothing(
        issue, env, root, sig, code, moment):
    history = seeded(issue, env, root)
    state = tree(root)
    third = threading.Event()
    OnPoll(issue, {3: third.set})
    proc = _spawn_wait(env, root)
    try:
        assert third.wait(60), "the wait never reached its third poll"
        if moment == "between-polls":
            deadline = time.monotonic() + 10
            while [q for q in issue.requests if conditional(q)][2].status is None:
                assert time.monotonic() < deadline
                time.sleep(0.005)
        started = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        ended = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, (out, err)
    doc = json.loads(out.decode())  # one whole JSON document
    assert isinstance(doc, dict) and "error" not in doc
    assert doc["interrupted"] is True and doc["snapshot_id"] is None
    assert doc["has_updates"] is False and doc["new_comments"] == []
    # (a poll cut short by the signal need not be counted)
    assert doc["polls"] >= 2 and doc["previous_checkpoint"]["last_comment_id"] == history[-1]
    assert ended < 20  # at once, not at the end of the 72 s wait
    assert tree(root) == state  # the updates file and the checkpoint as they were


# -- X-Poll-Interval ----------------------------------------------------------------------------

def test_x_poll_interval_larger_than_p_spaces_the_polls(issue, root):
    env = script_env(issue, GH_MONITOR_TEST_TIME_SCALE="0.05")  # polls 1 s apart
    seeded(issue, env, root)
    issue.poll_interval = 20
    try:
        r = check(env, root, "--wait", 60, "--poll-interval", 5)
    finally:
        issue.poll_interval = None
    assert r.code == 0, r
    assert 2 <= r.json["polls"] <= 4  # at 0, 20, 40 and 60, not 13 polls 5 s apart
    assert r.json["waited_seconds"] >= 59
    assert [q.status for q in script_requests(issue)] == [304] * r.json["polls"]


def test_x_poll_interval_smaller_than_p_does_not_hurry_the_polls(issue, root):
    env = script_env(issue, GH_MONITOR_TEST_TIME_SCALE="0.05")  # polls 0.5 s apart
    seeded(issue, env, root)
    issue.poll_interval = 1
    try:
        r = check(env, root, "--wait", 30, "--poll-interval", 10)
    finally:
        issue.poll_interval = None
    assert r.code == 0, r
    assert 2 <= r.json["polls"] <= 4  # at 0, 10, 20 and 30
    assert r.json["waited_seconds"] >= 29
    assert [q.status for q in script_requests(issue)] == [304] * r.json["polls"]


# -- usage and credentials ----------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["--wait", "0"], ["--wait", "3601"], ["--wait", "-1"], ["--wait", "abc"], ["--wait", ""],
    ["--wait", "60", "--poll-interval", "4"], ["--wait", "60", "--poll-interval", "0"],
    ["--wait", "60", "--poll-interval", "abc"],
], ids=lambda a: " ".join(a) or "empty")
def test_bad_wait_values_are_usage_errors_that_send_and_write_nothing(issue, env, root, args):
    seeded(issue, env, root)
    state = tree(root)
    r = check(env, root, *args)
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    assert "--wait" in r.json["error"]["message"] or "--poll-interval" in \
        r.json["error"]["message"]
    assert issue.requests == []
    assert tree(root) == state


def test_wait_without_a_cursor_is_a_usage_error_naming_both(issue, env, root):
    issue.add_comments(OWNER, "hello", ISSUE, 5)
    r = check(env, root, "--wait", 60)
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    message = r.json["error"]["message"]
    assert "--after-comment-id" in message and "checkpoint" in message.lower()
    assert issue.requests == []
    assert list(root.iterdir()) == []


def test_wait_without_a_token_is_an_auth_error(issue, root, tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    history = issue.add_comments(OWNER, "hello", ISSUE, 5)
    env = clean_env(GITHUB_API_URL=issue.url, HOME=str(home), GH_CONFIG_DIR=str(home),
                    PATH="/usr/bin:/bin", GH_MONITOR_TEST_TIME_SCALE=SCALE)
    r = check(env, root, "--after-comment-id", history[-1], "--wait", 60)
    assert r.code == 3 and r.json["error"]["code"] == "auth", r
    assert issue.requests == []
    assert list(root.iterdir()) == []


def test_wait_without_a_token_leaves_a_stored_checkpoint_alone(issue, env, root,
                                                               tmp_path_factory):
    seeded(issue, env, root)
    state = tree(root)
    home = tmp_path_factory.mktemp("home")
    bare = clean_env(GITHUB_API_URL=issue.url, HOME=str(home), GH_CONFIG_DIR=str(home),
                     PATH="/usr/bin:/bin", GH_MONITOR_TEST_TIME_SCALE=SCALE)
    r = check(bare, root, "--wait", 60)
    assert r.code == 3 and r.json["error"]["code"] == "auth", r
    assert issue.requests == [] and tree(root) == state


# -- progress on stderr -------------------------------------------------------------------------

def _progress_lines(run):
    return [line for line in run.stderr.splitlines()
            if line.strip() and not line.startswith("warning:")]


def test_progress_is_one_line_at_the_start_and_one_at_the_end(issue, root):
    env = script_env(issue, GH_MONITOR_TEST_TIME_SCALE=SLOW)
    seeded(issue, env, root)
    r = check(env, root, "--wait", 20, "--poll-interval", 5)  # up to 5 polls, stderr a pipe
    assert r.code == 0 and r.json["polls"] >= 2, r
    assert r.json["warnings"] == []
    assert len(_progress_lines(r)) == 2, r.stderr
    assert r.stderr.count("\n") == 2 and "\r" not in r.stderr


def test_progress_when_the_wait_wakes_is_two_lines_too(issue, env, root):
    seeded(issue, env, root)
    OnPoll(issue, {6: human(issue)})
    r = check(env, root, "--wait", 3600, "--poll-interval", 5)
    assert r.code == 0 and r.json["polls"] == 6 and r.json["has_updates"] is True, r
    assert len(_progress_lines(r)) == 2, r.stderr
    assert "\r" not in r.stderr


def test_on_a_terminal_the_status_line_is_rewritten_in_place(issue, env, root):
    seeded(issue, env, root)
    OnPoll(issue, {6: human(issue)})
    master, slave = os.openpty()
    cmd = [SCRIPT_PYTHON, str(SCRIPTS / "check_issue_updates.py"), "--repo", REPOSITORY,
           "--issue", str(ISSUE), "--root", str(root), "--wait", "3600", "--poll-interval", "5"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    chunks = []

    def drain():
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the other side is closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(10)
    os.close(master)
    assert proc.returncode == 0 and json.loads(out)["polls"] == 6
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode("utf-8", "replace"))
    lines = [line for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    assert len(lines) == 2, text  # the start line, then one line rewritten in place
    shown = [part for part in lines[1].split("\r") if part.strip()]
    assert len(shown) >= 2, text  # at least one status, then the end line over it


# -- pull-request rounds ------------------------------------------------------------------------

@pytest.fixture
def pull(fake):
    fake.add_repo(OWNER, "hello")
    fake.add_pull(OWNER, "hello", PR)
    fake.add_comments(OWNER, "hello", PR, 6)
    fake.add_review(OWNER, "hello", PR, "carol", "CHANGES_REQUESTED", body="Please fix")
    fake.add_review_thread(OWNER, "hello", PR, "src/a.py", line=3,
                           comments=[{"user": "carol", "body": "here"}])
    return fake


def pr_round(fake, env, root):
    """A PR round checked and confirmed: the checkpoint holds both cursors; log cleared."""
    r = check(env, root, number=("--pr", PR))
    assert r.code == 0, r
    c = latest(env, root, "--confirm-updates", "--snapshot-id", r.json["snapshot_id"],
               number=("--pr", PR))
    assert c.code == 0 and c.json["state_updated"] is True, c
    fake.clear_log()
    return r.json


def pr_state_file(root):
    return root / STATE / "octo-hello-7-pr.json"


def test_pr_idle_wait_polls_are_two_conditional_requests_all_304(pull, root):
    env = script_env(pull, GH_MONITOR_TEST_TIME_SCALE=SLOW)
    pr_round(pull, env, root)
    checkpoint = pr_state_file(root).read_bytes()
    used = core_used(pull)
    r = check(env, root, "--wait", 20, "--poll-interval", 5, number=("--pr", PR))
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is False and 2 <= doc["polls"] <= 5
    assert doc["new_comments"] == doc["new_reviews"] == doc["new_review_comments"] == []
    sent = script_requests(pull)
    assert len(sent) == 2 * doc["polls"] == doc["requests"]
    assert all(conditional(q) and q.status == 304 for q in sent), sent
    assert core_used(pull) == used
    assert pr_state_file(root).read_bytes() == checkpoint


def test_pr_wait_wakes_at_the_poll_that_sees_a_new_review(pull, env, root):
    pr_round(pull, env, root)
    k = 3

    def review():
        return pull.add_review(OWNER, "hello", PR, "dave", "APPROVED", body="LGTM")["id"]

    hooks = OnPoll(pull, {2 * k - 1: review})  # before the first request of poll k
    r = check(env, root, "--wait", 3600, "--poll-interval", 5, number=("--pr", PR))
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is True and doc["polls"] == k
    assert ids(doc["new_reviews"]) == [hooks.results[2 * k - 1]]
    assert doc["new_comments"] == [] and doc["new_review_comments"] == []
    sent = script_requests(pull)
    assert all(q.status == 304 for q in sent[: 2 * (k - 1)])
    assert len(sent) == doc["requests"] <= 2 * k + 2


def test_pr_wait_ignores_a_bot_review_and_wakes_on_a_human_comment(pull, env, root):
    pr_round(pull, env, root)

    def bot_review():
        return pull.add_review(OWNER, "hello", PR, "coderabbitai[bot]", "COMMENTED",
                               body="Summary of changes", user_type="Bot")["id"]

    def reply():
        return pull.add_comment(OWNER, "hello", PR, "Fixed, thanks", user="carol",
                                association="MEMBER")["id"]

    hooks = OnPoll(pull, {3: bot_review, 7: reply})  # polls 2 and 4
    r = check(env, root, "--wait", 3600, "--poll-interval", 5, "--humans-only",
              number=("--pr", PR))
    assert r.code == 0, r
    doc = r.json
    assert doc["polls"] == 4
    assert ids(doc["new_comments"]) == [hooks.results[7]] and doc["new_reviews"] == []
    assert nonzero(doc["filtered_out"]) == {"reviews": {"humans_only": 1}}
    assert doc["recommended_checkpoint"]["reviews"]["last_review_id"] == hooks.results[3]
    assert_no_page_read_twice(pull)


def test_pr_wait_without_a_checkpoint_is_a_usage_error(pull, env, root):
    r = check(env, root, "--wait", 60, number=("--pr", PR))
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    assert pull.requests == [] and list(root.iterdir()) == []
