"""The issue events list, read after an id cursor (CONTRACT section 21): its pages and probes.

The list (`GET /repos/O/R/issues/N/events`, for issues and pull requests alike) is read in pages
of 100 by number. GitHub does not document its order (ascending ids are observed; a community
answer claims descending), so every read works under either: the order is taken from what a
page shows, the events after the cursor are those with a larger id wherever they stand, and the
probe is the window where an arrival lands — the page holding the newest event when it has room
(else the empty page after it) under an ascending order, page 1 under a descending one. While
nothing happens a poll is that one conditional request, answered 304. The kind (its cursor,
hooks and document) is events.py's `EventsStream`, which extends `EventList`.
"""

from __future__ import annotations

from ..base.errors import ServerError
from ..text import events as ev
from ..text.normalize import parse_time
from .stream import Batch, Stream

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional

PER_PAGE = 100
ASC, DESC = "asc", "desc"


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


class EventList(Stream):
    """The pages of a conversation's events list: read, ordered, probed (no kind of its own:
    events.py's `EventsStream` is the kind)."""

    base_state: Optional[Dict[str, Any]]
    first_ask_since: Optional[str]

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
