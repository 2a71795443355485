"""The round engine tested as a model (CONTRACT section 14): hypothesis's rule-based state
machines drive random GitHub events between an agent's checks, confirms, `--update-state`
runs, `--limit` batches, waits and kills at the state store's pause points, against two
oracles:

- nothing lost or twice: the comments (reviews) the agent confirms, in order, are strictly
  ascending by cursor order and never repeat; every one that still exists after the first
  checkpoint is confirmed or was counted as left out by the filters;
- polls settle: once events stop and the agent has confirmed what it was given, the second
  check from then on is only conditional requests answered 304, within section 12's counts
  (asserted on the fake's request log, never on timing).

To be affordable the scripts' `main()` runs in-process (stdout captured, the environment the
subprocess would get); `test_model_subprocess_smoke` runs a short fixed sequence as real
processes. GH_MONITOR_MODEL_EXAMPLES raises the number of examples (default 30).
"""

from __future__ import annotations

import contextlib
import json
import os

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)

from tests.inprocess import InProcessAgent, state  # the scripts' package, imported there
from tests.inprocess import run_script as run_in_process
from tests.support import NAME, OWNER, Agent, run_script, script_env

ISSUE, PR = 5, 7
TOKEN_OWNER = "octocat"
EXAMPLES = int(os.environ.get("GH_MONITOR_MODEL_EXAMPLES") or 30)
MODEL = settings(max_examples=EXAMPLES, stateful_step_count=20, deadline=None,
                 derandomize=True,
                 suppress_health_check=[HealthCheck.function_scoped_fixture,
                                        HealthCheck.too_slow, HealthCheck.filter_too_much])


class Killed(BaseException):
    """A process killed at a pause point of the state store (nothing after it runs)."""


@contextlib.contextmanager
def killed_at(step):
    """Make the state store die at `step` ("write": the temp file half written; "rename":
    written, not renamed; "renamed": renamed, before the folder's fsync)."""
    real = state._pause

    def pause(name):
        if name == step:
            raise Killed(step)
        real(name)

    state._pause = pause
    try:
        yield
    finally:
        state._pause = real


class RoundModel(RuleBasedStateMachine):
    """What the issue and the pull-request machines share: the agent's side and the oracles."""

    fake = None
    root = None
    flag, number = "--issue", ISSUE
    settle_most = 1
    items_key = "new_comments"

    def __init__(self):
        super().__init__()
        self.confirmed = []
        self.filtered = set()
        self.first = None
        self.filters = []

    def agent(self):
        a = InProcessAgent(self.fake, self.root, self.flag, self.number)
        a.env = dict(a.env, GH_MONITOR_TEST_TIME_SCALE="0.002")
        return a

    # -- the agent ----------------------------------------------------------------------------
    def handled(self, doc):
        """What a document hands the agent: ids."""
        raise NotImplementedError

    def baseline_now(self):
        raise NotImplementedError

    def _checkpoint(self):
        path = self.agent().file()
        return path.read_bytes() if path.exists() else None

    def took(self, doc, before):
        """After a confirm: the batch was confirmed exactly when the checkpoint moved."""
        after = self._checkpoint()
        if self.first is None:
            if after is not None:
                self.first = self.baseline_now()
            return
        if after != before:
            self.confirmed += self.handled(doc)

    @rule(limit=st.sampled_from([2, 20, 100]), humans=st.booleans())
    def check_and_confirm(self, limit, humans):
        a = self.agent()
        args = ["--limit", limit, "--max-pages", 50] + (["--humans-only"] if humans else [])
        r = a.check(*args)
        assert r.code == 0, r
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)

    @rule(step=st.sampled_from(["write", "rename", "renamed"]))
    def confirm_killed(self, step):
        """A confirm killed at a pause point: the checkpoint is the old one or the new one;
        the agent retries the confirm (already applied, or applied now) and goes on."""
        a = self.agent()
        r = a.check("--limit", 20, "--max-pages", 50)
        assert r.code == 0, r
        before = self._checkpoint()
        with killed_at(step), contextlib.suppress(Killed):
            a.confirm(r.json["snapshot_id"])
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)

    @rule(seconds=st.sampled_from([10, 40]))
    def wait(self, seconds):
        a = self.agent()
        if not a.file().exists():
            return
        r = a.check("--wait", seconds, "--poll-interval", 5, "--max-pages", 50)
        assert r.code == 0, r
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)

    @rule()
    def settle(self):
        """Events have stopped: confirm what is there, then the second check is free."""
        a = self.agent()
        for _ in range(60):
            r = a.check("--limit", 100, "--max-pages", 50)
            assert r.code == 0, r
            before = self._checkpoint()
            c = a.confirm(r.json["snapshot_id"])
            assert c.code == 0, c
            self.took(r.json, before)
            if not r.json["has_updates"] and not r.json["more_available"]:
                break
        for _ in range(2):  # the check after the confirmed one may pay; the next is free
            r = a.check()
            assert r.code == 0 and r.json["has_updates"] is False, r
        seen = a.statuses()
        assert 1 <= len(seen) <= self.settle_most and set(seen) == {304}, a.fake.requests

    def teardown(self):
        self.settle()
        assert self.confirmed == sorted(set(self.confirmed), key=self.order), \
            "confirmed twice or out of order"
        missing = sorted(set(self.expected()) - set(self.confirmed))
        assert missing == [], f"lost: {missing[:10]}"

    def order(self, item):
        return item


