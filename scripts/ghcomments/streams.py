"""The id-ordered streams a round reads: an issue's (or a PR's) conversation, and a PR's reviews.

A stream turns (cursor, poll hint, limit) into a `Batch`: the raw items after the cursor, the
cursor that moves past them, a poll hint valid for that cursor, and what was left out. A round
(monitor.py) reads one stream for an issue and two for a pull request; the wait (wait.py) reads
the same streams again and again from the hints they leave.

Conversation: `scan.Scanner` over the issue-comment list (ascending ids; see scan.py).

Reviews (CONTRACT section 12): a review and its inline comments get their ids and `created_at`
when the review is started, and become visible only when it is submitted, possibly long after
reviews with larger ids. GitHub lists reviews "chronologically" (by id or by submission: it does
not say). So the review stream reads the whole review list every time something changed (it is
short: one request per 100 reviews), orders the submitted ones by (`submitted_at`, id), and its
cursor remembers which recent ones were handled:

    {"last_review_id": I, "last_submitted_at": T, "recent_review_ids": [...]}

(T, I) is the newest handled review; `recent_review_ids` are the handled reviews submitted at or
after T - GRACE_SECONDS. A review is new exactly when it was submitted at or after T - GRACE and
is not among them. Reviews submitted before T - GRACE were all visible, and handled, when the
cursor was made: a submission becomes visible at once (assumed, with an hour of margin for
replication lag or a review submitted in the same second as the newest handled one). The owner's
own pending review (state PENDING, no `submitted_at`) is never new and never moves the cursor.
A returned review brings all its inline comments, read from `/pulls/N/reviews/ID/comments`.

The review list's poll probe is the window that holds its last review and has room after it (an
insertion anywhere before shifts it, so its ETag changes), plus the window of each pending review
of the token's owner (its submission changes that window in place). A list of several pages also
keeps each earlier page's ETag and skeleton (id, submitted_at, state), so that a change re-reads
only the last pages and proves the earlier ones unchanged with conditional requests.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from . import normalize
from .errors import NotFoundError, ServerError
from .scan import (
    PER_PAGE_MAX,
    CommentList,
    Keep,
    Page,
    PageBudgetExhausted,
    Scanner,
    ScanResult,
    Window,
    best_probe,
    first_kept,
    last_kept,
)

GRACE_SECONDS = 3600
ZERO_CONVERSATION = {"last_comment_id": 0, "last_comment_created_at": None}
ZERO_REVIEWS = {"last_review_id": 0, "last_submitted_at": None, "recent_review_ids": []}


@dataclass
class Batch:
    """One stream's answer to one read."""

    kind: str
    items: List[Any] = field(default_factory=list)  # raw items after the cursor, in order
    cursor: Optional[Dict[str, Any]] = None           # the cursor past `items`
    hint: Optional[Dict[str, Any]] = None             # poll hint valid for `cursor`
    more_available: Optional[bool] = False
    truncated: bool = False
    not_modified: bool = False
    cursor_found: bool = True
    older_not_returned: Optional[int] = None
    latest: Optional[Dict[str, Any]] = None           # newest item known (brief form)
    pages: int = 0


# --------------------------------------------------------------------------- conversation


def checkpoint_of(raw: Optional[Dict[str, Any]], with_seen: bool = True
                  ) -> Optional[Dict[str, Any]]:
    if raw is None:
        return None
    cp = {"last_comment_id": raw["id"], "last_comment_created_at": raw.get("created_at")}
    if with_seen:
        cp["last_seen_comment_updated_at"] = raw.get("updated_at")
    return cp


