"""`--include-checks` (CONTRACT section 23), run as an agent runs it: subprocesses against the
fake GitHub, request counts from the fake's log.

What CI said about a pull request's head: each completed check that did not pass returned
once (first ask included), a lone pass that wakes nothing and leaves the next idle poll all
304 (1 + ⌈R/100⌉ + ⌈S/100⌉ more requests than the round without the flag), `checks_settled`
once per head, mergeability turning false once, a push mid-run, re-runs, two suites with one
name, a 403, a malformed run, writes without the flag, the inbox, and a wait.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import subprocess
import threading
import time

import pytest

from tests.support import NAME, OWNER, SCRIPT_PYTHON, SCRIPTS, Agent, inbox, latest, script_env

PR = 7
FLAG = "--include-checks"
START = "2031-05-01T10:00:00Z"


@pytest.fixture
def pull(fake):
    fake.clock = START
    fake.date_follows_clock = True  # GitHub's Date and its data agree: the clock moves both
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    return fake


@pytest.fixture
def agent(pull, tmp_path):
    return Agent(pull, tmp_path, "--pr", PR)


def head(fake):
    return fake.pull_head(OWNER, NAME, PR)


def run(fake, name, conclusion=None, status="queued", **kw):
    """A check run on the head (completed when `conclusion` is given)."""
    return fake.add_check_run(OWNER, NAME, head(fake), name, status=status,
                              conclusion=conclusion, **kw)


def ok(r):
    assert r.code == 0, r
    return r.json


def names(doc):
    return [c["name"] for c in doc["checks"]]


def checks_cursor(agent):
    return json.loads(agent.file().read_text()).get("checks")


def ci_paths(fake):
    return [q.path for q in fake.requests
            if q.path.endswith(("/check-runs", "/status")) or q.path.endswith(f"/pulls/{PR}")]


def settle_round(agent, *args):
    """Check and confirm until nothing is returned (the round's other kinds too)."""
    for _ in range(4):
        doc = ok(agent.check(*args))
        assert agent.confirm(doc["snapshot_id"]).code == 0
        if not doc["has_updates"]:
            return doc
    raise AssertionError("the round never settled")


# --------------------------------------------------------------------------- single round


def test_the_first_ask_returns_every_failure_once_then_never_again(pull, agent):
    lint = run(pull, "lint", "failure", title="2 errors", summary="E501 line too long")
    run(pull, "tests", status="in_progress")
    pull.set_commit_status(OWNER, NAME, head(pull), "ci/docs", "success")
    pull.set_commit_status(OWNER, NAME, head(pull), "ci/deploy", "error",
                           description="deploy \u202efailed")
    doc = ok(agent.check(FLAG))
    assert doc["has_updates"] is True
    assert sorted(names(doc)) == ["ci/deploy", "lint"] and doc["check_count"] == 2
    by = {c["name"]: c for c in doc["checks"]}
    assert by["lint"] == {
        "kind": "check_run", "id": lint["id"], "name": "lint", "app": "github-actions",
        "verdict": "failed", "conclusion": "failure", "started_at": lint["started_at"],
        "completed_at": lint["completed_at"], "url": lint["html_url"], "title": "2 errors",
        "summary": "E501 line too long", "hidden_characters": 0, "text_truncated": False}
    deploy = by["ci/deploy"]
    assert deploy["kind"] == "status" and deploy["app"] is None
    assert deploy["started_at"] is None and deploy["verdict"] == "failed"
    assert deploy["title"] == "deploy <U+202E>failed" and deploy["hidden_characters"] == 1
    s = doc["checks_summary"]
    assert (s["total"], s["pending"], s["passed"], s["failed"], s["attention"]) == (4, 1, 1, 2, 0)
    assert s["state"] == "failure" and s["partial"] is False and s["previous_head"] is None
    assert [p["name"] for p in s["pending_names"]] == ["tests"]
    assert s["passed_names"] == ["ci/docs"] and s["head_sha"] == head(pull)
    assert "checks_settled" not in doc and doc["checks_unavailable"] == []
    assert doc["mergeable"] == {"mergeable": True, "mergeable_state": "clean",
                                "changed": False}
    cursor = doc["recommended_checkpoint"]["checks"]
    assert cursor["head_sha"] == head(pull) and cursor["settled"] is False
    assert len(cursor["done"]) == 3  # every completed check: the two failures, the pass

    again = ok(agent.check(FLAG))  # not confirmed: returned again, never lost
    assert sorted(names(again)) == ["ci/deploy", "lint"]
    assert agent.confirm(again["snapshot_id"]).code == 0
    assert checks_cursor(agent) == again["recommended_checkpoint"]["checks"]
    after = ok(agent.check(FLAG))
    assert after["has_updates"] is False and after["checks"] == []
    assert after["checks_summary"]["failed"] == 2  # still counted, never listed again
    assert set(agent.statuses()) == {304}


def test_a_lone_pass_wakes_nothing_and_the_idle_poll_is_all_304(pull, agent):
    for i in range(120):  # two pages of check runs
        run(pull, f"job-{i:03}", "success")
    tests = run(pull, "tests", status="in_progress")
    run(pull, "e2e", status="in_progress")
    pull.set_commit_status(OWNER, NAME, head(pull), "ci/docs", "pending")
    settle_round(agent, FLAG)
    bare = ok(agent.check())  # the round without the flag
    assert set(agent.statuses()) == {304}
    idle_without = len(pull.requests)

    pull.complete_check_run(tests["id"], "success")  # a pass while others are pending
    doc = ok(agent.check(FLAG))
    assert doc["has_updates"] is False and doc["checks"] == [] and bare["has_updates"] is False
    assert doc["checks_summary"]["passed"] == 121 and doc["checks_summary"]["pending"] == 2
    idle = ok(agent.check(FLAG))
    assert idle["has_updates"] is False
    assert set(agent.statuses()) == {304}, agent.statuses()
    runs, statuses = 122, 1
    extra = 1 + math.ceil(runs / 100) + math.ceil(statuses / 100)
    assert len(pull.requests) == idle_without + extra == idle_without + 4
    assert idle["checks_summary"] == doc["checks_summary"]


def test_checks_settled_once_per_head(pull, agent):
    run(pull, "lint", "success")
    build = run(pull, "build", status="in_progress")
    settle_round(agent, FLAG)
    pull.complete_check_run(build["id"], "success")
    first = ok(agent.check(FLAG))  # one read with nothing pending is not enough
    assert first["has_updates"] is False and "checks_settled" not in first
    pull.advance(10)
    soon = ok(agent.check(FLAG))  # 10 s later: not yet (a plain check: 30 s)
    assert "checks_settled" not in soon
    pull.advance(25)
    doc = ok(agent.check(FLAG))
    assert doc["has_updates"] is True and doc["checks"] == []
    assert doc["checks_settled"] == {"head_sha": head(pull), "state": "success", "passed": 2,
                                     "failed": 0, "attention": 0}
    assert agent.confirm(doc["snapshot_id"]).code == 0
    assert checks_cursor(agent)["settled"] is True
    pull.advance(60)
    later = ok(agent.check(FLAG))
    assert later["has_updates"] is False and "checks_settled" not in later  # once per head


def test_mergeability_turning_false_is_returned_once(pull, agent):
    run(pull, "lint", "success")
    settle_round(agent, FLAG)
    pull.set_mergeability(OWNER, NAME, PR, False, after_reads=1)  # null while computing
    computing = ok(agent.check(FLAG))
    assert computing["mergeable"]["mergeable"] is None and computing["has_updates"] is False
    doc = ok(agent.check(FLAG))
    assert doc["has_updates"] is True
    assert doc["mergeable"] == {"mergeable": False, "mergeable_state": "dirty",
                                "changed": True}
    assert agent.confirm(doc["snapshot_id"]).code == 0
    assert checks_cursor(agent)["mergeable"] is False
    again = ok(agent.check(FLAG))
    assert again["has_updates"] is False and again["mergeable"]["changed"] is False


def test_a_push_mid_run_starts_over_on_the_new_head(pull, agent):
    old = head(pull)
    run(pull, "lint", "failure")
    slow = run(pull, "tests", status="in_progress")
    first = ok(agent.check(FLAG))
    assert names(first) == ["lint"] and agent.confirm(first["snapshot_id"]).code == 0
    pull.advance(5)
    pull.push(OWNER, NAME, PR)
    pull.complete_check_run(slow["id"], "failure")  # the earlier head's: never returned
    new = head(pull)
    assert new != old
    run(pull, "lint", "failure")
    doc = ok(agent.check(FLAG))
    assert names(doc) == ["lint"] and doc["checks"][0]["id"] != first["checks"][0]["id"]
    assert doc["checks_summary"]["previous_head"] == old
    assert doc["checks_summary"]["head_sha"] == new
    cursor = doc["recommended_checkpoint"]["checks"]
    assert cursor["head_sha"] == new and len(cursor["done"]) == 1
    assert agent.confirm(doc["snapshot_id"]).code == 0
    after = ok(agent.check(FLAG))
    assert after["checks"] == [] and after["checks_summary"]["previous_head"] is None


def test_a_rerun_replaces_and_two_suites_with_one_name_are_both_kept(pull, agent):
    bad = run(pull, "build", "failure", suite="push")
    run(pull, "build", "success", suite="pull_request")
    doc = ok(agent.check(FLAG))
    assert names(doc) == ["build"] and doc["checks_summary"]["total"] == 2
    assert doc["checks_summary"]["passed"] == 1 and doc["checks_summary"]["failed"] == 1
    assert agent.confirm(doc["snapshot_id"]).code == 0
    rerun = pull.rerun_check_run(bad["id"])
    pending = ok(agent.check(FLAG))
    assert pending["checks"] == [] and pending["checks_summary"]["pending"] == 1
    assert pending["checks_summary"]["total"] == 2  # the re-run replaces the failed run
    pull.complete_check_run(rerun["id"], "timed_out")
    doc = ok(agent.check(FLAG))
    assert [(c["id"], c["verdict"], c["conclusion"]) for c in doc["checks"]] == [
        (rerun["id"], "failed", "timed_out")]


def test_attention_conclusions_are_returned(pull, agent):
    run(pull, "deploy", "action_required")
    run(pull, "old", "cancelled")
    doc = ok(agent.check(FLAG))
    assert {c["verdict"] for c in doc["checks"]} == {"attention"}
    assert doc["checks_summary"]["state"] == "attention"


def test_a_403_on_a_list_is_checks_unavailable_never_the_rounds_error(pull, agent):
    run(pull, "lint", "failure")
    pull.set_commit_status(OWNER, NAME, head(pull), "ci/x", "success")
    pull.forbid_checks("statuses")
    doc = ok(agent.check(FLAG))
    assert doc["checks_unavailable"] == ["statuses"]
    assert doc["checks_summary"]["partial"] is True and names(doc) == ["lint"]
    assert any('"Commit statuses" read' in w for w in doc["warnings"])
    pull.forbid_checks("check_runs")
    both = ok(agent.check(FLAG))
    assert both["checks_unavailable"] == ["check_runs", "statuses"]
    assert any('"Checks" read' in w for w in both["warnings"])


def test_a_malformed_run_is_exit_6_and_checks_need_a_pull_request(pull, agent, tmp_path):
    pull.inject(path=r"/check-runs$", status=200, times=1,
                body={"total_count": 1, "check_runs": [{"id": "1", "name": "x"}]})
    r = agent.check(FLAG)
    assert r.code == 6 and r.json["error"]["code"] == "server", r
    pull.add_issue(OWNER, NAME, 5, title="Bug")
    issue = Agent(pull, tmp_path / "i", "--issue", 5)
    r = issue.check(FLAG)
    assert r.code == 2 and "--include-checks needs --pr" in r.json["error"]["message"]
    assert pull.requests == []


def test_writes_without_the_flag_carry_the_cursor(pull, agent):
    run(pull, "lint", "failure")
    doc = ok(agent.check(FLAG))
    assert agent.confirm(doc["snapshot_id"]).code == 0
    stored = checks_cursor(agent)
    pull.add_comment(OWNER, NAME, PR, body="looks good", user="bob")
    plain = ok(agent.check())  # no flag: no CI request, the cursor carried
    assert "checks" not in plain and "checks_summary" not in plain
    assert ci_paths(pull) == []
    assert plain["recommended_checkpoint"]["checks"] == stored
    assert agent.confirm(plain["snapshot_id"]).code == 0
    assert checks_cursor(agent) == stored
    pull.add_comment(OWNER, NAME, PR, body="more", user="bob")
    assert agent.latest("--update-state").code == 0
    assert checks_cursor(agent) == stored
    through = ok(agent.check())
    assert agent.confirm(through["snapshot_id"]).code == 0 and checks_cursor(agent) == stored


def test_the_inbox_reads_checks_of_pull_request_rounds_only(pull, agent, tmp_path):
    pull.add_issue(OWNER, NAME, 5, title="Bug")
    run(pull, "lint", "failure")
    refs = ["--follow", f"{OWNER}/{NAME}/pull/{PR}", "--follow", f"{OWNER}/{NAME}#5"]
    root = tmp_path / "inbox"
    root.mkdir()
    r = inbox(pull, root, *refs, FLAG)
    doc = ok(r)
    rounds = {c["key"]: c for c in doc["conversations"]}
    pr = next(c for k, c in rounds.items() if "/pull/" in k or k.endswith(f"#{PR}"))
    issue = next(c for c in rounds.values() if c is not pr)
    assert [c["name"] for c in pr["checks"]] == ["lint"]
    assert "checks_summary" in pr and "checks_summary" not in issue
    ok(latest(pull, root, "--followed", "--confirm-updates", "--snapshot-id", doc["snapshot_id"]))
    again = ok(inbox(pull, root, *refs, FLAG))
    pr2 = next(c for c in again["conversations"] if c["key"] == pr["key"])
    assert pr2["checks"] == [] and again["has_updates"] is False


# --------------------------------------------------------------------------- a wait


def _wait(agent, env, *args):
    return subprocess.Popen(
        [SCRIPT_PYTHON, str(SCRIPTS / "check_issue_updates.py"), "--repo", f"{OWNER}/{NAME}",
         "--pr", str(PR), "--root", str(agent.root), FLAG, "--wait", "600",
         "--poll-interval", "5", *args], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)


def test_a_wait_wakes_on_a_failure_never_on_a_pass(pull, agent):
    lint = run(pull, "lint", status="in_progress")
    tests = run(pull, "tests", status="in_progress")
    settle_round(agent, FLAG)
    env = script_env(pull, GH_MONITOR_TEST_TIME_SCALE="0.02")  # polls 0.1 s apart
    polls = {"n": 0}
    lock = threading.Lock()

    def on_request(entry):
        if entry.path.endswith(f"/pulls/{PR}"):
            with lock:
                polls["n"] += 1
                if polls["n"] == 2:
                    pull.complete_check_run(lint["id"], "success")  # a pass: no wake
                elif polls["n"] == 5:
                    pull.complete_check_run(tests["id"], "failure")
    pull.on_request(on_request)
    proc = _wait(agent, env)
    out, err = proc.communicate(timeout=120)
    pull.clear_hooks()
    assert proc.returncode == 0, err
    doc = json.loads(out)
    assert doc["has_updates"] is True and names(doc) == ["tests"]
    assert doc["polls"] >= 5
    assert "checks_settled" not in doc  # one quiet read is not enough


def test_a_wait_woken_by_settling(pull, agent):
    build = run(pull, "build", status="in_progress")
    settle_round(agent, FLAG)
    pull.complete_check_run(build["id"], "success")
    env = script_env(pull, GH_MONITOR_TEST_TIME_SCALE="0.02")
    started = time.monotonic()
    proc = _wait(agent, env)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    doc = json.loads(out)
    assert doc["checks_settled"]["state"] == "success" and doc["polls"] == 2
    assert time.monotonic() - started < 60


# --------------------------------------------------------------------------- reading a check


def test_a_check_run_is_read_by_id_with_its_annotations(pull, agent, tmp_path):
    notes = [{"path": f"src/m{i}.py", "start_line": i + 1, "message": f"E{i} \u202e"}
             for i in range(60)]
    lint = run(pull, "lint", "failure", title="60 errors", summary="see below",
               text="x" * 40, annotations=notes)
    r = agent.latest("--check-run-id", lint["id"], "--max-body-chars", 20)
    doc = ok(r)
    assert len(pull.requests) <= 3
    (one,) = doc["check_runs"]
    assert one["id"] == lint["id"] and one["current_head"] is True
    assert one["text"] == "x" * 20 and one["text_truncated"] is True
    assert len(one["annotations"]) == 50 and one["more_available"] is True
    assert one["annotation_count"] == 60
    assert one["annotations"][0]["message"].endswith("<U+202E>")
    assert one["annotations"][0]["annotation_level"] == "failure"
    assert doc["state_updated"] is False
    pull.push(OWNER, NAME, PR)
    assert ok(agent.latest("--check-run-id", lint["id"]))["check_runs"][0][
        "current_head"] is False
    missing = agent.latest("--check-run-id", 99)
    assert missing.code == 4, missing
    pull.forbid_checks("check_runs")
    denied = agent.latest("--check-run-id", lint["id"])
    assert denied.code == 4 and '"Checks" read' in denied.json["error"]["message"]
    pull.add_issue(OWNER, NAME, 5, title="Bug")
    issue = Agent(pull, tmp_path / "i", "--issue", 5).latest("--check-run-id", lint["id"])
    assert issue.code == 2 and "--check-run-id goes with --pr" in issue.json["error"]["message"]


def test_the_summary_line_says_what_ci_said(pull, agent):
    run(pull, "lint", "failure", title="bad\nnews")
    run(pull, "tests-3.12", "failure")
    for i in range(14):
        run(pull, f"ok-{i}", "success")
    started = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=12, seconds=20)
    run(pull, "e2e\u202e", status="in_progress", at=started.strftime("%Y-%m-%dT%H:%M:%SZ"))
    r = agent.check(FLAG, "--format", "summary")
    assert r.code == 0, r
    sha = head(pull)[:7]
    assert (f"CI on {sha}: 2 failed (lint, tests-3.12), 14 passed, 1 pending "
            "(e2e<U+202E>, 12 min); mergeable") in r.stdout.splitlines()
    assert any(line.startswith("[check_run ") and "bad<U+000A>news" in line
               for line in r.stdout.splitlines())


