"""Section 14's model test with what the machines said (CONTRACT section 23, `--include-checks`):
hypothesis drives a pull request's CI — check runs queued, started and completed in any order
(several in one second), re-runs, two suites with one name, jobs that appear after others
finish, commit statuses, a push mid-run, a 403 on either list, mergeability null then false —
between an agent's checks (with the flag, sometimes not), confirms (sometimes not), waits and
kills at the state store's pause points, in a single round and through the inbox. The oracles:

- each completed non-passing check of the current head is returned exactly once after the
  confirmed read: no check in two confirmed snapshots, and after settling every completed check
  of the head that did not pass (the newest run per (suite, name), the newest status per
  context) lies in one;
- `checks_settled` once per head: never twice for one head, and once for the head whose checks
  have settled;
- a failure or a settled suite wakes a wait, and a lone pass never does; `has_updates` is true
  exactly when a check, `checks_settled` or mergeability turning false is returned;
- idle polls settle to 304: after the agent confirmed, the second flagged check is all 304 and
  costs 1 + ⌈R/100⌉ + ⌈S/100⌉ more requests than the same check without the flag (a list with
  nothing in it is still one page).

Time is the model's own, so that what runs never depends on how busy the machine is: GitHub's
clock (the fake's `Date` and its data) starts years ahead of this machine's and moves only when
a rule moves it, and a wait's clock is virtual (`VirtualTime`: its sleeps move GitHub's clock
too), so a wait polls exactly on its nominal schedule.

GH_MONITOR_MODEL_EXAMPLES raises the number of examples (default 30; the single round runs a
quarter of it, at least 8, the inbox a sixth, at least 5). What the model found is reproduced
in tests/test_include_checks.py (the inbox's confirm of mergeability turning false).
"""

from __future__ import annotations

import contextlib
import json
import math

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test

from tests.inprocess import InProcessAgent
from tests.inprocess import run_script as run_in_process
from tests.support import NAME, OWNER, script_env
from tests.test_round_model import EXAMPLES, MODEL, TOKEN_OWNER, Killed, killed_at

PR, ISSUE = 7, 5
FLAG = "--include-checks"
PR_KEY, ISSUE_KEY = f"{OWNER}/{NAME}/pull/{PR}", f"{OWNER}/{NAME}/issues/{ISSUE}"
# section 23's verdicts, written out here (the oracle does not import the product's)
PASSED = frozenset(("success", "neutral", "skipped"))
CONCLUSIONS = ["success", "neutral", "skipped", "failure", "timed_out", "startup_failure",
               "cancelled", "stale", "action_required"]
NAMES = ["lint", "tests", "build"]
SUITES = [None, "pull_request"]  # two suites with one name: a push run and a PR run
CONTEXTS = ["ci/docs", "ci/deploy"]


START = "2031-05-01T10:00:00Z"  # ahead of this machine's clock: `Date` is the fake's clock


class VirtualTime:
    """The waits' clock (round/wait.py, inbox/inbox_wait.py, net/throttle.py) in this model: seconds that only a
    sleep moves, moving GitHub's clock with them. A poll takes no time, so a wait of S seconds
    polling every I polls at 0, I, 2I ... S, however slow the machine."""

    def __init__(self, fake):
        self.fake, self.now = fake, 0.0

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds
        self.fake.advance(seconds)


def virtual_waits(monkeypatch, fake):
    from ghcomments.inbox import inbox_wait
    from ghcomments.net import throttle
    from ghcomments.round import wait

    clock = VirtualTime(fake)
    for module in (wait, inbox_wait, throttle):  # the throttle holds the inbox wait's deadline
        monkeypatch.setattr(module, "time", clock)
    return clock