def cursor_part(cp: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The comparable part of a conversation checkpoint (no `last_seen_comment_updated_at`)."""
    if not cp:
        return None
    return {"last_comment_id": cp["last_comment_id"],
            "last_comment_created_at": cp.get("last_comment_created_at")}


def get_item(client: Any, path: str, what: str, missing: str) -> Dict[str, Any]:
    """One object by id (a comment, a review): 404 becomes exit 4 saying `missing`."""
    try:
        raw, _ = client.get_json(path, what=what)
    except NotFoundError as exc:
        raise NotFoundError(f"{missing}: {exc.message}", status=exc.status)
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), int):
        raise ServerError(f"{what}: unexpected response")
    return raw


class Stream:
    """What every stream has: where it reads, its --max-pages, the round's warnings, the
    author filters as a test on raw items (`--limit` counts only what they keep), and the
    pages it read."""

    kind = ""

    def __init__(self, client: Any, owner: str, repo: str, number: int, max_pages: int,
                 warnings: List[str], keep: Optional[Keep] = None) -> None:
        self.client = client
        self.owner, self.repo, self.number = owner, repo, number
        self.max_pages = max_pages
        self.warnings = warnings
        self.keep = keep
        self.pages = 0
        self.label = f"{owner}/{repo}#{number}"


class ConversationStream(Stream):
    """An issue's (or a PR's) conversation comments after an id cursor."""

    kind = "conversation"

    def one_comment(self, comment_id: int) -> Dict[str, Any]:
        """Exactly that comment (one request); one of another issue is exit 4 naming it."""
        repository = f"{self.owner}/{self.repo}"
        raw = get_item(self.client, f"repos/{repository}/issues/comments/{comment_id}",
                       f"comment {comment_id} in {repository}",
                       f"comment {comment_id} not found in {repository} (deleted, or not an "
                       "issue comment)")
        m = re.search(r"/issues/(\d+)$", str(raw.get("issue_url") or ""))
        if m and int(m.group(1)) != self.number:
            raise NotFoundError(f"comment {comment_id} belongs to #{m.group(1)} of "
                                f"{repository}, not #{self.number}", status=None)
        return raw

    def comment_list(self) -> CommentList:
        """A fresh list reader (its own page budget: every read of a wait gets --max-pages)."""
        return CommentList(self.client, self.owner, self.repo, self.number, self.max_pages)

    def _finish(self, cl: CommentList) -> None:
        self.pages += cl.pages
        self.warnings.extend(cl.warnings)

    @staticmethod
    def hint_for(result: ScanResult, comment_id: int) -> Optional[Dict[str, Any]]:
        """The poll hint to keep with a checkpoint at `comment_id`, from the scan that saw it
        (at the zero cursor of an empty conversation: its empty first window)."""
        front = result.front
        if comment_id == 0:
            if front is not None and not front.items and front.window.start == 0 and front.etag:
                return {"comment_id": 0, "offset": None, "page": front.window.page,
                        "per_page": front.window.per_page, "etag": front.etag, "latest": None}
            return None
        offset = result.offsets.get(comment_id)
        if offset is None:
            return None
        hint: Dict[str, Any] = {"comment_id": comment_id, "offset": offset, "page": None,
                                "per_page": None, "etag": None, "latest": None}
        newest = result.newest
        if (front is not None and front.items and front.last_id == comment_id
                and not front.full and not front.has_next and front.etag
                and newest is not None and newest["id"] == comment_id):
            hint.update(page=front.window.page, per_page=front.window.per_page, etag=front.etag,
                        latest=normalize.brief(normalize.issue_comment(newest, 0)))
        return hint

    def scan_after(self, cursor: int, limit: Optional[int], hint: Optional[Dict[str, Any]],
                   sharpen: bool = False) -> ScanResult:
        cl = self.comment_list()
        probe = etag = offset = None
        if hint and hint.get("comment_id") == cursor:
            if hint.get("etag") and hint.get("page") and hint.get("per_page"):
                probe, etag = Window(int(hint["page"]), int(hint["per_page"])), hint["etag"]
            if isinstance(hint.get("offset"), int):
                offset = hint["offset"]
        try:
            result = Scanner(cl, self.keep).after(cursor, limit, probe=probe, etag=etag,
                                                  offset=offset,
                                       sharpen=sharpen)
        finally:
            self._finish(cl)
        if not result.cursor_found:
            self.warnings.append(f"--max-pages {self.max_pages} was reached before the "
                                 f"comment {cursor} was located; nothing was returned. Run "
                                 "again with a larger --max-pages")
        elif result.truncated:
            self.warnings.append(f"--max-pages {self.max_pages} stopped the scan"
                                 + ("" if result.more_available is not None else
                                    "; whether more comments follow is unknown"))
        return result

    def tail(self, want: int, quiet: bool = False) -> ScanResult:
        cl = self.comment_list()
        try:
            result = Scanner(cl, self.keep).tail(want)
        finally:
            self._finish(cl)
        if result.older_not_returned and not quiet:
            self.warnings.append(f"no checkpoint: only the newest {len(result.returned)} "
                                 f"comment(s) were read; {result.older_not_returned} older "
                                 "comment(s) were not (the history before them was not read)")
        if result.truncated:
            self.warnings.append(f"--max-pages {self.max_pages} stopped the scan")
        return result

    def everything(self) -> ScanResult:
        cl = self.comment_list()
        try:
            result = Scanner(cl).after(0, None, offset=0)
        finally:
            self._finish(cl)
        if result.truncated:
            self.warnings.append(f"--max-pages {self.max_pages} stopped the scan; "
                                 "the conversation continues after the last comment shown")
        return result

    def read(self, previous: Optional[Dict[str, Any]], hint: Optional[Dict[str, Any]],
             limit: int, zero_when_empty: bool = False) -> Batch:
        """The check's read: the newest `limit` without a cursor, else the oldest `limit`
        after it; the recommended cursor and the poll hint that goes with it."""
        if previous is None:
            result = self.tail(limit)
        else:
            result = self.scan_after(previous["last_comment_id"], limit, hint, sharpen=True)
        raws = result.returned
        batch = Batch(self.kind, items=raws, more_available=result.more_available,
                      truncated=result.truncated, not_modified=result.not_modified,
                      cursor_found=result.cursor_found,
                      older_not_returned=result.older_not_returned if previous is None
                      else None)
        if result.not_modified:
            batch.latest = hint.get("latest") if hint else None
            batch.cursor = dict(previous or {}, last_seen_comment_updated_at=None)
            batch.hint = hint
            return batch
        newest = result.newest
        batch.latest = normalize.brief(normalize.issue_comment(newest, 0)) if newest else None
        if raws:
            batch.cursor = checkpoint_of(raws[-1])
        elif previous is not None:
            seen = result.seen.get(previous["last_comment_id"])
            batch.cursor = dict(previous, last_seen_comment_updated_at=(
                seen.get("updated_at") if seen else None))
        elif zero_when_empty and not result.truncated:
            batch.cursor = dict(ZERO_CONVERSATION, last_seen_comment_updated_at=None)
        if batch.cursor is not None:
            batch.hint = self.hint_for(result, batch.cursor["last_comment_id"])
        return batch


# --------------------------------------------------------------------------- reviews


def _when(text: Optional[str]) -> Optional[_dt.datetime]:
    if not isinstance(text, str):
        return None
    try:
        return _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def review_key(raw: Dict[str, Any]) -> Tuple[str, int]:
    """The order of submitted reviews: (submitted_at, id)."""
    return (str(raw.get("submitted_at") or ""), int(raw["id"]))


def is_submitted(raw: Dict[str, Any]) -> bool:
    return raw.get("state") != "PENDING" and _when(raw.get("submitted_at")) is not None


def cursor_key(cursor: Optional[Dict[str, Any]]) -> Tuple[str, int]:
    if not cursor:
        return ("", -1)
    return (str(cursor.get("last_submitted_at") or ""), int(cursor.get("last_review_id") or 0))


def is_new_review(raw: Dict[str, Any], cursor: Dict[str, Any]) -> bool:
    """Not handled under `cursor` (see the module docstring)."""
    if not is_submitted(raw):
        return False
    last = _when(cursor.get("last_submitted_at"))
    if last is None:  # the zero cursor: nothing handled yet
        return True
    if raw["id"] in set(cursor.get("recent_review_ids") or ()):
        return False
    submitted = _when(raw.get("submitted_at"))
    return submitted is not None and submitted >= last - _dt.timedelta(seconds=GRACE_SECONDS)


def review_cursor(handled: List[Dict[str, Any]], previous: Optional[Dict[str, Any]]
                  ) -> Dict[str, Any]:
    """The cursor after `handled` (every visible submitted review now handled)."""
    newest = max(handled, key=review_key, default=None)
    if newest is None or review_key(newest) < cursor_key(previous):
        if previous:
            return previous
        return dict(ZERO_REVIEWS)
    last = _when(newest["submitted_at"])
    since = (last - _dt.timedelta(seconds=GRACE_SECONDS)) if last else None
    recent = sorted(r["id"] for r in handled
                    if since is not None and (_when(r.get("submitted_at")) or since) >= since)
    return {"last_review_id": newest["id"], "last_submitted_at": newest["submitted_at"],
            "recent_review_ids": recent}


@dataclass
class ReviewListing:
    """The whole review list as read, in GitHub's order, with the probe windows for a poll
    and, for a list of several pages, each earlier page's ETag and skeleton (id,
    submitted_at, state of its reviews: never bodies), so that the next change re-reads only
    the pages that changed."""

    reviews: List[Dict[str, Any]]
    probes: List[Dict[str, Any]]
    skeleton: List[Dict[str, Any]] = field(default_factory=list)


def _skeleton(page: Page) -> Dict[str, Any]:
    return {"page": page.window.page, "per_page": page.window.per_page, "etag": page.etag,
            "items": [[r["id"], r.get("submitted_at"), r.get("state")] for r in page.items]}


def _valid_skeleton(pages: Any) -> bool:
    """A stored skeleton in the expected shape (it is private state: distrust it)."""
    def entry_ok(e: Any) -> bool:
        return (isinstance(e, dict) and isinstance(e.get("page"), int)
                and e.get("per_page") == PER_PAGE_MAX and isinstance(e.get("etag"), str)
                and isinstance(e.get("items"), list)
                and all(isinstance(i, list) and len(i) == 3 and isinstance(i[0], int)
                        for i in e["items"]))
    return (isinstance(pages, list) and bool(pages) and all(entry_ok(e) for e in pages)
            and [e["page"] for e in pages] == list(range(1, len(pages) + 1)))


def _from_skeleton(entry: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [{"id": i, "submitted_at": at, "state": state} for i, at, state in entry["items"]]


class ReviewStream(Stream):
    """A PR's submitted reviews, each with its inline comments, after a review cursor."""

    kind = "reviews"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.base = f"repos/{self.owner}/{self.repo}/pulls/{self.number}"

    # -- the review list ---------------------------------------------------------------------
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
        """The stored probes, read conditionally in turn up to the first that changed (the
        last page returned); all of them 304 means the review list did not change."""
        cl = self._list()
        pages = []
        try:
            for p in hint.get("probes") or []:
                page = cl.read(Window(int(p["page"]), int(p["per_page"])), p.get("etag"))
                pages.append(page)
                if not page.not_modified:
                    return pages
        except NotFoundError as exc:
            raise self._not_found(exc)
        finally:
            self.pages += cl.pages
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
                if all(cl.read(p.window, p.etag, counts=False).not_modified
                       for p in pages[:-1] if p.etag):
                    break
            else:
                raise ServerError(f"reviews of {self.label} kept changing while read")
            return self._finish_listing(cl, [_skeleton(p) for p in pages[:-1]],
                                        [r for p in pages[:-1] for r in p.items], pages[-1:])
        except NotFoundError as exc:
            raise self._not_found(exc)
        finally:
            self.pages += cl.pages
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
                                        tail[-1:])
        except NotFoundError as exc:
            raise self._not_found(exc)
        finally:
            self.pages += cl.pages
            self.warnings.extend(cl.warnings)

    def _finish_listing(self, cl: CommentList, skeleton: List[Dict[str, Any]],
                        earlier: List[Dict[str, Any]], last_pages: List[Page]
                        ) -> ReviewListing:
        """The listing from the earlier pages (as reviews and skeleton) and the last page:
        the probe windows (a window with room after the last review; the window of each of
        the owner's pending reviews) for the next poll."""
        last = last_pages[-1]
        reviews = earlier + list(last.items)
        if reviews and (last.full or not last.etag):
            # no room after the last review in the window read: take one that has some
            room = cl.read(best_probe(len(reviews) - 1))
            if room.items and room.etag and [r["id"] for r in room.items] == [
                    r["id"] for r in reviews[room.window.start:room.window.end]]:
                last = room
        if not (last.etag and not last.full):
            return ReviewListing(reviews, [])
        if any(not e["etag"] for e in skeleton):  # a page read in halves has none
            skeleton = []
        probes = [{"page": last.window.page, "per_page": last.window.per_page,
                   "etag": last.etag}]
        windows = [(e["page"], e["per_page"], e["etag"]) for e in skeleton] + [
            (p.window.page, p.window.per_page, p.etag) for p in last_pages]
        for offset, r in enumerate(reviews):
            if r.get("state") != "PENDING":
                continue
            for page, per_page, etag in windows:
                w = Window(page, per_page)
                probe = {"page": page, "per_page": per_page, "etag": etag}
                if w.start <= offset < w.end and etag and probe not in probes:
                    probes.append(probe)
        return ReviewListing(reviews, probes, skeleton)

    # -- a review's comments -----------------------------------------------------------------
    def comments_of(self, review_id: int) -> Tuple[List[Dict[str, Any]], bool]:
        """All inline comments of one submitted review, ascending id; (comments, truncated)."""
        cl = CommentList(self.client, self.owner, self.repo, self.number, self.max_pages,
                         path=f"{self.base}/reviews/{review_id}/comments",
                         what=f"comments of review {review_id} on {self.label}")
        try:
            result = Scanner(cl).after(0, None, offset=0)
        finally:
            self.pages += cl.pages
            self.warnings.extend(cl.warnings)
        if result.truncated:
            self.warnings.append(f"--max-pages {self.max_pages} stopped reading the comments "
                                 f"of review {review_id}; only {len(result.returned)} shown")
        return result.returned, result.truncated

    # -- the stream's read -------------------------------------------------------------------
    def read(self, previous: Optional[Dict[str, Any]], hint: Optional[Dict[str, Any]],
             limit: int) -> Batch:
        """Reviews after `previous` (the newest `limit` without a cursor, else the oldest
        `limit` after it), each as (review, its comments)."""
        first: Optional[Page] = None
        listing: Optional[ReviewListing] = None
        try:
            if hint and previous and hint.get("cursor") == previous and hint.get("probes"):
                pages = self.probe(hint)
                if all(p.not_modified for p in pages):
                    return Batch(self.kind, cursor=previous, hint=hint, not_modified=True)
                changed = pages[-1] if pages else None
                if _valid_skeleton(hint.get("pages")):
                    listing = self.partial_listing(hint["pages"], changed)
                elif (changed is not None and changed.window.start == 0
                      and changed.window.per_page == PER_PAGE_MAX):
                    first = changed  # the list's first page: no need to read it again
            if listing is None:
                listing = self.listing(first)
        except PageBudgetExhausted:
            self.warnings.append(f"--max-pages {self.max_pages} stopped reading the reviews of "
                                 f"{self.label}; no review was returned")
            return Batch(self.kind, cursor=previous, more_available=None, truncated=True)
        submitted = sorted((r for r in listing.reviews if is_submitted(r)), key=review_key)
        batch = Batch(self.kind)
        if previous is None:
            chosen = last_kept(submitted, limit, self.keep)
            batch.older_not_returned = len(submitted) - len(chosen)
            handled = submitted
            batch.more_available = False
            if batch.older_not_returned:
                self.warnings.append(f"no checkpoint: only the newest {len(chosen)} review(s) "
                                     f"were read; {batch.older_not_returned} older review(s) "
                                     "were not")
        else:
            new = [r for r in submitted if is_new_review(r, previous)]
            chosen = first_kept(new, limit, self.keep)
            batch.more_available = len(new) > len(chosen)
            handled = [r for r in submitted if not is_new_review(r, previous) or r in chosen]
        if any("node_id" not in r for r in chosen):  # a skeleton never is new: read it all
            return self.read(previous, None, limit)
        batch.cursor = review_cursor(handled, previous)
        if not batch.more_available and listing.probes:
            batch.hint = {"cursor": batch.cursor, "probes": listing.probes}
            if listing.skeleton:
                batch.hint["pages"] = listing.skeleton
        for review in chosen:
            comments, truncated = self.comments_of(review["id"])
            batch.items.append((review, comments))
            batch.truncated = batch.truncated or truncated
        return batch

    # -- reads by id ---------------------------------------------------------------------------
    def one_review(self, review_id: int) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
        raw = get_item(self.client, f"{self.base}/reviews/{review_id}",
                       f"review {review_id} of {self.label}",
                       f"review {review_id} not found on {self.label} (another pull "
                       "request's, or not submitted)")
        if not is_submitted(raw):
            raise NotFoundError(f"review {review_id} on {self.label} is pending (not "
                                "submitted): it has no feedback to read yet", status=None)
        comments, _truncated = self.comments_of(review_id)
        return raw, comments

    def one_comment(self, comment_id: int) -> Dict[str, Any]:
        repository = f"{self.owner}/{self.repo}"
        raw = get_item(self.client, f"repos/{repository}/pulls/comments/{comment_id}",
                       f"review comment {comment_id} in {repository}",
                       f"review comment {comment_id} not found in {repository}")
        number = normalize.pull_number(raw.get("pull_request_url"))
        if number is not None and number != self.number:
            raise NotFoundError(f"review comment {comment_id} belongs to pull request "
                                f"#{number} of {self.owner}/{self.repo}, not #{self.number}",
                                status=None)
        return raw
