"""Reading an issue's comment list without skipping anything, at the request floor.

GitHub lists an issue's comments oldest first, in offset pages (`page`, `per_page` <= 100).
Two facts shape every algorithm here:

- New comments only append, and ids only grow, so the list is sorted by id. A comment's offset
  can only shrink over time (a deletion before it moves it left); it never grows.
- A deletion between two requests of one scan moves every later comment one place left, so a
  plain page-after-page scan skips one. Every forward step here therefore reads a window that
  overlaps what was already read, and accepts it only if its first comment is one already seen
  (its id <= the last id read): then nothing between them can be missing. If the check fails,
  the scan steps back and reads again. Backward steps (read a window that ends where the last
  one began) cannot skip: a deletion only moves comments towards the window read next.

Windows are positioned reads on the canonical comments URL (`page`, `per_page`), chosen so that
each one overlaps the last comment read and reaches as far as possible: with per_page between 1
and 100 there is always one that gains 49 or more comments (usually 85 to 99).

A window that holds the newest comment and is not full is a sound poll probe: its ETag changes
when a comment arrives (it lands in the window), when an earlier one is deleted (the window's
content shifts) or when one in it is edited. The monitor keeps it (page, per_page, ETag) as the
checkpoint's poll hint, so a poll that finds nothing is one conditional request answered 304.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from ..base.errors import ServerError
from ..base.plain import factory, plain
from ..base.urls import split_url
from ..net.client import GitHubClient

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional

    Keep = Callable[[Dict[str, Any]], bool]
else:  # the alias names a type in annotations only
    Keep = None

PER_PAGE_MAX = 100
HALVE_STATUSES = (500, 502, 503, 504)
HALVE_AT_LEAST = 50


@plain(frozen=True)
class Window:
    page: int
    per_page: int

    @property
    def start(self) -> int:
        return (self.page - 1) * self.per_page

    @property
    def end(self) -> int:
        return self.page * self.per_page


def window_reaching_past(offset: int) -> Window:
    """The window that contains `offset` and ends furthest after it (ties: the smaller one)."""
    best = None
    for per_page in range(1, PER_PAGE_MAX + 1):
        win = Window(offset // per_page + 1, per_page)
        if best is None or win.end > best.end:
            best = win
    return best or Window(offset // PER_PAGE_MAX + 1, PER_PAGE_MAX)


def reach_after(window: Window, newest: int) -> int:
    """How many new comments a poll can take in two requests with `window` as its probe:
    the room after the newest in it, plus what the next overlapping window adds."""
    return window.end - 1 - newest + window_reaching_past(window.end - 1).end - window.end


def best_probe(newest: int, start_at_most: Optional[int] = None) -> Window:
    """The window holding offset `newest` with room after it that serves the next poll best
    (ties: the smaller window); `start_at_most` also makes it hold that offset."""
    best = None
    for per_page in range(1, PER_PAGE_MAX + 1):
        win = Window(newest // per_page + 1, per_page)
        if win.end - 1 <= newest:
            continue
        if start_at_most is not None and win.start > start_at_most:
            continue
        if best is None or reach_after(win, newest) > reach_after(best, newest):
            best = win
    return best if best is not None else window_reaching_past(newest)


def window_for_tail(count: int, want: int) -> Optional[Window]:
    """One window holding the last `want` of `count` comments that makes the best poll probe
    afterwards, or None when no single window can hold them."""
    win = best_probe(count - 1, start_at_most=count - want)
    return win if win.start <= count - want and win.end > count - 1 else None


def next_window(page: Page) -> Window:
    """The window to read after `page`: it overlaps page's last comment. When page's `last`
    link bounds the list's length and one such window surely reaches the end, take the one
    that also makes the best poll probe; otherwise the one that reaches furthest."""
    furthest = window_reaching_past(page.last_offset)
    last = last_page_number(page.links.get("last"))
    if last is None:
        return furthest
    most = last * page.window.per_page  # the list holds at most this many comments
    best = None
    for per_page in range(1, PER_PAGE_MAX + 1):
        win = Window(page.last_offset // per_page + 1, per_page)
        if win.end > most and (best is None or reach_after(win, most - 1)
                               > reach_after(best, most - 1)):
            best = win
    return best if best is not None else furthest


def page_containing(offset: int) -> Window:
    return Window(offset // PER_PAGE_MAX + 1, PER_PAGE_MAX)


def window_ending_at(count: int) -> Window:
    """The window that holds the newest of `count` comments and reaches furthest back."""
    best = None
    for per_page in range(1, PER_PAGE_MAX + 1):
        win = Window((count - 1) // per_page + 1, per_page)
        if best is None or win.start < best.start or (
                win.start == best.start and win.end > best.end):
            best = win
    return best or page_containing(count - 1)


def last_page_number(link_url: Optional[str]) -> Optional[int]:
    if not link_url:
        return None
    values = parse_qs(split_url(link_url, "Link header").query).get("page")
    try:
        return int(values[0]) if values else None
    except ValueError:
        return None


@plain
class Page:
    window: Window
    items: List[Dict[str, Any]]
    links: Dict[str, str]
    etag: Optional[str]
    not_modified: bool = False
    parts: List[Page] = factory(list)  # the half windows it was read as

    @property
    def has_next(self) -> bool:
        return "next" in self.links

    @property
    def full(self) -> bool:
        return len(self.items) >= self.window.per_page

    @property
    def first_id(self) -> int:
        return self.items[0]["id"]

    @property
    def last_id(self) -> int:
        return self.items[-1]["id"]

    @property
    def last_offset(self) -> int:
        return self.window.start + len(self.items) - 1


class PageBudgetExhausted(Exception):
    """--max-pages reached: the scan stops with what it has."""


class CommentList:
    """Positioned reads of one list (page/per_page windows): by default an issue's comments on
    the canonical URL; `path` names another list (a review's comments, a PR's reviews).
    `by_id`: the list is ascending by id (checked); the reviews list is not."""

    def __init__(self, client: GitHubClient, owner: str, repo: str, issue: int,
                 max_pages: int, *, path: Optional[str] = None, what: Optional[str] = None,
                 by_id: bool = True, params: Optional[Dict[str, Any]] = None) -> None:
        self.client = client
        self.path = path or f"repos/{owner}/{repo}/issues/{issue}/comments"
        self.what = what or f"comments of {owner}/{repo}#{issue}"
        self.max_pages = max_pages
        self.by_id = by_id
        self.params = dict(params or {})  # on every read (e.g. `since`: a filtered list)
        self.pages = 0
        self.reads = 0  # every request made, the counting probe included
        self.warnings: List[str] = []
        self.count_page: Optional[Page] = None

    def read(self, window: Window, etag: Optional[str] = None, *, counts: bool = True,
             splits: int = 2) -> Page:
        if counts:
            if self.pages >= self.max_pages:
                raise PageBudgetExhausted()
            self.pages += 1
        self.reads += 1
        try:
            resp = self.client.request("GET", self.path,
                                       params={**self.params, "per_page": window.per_page,
                                               "page": window.page},
                                       etag=etag, what=self.what)
        except ServerError as exc:
            # GitHub has answered 5xx at per_page=100 where 50 worked: read the same offsets
            # again as smaller windows (twice at most; a stored probe keeps its size).
            if (exc.status in HALVE_STATUSES and window.per_page >= HALVE_AT_LEAST
                    and splits > 0 and etag is None):
                return self._read_halves(window, exc, splits - 1)
            raise
        if resp.status == 304:
            return Page(window, [], {}, resp.headers.get("etag") or etag, not_modified=True)
        data = self.client.json_of(resp, self.what)
        if not isinstance(data, list) or not all(
                isinstance(c, dict) and isinstance(c.get("id"), int) for c in data):
            raise ServerError(f"{self.what}: expected a JSON array of items with ids")
        if self.by_id and any(a["id"] >= b["id"] for a, b in zip(data, data[1:])):
            raise ServerError(f"{self.what}: items not in ascending id order")
        return Page(window, data, self.client.links(resp), resp.headers.get("etag"))

    def _read_halves(self, window: Window, exc: ServerError, splits: int) -> Page:
        """The offsets of `window` read as windows of half its size, checked for a change
        between them (the first is read again conditionally: 304 means none)."""
        half = window.per_page // 2
        self.warnings.append(f"{self.what}: HTTP {exc.status} at per_page={window.per_page}; "
                             f"read again as windows of {half}")
        for _attempt in range(2):
            parts: List[Page] = []
            start = window.start
            while start < window.end:
                part = self.read(Window(start // half + 1, half), counts=False, splits=splits)
                parts.append(part)
                start = part.window.end
                if not part.full:
                    break
            first = parts[0]
            if len(parts) > 1 and first.etag:
                again = self.read(first.window, first.etag, counts=False)
                if not again.not_modified:
                    continue  # the list changed between the halves: read them again
            items = [item for part in parts
                     for i, item in enumerate(part.items)
                     if window.start <= part.window.start + i < window.end]
            last = parts[-1]
            beyond = last.has_next or last.window.start + len(last.items) > window.end
            return Page(window, items, {"next": ""} if beyond else {}, None, parts=parts)
        raise ServerError(f"{self.what}: the list kept changing while it was read in halves",
                          status=exc.status)

    def count(self) -> int:
        """How many comments there are now: with one per page, the `last` page is the count."""
        page = self.read(Window(1, 1), counts=False)
        self.count_page = page  # an empty list's page: a sound poll probe (arrivals land in it)
        last = last_page_number(page.links.get("last"))
        if last is not None:
            return last
        if page.has_next:
            raise ServerError(f"{self.what}: a next page but no last page in Link")
        return len(page.items)


def first_kept(items: List[Any], limit: int, keep: Optional[Keep] = None) -> List[Any]:
    """The oldest items holding `limit` that `keep` keeps, and the left-out ones after them
    up to the next kept one: a cursor after them passes what the filters left out."""
    out: List[Any] = []
    kept = 0
    for item in items:
        if keep is None or keep(item):
            if kept == limit:
                break
            kept += 1
        out.append(item)
    return out


def last_kept(items: List[Any], want: int, keep: Optional[Keep] = None) -> List[Any]:
    """The newest items holding `want` that `keep` keeps (all of them when fewer)."""
    if want <= 0:
        return []
    kept = 0
    for i in range(len(items) - 1, -1, -1):
        if keep is None or keep(items[i]):
            kept += 1
            if kept == want:
                return items[i:]
    return items


@plain
class ScanResult:
    """What a scan found: `returned` is what the caller shows, ascending by id."""

    returned: List[Dict[str, Any]] = factory(list)
    more_available: Optional[bool] = False
    truncated: bool = False
    not_modified: bool = False
    cursor_found: bool = True
    older_not_returned: Optional[int] = None
    front: Optional[Page] = None             # the window at the end of the run (poll hint)
    newest: Optional[Dict[str, Any]] = None  # the newest comment seen, whatever its id
    offsets: Dict[int, int] = factory(dict)
    seen: Dict[int, Dict[str, Any]] = factory(dict)


class Scanner:
    """Tail and after-cursor scans over one CommentList; see the module docstring.

    The scan keeps a contiguous run of comments: `top` is the highest id up to which nothing
    after the cursor can be missing, `front` the window that ends it.
    """

    def __init__(self, comments: CommentList, keep: Optional[Keep] = None) -> None:
        self.cl = comments
        self.keep: Optional[Keep] = None
        if keep is not None:  # the author filters: --limit counts only what they keep
            verdicts: Dict[int, bool] = {}

            def cached(c: Dict[str, Any]) -> bool:
                if c["id"] not in verdicts:
                    verdicts[c["id"]] = keep(c)
                return verdicts[c["id"]]
            self.keep = cached
        self.seen: Dict[int, Dict[str, Any]] = {}
        self.offsets: Dict[int, int] = {}
        self.newest: Optional[Dict[str, Any]] = None
        self.front: Optional[Page] = None
        self.top = -1

    def _read(self, window: Window, etag: Optional[str] = None) -> Page:
        page = self.cl.read(window, etag)
        for i, item in enumerate(page.items):
            self.seen[item["id"]] = item
            self.offsets[item["id"]] = window.start + i
        if page.items and (self.newest is None or page.last_id >= self.newest["id"]):
            self.newest = page.items[-1]
        return page

    def _extend(self, page: Page) -> None:
        """Add a window known to be contiguous with the run (or to start it)."""
        if not page.items:
            if self.front is None:
                self.front = page
            return
        if page.last_id >= self.top or not page.has_next:
            self.top = max(self.top, page.last_id)
            self.front = page

    def _forward(self, page: Page, cursor: int, enough: int) -> None:
        """From `page`, contiguous with the cursor, read overlapping windows to the end of the
        list, or until more than `enough` comments after the cursor are in hand."""
        self._extend(page)
        cur = page
        while cur.has_next and (not cur.items or cur.last_id < self.top
                                or self._count_after(cursor) <= enough):
            nxt = self._read(next_window(cur))
            if nxt.items and nxt.first_id <= cur.last_id:
                cur = nxt
                self._extend(cur)
                continue
            # Comments before `cur` were deleted since it was read and everything moved left:
            # this window may have jumped one. Step back until a window starts at or before
            # the last comment of `cur`, and go on from there.
            target = min(cur.last_offset, nxt.window.start) - 1
            while True:
                back = self._read(page_containing(max(0, target)))
                if back.window.start == 0 or (back.items and back.first_id <= cur.last_id):
                    break
                target = back.window.start - 1
            cur = back
            self._extend(cur)

    def _count_after(self, cursor: int) -> int:
        return sum(1 for i, c in self.seen.items()
                   if cursor < i <= self.top and (self.keep is None or self.keep(c)))

    def _kept(self, items: List[Dict[str, Any]]) -> int:
        return sum(1 for c in items if self.keep is None or self.keep(c))

    def _run_after(self, cursor: int) -> List[Dict[str, Any]]:
        return sorted((c for i, c in self.seen.items() if cursor < i <= self.top),
                      key=lambda c: c["id"])

    # -- no cursor: the newest `want` --------------------------------------------------------
    def tail(self, want: int) -> ScanResult:
        """The newest `want` comments (ascending) and how many older ones were left out."""
        truncated = False
        try:
            count = 0
            first = None
            for _ in range(3):  # the list may shrink between the count and the read
                count = self.cl.count()
                if count == 0:
                    return ScanResult(older_not_returned=0, front=self.cl.count_page)
                first = self._read(window_for_tail(count, min(want, count))
                                   or window_reaching_past(count - 1))
                if first.items or first.window.start == 0:
                    break
            if first is None:
                return ScanResult(older_not_returned=0)
            self._forward(first, -1, 10**9)  # arrivals since the count: read on to the end
            earliest = first
            while self._kept(self._run_after(-1)) < want and earliest.window.start > 0:
                earliest = self._read(window_ending_at(earliest.window.start))
        except PageBudgetExhausted:
            truncated = True
        run = self._run_after(-1)
        returned = last_kept(run, want, self.keep)
        more: Optional[bool] = False
        if truncated and self.front is not None and self.front.has_next:
            more = None
        return ScanResult(returned=returned, more_available=more, truncated=truncated,
                          older_not_returned=(self.offsets.get(returned[0]["id"])
                                              if returned else None),
                          front=self.front, newest=self.newest, offsets=self.offsets,
                          seen=self.seen)

    # -- after a cursor: the oldest `limit` after it ------------------------------------------
    def after(self, cursor: int, limit: Optional[int], *, probe: Optional[Window] = None,
              etag: Optional[str] = None, offset: Optional[int] = None,
              sharpen: bool = False) -> ScanResult:
        """Comments with id > cursor, oldest first. `probe` + `etag`: a poll window (304 means
        nothing changed); `offset`: where the cursor stood when last seen; `sharpen`: leave a
        good poll probe at the end (for a checkpoint that will be stored)."""
        enough = 10**18 if limit is None else limit
        truncated = False
        try:
            page: Optional[Page] = None
            if probe is not None and etag:
                page = self._read(probe, etag)
                if page.not_modified:
                    return ScanResult(not_modified=True, more_available=False)
            elif offset is not None:
                page = self._read(window_reaching_past(offset))
            if page is None or not self._reaches(page, cursor):
                # With no limit every comment after the cursor is wanted: walking back from
                # the end reads each once. With a limit, a far cursor is found by bisection.
                steps = 2 if limit is not None else max(2, self.cl.max_pages - 3)
                page = self._locate(cursor, steps)
            self.top = max(self.top, cursor)
            self._forward(page, cursor, enough)
            if sharpen:
                self._sharpen_probe(cursor, enough, polled=probe is not None and bool(etag))
        except PageBudgetExhausted:
            truncated = True
        if self.front is None:  # the cursor was never reached
            return ScanResult(more_available=(True if self.newest and self.newest["id"] > cursor
                                              else None),
                              truncated=truncated, cursor_found=False, newest=self.newest,
                              offsets=self.offsets, seen=self.seen)
        run = self._run_after(cursor)
        returned = run if limit is None else first_kept(run, limit, self.keep)
        known_more = len(run) > len(returned) or self.front.has_next
        return ScanResult(returned=returned,
                          more_available=(None if truncated and not known_more else known_more),
                          truncated=truncated, front=self.front, newest=self.newest,
                          offsets=self.offsets, seen=self.seen)

    def _sharpen_probe(self, cursor: int, enough: int, polled: bool) -> None:
        """Leave a probe with which the next poll takes 100 new comments in two requests.
        A poll spends a request on it only when its first one found everything, or when it
        found nothing new and ends on a full window, no sound probe (a deletion moved the
        list: the next poll would pay that request instead, and the second check after a
        deletion is all 304 — section 22)."""
        front = self.front
        if (front is None or not front.items or front.has_next
                or (polled and self.cl.reads != 1
                    and (self._count_after(cursor) > 0 or not front.full))
                or self._count_after(cursor) > enough):
            return
        if not front.full and reach_after(front.window, front.last_offset) >= PER_PAGE_MAX:
            return
        page = self._read(best_probe(front.last_offset))
        if page.items and page.first_id <= front.last_id:
            self._forward(page, cursor, enough)

    @staticmethod
    def _reaches(page: Page, cursor: int) -> bool:
        """The window starts at or before the cursor: nothing after the cursor precedes it."""
        return page.window.start == 0 or bool(page.items and page.first_id <= cursor)

    def _locate(self, cursor: int, back_steps: int) -> Page:
        """A window from which a contiguous run reaches back to the cursor."""
        count = self.cl.count()
        if count == 0:
            return self.cl.count_page or Page(Window(1, PER_PAGE_MAX), [], {}, None)
        tail = self._read(window_ending_at(count))
        if not tail.items:  # shrank since the count
            tail = self._read(page_containing(max(0, count - 2)))
        earliest = tail
        # A recent cursor: the end, then a few steps back (backward steps cannot skip).
        for step in range(back_steps + 1):
            if self._reaches(earliest, cursor):
                return tail  # the run from `earliest` to `tail` is contiguous
            if step < back_steps:
                earliest = self._read(window_ending_at(earliest.window.start))
        # An older cursor: binary search over pages of 100 before the earliest window read.
        lo, hi = 1, page_containing(earliest.window.start - 1).page
        found: Optional[Page] = None
        while lo <= hi:
            mid = (lo + hi) // 2
            probe = self._read(Window(mid, PER_PAGE_MAX))
            if self._reaches(probe, cursor):
                found = probe
                if probe.items and probe.last_id > cursor:
                    break
                lo = mid + 1
            else:
                hi = mid - 1
        return found if found is not None else self._read(Window(1, PER_PAGE_MAX))
