"""Section 14's model test with what happened (CONTRACT section 21, `--include-events`): the
issue and pull-request machines of tests/test_round_model.py (and their `--include-edits`
variants) gain GitHub events of each kind — in bursts, several in one second, by people, by
bots, by the user and by a login the agent ignores, under either order of the events list —
and, on a pull request, pushes and force pushes (some with old commit dates); the agent's
checks pass `--include-events` (sometimes not), with `--humans-only`, `--ignore-author` or
`--limit 2` sometimes, confirm (sometimes not), wait, and are killed at the state store's
pause points. The oracles:

- every event made after the read of the first confirmed snapshot is returned exactly once:
  each confirmed snapshot returns exactly the events between the checkpoint's event cursor
  before and after it (by id; the first ask: those created at or after the checkpoint's
  `tracked_since`) that its filters keep, oldest first, never a kind section 21 does not
  return; the cursor moves forward only, not at all without the flag, and in the end every
  such event lies in one confirmed snapshot's range;
- every head move after the head cursor was set is reported once: a confirmed snapshot that
  moves the head cursor from OLD to NEW shows `pushes` with `previous_head_sha` OLD and
  `head_sha` NEW (the pushed commits, in order, for a fast-forward; `force_pushed` when a
  force push is among them) or counts it as left out by its filters; one that does not move
  it shows none; in the end the cursor is the pull request's head;
- idle polls settle to 304: after events stop and the agent confirmed, the second flagged
  check is only conditional requests answered 304 — 2 for an issue round, 4 for a pull
  request round (3 and 6 with `--include-edits`) — and its `state` is the conversation's.

GH_MONITOR_MODEL_EXAMPLES raises the number of examples (default 30; the single-round machines
run a sixth of it, at least 5, the inbox's a tenth, at least 3). What the model found is
reproduced in tests/test_events_found.py.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, precondition, rule, run_state_machine_as_test

from tests.support import NAME, OWNER
from tests.test_round_model import (
    EXAMPLES,
    ISSUE,
    MODEL,
    PR,
    ROUNDS,
    TOKEN_OWNER,
    InboxModel,
    IssueEditsModel,
    IssueModel,
    Killed,
    PullRequestEditsModel,
    PullRequestModel,
    killed_at,
)
from tests.test_round_model import (
    FLAG as EDITS,
)

EVENTS = "--include-events"
IGNORED = "mallory"
BOT = "ci[bot]"
ACTORS = ["alice", BOT, TOKEN_OWNER, IGNORED]
FILTERS = [(), ("--humans-only",), ("--ignore-author", IGNORED), ("--ignore-author", "@me")]

# section 21's list, written out here (the oracle does not import the product's)
RETURNED = frozenset((
    "closed", "reopened", "merged", "locked", "unlocked", "renamed", "transferred",
    "converted_to_discussion", "marked_as_duplicate", "unmarked_as_duplicate", "labeled",
    "unlabeled", "assigned", "unassigned", "milestoned", "demilestoned", "review_requested",
    "review_request_removed", "review_dismissed", "ready_for_review", "convert_to_draft",
    "head_ref_force_pushed", "head_ref_deleted", "head_ref_restored", "base_ref_changed"))
ENDINGS = frozenset(("closed", "merged", "reopened", "transferred", "converted_to_discussion"))
OTHER_KINDS = ["subscribed", "mentioned", "referenced", "pinned", "unpinned",
               "comment_deleted", "connected"]

ISSUE_KINDS = ["close", "reopen", "lock", "unlock", "rename", "label", "unlabel", "assign",
               "unassign", "milestone", "demilestone", "other", "duplicate", "unduplicate"]
PR_KINDS = ISSUE_KINDS + ["merge", "request", "unrequest", "draft", "ready", "base",
                          "head_ref"]


def _t(x):
    return dt.datetime.fromisoformat(x.replace("Z", "+00:00"))


def _now():
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def _ignored_login(filt):
    if "--ignore-author" in filt:
        who = filt[list(filt).index("--ignore-author") + 1]
        return TOKEN_OWNER if who == "@me" else who
    return None


def left_out(filt, kind, login, user_type):
    """Section 21's filters on one event (kind, actor) or commit author (kind None)."""
    if kind is not None and kind not in RETURNED:
        return "other_kind"
    if login is not None and login == _ignored_login(filt):
        return "ignore_author"
    if "--humans-only" in filt and user_type == "Bot" and kind not in ENDINGS:
        return "humans_only"
    return None


