"""What happened in a conversation (CONTRACT section 21, `--include-events`): the issue events
list after an event cursor, and the conversation's `state`.

The list (`GET /repos/O/R/issues/N/events`, for issues and pull requests alike) is read in pages
of 100 by number. GitHub does not document its order (ascending ids are observed; a community
answer claims descending), so every read works under either: the order is taken from what a
page shows, the events after the cursor are those with a larger id wherever they stand, and the
probe is the window where an arrival lands — the page holding the newest event when it has room
(else the empty page after it) under an ascending order, page 1 under a descending one. While
nothing happens a poll is that one conditional request, answered 304.

The cursor is `{last_event_id, state}`: `state` is the conversation's state as read once when
the cursor was set (`Subject`), with every event up to the cursor applied since.
"""

from __future__ import annotations

from ..base.errors import AuthError, ServerError
from ..base.plain import replace
from ..store import records
from ..text import events as ev
from ..text.normalize import parse_time
from .stream import PAST, SAME, ZERO_CONVERSATION, Batch, Stream

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional, Tuple

PER_PAGE = 100
ASC, DESC = "asc", "desc"
ENDING_NOTE = ("this conversation has ended ({what}): once nothing more is needed from it, "
               "stop following it (--unfollow)")


def warn_once(rnd: Any, text: str) -> None:
    if text not in rnd.warnings:  # a wait reads again and again: said once
        rnd.warnings.append(text)


