"""The round engine attacked (CONTRACT section 14): the cases an adversarial review proved
against the first cut of the engine, kept so they stay fixed — the owner's draft in the window
the "appended" shortcut moves on from, a signal while the document is printed or right after
start, polls while GitHub fails large pages, X-Poll-Interval beyond any wait, malformed private
files — and the cases it tried and ruled out.

Each test drives the scripts as an agent does (subprocesses against the fake GitHub).
"""

# ruff: noqa: F811  (the fixtures imported from test_round_engine are parameters here)
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from tests.support import NAME, OWNER, SCRIPT_PYTHON, SCRIPTS, Agent, state_dir

# the same issue, pull request and agents as tests/test_round_engine.py
from tests.test_round_engine import (  # noqa: E402,F401  (fixtures)
    ISSUE,
    PR,
    TOKEN_OWNER,
    agent,
    ids,
    issue,
    pr,
    pr_agent,
)


def quick_review(fake, user="bob", state="COMMENTED", body="Please see the notes."):
    """A review submitted now (no inline comments), the clock moved on a little."""
    rid = fake.add_review(OWNER, NAME, PR, user, state, body=body)["id"]
    fake.advance(5)
    return rid


def check_ok(a: Agent, *args):
    r = a.check(*args)
    assert r.code == 0, r
    return r.json


def confirm_ok(a: Agent, doc):
    c = a.confirm(doc["snapshot_id"])
    assert c.code == 0, c
    return c.json


# -- the "appended" shortcut: the owner's draft held in the room window ------------------------

def test_owners_draft_in_room_window_submitted_after_appends_fill_it(pr_agent, pr):
    """The owner's draft sits in the window with room (so it has no probe of its own). 98
    reviews are appended: the room window fills, the appended read moves the room probe to
    the next window and drops the draft's window. The owner then submits the draft in place
    (id order): no probe covers it, so every later poll is a 304 and it is never returned."""
    first = quick_review(pr)
    draft = pr.start_review(OWNER, NAME, PR, TOKEN_OWNER, body="my draft")["id"]
    pr.advance(5)
    d = check_ok(pr_agent)
    assert ids(d["new_reviews"]) == [first]
    confirm_ok(pr_agent, d)
    made = [quick_review(pr, user=f"u{i % 5}") for i in range(98)]
    d = check_ok(pr_agent, "--limit", 100)
    assert ids(d["new_reviews"]) == made
    confirm_ok(pr_agent, d)
    pr.submit_review(draft, state="COMMENTED", body="my review, now submitted")
    pr.advance(5)
    d = check_ok(pr_agent)
    assert ids(d["new_reviews"]) == [draft], (d["new_reviews"], pr_agent.statuses())


def test_owners_draft_after_appends_is_lost_for_good(pr_agent, pr):
    """The same sequence, continued as an agent would: later reviews come (appended, then a
    dismissal forces a full read of the list); the owner's submitted review is never in any
    check, and the checkpoint has passed it."""
    quick_review(pr)
    draft = pr.start_review(OWNER, NAME, PR, TOKEN_OWNER, body="my draft")["id"]
    approve = quick_review(pr, user="erin", state="APPROVED", body="ok")
    pr_agent.look_and_confirm()
    [quick_review(pr, user=f"u{i % 5}") for i in range(97)]
    pr_agent.look_and_confirm("--limit", 100)
    pr.submit_review(draft, state="CHANGES_REQUESTED", body="please fix the parser")
    returned = []
    for step in range(3):
        pr.advance(3600 * 2)
        if step == 0:
            quick_review(pr, user="carol")
        elif step == 1:
            pr.dismiss_review(approve, "stale")
        d = check_ok(pr_agent, "--limit", 100)
        returned += ids(d["new_reviews"])
        confirm_ok(pr_agent, d)
    assert draft in returned, returned


def test_late_review_and_discarded_owner_draft_cancel_out_after_appends(pr_agent, pr):
    """Bob's review, started early (small id), is submitted late while the owner discards a
    draft listed before the probe window (its window lost its probe in the appended read):
    the probe window's content is exactly as it was, the poll is a 304 and bob's review is
    not returned."""
    quick_review(pr)
    bobs = pr.start_review(OWNER, NAME, PR, "bob", body="early draft")["id"]
    draft = pr.start_review(OWNER, NAME, PR, TOKEN_OWNER, body="my draft")["id"]
    pr.advance(5)
    pr_agent.look_and_confirm()
    [quick_review(pr, user=f"u{i % 5}") for i in range(98)]
    pr_agent.look_and_confirm("--limit", 100)
    pr.delete_pending_review(draft)
    pr.submit_review(bobs, state="CHANGES_REQUESTED", body="please fix the parser")
    pr.advance(5)
    d = check_ok(pr_agent)
    assert ids(d["new_reviews"]) == [bobs], (d["new_reviews"], pr_agent.statuses())