class IssueModel(RoundModel):
    def baseline_now(self):
        return json.loads(self.agent().file().read_text())["last_comment_id"]

    def handled(self, doc):
        return [c["id"] for c in doc["new_comments"]]

    @initialize(initial=st.integers(0, 130))
    def seed(self, initial):
        self.fake.reset()
        self.fake.add_token(script_env(self.fake)["GH_TOKEN"], login=TOKEN_OWNER)
        self.fake.add_repo(OWNER, NAME)
        self.fake.add_issue(OWNER, NAME, ISSUE)
        self.fake.add_comments(OWNER, NAME, ISSUE, initial)

    def ids(self):
        return self.fake.comment_ids(OWNER, NAME, ISSUE)

    @rule(n=st.integers(1, 120), bot=st.booleans())
    def arrive(self, n, bot):
        made = self.fake.add_comments(OWNER, NAME, ISSUE, n,
                                      user="ci[bot]" if bot else "alice",
                                      user_type="Bot" if bot else "User")
        if bot:
            self.filtered |= set(made)

    @rule(which=st.sampled_from(["newest", "checkpoint", "old"]), pick=st.integers(0, 10**6))
    def edit(self, which, pick):
        cid = self._pick(which, pick)
        if cid is not None:
            self.fake.edit_comment(cid, f"edited {pick}")

    @rule(which=st.sampled_from(["newest", "checkpoint", "old"]), pick=st.integers(0, 10**6))
    def delete(self, which, pick):
        cid = self._pick(which, pick)
        if cid is not None:
            self.fake.delete_comment(cid)

    def _pick(self, which, pick):
        ids = self.ids()
        if not ids:
            return None
        if which == "newest":
            return ids[-1]
        if which == "checkpoint":
            path = self.agent().file()
            if path.exists():
                cid = json.loads(path.read_text())["last_comment_id"]
                return cid if cid in ids else None
            return None
        return ids[pick % len(ids)]

    @rule(limit=st.sampled_from([3, 50]))
    def update_state(self, limit):
        before = self._checkpoint()
        r = self.agent().latest("--update-state", "--limit", limit, "--max-pages", 50)
        assert r.code == 0, r
        self.took({"new_comments": r.json["comments"]}, before)

    def expected(self):
        if self.first is None:
            return []
        return [i for i in self.ids() if i > self.first and i not in self.filtered]


class PullRequestModel(RoundModel):
    flag, number = "--pr", PR
    settle_most = 2

    def baseline_now(self):
        return (set(self.fake.review_ids(OWNER, NAME, PR)),
                set(self.fake.review_comment_ids(OWNER, NAME, PR)))

    def handled(self, doc):
        return [r["id"] for r in doc["new_reviews"]] + [
            ("c", c["id"]) for c in doc["new_review_comments"]]

    @initialize(initial=st.integers(0, 6), order=st.sampled_from(["id", "submitted"]))
    def seed(self, initial, order):
        self.fake.reset()
        self.fake.add_token(script_env(self.fake)["GH_TOKEN"], login=TOKEN_OWNER)
        self.fake.add_repo(OWNER, NAME)
        self.fake.add_pull(OWNER, NAME, PR, title="Add the parser")
        self.fake.review_order = order
        self.drafts = []
        self.mine = None
        for _ in range(initial):
            self.submitted(state="APPROVED")

    def submitted(self, state="COMMENTED", comments=1, user="bob"):
        notes = [{"path": f"f{i}.py", "line": i + 1, "body": "n"} for i in range(comments)]
        made = self.fake.start_review(OWNER, NAME, PR, user, body="see", comments=notes)
        self.fake.advance(30)
        self.fake.submit_review(made["id"], state=state)
        self.fake.advance(30)
        return made["id"]

    @rule(state=st.sampled_from(["COMMENTED", "APPROVED", "CHANGES_REQUESTED"]),
          comments=st.integers(0, 3))
    def review(self, state, comments):
        self.submitted(state, comments, user="carol")

    @rule()
    def draft(self):
        made = self.fake.start_review(OWNER, NAME, PR, "dave", body="late",
                                      comments=[{"path": "d.py", "line": 3, "body": "late"}])
        self.drafts.append(made["id"])
        self.fake.advance(30)

    @precondition(lambda self: self.drafts)
    @rule(pick=st.integers(0, 100))
    def submit_late(self, pick):
        rid = self.drafts.pop(pick % len(self.drafts))
        self.fake.submit_review(rid, state="COMMENTED")
        self.fake.advance(30)

    @rule()
    def own_draft(self):
        if self.mine is None:
            self.mine = self.fake.start_review(OWNER, NAME, PR, TOKEN_OWNER, body="mine")["id"]
        else:
            self.fake.delete_pending_review(self.mine)
            self.mine = None
        self.fake.advance(30)

    @rule(pick=st.integers(0, 100))
    def dismiss(self, pick):
        for rid in self.fake.review_ids(OWNER, NAME, PR):
            if self.fake.get_review(rid)["state"] in ("APPROVED", "CHANGES_REQUESTED"):
                self.fake.dismiss_review(rid, "stale")
                break

    @rule(pick=st.integers(0, 100))
    def reply(self, pick):
        ids = self.fake.review_comment_ids(OWNER, NAME, PR)
        if ids:
            self.fake.reply_to_review_comment(ids[pick % len(ids)], "erin", "ok")
            self.fake.advance(30)

    def teardown(self):
        self.settle()
        reviews = [i for i in self.confirmed if isinstance(i, int)]
        comments = [c for i, c in (x for x in self.confirmed if not isinstance(x, int))]
        assert len(reviews) == len(set(reviews)), "a review was confirmed twice"
        assert len(comments) == len(set(comments)), "an inline comment was confirmed twice"
        if self.first is None:
            return
        old_reviews, old_comments = self.first
        wrappers = set()
        for rid in self.fake.review_ids(OWNER, NAME, PR):
            r = self.fake.get_review(rid)
            if r["state"] == "COMMENTED" and not (r["body"] or "").strip():
                wrappers.add(rid)  # bodiless: listed only with --include-system
        expected = set(self.fake.review_ids(OWNER, NAME, PR)) - old_reviews - wrappers
        assert sorted(expected - set(reviews)) == [], "reviews lost"
        assert set(reviews) <= set(self.fake.review_ids(OWNER, NAME, PR)) - old_reviews, \
            "a review handled before the first checkpoint came back"
        lost = set(self.fake.review_comment_ids(OWNER, NAME, PR)) - old_comments - set(comments)
        assert sorted(lost) == [], "inline comments lost"


