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
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import normalize, records
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
    next_window,
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
    pages it read. A stream also knows its cursor (how two compare, which is further) and its
    poll hint (its shape, and which cursor it was measured for): the round (monitor.py) keeps
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

    def _count(self, counts: Dict[str, int], why: str, n: int = 1) -> None:
        counts[why] = counts.get(why, 0) + n


class ConversationStream(Stream):
    """An issue's (or a PR's) conversation comments after an id cursor."""

    kind = "conversation"
    zero_when_empty = False  # no cursor and no comment: recommend the zero cursor (a PR round)

    @staticmethod
    def same(a: Optional[Dict[str, Any]], b: Optional[Dict[str, Any]]) -> bool:
        return (a or {}).get("last_comment_id") == (b or {}).get("last_comment_id")

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
            if hint.get("etag") and hint.get("page") and hint.get("per_page"):
                probe, etag = Window(int(hint["page"]), int(hint["per_page"])), hint["etag"]
            if isinstance(hint.get("offset"), int):
                offset = hint["offset"]
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


# --------------------------------------------------------------------------- reviews


def _when(text: Optional[str]) -> Optional[_dt.datetime]:
    if not isinstance(text, str):
        return None
    try:
        return _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def is_dated(raw: Dict[str, Any]) -> bool:
    return _when(raw.get("submitted_at")) is not None


def review_key(raw: Dict[str, Any]) -> Tuple[str, int]:
    """The order of submitted reviews: (submitted_at, id); one without a submission time
    sorts first (it is read as soon as it is seen, and remembered by id)."""
    return (str(raw.get("submitted_at") or "") if is_dated(raw) else "", int(raw["id"]))


def is_submitted(raw: Dict[str, Any]) -> bool:
    """Not a draft. GitHub shows its owner a draft as PENDING with no `submitted_at`; any
    other review counts as submitted, with or without a submission time."""
    return raw.get("state") != "PENDING"


def cursor_key(cursor: Optional[Dict[str, Any]]) -> Tuple[str, int]:
    if not cursor:
        return ("", -1)
    return (str(cursor.get("last_submitted_at") or ""), int(cursor.get("last_review_id") or 0))


def is_new_review(raw: Dict[str, Any], cursor: Dict[str, Any]) -> bool:
    """Not handled under `cursor` (see the module docstring)."""
    if not is_submitted(raw):
        return False
    if not is_dated(raw):  # no submission time to order it by: remembered by id
        return raw["id"] not in set(cursor.get("undated_review_ids") or ())
    last = _when(cursor.get("last_submitted_at"))
    if last is None:  # the zero cursor: nothing handled yet
        return True
    if raw["id"] in set(cursor.get("recent_review_ids") or ()):
        return False
    submitted = _when(raw.get("submitted_at"))
    return submitted is not None and submitted >= last - _dt.timedelta(seconds=GRACE_SECONDS)


def review_cursor(handled: List[Dict[str, Any]], previous: Optional[Dict[str, Any]],
                  carry_recent: bool = False) -> Dict[str, Any]:
    """The cursor after `handled` (every visible submitted review now handled). It never
    moves back, and a handled review that sorts before the cursor still joins its recent ids
    (the cursor's own review may have left the list), so it is never returned again.
    `carry_recent`: `handled` holds only the reviews just read, the earlier ones being
    unchanged: the previous recent ids all stay (a superset; the next full read prunes it)."""
    dated = [r for r in handled if is_dated(r)]
    newest = max(dated, key=review_key, default=None)
    if newest is not None and review_key(newest) >= cursor_key(previous):
        last_id, last_at = newest["id"], newest["submitted_at"]
        keep_old = False
    elif previous and previous.get("last_submitted_at"):
        last_id, last_at = previous["last_review_id"], previous["last_submitted_at"]
        keep_old = True
    else:
        last_id, last_at, keep_old = 0, None, False
    cursor: Dict[str, Any] = {"last_review_id": last_id, "last_submitted_at": last_at,
                              "recent_review_ids": []}
    last = _when(last_at)
    if last is not None:
        since = last - _dt.timedelta(seconds=GRACE_SECONDS)
        recent = {r["id"] for r in dated if (_when(r["submitted_at"]) or since) >= since}
        if keep_old or carry_recent:
            recent |= set((previous or {}).get("recent_review_ids") or ())
        cursor["recent_review_ids"] = sorted(recent)
    undated = set((previous or {}).get("undated_review_ids") or ()) | {
        r["id"] for r in handled if not is_dated(r)}
    if undated:
        cursor["undated_review_ids"] = sorted(undated)
    return cursor


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
                                        tail)
        except NotFoundError as exc:
            raise self._not_found(exc)
        finally:
            self.pages += cl.pages
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
            self.pages += cl.pages
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
                pages = self.probe(hint)
                if all(p.not_modified for p in pages):
                    return Batch(self.kind, cursor=previous, hint=hint, not_modified=True)
                more = self.appended(hint, pages)
                if more is not None:
                    return self._read_appended(previous, hint, more, limit)
                changed = next((p for p in pages if not p.not_modified), None)
                if hint.get("pages"):
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