# -- signals: one whole document ------------------------------------------------------------------

def _spawn(a: Agent, *args, env=None):
    cmd = [SCRIPT_PYTHON, str(SCRIPTS / args[0]), "--repo", f"{OWNER}/{NAME}", a.flag,
           str(a.number), "--root", str(a.root), *map(str, args[1:])]
    return subprocess.Popen(cmd, env=env or a.env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _blocked_on_stdout(proc, seconds=60.0):
    """Wait until the process sleeps in a write to its (full, unread) stdout pipe."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError("exited before filling its stdout pipe")
        try:
            with open(f"/proc/{proc.pid}/wchan") as fh:
                if "pipe" in fh.read():
                    time.sleep(0.2)
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise AssertionError("never blocked on stdout")


def _one_document(out: bytes):
    text = out.decode()
    try:
        return json.loads(text)
    except ValueError as exc:
        raise AssertionError(f"stdout is not one JSON document ({exc}); it ends with "
                             f"{text[-300:]!r}") from None


@pytest.mark.parametrize("args", [
    ["--all"],
    ["--since-comment-id", "FIRST", "--update-state"],
])
def test_a_signal_while_the_document_is_printed_gives_one_whole_document(agent, issue, args):
    """A big document blocks on a full stdout pipe (an agent's harness reading slowly); a
    SIGTERM lands while it is printed, with nothing written (no commit point was reached)."""
    made = issue.add_comments(OWNER, NAME, ISSUE, 100, body=lambda i: "x" * 2000)
    agent.look_and_confirm("--limit", 100)
    args = [str(made[0]) if a == "FIRST" else a for a in args]
    before = {p.name: p.read_bytes() for p in state_dir(agent.root).glob("*.json")}
    proc = _spawn(agent, "get_latest_comments.py", *args)
    _blocked_on_stdout(proc)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    after = {p.name: p.read_bytes() for p in state_dir(agent.root).glob("*.json")}
    assert after == before
    doc = _one_document(out)
    assert proc.returncode == (143 if doc.get("interrupted") else 0), (proc.returncode, err)


def test_a_signal_while_an_already_applied_confirm_prints_gives_one_document(agent, issue):
    """The agent's harness reads stdout slowly (its pipe is full when the confirm prints).
    The confirm is already applied and writes nothing: a SIGTERM while it prints."""
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    d = agent.look_and_confirm()
    rfd, wfd = os.pipe()
    os.set_blocking(wfd, False)
    filler = 0
    try:
        while True:
            filler += os.write(wfd, b"." * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(wfd, True)
    cmd = [SCRIPT_PYTHON, str(SCRIPTS / "get_latest_comments.py"), "--repo", f"{OWNER}/{NAME}",
           "--issue", str(ISSUE), "--root", str(agent.root), "--confirm-updates",
           "--snapshot-id", d["snapshot_id"]]
    proc = subprocess.Popen(cmd, env=agent.env, stdout=wfd, stderr=subprocess.PIPE)
    os.close(wfd)
    try:
        _blocked_on_stdout(proc)
        proc.send_signal(signal.SIGTERM)
        chunks = []
        while True:
            chunk = os.read(rfd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=60)
    finally:
        os.close(rfd)
    out = b"".join(chunks)[filler:]
    doc = _one_document(out)
    assert proc.returncode == (143 if doc.get("interrupted") else 0), proc.returncode


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_right_after_start_gives_the_interrupted_document(agent, issue, sig):
    """`timeout` or a harness that stops a check as soon as it started: before anything is
    written, so the interrupted document and 130/143 are due."""
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    agent.look_and_confirm()
    proc = _spawn(agent, "check_issue_updates.py")
    # From the moment the bundle's helper is loaded (its first statement notes signals) —
    # before that the interpreter is still starting and no program can answer a signal.
    mask = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        with open(f"/proc/{proc.pid}/status") as fh:
            caught = int(fh.read().split("SigCgt:")[1].split()[0], 16)
        if caught & mask == mask:
            break
        time.sleep(0.001)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == (143 if sig == signal.SIGTERM else 130), (proc.returncode, out, err[-300:])
    assert _one_document(out)["interrupted"] is True


# -- hints are a cache ------------------------------------------------------------------------------

def test_hints_inside_an_old_checkpoint_are_ignored_with_a_warning(agent, issue):
    """Section 14: hints inside a checkpoint written by an older version are ignored "the
    same way" as an unusable hint: with a warning."""
    made = issue.add_comments(OWNER, NAME, ISSUE, 3)
    agent.look_and_confirm()
    cp = json.loads(agent.file().read_text())
    cp["poll_hint"] = {"comment_id": made[-1], "offset": 2, "page": 1, "per_page": 100,
                       "etag": 'W/"old"', "latest": None}
    agent.file().write_text(json.dumps(cp))
    agent.file("hints").unlink()
    r = agent.check()
    assert r.code == 0, r
    assert any("hint" in w for w in r.json["warnings"]), r.json["warnings"]


# -- malformed private files: never exit 1, a corrupt cursor is exit 7 ---------------------------

@pytest.mark.parametrize("bad", ["x", 5, [1]])
def test_a_pr_updates_file_with_a_malformed_conversation_cursor_is_not_exit_1(pr_agent, pr, bad):
    quick_review(pr)
    pr_agent.look_and_confirm()
    pr.add_comments(OWNER, NAME, PR, 1)
    r = pr_agent.check()
    upd = json.loads(pr_agent.file("updates").read_text())
    upd["recommended_checkpoint"]["conversation"] = bad
    pr_agent.file("updates").write_text(json.dumps(upd))
    c = pr_agent.confirm(r.json["snapshot_id"])
    assert c.code == 7, c


@pytest.mark.parametrize("bad", ["x", 5])
def test_an_updates_file_with_a_corrupt_recommended_checkpoint_is_not_already_applied(
        agent, issue, bad):
    """A corrupt cursor in the updates file: the confirm says "already applied" (exit 0),
    the checkpoint stays where it was, and the next check returns the same comments again
    (the agent, told its confirm succeeded, handles them twice)."""
    issue.add_comments(OWNER, NAME, ISSUE, 2)
    agent.look_and_confirm()
    new = issue.add_comments(OWNER, NAME, ISSUE, 2)
    r = agent.check()
    assert ids(r.json["new_comments"]) == new
    upd = json.loads(agent.file("updates").read_text())
    upd["recommended_checkpoint"] = bad
    agent.file("updates").write_text(json.dumps(upd))
    c = agent.confirm(r.json["snapshot_id"])
    assert c.code == 7, c


def test_a_review_cursor_with_an_unreadable_time_is_a_corrupt_cursor(pr_agent, pr):
    """`last_submitted_at` that is not a time passes the checkpoint's validation; it is then
    read as the zero cursor and every review is returned again."""
    quick_review(pr)
    pr_agent.look_and_confirm()
    cp = json.loads(pr_agent.file().read_text())
    cp["reviews"]["last_submitted_at"] = "yesterday"
    pr_agent.file().write_text(json.dumps(cp))
    pr_agent.file("hints").unlink()
    r = pr_agent.check()
    assert r.code == 7 or ids(r.json["new_reviews"]) == [], r


# -- polls settle: large pages read in halves -----------------------------------------------------

def test_review_list_read_in_halves_still_settles_to_304s(pr_agent, pr):
    """GitHub answers 5xx to per_page=100 on the review list where 50 works (section 12's
    large pages): nothing changes, the agent confirms, yet every later poll reads the whole
    list again (its last page, read in halves, leaves no probe): 17 requests, 200s and 502s,
    forever."""
    for i in range(120):
        quick_review(pr, user=f"u{i % 5}")
    pr.fail_large_pages(r"/pulls/\d+/reviews$", at_least=100)
    try:
        pr_agent.look_and_confirm("--max-wait", 0, "--limit", 200)
        pr_agent.look_and_confirm("--max-wait", 0)
        r = pr_agent.check("--max-wait", 0)
    finally:
        pr.clear_faults()
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert set(pr_agent.statuses()) == {304} and len(pr.requests) <= 3, pr_agent.statuses()


# -- ruled out (these pass): the commit point of --update-state, confirm and --wait --------------

def _spawn_paused(a: Agent, *args, pause: str):
    return _spawn(a, *args, env=dict(a.env, GH_MONITOR_TEST_WRITE_PAUSE=pause))


@pytest.mark.parametrize("cmd", ["update-state", "confirm", "wait"])
# renamed:2: the process sleeps 2 s after each committed rename (the test's 20 ms loop sends the
# signal inside the first); 6 s made the update-state and confirm cases 12 s each
@pytest.mark.parametrize("pause,after", [("write:30", False), ("renamed:2", True)])
def test_ruled_out_signal_at_each_side_of_the_commit_point(agent, issue, cmd, pause, after):
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    agent.look_and_confirm()
    issue.add_comments(OWNER, NAME, ISSUE, 2)
    if cmd == "update-state":
        args = ["get_latest_comments.py", "--update-state"]
    elif cmd == "confirm":
        d = agent.check().json
        args = ["get_latest_comments.py", "--confirm-updates", "--snapshot-id", d["snapshot_id"]]
    else:
        args = ["check_issue_updates.py", "--wait", 5]
    before = {p.name: p.read_bytes() for p in state_dir(agent.root).glob("*.json")}
    proc = _spawn_paused(agent, *args, pause=pause)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        now = {p.name: p.read_bytes() for p in state_dir(agent.root).glob("*.json")}
        tmp = list(state_dir(agent.root).glob(".*tmp-*"))
        if (after and now != before) or (not after and tmp):
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    doc = _one_document(out)
    assert list(state_dir(agent.root).glob(".*tmp-*")) == []
    if after:
        assert proc.returncode == 0 and "interrupted" not in doc, (proc.returncode, doc)
    else:
        assert proc.returncode == 143 and doc["interrupted"] is True, (proc.returncode, doc)
        now = {p.name: p.read_bytes() for p in state_dir(agent.root).glob("*.json")}
        assert now == before


# -- waits: X-Poll-Interval ------------------------------------------------------------------------

@pytest.mark.parametrize("told", [4000])
def test_a_poll_interval_longer_than_any_wait_is_still_honoured(agent, issue, told):
    """Section 13: P is raised to any X-Poll-Interval GitHub sends. One above 3600 s is
    dropped as if GitHub had sent none, and the wait polls every P seconds."""
    issue.add_comments(OWNER, NAME, ISSUE, 2)
    agent.look_and_confirm()
    env = dict(agent.env, GH_MONITOR_TEST_TIME_SCALE="0.05")
    issue.poll_interval = told
    try:
        r = agent.check("--wait", 20, "--poll-interval", 5, env=env)
    finally:
        issue.poll_interval = None
    assert r.code == 0, r
    assert r.json["polls"] == 1, r.json  # no second poll may come within `told` seconds


# -- ruled out (these pass): a read under one filter never hides an item from another ---------

@pytest.mark.parametrize("wait", [False, True])
def test_ruled_out_a_filtered_read_does_not_hide_items_from_an_unfiltered_one(pr_agent, pr, wait):
    quick_review(pr)
    pr.add_comments(OWNER, NAME, PR, 2)
    pr_agent.look_and_confirm()
    bot_review = pr.add_review(OWNER, NAME, PR, "ci[bot]", "COMMENTED", body="lint",
                               user_type="Bot")["id"]
    bot_comment = pr.add_comment(OWNER, NAME, PR, "bot says", user="ci[bot]",
                                 user_type="Bot")["id"]
    env = dict(pr_agent.env, GH_MONITOR_TEST_TIME_SCALE="0.02")
    args = ["--humans-only"] + (["--wait", 20, "--poll-interval", 5] if wait else [])
    r = pr_agent.check(*args, env=env)
    assert r.code == 0 and r.json["has_updates"] is False, r
    # not confirmed: a read with other filters still sees both
    r = pr_agent.check()
    assert ids(r.json["new_reviews"]) == [bot_review], r.json
    assert ids(r.json["new_comments"]) == [bot_comment], r.json


def test_a_hints_path_that_cannot_be_replaced_is_never_an_error(agent, issue):
    """The hints file is a cache: one that cannot be read or replaced (here a folder stands
    at its path) costs requests, never an error after the updates file was committed."""
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    agent.look_and_confirm()
    hints = agent.file("hints")
    hints.unlink()
    hints.mkdir()
    r = agent.check()
    assert r.code == 0, r
    c = agent.confirm(r.json["snapshot_id"])
    assert c.code == 0, c


@pytest.mark.parametrize("which", ["", "updates"])
def test_a_folder_at_a_state_file_path_is_exit_7_not_exit_1(agent, issue, which):
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    d = agent.look_and_confirm()
    path = agent.file(which)
    path.unlink()
    path.mkdir()
    r = agent.check() if which == "" else agent.confirm(d["snapshot_id"])
    assert r.code == 7, r