FLAG = "--include-edits"


def _time(x):
    import datetime as _dt

    return _dt.datetime.fromisoformat(x.replace("Z", "+00:00"))


def _ahead_of_the_read(fake):
    """After a read: the data clock past the read's `Date` (the fake's Date follows its data
    clock here, as GitHub's does), so an edit made after the read is dated after it, as on
    GitHub (section 19 turn 5 compares GitHub's updated_at with the read's Date)."""
    import datetime as _dt

    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    fake.clock = max(fake.clock, now) + _dt.timedelta(seconds=1)


class EditsOracle:
    """Section 19 turn 5's oracle, shared by both machines: tracking begins at the read of
    the first confirmed snapshot (with or without the flag); every edit made after it (dated
    at or after its `tracked_since`: an edit GitHub shows late, dated before, is excused as
    section 19 says) is returned exactly once, and an edited item the agent was given comes
    with that text as `previous_body` when GitHub's history holds it."""

    def start_tracking(self):
        self.known, self.given = {}, {}
        self.baseline = None    # bodies at the read of the first confirmed snapshot
        self.tracked = None     # its tracked_since
        self.dirty = set()      # comments edited after it
        self.edit_log = []      # every edit: (comment id, its updated_at)
        self._read_at = 0       # len(edit_log) at the last check's read
        self._read_bodies = {}

    def logged_edit(self, cid, at):
        self.edit_log.append((cid, at))
        if self.baseline is not None and at >= self.tracked:
            self.dirty.add(cid)

    def begin(self, cp):
        """The first confirmed snapshot: what its read saw is the baseline."""
        self.baseline = self._read_bodies
        self.known.update(self.baseline)
        since = cp.get("tracked_since") or cp.get("read_at")
        assert since, f"a checkpoint without read_at: {cp}"
        self.tracked = _time(since)
        self.dirty = {cid for cid, at in self.edit_log[self._read_at:] if at >= self.tracked}

    def check_edited(self, items):
        for c in items:
            assert self.known.get(c["id"]) != c["body"], \
                f"edit of {c['id']} returned twice ({c['body']!r})"
            if c["id"] in self.given and c["previous_body"] is not None:
                assert c["previous_body"] == self.given[c["id"]], (c, self.given[c["id"]])
            assert c["previous_body_source"] in ("seen", "original", "as_of",
                                                 "history_unavailable", "revision_deleted"), c


