"""Reading a comment list's `since` window whole, and probing it for nothing changed.

`GET …/issues/N/comments?since=T` and `GET …/pulls/N/comments?since=T` list the comments
updated at or after T (whole seconds), in ascending id order like the unfiltered lists. An
edit inserts its comment into the filtered list at its id's place, and a deletion removes one,
so the pages of one read can shift under it. This reader reads pages of 100 in order until one
has room, then asks for every earlier page again with its ETag: when all answer 304, nothing
moved while it read (else it reads again, at most three times). Those pages, with their ETags,
are the next poll's probe: an edit, a new comment (it is updated now, so it is in the window)
or a deletion changes at least one of them, and the one with room takes an arrival after the
last. An idle poll is one conditional request per page, answered 304 (free).

`begin_edits` is one list's part of a flagged check: the read from the watermark (or, to
establish one, from a GitHub time the cursor holds), edits.py's decision, and the probe for the
next poll; the decision is finished (`PendingEdits.finish`) once the command asked the edit
history of every list's candidates (`ask_history`: one query per 100, section 19 turn 6).
`read_edits` does both for one list alone.
The probe is kept with the URL it was measured on: a later watermark reuses it while
its `since` is at most REUSE_SECONDS earlier and it is one page (the read keeps only what is
updated since the watermark's own `since`, so the answer is the same), so a watermark that
moves does not cost a read of a new URL; a probe of several pages is re-anchored at the
watermark's own `since` by one read, so an idle poll never asks more pages than that window
has. It is keyed by the digest of the watermark it was measured for: a probe answered 304
means nothing in the window changed since that watermark was computed.

Used by the round for `--include-edits` (edits.py decides what the read means).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..base.errors import ServerError
from ..store import edits
from .scan import PER_PAGE_MAX, CommentList, PageBudgetExhausted, Window

ATTEMPTS = 3
REUSE_SECONDS = 86400  # a probe's `since` may lag the watermark's by this much


@dataclass
class SinceRead:
    since: str
    items: List[Dict[str, Any]] = field(default_factory=list)  # ascending id
    whole: bool = True          # every item of the window is in `items`
    not_modified: bool = False  # the probes all answered 304: nothing changed
    probes: List[Dict[str, Any]] = field(default_factory=list)  # [{page, per_page, etag}]
    pages: int = 0
    warnings: List[str] = field(default_factory=list)
    date: Optional[str] = None  # the `Date` of the read's last answer (bounds W)

    @property
    def hint(self) -> Optional[Dict[str, Any]]:
        """The poll hint of this read: its `since` and its probes (None: no sound probe)."""
        if not self.whole or not self.probes:
            return None
        return {"since": self.since, "probes": self.probes}


def valid_hint(hint: Any) -> bool:
    return (isinstance(hint, dict) and set(hint) == {"since", "probes"}
            and edits.parse_time(hint["since"]) is not None
            and isinstance(hint["probes"], list) and bool(hint["probes"])
            and all(isinstance(p, dict) and set(p) == {"page", "per_page", "etag"}
                    and p["page"] == i + 1 and p["per_page"] == PER_PAGE_MAX
                    and isinstance(p["etag"], str) and bool(p["etag"])
                    for i, p in enumerate(hint["probes"])))


def read(client: Any, path: str, what: str, since: str, max_pages: int,
         hint: Optional[Dict[str, Any]] = None) -> SinceRead:
    """The window of `path` updated at or after `since`, whole (or cut by `max_pages`:
    `whole` false). `hint`: the probes of an earlier read of the same window."""
    cl = CommentList(client, "", "", 0, max_pages, path=path, what=what,
                     params={"since": since})
    out = SinceRead(since)
    pages: List[Any] = []
    try:
        first = None
        if valid_hint(hint) and hint["since"] == since:
            same, first = _unchanged(cl, hint["probes"])
            if same:
                out.not_modified, out.probes = True, list(hint["probes"])
                return out
        for _attempt in range(ATTEMPTS):
            pages = []
            _pages(cl, pages, first)
            first = None
            if _unchanged(cl, [_probe(p) for p in pages[:-1]])[0]:
                out.items = _items(pages)
                out.probes = [_probe(p) for p in pages] if all(p.etag for p in pages) else []
                edits.check_items(out.items, client.rate.get("date"), what)
                return out
        raise ServerError(f"{what}: the list kept changing while it was read "
                          f"({ATTEMPTS} attempts)")
    except PageBudgetExhausted:
        out.whole = False
        out.items = _items(pages)
        edits.check_items(out.items, client.rate.get("date"), what)
        out.warnings.append(f"--max-pages {max_pages} stopped reading the comments of "
                            f"{what} updated since {since}: the edit watermark does not move")
        return out
    finally:
        out.date = client.rate.get("date")
        out.pages = cl.pages
        out.warnings.extend(cl.warnings)


def _probe(page: Any) -> Dict[str, Any]:
    return {"page": page.window.page, "per_page": page.window.per_page, "etag": page.etag}


def _unchanged(cl: CommentList, probes: List[Dict[str, Any]]) -> Any:
    """(every probe answers 304, the list's first page when its probe answered with it):
    conditional requests cost no rate limit, and a changed first page is read already."""
    for p in probes:
        if not p.get("etag"):
            return False, None
        page = cl.read(Window(p["page"], p["per_page"]), p["etag"], counts=False)
        if not page.not_modified:
            return False, (page if p["page"] == 1 and page.etag else None)
    return True, None


def _pages(cl: CommentList, pages: List[Any], first: Any = None) -> None:
    """Into `pages`: pages of 100 from the first (`first`, when already read) until one has
    room (an empty one past a full last). What was read stays in `pages` when --max-pages
    stops it."""
    n = 1
    while True:
        if n == 1 and first is not None:
            page = first
            cl.pages += 1  # a page of the scan, read by its probe
        else:
            page = cl.read(Window(n, PER_PAGE_MAX))
        pages.append(page)
        if not page.full:
            return
        n += 1


def _items(pages: List[Any]) -> List[Dict[str, Any]]:
    by_id: Dict[int, Dict[str, Any]] = {}
    for page in pages:
        for item in page.items:
            by_id[item["id"]] = item
    return [by_id[i] for i in sorted(by_id)]


# --------------------------------------------------------------------------- one list's edits


def digest(record: Optional[Mapping[str, Any]]) -> Optional[str]:
    """The SHA-256 of a watermark's canonical JSON (what a probe was measured for)."""
    if record is None:
        return None
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def valid_edits_hint(hint: Any) -> bool:
    return (isinstance(hint, dict) and set(hint) == {"record", "since", "probes"}
            and isinstance(hint["record"], str) and len(hint["record"]) == 64
            and valid_hint({"since": hint["since"], "probes": hint["probes"]}))


@dataclass
class EditRead:
    """One list's edits at one flagged check."""

    edited: List[Dict[str, Any]] = field(default_factory=list)  # to return, oldest id first
    left_out: Dict[str, int] = field(default_factory=dict)       # filtered-out edits, by why
    record: Optional[Dict[str, Any]] = None  # the watermark the cursor carries
    hint: Optional[Dict[str, Any]] = None    # {record, since, probes} for the next poll
    more_available: bool = False             # edits left for a later check (--limit)
    truncated: bool = False                  # --max-pages cut the read
    not_modified: bool = False               # every probe answered 304
    established: bool = False
    history: Dict[int, Dict[str, Any]] = field(default_factory=dict)  # id -> history.py's
    pages: int = 0
    warnings: List[str] = field(default_factory=list)


def read_edits(client: Any, path: str, what: str, previous: Optional[Mapping[str, Any]],
               establish_from: Optional[str], at_or_before: Callable[[int], bool],
               returned_new: Sequence[Mapping[str, Any]], limit: Optional[int],
               reason: Optional[Callable[[Mapping[str, Any]], Optional[str]]],
               max_pages: int, hint: Optional[Mapping[str, Any]],
               tracked_since: Optional[str] = None, read_at: Optional[str] = None
               ) -> EditRead:
    """One list's part of a flagged check, its edit history asked on its own: `begin_edits`,
    one `history.fetch`, `PendingEdits.finish`."""
    step = begin_edits(client, path, what, previous, establish_from, at_or_before,
                       returned_new, limit, reason, max_pages, hint, tracked_since, read_at)
    return step.finish(*ask_history(client, [step]))


def ask_history(client: Any, steps: Sequence[PendingEdits]
                ) -> Tuple[Optional[Dict[str, Dict[str, Any]]], List[str]]:
    """The edit history of every candidate of `steps` (lists of one command, section 19 turn
    6): one query per 100, none without a candidate. (node_id -> node, None when GraphQL
    could not be read; the warning each list with a candidate reports then)."""
    candidates = [c for step in steps for c in step.candidates]
    if not candidates:
        return {}, []
    from . import history  # only a check that found a candidate edit asks GraphQL

    warnings: List[str] = []
    return history.fetch(client, candidates, warnings), warnings


class PendingEdits:
    """One list's flagged check up to its candidates' edit history (`candidates`)."""

    def __init__(self, out: EditRead, step: Any, finish: Callable[[Any], EditRead]) -> None:
        self.out, self.step, self._finish = out, step, finish

    @property
    def candidates(self) -> List[Mapping[str, Any]]:
        return list(self.step.candidates)

    def finish(self, nodes: Optional[Mapping[str, Dict[str, Any]]], warnings: Sequence[str]
               ) -> EditRead:
        """The list's edits, given `ask_history`'s answer for the command's candidates (the
        warnings are reported only by a list that had a candidate)."""
        from . import history

        step = self.step
        if step.candidates:
            self.out.warnings.extend(warnings)
        info = {c["id"]: history.describe(
            c, (nodes or {}).get(c.get("node_id")),  # type: ignore[arg-type]
            (step.seen.get(c["id"]) or [None, None, None])[2], step.handled_at,
            nodes is not None, step.no_change_before)
            for c in step.candidates}
        return self._finish(step.finish(info))


def begin_edits(client: Any, path: str, what: str, previous: Optional[Mapping[str, Any]],
                establish_from: Optional[str], at_or_before: Callable[[int], bool],
                returned_new: Sequence[Mapping[str, Any]], limit: Optional[int],
                reason: Optional[Callable[[Mapping[str, Any]], Optional[str]]],
                max_pages: int, hint: Optional[Mapping[str, Any]],
                tracked_since: Optional[str] = None, read_at: Optional[str] = None
                ) -> PendingEdits:
    """One list's part of a flagged check (see the module docstring) up to the edit history
    of its candidates. `previous`: the
    stored watermark (None: establish one at `establish_from`, a GitHub time A: the read
    starts an hour before it and W is at least A, so every later read, from W - 1 hour on,
    meets only pairs this read recorded or later ones; from 1970 on a list with nothing to
    date it).

    Without W (no record, or `through` null) and with `tracked_since` (section 19, turn 5:
    the first ask), the read starts an hour before the earlier of the anchor and
    `tracked_since`, and the edits made since `tracked_since` are reported; each candidate's
    edit history is read over GraphQL (history.py: one query per 100 for the whole command,
    none without one)."""
    out = EditRead()
    if previous is not None and not edits.valid(previous):
        previous = None
    first = previous is None or previous.get("through") is None
    if first:  # the id read's Date bounds the anchor (a hostile created_at)
        establish_from = edits.anchor_within(establish_from, client.rate.get("date"))
        if edits.parse_time(tracked_since) is not None and (
                edits.parse_time(establish_from) is None
                or edits.parse_time(tracked_since) < edits.parse_time(establish_from)):
            establish_from = tracked_since
    else:
        tracked_since = None
    want = edits.since_of(previous["through"]) if not first else (  # type: ignore[index]
        edits.since_of(establish_from) if edits.parse_time(establish_from) else edits.EPOCH)
    url_since, probe = want, None
    if (previous is not None and valid_edits_hint(hint) and hint["record"] == digest(previous)
            and (hint["since"] == want or (len(hint["probes"]) == 1
                                           and _reusable(hint["since"], want)))):
        url_since, probe = hint["since"], {"since": hint["since"], "probes": hint["probes"]}
    r = read(client, path, what, url_since, max_pages, probe)

    out.pages, out.not_modified, out.truncated = r.pages, r.not_modified, not r.whole
    out.warnings.extend(r.warnings)
    floor = edits.parse_time(want)
    items = [i for i in r.items if (edits.parse_time(i.get("updated_at")) or floor) >= floor]
    step = edits.decide(previous, items, r.whole and not r.not_modified, at_or_before,
                        returned_new, limit, reason, establish_from, what,
                        edits.date_bound(r.date), floor=tracked_since if first else None,
                        read_at=read_at, defer=True)

    def finish(d: Any) -> EditRead:
        out.edited = list(d.edited)  # type: ignore[arg-type]
        for _raw, why in d.left_out:
            out.left_out[why] = out.left_out.get(why, 0) + 1
        out.record, out.established, out.history = d.record, d.established, d.history
        out.more_available = bool(d.cut)
        out.warnings.extend(d.warnings)
        probes = r.probes if (r.whole or r.not_modified) else []
        # An item this check returns as new, edited between its id read and this `since`
        # read: the page read holds a version not returned and not yet an edit of a handled
        # one. Its probe is not kept, so the next flagged check reads the page and reports it
        # (section 22).
        given = {g.get("id"): _version(g) for g in returned_new if isinstance(g, Mapping)}
        raced = any(i.get("id") in given and _version(i) != given[i.get("id")]
                    for i in r.items)
        if probes and out.record is not None and not d.cut and not raced:
            out.hint = {"record": digest(out.record), "since": url_since, "probes": probes}
        return out

    return PendingEdits(out, step, finish)


def _version(item: Mapping[str, Any]) -> Tuple[Any, Any]:
    body = item.get("body")
    return item.get("updated_at"), edits.body_sha256(body) if isinstance(body, str) else None


def _reusable(probe_since: str, want: str) -> bool:
    a, b = edits.parse_time(probe_since), edits.parse_time(want)
    return (a is not None and b is not None and a <= b
            and (b - a).total_seconds() <= REUSE_SECONDS)
