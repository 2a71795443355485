"""What happened, in a round (CONTRACT section 21, `--include-events`): the events and head
streams wired to the round's options, a transferred conversation's redirect, and the fields a
flagged round's document gains (`events`, `state`, `pushes`, `outdated_threads`).

The streams themselves are streams/events.py and streams/head.py; the engine (engine.py) reads
them as it reads every stream, and without the flag they carry their stored cursors untouched
and send no request.
"""

from __future__ import annotations

from ..streams.events import EventsStream, Subject
from ..streams.stream import ZERO_CONVERSATION, Batch
from ..text import events as ev

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional

    from .engine import Round
    from .reading import Cursors, Reading

ENDING_NOTE = ("this conversation has ended ({what}): once nothing more is needed from it, "
               "stop following it (--unfollow)")


def _warn(rnd: Round, text: str) -> None:
    if text not in rnd.warnings:  # a wait reads again and again: said once
        rnd.warnings.append(text)


def wire(rnd: Round) -> None:
    """Give the round's events and head streams what they need: the flag, the subject (read
    once per command), the author filters as a test on actors."""
    on = bool(rnd.options.include_events)
    events: Optional[EventsStream] = rnd.streams.get("events")  # type: ignore[assignment]
    head: Any = rnd.streams.get("head")  # streams/head.py: loaded by a pull request's round
    if events is None:
        return
    subject = Subject(rnd.client, rnd.owner, rnd.repo, rnd.number, pull=head is not None)
    filt = rnd.options.filter
    events.active, events.subject = on, subject
    if filt.active:
        events.event_reason = lambda raw: filt.event_reason(
            ev.actor_of(raw), ending=raw.get("event") in ev.ENDINGS)
    if head is not None:
        head.active, head.subject = on, subject
        if filt.active:
            head.push_reason = filt.event_reason
    if on:  # no read of a flagged round follows a redirect: a 301 is `moved_to`
        rnd.client.follow_redirects = False
        rnd.conversation.zero_when_empty = True  # the events cursor needs a checkpoint


def active(rnd: Round) -> bool:
    stream = rnd.streams.get("events")
    return bool(stream is not None and getattr(stream, "active", False))


def before_read(rnd: Round, kind: str, previous: Cursors, batches: Dict[str, Batch]) -> None:
    """Per stream, before its read: the first ask's time; a force push the events returned."""
    stream = rnd.streams[kind]
    if isinstance(stream, EventsStream):
        if stream.subject is not None:
            stream.subject.forget()  # read at most once per read, afresh in each poll
        stream.first_ask_since = rnd.tracked_since if previous is not None else None
        if (stream.active and previous is not None and rnd.tracked_since_fallback
                and (previous or {}).get("events") is None):
            _warn(rnd, f"{rnd.store.paths.checkpoint} was written before tracked_since was "
                  f"recorded: events are reported from its saved_at minus "
                  f"{rnd.FALLBACK_MINUTES} minutes ({rnd.tracked_since}), a time of this "
                  "machine's clock, not GitHub's")
    elif stream.kind == "head":
        events: Any = rnd.streams.get("events")
        batch = batches.get("events")
        before = ((previous or {}).get("events") or {}).get("state") or {}
        after = ((batch.cursor if batch is not None else None) or {}).get("state") or {}
        # no pushes without events (a 403), before the event cursor is set (a first ask cut
        # by --max-pages: its force push comes with it next time), or once the pull request
        # was closed at the last read and still is (a merged branch may be reused)
        stream.skip = bool(getattr(events, "unavailable", False)
                           or (batch is not None and batch.cursor is None)
                           or (before.get("state") == "closed"
                               and after.get("state", "closed") == "closed"))
        stream.force_event = getattr(events, "force_event", None)


def moved(rnd: Round, previous: Cursors, batches: Dict[str, Batch], location: str) -> bool:
    """A read answered with a redirect (a transferred issue): every stream not yet read keeps
    its cursor; the event cursor's state records `moved_to` (the conversation's new URL: the
    redirect's without its query and the list after the number). True when newly set."""
    import re

    location = location.split("?", 1)[0].split("#", 1)[0]
    match = re.match(r"(.*/(?:issues|pulls)/\d+)(?:/.*)?$", location)
    location = match.group(1) if match else location
    prev = previous or {}
    for kind in rnd.streams:
        if kind not in batches:
            batches[kind] = Batch(kind, cursor=prev.get(kind), hint=None,
                                  more_available=False)
    _warn(rnd, f"{rnd.repository}#{rnd.number} has moved (transferred?) to {location}: "
          "nothing more is read here; follow it there")
    cursor = batches["events"].cursor or prev.get("events")
    if cursor is None:  # no event cursor yet: one that says so (and a checkpoint to hold it)
        cursor = {"last_event_id": 0, "state": {"state": None, "locked": None,
                                                "moved_to": None}}
        if batches["conversation"].cursor is None:
            batches["conversation"].cursor = dict(ZERO_CONVERSATION,
                                                  last_seen_comment_updated_at=None)
    was = ((cursor or {}).get("state") or {}).get("moved_to")
    if cursor is not None:
        batches["events"].cursor = dict(cursor, state=dict(cursor.get("state") or {},
                                                           moved_to=location))
    rnd.moved_to = location
    return was != location


def fields(rnd: Round, reading: Reading) -> Dict[str, Any]:
    """The document's `events`, `event_count`, `state` (and a pull request's `pushes`) of a
    flagged round; nothing without the flag."""
    if not active(rnd):
        return {}
    events = reading.shown.get("events") or []
    cursor = reading.batches["events"].cursor if "events" in reading.batches else None
    state = (cursor or {}).get("state")
    if state is None:
        subject = rnd.streams["events"].subject  # type: ignore[attr-defined]
        state = subject.state() if subject is not None and subject._raw is not None else None
    if state is None and rnd.moved_to:  # moved before any state was read
        state = {"state": None, "locked": None, "moved_to": None}
        if "head" in rnd.streams:
            state.update(merged=None, draft=None)
    if state is not None and rnd.moved_to:
        state = dict(state, moved_to=rnd.moved_to)
    unavailable = bool(getattr(rnd.streams["events"], "unavailable", False))
    out: Dict[str, Any] = {"events": None if unavailable else events,
                           "event_count": len(events), "state": state}
    if "head" in rnd.streams:
        pushes = reading.shown.get("pushes") or []
        out["pushes"] = pushes[0] if pushes else None
    ended = [e["event"] for e in events if e.get("event") in ("closed", "merged")]
    if ended:
        note = ENDING_NOTE.format(what=", ".join(dict.fromkeys(ended)))
        if note not in rnd.warnings:
            rnd.warnings.append(note)
    return out


def pushed_commits(reading: Reading) -> bool:
    pushes = reading.shown.get("pushes") or []
    return bool(pushes and pushes[0].get("commits"))


def outdated(rnd: Round) -> Optional[List[Dict[str, Any]]]:
    """The unresolved review threads outdated now (one GraphQL query per 100 threads); None
    when GraphQL cannot be read (a warning says why)."""
    from ..base.errors import BundleError
    from ..streams.threads import outdated_threads

    if not getattr(rnd.client.transport, "authenticated", True):
        rnd.warnings.append("outdated_threads is null: GitHub's GraphQL API needs a token")
        return None
    try:
        threads, limitations = outdated_threads(rnd.client, rnd.owner, rnd.repo, rnd.number)
    except BundleError as err:
        rnd.warnings.append(f"outdated_threads is null: the review threads could not be read "
                            f"({err.code}: {err.message})")
        return None
    rnd.warnings.extend(limitations)
    return threads