class Track:
    """One round's events and pushes oracle state and checks (a single round's machine has
    one; the inbox's one per round)."""

    def __init__(self, fake, number, pr):
        self.fake, self.number, self.pr = fake, number, pr
        self.ev_confirmed = []    # ids of events returned in confirmed snapshots, in order
        self.covered = set()      # ids inside a confirmed snapshot's range
        self.at_tracking = None   # event ids at the read of the first confirmed snapshot
        self.heads = []           # a pull request's head shas, in order
        self.pushlog = {}         # new head -> the push that made it
        self.pushes_confirmed = 0
        if pr:
            self.heads = [self.issue().pull.head_sha]

    def issue(self):
        return self.fake.store.issue_or_raise(OWNER, NAME, self.number)

    def event_by_id(self):
        return {e.id: e for e in self.issue().events}

    def event_cursor(self, cp):
        if cp is None:
            return None
        part = cp["conversation"] if self.pr else cp
        return part.get("events")

    @staticmethod
    def head_cursor(cp):
        return ((cp or {}).get("head") or {}).get("sha")

    def pushed(self, before, shas, force, who, kind, actor):
        head = self.issue().pull.head_sha
        self.heads.append(head)
        self.pushlog[head] = {
            "old": before, "shas": shas, "force": force, "authors": [(who, kind)] * len(shas),
            "actor": (actor, "Bot" if actor.endswith("[bot]") else "User")}

    def check_document(self, doc, flagged):
        """What every flagged document shows: events oldest first, of returned kinds only."""
        if not flagged or doc is None:
            if doc is not None:
                assert "events" not in doc and "pushes" not in doc and "state" not in doc, doc
            return
        ids = [e["id"] for e in doc["events"]]
        assert ids == sorted(set(ids)), f"events not oldest first: {ids}"
        assert doc["event_count"] == len(ids)
        known = self.event_by_id()
        for e in doc["events"]:
            raw = known[e["id"]]
            assert e["event"] == raw.event and e["event"] in RETURNED, e
            assert e["actor"] == raw.actor.login and e["actor_type"] == raw.actor.type, e
            assert _t(e["created_at"]) == raw.created_at, (e, raw.created_at)
        assert doc["state"] is not None, doc

    def took(self, doc, bcp, acp, filt, read=None, partial=False, flagged=True):
        """A confirm moved the checkpoint from `bcp` to `acp` (parsed): `doc` was confirmed
        (None: a round the inbox listed as quiet)."""
        known = self.event_by_id()
        if self.at_tracking is None:  # the first confirmed snapshot: tracking begins here
            self.at_tracking = set(known) if read is None else set(read)
        if doc is None:
            doc = {"events": [], **({"pushes": None} if self.pr else {})} if flagged else {}
        self.took_events(doc, bcp, acp, known, filt, partial)
        if self.pr:
            self.took_push(doc, bcp, acp, filt)

    def took_events(self, doc, bcp, acp, known, filt, partial):
        bc, ac = self.event_cursor(bcp), self.event_cursor(acp)
        returned = [e["id"] for e in (doc.get("events") or [])]
        if "events" not in doc:  # without the flag: the cursor as stored
            assert ac == bc, f"a check without {EVENTS} moved the event cursor: {bc} -> {ac}"
            return
        assert ac is not None, f"a confirmed flagged snapshot set no event cursor: {acp}"
        last = ac["last_event_id"]
        if bc is None and bcp is None:  # a first look: the newest event, nothing returned
            assert returned == [], f"a first look returned events: {returned}"
            span = []
        elif bc is None:  # the first ask: the events since the checkpoint's tracked_since
            since = (_t(bcp["tracked_since"]) if bcp.get("tracked_since")
                     else _t(bcp["saved_at"]) - dt.timedelta(minutes=10))
            span = [i for i, e in known.items() if i <= last and e.created_at >= since]
        else:
            assert last >= bc["last_event_id"], f"the event cursor went back: {bc} -> {ac}"
            span = [i for i in known if bc["last_event_id"] < i <= last]
        span = sorted(span)
        assert not set(span) & self.covered, f"events confirmed twice: {set(span) & self.covered}"
        self.covered |= set(span)
        expected = [i for i in span if left_out(filt, known[i].event, known[i].actor.login,
                                                known[i].actor.type) is None]
        if partial:
            returned = [i for i in returned if i in span]
        assert returned == expected, (
            f"confirmed snapshot ({' '.join(filt) or 'no filter'}) of #{self.number} returned "
            f"{returned}, expected {expected} (cursor {bc} -> {ac}; kinds "
            f"{[(i, known[i].event, known[i].actor.login) for i in span]})")
        self.ev_confirmed += returned

    def took_push(self, doc, bcp, acp, filt):
        bh, ah = self.head_cursor(bcp), self.head_cursor(acp)
        shown = doc.get("pushes")
        if "pushes" not in doc:
            assert bh == ah, f"a check without {EVENTS} moved the head cursor: {bh} -> {ah}"
            return
        assert ah is not None, f"a flagged confirmed PR snapshot recorded no head: {acp}"
        assert "handled_head" not in acp, f"handled_head kept beside the head: {acp}"
        if bh is None and bcp is not None:  # the first ask: from the head when handled
            bh = self.handled_head(bcp)
        if bh is None:  # the cursor is set: no plain push is reported
            if shown is not None:
                kinds = [e["event"] for e in doc["events"]]
                assert shown["force_pushed"] and "head_ref_force_pushed" in kinds, shown
                assert shown["previous_head_sha"] is None and shown["head_sha"] == ah, shown
            return
        if bh == ah:
            assert shown is None, f"a push reported without a head move: {shown}"
            return
        i, j = self.heads.index(bh), self.heads.index(ah)
        assert j > i, f"the head cursor went back: {bh} -> {ah}"
        moves = [self.pushlog[h] for h in self.heads[i + 1: j + 1]]
        force = any(m["force"] for m in moves)
        if shown is None:
            counted = (doc.get("filtered_out") or {}).get("pushes")
            assert counted, f"a head move {bh} -> {ah} neither shown nor counted: {doc}"
            authors = [a for m in moves for a in m["authors"]]
            by_authors = all(left_out(filt, None, a, t) for a, t in authors)
            if force:  # judged by the (last) force-pusher, not by the commits' authors
                ok = left_out(filt, None, *[m["actor"] for m in moves if m["force"]][-1])
                deferred = "head_ref_force_pushed" not in [e["event"] for e in doc["events"]]
                # known defect, tests/test_events_found.py: with its event deferred by
                # --limit, the push is judged by its authors; excused here, reproduced there
                ok = ok or (deferred and by_authors)
            else:
                ok = by_authors
            assert ok, f"a push left out that the filters {filt} keep: {moves}"
            return
        self.pushes_confirmed += 1
        assert shown["head_sha"] == ah, (shown, bh, ah)
        if shown["previous_head_sha"] != bh:
            # a wait: earlier polls' head moves its filters left out (else it had woken)
            p = self.heads.index(shown["previous_head_sha"])
            assert i < p < j and filt, (shown, bh, ah, filt)
            for m in moves[: p - i]:
                judged = [m["actor"]] if m["force"] else m["authors"]
                assert all(left_out(filt, None, a, t) for a, t in judged), \
                    f"a push left out that the filters {filt} keep: {m}"
            moves = moves[p - i:]
            force = any(m["force"] for m in moves)
        assert shown["force_pushed"] == force, (shown, moves)
        if not force:
            shas = [s for m in moves for s in m["shas"]]
            assert [c["sha"] for c in shown["commits"]] == shas, (shown, moves)

    def handled_head(self, cp):
        """Where a first ask's pushes start (CONTRACT amendments, turn 6): the checkpoint's
        `handled_head`, else the commit of its newest handled review, else None."""
        handled = cp.get("handled_head")
        if handled is not None:
            assert handled["sha"] in self.heads, handled
            return handled["sha"]
        last = ((cp.get("reviews") or {}).get("last_review_id")) or 0
        review = self.fake.store.reviews.get(last)
        return review.commit_id if review is not None else None

    def real_state(self):
        issue = self.issue()
        out = {"state": issue.state}
        if issue.pull is not None:
            out.update(merged=issue.pull.merged, draft=issue.pull.draft)
        out.update(locked=issue.locked, moved_to=None)
        return out

    def finish(self, cp):
        """After settling: nothing twice, nothing lost, the head cursor at the head."""
        assert len(self.ev_confirmed) == len(set(self.ev_confirmed)), "an event twice"
        assert self.ev_confirmed == sorted(self.ev_confirmed), "events out of order"
        if self.at_tracking is None:
            return
        lost = sorted(set(self.event_by_id()) - self.at_tracking - self.covered)
        assert lost == [], f"#{self.number}: events made after tracking began never " \
            f"confirmed: {lost[:10]}"
        if self.pr:
            assert self.head_cursor(cp) == self.heads[-1], "a push was never reported"


