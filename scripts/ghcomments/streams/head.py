"""A pull request's pushes (CONTRACT section 21, `--include-events`): the commits added since
the round's head.

The probe is the head branch's ref (`GET /repos/HO/HR/git/ref/heads/REF`, from the PR's `head`
read once when the cursor is set): its answer changes exactly when the head moves, so an idle
poll is one conditional request answered 304. When the head moved, the new commits come from
the compare API (`GET /repos/O/R/compare/OLD...NEW`, 100 a page, oldest first; the base
repository holds every head commit of its pull requests): status `ahead` is a push of those
commits; `diverged`, `behind`, or a 404 for an OLD GitHub no longer has is a force push,
reported with the newest --limit commits of the pull request. Never the PR's commits list for
what is new: GitHub sorts it by commit date and stops at 250, so a fast-forward of an
older-dated commit sorts before the recorded head.

When another kind reads the pull request on every poll (`reads_subject`: CI's checks), the head
comes from that one answer instead (`via_subject`; the hint's `via: "pull"`): no ref probe.

The cursor is `{sha, seen_at}` (`seen_at`: the `Date` of the read that saw the head); the hint
`{sha, repo, ref, etag}` names the ref probed. A head repository that cannot be read (a deleted
fork, no access) falls back to `GET /pulls/N`'s `head.sha`, with a warning.
"""

from __future__ import annotations

from ..store import records
from ..text import events as ev
from ..text.normalize import parse_time
from .events import EventsStream
from .pushes import PushReader
from .stream import PAST, SAME, Batch
from .subject import Subject

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional, Tuple


HANDLED = "handled_head"  # the head when a round without the flag was handled
UNKNOWN = ("the head when this round was handled is unknown: pushes are reported from now on "
           "(the round was handled before any review, inline comment or read of the pull "
           "request showed its head)")


