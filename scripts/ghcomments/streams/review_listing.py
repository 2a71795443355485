"""A pull request's review list, read whole or only where it changed, and its poll probes.

The review list's poll probe is the window that holds its last review and has room after it (an
insertion anywhere before shifts it, so its ETag changes), plus the window of each pending review
of the token's owner (its submission changes that window in place). A list of several pages also
keeps each earlier page's ETag and skeleton (id, submitted_at, state), so that a change re-reads
only the last pages and proves the earlier ones unchanged with conditional requests; when reviews
were only appended after the last one, only the windows after it are read (`appended`).
"""

from __future__ import annotations

from ..base.errors import NotFoundError, ServerError
from ..base.plain import factory, plain
from .scan import PER_PAGE_MAX, CommentList, Page, Window, best_probe, next_window

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional, Tuple


@plain
class ReviewListing:
    """The whole review list as read, in GitHub's order, with the probe windows for a poll
    and, for a list of several pages, each earlier page's ETag and skeleton (id,
    submitted_at, state of its reviews: never bodies), so that the next change re-reads only
    the pages that changed."""

    reviews: List[Dict[str, Any]]
    probes: List[Dict[str, Any]]
    skeleton: List[Dict[str, Any]] = factory(list)


def _skeleton(page: Page) -> Dict[str, Any]:
    return {"page": page.window.page, "per_page": page.window.per_page, "etag": page.etag,
            "items": [[r["id"], r.get("submitted_at"), r.get("state")] for r in page.items]}


SKELETON = "_from_skeleton"  # marks a review known only from a stored skeleton (no body)