def catch_up(fake):
    """The data clock never behind the last read's `Date` (GitHub's Date and its data
    agree): an event made after a read is dated at or after it."""
    fake.clock = max(fake.clock, _now())


def make_event(fake, number, kind, actor):
    """One GitHub event of `kind` by `actor` on `number`, when GitHub would record it now."""
    f, o, n, num = fake, OWNER, NAME, number
    issue = fake.store.issue_or_raise(o, n, num)
    pull = issue.pull
    merged = pull is not None and pull.merged
    if kind == "close" and issue.state == "open":
        f.close_issue(o, n, num, by=actor)
    elif kind == "reopen" and issue.state == "closed" and not merged:
        f.reopen_issue(o, n, num, by=actor)
    elif kind == "lock" and not issue.locked:
        f.lock_issue(o, n, num, reason="too heated", by=actor)
    elif kind == "unlock" and issue.locked:
        f.unlock_issue(o, n, num, by=actor)
    elif kind == "rename":
        f.rename_issue(o, n, num, f"Title {len(issue.events)}\u2028by {actor}", by=actor)
    elif kind == "label":
        f.add_label(o, n, num, "bug" if len(issue.events) % 2 else "needs\u202einfo",
                    by=actor)
    elif kind == "unlabel" and issue.labels:
        f.remove_label(o, n, num, issue.labels[0], by=actor)
    elif kind == "assign":
        f.assign(o, n, num, TOKEN_OWNER if len(issue.events) % 2 else "alice", by=actor)
    elif kind == "unassign" and issue.assignees:
        f.unassign(o, n, num, issue.assignees[0].login, by=actor)
    elif kind == "milestone":
        f.set_milestone(o, n, num, f"v{len(issue.events)}", by=actor)
    elif kind == "demilestone" and issue.milestone is not None:
        f.set_milestone(o, n, num, None, by=actor)
    elif kind == "other":
        f.add_event(o, n, num, OTHER_KINDS[len(issue.events) % len(OTHER_KINDS)],
                    actor=actor)
    elif kind == "duplicate":
        f.add_event(o, n, num, "marked_as_duplicate", actor=actor)
    elif kind == "unduplicate":
        f.add_event(o, n, num, "unmarked_as_duplicate", actor=actor)
    elif pull is None:
        return
    elif kind == "merge" and issue.state == "open" and not merged:
        f.merge_pull(o, n, num, by=actor)
    elif kind == "request":
        if len(issue.events) % 3 == 2:
            f.request_review(o, n, num, team="core", by=actor)
        else:
            f.request_review(o, n, num, TOKEN_OWNER if len(issue.events) % 2 else "bob",
                             by=actor)
    elif kind == "unrequest" and (pull.requested_reviewers or pull.requested_teams):
        if pull.requested_reviewers:
            f.remove_review_request(o, n, num, pull.requested_reviewers[0].login, by=actor)
        else:
            f.remove_review_request(o, n, num, team=pull.requested_teams[0], by=actor)
    elif kind == "draft" and not pull.draft and not merged:
        f.set_draft(o, n, num, True, by=actor)
    elif kind == "ready" and pull.draft:
        f.set_draft(o, n, num, False, by=actor)
    elif kind == "base":
        f.change_base(o, n, num, "develop" if pull.base_ref == "main" else "main", by=actor)
    elif kind == "head_ref" and not merged:  # deleted and restored in one second
        f.delete_head_ref(o, n, num, by=actor)
        f.restore_head_ref(o, n, num, by=actor)


