"""A pull request's reviews as a stream: the submitted reviews after a review cursor, each with
all its inline comments (CONTRACT section 12).

Which review is new under a cursor: review_order.py. How the review list is read, and probed
for a poll: review_listing.py. A returned review brings all its inline comments, read from
`/pulls/N/reviews/ID/comments`.
"""

from __future__ import annotations

from ..base.errors import NotFoundError, ServerError
from ..store import edits, records
from ..text import normalize
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
from .stream import PAST, SAME, Batch, Stream, get_item, watermark_order

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional, Tuple


SYSTEM_NOTE = ("REST has no thread resolution state: run get_pr_comments.py for which review "
               "threads are resolved")


class ReviewStream(Stream):
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

    # -- thread state (CONTRACT section 15): read only for a round that returns inline comments
    _thread_read: Optional[Tuple[Any, Optional[List[Dict[str, Any]]]]] = None

    # what this read showed of the pull request's head, without a request of its own (the
    # head kind's `handled_head`: CONTRACT amendments, turn 6), the best first
    heads_seen: List[Dict[str, Any]] = []

    def on_items(self, rnd: Any, reading: Any) -> None:
        comments = ((reading.shown.get("new_review_comments") or [])
                    + (reading.shown.get(self.edits_key) or []))
        heads: List[Dict[str, Any]] = []
        if comments:
            from .threads import attach  # loaded (with pr.py) only by such a round

            seen: Dict[str, Any] = {}
            self._thread_read = (reading, attach(self.client, self.owner, self.repo,
                                                 self.number, comments, self.warnings, seen))
            if seen.get("head_ref_oid"):
                heads.append({"sha": seen["head_ref_oid"], "seen_at": rnd.read_at,
                              "source": "threads"})
        batch = reading.batches.get(self.kind)
        reviews = [review for review, _comments in (batch.items if batch is not None else [])]
        if reviews:  # the newest review returned: the commit it was submitted on
            newest = max(reviews, key=review_key)
            if records.SHA_RE.fullmatch(str(newest.get("commit_id") or "")):
                heads.append({"sha": newest["commit_id"], "seen_at": rnd.read_at,
                              "source": "review"})
        self.heads_seen = heads

    def handled_review_head(self, cursor: Optional[Dict[str, Any]]) -> Optional[str]:
        """The commit the newest handled review (the cursor's `last_review_id`) was submitted
        on: one read of that review; None without one, or when it cannot be read."""
        review_id = (cursor or {}).get("last_review_id")
        if not isinstance(review_id, int) or isinstance(review_id, bool) or review_id <= 0:
            return None
        try:
            raw = get_item(self.client, f"{self.base}/reviews/{review_id}",
                           f"review {review_id} of {self.label}",
                           f"review {review_id} not found on {self.label}")
        except (NotFoundError, ServerError):
            return None
        finally:
            self.pages += 1
        sha = raw.get("commit_id")
        return sha if isinstance(sha, str) and records.SHA_RE.fullmatch(sha) else None

    def threads_of(self, reading: Any) -> Optional[List[Dict[str, Any]]]:
        """The round's `threads`: [] when it returns no inline comment, null when GraphQL
        could not be read."""
        read = self._thread_read
        return read[1] if read is not None and read[0] is reading else []

    def notes(self, rnd: Any, by_id: Optional[Dict[str, List[Dict[str, Any]]]]) -> None:
        """SYSTEM_NOTE only where inline comments are returned without thread state: the
        thread query failed, or (a read by id) was not sent (CONTRACT amendments, turn 6)."""
        if by_id is not None:
            bare = bool(by_id.get("new_review_comments"))
        else:
            read = self._thread_read
            bare = read is not None and read[1] is None
        if bare and SYSTEM_NOTE not in self.warnings:
            self.warnings.append(SYSTEM_NOTE)

    def fields(self, rnd: Any, reading: Any) -> Dict[str, Any]:
        return {"threads": self.threads_of(reading)}

    def fetch_fields(self, rnd: Any, reading: Any) -> Dict[str, Any]:
        """A round read (not a read by id: those carry no thread data) returns `threads`."""
        return {"threads": [] if reading is None else self.threads_of(reading)}

    # -- reads by id ---------------------------------------------------------------------------
    def read_one(self, selector: str, value: int, max_body_chars: Optional[int],
                 reveal_hidden: bool) -> Dict[str, List[Dict[str, Any]]]:
        if selector == "review_comment_id":
            return {"new_review_comments": [normalize.review_comment(
                self.one_comment(value), max_body_chars, reveal_hidden)]}
        raw, raw_comments = self.one_review(value)
        return {"new_reviews": [normalize.review(raw, len(raw_comments), max_body_chars,
                                                 reveal_hidden)],
                "new_review_comments": [normalize.review_comment(c, max_body_chars,
                                                                 reveal_hidden)
                                        for c in raw_comments]}

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