class HeadStream(PushReader):
    """A pull request's head after the round's recorded one (section 21)."""

    kind = "head"
    flag = EventsStream.flag  # pushes come with the events (section 21)
    has_edits = False
    takes_filters = False  # the filters apply to pushers and authors (`wire`)
    counted = False
    cleared = {"pushes": None, "outdated_threads": None}
    active = False
    push_reason: Optional[Callable[[Dict[str, Any]], Optional[str]]] = None
    force_event: Optional[Dict[str, Any]] = None  # a head_ref_force_pushed this read returned
    skip = False  # the events list answered 403: pushes are null too (section 21)
    # the first ask's base (CONTRACT amendments, turn 6): {sha, source}, or None (unknown)
    base: Optional[Dict[str, Any]] = None
    _review_base: Optional[Tuple[Optional[str]]] = None  # the handled review's, read once
    recorded = (HANDLED,)
    tracked = False

    # -- cursors and hints -------------------------------------------------------------------
    @staticmethod
    def same(a: Optional[Dict[str, Any]], b: Optional[Dict[str, Any]]) -> bool:
        return (a or {}).get("sha") == (b or {}).get("sha") and (
            (a or {}).get("seen_at") == (b or {}).get("seen_at"))

    @staticmethod
    def key(cursor: Optional[Dict[str, Any]]) -> Tuple[Any, ...]:
        """No order for forward-only: a head is where the branch is, and `seen_at` is GitHub's
        `Date`, which a clock step could put behind (or a server far ahead) — a head never
        blocks a confirm. "Already applied" compares `seen_at` (confirm.py)."""
        return ()

    @staticmethod
    def seen(cursor: Optional[Dict[str, Any]]) -> float:
        from ..text.normalize import parse_time

        when = parse_time((cursor or {}).get("seen_at"))
        return when.timestamp() if when is not None else -1.0

    valid_cursor = staticmethod(records.head_cursor)

    @staticmethod
    def applied(stored: Any, target: Any) -> Optional[str]:
        """By `seen_at`: the head a later read saw is past an earlier one; two seen in the
        same second by the head they hold: the stored one is past the target when its
        compare included the target's head (`passed`)."""
        if target is None:
            return SAME if stored is None else PAST
        if stored is None:
            return None
        if HeadStream.same(stored, target):
            return SAME
        s, t = HeadStream.seen(stored), HeadStream.seen(target)
        if s > t or (s == t and target.get("sha") in (stored.get("passed") or ())):
            return PAST
        return None

    # -- handled_head: the head when a round without the flag was handled --------------------
    @classmethod
    def recorded_fields(cls, stored: Dict[str, Any], fresh: Dict[str, Any],
                        cursors: Any) -> Dict[str, Any]:
        """`handled_head` while the head cursor is not set: the stored one, else the one
        the read written from showed (never moved once stored; dropped once the head is)."""
        if (cursors or {}).get(cls.kind) is not None:
            return {}
        for value in (stored.get(HANDLED), fresh.get(HANDLED)):
            if records.handled_head(value):
                return {HANDLED: {k: value[k] for k in ("sha", "seen_at", "source")}}
        return {}

    def recorded_now(self, rnd: Any) -> Dict[str, Any]:
        """What this read showed of the head, the best first: the thread query's
        `headRefOid`, a read of the pull request, the newest review's `commit_id`."""
        seen: List[Dict[str, Any]] = []
        for stream in rnd.streams.values():
            seen += getattr(stream, "heads_seen", None) or []
        subject = self.subject
        raw = getattr(subject, "_raw", None)
        head = Subject.head_of(raw)
        if head is not None and records.SHA_RE.fullmatch(str(head.get("sha") or "")):
            from .pushes import github_time

            seen.append({"sha": head["sha"], "seen_at": github_time(subject.date)
                         or rnd.read_at, "source": "pull"})
        order = records.HANDLED_SOURCES
        seen = [h for h in seen if records.handled_head(h)]
        if not seen:
            return {}
        return {HANDLED: min(seen, key=lambda h: order.index(h["source"]))}

    def _first_base(self, rnd: Any, previous: Any) -> Optional[Dict[str, Any]]:
        """Where the first ask's pushes start: the stored `handled_head`, else the commit
        of the newest handled review (one read of it, once per command), else None."""
        handled = rnd.stored_recorded.get(HANDLED)
        if records.handled_head(handled):
            return {"sha": handled["sha"], "source": handled["source"]}
        if self._review_base is None:
            sha = None
            for kind, stream in rnd.streams.items():
                read = getattr(stream, "handled_review_head", None)
                if read is not None:
                    sha = read((previous or {}).get(kind))
                    break
            self._review_base = (sha,)
        sha = self._review_base[0]
        return {"sha": sha, "source": "review"} if sha else None

    @staticmethod
    def valid_hint(hint: Any) -> bool:
        return records.head_hint(hint)

    # -- the round's hooks (section 21) -----------------------------------------------------
    _outdated: Optional[Tuple[Any, Optional[List[Dict[str, Any]]]]] = None

    def wire(self, rnd: Any) -> None:
        self.subject = rnd.subject  # read once per read, shared
        self.via_subject = any(s is not self and s.active and s.reads_subject
                               for s in rnd.streams.values())
        filt = rnd.options.filter
        if filt.active:
            self.push_reason = filt.event_reason

    def before_read(self, rnd: Any, previous: Any, batches: Dict[str, Batch]) -> None:
        """No pushes without events (a 403), before the event cursor is set (a first ask cut
        by --max-pages: its force push comes with it next time), or once the pull request
        was closed at the last read and still is (a merged branch may be reused); a force
        push the events returned."""
        events: Any = rnd.streams.get(EventsStream.kind)
        batch = batches.get(EventsStream.kind)
        before = ((previous or {}).get(EventsStream.kind) or {}).get("state") or {}
        after = ((batch.cursor if batch is not None else None) or {}).get("state") or {}
        reopened = any(isinstance(raw, dict) and raw.get("event") == "reopened"
                       for raw in (batch.items if batch is not None else []))
        self.skip = bool(getattr(events, "unavailable", False)
                         or (batch is not None and batch.cursor is None)
                         or (before.get("state") == "closed" and not reopened
                             and after.get("state", "closed") == "closed"))
        self.force_event = getattr(events, "force_event", None)
        self.tracked = previous is not None  # a checkpoint: its first ask is answered
        self.base = None
        if (self.active and not self.skip and previous is not None
                and previous.get(self.kind) is None):
            self.base = self._first_base(rnd, previous)

    def on_items(self, rnd: Any, reading: Any) -> None:
        pushes = reading.shown.get("pushes") or []
        if pushes and pushes[0].get("commits"):  # only when commits were pushed
            self._outdated = (reading, self.outdated())

    def fields(self, rnd: Any, reading: Any) -> Dict[str, Any]:
        """`pushes` and `outdated_threads` with the flag."""
        if not self.active:
            return {}
        pushes = reading.shown.get("pushes") or []
        read = self._outdated
        return {"pushes": pushes[0] if pushes else None,
                "outdated_threads": read[1] if read is not None and read[0] is reading else []}

    @staticmethod
    def hint_matches(hint: Dict[str, Any], cursor: Optional[Dict[str, Any]]) -> bool:
        return cursor is not None and hint.get("sha") == cursor.get("sha")

    # -- the read ----------------------------------------------------------------------------
    def read(self, previous: Optional[Dict[str, Any]], hint: Optional[Dict[str, Any]],
             limit: int, *, sharpen: bool = True) -> Batch:
        if not self.active or self.skip:  # no flag, no access to events (a 403), or closed
            return Batch(self.kind, cursor=previous, hint=hint, more_available=False)
        if hint is not None and not (self.valid_hint(hint) and self.hint_matches(hint,
                                                                                 previous)):
            hint = None
        sha, new_hint, date, unchanged = self._head_now(hint if previous is not None
                                                       else None)
        if unchanged:
            return Batch(self.kind, cursor=previous, hint=hint, not_modified=True,
                         more_available=False)
        sha = sha or ""
        if previous is None and self.base is None:  # the cursor is set: no record of the
            # head before it (a first look, or a round handled with no head evidence)
            cursor = {"sha": sha, "seen_at": date}
            items = []
            if self.force_event is not None:  # ... unless a force push is returned now
                items = [self._force_push(None, sha, limit)]
            elif self.tracked:  # a checkpoint without a head: say why pushes is null
                self.warnings.append(UNKNOWN)
            return Batch(self.kind, items=items, cursor=cursor, hint=new_hint,
                         more_available=False)
        base = previous if previous is not None else self.base
        approximate = previous is None and (self.base or {}).get("source") == "review"
        if sha == base.get("sha"):
            cursor = previous if previous is not None else {"sha": sha, "seen_at": date}
            return Batch(self.kind, cursor=cursor, hint=new_hint, more_available=False)
        push = self._push(base["sha"], sha, limit)
        if push is None:  # the new head cannot be compared yet: the next read tries again
            return Batch(self.kind, cursor=previous, hint=None, more_available=False)
        push["approximate"] = approximate
        if push["truncated"] and not push["force_pushed"] and push["commits"]:
            # --max-pages cut the compare: the cursor stops at the last commit returned (an
            # ancestor of the head), the rest come next time
            last = push["commits"][-1]["sha"]
            return Batch(self.kind, items=[push],
                         cursor=self._cursor(last, date, base["sha"], push["commits"][:-1]),
                         hint=None, more_available=True, truncated=True)
        return Batch(self.kind, items=[push],
                     cursor=self._cursor(sha, date, base["sha"], push["commits"]),
                     hint=new_hint, more_available=False, truncated=push["truncated"])

    @staticmethod
    def _cursor(sha: str, date: Optional[str], old: str, commits: List[Dict[str, Any]]
                ) -> Dict[str, Any]:
        """The head cursor at `sha`, naming the heads its compare passed (the previous head
        and the commits before `sha`, the newest HEAD_PASSED_MAX): two heads seen in the same
        second are ordered by them (`applied`)."""
        passed = [old] + [c["sha"] for c in commits if c.get("sha") != sha]
        passed = [p for p in passed if p != sha][-records.HEAD_PASSED_MAX:]
        return {"sha": sha, "seen_at": date, "passed": passed}

    # -- what a read shows ---------------------------------------------------------------------
    def reason_of(self, push: Dict[str, Any]) -> Tuple[Optional[str], List[Dict[str, Any]]]:
        """(why the push is left out or None, the commits it shows). Without a force push
        it is left out only when the filters leave out every new commit's author. A force
        push is judged by its actor; one left out still shows each commit pushed after it
        (committed after the force push's event's second) whose author the filters keep
        (CONTRACT amendments, turn 6: "whose push is left out")."""
        commits = push["commits"]
        if self.push_reason is None:
            return None, commits
        if push.get("force_actor") is not None:
            why = self.push_reason(ev.actor_of({"actor": push["force_actor"]}))
            if why is None:
                return None, commits
            since = parse_time(push.get("force_at"))

            def pushed_after(commit: Dict[str, Any]) -> bool:  # unknown times hide nothing
                when = parse_time(ev.push_commit(commit)["committed_at"])
                return since is None or when is None or when > since  # a rebase pushed
                # within its second is the force push's own

            after = [c for c in commits if pushed_after(c)
                     and self.push_reason(ev.commit_author(c)) is None]
            return (None, after) if after else (why, [])
        reasons = [self.push_reason(ev.commit_author(c)) for c in commits]
        if reasons and all(r is not None for r in reasons):
            return reasons[0], []
        return None, commits

    def present(self, batch: Batch, max_body_chars: Optional[int], reveal_hidden: bool,
                include_system: bool) -> Tuple[Dict[str, List[Dict[str, Any]]],
                                               Dict[str, Dict[str, int]]]:
        if not self.active:
            return {}, {}
        shown, counts = [], {}  # type: ignore[var-annotated]
        for push in batch.items:
            why, commits = self.reason_of(push)
            if why is not None:
                self._count(counts, why)
                continue
            shown.append({"commits": [ev.push_commit(c) for c in commits],
                          "head_sha": push["head_sha"],
                          "previous_head_sha": push["previous_head_sha"],
                          "force_pushed": push["force_pushed"],
                          "more_available": push["more_available"],
                          "truncated": push["truncated"],
                          "approximate": bool(push.get("approximate"))})
        return {"pushes": shown}, {"pushes": counts}

    def cursor_after(self, items: List[Any], previous: Optional[Dict[str, Any]]
                     ) -> Optional[Dict[str, Any]]:
        return previous  # a push cut by --max-total comes next time