def happen(fake, number, burst, same_second):
    catch_up(fake)
    for kind, actor in burst:
        make_event(fake, number, kind, actor)
        if not same_second:
            fake.advance(1)


def flood(fake, number, n, bot):
    """Many events in one second (a bot relabelling): the list pages."""
    catch_up(fake)
    for k in range(n):
        (fake.add_label if k % 2 == 0 else fake.remove_label)(
            OWNER, NAME, number, "triage", by=BOT if bot else "alice")


def push(fake, track, count, who, force, old, by):
    """A push (fast-forward or force) by a person, a bot, the user or the ignored login;
    `old`: commits dated a month ago (they sort first in the PR's commits list)."""
    pull = track.issue().pull
    if pull.merged:
        return
    catch_up(fake)
    kind = "Bot" if who.endswith("[bot]") else "User"
    when = fake.clock - dt.timedelta(days=30) if old else None
    before = pull.head_sha
    shas = fake.push(OWNER, NAME, track.number, count=count, author=who, author_type=kind,
                     committed_at=when, force=force, by=by if force else None)
    track.pushed(before, shas, force, who, kind, by if force and by else who)


class EventsOracle:
    """The events and pushes oracles and the rules that make GitHub events; mixed in before
    one of the round model's machines."""

    number = ISSUE
    edits_variant = False
    events_idle = 1  # section 21: one more conditional request per round (the events probe)

    def start_events(self):
        self.track = Track(self.fake, self.number, self.flag == "--pr")
        self._filter = ()         # the filters of the check whose snapshot is being confirmed
        self._read_events = None  # event ids at that check's read (None: the current ones)

    def events(self):
        return list(self.track.issue().events)

    def catch_up(self):
        catch_up(self.fake)

    def happen(self, burst, same_second):
        happen(self.fake, self.number, burst, same_second)

    def seed_events(self, events_order, pre):
        self.fake.date_follows_clock = True  # GitHub's Date and its data agree
        self.fake.events_order = events_order
        self.start_events()
        self.happen(pre, True)

    # -- the agent ------------------------------------------------------------------------------
    def flags(self, events=True):
        return [EVENTS] if events else []

    def idle_flags(self):
        return [EVENTS] + ([EDITS] if self.edits_variant else [])

    def run_check(self, a, *args, edits=True):
        """A check; on the edits variants through their `checked` (the edits oracle)."""
        if isinstance(self, PullRequestEditsModel):
            r = self.checked(a, *args, flag=edits)
        elif isinstance(self, IssueEditsModel):
            r = self.checked(a, *args, *([EDITS] if edits else []))
        else:
            r = a.check(*args)
            assert r.code == 0, r
        self.track.check_document(r.json, EVENTS in args)
        self.catch_up()
        return r

    @staticmethod
    def _cp(raw):
        return json.loads(raw) if raw else None

    def took(self, doc, before, **kw):
        read = self._read_events
        filt, self._filter, self._read_events = self._filter, (), None
        if isinstance(self, IssueEditsModel):
            super().took(doc, before, **kw)
        else:  # the base machines' took takes no `partial` (doc holds what was confirmed)
            super().took(doc, before)
        after = self._checkpoint()
        if after != before:
            self.track.took(doc, self._cp(before), self._cp(after), filt, read,
                            kw.get("partial", False))

    # -- rules: GitHub --------------------------------------------------------------------------
    @rule(burst=st.lists(st.tuples(st.sampled_from(ISSUE_KINDS), st.sampled_from(ACTORS)),
                         min_size=1, max_size=6),
          same_second=st.booleans())
    def events_happen(self, burst, same_second):
        self.happen(burst, same_second)

    @rule(n=st.sampled_from([99, 100, 101, 150]), bot=st.booleans(), go=st.integers(0, 3))
    def flood(self, n, bot, go):
        """Many events in one second (a bot relabelling): the list pages (a rarer rule)."""
        if go:
            return
        flood(self.fake, self.number, n, bot)

    # -- rules: the agent -----------------------------------------------------------------------
    @rule(limit=st.sampled_from([2, 20, 100]), filt=st.sampled_from(FILTERS),
          flagged=st.sampled_from([True, True, True, False]), edits=st.booleans(),
          confirm=st.sampled_from([True, True, False]))
    def check_and_confirm(self, limit, filt, flagged, edits, confirm):
        a = self.agent()
        args = ["--limit", limit, "--max-pages", 50, *filt, *self.flags(flagged)]
        r = self.run_check(a, *args, edits=edits)
        if not confirm:
            return
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self._filter = filt
        self.took(r.json, before)

    @rule(burst=st.lists(st.tuples(st.sampled_from(ISSUE_KINDS), st.sampled_from(ACTORS)),
                         min_size=1, max_size=3))
    def events_between_check_and_confirm(self, burst):
        """Events after the read, before its confirm: after the cursor, returned next."""
        a = self.agent()
        r = self.run_check(a, "--limit", 20, "--max-pages", 50, *self.flags())
        read = [e.id for e in self.events()]
        self.happen(burst, True)
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self._read_events = read
        self.took(r.json, before)

    @rule(step=st.sampled_from(["write", "rename", "renamed"]))
    def confirm_killed(self, step):
        a = self.agent()
        r = self.run_check(a, "--limit", 20, "--max-pages", 50, *self.flags())
        before = self._checkpoint()
        with killed_at(step), contextlib.suppress(Killed):
            a.confirm(r.json["snapshot_id"])
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)

    @rule(seconds=st.sampled_from([10, 40]), filt=st.sampled_from(FILTERS))
    def wait(self, seconds, filt):
        a = self.agent()
        if not a.file().exists():
            return
        r = self.run_check(a, "--wait", seconds, "--poll-interval", 5, "--max-pages", 50,
                           *filt, *self.flags())
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self._filter = filt
        self.took(r.json, before)

    @rule(burst=st.lists(st.tuples(st.sampled_from(ISSUE_KINDS), st.sampled_from(ACTORS)),
                         min_size=1, max_size=3),
          filt=st.sampled_from(FILTERS), pushed=st.booleans())
    def woken(self, burst, filt, pushed):
        """Events (or, on a pull request, a push by alice) made while a wait polls, before
        its second events probe: one its filters keep wakes it."""
        a = self.agent()
        if not a.file().exists():
            return
        pushed = pushed and self.flag == "--pr" and not self.track.issue().pull.merged
        probes = []

        made = []

        def during(entry):
            if entry.path.endswith("/events"):
                probes.append(entry.path)
                if len(probes) == 2:
                    if pushed:
                        push(self.fake, self.track, 1, "alice", False, False, None)
                    else:
                        ids = set(self.track.event_by_id())
                        self.happen(burst, True)
                        made.extend(e for i, e in self.track.event_by_id().items()
                                    if i not in ids)

        self.fake.on_request(during)
        try:
            r = self.run_check(a, "--wait", 40, "--poll-interval", 5, "--max-pages", 50,
                               *filt, *self.flags())
        finally:
            self.fake.clear_hooks()
        if len(probes) >= 2:
            kept = (left_out(filt, None, "alice", "User") is None if pushed else any(
                left_out(filt, e.event, e.actor.login, e.actor.type) is None for e in made))
            if kept:
                assert r.json["has_updates"] is True, ("a wait not woken", burst, r)
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self._filter = filt
        self.took(r.json, before)

    def idle_bound(self):
        if isinstance(self, IssueEditsModel):
            return 1 + self.window_pages() + self.events_idle
        return self.settle_most + self.events_idle

    @rule()
    def settle(self):
        """Events have stopped: confirm what is there; the second check after is all 304."""
        a = self.agent()
        for _ in range(60):
            r = self.run_check(a, "--limit", 100, "--max-pages", 50, *self.flags())
            before = self._checkpoint()
            c = a.confirm(r.json["snapshot_id"])
            assert c.code == 0, c
            self.took(r.json, before)
            if not r.json["has_updates"] and not r.json["more_available"]:
                break
        for _ in range(2):
            r = a.check(*self.idle_flags())
            assert r.code == 0 and r.json["has_updates"] is False, r
        seen = a.statuses()
        assert 1 <= len(seen) <= self.idle_bound() and set(seen) == {304}, \
            [(q.method, q.path, q.status) for q in a.fake.requests]
        real = self.track.real_state()
        assert r.json["state"] == real, (r.json["state"], real)

    def teardown(self):
        super().teardown()  # settles (the rule above), then the comment oracles
        path = self.agent().file()
        self.track.finish(json.loads(path.read_text()) if path.exists() else None)