def _from_skeleton(entry: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [{"id": i, "submitted_at": at, "state": state, SKELETON: True}
            for i, at, state in entry["items"]]


def _room_probe(page: Page) -> Dict[str, Any]:
    """The probe of the window with room after the last review, with what it held (id and
    state of each review), so that a change that only appends to it can be told apart."""
    return {"page": page.window.page, "per_page": page.window.per_page, "etag": page.etag,
            "held": [[r["id"], r.get("state")] for r in page.items]}


def _holds(probes: List[Dict[str, Any]], offset: int) -> bool:
    return any(Window(q["page"], q["per_page"]).start <= offset
               < Window(q["page"], q["per_page"]).end for q in probes)


def _with_room(page: Page, count: int) -> Optional[Page]:
    """`page`, or the last half it was read as, when it holds the last of `count` reviews
    with room after it and an ETag (a sound probe); else None."""
    for w in [page] + page.parts[-1:]:
        if (w.etag and not w.full and w.items
                and w.window.start + len(w.items) == count):
            return w
    return None


def _windows(page: Page) -> List[Page]:
    """The windows actually read for `page`: itself, or the halves it was read as."""
    return page.parts or [page]


class ReviewLister:
    """Reads one pull request's review list for its stream (`stream`: where it reads, its
    --max-pages and warnings; the pages read are counted on it)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.client, self.owner, self.repo = stream.client, stream.owner, stream.repo
        self.number, self.max_pages, self.label = stream.number, stream.max_pages, stream.label
        self.warnings: List[str] = stream.warnings
        self.base = stream.base

    def _list(self) -> CommentList:
        return CommentList(self.client, self.owner, self.repo, self.number, self.max_pages,
                           path=f"{self.base}/reviews", what=f"reviews of {self.label}",
                           by_id=False)

    def _not_found(self, exc: NotFoundError) -> NotFoundError:
        """A 404 on the review list: an unknown PR, or an issue that is not one (one request,
        on this error path only)."""
        try:
            self.client.get_json(f"repos/{self.owner}/{self.repo}/issues/{self.number}",
                                 what=f"issue {self.label}")
        except NotFoundError:
            return NotFoundError(f"pull request {self.label} not found: {exc.message}",
                                 status=exc.status)
        return NotFoundError(f"#{self.number} of {self.owner}/{self.repo} is an issue, not a "
                             "pull request: use --issue", status=exc.status)

    def probe(self, hint: Dict[str, Any]) -> List[Page]:
        """The stored probes, each read conditionally; all of them 304 means the review list
        did not change (the first is the window with room after the last review, the others
        the windows of the owner's drafts: usually there are none)."""
        cl = self._list()
        pages = []
        try:
            for p in hint.get("probes") or []:
                page = cl.read(Window(int(p["page"]), int(p["per_page"])), p.get("etag"))
                pages.append(page)
        except NotFoundError as exc:
            raise self._not_found(exc)
        finally:
            self.stream.pages += cl.pages
        return pages

    def listing(self, first: Optional[Page] = None) -> ReviewListing:
        """Every review (pending ones of the token's owner included) in GitHub's order.

        Pages of 100 in turn; a list of several pages is checked afterwards (each earlier page
        again, conditionally: 304 means it did not change while the later ones were read),
        and read again if it changed (three tries)."""
        cl = self._list()
        try:
            for _attempt in range(3):
                pages = [first if first is not None else cl.read(Window(1, PER_PAGE_MAX))]
                first = None
                while pages[-1].has_next:
                    pages.append(cl.read(Window(pages[-1].window.page + 1, PER_PAGE_MAX)))
                # a page read in halves is checked half by half
                if all(cl.read(w.window, w.etag, counts=False).not_modified
                       for p in pages[:-1] for w in _windows(p) if w.etag):
                    break
            else:
                raise ServerError(f"reviews of {self.label} kept changing while read")
            return self._finish_listing(cl, [_skeleton(p) for p in pages[:-1]],
                                        [r for p in pages[:-1] for r in p.items], pages)
        except NotFoundError as exc:
            raise self._not_found(exc)
        finally:
            self.stream.pages += cl.pages
            self.warnings.extend(cl.warnings)

    def partial_listing(self, skeleton: List[Dict[str, Any]], changed: Optional[Page]
                        ) -> Optional[ReviewListing]:
        """The list after a change, reading only what changed: the pages after the stored
        earlier ones (`changed`, the probe's answer, when it is the first of them), then each
        earlier page conditionally. None when one of those changed too (read it all)."""
        cl = self._list()
        try:
            after = len(skeleton) + 1
            tail = [changed if changed is not None and changed.window == Window(
                after, PER_PAGE_MAX) else cl.read(Window(after, PER_PAGE_MAX))]
            while tail[-1].has_next:
                tail.append(cl.read(Window(tail[-1].window.page + 1, PER_PAGE_MAX)))
            for entry in skeleton:  # after the tail: a 304 proves nothing moved meanwhile
                page = cl.read(Window(entry["page"], entry["per_page"]), entry["etag"],
                               counts=False)
                if not page.not_modified:
                    return None
            earlier = [r for entry in skeleton for r in _from_skeleton(entry)]
            return self._finish_listing(cl, list(skeleton) + [_skeleton(p) for p in tail[:-1]],
                                        earlier + [r for p in tail[:-1] for r in p.items],
                                        tail)
        except NotFoundError as exc:
            raise self._not_found(exc)
        finally:
            self.stream.pages += cl.pages
            self.warnings.extend(cl.warnings)

    def _finish_listing(self, cl: CommentList, skeleton: List[Dict[str, Any]],
                        earlier: List[Dict[str, Any]], read: List[Page]
                        ) -> ReviewListing:
        """The listing from the earlier pages (as reviews and skeleton) and the last page
        (`read`: the pages this read holds, the last one last): the probe windows (a window
        with room after the last review; the window of each of the owner's pending reviews)
        for the next poll. A draft no window with an ETag holds leaves no probe at all."""
        last = read[-1]
        reviews = earlier + list(last.items)
        probe_page = _with_room(last, len(reviews)) if reviews else (
            last if last.etag and not last.full else None)
        if reviews and probe_page is None:
            # no room after the last review in the window read: take one that has some
            room = cl.read(best_probe(len(reviews) - 1))
            room = _with_room(room, len(reviews)) or room
            if room.items and room.etag and not room.full and [r["id"] for r in room.items] == [
                    r["id"] for r in reviews[room.window.start:room.window.start
                                             + len(room.items)]]:
                probe_page = room
        if probe_page is None:
            return ReviewListing(reviews, [])
        last = probe_page
        windows = [Window(e["page"], e["per_page"]) for e in skeleton if e["etag"]]
        etags = [e["etag"] for e in skeleton if e["etag"]]
        for p in read:  # pages read in halves: their halves (each with an ETag)
            for w in _windows(p):
                windows.append(w.window)
                etags.append(w.etag)
        if any(not e["etag"] for e in skeleton):  # a page read in halves has none
            skeleton = []
        probes = [_room_probe(last)]
        for offset, r in enumerate(reviews):
            if r.get("state") != "PENDING":
                continue
            # The owner's draft: its submission changes its window in place. A probe that
            # already holds it (the last window, when the draft is listed last) is enough.
            if _holds(probes, offset):
                continue
            for w, etag in zip(windows, etags):
                if w.start <= offset < w.end and etag:
                    probes.append({"page": w.page, "per_page": w.per_page, "etag": etag})
                    break
            else:
                return ReviewListing(reviews, [], skeleton)  # no sound probe for this draft
        return ReviewListing(reviews, probes, skeleton)

    def appended(self, hint: Dict[str, Any], pages: List[Page]
                 ) -> Optional[Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]]:
        """When the only change is reviews appended after the last one (the room window holds
        what it held, in place, followed by more; every draft window unchanged): the appended
        reviews and the probes for the next poll, reading only on from the room window with
        windows that overlap it. None when anything else changed (read the list).

        Before the room window nothing can have changed that makes a review new: an insertion
        or a deletion there shifts the room window's content; a review submitted from a
        draft is the owner's (others' drafts are invisible, so theirs arrive as insertions),
        and the owner's drafts' windows are probed; dismissals and edits change no review
        into a new one. (Assumed: a submitted review never leaves the list; GitHub's API
        deletes only pending ones.)"""
        probes = hint["probes"]
        if len(pages) != len(probes) or pages[0].not_modified or any(
                not p.not_modified for p in pages[1:]):
            return None
        room, held = pages[0], probes[0].get("held")
        if not isinstance(held, list) or not held or [[r["id"], r.get("state")] for r in
                                                      room.items[:len(held)]] != held:
            return None
        items = list(room.items[len(held):])
        read = [room]
        cur = room
        cl = self._list()
        try:
            while cur.full or cur.has_next:
                nxt = cl.read(next_window(cur))
                at = cur.last_offset - nxt.window.start
                if not (0 <= at < len(nxt.items)) or nxt.items[at]["id"] != cur.last_id:
                    return None  # moved while read: read the whole list
                items += nxt.items[at + 1:]
                cur = nxt
                read.append(cur)
        finally:
            self.stream.pages += cl.pages
            self.warnings.extend(cl.warnings)
        if not cur.etag:
            return None
        new_probes = [_room_probe(cur)] + list(probes[1:])
        # Every draft of the owner in a window read here (those the old room window held,
        # and new ones) outside the new last window gets that window as its probe, as read.
        for page in read:
            for i, r in enumerate(page.items):
                offset = page.window.start + i
                if r.get("state") != "PENDING" or _holds(new_probes, offset):
                    continue
                if not page.etag:
                    return None
                new_probes.append({"page": page.window.page, "per_page": page.window.per_page,
                                   "etag": page.etag})
        return items, new_probes
