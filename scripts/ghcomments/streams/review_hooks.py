"""The reviews kind's answers beyond its read (CONTRACT sections 12, 14, 15 and amendments,
turn 6): the thread state a round reads only when it returns inline comments, what the read
showed of the pull request's head, the handled review's commit, and the reads by id
(`--review-id`, `--review-comment-id`). A base of review_stream.py's `ReviewStream`.
"""

from __future__ import annotations

from ..base.errors import NotFoundError, ServerError
from ..store import records
from ..text import normalize
from .review_order import is_submitted, review_key
from .stream import Stream, get_item

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional, Tuple


SYSTEM_NOTE = ("REST has no thread resolution state: run get_pr_comments.py for which review "
               "threads are resolved")


class ReviewHooks(Stream):
    """The round's hooks of the reviews kind and its reads by id (no kind of its own:
    review_stream.py's `ReviewStream` is the kind)."""

    base = ""  # the pull request's path (ReviewStream sets it)

    def comments_of(self, review_id: int, quiet: bool = False
                    ) -> Tuple[List[Dict[str, Any]], bool]:
        """A review's inline comments (review_stream.py's)."""
        raise NotImplementedError

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
