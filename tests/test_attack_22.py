"""A fresh reviewer's attack on issue 22's inbox (CONTRACT section 18): each test proves a defect
found against the fake GitHub, as agents run the scripts (subprocesses), and stays as its
regression test. Request counts and files are read from the fake's log and the work folder."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from tests.support import (
    NAME,
    OWNER,
    SCRIPT_PYTHON,
    SCRIPTS,
    Agent,
    inbox,
    latest,
    run_script,
    script_env,
    state_dir,
)
from tests.test_shell_fallback import assert_error, run_sh, sh_env  # noqa: F401 (a fixture)

A, K, Z = 2, 5, 9  # key order: A before K; Z only pushes inbox snapshots out
KEY = {n: f"{OWNER}/{NAME}/issues/{n}" for n in (A, K, Z)}


@pytest.fixture
def gh(fake):
    fake.add_repo(OWNER, NAME)
    for n in (A, K, Z):
        fake.add_issue(OWNER, NAME, n)
        fake.add_comments(OWNER, NAME, n, 2)
    return fake


def hold_lock(path):
    """Another process holding a round's lock until it is killed."""
    holder = subprocess.Popen(
        [SCRIPT_PYTHON, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'a'); "
         "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(120)",
         str(path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def opened(pid, path, timeout=60.0):
    """Wait until process `pid` holds `path` open (it is waiting for that lock)."""
    deadline = time.monotonic() + timeout
    target = os.path.realpath(path)
    while time.monotonic() < deadline:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                        return True
                except OSError:
                    continue
        except FileNotFoundError:
            return False
        time.sleep(0.02)
    return False


# --------------------------------------------------------------------------- defect 1

def test_a_confirm_whose_snapshot_left_the_inbox_file_while_it_waited_changes_nothing(
        gh, tmp_path):
    """The confirm reads snapshot S, then waits for a round lock; meanwhile the agent unfollows
    a round of S (marking S) and 4 newer inbox checks push S out of the kept 4. Under the
    locks, S is no longer kept: the confirm must not apply the entries it read before (that
    recreates the unfollowed round, from a snapshot the inbox no longer holds)."""
    r = inbox(gh, tmp_path, "--follow", KEY[A], "--follow", KEY[K])
    assert r.code == 0, r
    s = r.json["snapshot_id"]
    a, k = Agent(gh, tmp_path, "--issue", A), Agent(gh, tmp_path, "--issue", K)
    lock = state_dir(tmp_path) / f".{OWNER}-{NAME}-{A}.lock"
    holder = hold_lock(lock)
    confirm = None
    try:
        confirm = subprocess.Popen(
            [SCRIPT_PYTHON, str(SCRIPTS / "get_latest_comments.py"), "--root", str(tmp_path),
             "--followed", "--confirm-updates", "--snapshot-id", s],
            env=script_env(gh), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert opened(confirm.pid, lock), "the confirm never reached A's lock"
        u = latest(gh, tmp_path, "--unfollow", KEY[K])
        assert u.code == 0 and u.json["inbox_snapshots_marked"] == 1, u
        for _ in range(4):
            z = inbox(gh, tmp_path, "--follow", KEY[Z])
            assert z.code == 0, z
        kept = json.loads((state_dir(tmp_path) / "inbox-updates.json").read_text())
        assert s not in [x["snapshot_id"] for x in kept["snapshots"]]
    finally:
        holder.kill()
        holder.wait()
        out, err = confirm.communicate(timeout=60) if confirm else (b"", b"")
    assert confirm.returncode == 7, (out, err)
    assert not k.file().exists(), "the unfollowed round was recreated"
    assert not a.file().exists()


# --------------------------------------------------------------------------- defect 2

def test_an_unfollow_during_a_wait_drops_a_round_that_started_from_a_comment_url(gh, tmp_path):
    """K is followed from a comment's URL (no checkpoint: the URL's #issuecomment-ID is its
    cursor) and has an updates file from an earlier inbox check. The agent unfollows K while a
    wait runs (its files removed), then K gets a reply. The wait must drop K as it drops a
    round with a checkpoint (listed in `unfollowed`, nothing of K written), else confirming the
    wait's snapshot recreates the round the agent dropped."""
    first = gh.add_comment(OWNER, NAME, K, "my question", user="octocat")["id"]
    url = f"{gh.url}/{OWNER}/{NAME}/issues/{K}#issuecomment-{first}"
    b = inbox(gh, tmp_path, "--follow", KEY[A])
    assert b.code == 0, b
    assert latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                  b.json["snapshot_id"]).code == 0
    r = inbox(gh, tmp_path, "--follow", url)  # an earlier look: K's updates file, no checkpoint
    assert r.code == 0 and r.json["quiet"] == [KEY[K]], r
    k = Agent(gh, tmp_path, "--issue", K)
    assert k.file("updates").exists() and not k.file().exists()
    gh.clear_log()
    env = script_env(gh, GH_MONITOR_TEST_TIME_SCALE="0.1")
    waiting = subprocess.Popen(
        [SCRIPT_PYTHON, str(SCRIPTS / "check_issue_updates.py"), "--root", str(tmp_path),
         "--follow", url, "--followed", "--wait", "120", "--poll-interval", "5"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while len(gh.requests) < 2 and time.monotonic() < deadline:  # its first poll is done
            time.sleep(0.05)
        assert len(gh.requests) >= 2, gh.requests
        u = run_script("get_latest_comments.py", "--unfollow", url, "--root", tmp_path,
                       env=script_env(gh))
        assert u.code == 0 and str(k.file("updates")) in u.json["removed"], u
        gh.add_comment(OWNER, NAME, K, "a reply nobody follows any more", user="bob")
        out, err = waiting.communicate(timeout=120)
    finally:
        if waiting.poll() is None:
            waiting.kill()
            waiting.wait()
    assert waiting.returncode == 0, err
    doc = json.loads(out)
    assert doc["unfollowed"] == [KEY[K]], doc
    assert KEY[K] not in [c["key"] for c in doc["conversations"]] + doc["quiet"]
    assert not k.file("updates").exists() and not k.file().exists()
    if doc["snapshot_id"]:
        c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   doc["snapshot_id"])
        assert c.code == 0, c
    assert not k.file().exists(), "the unfollowed round was recreated"


# --------------------------------------------------------------------------- defect 3

def test_a_repository_blocked_for_legal_reasons_is_that_rounds_error(gh, tmp_path):
    """GitHub answers 451 "Repository access blocked" for every request into a repository
    taken down (a DMCA notice: github/rest-api-description#3314, python-github-backup#163).
    That belongs to the rounds of that repository: the others are read (exit 0). It was a
    usage error (exit 2) that ended the whole inbox."""
    fake = gh
    fake.add_repo(OWNER, "blocked")
    fake.add_issue(OWNER, "blocked", 1)
    fake.inject(path=f"^/repos/{OWNER}/blocked/", status=451, times=None,
                body={"message": "Repository access blocked",
                      "block": {"reason": "dmca", "created_at": "2021-04-22T17:53:56Z"}})
    r = inbox(fake, tmp_path, "--follow", f"{OWNER}/blocked#1", "--follow", KEY[A])
    assert r.code == 0, r
    assert [(e["key"], e["error"]["code"], e["error"]["status"]) for e in r.json["errors"]] == [
        (f"{OWNER}/blocked/issues/1", "not_found", 451)]
    assert [c["key"] for c in r.json["conversations"]] == [KEY[A]]
    # alone, the round is exit 4 (not found: unavailable to this token), not a usage error
    one = run_script("check_issue_updates.py", "--root", tmp_path, "--repo", f"{OWNER}/blocked",
                     "--issue", 1, env=script_env(fake))
    assert one.code == 4 and one.json["error"]["status"] == 451, one


def test_the_shell_fallback_says_not_found_for_a_blocked_repository(fake, sh_env):  # noqa: F811
    """The same 451 through gh and jq: exit 4 `not_found` as the Python path (it was exit 6
    `server`)."""
    env = sh_env
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, 7, title="t")
    fake.inject(path=f"^/repos/{OWNER}/{NAME}/", status=451, times=None,
                body={"message": "Repository access blocked"})
    assert_error(run_sh(env, "--repo", f"{OWNER}/{NAME}", "--pr", 7), 4, "not_found", 451)


# --------------------------------------------------------------------------- defect 4

def test_max_total_on_a_first_look_pull_request_never_passes_its_newest_comment(fake, tmp_path):
    """A pull-request round without a checkpoint, `--max-total 1`: its newest review comes (a
    review is never cut), and its conversation got no unit. Its conversation cursor must not
    pass the newest comment that was not returned (it jumped to it, `more_available: false`,
    the comment never shown); the round holds more (`more_in`), and the next checks bring it."""
    from tests.test_inbox import review

    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, 7, title="PR 7")
    comments = fake.add_comments(OWNER, NAME, 7, 2)
    fake.review_order = "id"
    rid, cids = review(fake, 7, 1)
    key = f"{OWNER}/{NAME}/pull/7"
    seen, docs = [], []
    while True:
        r = inbox(fake, tmp_path, "--follow", key, "--max-total", 1)
        assert r.code == 0, r
        docs.append(r.json)
        if not r.json["has_updates"]:
            break
        (c,) = r.json["conversations"]
        seen += [("c", x["id"]) for x in c["new_comments"]]
        seen += [("r", x["id"]) for x in c["new_reviews"]]
        seen += [("rc", x["id"]) for x in c["new_review_comments"]]
        done = latest(fake, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                      r.json["snapshot_id"])
        assert done.code == 0, done
        assert len(docs) < 6
    first = docs[0]["conversations"][0]
    assert [x["id"] for x in first["new_reviews"]] == [rid]
    assert first["new_comments"] == [] and first["more_available"] is True, first
    assert docs[0]["more_in"] == [key]
    assert len(seen) == len(set(seen)), "an item returned twice"
    assert ("c", comments[-1]) in seen, "the newest comment was passed, never returned"
    assert {("r", rid)} | {("rc", i) for i in cids} <= set(seen)


# --------------------------------------------------------------------------- defect 5

@pytest.mark.parametrize("key", ["../../escape/issues/1", "Octo/Hello/issues/2",
                                 "octo/hello/issues/02", "octo/hello#2", "octo/hello/pulls/2"])
def test_an_inbox_file_naming_a_round_by_no_key_is_corrupt_and_left_as_it_is(gh, tmp_path, key):
    """The inbox file names rounds by key. One that is not a key as the inbox writes it (a
    path, another spelling) is a corrupt state file: exit 7, reported, nothing changed. It was
    parsed as a REF: exit 2 `usage` for a malformed REF the agent never typed, or a round
    confirmed under a key no inbox wrote."""
    r = inbox(gh, tmp_path, "--follow", KEY[A])
    assert r.code == 0, r
    path = state_dir(tmp_path) / "inbox-updates.json"
    doc = json.loads(path.read_text())
    doc["snapshots"][0]["rounds"][0]["key"] = key
    path.write_text(json.dumps(doc))
    before = path.read_bytes()
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 7 and c.json["error"]["code"] == "state", c
    assert "corrupt" in c.json["error"]["message"]
    assert path.read_bytes() == before
    assert not Agent(gh, tmp_path, "--issue", A).file().exists()