class IssueEventsModel(EventsOracle, IssueModel):
    @initialize(initial=st.integers(0, 30), events_order=st.sampled_from(
        ["ascending", "descending"]), pre=st.lists(st.tuples(
            st.sampled_from(ISSUE_KINDS), st.sampled_from(ACTORS)), max_size=4))
    def seed(self, initial, events_order, pre):
        super().seed(initial)
        self.seed_events(events_order, pre)

    @rule(limit=st.sampled_from([3, 50]))
    def update_state(self, limit):
        """--update-state: a write without the flag keeps the event cursor as stored."""
        before = self._checkpoint()
        r = self.agent().latest("--update-state", "--limit", limit, "--max-pages", 50)
        assert r.code == 0, r
        self.catch_up()
        self.took({"new_comments": r.json["comments"]}, before)


    @rule(limit=st.sampled_from([3, 50]))
    def through(self, limit):
        """A flagged check confirmed --through its first comment: a partial confirm."""
        a = self.agent()
        if not a.file().exists():
            return
        r = self.run_check(a, "--limit", limit, "--max-pages", 50, EVENTS)
        new = r.json["new_comments"]
        if not new:
            return
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"], "--through", new[0]["id"])
        assert c.code == 0, c
        self.took(dict(r.json, new_comments=new[:1]), before, partial=True)