@pytest.mark.parametrize("delay", [0.05, 0.3, 0.7])
def test_a_killed_confirm_loses_no_failure(pull, agent, delay):
    import signal

    run(pull, "lint", "failure")
    doc = ok(agent.check(FLAG))
    env = dict(agent.env, GH_MONITOR_TEST_WRITE_PAUSE="0.5")
    proc = subprocess.Popen(
        [SCRIPT_PYTHON, str(SCRIPTS / "get_latest_comments.py"), "--repo", f"{OWNER}/{NAME}",
         "--pr", str(PR), "--root", str(agent.root), "--confirm-updates", "--snapshot-id",
         doc["snapshot_id"]], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stored = checks_cursor(agent) if agent.file().exists() else None
    again = ok(agent.check(FLAG))
    if stored is None:  # not written: the failure comes again, and is confirmed now
        assert names(again) == ["lint"]
        assert agent.confirm(again["snapshot_id"]).code == 0
    else:  # written whole: the failure was handled, never returned again
        assert stored == doc["recommended_checkpoint"]["checks"] and again["checks"] == []
    assert ok(agent.check(FLAG))["checks"] == []


def test_limit_and_max_total_cut_checks_and_the_rest_comes_next(pull, agent, tmp_path):
    for name in ("a", "b", "c"):
        run(pull, name, "failure")
    doc = ok(agent.check(FLAG, "--limit", 2))
    assert names(doc) == ["a", "b"] and doc["more_available_by_kind"]["checks"] is True
    assert agent.confirm(doc["snapshot_id"]).code == 0
    rest = ok(agent.check(FLAG))
    assert names(rest) == ["c"]
    root = tmp_path / "inbox"
    root.mkdir()
    ref = ["--follow", f"{OWNER}/{NAME}/pull/{PR}"]
    seen = []
    for _ in range(4):
        d = ok(inbox(pull, root, *ref, FLAG, "--max-total", 1))
        (conv,) = d["conversations"]
        seen += [c["name"] for c in conv.get("checks") or []]
        ok(latest(pull, root, "--followed", "--confirm-updates", "--snapshot-id",
                  d["snapshot_id"]))
        if not d["has_updates"]:
            break
    assert sorted(seen) == ["a", "b", "c"] and len(seen) == 3


def test_the_inbox_confirms_mergeability_turning_false(pull, agent, tmp_path):
    """Found by tests/test_checks_model.py: the inbox's confirm judged a snapshot whose only
    news was mergeability turning false "already applied" (same head, same `done`), so the
    cursor kept `mergeable: true` and every later inbox check returned the news again."""
    run(pull, "lint", "success")
    root = tmp_path / "inbox"
    root.mkdir()
    ref = ["--follow", f"{OWNER}/{NAME}/pull/{PR}"]

    def inbox_round():
        d = ok(inbox(pull, root, *ref, FLAG))
        ok(latest(pull, root, "--followed", "--confirm-updates", "--snapshot-id",
                  d["snapshot_id"]))
        (conv,) = d["conversations"] or [{}]
        return d, conv

    for _ in range(3):
        d, _conv = inbox_round()
    pull.set_mergeability(OWNER, NAME, PR, False, after_reads=1)
    computing, _conv = inbox_round()  # null while GitHub computes: nothing to say
    assert computing["has_updates"] is False
    news, conv = inbox_round()
    assert news["has_updates"] is True and conv["mergeable"]["changed"] is True
    stored = json.loads((Agent(pull, root, "--pr", PR).file()).read_text())["checks"]
    assert stored["mergeable"] is False, stored
    again, conv = inbox_round()
    assert again["has_updates"] is False, conv


# --------------------------------------------------------------------------- with the events


EVENTS = "--include-events"


def test_with_the_events_the_pull_request_is_the_one_head_probe(pull, agent):
    """Section 23: with --include-events the pull request (CI's probe) replaces the ref probe:
    an idle poll costs 2 more than the events alone (the two lists), all 304; a push is
    reported once and CI starts over on the new head; dropping or adding the flag between
    polls neither loses nor repeats a push."""
    run(pull, "lint", "success")
    settle_round(agent, EVENTS)
    ok(agent.check(EVENTS))
    assert set(agent.statuses()) == {304}
    events_alone = len(pull.requests)
    settle_round(agent, EVENTS, FLAG)
    idle = ok(agent.check(EVENTS, FLAG))
    assert idle["has_updates"] is False
    assert set(agent.statuses()) == {304}, [(q.path, q.status) for q in pull.requests]
    assert len(pull.requests) == events_alone + 2, [q.path for q in pull.requests]
    assert not [q.path for q in pull.requests if "/git/ref" in q.path]

    old = head(pull)
    shas = pull.push(OWNER, NAME, PR, count=2, author="alice")
    run(pull, "tests", "failure")  # on the new head
    doc = ok(agent.check(EVENTS, FLAG))
    assert [c["sha"] for c in doc["pushes"]["commits"]] == shas
    assert doc["pushes"]["previous_head_sha"] == old and doc["pushes"]["head_sha"] == head(pull)
    assert names(doc) == ["tests"] and doc["checks_summary"]["previous_head"] == old
    assert agent.confirm(doc["snapshot_id"]).code == 0
    computed = ok(agent.check(EVENTS, FLAG))  # GitHub computes mergeability after a push:
    assert computed["has_updates"] is False and computed["pushes"] is None  # the pull
    assert [q.path for q in pull.requests if q.status != 304] == [f"/repos/{OWNER}/{NAME}/pulls/{PR}"]
    idle = ok(agent.check(EVENTS, FLAG))  # request's one 200, then all 304
    assert idle["has_updates"] is False and idle["pushes"] is None
    assert set(agent.statuses()) == {304}
    assert len(pull.requests) == events_alone + 2

    more = pull.push(OWNER, NAME, PR, count=1, author="alice")  # seen without CI's flag
    doc = ok(agent.check(EVENTS))
    assert [c["sha"] for c in doc["pushes"]["commits"]] == more
    assert agent.confirm(doc["snapshot_id"]).code == 0
    ok(agent.check(EVENTS))  # back on the ref probe: idle as the events alone
    assert set(agent.statuses()) == {304} and len(pull.requests) == events_alone
    last = pull.push(OWNER, NAME, PR, count=1, author="alice")  # and with it again
    doc = ok(agent.check(EVENTS, FLAG))
    assert [c["sha"] for c in doc["pushes"]["commits"]] == last
    assert agent.confirm(doc["snapshot_id"]).code == 0
    again = ok(agent.check(EVENTS, FLAG))
    assert again["pushes"] is None and again["has_updates"] is False


def test_with_the_events_the_inbox_probes_the_pull_request_once_too(pull, tmp_path):
    """Through the inbox: the same saving (events alone + 2 on an idle poll, all 304), and a
    push is returned once."""
    run(pull, "lint", "success")
    key = f"{OWNER}/{NAME}/pull/{PR}"

    def check(*args):
        r = inbox(pull, tmp_path, *args)
        assert r.code == 0, r
        sent = [(q.path, q.status) for q in pull.requests]
        if r.json["snapshot_id"]:
            c = latest(pull, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                       r.json["snapshot_id"])
            assert c.code == 0, c
        return r, sent

    check("--follow", key, EVENTS)
    for _ in range(3):
        check("--followed", EVENTS)
    _r, alone = check("--followed", EVENTS)
    for _ in range(3):
        check("--followed", EVENTS, FLAG)
    _r, both = check("--followed", EVENTS, FLAG)
    assert {s for _p, s in alone + both} == {304}, both
    assert len(both) == len(alone) + 2, (alone, both)
    assert not [p for p, _s in both if "/git/ref" in p]
    shas = pull.push(OWNER, NAME, PR, count=1, author="alice")
    r, _sent = check("--followed", EVENTS, FLAG)
    [doc] = r.json["conversations"]
    assert [c["sha"] for c in doc["pushes"]["commits"]] == shas
    r, _sent = check("--followed", EVENTS, FLAG)
    assert all(not c.get("pushes") for c in r.json["conversations"]), r.json
