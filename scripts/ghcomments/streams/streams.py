"""The id-ordered streams a round reads: the `Stream` base, and an issue's (or a PR's) conversation.

A stream turns (cursor, poll hint, limit) into a `Batch`: the raw items after the cursor, the
cursor that moves past them, a poll hint valid for that cursor, and what was left out. A round
(engine.py) reads one stream for an issue and two for a pull request; the wait (wait.py) reads
the same streams again and again from the hints they leave.

Conversation: `scan.Scanner` over the issue-comment list (ascending ids; see scan.py).
A pull request's reviews are the other stream: review_stream.py (its read), review_order.py
(which review is new under a cursor), review_listing.py (the review list and its probes).
"""

from __future__ import annotations

from ..base.errors import NotFoundError, ServerError
from ..base.plain import factory, plain, replace
from ..store import edits, records
from ..text import normalize
from .scan import (
    CommentList,
    Keep,
    Scanner,
    ScanResult,
    Window,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional, Tuple

ZERO_CONVERSATION = {"last_comment_id": 0, "last_comment_created_at": None}


@plain
class Batch:
    """One stream's answer to one read."""

    kind: str
    items: List[Any] = factory(list)  # raw items after the cursor, in order
    cursor: Optional[Dict[str, Any]] = None           # the cursor past `items`
    hint: Optional[Dict[str, Any]] = None             # poll hint valid for `cursor`
    more_available: Optional[bool] = False
    truncated: bool = False
    not_modified: bool = False
    cursor_found: bool = True
    older_not_returned: Optional[int] = None
    latest: Optional[Dict[str, Any]] = None           # newest item known (brief form)
    pages: int = 0
    edited: Optional[List[Dict[str, Any]]] = None     # --include-edits: edited items shown
    edits_left: Dict[str, int] = factory(dict)  # what the filters left out


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
    """The comparable part of a conversation checkpoint (no `last_seen_comment_updated_at`;
    its edit watermark when it has one)."""
    if not cp:
        return None
    out = {"last_comment_id": cp["last_comment_id"],
           "last_comment_created_at": cp.get("last_comment_created_at")}
    if cp.get("edits") is not None:
        out["edits"] = cp["edits"]
    return out


def with_edits(cursor: Optional[Dict[str, Any]], record: Optional[Dict[str, Any]]
               ) -> Optional[Dict[str, Any]]:
    """`cursor` carrying the edit watermark `record` (None: without one)."""
    if cursor is None:
        return None
    out = {k: v for k, v in cursor.items() if k != "edits"}
    if record is not None:
        out["edits"] = record
    return out


def with_history(shown: Dict[str, Any], info: Optional[Dict[str, Any]],
                 max_body_chars: Optional[int], reveal_hidden: bool) -> Dict[str, Any]:
    """An edited item with what its edit history says (section 19, turn 5): `edited_by`,
    `last_edited_at`, `previous_body` (untrusted text, cut and counted as bodies are) and
    `previous_body_source`."""
    info = info or {"previous_body_source": "graphql_unavailable"}
    prev = info.get("previous_body")
    fields = normalize.cut_body(prev, max_body_chars, reveal_hidden)
    out = dict(shown)
    out.update({"edited_by": info.get("edited_by"), "last_edited_at": info.get("last_edited_at"),
                "previous_body": fields["body"],
                "previous_body_source": info.get("previous_body_source"),
                "previous_body_chars": fields["body_chars"],
                "previous_hidden_characters": fields["hidden_characters"],
                "previous_body_truncated": fields["body_truncated"]})
    return out


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
    pages it read. A stream also knows its cursor (how two compare, which is further) and its
    poll hint (its shape, and which cursor it was measured for): the round (engine.py) keeps
    every rule about checkpoints, hints and confirms, for every stream alike."""

    kind = ""

    def __init__(self, client: Any, owner: str, repo: str, number: int, max_pages: int,
                 warnings: List[str], keep: Optional[Keep] = None,
                 reason: Optional[Callable[[Dict[str, Any]], Optional[str]]] = None) -> None:
        self.client = client
        self.owner, self.repo, self.number = owner, repo, number
        self.max_pages = max_pages
        self.warnings = warnings
        self.keep = keep
        self.reason = reason or (lambda _raw: None)  # why a raw item is left out, or None
        self.pages = 0
        self.tracked_since: Optional[str] = None  # section 19 turn 5: set by the round
        self.read_at: Optional[str] = None
        self.label = f"{owner}/{repo}#{number}"

    # -- cursors and hints (typed records: records.py) ----------------------------------------
    @staticmethod
    def same(a: Optional[Dict[str, Any]], b: Optional[Dict[str, Any]]) -> bool:
        raise NotImplementedError

    @staticmethod
    def key(cursor: Optional[Dict[str, Any]]) -> Tuple[Any, ...]:
        """The order of cursors: a checkpoint only moves to a larger key."""
        raise NotImplementedError

    @staticmethod
    def valid_hint(hint: Any) -> bool:
        raise NotImplementedError

    @staticmethod
    def hint_matches(hint: Dict[str, Any], cursor: Optional[Dict[str, Any]]) -> bool:
        raise NotImplementedError

    def read(self, previous: Optional[Dict[str, Any]], hint: Optional[Dict[str, Any]],
             limit: int, *, sharpen: bool = True) -> Batch:
        raise NotImplementedError

    def present(self, batch: Batch, max_body_chars: Optional[int], reveal_hidden: bool,
                include_system: bool) -> Tuple[Dict[str, List[Dict[str, Any]]],
                                               Dict[str, Dict[str, int]]]:
        """What a batch shows (each item normalised once) and what the filters left out,
        by kind; every decision is made on the raw item."""
        raise NotImplementedError

    def cut(self, batch: Batch, previous: Optional[Dict[str, Any]], keep: int, tail: bool,
            keep_edits: Optional[int] = None) -> Batch:
        """`batch` with only `keep` of its items and `keep_edits` of its edited ones
        (--max-total, budget.py): after a cursor the oldest, the cursor past the last kept one
        and more available (no hint: something lies after the cursor); without one (`tail`)
        the newest, the older ones not returned. The cursor's edit watermark records only
        what is returned, and stays where it was when an edit is dropped (edits.after_cut)."""
        if tail and keep == 0 and batch.items:
            # nothing of this stream returned (another stream of the round took the bound): it
            # stays unread, so its newest item comes next time, as a first look of the stream
            return replace(batch, items=[], cursor=previous, hint=None, more_available=True)
        if tail:  # no cursor: a first look establishes its watermark and reports no edit
            dropped = len(batch.items) - keep
            return replace(batch, items=batch.items[dropped:],
                           older_not_returned=(batch.older_not_returned or 0) + dropped)
        out = batch
        if keep < len(batch.items):
            items = batch.items[:keep]
            out = replace(batch, items=items, cursor=self.cursor_after(items, previous),
                          hint=None, more_available=True)
        edited = batch.edited or []
        if keep_edits is not None and keep_edits < len(edited):
            out = replace(out, edited=edited[:keep_edits], hint=None, more_available=True)
        record = (batch.cursor or {}).get("edits")
        if out is batch or record is None:
            return out
        kept_ids = {r["id"] for r in self.returned(out)} | {e["id"] for e in out.edited or []}
        dropped = [r["id"] for r in self.returned(batch) if r["id"] not in kept_ids]
        dropped += [e["id"] for e in edited if e["id"] not in kept_ids]
        out.cursor = with_edits(out.cursor, edits.after_cut(
            (previous or {}).get("edits"), record, dropped, len(out.edited or []) < len(edited)))
        return out

    def cursor_after(self, items: List[Any], previous: Optional[Dict[str, Any]]
                     ) -> Optional[Dict[str, Any]]:
        """The cursor once `items` (the oldest after `previous`) are handled."""
        raise NotImplementedError

    # -- edits of handled items (section 19: since.py reads, edits.py decides) -------------
    edits_key = ""       # the list's edited items in documents (edited_...)
    edits_filtered = ""  # their key in filtered_out
    what_edits = "comments"

    def edits_list(self) -> str:
        """The path of the comment list whose edits this stream reports."""
        raise NotImplementedError

    def returned(self, batch: Batch) -> List[Dict[str, Any]]:
        """The raw items of that list a batch returns (their pairs are given)."""
        raise NotImplementedError

    def establish_from(self, previous: Optional[Dict[str, Any]], batch: Batch
                       ) -> Optional[str]:
        """The GitHub time a first watermark is read from (None: from 1970)."""
        raise NotImplementedError

    def handled(self, previous: Optional[Dict[str, Any]], batch: Batch
                ) -> Callable[[Dict[str, Any]], bool]:
        """A test on an item of that list: passed by the previous cursor."""
        raise NotImplementedError

    def present_edit(self, raw: Dict[str, Any], max_body_chars: Optional[int],
                     reveal_hidden: bool) -> Dict[str, Any]:
        raise NotImplementedError

    def edits_after(self, previous: Optional[Dict[str, Any]], batch: Batch,
                    hint: Optional[Dict[str, Any]], limit: int, flagged: bool,
                    max_body_chars: Optional[int], reveal_hidden: bool
                    ) -> Tuple[Optional[List[Dict[str, Any]]], Dict[str, int]]:
        """The list's edit watermark after the id read of `batch`, into its cursor and hint;
        (the edited items to show, what the filters left out). With `flagged`
        (--include-edits): the `since` read and its decision. Without: the stored watermark
        kept, the items returned recorded as given (None: nothing to show)."""
        stored = (previous or {}).get("edits")
        old_hint = hint.get("edits") if isinstance(hint, dict) else None
        shown: Optional[List[Dict[str, Any]]] = None
        left: Dict[str, int] = {}
        base = batch.cursor if batch.cursor is not None else previous
        if base is None:  # a first look at an empty list: no cursor to carry a watermark
            return ([] if flagged else None), left
        first = stored is None or stored.get("through") is None
        if flagged and first and batch.more_available is not False:
            # W is set (and a first ask answered) by the check that reaches the end of the
            # list, where the newest comment bounds the read (a batch cut short does not);
            # until then the returned items are recorded as given
            flagged, shown = False, []
        if flagged:
            from . import since  # only a flagged check reads `since` windows

            er = since.read_edits(
                self.client, self.edits_list(), f"{self.what_edits} of {self.label}",
                stored if previous is not None else None,
                self.establish_from(previous, batch), self.handled(previous, batch),
                self.returned(batch), limit, self.reason, self.max_pages, old_hint,
                self.tracked_since, self.read_at)
            self.pages += er.pages
            self.warnings.extend(er.warnings)
            shown = [with_history(self.present_edit(r, max_body_chars, reveal_hidden),
                                  er.history.get(r["id"]), max_body_chars, reveal_hidden)
                     for r in er.edited]
            left = dict(er.left_out)
            record, new_hint = er.record, er.hint
            if er.more_available or er.truncated:  # edits left for a later check
                batch.more_available = True
            batch.truncated = batch.truncated or er.truncated
        else:
            record = edits.carry(stored, self.returned(batch))
            new_hint = old_hint
        batch.cursor = with_edits(base, record)
        if isinstance(batch.hint, dict):
            batch.hint = {k: v for k, v in batch.hint.items() if k != "edits"}
            if new_hint is not None:
                batch.hint["edits"] = new_hint
            if "cursor" in batch.hint:  # a hint naming its cursor names the final one
                batch.hint["cursor"] = batch.cursor
        return shown, left

    def _count(self, counts: Dict[str, int], why: str, n: int = 1) -> None:
        counts[why] = counts.get(why, 0) + n


class ConversationStream(Stream):
    """An issue's (or a PR's) conversation comments after an id cursor."""

    kind = "conversation"
    zero_when_empty = False  # no cursor and no comment: recommend the zero cursor (a PR round)

    @staticmethod
    def same(a: Optional[Dict[str, Any]], b: Optional[Dict[str, Any]]) -> bool:
        return ((a or {}).get("last_comment_id") == (b or {}).get("last_comment_id")
                and edits.same((a or {}).get("edits"), (b or {}).get("edits")))

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