class ChecksModel(RuleBasedStateMachine):
    """One pull request's CI and an agent reading it; `inbox` reads it through the inbox
    (with an issue round beside it)."""

    fake = None
    root = None
    inbox = False

    def __init__(self):
        super().__init__()
        self.returned = set()      # (kind, id) in confirmed snapshots
        self.settled_heads = []    # heads whose checks_settled was confirmed
        self.denied = set()
        self.truth_mergeable = None

    # -- GitHub --------------------------------------------------------------------------------
    @initialize(jobs=st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(SUITES),
                                        st.sampled_from([None] + CONCLUSIONS)), max_size=3))
    def seed(self, jobs):
        f = self.fake
        f.reset()
        f.add_token(script_env(f)["GH_TOKEN"], login=TOKEN_OWNER)
        f.add_repo(OWNER, NAME)
        f.clock = START
        f.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
        if self.inbox:
            f.add_issue(OWNER, NAME, ISSUE)
            f.add_comments(OWNER, NAME, ISSUE, 3)
        f.date_follows_clock = True  # GitHub's Date and its data agree
        for name, suite, conclusion in jobs:
            self.job(name, suite, conclusion, False)

    def head(self):
        return self.fake.pull_head(OWNER, NAME, PR)

    def runs(self):
        """The newest run per (suite, name) on the head, as `filter=latest` lists them."""
        newest = {}
        for r in self.fake.store.check_runs.values():
            if r.head_sha == self.head():
                k = (r.suite_id, r.name)
                if k not in newest or r.id > newest[k].id:
                    newest[k] = r
        return list(newest.values())

    def statuses(self):
        newest = {}
        for s in self.fake.store.statuses:
            if s.sha == self.head() and (s.context not in newest
                                         or s.id > newest[s.context].id):
                newest[s.context] = s
        return list(newest.values())

    def pending_runs(self):
        return sorted((r for r in self.runs() if r.status != "completed"), key=lambda r: r.id)

    @rule(name=st.sampled_from(NAMES), suite=st.sampled_from(SUITES),
          conclusion=st.sampled_from([None, None] + CONCLUSIONS), started=st.booleans())
    def job(self, name, suite, conclusion, started):
        """A job appears (queued, in progress, or already done: jobs that wait on others
        appear after those finish)."""
        self.fake.add_check_run(OWNER, NAME, self.head(), name, suite=suite,
                                status="in_progress" if started else "queued",
                                conclusion=conclusion)

    @rule(picks=st.lists(st.integers(0, 10), min_size=1, max_size=3),
          conclusions=st.lists(st.sampled_from(CONCLUSIONS), min_size=3, max_size=3),
          same_second=st.booleans())
    def finish(self, picks, conclusions, same_second):
        """Pending runs complete, in any order, in one second or one a second."""
        for pick, conclusion in zip(picks, conclusions):
            pending = self.pending_runs()
            if not pending:
                return
            self.fake.complete_check_run(pending[pick % len(pending)].id, conclusion)
            if not same_second:
                self.fake.advance(1)

    @rule(pick=st.integers(0, 10))
    def start(self, pick):
        pending = [r for r in self.pending_runs() if r.status == "queued"]
        if pending:
            self.fake.start_check_run(pending[pick % len(pending)].id)

    @rule(pick=st.integers(0, 10))
    def rerun(self, pick):
        done = sorted((r for r in self.runs() if r.status == "completed"), key=lambda r: r.id)
        if done:
            self.fake.rerun_check_run(done[pick % len(done)].id)

    @rule(context=st.sampled_from(CONTEXTS),
          state=st.sampled_from(["pending", "success", "failure", "error"]))
    def status(self, context, state):
        self.fake.set_commit_status(OWNER, NAME, self.head(), context, state)

    @rule(force=st.booleans())
    def push(self, force):
        """A push mid-run: the new head has no checks yet."""
        self.fake.advance(1)
        self.fake.push(OWNER, NAME, PR, count=1, author="alice", force=force)

    @rule(kind=st.sampled_from(["check_runs", "statuses"]), go=st.integers(0, 2))
    def deny(self, kind, go):
        """A 403 on one list (the token lacks "Checks" or "Commit statuses" read), or the
        token mended."""
        if go:
            return
        if kind in self.denied:
            self.fake.allow_checks(kind)
            self.denied.discard(kind)
        else:
            self.fake.forbid_checks(kind)
            self.denied.add(kind)

    @rule(mergeable=st.sampled_from([False, False, True]))
    def mergeability(self, mergeable):
        """GitHub recomputes: `mergeable: null` on the next read, then the result."""
        self.fake.set_mergeability(OWNER, NAME, PR, mergeable, after_reads=1)
        self.truth_mergeable = mergeable

    @rule(seconds=st.sampled_from([1, 31]))
    def tick(self, seconds):
        self.fake.advance(seconds)

    # -- the agent -----------------------------------------------------------------------------
    @property
    def env(self):
        return script_env(self.fake)  # a wait's time is virtual (VirtualTime)

    def agent(self, key=PR_KEY):
        a = InProcessAgent(self.fake, self.root, *(("--pr", PR) if key == PR_KEY
                                                   else ("--issue", ISSUE)))
        a.env = self.env
        return a

    def followed(self):
        """Every round has a checkpoint (a wait needs one)."""
        keys = [PR_KEY, ISSUE_KEY] if self.inbox else [PR_KEY]
        return all(self.agent(k).file().exists() for k in keys)

    def checkpoint(self):
        path = self.agent().file()
        return json.loads(path.read_text()) if path.exists() else None

    def check(self, *args):
        """A check of the round (or the inbox): (the whole answer, the PR round's document
        or None when the inbox listed it as quiet)."""
        if self.inbox:
            self.fake.clear_log()
            r = run_in_process("check_issue_updates.py", "--root", self.root, "--follow",
                               PR_KEY, "--follow", ISSUE_KEY, *args, env=self.env)
            assert r.code == 0, r
            doc = {c["key"]: c for c in r.json["conversations"]}.get(PR_KEY)
        else:
            r = self.agent().check(*args)
            assert r.code == 0, r
            doc = r.json
        if doc is not None:
            self.check_document(doc, FLAG in args)
        return r, doc

    def confirm(self, r, killed=None):
        if self.inbox:
            def go():
                self.fake.clear_log()
                return run_in_process("get_latest_comments.py", "--root", self.root,
                                      "--followed", "--confirm-updates", "--snapshot-id",
                                      r.json["snapshot_id"], env=self.env)
        else:
            def go():
                return self.agent().confirm(r.json["snapshot_id"])
        if killed:
            with killed_at(killed), contextlib.suppress(Killed):
                go()
        c = go()
        assert c.code == 0, c
        if self.inbox:
            assert c.json["refused"] == [], c

    def check_document(self, doc, flagged):
        """What every document shows: the checks of the head it names, none that passed;
        `has_updates` exactly when something is returned."""
        if not flagged:
            assert "checks" not in doc and "checks_summary" not in doc, doc
            return
        checks = doc.get("checks") or []
        summary = doc.get("checks_summary")
        settled = doc.get("checks_settled")
        changed = bool((doc.get("mergeable") or {}).get("changed"))
        if "has_updates" in doc:
            assert doc["has_updates"] == bool(checks or settled or changed), doc
        if changed:
            assert doc["mergeable"]["mergeable"] is False, doc
        for c in checks:
            assert c["verdict"] in ("failed", "attention"), c
            if c["kind"] == "check_run":
                raw = self.fake.store.check_runs[c["id"]]
                assert raw.status == "completed" and raw.conclusion == c["conclusion"], c
                assert raw.conclusion not in PASSED and raw.head_sha == summary["head_sha"], c
            else:
                raw = [s for s in self.fake.store.statuses if s.id == c["id"]][0]
                assert raw.state in ("failure", "error") and raw.sha == summary["head_sha"], c
        if settled:
            assert settled["head_sha"] == summary["head_sha"], doc
            assert summary["pending"] == 0 and summary["total"] > 0, doc
            assert not summary["partial"], doc

    def took(self, doc, before, flagged):
        """A confirm moved the checkpoint from `before` to now: `doc` was confirmed."""
        after = self.checkpoint()
        bc, ac = (before or {}).get("checks"), (after or {}).get("checks")
        if not flagged:
            assert ac == bc, f"a check without {FLAG} moved the checks cursor: {bc} -> {ac}"
            return
        if doc is None:
            return
        changed = bool((doc.get("mergeable") or {}).get("changed"))
        if doc.get("checks") or doc.get("checks_settled") or changed:
            assert after != before, f"a confirm of returned news wrote nothing: {bc}"
        if changed:  # returned once: the cursor now holds it
            assert ac["mergeable"] is False, f"mergeability false confirmed, not stored: {ac}"
        if after == before:
            return
        for c in doc.get("checks") or []:
            key = (c["kind"], c["id"])
            assert key not in self.returned, f"a check returned twice: {c}"
            self.returned.add(key)
        settled = doc.get("checks_settled")
        if settled:
            assert settled["head_sha"] not in self.settled_heads, \
                f"checks_settled twice for {settled['head_sha']}"
            self.settled_heads.append(settled["head_sha"])

    @rule(limit=st.sampled_from([1, 20]), flagged=st.sampled_from([True, True, False]),
          confirm=st.sampled_from([True, True, False]),
          killed=st.sampled_from([None, None, "write", "rename", "renamed"]))
    def check_and_confirm(self, limit, flagged, confirm, killed):
        args = ["--limit", limit, "--max-pages", 50, *([FLAG] if flagged else [])]
        r, doc = self.check(*args)
        if confirm:
            before = self.checkpoint()
            self.confirm(r, killed)
            self.took(doc, before, flagged)

    @rule(seconds=st.sampled_from([10, 40]))
    def wait(self, seconds):
        if not self.followed():
            return
        r, doc = self.check("--wait", seconds, "--poll-interval", 5, "--max-pages", 50, FLAG)
        before = self.checkpoint()
        self.confirm(r)
        self.took(doc, before, True)

    def settle_reads(self):
        """Check and confirm until nothing comes (with 31 s between the last two reads, so
        that checks with nothing pending settle)."""
        waited = False
        for _ in range(30):
            r, doc = self.check("--limit", 100, "--max-pages", 50, FLAG)
            before = self.checkpoint()
            self.confirm(r)
            self.took(doc, before, True)
            quiet = not r.json["has_updates"] and not (
                r.json.get("more_in") if self.inbox else r.json["more_available"])
            if quiet and waited:
                return
            waited = quiet
            if quiet:
                self.fake.advance(31)
        raise AssertionError("the round never settled")

    @rule(what=st.sampled_from(["failure", "lone_pass", "last_pass"]))
    def woken(self, what):
        """Something happens while a wait polls (at its second read of the pull request):
        a failure wakes it, a settled suite wakes it, a lone pass never does."""
        for kind in sorted(self.denied):  # the token mended: a partial summary never settles
            self.fake.allow_checks(kind)
        self.denied.clear()
        if what == "last_pass":  # a fresh head, so that its suite has yet to settle
            self.push(False)
            self.job("build", None, "success", True)
        self.job("slow", None, None, True)
        if what == "lone_pass":
            self.job("slower", None, None, True)
        self.settle_reads()
        target = self.pending_runs()[0].id
        probes = []

        def during(entry):
            if entry.path.endswith(f"/pulls/{PR}"):
                probes.append(entry.path)
                if len(probes) == 2:
                    if what == "failure":
                        self.fake.add_check_run(OWNER, NAME, self.head(), "late",
                                                conclusion="failure")
                    else:
                        self.fake.complete_check_run(target, "success")

        self.fake.on_request(during)
        try:
            r, doc = self.check("--wait", 40, "--poll-interval", 5, "--max-pages", 50, FLAG)
        finally:
            self.fake.clear_hooks()
        assert len(probes) >= 2, probes
        if what == "lone_pass":
            assert r.json["has_updates"] is False, ("a lone pass woke a wait", r.json)
        else:
            assert r.json["has_updates"] is True, (f"a wait not woken by a {what}", r.json)
            if what == "last_pass":
                assert doc["checks_settled"]["head_sha"] == self.head(), doc
            else:
                assert [c["name"] for c in doc["checks"]] == ["late"], doc
        before = self.checkpoint()
        self.confirm(r)
        self.took(doc, before, True)

    def idle_extra(self):
        r, s = len(self.runs()), len(self.statuses())
        return 1 + max(1, math.ceil(r / 100)) + max(1, math.ceil(s / 100))

    @rule()
    def settle(self):
        """CI and GitHub have stopped: confirm what is there; the second flagged check is all
        304 at section 23's cost."""
        if self.denied:  # a list answering 403 is never a 304: the token mended first
            for kind in sorted(self.denied):
                self.fake.allow_checks(kind)
            self.denied.clear()
        self.settle_reads()
        counts = {}
        for flags in ([FLAG], []):
            for _ in range(2):  # the check after the confirmed one may pay; the next is free
                r, _doc = self.check(*flags)
                assert r.json["has_updates"] is False, r
            seen = [q.status for q in self.fake.requests]
            assert seen and set(seen) == {304}, \
                (flags, [(q.method, q.path, q.status) for q in self.fake.requests])
            counts[bool(flags)] = len(seen)
        assert counts[True] == counts[False] + self.idle_extra(), (counts, self.idle_extra())

    def teardown(self):
        self.settle()
        units = [("check_run", r.id) for r in self.runs()
                 if r.status == "completed" and r.conclusion not in PASSED]
        units += [("status", s.id) for s in self.statuses() if s.state in ("failure", "error")]
        lost = sorted(set(units) - self.returned)
        assert lost == [], f"completed checks of the head that did not pass never returned: {lost}"
        quiet = self.runs() or self.statuses()
        quiet = quiet and not self.pending_runs() and not [
            s for s in self.statuses() if s.state == "pending"]
        if quiet:
            assert self.settled_heads.count(self.head()) == 1, (
                "the head's settled checks never returned checks_settled", self.settled_heads)
        cursor = self.checkpoint()["checks"]
        if units or quiet:  # else a new head with nothing to say yet: the cursor stays
            assert cursor["head_sha"] == self.head(), cursor
        if self.truth_mergeable is not None:
            assert cursor["mergeable"] is self.truth_mergeable, (cursor, self.truth_mergeable)


