"""What happened in a conversation (CONTRACT section 21, `--include-events`): the issue events
list after an event cursor, and the conversation's `state`.

The kind: its cursor, the round's hooks (the subject, a transfer's `moved_to`, the
document's `events` and `state`) and what a read shows; the list itself is read by
event_list.py.

The cursor is `{last_event_id, state}`: `state` is the conversation's state as read once when
the cursor was set (`Subject`), with every event up to the cursor applied since.
"""

from __future__ import annotations

from ..base.errors import AuthError
from ..base.plain import replace
from ..store import records
from ..text import events as ev
from .event_list import EventList, apply
from .stream import PAST, SAME, ZERO_CONVERSATION, Batch
from .subject import Subject

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional, Tuple

ENDING_NOTE = ("this conversation has ended ({what}): once nothing more is needed from it, "
               "stop following it (--unfollow)")


def warn_once(rnd: Any, text: str) -> None:
    if text not in rnd.warnings:  # a wait reads again and again: said once
        rnd.warnings.append(text)


class EventsStream(EventList):
    """A conversation's events after an id cursor (section 21)."""

    kind = "events"
    flag = "include_events"
    has_edits = False
    takes_filters = False   # the filters apply to actors (`wire`)
    asks_since = True
    shown = ("events",)
    cleared = {"events": [], "event_count": 0}  # also where a 403 made `events` null
    active = False          # --include-events: without it the stored cursor is carried as is
    subject: Optional[Subject] = None
    first_ask_since: Optional[str] = None  # the checkpoint's tracked_since (set by the round)
    event_reason: Optional[Callable[[Dict[str, Any]], Optional[str]]] = None

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.base_state: Optional[Dict[str, Any]] = None  # the state a new cursor starts from
        self.unavailable = False  # a 403 on the list: `events` and `pushes` are null

    # -- cursors and hints -------------------------------------------------------------------
    @staticmethod
    def same(a: Optional[Dict[str, Any]], b: Optional[Dict[str, Any]]) -> bool:
        return ((a or {}).get("last_event_id") == (b or {}).get("last_event_id")
                and ((a or {}).get("state") or {}).get("moved_to")
                == ((b or {}).get("state") or {}).get("moved_to"))

    @staticmethod
    def key(cursor: Optional[Dict[str, Any]]) -> Tuple[Any, ...]:
        if not cursor:
            return (-1, 0)
        return (int(cursor.get("last_event_id") or 0),
                1 if (cursor.get("state") or {}).get("moved_to") else 0)

    valid_cursor = staticmethod(records.events_cursor)

    @staticmethod
    def applied(stored: Any, target: Any) -> Optional[str]:
        """By `last_event_id` (its `state` follows, not compared; a `moved_to` set is
        further)."""
        if target is None:
            return SAME if stored is None else PAST
        if stored is None:
            return None
        s, t = EventsStream.key(stored), EventsStream.key(target)
        if s == t:
            return SAME
        return PAST if s[0] > t[0] or (s[0] == t[0] and s[1] >= t[1]) else None

    @staticmethod
    def valid_hint(hint: Any) -> bool:
        return records.events_hint(hint)

    @staticmethod
    def hint_matches(hint: Dict[str, Any], cursor: Optional[Dict[str, Any]]) -> bool:
        return cursor is not None and hint.get("event_id") == cursor.get("last_event_id")

    # -- the round's hooks (section 21) -----------------------------------------------------
    def wire(self, rnd: Any) -> None:
        """The subject (read once per read, shared with the head), the author filters as a
        test on actors; with the flag, no read follows a redirect (a 301 is `moved_to`)."""
        self.subject = rnd.subject
        filt = rnd.options.filter
        if filt.active:
            self.event_reason = lambda raw: filt.event_reason(
                ev.actor_of(raw), ending=raw.get("event") in ev.ENDINGS)
        if self.active:
            rnd.client.follow_redirects = False
            rnd.primary.zero_when_empty = True  # the events cursor needs a checkpoint

    def before_read(self, rnd: Any, previous: Any, batches: Dict[str, Batch]) -> None:
        """The first ask's time."""
        self.first_ask_since = rnd.tracked_since if previous is not None else None
        if (self.active and previous is not None and rnd.tracked_since_fallback
                and (previous or {}).get(self.kind) is None):
            warn_once(rnd, f"{rnd.store.paths.checkpoint} was written before tracked_since "
                      f"was recorded: events are reported from its saved_at minus "
                      f"{rnd.FALLBACK_MINUTES} minutes ({rnd.tracked_since}), a time of this "
                      "machine's clock, not GitHub's")

    def on_moved(self, rnd: Any, previous: Any, batches: Dict[str, Batch],
                 location: str) -> Optional[bool]:
        """A transferred conversation: the event cursor's state records `moved_to` (the
        conversation's URL: the redirect's without its query and the list after the
        number). True when newly set."""
        import re

        location = location.split("?", 1)[0].split("#", 1)[0]
        match = re.match(r"(.*/(?:issues|pulls)/\d+)(?:/.*)?$", location)
        location = match.group(1) if match else location
        prev = previous or {}
        warn_once(rnd, f"{rnd.repository}#{rnd.number} has moved (transferred?) to "
                  f"{location}: nothing more is read here; follow it there")
        cursor = batches[self.kind].cursor or prev.get(self.kind)
        if cursor is None:  # no event cursor yet: one that says so (and a checkpoint to hold it)
            cursor = {"last_event_id": 0, "state": {"state": None, "locked": None,
                                                    "moved_to": None}}
            primary = batches[rnd.primary.kind]
            if primary.cursor is None:
                primary.cursor = dict(ZERO_CONVERSATION, last_seen_comment_updated_at=None)
        was = ((cursor or {}).get("state") or {}).get("moved_to")
        batches[self.kind].cursor = dict(cursor, state=dict(cursor.get("state") or {},
                                                            moved_to=location))
        rnd.moved_to = location
        return was != location

    def moved_to(self, rnd: Any, cursor: Any) -> Optional[str]:
        """With the flag, a stored `moved_to` (turn 6): the round says where it went and
        sends nothing; --unfollow, or a --follow of the new place, is the user's move."""
        if not self.active or not isinstance(cursor, dict):
            return None
        where = (cursor.get("state") or {}).get("moved_to")
        if where:
            warn_once(rnd, f"{rnd.repository}#{rnd.number} has moved to {where}: nothing is "
                      "read here any more; --unfollow it, or follow it at its new place")
        return where or None

    def fields(self, rnd: Any, reading: Any) -> Dict[str, Any]:
        """The document's `events`, `event_count` and `state` with the flag."""
        if not self.active:
            return {}
        events = reading.shown.get(self.kind) or []
        batch = reading.batches.get(self.kind)
        state = ((batch.cursor if batch is not None else None) or {}).get("state")
        subject = self.subject
        if state is None:
            state = subject.state() if subject is not None and subject._raw is not None else None
        if state is None and rnd.moved_to:  # moved before any state was read
            state = {"state": None, "locked": None, "moved_to": None}
            if subject is not None and subject.pull:
                state.update(merged=None, draft=None)
        if state is not None and rnd.moved_to:
            state = dict(state, moved_to=rnd.moved_to)
        out: Dict[str, Any] = {"events": None if self.unavailable else events,
                               "event_count": len(events), "state": state}
        ended = [e["event"] for e in events if e.get("event") in ("closed", "merged")]
        if ended:
            warn_once(rnd, ENDING_NOTE.format(what=", ".join(dict.fromkeys(ended))))
        return out

    # -- the read ----------------------------------------------------------------------------
    def read(self, previous: Optional[Dict[str, Any]], hint: Optional[Dict[str, Any]],
             limit: int, *, sharpen: bool = True) -> Batch:
        self.force_event: Optional[Dict[str, Any]] = None
        self.unavailable = False
        if not self.active:  # without the flag: the stored cursor and hint, no request
            return Batch(self.kind, cursor=previous, hint=hint, more_available=False)
        try:
            if previous is None:
                return self._establish(limit)
            return self._after(previous, hint if self.valid_hint(hint) and self.hint_matches(
                hint, previous) else None, limit)
        except AuthError as exc:
            if exc.status != 403:
                raise
            # a token without access to events: the round goes on without them (section 21)
            self.unavailable = True
            self.warnings.append(f"events and pushes of {self.label} are null: the token "
                                 f"cannot read them ({exc.message})")
            return Batch(self.kind, cursor=previous, hint=None, more_available=False)

    def cursor_after(self, items: List[Any], previous: Optional[Dict[str, Any]]
                     ) -> Optional[Dict[str, Any]]:
        state = (previous or {}).get("state") if previous else self.base_state
        if not items:
            return previous
        return {"last_event_id": items[-1]["id"],
                "state": apply(state, [raw["event"] for raw in items])}

    # -- what a read shows ---------------------------------------------------------------------
    def reason_of(self, raw: Dict[str, Any]) -> Optional[str]:
        """Why an event is left out: `other_kind`, or an author filter's reason on its actor
        (the end of a conversation passes --humans-only: section 21)."""
        if raw.get("event") not in ev.RETURNED:
            return "other_kind"
        return self.event_reason(raw) if self.event_reason is not None else None

    def present(self, batch: Batch, max_body_chars: Optional[int], reveal_hidden: bool,
                include_system: bool) -> Tuple[Dict[str, List[Dict[str, Any]]],
                                               Dict[str, Dict[str, int]]]:
        shown, counts = [], {}  # type: ignore[var-annotated]
        if not self.active:
            return {}, {}
        for raw in batch.items:
            why = self.reason_of(raw)
            if why is None:
                shown.append(ev.issue_event(raw, max_body_chars))
            else:
                self._count(counts, why)
        return {self.kind: shown}, {self.kind: counts}

    def cut(self, batch: Batch, previous: Optional[Dict[str, Any]], keep: int, tail: bool,
            keep_edits: Optional[int] = None) -> Batch:
        """--max-total: the oldest `keep` events (a first look has none to cut)."""
        if keep >= len(batch.items):
            return batch
        base = previous if previous is not None else {
            "last_event_id": 0, "state": self.base_state}
        items = batch.items[:keep]
        return replace(batch, items=items, cursor=self.cursor_after(items, base) if items
                       else (previous if previous is not None else None),
                       hint=None, more_available=True)
