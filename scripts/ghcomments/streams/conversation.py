"""An issue's (or a pull request's) conversation: its comments after an id cursor, read by
`scan.Scanner` over the issue-comment list (ascending ids; see scan.py)."""

from __future__ import annotations

from ..base.errors import NotFoundError, ServerError
from ..store import edits, records
from ..text import normalize
from .scan import (
    CommentList,
    Scanner,
    ScanResult,
    Window,
)
from .stream import (
    PAST,
    SAME,
    ZERO_CONVERSATION,
    Batch,
    Stream,
    checkpoint_of,
    cursor_part,
    get_item,
    watermark_order,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional, Tuple


class ConversationStream(Stream):
    """An issue's (or a PR's) conversation comments after an id cursor."""

    kind = "conversation"
    primary = True
    by_id = ("comment_id",)
    shown = ("new_comments",)
    zero_when_empty = False  # no cursor and no comment: recommend the zero cursor (a PR round)

    valid_cursor = staticmethod(records.conversation_cursor)
    stored = staticmethod(cursor_part)

    @staticmethod
    def applied(stored: Any, target: Any) -> Optional[str]:
        """By the comment id, with the edit watermark by time (`seen` a superset)."""
        s, t = cursor_part(stored) or {}, cursor_part(target) or {}
        ids = int(s.get("last_comment_id") or 0) - int(t.get("last_comment_id") or 0)
        w = watermark_order(edits.of(s), edits.of(t))
        if ids < 0 or w is None:
            return None
        return SAME if ids == 0 and w == SAME else PAST

    @staticmethod
    def position(cursor: Any) -> Any:
        return (cursor or {}).get("last_comment_id")

    @staticmethod
    def same(a: Optional[Dict[str, Any]], b: Optional[Dict[str, Any]]) -> bool:
        return ((a or {}).get("last_comment_id") == (b or {}).get("last_comment_id")
                and edits.same(edits.of(a), edits.of(b)))

    @staticmethod
    def key(cursor: Optional[Dict[str, Any]]) -> Tuple[Any, ...]:
        return (int((cursor or {}).get("last_comment_id") or 0),)

    @staticmethod
    def valid_hint(hint: Any) -> bool:
        return records.conversation_hint(hint)

    @staticmethod
    def hint_matches(hint: Dict[str, Any], cursor: Optional[Dict[str, Any]]) -> bool:
        """Measured for this cursor; with no cursor, a hint that the list was empty."""
        if cursor is None:
            return hint.get("comment_id") == 0 and hint.get("offset") is None
        return hint.get("comment_id") == cursor.get("last_comment_id")

    def present(self, batch: Batch, max_body_chars: Optional[int], reveal_hidden: bool,
                include_system: bool) -> Tuple[Dict[str, List[Dict[str, Any]]],
                                               Dict[str, Dict[str, int]]]:
        shown, counts = [], {}  # type: ignore[var-annotated]
        for raw in batch.items:
            why = self.reason(raw)
            if why is None:
                shown.append(normalize.issue_comment(raw, max_body_chars, reveal_hidden))
            else:
                self._count(counts, why)
        return {"new_comments": shown}, {"conversation": counts}

    def cursor_after(self, items: List[Any], previous: Optional[Dict[str, Any]]
                     ) -> Optional[Dict[str, Any]]:
        if items:
            return checkpoint_of(items[-1])
        if previous is None:  # nothing handled yet: no cursor (never one without an id)
            return None
        return dict(cursor_part(previous) or {}, last_seen_comment_updated_at=None)

    # -- edits (section 19) ------------------------------------------------------------------
    edits_key = "edited_comments"
    edits_filtered = "edited_conversation"

    def edits_list(self) -> str:
        return f"repos/{self.owner}/{self.repo}/issues/{self.number}/comments"

    def returned(self, batch: Batch) -> List[Dict[str, Any]]:
        return list(batch.items)

    def establish_from(self, previous: Optional[Dict[str, Any]], batch: Batch
                       ) -> Optional[str]:
        """The newest comment's `created_at` (known from the id read; else the checkpoint
        comment's, or on a first look the oldest returned one's): the read covers the hour
        before it, all a later read from W - 1 hour can meet, however old the checkpoint."""
        newest = (batch.latest or {}).get("created_at")
        if edits.parse_time(newest) is not None:
            return newest
        if previous is not None:
            return previous.get("last_comment_created_at")
        return batch.items[0].get("created_at") if batch.items else None

    def handled(self, previous: Optional[Dict[str, Any]], batch: Batch
                ) -> Callable[[Dict[str, Any]], bool]:
        last = int((previous or {}).get("last_comment_id") or 0)
        return lambda raw: raw["id"] <= last

    def present_edit(self, raw: Dict[str, Any], max_body_chars: Optional[int],
                     reveal_hidden: bool) -> Dict[str, Any]:
        return normalize.issue_comment(raw, max_body_chars, reveal_hidden)

    def one_comment(self, comment_id: int) -> Dict[str, Any]:
        """Exactly that comment (one request); one of another issue is exit 4 naming it."""
        repository = f"{self.owner}/{self.repo}"
        raw = get_item(self.client, f"repos/{repository}/issues/comments/{comment_id}",
                       f"comment {comment_id} in {repository}",
                       f"comment {comment_id} not found in {repository} (deleted, or not an "
                       "issue comment)")
        number = normalize.number_at_end(raw.get("issue_url"), "issues",
                                         f"comment {comment_id} in {repository}")
        if number is None:  # GitHub always names it: without it, whose comment is unknown
            raise ServerError(f"comment {comment_id} in {repository}: malformed response: no "
                              "issue_url naming its issue (section 22)")
        if number != self.number:
            raise NotFoundError(f"comment {comment_id} belongs to #{number} of "
                                f"{repository}, not #{self.number}", status=None)
        return raw

    def read_one(self, selector: str, value: int, max_body_chars: Optional[int],
                 reveal_hidden: bool) -> Dict[str, List[Dict[str, Any]]]:
        return {"new_comments": [normalize.issue_comment(self.one_comment(value),
                                                         max_body_chars, reveal_hidden)]}

    def comment_list(self) -> CommentList:
        """A fresh list reader (its own page budget: every read of a wait gets --max-pages)."""
        return CommentList(self.client, self.owner, self.repo, self.number, self.max_pages)

    def _finish(self, cl: CommentList) -> None:
        self.pages += cl.pages
        self.warnings.extend(cl.warnings)

    @staticmethod
    def hint_for(result: ScanResult, comment_id: int) -> Optional[Dict[str, Any]]:
        """The poll hint for a cursor at `comment_id`, from the scan that saw the list: where
        the cursor stands (its offset, or that of the last comment before it when it is gone
        or was never there), and, when nothing lay after it, the window holding the newest
        comment (or the empty list's window) with its ETag as the probe. A comment arriving,
        an earlier one deleted or one in the window edited changes that ETag, whether or not
        the cursor's own comment still exists."""
        front, newest = result.front, result.newest
        before = [o for i, o in result.offsets.items() if i <= comment_id]
        offset = result.offsets.get(comment_id, max(before) if before else None)
        hint: Dict[str, Any] = {"comment_id": comment_id, "offset": offset, "page": None,
                                "per_page": None, "etag": None, "latest": None}
        if (front is not None and front.etag and not front.full and not front.has_next
                and (newest is None or newest["id"] <= comment_id)
                and ((front.items and newest is not None and front.last_id == newest["id"])
                     or (not front.items and front.window.start == 0))):
            hint.update(page=front.window.page, per_page=front.window.per_page, etag=front.etag,
                        latest=(normalize.brief(normalize.issue_comment(newest, 0))
                                if newest is not None else None))
        elif offset is None:
            return None
        return hint

    def scan_after(self, cursor: int, limit: Optional[int], hint: Optional[Dict[str, Any]],
                   sharpen: bool = False) -> ScanResult:
        cl = self.comment_list()
        probe = etag = offset = None
        if records.conversation_hint(hint) and hint.get("comment_id") == cursor:
            if isinstance(hint.get("offset"), int):
                offset = hint["offset"]
            if hint.get("etag") and hint.get("page") and hint.get("per_page"):
                window = Window(int(hint["page"]), int(hint["per_page"]))
                # A cache, never a blindfold (section 22): the probe is used only when it holds
                # the place right after the cursor (where the next comment lands), else a 304
                # of a window that skips it would hide what arrived there.
                after = offset + 1 if offset is not None else 0
                if window.start <= after < window.end:
                    probe, etag = window, hint["etag"]
        try:
            result = Scanner(cl, self.keep).after(cursor, limit, probe=probe, etag=etag,
                                                  offset=offset, sharpen=sharpen)
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
             limit: int, *, sharpen: bool = True) -> Batch:
        """The round's read: the newest `limit` without a cursor, else the oldest `limit`
        after it; the recommended cursor and the poll hint that goes with it."""
        if previous is None:
            result = self._still_empty(hint) or self.tail(limit)
        else:
            result = self.scan_after(previous["last_comment_id"], limit, hint, sharpen=sharpen)
        raws = result.returned
        batch = Batch(self.kind, items=raws, more_available=result.more_available,
                      truncated=result.truncated, not_modified=result.not_modified,
                      cursor_found=result.cursor_found,
                      older_not_returned=result.older_not_returned if previous is None
                      else None)
        if result.not_modified:
            batch.latest = hint.get("latest") if hint else None
            batch.cursor = (dict(cursor_part(previous) or {}, last_seen_comment_updated_at=None)
                            if previous is not None else None)
            batch.hint = hint
            return batch
        newest = result.newest
        batch.latest = normalize.brief(normalize.issue_comment(newest, 0)) if newest else None
        if raws:
            batch.cursor = checkpoint_of(raws[-1])
        elif previous is not None:
            seen = result.seen.get(previous["last_comment_id"])
            batch.cursor = dict(cursor_part(previous) or {}, last_seen_comment_updated_at=(
                seen.get("updated_at") if seen else None))
            if batch.cursor.get("last_comment_created_at") is None and seen:
                # a starting cursor (--after-comment-id, a REF's #issuecomment-ID): its time
                # from the comment read (CONTRACT section 18)
                batch.cursor["last_comment_created_at"] = seen.get("created_at")
        elif self.zero_when_empty and not result.truncated:
            batch.cursor = dict(ZERO_CONVERSATION, last_seen_comment_updated_at=None)
        if batch.cursor is not None:
            batch.hint = self.hint_for(result, batch.cursor["last_comment_id"])
        elif not raws and newest is None and not result.truncated:
            batch.hint = self.hint_for(result, 0)  # an empty list without a checkpoint
        return batch

    def _still_empty(self, hint: Optional[Dict[str, Any]]) -> Optional[ScanResult]:
        """No checkpoint and a hint that the list was empty: one conditional request on its
        empty window (an arrival lands in it); None when it changed (read the tail)."""
        if not (self.valid_hint(hint) and hint.get("comment_id") == 0 and hint.get("etag")
                and hint.get("offset") is None):
            return None
        cl = self.comment_list()
        try:
            page = cl.read(Window(int(hint["page"]), int(hint["per_page"])), hint["etag"])
        finally:
            self._finish(cl)
        return ScanResult(not_modified=True, older_not_returned=0) if page.not_modified else None