class InboxChecksModel(ChecksModel):
    inbox = True


CHECKS_EXAMPLES = max(8, EXAMPLES // 4)  # about half a second each


def _run(fake, tmp_path_factory, machine, examples):
    class Bound(machine):
        pass

    Bound.fake = fake

    def make():
        m = Bound()
        m.root = tmp_path_factory.mktemp("checks-model")
        return m

    run_state_machine_as_test(make, settings=settings(MODEL, max_examples=examples))


def test_checks_model_returns_each_failure_once_settles_once_and_idles_at_304(
        fake, tmp_path_factory, monkeypatch):
    virtual_waits(monkeypatch, fake)
    _run(fake, tmp_path_factory, ChecksModel, CHECKS_EXAMPLES)


def test_inbox_checks_model_returns_each_failure_once_settles_once_and_idles_at_304(
        fake, tmp_path_factory, monkeypatch):
    virtual_waits(monkeypatch, fake)
    _run(fake, tmp_path_factory, InboxChecksModel, max(5, EXAMPLES // 6))


# --------------------------------------------------------------------------- the oracles bite


def ci_sequence(m):
    """A failure and a pending job read and confirmed; the job times out, a status passes,
    mergeability turns false (null first); a new head whose last job passes during a wait;
    another whose only job passes."""
    m.seed(jobs=[("lint", None, "failure"), ("tests", None, None)])
    m.check_and_confirm(limit=20, flagged=True, confirm=True, killed=None)
    m.finish([0], ["timed_out", "success", "success"], True)
    m.status("ci/docs", "success")
    m.check_and_confirm(limit=20, flagged=True, confirm=True, killed=None)
    m.mergeability(False)  # null, then news of its own: the same head and checks done
    m.check_and_confirm(limit=20, flagged=True, confirm=True, killed=None)
    m.check_and_confirm(limit=20, flagged=True, confirm=True, killed=None)
    m.check_and_confirm(limit=20, flagged=True, confirm=True, killed=None)
    m.woken("last_pass")
    m.push(False)  # a head whose only job passed: plain checks settle it
    m.job("build", None, "success", False)
    m.teardown()


def test_the_checks_oracles_fail_when_the_cursor_the_settling_or_the_hint_goes_wrong(
        fake, tmp_path_factory, monkeypatch):
    """The oracles are not vacuous: the fixed sequence passes as built, alone and through the
    inbox, and fails when the round never moves its checks cursor, never settles a plain
    check, keeps no poll hint (idle polls no longer 304), or judges a snapshot whose news is
    mergeability turning false already applied (the defect the model found)."""
    from ghcomments.streams import checks as stream

    virtual_waits(monkeypatch, fake)
    machines = [ChecksModel, InboxChecksModel]

    def bound(machine):
        class Bound(machine):
            pass

        Bound.fake = fake
        m = Bound()
        m.root = tmp_path_factory.mktemp("m")
        return m

    for machine in machines:
        ci_sequence(bound(machine))
    applied = stream.ChecksStream.applied

    def blind(stored, target):  # the rule before the fix: mergeability not compared
        if stored is not None and target is not None:
            target = dict(target, mergeable=stored.get("mergeable"))
        return applied(stored, target)

    mutants = {
        "never moves its cursor": (stream.ChecksStream, "cursor_after",
                                   lambda self, items, previous: previous),
        "never settles a plain check": (stream, "PLAIN_SECONDS", 10 ** 9),
        "keeps no hint": (stream.ChecksStream, "valid_hint", staticmethod(lambda hint: False)),
        "ignores mergeability in applied": (stream.ChecksStream, "applied",
                                            staticmethod(blind)),
    }
    for name, (owner, attr, mutant) in mutants.items():
        failed = []
        for machine in machines:
            with monkeypatch.context() as mp:
                mp.setattr(owner, attr, mutant)
                try:
                    ci_sequence(bound(machine))
                except AssertionError:
                    failed.append(machine.__name__)
        assert failed, f"no sequence fails when the round {name}"