class Subject:
    """The issue or pull request itself (`GET /issues/N`, or `/pulls/N` for a PR round), read
    at most once per command: the state an event cursor starts from, a PR's head."""

    def __init__(self, client: Any, owner: str, repo: str, number: int, pull: bool) -> None:
        self.client = client
        self.path = f"repos/{owner}/{repo}/{'pulls' if pull else 'issues'}/{number}"
        self.pull = pull
        self.label = f"{owner}/{repo}#{number}"
        self._raw: Optional[Dict[str, Any]] = None
        self.date: Optional[str] = None
        self.etag: Optional[str] = None

    def forget(self) -> None:
        """A new read of the round (a wait's next poll) reads it again if it needs it."""
        self._raw, self.date, self.etag = None, None, None

    def get(self, etag: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """The answer (read once per read of the round); with `etag` a conditional read,
        None when it answered 304."""
        if self._raw is None:
            what = f"{'pull request' if self.pull else 'issue'} {self.label}"
            resp = self.client.request("GET", self.path, etag=etag, what=what)
            if resp.status == 304:
                return None
            raw = self.client.json_of(resp, what)
            if not isinstance(raw, dict):
                raise ServerError(f"{what}: malformed response: not an object")
            for name in ("state", "title"):
                if raw.get(name) is not None and not isinstance(raw.get(name), str):
                    raise ServerError(f"{what}: malformed response: {name} is not a string")
            self._raw, self.date = raw, resp.headers.get("date")
            self.etag = resp.headers.get("etag")
        return self._raw

    def state(self) -> Dict[str, Any]:
        raw = self.get() or {}
        out: Dict[str, Any] = {"state": raw.get("state") if raw.get("state") in
                               ("open", "closed") else None}
        if self.pull:
            out["merged"] = bool(raw.get("merged")) or raw.get("merged_at") is not None
            out["draft"] = bool(raw.get("draft"))
        for name in ("merged", "draft", "locked"):
            value = raw.get(name)
            if value is not None and not isinstance(value, bool):
                raise ServerError(f"{self.label}: malformed response: {name} is not a boolean")
        out["locked"] = bool(raw.get("locked"))
        out["moved_to"] = None
        return out


def apply(state: Optional[Dict[str, Any]], kinds: List[str]) -> Dict[str, Any]:
    """`state` with the events of `kinds` applied, in order."""
    out = dict(state or {})
    for kind in kinds:
        if kind == "closed":
            out["state"] = "closed"
        elif kind == "reopened":
            out["state"] = "open"
        elif kind == "merged" and "merged" in out:
            out["merged"] = True
        elif kind in ("locked", "unlocked"):
            out["locked"] = kind == "locked"
        elif kind in ("convert_to_draft", "ready_for_review") and "draft" in out:
            out["draft"] = kind == "convert_to_draft"
    return out


class _Page:
    def __init__(self, number: int, items: List[Dict[str, Any]], etag: Optional[str],
                 has_next: bool, last: Optional[int], not_modified: bool = False) -> None:
        self.number, self.items, self.etag = number, items, etag
        self.has_next, self.last, self.not_modified = has_next, last, not_modified

    @property
    def ids(self) -> List[int]:
        return [e["id"] for e in self.items]


def _order(items: List[Dict[str, Any]]) -> str:
    ids = [e["id"] for e in items]
    return DESC if len(ids) > 1 and ids[0] > ids[-1] else ASC


def _page_number(url: Optional[str]) -> Optional[int]:
    if not url:
        return None
    from urllib.parse import parse_qs, urlsplit

    try:
        value = parse_qs(urlsplit(url).query).get("page", [None])[0]
        return int(value) if value is not None and value.isdigit() else None
    except ValueError:
        return None


class _PagesExhausted(Exception):
    pass


class EventsStream(Stream):
    """A conversation's events after an id cursor (section 21)."""

    kind = "events"
    flag = "include_events"
    has_edits = False
    takes_filters = False   # the filters apply to actors (`wire`)
    asks_since = True
    shown = ("events",)
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
        self.subject = Subject(rnd.client, rnd.owner, rnd.repo, rnd.number,
                               pull=rnd.label == "pull_request")
        filt = rnd.options.filter
        if filt.active:
            self.event_reason = lambda raw: filt.event_reason(
                ev.actor_of(raw), ending=raw.get("event") in ev.ENDINGS)
        if self.active:
            rnd.client.follow_redirects = False
            rnd.primary.zero_when_empty = True  # the events cursor needs a checkpoint

    def before_read(self, rnd: Any, previous: Any, batches: Dict[str, Batch]) -> None:
        """The subject read afresh in each poll; the first ask's time."""
        if self.subject is not None:
            self.subject.forget()
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

    # -- pages -------------------------------------------------------------------------------
    def _path(self) -> str:
        return f"repos/{self.owner}/{self.repo}/issues/{self.number}/events"

    def _read_page(self, number: int, etag: Optional[str] = None) -> _Page:
        what = f"events of {self.label}"
        resp = self.client.request("GET", self._path(),
                                   params={"per_page": PER_PAGE, "page": number},
                                   etag=etag, what=what)
        self.pages += 1
        if resp.status == 304:
            return _Page(number, [], etag, False, None, not_modified=True)
        data = self.client.json_of(resp, what)
        if not isinstance(data, list):
            raise ServerError(f"{what}: expected a JSON array, got {type(data).__name__}")
        items = [ev.check_event(e, what) for e in data]
        if len(items) > PER_PAGE:
            raise ServerError(f"{what}: malformed response: {len(items)} events on a page of "
                              f"{PER_PAGE}")
        links = self.client.links(resp)
        return _Page(number, items, resp.headers.get("etag"), bool(links.get("next")),
                     _page_number(links.get("last")))

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

    def _newest_first(self, got: Dict[int, _Page]) -> Any:
        """(page number, event) of the list's events, newest first, page by page (pages read
        once, within --max-pages); raises _PagesExhausted when --max-pages stops it."""
        first = got.get(1) or self._fetch(got, 1)
        order = _order(first.items)
        if order == DESC:
            number = 1
            while True:
                page = got.get(number) or self._fetch(got, number)
                yield from ((number, raw) for raw in page.items)
                if not page.has_next:
                    return
                number += 1
        number = first.last or (1 if not first.has_next else None)
        if number is None:  # no `last` link: walk to the end
            number = 1
            while (got.get(number) or self._fetch(got, number)).has_next:
                number += 1
        while number >= 1:
            page = got.get(number) or self._fetch(got, number)
            yield from ((number, raw) for raw in reversed(page.items))
            number -= 1

    def _fetch(self, got: Dict[int, _Page], number: int) -> _Page:
        if len(got) >= self.max_pages:
            raise _PagesExhausted()
        got[number] = self._read_page(number)
        return got[number]

    def _establish(self, limit: int) -> Batch:
        """No event cursor: a first look takes the newest event's id and reports nothing; a
        checkpoint without one (the first ask) reports the events since its tracked_since."""
        since = parse_time(self.first_ask_since)
        got: Dict[int, _Page] = {}
        found: List[Dict[str, Any]] = []
        newest: Optional[int] = None
        last_page: Optional[int] = None  # the page where an event before `since` was met
        try:
            for number, raw in self._newest_first(got):
                if last_page is not None and number != last_page:
                    break  # that page is read whole: an event recorded late stays in
                newest = raw["id"] if newest is None else max(newest, raw["id"])
                when = parse_time(raw.get("created_at"))
                if since is None:
                    break
                if when is not None and when < since:
                    last_page = number
                    continue
                found.append(raw)
        except _PagesExhausted:
            self.warnings.append(
                f"--max-pages {self.max_pages} stopped the read of the events of {self.label} "
                "before the time they are reported from; no event cursor was set (run again "
                "with a larger --max-pages)")
            return Batch(self.kind, cursor=None, truncated=True, more_available=None,
                         pages=len(got))
        # the state after the list: a close between the two reads is then both in the state
        # and, after the cursor, reported next time — never in neither
        state = self.subject.state() if self.subject is not None else {}
        self.base_state = state
        found.sort(key=lambda e: e["id"])
        if since is None:
            cursor = {"last_event_id": newest or 0, "state": state}
            return Batch(self.kind, cursor=cursor, hint=self._probe_after(got, cursor),
                         more_available=False)
        return self._taken(found, {"last_event_id": 0, "state": state}, got, limit,
                           establishing=newest or 0)

    def _after(self, previous: Dict[str, Any], hint: Optional[Dict[str, Any]],
               limit: int) -> Batch:
        last = int(previous.get("last_event_id") or 0)
        got: Dict[int, _Page] = {}
        if hint is not None:
            probe = self._read_page(hint["page"], hint["etag"])
            if probe.not_modified:
                return Batch(self.kind, cursor=previous, hint=hint, not_modified=True,
                             more_available=False)
            got[probe.number] = probe
        try:
            newer = self._newer_than(last, got, hint)
        except _PagesExhausted:
            self.warnings.append(
                f"--max-pages {self.max_pages} was reached before the event {last} of "
                f"{self.label} was located; no event was returned. Run again with a larger "
                "--max-pages")
            return Batch(self.kind, cursor=previous, truncated=True, more_available=None)
        return self._taken(newer, previous, got, limit)

    def _newer_than(self, last: int, got: Dict[int, _Page], hint: Optional[Dict[str, Any]]
                    ) -> List[Dict[str, Any]]:
        """The events with an id above `last`, oldest first, under either order."""
        order = hint.get("order") if hint else None
        if order is None or (order == DESC and 1 not in got):
            order = _order((got.get(1) or self._fetch(got, 1)).items)
        if order == DESC:
            number = 1
            while True:
                page = got.get(number) or self._fetch(got, number)
                if not page.items or min(page.ids) <= last or not page.has_next:
                    break
                number += 1
        else:
            start = hint["page"] if hint else None
            if start is None:
                first = got.get(1) or self._fetch(got, 1)
                start = first.last or 1
            number = start
            page = got.get(number) or self._fetch(got, number)
            while number > 1 and (not page.items or page.ids[0] > last):
                number -= 1  # an arrival pushed the cursor's event back (or a page emptied)
                page = got.get(number) or self._fetch(got, number)
            number = start
            while (got.get(number) or self._fetch(got, number)).has_next:
                number += 1
        seen: Dict[int, Dict[str, Any]] = {}
        for page in got.values():
            for raw in page.items:
                if raw["id"] > last:
                    seen[raw["id"]] = raw
        return [seen[i] for i in sorted(seen)]

    def _probe_after(self, got: Dict[int, _Page], cursor: Dict[str, Any]
                     ) -> Optional[Dict[str, Any]]:
        """The probe for a cursor at the list's newest event: the window an arrival lands in
        (page 1 under a descending order; the newest event's page when it has room, else the
        empty page after it)."""
        if not got:
            return None
        first = got.get(1)
        order = _order(first.items) if first is not None else ASC
        if order == DESC:
            page = first
        else:
            page = got[max(got)]
            if page.has_next:
                return None
            if len(page.items) >= PER_PAGE:
                try:
                    page = self._fetch(got, page.number + 1)
                except _PagesExhausted:
                    return None
                if page.items or page.has_next:
                    return None  # it moved while read: no probe, the next read reads it
        if page is None or not page.etag:
            return None
        return {"event_id": cursor["last_event_id"], "order": order, "page": page.number,
                "per_page": PER_PAGE, "etag": page.etag}

    def _taken(self, newer: List[Dict[str, Any]], previous: Dict[str, Any],
               got: Dict[int, _Page], limit: int, establishing: Optional[int] = None
               ) -> Batch:
        """The oldest events after the cursor up to `limit` of those returned (others ride
        along), the cursor past them with their effects on the state, and the probe for it
        when nothing was left."""
        taken: List[Dict[str, Any]] = []
        kept = 0
        for raw in newer:
            if kept >= limit:
                break
            taken.append(raw)
            if self.reason_of(raw) is None:
                kept += 1
        left = len(taken) < len(newer)
        if taken:
            cursor = self.cursor_after(taken, previous)
        elif establishing is not None:
            cursor = {"last_event_id": establishing, "state": previous.get("state")}
        else:
            cursor = {"last_event_id": previous["last_event_id"], "state": previous.get("state")}
        if establishing is not None and not left:
            cursor["last_event_id"] = max(cursor["last_event_id"], establishing)
        hint = None if left else self._probe_after(got, cursor)
        force = [raw for raw in newer if raw["event"] == "head_ref_force_pushed"]
        self.force_event = force[-1] if force else None  # read, returned or not
        return Batch(self.kind, items=taken, cursor=cursor, hint=hint, more_available=left,
                     pages=len(got))

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