class IssueEditsModel(EditsOracle, IssueModel):
    """The issue machine with edits (CONTRACT section 19): edits of any comment, several in one
    second, some visible late (an `updated_at` up to half an hour old); checks with and without
    --include-edits, --update-state and partial confirms (--through) among the steps; and a
    third oracle (section 19 turn 5, EditsOracle): every edit of a human comment made after
    the read of the first confirmed snapshot — flagged or not, so first asks come on rounds of
    every age — is returned exactly once (no report repeats a body the agent already has),
    with the text the agent was given as `previous_body` when GitHub's history holds it,
    before a later confirmed watermark passes it (after settling with the flag, the agent
    holds every such comment's current text)."""

    settle_most = 2  # with the flag: one more conditional request, answered 304

    def __init__(self):
        super().__init__()
        self.start_tracking()

    # -- events --------------------------------------------------------------------------------
    @initialize(initial=st.integers(0, 130))
    def seed(self, initial):
        super().seed(initial)
        self.fake.date_follows_clock = True  # GitHub's Date and its data agree

    @rule(n=st.integers(1, 40), bot=st.booleans())
    def arrive(self, n, bot):
        made = self.fake.add_comments(OWNER, NAME, ISSUE, n, step_seconds=1,
                                      user="ci[bot]" if bot else "alice",
                                      user_type="Bot" if bot else "User")
        if bot:
            self.filtered |= set(made)

    @rule(which=st.sampled_from(["newest", "checkpoint", "old"]), pick=st.integers(0, 10**6),
          tick=st.sampled_from([0, 0, 1, 61]), lag=st.sampled_from([0, 0, 5, 1800]))
    def edit(self, which, pick, tick, lag):
        """An edit now (several may share a second), or one visible `lag` seconds late."""
        cid = self._pick(which, pick)
        if cid is None:
            return
        self.fake.advance(tick)
        import datetime as _dt
        current = _dt.datetime.fromisoformat(
            self.fake.get_comment(cid)["updated_at"].replace("Z", "+00:00"))
        # never older than the version it replaces (GitHub's times only grow), and never the
        # second of the comment's creation (updated_at = created_at hides any edit: GitHub's
        # own `edited` is false then; section 19 reports it only with a hash given)
        at = max(self.fake.clock - _dt.timedelta(seconds=lag), current,
                 _dt.datetime.fromisoformat(self.fake.get_comment(cid)["created_at"]
                                            .replace("Z", "+00:00")) + _dt.timedelta(seconds=1))
        self.fake.edit_comment(cid, f"edited {pick} at {self.fake.clock.isoformat()}", at=at)
        self.logged_edit(cid, at)

    # -- the agent -----------------------------------------------------------------------------
    def bodies(self):
        return {i: self.fake.get_comment(i)["body"] for i in self.ids()}

    def took(self, doc, before, partial=False):
        super().took(doc, before)
        if self._checkpoint() == before:
            return
        if self.baseline is None:
            # the first confirmed snapshot: tracking begins at its read (edits before it need
            # not be reported; those after it, even before this confirm, must)
            self.begin(json.loads(self.agent().file().read_text()))
        for c in doc.get("new_comments") or []:
            self.known[c["id"]] = self.given[c["id"]] = c["body"]
        if not partial:
            for c in doc.get("edited_comments") or []:
                self.known[c["id"]] = self.given[c["id"]] = c["body"]

    def watermark(self):
        path = self.agent().file()
        return json.loads(path.read_text()).get("edits") if path.exists() else None

    def checked(self, a, *args):
        r = a.check(*args)
        assert r.code == 0, r
        self.check_edited(r.json.get("edited_comments") or [])  # every document
        self._read_bodies = self.bodies()
        self._read_at = len(self.edit_log)
        _ahead_of_the_read(self.fake)
        return r

    @rule(limit=st.sampled_from([3, 50]))
    def update_state(self, limit):
        """--update-state (a write without the flag; it may write the first checkpoint)."""
        before = self._checkpoint()
        r = self.agent().latest("--update-state", "--limit", limit, "--max-pages", 50)
        assert r.code == 0, r
        self._read_bodies = self.bodies()
        self._read_at = len(self.edit_log)
        _ahead_of_the_read(self.fake)
        self.took({"new_comments": r.json["comments"]}, before, partial=True)

    @rule(limit=st.sampled_from([2, 20, 100]), humans=st.booleans(), flag=st.booleans())
    def check_and_confirm(self, limit, humans, flag=True):
        a = self.agent()
        args = ["--limit", limit, "--max-pages", 50] + (["--humans-only"] if humans else [])
        r = self.checked(a, *args, *([FLAG] if flag else []))
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)

    @rule(pick=st.integers(0, 10**6))
    def edit_between_check_and_confirm(self, pick):
        a = self.agent()
        r = self.checked(a, FLAG, "--limit", 20, "--max-pages", 50)
        self.edit("old", pick, 1, 0)
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)

    @rule(limit=st.sampled_from([3, 50]), flag=st.booleans())
    def through(self, limit, flag):
        """A partial confirm: up to the first returned comment."""
        a = self.agent()
        if not a.file().exists():
            return
        r = self.checked(a, "--limit", limit, "--max-pages", 50, *([FLAG] if flag else []))
        new = r.json["new_comments"]
        if not new:
            return
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"], "--through", new[0]["id"])
        assert c.code == 0, c
        self.took(dict(r.json, new_comments=new[:1]), before, partial=True)

    @rule(seconds=st.sampled_from([10, 40]))
    def wait(self, seconds):
        a = self.agent()
        if not a.file().exists():
            return
        r = self.checked(a, FLAG, "--wait", seconds, "--poll-interval", 5, "--max-pages", 50)
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)

    @rule()
    def settle(self):
        a = self.agent()
        for _ in range(60):
            r = self.checked(a, FLAG, "--limit", 100, "--max-pages", 50)
            before = self._checkpoint()
            c = a.confirm(r.json["snapshot_id"])
            assert c.code == 0, c
            self.took(r.json, before)
            if not r.json["has_updates"] and not r.json["more_available"]:
                break
        for _ in range(2):
            r = a.check(FLAG)
            assert r.code == 0 and r.json["has_updates"] is False, r
        seen = a.statuses()
        assert 1 <= len(seen) <= 1 + self.window_pages() and set(seen) == {304}, \
            a.fake.requests

    def window_pages(self):
        """e of section 18's table: the pages of the `since` window (1 unless over 100
        comments were updated in the hour before the watermark)."""
        mark = self.watermark()
        if mark is None:
            return 0
        import datetime as _dt

        def t(x):
            return _dt.datetime.fromisoformat(x.replace("Z", "+00:00"))
        floor = t(mark["through"]) - _dt.timedelta(hours=1)
        n = sum(1 for i in self.ids() if t(self.fake.get_comment(i)["updated_at"]) >= floor)
        return n // 100 + 1

    def teardown(self):
        super().teardown()
        if self.baseline is None:
            return
        last = json.loads(self.agent().file().read_text())["last_comment_id"]
        bodies = self.bodies()
        stale = sorted(i for i in self.dirty if i in bodies and i <= last
                       and i not in self.filtered and self.known.get(i) != bodies[i])
        assert stale == [], f"edits lost: {stale[:10]}"