class IssueEventsEditsModel(EventsOracle, IssueEditsModel):
    edits_variant = True

    @initialize(initial=st.integers(0, 30), events_order=st.sampled_from(
        ["ascending", "descending"]), pre=st.lists(st.tuples(
            st.sampled_from(ISSUE_KINDS), st.sampled_from(ACTORS)), max_size=4))
    def seed(self, initial, events_order, pre):
        super().seed(initial)
        self.seed_events(events_order, pre)


class PullRequestEventsOracle(EventsOracle):
    number = PR
    events_idle = 2  # the events probe and the head probe

    @rule(burst=st.lists(st.tuples(st.sampled_from(PR_KINDS), st.sampled_from(ACTORS)),
                         min_size=1, max_size=6),
          same_second=st.booleans())
    def events_happen(self, burst, same_second):
        self.happen(burst, same_second)

    @rule(count=st.integers(1, 3), who=st.sampled_from(ACTORS), force=st.booleans(),
          old=st.booleans(), by=st.sampled_from([None, "alice", BOT]))
    def push(self, count, who, force, old, by):
        push(self.fake, self.track, count, who, force, old, by)

    @precondition(lambda self: not Track.head_cursor(self._cp(self._checkpoint())))
    @rule(count=st.integers(1, 3), who=st.sampled_from(["alice", BOT]),
          reviewed=st.booleans())
    def handled_without_the_flag_then_pushed(self, count, who, reviewed):
        """A round handled without the flag (carol's review with an inline comment first,
        sometimes), then pushes, then the first flagged check: every push after the handled
        head is reported once (the oracle: `handled_head`)."""
        if self.track.issue().pull.merged:
            return
        if reviewed:
            self.submitted("CHANGES_REQUESTED", 1, user="carol")
        a = self.agent()
        r = self.run_check(a, "--limit", 100, "--max-pages", 50, *self.flags(False))
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)
        self.push(count, who, False, False, None)
        r = self.run_check(a, "--limit", 100, "--max-pages", 50, *self.flags())
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self.took(r.json, before)

    @rule(count=st.integers(1, 2), who=st.sampled_from(["alice", BOT]))
    def push_between_check_and_confirm(self, count, who):
        """A push after the read, before its confirm: the next check reports it."""
        a = self.agent()
        r = self.run_check(a, "--limit", 20, "--max-pages", 50, *self.flags())
        read = [e.id for e in self.events()]
        self.push(count, who, False, False, None)
        before = self._checkpoint()
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self._read_events = read
        self.took(r.json, before)


class PullRequestEventsModel(PullRequestEventsOracle, PullRequestModel):
    @initialize(initial=st.integers(0, 4), order=st.sampled_from(["id", "submitted"]),
                events_order=st.sampled_from(["ascending", "descending"]),
                pre=st.lists(st.tuples(st.sampled_from(PR_KINDS), st.sampled_from(ACTORS)),
                             max_size=4))
    def seed(self, initial, order, events_order, pre):
        super().seed(initial, order)
        self.seed_events(events_order, pre)


class PullRequestEventsEditsModel(PullRequestEventsOracle, PullRequestEditsModel):
    edits_variant = True

    @initialize(initial=st.integers(0, 4), order=st.sampled_from(["id", "submitted"]),
                events_order=st.sampled_from(["ascending", "descending"]),
                pre=st.lists(st.tuples(st.sampled_from(PR_KINDS), st.sampled_from(ACTORS)),
                             max_size=4))
    def seed(self, initial, order, events_order, pre):
        super().seed(initial, order)
        self.seed_events(events_order, pre)


