"""A pull request's reviews as a stream: the submitted reviews after a review cursor, each with
all its inline comments (CONTRACT section 12).

Which review is new under a cursor: review_order.py. What a round asks of the reviews besides
their read (thread state, the handled review's head, reads by id): review_hooks.py. How the
review list is read, and probed for a poll: review_listing.py. A returned review brings all its
inline comments, read from `/pulls/N/reviews/ID/comments`.
"""

from __future__ import annotations

from ..store import edits, records
from ..text import normalize
from .review_hooks import ReviewHooks
from .review_listing import SKELETON, ReviewLister, ReviewListing
from .review_order import (
    cursor_key,
    handled_under,
    is_dated,
    is_new_review,
    is_submitted,
    review_cursor,
    review_key,
)
from .scan import (
    PER_PAGE_MAX,
    CommentList,
    Page,
    PageBudgetExhausted,
    Scanner,
    first_kept,
    last_kept,
)
from .stream import PAST, SAME, Batch, watermark_order

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional, Tuple


class ReviewStream(ReviewHooks):
    """A PR's submitted reviews, each with its inline comments, after a review cursor."""

    kind = "reviews"
    by_id = ("review_comment_id", "review_id")
    shown = ("new_reviews", "new_review_comments")
    cleared = {"threads": []}

    valid_cursor = staticmethod(records.review_cursor)

    @staticmethod
    def applied(stored: Any, target: Any) -> Optional[str]:
        """(last_submitted_at, last_review_id) by order, recent_review_ids and
        undated_review_ids by inclusion, the edit watermark by time."""
        if (stored or None) == (target or None):
            return SAME
        if not handled_under(target, stored) or watermark_order(
                edits.of(stored), edits.of(target)) is None:
            return None
        return PAST

    @staticmethod
    def position(cursor: Any) -> Any:
        return (cursor or {}).get("last_review_id")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.base = f"repos/{self.owner}/{self.repo}/pulls/{self.number}"
        self.lister = ReviewLister(self)

    # -- a review's comments -----------------------------------------------------------------
    def comments_of(self, review_id: int, quiet: bool = False
                    ) -> Tuple[List[Dict[str, Any]], bool]:
        """All inline comments of one submitted review, ascending id; (comments, truncated)."""
        cl = CommentList(self.client, self.owner, self.repo, self.number, self.max_pages,
                         path=f"{self.base}/reviews/{review_id}/comments",
                         what=f"comments of review {review_id} on {self.label}")
        try:
            result = Scanner(cl).after(0, None, offset=0)
        finally:
            self.pages += cl.pages
            self.warnings.extend(cl.warnings)
        if result.truncated and not quiet:
            self.warnings.append(f"--max-pages {self.max_pages} stopped reading the comments "
                                 f"of review {review_id}; only {len(result.returned)} shown")
        return result.returned, result.truncated

    # -- edits of the inline comments of passed reviews (section 19) ---------------------------
    edits_key = "edited_review_comments"
    edits_filtered = "edited_review_comments"
    what_edits = "review comments"
    listed: Optional[List[Dict[str, Any]]] = None  # the review list as the last read saw it

    def edits_list(self) -> str:
        return f"{self.base}/comments"

    def returned(self, batch: Batch) -> List[Dict[str, Any]]:
        return [c for _review, comments in batch.items for c in comments]

    def establish_from(self, previous: Optional[Dict[str, Any]], batch: Batch
                       ) -> Optional[str]:
        """The cursor's newest submission; on a first look the oldest returned review's;
        else from 1970 (every comment). The read covers the hour before it, and W is at
        least it, so a later read from W - 1 hour meets only pairs this read recorded."""
        if previous is not None:
            return previous.get("last_submitted_at")
        dated = sorted((r for r, _c in batch.items if is_dated(r)), key=review_key)
        return dated[0]["submitted_at"] if dated else None

    def handled(self, previous: Optional[Dict[str, Any]], batch: Batch
                ) -> Callable[[Dict[str, Any]], Optional[bool]]:
        """A comment of a submitted review the previous cursor passed (never a draft's, never
        one of a review not yet returned). The review list is read (one request per 100
        reviews) only when this read did not see it and an edit needs the answer; a review
        past a --max-pages cut of it is unknown (None: the edit is left for a later check,
        the watermark does not move past it)."""
        returned = {r["id"] for r, _c in batch.items}
        reviews: Dict[int, Dict[str, Any]] = {}
        loaded: List[bool] = []  # [whether --max-pages cut the review list]

        def test(raw: Dict[str, Any]) -> Optional[bool]:
            rid = raw.get("pull_request_review_id")
            if previous is None or not isinstance(rid, int) or rid in returned:
                return False
            if not loaded:
                listed, cut = self.listed, False
                if listed is None:
                    listed, _pages, cut = self.client.paginate(
                        f"{self.base}/reviews", {"per_page": PER_PAGE_MAX},
                        max_pages=self.max_pages, what=f"reviews of {self.label}")
                    if cut:
                        self.warnings.append(
                            f"--max-pages {self.max_pages} stopped reading the reviews of "
                            f"{self.label}: edits of inline comments of reviews past it are "
                            "left for a later check")
                loaded.append(bool(cut))
                reviews.update({r["id"]: r for r in listed
                                if isinstance(r, dict) and isinstance(r.get("id"), int)})
            review = reviews.get(rid)
            if review is None and loaded[0]:
                return None  # past the cut: not known to be passed (edits.decide defers it)
            return (review is not None and is_submitted(review)
                    and not is_new_review(review, previous))
        return test

    def present_edit(self, raw: Dict[str, Any], max_body_chars: Optional[int],
                     reveal_hidden: bool) -> Dict[str, Any]:
        return normalize.review_comment(raw, max_body_chars, reveal_hidden)

    # -- cursors, hints, presentation -----------------------------------------------------------
    @staticmethod
    def same(a: Optional[Dict[str, Any]], b: Optional[Dict[str, Any]]) -> bool:
        return (a or None) == (b or None)

    @staticmethod
    def key(cursor: Optional[Dict[str, Any]]) -> Tuple[Any, ...]:
        return cursor_key(cursor)

    @staticmethod
    def valid_hint(hint: Any) -> bool:
        return records.review_hint(hint)

    @staticmethod
    def hint_matches(hint: Dict[str, Any], cursor: Optional[Dict[str, Any]]) -> bool:
        return cursor is not None and hint.get("cursor") == cursor

    def present(self, batch: Batch, max_body_chars: Optional[int], reveal_hidden: bool,
                include_system: bool) -> Tuple[Dict[str, List[Dict[str, Any]]],
                                               Dict[str, Dict[str, int]]]:
        reviews: List[Dict[str, Any]] = []
        inline: List[Dict[str, Any]] = []
        left: Dict[str, int] = {}
        left_inline: Dict[str, int] = {}
        for raw, raw_comments in batch.items:
            why = self.reason(raw)
            if why is not None:  # a review left out takes its comments with it
                self._count(left, why)
                if raw_comments:
                    self._count(left_inline, why, len(raw_comments))
                continue
            kept = []
            for c in raw_comments:
                c_why = self.reason(c)
                if c_why is None:
                    kept.append(normalize.review_comment(c, max_body_chars, reveal_hidden))
                else:
                    self._count(left_inline, c_why)
            # decided on what GitHub sent, never on a body cut by --max-body-chars
            system = raw.get("state") == "COMMENTED" and not str(raw.get("body") or "").strip()
            if not system or include_system:
                reviews.append(normalize.review(raw, len(kept), max_body_chars, reveal_hidden))
            inline += kept
        return ({"new_reviews": reviews, "new_review_comments": inline},
                {"reviews": left, "review_comments": left_inline})

    # -- the stream's read -------------------------------------------------------------------
    def read(self, previous: Optional[Dict[str, Any]], hint: Optional[Dict[str, Any]],
             limit: int, *, sharpen: bool = True, fresh: bool = False) -> Batch:
        """Reviews after `previous` (the newest `limit` without a cursor, else the oldest
        `limit` after it), each as (review, its comments). `fresh`: read the whole list (a
        review known only from the stored skeleton turned out to be new)."""
        first: Optional[Page] = None
        listing: Optional[ReviewListing] = None
        try:
            if (not fresh and hint and previous and records.review_hint(hint)
                    and hint.get("cursor") == previous):
                pages = self.lister.probe(hint)
                if all(p.not_modified for p in pages):
                    return Batch(self.kind, cursor=previous, hint=hint, not_modified=True)
                more = self.lister.appended(hint, pages)
                if more is not None:
                    return self._read_appended(previous, hint, more, limit)
                changed = next((p for p in pages if not p.not_modified), None)
                if hint.get("pages"):
                    listing = self.lister.partial_listing(hint["pages"], changed)
                elif (changed is not None and changed.window.start == 0
                      and changed.window.per_page == PER_PAGE_MAX):
                    first = changed  # the list's first page: no need to read it again
            if listing is None:
                listing = self.lister.listing(first)
        except PageBudgetExhausted:
            self.warnings.append(f"--max-pages {self.max_pages} stopped reading the reviews of "
                                 f"{self.label}; no review was returned")
            return Batch(self.kind, cursor=previous, more_available=None, truncated=True)
        self.listed = list(listing.reviews)  # skeleton ones hold id, submitted_at, state
        submitted = sorted((r for r in listing.reviews if is_submitted(r)), key=review_key)
        batch = Batch(self.kind)
        if previous is None:
            chosen = last_kept(submitted, limit, self.keep)
            batch.older_not_returned = len(submitted) - len(chosen)
            earlier = submitted[:len(submitted) - len(chosen)]
            if batch.older_not_returned:
                self.warnings.append(f"no checkpoint: only the newest {len(chosen)} review(s) "
                                     f"were read; {batch.older_not_returned} older review(s) "
                                     "were not")
        else:
            new = [r for r in submitted if is_new_review(r, previous)]
            chosen = first_kept(new, limit, self.keep)
            batch.more_available = len(new) > len(chosen)
            earlier = [r for r in submitted if not is_new_review(r, previous)]
        if not fresh and any(r.get(SKELETON) for r in chosen):
            return self.read(previous, None, limit, fresh=True)  # once: a fresh list has none
        taken = self._with_comments(chosen, batch)
        if len(taken) < len(chosen):
            batch.more_available = True
        batch.cursor = review_cursor(earlier + taken, previous)
        if not batch.more_available and listing.probes:
            batch.hint = {"cursor": batch.cursor, "probes": listing.probes}
            if listing.skeleton:
                batch.hint["pages"] = listing.skeleton
        return batch

    def _read_appended(self, previous: Dict[str, Any], hint: Dict[str, Any],
                       more: Tuple[List[Dict[str, Any]], List[Dict[str, Any]]], limit: int
                       ) -> Batch:
        """The read when reviews were only appended: every earlier review was handled when
        the hint was made (a hint is kept only for a cursor with nothing after it)."""
        items, probes = more
        new = sorted((r for r in items if is_new_review(r, previous)), key=review_key)
        chosen = first_kept(new, limit, self.keep)
        batch = Batch(self.kind, more_available=len(new) > len(chosen))
        taken = self._with_comments(chosen, batch)
        if len(taken) < len(chosen):
            batch.more_available = True
        batch.cursor = review_cursor(taken, previous, carry_recent=True)
        if not batch.more_available:
            batch.hint = {"cursor": batch.cursor, "probes": probes}
            if hint.get("pages"):
                batch.hint["pages"] = hint["pages"]
        return batch

    def _with_comments(self, chosen: List[Dict[str, Any]], batch: Batch
                       ) -> List[Dict[str, Any]]:
        """Each chosen review with all its inline comments, into `batch`. A review whose
        comments --max-pages cut is never passed silently: the batch stops before it, or,
        when it is the batch's first, it is returned alone and named with the read that
        shows it whole."""
        taken = []
        for review in chosen:
            comments, truncated = self.comments_of(review["id"], quiet=True)
            if truncated and taken:
                break
            batch.items.append((review, comments))
            taken.append(review)
            if truncated:
                batch.truncated = True
                self.warnings.append(
                    f"--max-pages {self.max_pages} stopped reading the inline comments of "
                    f"review {review['id']} (only {len(comments)} shown); the cursor passes "
                    "it: read it whole with get_latest_comments.py --pr "
                    f"{self.number} --review-id {review['id']} --max-pages "
                    f"{max(self.max_pages * 4, 40)}")
                break
        return taken

    def cursor_after(self, items: List[Any], previous: Optional[Dict[str, Any]]
                     ) -> Optional[Dict[str, Any]]:
        """The earlier reviews are unchanged: the previous recent ids all stay."""
        return review_cursor([review for review, _comments in items], previous,
                             carry_recent=True)