class PullRequestEditsModel(EditsOracle, PullRequestModel):
    """The pull-request machine with inline comments edited (several in one second) and every
    check, wait and settle passing --include-edits; the third oracle on the inline comments
    of passed reviews: no report repeats a text the agent has, and after settling the agent
    holds the current text of every one edited after tracking began (EditsOracle); checks
    without the flag come between flagged ones."""

    settle_most = 4  # with the flag: one more conditional request per list

    def __init__(self):
        super().__init__()
        self.start_tracking()

    @initialize(initial=st.integers(0, 6), order=st.sampled_from(["id", "submitted"]))
    def seed(self, initial, order):
        super().seed(initial, order)
        self.fake.date_follows_clock = True  # GitHub's Date and its data agree

    def body_of(self, cid):
        return self.fake.store.review_comments[cid].body

    @rule(pick=st.integers(0, 10**6), tick=st.sampled_from([0, 0, 1, 61]))
    def edit_inline(self, pick, tick):
        ids = self.fake.review_comment_ids(OWNER, NAME, PR)
        if not ids:
            return
        cid = ids[pick % len(ids)]
        self.fake.advance(tick)
        import datetime as _dt
        created = self.fake.store.review_comments[cid].created_at
        at = max(self.fake.clock, created + _dt.timedelta(seconds=1))
        self.fake.edit_review_comment(cid, f"edited {pick} at {at.isoformat()}", at=at)
        self.logged_edit(cid, at)

    def checked(self, a, *args, flag=True):
        r = a.check(*([FLAG] if flag else []), *args)
        assert r.code == 0, r
        self.check_edited(r.json.get("edited_review_comments") or [])
        self._read_bodies = {i: self.body_of(i)
                             for i in self.fake.review_comment_ids(OWNER, NAME, PR)}
        self._read_at = len(self.edit_log)
        _ahead_of_the_read(self.fake)
        return r

    def took(self, doc, before):
        super().took(doc, before)
        if self._checkpoint() == before:
            return
        if self.baseline is None:
            self.begin(json.loads(self.agent().file().read_text()))
        for c in (doc.get("new_review_comments") or []) + (
                doc.get("edited_review_comments") or []):
            self.known[c["id"]] = self.given[c["id"]] = c["body"]

    @rule(limit=st.sampled_from([2, 20, 100]))
    def check_and_confirm_without_the_flag(self, limit):
        """A check without the flag between flagged ones: it keeps `seen`, and the edits made
        meanwhile come at the next flagged check."""
        a = self.agent()
        r = self.checked(a, "--limit", limit, "--max-pages", 50, flag=False)
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)

    @rule(limit=st.sampled_from([2, 20, 100]), humans=st.booleans())
    def check_and_confirm(self, limit, humans):
        a = self.agent()
        r = self.checked(a, "--limit", limit, "--max-pages", 50,
                         *(["--humans-only"] if humans else []))
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)

    @rule(seconds=st.sampled_from([10, 40]))
    def wait(self, seconds):
        a = self.agent()
        if not a.file().exists():
            return
        r = self.checked(a, "--wait", seconds, "--poll-interval", 5, "--max-pages", 50)
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)

    @rule()
    def settle(self):
        a = self.agent()
        for _ in range(60):
            r = self.checked(a, "--limit", 100, "--max-pages", 50)
            before = self._checkpoint()
            c = a.confirm(r.json["snapshot_id"])
            assert c.code == 0, c
            self.took(r.json, before)
            if not r.json["has_updates"] and not r.json["more_available"]:
                break
        for _ in range(2):
            r = a.check(FLAG)
            assert r.code == 0 and r.json["has_updates"] is False, r
        seen = a.statuses()
        assert 1 <= len(seen) <= self.settle_most and set(seen) == {304}, a.fake.requests

    def teardown(self):
        super().teardown()
        if self.baseline is None:
            return
        visible = set(self.fake.review_comment_ids(OWNER, NAME, PR))
        stale = sorted(i for i in self.dirty if i in visible
                       and self.known.get(i) != self.body_of(i))
        assert stale == [], f"inline edits lost: {stale[:10]}"


@pytest.mark.parametrize("machine", [IssueModel, PullRequestModel, IssueEditsModel,
                                     PullRequestEditsModel],
                         ids=["issue", "pr", "issue-edits", "pr-edits"])