EVENTS_EXAMPLES = max(5, EXAMPLES // 6)  # a few seconds each at the default


@pytest.mark.parametrize("machine", [IssueEventsModel, PullRequestEventsModel,
                                     IssueEventsEditsModel, PullRequestEventsEditsModel],
                         ids=["issue", "pr", "issue-edits", "pr-edits"])
def test_events_model_returns_each_event_and_push_once_and_settles(fake, tmp_path_factory,
                                                                    machine):
    class Bound(machine):
        pass

    Bound.fake = fake

    def make():
        m = Bound()
        m.root = tmp_path_factory.mktemp("events-model")
        return m

    run_state_machine_as_test(make, settings=settings(MODEL, max_examples=EVENTS_EXAMPLES))



# --------------------------------------------------------------------------- the inbox

class InboxEventsModel(InboxModel):
    """The inbox machine of tests/test_round_model.py (two issues and a pull request,
    followed; inbox checks, waits and confirms interleaved with single-round ones) with
    events on every round, pushes on the pull request, and inbox checks with
    `--include-events` (sometimes not, with filters, `--max-total 3` or `--limit 2`): the
    events and pushes oracles per round, and settled inbox polls all 304 at section 21's
    bound: I·(1+v) + P·(2+2v) with v = 1."""

    idle_bound = 2 * (1 + 1) + 1 * (2 + 2)

    @initialize(initial=st.integers(0, 20), events_order=st.sampled_from(
        ["ascending", "descending"]), pre=st.lists(st.tuples(
            st.sampled_from([5, 9, PR]), st.sampled_from(PR_KINDS), st.sampled_from(ACTORS)),
            max_size=4))
    def seed(self, initial, events_order, pre):
        super().seed(initial)
        self.fake.date_follows_clock = True  # GitHub's Date and its data agree
        self.fake.events_order = events_order
        self.tracks = {key: Track(self.fake, number, flag == "--pr")
                       for key, (flag, number) in ROUNDS.items()}
        self._filter, self._flagged = (), False
        for number, kind, actor in pre:
            happen(self.fake, number, [(kind, actor)], True)

    # -- GitHub --------------------------------------------------------------------------------
    @rule(number=st.sampled_from([5, 9, PR]),
          burst=st.lists(st.tuples(st.sampled_from(PR_KINDS), st.sampled_from(ACTORS)),
                         min_size=1, max_size=5),
          same_second=st.booleans())
    def events_happen(self, number, burst, same_second):
        happen(self.fake, number, burst, same_second)

    @rule(number=st.sampled_from([5, 9, PR]), bot=st.booleans(), go=st.integers(0, 5))
    def flood(self, number, bot, go):
        if not go:
            flood(self.fake, number, 101, bot)

    @rule(count=st.integers(1, 3), who=st.sampled_from(ACTORS), force=st.booleans(),
          old=st.booleans(), by=st.sampled_from([None, "alice", BOT]))
    def push(self, count, who, force, old, by):
        push(self.fake, self.tracks[f"{OWNER}/{NAME}/pull/{PR}"], count, who, force, old, by)

    # -- the agent -----------------------------------------------------------------------------
    def inbox(self, *args):
        r = super().inbox(*args)
        catch_up(self.fake)
        if r.code == 0:
            for conv in r.json["conversations"]:
                self.tracks[conv["key"]].check_document(conv, EVENTS in args)
        return r

    def took(self, key, doc, before):
        super().took(key, doc, before)
        after = self.checkpoints()[key]
        if after != before:
            cp = json.loads
            self.tracks[key].took(doc, cp(before) if before else None, cp(after), self._filter,
                                  flagged=self._flagged)

    def took_inbox(self, doc, before):
        super().took_inbox(doc, before)
        self._filter, self._flagged = (), False

    @rule(total=st.sampled_from([3, 100]), filt=st.sampled_from(FILTERS),
          flagged=st.sampled_from([True, True, True, False]), limit=st.sampled_from([2, 100]))
    def inbox_check_and_confirm(self, total, filt, flagged, limit):
        args = ["--max-total", total, "--limit", limit, "--max-pages", 50, *filt,
                *([EVENTS] if flagged else [])]
        r = self.inbox(*args)
        assert r.code == 0, r
        before = self.checkpoints()
        c = self.inbox_confirm(r.json["snapshot_id"])
        assert c.code == 0 and c.json["refused"] == [], c
        self._filter, self._flagged = filt, flagged
        self.took_inbox(r.json, before)

    @rule(key=st.sampled_from(sorted(ROUNDS)), limit=st.sampled_from([2, 20]),
          flagged=st.booleans(), filt=st.sampled_from(FILTERS))
    def single_check_and_confirm(self, key, limit, flagged=True, filt=()):
        a = self.agent(key)
        r = a.check("--limit", limit, "--max-pages", 50, *filt, *([EVENTS] if flagged else []))
        assert r.code == 0, r
        catch_up(self.fake)
        self.tracks[key].check_document(r.json, flagged)
        before = self.checkpoints()[key]
        c = a.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self._filter, self._flagged = filt, flagged
        self.took(key, r.json, before)
        self._filter, self._flagged = (), False

    @rule(key=st.sampled_from(sorted(ROUNDS)))
    def single_confirm_between_inbox_check_and_confirm(self, key):
        """A flagged inbox read; one round checked and confirmed alone; the inbox snapshot
        confirmed: that round refused or already applied, the others confirmed."""
        r = self.inbox("--max-pages", 50, EVENTS)
        assert r.code == 0, r
        self.single_check_and_confirm(key, 2, True, ())
        before = self.checkpoints()
        c = self.inbox_confirm(r.json["snapshot_id"])
        assert c.code in (0, 7), c
        assert {x["key"] for x in c.json["refused"]} <= {key}, c
        self._filter, self._flagged = (), True
        self.took_inbox(r.json, before)

    @precondition(lambda self: all(v is not None for v in self.first.values()))
    @rule(seconds=st.sampled_from([10, 40]), filt=st.sampled_from(FILTERS))
    def inbox_wait(self, seconds, filt):
        r = self.inbox("--wait", seconds, "--poll-interval", 5, "--max-pages", 50, *filt,
                       EVENTS)
        assert r.code == 0, r
        before = self.checkpoints()
        c = self.inbox_confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        self._filter, self._flagged = filt, True
        self.took_inbox(r.json, before)

    @rule()
    def settle(self):
        for _ in range(60):
            r = self.inbox("--max-pages", 50, "--limit", 100, EVENTS)
            assert r.code == 0, r
            before = self.checkpoints()
            c = self.inbox_confirm(r.json["snapshot_id"])
            assert c.code == 0, c
            self._flagged = True
            self.took_inbox(r.json, before)
            if not r.json["has_updates"] and not r.json["more_in"] and not [
                    x for x in r.json["conversations"] if x["more_available"]]:
                break
        for _ in range(2):  # the check after the confirmed one may pay; the next is free
            r = self.inbox(EVENTS)
            assert r.code == 0 and r.json["has_updates"] is False, r
        seen = [q.status for q in self.fake.requests]
        assert 1 <= len(seen) <= self.idle_bound and set(seen) == {304}, \
            [(q.method, q.path, q.status) for q in self.fake.requests]

    def teardown(self):
        super().teardown()  # settles (the rule above), then the comment oracles
        for key, track in self.tracks.items():
            path = self.agent(key).file()
            track.finish(json.loads(path.read_text()) if path.exists() else None)
            if path.exists():
                r = self.agent(key).check(EVENTS)
                assert r.code == 0 and r.json["state"] == track.real_state(), (
                    key, r.json.get("state"), track.real_state())


def test_inbox_events_model_returns_each_event_and_push_once_and_settles(fake,
                                                                        tmp_path_factory):
    class Bound(InboxEventsModel):
        pass

    Bound.fake = fake

    def make():
        m = Bound()
        m.root = tmp_path_factory.mktemp("inbox-events-model")
        return m

    run_state_machine_as_test(make, settings=settings(MODEL, max_examples=max(3, EXAMPLES // 10)))

# --------------------------------------------------------------------------- the oracles bite

def _machine(machine, fake, root):
    class Bound(machine):
        pass

    Bound.fake = fake
    m = Bound()
    m.root = root
    return m


def issue_sequence(m, order):
    """A first look, then a burst in one second (a bot's, an other kind's, an ending's) read
    two at a time with --humans-only, then an event by the ignored login."""
    m.seed(initial=3, events_order=order, pre=[("label", "alice")])
    m.check_and_confirm(limit=20, filt=(), flagged=True, edits=False, confirm=True)
    m.events_happen([("close", "alice"), ("label", BOT), ("other", "alice"),
                     ("reopen", BOT), ("rename", TOKEN_OWNER)], same_second=True)
    m.check_and_confirm(limit=2, filt=("--humans-only",), flagged=True, edits=False,
                        confirm=True)
    m.events_happen([("lock", IGNORED), ("assign", "alice")], same_second=False)
    m.teardown()


def first_ask_sequence(m, order):
    """A round handled without the flag; events; the first flagged check reports them."""
    m.seed(initial=3, events_order=order, pre=[("label", "alice")])
    m.check_and_confirm(limit=20, filt=(), flagged=False, edits=False, confirm=True)
    m.events_happen([("close", "alice"), ("milestone", BOT)], same_second=True)
    m.check_and_confirm(limit=20, filt=(), flagged=True, edits=False, confirm=True)
    m.teardown()


def pr_sequence(m, order):
    """A first look; a push and a review request; a force push with old commit dates."""
    m.seed(initial=1, order="id", events_order=order, pre=[])
    m.check_and_confirm(limit=20, filt=(), flagged=True, edits=False, confirm=True)
    m.push(2, "alice", False, False, None)
    m.events_happen([("request", "alice"), ("draft", BOT)], same_second=True)
    m.check_and_confirm(limit=20, filt=(), flagged=True, edits=False, confirm=True)
    m.push(1, "alice", True, True, "bob")
    m.push(2, BOT, False, True, None)
    m.teardown()


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_the_events_oracles_fail_when_an_event_a_push_or_the_probe_goes_wrong(
        fake, tmp_path_factory, monkeypatch, order):
    """The oracles are not vacuous: the fixed sequences pass as built, and fail when the
    round drops an event, never moves its event cursor, answers no first ask, drops a
    pushed commit, or keeps no probe (idle polls no longer 304)."""
    from ghcomments.streams import events as stream
    from ghcomments.streams import head

    runs = [(IssueEventsModel, issue_sequence), (IssueEventsModel, first_ask_sequence),
            (PullRequestEventsModel, pr_sequence)]
    for machine, sequence in runs:
        sequence(_machine(machine, fake, tmp_path_factory.mktemp("m")), order)

    taken, push_of, establish = (stream.EventsStream._taken, head.HeadStream._push,
                                 stream.EventsStream._establish)
    mutants = {
        "drops an event": (stream.EventsStream, "_taken",
                           lambda self, newer, *a, **kw: taken(self, newer[1:], *a, **kw)),
        "never moves its cursor": (stream.EventsStream, "cursor_after",
                                   lambda self, items, previous: previous),
        "answers no first ask": (stream.EventsStream, "_establish", lambda self, limit: (
            setattr(self, "first_ask_since", None), establish(self, limit))[1]),
        "drops a pushed commit": (head.HeadStream, "_push", lambda self, *a: dict(
            push_of(self, *a), commits=push_of(self, *a)["commits"][1:])),
        "keeps no probe": (stream.EventsStream, "_probe_after", lambda self, got, c: None),
    }
    for name, (owner, attr, mutant) in mutants.items():
        failed = []
        for machine, sequence in runs:
            with monkeypatch.context() as mp:
                mp.setattr(owner, attr, mutant)
                try:
                    sequence(_machine(machine, fake, tmp_path_factory.mktemp("m")), order)
                except AssertionError:
                    failed.append(sequence.__name__)
        assert failed, f"no sequence fails when the round {name}"
