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

Used by the round for `--include-edits` (edits.py decides what the read means).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from . import edits
from .errors import ServerError
from .scan import PER_PAGE_MAX, CommentList, PageBudgetExhausted, Window

ATTEMPTS = 3


@dataclass
class SinceRead:
    since: str
    items: List[Dict[str, Any]] = field(default_factory=list)  # ascending id
    whole: bool = True          # every item of the window is in `items`
    not_modified: bool = False  # the probes all answered 304: nothing changed
    probes: List[Dict[str, Any]] = field(default_factory=list)  # [{page, per_page, etag}]
    pages: int = 0
    warnings: List[str] = field(default_factory=list)

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
        if valid_hint(hint) and hint["since"] == since:
            if _unchanged(cl, hint["probes"]):
                out.not_modified, out.probes = True, list(hint["probes"])
                return out
        for _attempt in range(ATTEMPTS):
            pages = []
            _pages(cl, pages)
            if _unchanged(cl, [_probe(p) for p in pages[:-1]]):
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
        out.pages = cl.pages
        out.warnings.extend(cl.warnings)


def _probe(page: Any) -> Dict[str, Any]:
    return {"page": page.window.page, "per_page": page.window.per_page, "etag": page.etag}


def _unchanged(cl: CommentList, probes: List[Dict[str, Any]]) -> bool:
    """Every probe answers 304 (conditional requests: they cost no rate limit)."""
    for p in probes:
        if not p.get("etag"):
            return False
        page = cl.read(Window(p["page"], p["per_page"]), p["etag"], counts=False)
        if not page.not_modified:
            return False
    return True


def _pages(cl: CommentList, pages: List[Any]) -> None:
    """Into `pages`: pages of 100 from the first until one has room (an empty one past a
    full last). What was read stays in `pages` when --max-pages stops it."""
    n = 1
    while True:
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