def test_model_loses_nothing_repeats_nothing_and_settles(fake, tmp_path_factory, machine):
    class Bound(machine):
        pass

    Bound.fake = fake

    def make():
        m = Bound()
        m.root = tmp_path_factory.mktemp("model")
        return m

    # the edits machines run every check with a `since` read (and, on a PR, GraphQL for the
    # threads of edited inline comments): a third of the examples keeps them within the
    # suite's per-test timeout on a busy 2-core machine
    edits = machine in (IssueEditsModel, PullRequestEditsModel)
    run_state_machine_as_test(make, settings=settings(
        MODEL, max_examples=max(5, EXAMPLES // 3)) if edits else MODEL)


def _edits_machine(fake, root):
    class Bound(IssueEditsModel):
        pass

    Bound.fake = fake
    m = Bound()
    m.root = root
    m.seed(initial=5)
    return m


def late_edit_sequence(m):
    """An edit moves the watermark; then an edit made earlier becomes visible (late)."""
    m.check_and_confirm(limit=20, humans=False, flag=True)  # establishes the watermark
    m.edit(which="newest", pick=0, tick=600, lag=0)
    m.check_and_confirm(limit=20, humans=False, flag=True)  # reports it; W = now
    m.edit(which="old", pick=1, tick=0, lag=300)  # updated 5 minutes ago, visible now
    m.teardown()


def repeated_edit_sequence(m):
    """An edit reported and confirmed; a comment arrives (the window changes), checked again."""
    m.check_and_confirm(limit=20, humans=False, flag=True)
    m.edit(which="old", pick=2, tick=61, lag=0)
    m.check_and_confirm(limit=20, humans=False, flag=True)
    m.arrive(n=1, bot=False)
    m.check_and_confirm(limit=20, humans=False, flag=True)
    m.teardown()


def first_ask_sequence(m):
    """Section 19 turn 5: a round handled without the flag (twice), edits after it, then the
    first flagged check: it must report them (the first ask), with the handled text."""
    m.check_and_confirm(limit=20, humans=False, flag=False)
    m.edit(which="old", pick=1, tick=61, lag=0)
    m.arrive(n=2, bot=False)
    m.check_and_confirm(limit=20, humans=False, flag=False)
    m.edit(which="old", pick=3, tick=1, lag=0)
    m.edit(which="old", pick=3, tick=0, lag=0)  # twice in one second
    m.check_and_confirm(limit=20, humans=False, flag=True)
    m.teardown()


def test_the_edit_oracle_fails_without_the_overlap_or_the_dedup(fake, tmp_path_factory,
                                                                  monkeypatch):
    """The third oracle is not vacuous: the fixed sequences pass as built, and fail when the
    hour of overlap is removed (a late edit is lost) or `seen` is ignored (an edit comes
    back). The engine runs in-process, so the two rules are replaced for this test only."""
    from ghcomments.store import edits

    late_edit_sequence(_edits_machine(fake, tmp_path_factory.mktemp("m")))
    repeated_edit_sequence(_edits_machine(fake, tmp_path_factory.mktemp("m")))
    with monkeypatch.context() as mp:
        mp.setattr(edits, "OVERLAP_SECONDS", 0)
        with pytest.raises(AssertionError, match="edits lost"):
            late_edit_sequence(_edits_machine(fake, tmp_path_factory.mktemp("m")))
    with monkeypatch.context() as mp:
        mp.setattr(edits, "is_edit", lambda raw, seen: edits.edited_since_given(raw))
        with pytest.raises(AssertionError, match="returned twice"):
            repeated_edit_sequence(_edits_machine(fake, tmp_path_factory.mktemp("m")))


def test_the_first_ask_oracle_fails_when_the_first_flagged_check_only_sets_a_watermark(
        fake, tmp_path_factory, monkeypatch):
    """The turn-5 oracle is not vacuous either: the first-ask sequence passes as built and
    fails when the first flagged check only establishes W (the rule before turn 5)."""
    from ghcomments.store import edits

    first_ask_sequence(_edits_machine(fake, tmp_path_factory.mktemp("m")))
    decide = edits.decide
    with monkeypatch.context() as mp:
        mp.setattr(edits, "decide", lambda *a, **kw: decide(*a, **dict(kw, floor=None)))
        with pytest.raises(AssertionError, match="edits lost"):
            first_ask_sequence(_edits_machine(fake, tmp_path_factory.mktemp("m")))


def test_model_subprocess_smoke(fake, tmp_path):
    """A short fixed sequence of the machine's steps as real processes."""
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    made = fake.add_comments(OWNER, NAME, ISSUE, 30)
    a = Agent(fake, tmp_path, "--issue", ISSUE)
    a.look_and_confirm()
    fake.edit_comment(made[-1], "typo fixed")
    fake.delete_comment(made[-2])
    new = fake.add_comments(OWNER, NAME, ISSUE, 3, user="ci[bot]", user_type="Bot")
    r = a.check("--humans-only")
    assert r.code == 0 and r.json["filtered_out"] == {"humans_only": 3}, r
    assert a.confirm(r.json["snapshot_id"]).code == 0
    assert run_script("check_issue_updates.py", "--repo", f"{OWNER}/{NAME}", "--issue", ISSUE,
                      "--root", tmp_path, env=a.env).code == 0
    r = a.check()
    assert r.code == 0 and r.json["new_comments"] == [] and set(a.statuses()) == {304}, r
    assert new[-1] == json.loads(a.file().read_text())["last_comment_id"]


# --------------------------------------------------------------------------- the inbox

ROUNDS = {f"{OWNER}/{NAME}/issues/5": ("--issue", 5), f"{OWNER}/{NAME}/issues/9": ("--issue", 9),
          f"{OWNER}/{NAME}/pull/7": ("--pr", 7)}
INBOX_EXAMPLES = max(3, EXAMPLES // 3)


class InboxModel(RuleBasedStateMachine):
    """Inbox checks, waits and confirms (CONTRACT section 18) interleaved with single-round
    checks and confirms of the same rounds and random GitHub events, against the two oracles
    of every round: nothing lost or twice, and settled polls all 304."""

    fake = None
    root = None

    def __init__(self):
        super().__init__()
        self.confirmed = {k: [] for k in ROUNDS}
        self.filtered = {k: set() for k in ROUNDS}
        self.first = {k: None for k in ROUNDS}
        self.drafts = []  # reviews started before later ones, submitted late (issue 31)
        self.mine = None  # the token owner's pending review

    @property
    def env(self):
        return dict(script_env(self.fake), GH_MONITOR_TEST_TIME_SCALE="0.002")

    def agent(self, key):
        flag, number = ROUNDS[key]
        a = InProcessAgent(self.fake, self.root, flag, number)
        a.env = self.env
        return a

    def follow(self):
        out = []
        for key in ROUNDS:
            out += ["--follow", key]
        return out

    def inbox(self, *args):
        self.fake.clear_log()
        return run_in_process("check_issue_updates.py", "--root", self.root, *self.follow(),
                              *args, env=self.env)

    def inbox_confirm(self, snapshot_id):
        self.fake.clear_log()
        return run_in_process("get_latest_comments.py", "--root", self.root, "--followed",
                              "--confirm-updates", "--snapshot-id", snapshot_id, env=self.env)

    def checkpoints(self):
        out = {}
        for key in ROUNDS:
            path = self.agent(key).file()
            out[key] = path.read_bytes() if path.exists() else None
        return out

    @staticmethod
    def handled(key, doc):
        if doc is None:
            return []
        if "/pull/" in key:
            return [r["id"] for r in doc["new_reviews"]] + [
                ("c", c["id"]) for c in doc["new_review_comments"]]
        return [c["id"] for c in doc["new_comments"]]

    def baseline(self, key):
        if "/pull/" in key:
            return (set(self.fake.review_ids(OWNER, NAME, PR)),
                    set(self.fake.review_comment_ids(OWNER, NAME, PR)))
        return json.loads(self.agent(key).file().read_text())["last_comment_id"]

    def took(self, key, doc, before):
        after = self.checkpoints()[key]
        if self.first[key] is None:
            if after is not None:
                self.first[key] = self.baseline(key)
            return
        if after != before:
            self.confirmed[key] += self.handled(key, doc)

    def took_inbox(self, doc, before):
        rounds = {c["key"]: c for c in doc["conversations"]}
        for key in ROUNDS:
            self.took(key, rounds.get(key), before[key])

    # -- GitHub --------------------------------------------------------------------------------
    @initialize(initial=st.integers(0, 40))
    def seed(self, initial):
        self.fake.reset()
        self.fake.add_token(script_env(self.fake)["GH_TOKEN"], login=TOKEN_OWNER)
        self.fake.add_repo(OWNER, NAME)
        for n in (5, 9):
            self.fake.add_issue(OWNER, NAME, n)
            self.fake.add_comments(OWNER, NAME, n, initial + n)
        self.fake.add_pull(OWNER, NAME, PR, title="Add the parser")
        self.fake.review_order = "id"
        self.review("APPROVED", 1)

    @rule(number=st.sampled_from([5, 9]), n=st.integers(1, 60), bot=st.booleans())
    def arrive(self, number, n, bot):
        made = self.fake.add_comments(OWNER, NAME, number, n,
                                      user="ci[bot]" if bot else "alice",
                                      user_type="Bot" if bot else "User")
        if bot:
            self.filtered[f"{OWNER}/{NAME}/issues/{number}"] |= set(made)

    @rule(number=st.sampled_from([5, 9]), pick=st.integers(0, 10**6), delete=st.booleans())
    def change(self, number, pick, delete):
        ids = self.fake.comment_ids(OWNER, NAME, number)
        if ids:
            cid = ids[pick % len(ids)]
            if delete:
                self.fake.delete_comment(cid)
            else:
                self.fake.edit_comment(cid, f"edited {pick}")

    @rule(state=st.sampled_from(["COMMENTED", "APPROVED"]), comments=st.integers(0, 3))
    def review(self, state, comments):
        notes = [{"path": f"f{i}.py", "line": i + 1, "body": "n"} for i in range(comments)]
        made = self.fake.start_review(OWNER, NAME, PR, "carol", body="see", comments=notes)
        self.fake.advance(30)
        self.fake.submit_review(made["id"], state=state)
        self.fake.advance(30)

    # -- review events the single round's model drives too (issue 31, section 22) ---------------
    @rule()
    def draft(self):
        made = self.fake.start_review(OWNER, NAME, PR, "dave", body="late")
        self.drafts.append(made["id"])
        self.fake.advance(5)

    @precondition(lambda self: self.drafts)
    @rule(pick=st.integers(0, 100), when=st.sampled_from(["now", "same_second", "earlier"]))
    def submit_late(self, pick, when):
        """A review drafted before later ones (a smaller id) submitted now, in the second of
        the newest submitted review, or with an earlier `submitted_at`."""
        rid = self.drafts.pop(pick % len(self.drafts))
        at = None
        if when != "now":
            newest = max((self.fake.get_review(r)["submitted_at"]
                          for r in self.fake.review_ids(OWNER, NAME, PR)), default=None)
            if newest is not None:
                import datetime as dt

                at = dt.datetime.fromisoformat(newest.replace("Z", "+00:00"))
                if when == "earlier":
                    at -= dt.timedelta(seconds=40)
        self.fake.submit_review(rid, state="COMMENTED", body="submitted late", submitted_at=at)
        self.fake.advance(30)

    @rule()
    def own_draft(self):
        if self.mine is None:
            self.mine = self.fake.start_review(OWNER, NAME, PR, TOKEN_OWNER, body="mine")["id"]
        else:
            self.fake.delete_pending_review(self.mine)
            self.mine = None
        self.fake.advance(30)

    @rule()
    def dismiss(self):
        for rid in self.fake.review_ids(OWNER, NAME, PR):
            if self.fake.get_review(rid)["state"] in ("APPROVED", "CHANGES_REQUESTED"):
                self.fake.dismiss_review(rid, "stale")
                break

    # -- the agent -----------------------------------------------------------------------------
    @rule(total=st.sampled_from([3, 100]), humans=st.booleans())
    def inbox_check_and_confirm(self, total, humans):
        r = self.inbox("--max-total", total, "--max-pages", 50,
                       *(["--humans-only"] if humans else []))
        assert r.code == 0, r
        before = self.checkpoints()
        c = self.inbox_confirm(r.json["snapshot_id"])
        assert c.code == 0 and c.json["refused"] == [], c
        self.took_inbox(r.json, before)

    @rule(key=st.sampled_from(sorted(ROUNDS)), limit=st.sampled_from([2, 20]))
    def single_check_and_confirm(self, key, limit):
        a = self.agent(key)
        r = a.check("--limit", limit, "--max-pages", 50)
        assert r.code == 0, r
        before = self.checkpoints()[key]
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(key, r.json, before)

    @rule(key=st.sampled_from(sorted(ROUNDS)))
    def single_confirm_between_inbox_check_and_confirm(self, key):
        """The inbox read; then one round checked and confirmed alone; then the inbox
        snapshot confirmed: that round is refused or already applied, the others confirmed."""
        r = self.inbox("--max-pages", 50)
        assert r.code == 0, r
        self.single_check_and_confirm(key, 2)
        before = self.checkpoints()
        c = self.inbox_confirm(r.json["snapshot_id"])
        assert c.code in (0, 7), c
        assert {x["key"] for x in c.json["refused"]} <= {key}, c
        self.took_inbox(r.json, before)

    @precondition(lambda self: all(v is not None for v in self.first.values()))
    @rule(seconds=st.sampled_from([10, 40]))
    def inbox_wait(self, seconds):
        r = self.inbox("--wait", seconds, "--poll-interval", 5, "--max-pages", 50)
        assert r.code == 0, r
        before = self.checkpoints()
        c = self.inbox_confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took_inbox(r.json, before)

    @rule()
    def settle(self):
        for _ in range(60):
            r = self.inbox("--max-pages", 50, "--limit", 100)
            assert r.code == 0, r
            before = self.checkpoints()
            c = self.inbox_confirm(r.json["snapshot_id"])
            assert c.code == 0, c
            self.took_inbox(r.json, before)
            if not r.json["has_updates"] and not r.json["more_in"] and not [
                    x for x in r.json["conversations"] if x["more_available"]]:
                break
        for _ in range(2):  # the check after the confirmed one may pay; the next is free
            r = self.inbox()
            assert r.code == 0 and r.json["has_updates"] is False, r
        seen = [q.status for q in self.fake.requests]
        assert 1 <= len(seen) <= 2 * 1 + 2 and set(seen) == {304}, self.fake.requests

    @rule()
    def settles_as_alone(self):
        """A round read through the inbox settles exactly as the same round alone (section
        22): check -> confirm -> check is all 304 (the confirm never reinstalls a stale hint),
        and each round checked alone afterwards is all 304 too; "already applied" compares the
        whole cursor, so nothing confirmed comes back."""
        self.settle()
        r = self.inbox()
        assert r.code == 0 and r.json["has_updates"] is False, r
        before = self.checkpoints()
        c = self.inbox_confirm(r.json["snapshot_id"])
        assert c.code == 0 and c.json["refused"] == [], c
        self.took_inbox(r.json, before)
        r = self.inbox()
        assert r.code == 0 and r.json["has_updates"] is False, r
        seen = [q.status for q in self.fake.requests]
        assert 1 <= len(seen) <= 2 * 1 + 2 and set(seen) == {304}, self.fake.requests
        for key in ROUNDS:
            a = self.agent(key)
            r = a.check()
            assert r.code == 0 and r.json["has_updates"] is False, r
            assert set(a.statuses()) == {304}, (key, self.fake.requests)

    def teardown(self):
        self.settle()
        for key in ROUNDS:
            got = self.confirmed[key]
            if "/pull/" in key:
                reviews = [i for i in got if isinstance(i, int)]
                comments = [c for _c, c in (x for x in got if not isinstance(x, int))]
                assert len(reviews) == len(set(reviews)), f"{key}: a review twice"
                assert len(comments) == len(set(comments)), f"{key}: a comment twice"
                if self.first[key] is None:
                    continue
                old_reviews, old_comments = self.first[key]
                wrappers = {rid for rid in self.fake.review_ids(OWNER, NAME, PR)
                            if self.fake.get_review(rid)["state"] == "COMMENTED"
                            and not (self.fake.get_review(rid)["body"] or "").strip()}
                expected = set(self.fake.review_ids(OWNER, NAME, PR)) - old_reviews - wrappers
                assert sorted(expected - set(reviews)) == [], f"{key}: reviews lost"
                lost = (set(self.fake.review_comment_ids(OWNER, NAME, PR)) - old_comments
                        - set(comments))
                assert sorted(lost) == [], f"{key}: inline comments lost"
                continue
            assert got == sorted(set(got)), f"{key}: confirmed twice or out of order"
            if self.first[key] is None:
                continue
            number = ROUNDS[key][1]
            expected = [i for i in self.fake.comment_ids(OWNER, NAME, number)
                        if i > self.first[key] and i not in self.filtered[key]]
            missing = sorted(set(expected) - set(got))
            assert missing == [], f"{key}: lost {missing[:10]}"


def test_inbox_model_loses_nothing_repeats_nothing_and_settles(fake, tmp_path_factory):
    class Bound(InboxModel):
        pass

    Bound.fake = fake

    def make():
        m = Bound()
        m.root = tmp_path_factory.mktemp("inbox-model")
        return m

    run_state_machine_as_test(make, settings=settings(MODEL, max_examples=INBOX_EXAMPLES))
