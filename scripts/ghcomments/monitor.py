"""The monitor's rounds: check, fetch with selectors, confirm (CONTRACT sections 5, 6, 11, 12).

A round reads one or more id-ordered streams (streams.py) after their cursors: an issue's round
reads its conversation; a pull request's round (`--pr N`) reads its reviews, each with its
inline comments, and its conversation, under one checkpoint holding every stream's cursor.
Both share the read -> filter -> document -> updates-file path, the confirm's rules and the
wait (wait.py), which repeats `read` from the poll hints a read leaves.

Who writes what: only `check` writes the updates file; only `fetch(update_state=True)` and
`confirm` write the checkpoint, and the checkpoint only moves forward.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from . import normalize
from .errors import StateError, UsageError
from .filters import AuthorFilter, whoami
from .scan import ScanResult
from .state import SCHEMA_VERSION, StateStore
from .streams import (
    Batch,
    ConversationStream,
    ReviewStream,
    checkpoint_of,
    cursor_key,
    cursor_part,
)

DEFAULT_LIMIT = 20
DEFAULT_MAX_PAGES = 10


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace(
        "+00:00", "Z")


class Options:
    """What shapes the items shown: body cut, escapes, whose comments count, system reviews."""

    def __init__(self, max_body_chars: Optional[int] = None, reveal_hidden: bool = False,
                 trusted_only: bool = False, humans_only: bool = False,
                 ignore: Optional[List[str]] = None, include_system: bool = False) -> None:
        self.max_body_chars = max_body_chars
        self.reveal_hidden = reveal_hidden
        self.filter = AuthorFilter(trusted_only, humans_only, ignore)
        self.include_system = include_system


@dataclass
class Reading:
    """One read of a round: each stream's batch, what is shown, what the filters left out."""

    batches: Dict[str, Batch]
    shown: Dict[str, List[Dict[str, Any]]]
    filtered: Dict[str, Dict[str, int]] = field(default_factory=dict)

    @property
    def returned(self) -> bool:
        return any(self.shown.values())

    @property
    def cursors(self) -> Dict[str, Optional[Dict[str, Any]]]:
        return {kind: b.cursor for kind, b in self.batches.items()}

    @property
    def hints(self) -> Dict[str, Optional[Dict[str, Any]]]:
        return {kind: b.hint for kind, b in self.batches.items()}

    @property
    def more_available(self) -> Optional[bool]:
        values = [b.more_available for b in self.batches.values()]
        return True if any(v is True for v in values) else (
            None if any(v is None for v in values) else False)


class Round:
    """What an issue's and a pull request's rounds share."""

    label = "issue"

    def __init__(self, client: Any, owner: str, repo: str, number: int, store: StateStore,
                 options: Options, max_pages: int) -> None:
        self.client = client
        self.owner, self.repo, self.number = owner, repo, number
        self.repository = f"{owner}/{repo}"
        self.store = store
        self.options = options
        self.max_pages = max_pages
        self.warnings: List[str] = []
        self.conversation = ConversationStream(client, owner, repo, number, max_pages,
                                               self.warnings, self._keeper(
                                                   normalize.issue_comment))

    def _keeper(self, shape: Any) -> Optional[Any]:
        """The author filters as a test on raw items of one shape (None: keep everything)."""
        filt = self.options.filter
        if not filt.active:
            return None
        return lambda raw: filt.reason(shape(raw)) is None

    # -- shared pieces -------------------------------------------------------------------------
    @property
    def pages(self) -> int:
        return self.conversation.pages

    def _base(self) -> Dict[str, Any]:
        return {"repository": self.repository, self.label: self.number,
                "retrieved_at": now_iso()}

    def resolve_me(self) -> None:
        """`--ignore-author @me`: the token's login (cached; one request the first time)."""
        if self.options.filter.wants_me:
            login = whoami(self.client, self.store.paths.folder, self.store.paths.root,
                           self.client.api_url)
            self.options.filter.resolve_me(login)

    def _keep(self, items: List[Dict[str, Any]], counts: Dict[str, int]
              ) -> List[Dict[str, Any]]:
        """The items the author filters keep; the others counted by reason."""
        kept = []
        for item in items:
            why = self.options.filter.reason(item)
            if why is None:
                kept.append(item)
            else:
                counts[why] = counts.get(why, 0) + 1
        return kept

    def _comments(self, raws: List[Dict[str, Any]], counts: Dict[str, int]
                  ) -> List[Dict[str, Any]]:
        o = self.options
        return self._keep([normalize.issue_comment(r, o.max_body_chars, o.reveal_hidden)
                           for r in raws], counts)

    def _note_hidden(self, *lists: List[Dict[str, Any]]) -> None:
        hidden = sum(1 for items in lists for c in items if c.get("hidden_characters"))
        if hidden:
            self.warnings.append(f"{hidden} item(s) contain invisible or control characters "
                                 "(see hidden_characters; --reveal-hidden or --format summary "
                                 "shows them as <U+XXXX>)")

    def _note_filtered(self, filtered: Dict[str, Any]) -> None:
        total = sum(v if isinstance(v, int) else sum(v.values()) for v in filtered.values())
        if total:
            self.warnings.append(f"{total} item(s) left out by author filters (see "
                                 "filtered_out); the recommended checkpoint moves past them")

    def _write_updates(self, doc: Dict[str, Any], hints: Any,
                       after_comment_id: Optional[int] = None) -> None:
        private = dict(doc, poll_hint=hints, schema_version=SCHEMA_VERSION)
        if after_comment_id is not None:
            private["after_comment_id"] = after_comment_id  # the cursor was not the checkpoint
        with self.store.locked():
            self.store.write_updates(private)

    def _finish(self, doc: Dict[str, Any]) -> Dict[str, Any]:
        doc.update({"pages_scanned": self.pages, "requests": self.client.requests,
                    "snapshot_id": os.urandom(16).hex(),
                    "updates_file": self.store.paths.updates, "state_updated": False,
                    "warnings": self.warnings})
        return doc

    # -- the check (check_issue_updates.py), with or without --wait ---------------------------
    def check(self, limit: int, after_comment_id: Optional[int] = None,
              wait: Optional[Any] = None) -> Dict[str, Any]:
        previous, hints = self.start(after_comment_id)
        if wait is not None:
            if previous is None:
                raise UsageError(self.no_cursor_message())
            wait.require_auth(self.client)
        self.resolve_me()
        if wait is not None:
            doc, reading = wait.run(self, previous, hints, limit)
            if doc.get("interrupted"):
                return doc
        else:
            reading = self.read(previous, hints, limit)
            doc = self.document(previous, reading, reading.filtered)
        self._write_updates(doc, self.position(previous, reading)[1], after_comment_id)
        return doc

    def no_cursor_message(self) -> str:
        return ("--wait needs a cursor: a stored checkpoint (confirm a check first) or "
                "--after-comment-id ID (e.g. your own comment, right after posting it)")

    # implemented by the two kinds of round
    def start(self, after_comment_id: Optional[int]) -> Any:
        raise NotImplementedError

    def empty_reading(self, previous: Any) -> Reading:
        raise NotImplementedError

    def position(self, previous: Any, reading: Reading) -> Any:
        """(cursor, poll hints) after `reading`: where the next read of a wait starts, and
        what the snapshot keeps for the confirm."""
        raise NotImplementedError

    def read(self, previous: Any, hints: Any, limit: int) -> Reading:
        raise NotImplementedError

    def document(self, previous: Any, reading: Reading, filtered: Dict[str, Any]
                 ) -> Dict[str, Any]:
        raise NotImplementedError


class Monitor(Round):
    """An issue's round: its conversation comments (also a PR's, with --issue)."""

    label = "issue"

    def __init__(self, client: Any, owner: str, repo: str, issue: int,
                 store: StateStore, options: Options, max_pages: int) -> None:
        super().__init__(client, owner, repo, issue, store, options, max_pages)
        self.issue = issue

    def start(self, after_comment_id: Optional[int]) -> Any:
        """(previous cursor, poll hint) from the checkpoint or --after-comment-id."""
        cp = self.store.read_checkpoint()
        hint = cp.get("poll_hint") if cp else None
        if after_comment_id is None:
            return cursor_part(cp), hint
        same = bool(cp and cp["last_comment_id"] == after_comment_id)
        previous = {"last_comment_id": after_comment_id,
                    "last_comment_created_at": cp.get("last_comment_created_at") if same
                    else None}
        return previous, hint if same else None

    def empty_reading(self, previous: Any) -> Reading:
        return Reading({"conversation": Batch("conversation", cursor=previous)},
                       {"new_comments": []})

    def position(self, previous: Any, reading: Reading) -> Any:
        batch = reading.batches["conversation"]
        return batch.cursor or previous, batch.hint

    def read(self, previous: Any, hints: Any, limit: int) -> Reading:
        batch = self.conversation.read(previous, hints, limit)
        counts: Dict[str, int] = {}
        comments = self._comments(batch.items, counts)
        return Reading({"conversation": batch}, {"new_comments": comments}, counts)

    def document(self, previous: Any, reading: Reading, filtered: Dict[str, Any]
                 ) -> Dict[str, Any]:
        batch = reading.batches["conversation"]
        comments = reading.shown["new_comments"]
        self._note_hidden(comments)
        self._note_filtered(filtered)
        doc = self._base()
        doc.update({
            "has_updates": bool(comments),
            "new_comments": comments,
            "new_comment_count": len(comments),
            "more_available": batch.more_available,
            "truncated": batch.truncated,
            "latest_comment": batch.latest,
            "previous_checkpoint": previous,
            "recommended_checkpoint": batch.cursor,
        })
        if previous is None:
            doc["older_not_returned"] = batch.older_not_returned
        doc["filtered_out"] = dict(filtered)
        return self._finish(doc)

    # -- get_latest_comments.py ------------------------------------------------------------------
    def fetch(self, selector: str, value: Optional[int], limit: Optional[int],
              update_state: bool, force: bool) -> Dict[str, Any]:
        cp = self.store.read_checkpoint()
        previous = cursor_part(cp)
        hint = cp.get("poll_hint") if cp else None
        doc = self._base()
        conv = self.conversation
        result: Optional[ScanResult] = None
        raws: List[Dict[str, Any]] = []
        if selector != "comment_id":
            self.resolve_me()
        if selector == "comment_id":
            raws = [self.conversation.one_comment(int(value or 0))]
        elif selector == "since_comment_id":
            result = conv.scan_after(int(value or 0), limit, hint, sharpen=update_state)
        elif selector == "last_n":
            result = conv.tail(int(value or 0), quiet=True)
        elif selector == "all":
            result = conv.everything()
        elif previous is not None:
            result = conv.scan_after(previous["last_comment_id"], limit, hint,
                                     sharpen=update_state)
        else:
            selector = "tail"
            result = conv.tail(limit or DEFAULT_LIMIT)
        if result is not None:
            raws = result.returned
        next_cp = None
        if selector in ("checkpoint", "tail", "since_comment_id"):
            next_cp = checkpoint_of(raws[-1]) if raws else previous
        state_updated = False
        if update_state and raws and result is not None:
            state_updated = self._advance(raws[-1], result, force)
            if state_updated:
                next_cp = checkpoint_of(raws[-1], with_seen=False)
        counts: Dict[str, int] = {}
        if selector == "comment_id":  # reads by id ignore the author filters
            o = self.options
            comments = [normalize.issue_comment(r, o.max_body_chars, o.reveal_hidden)
                        for r in raws]
        else:
            comments = self._comments(raws, counts)
        self._note_hidden(comments)
        self._note_filtered(counts)
        doc.update({
            "selector": {"type": selector, "value": value},
            "comments": comments,
            "comment_count": len(comments),
            "previous_checkpoint": previous,
            "next_checkpoint": next_cp,
            "state_updated": state_updated,
            "more_available": result.more_available if result else False,
            "truncated": result.truncated if result else False,
        })
        if result is not None and result.older_not_returned is not None:
            doc["older_not_returned"] = result.older_not_returned
        doc.update({"filtered_out": counts, "pages_scanned": self.pages,
                    "requests": self.client.requests, "warnings": self.warnings})
        return doc

    def _advance(self, raw: Dict[str, Any], result: ScanResult, force: bool) -> bool:
        """--update-state: write the checkpoint at `raw` now (forward only)."""
        with self.store.locked():
            cp = self.store.read_checkpoint()
            stored = cp["last_comment_id"] if cp else None
            if stored == raw["id"]:
                return False
            if stored is not None and raw["id"] < stored and not force:
                raise StateError(f"refusing to move the checkpoint backwards from {stored} to "
                                 f"{raw['id']} (pass --force to do it anyway)")
            self.store.write_checkpoint(self._checkpoint_doc(
                raw["id"], raw.get("created_at"),
                ConversationStream.hint_for(result, raw["id"])))
        return True

    def _checkpoint_doc(self, comment_id: int, created_at: Optional[str],
                        hint: Optional[Dict[str, Any]]) -> Dict[str, Any]:
        doc = {"schema_version": SCHEMA_VERSION, "repository": self.repository,
               "issue": self.issue, "last_comment_id": comment_id,
               "last_comment_created_at": created_at, "saved_at": now_iso()}
        if hint:
            doc["poll_hint"] = hint
        return doc

    # -- get_latest_comments.py --confirm-updates ------------------------------------------------
    @staticmethod
    def _confirm_target(upd: Dict[str, Any], through: Optional[int]
                        ) -> Optional[Dict[str, Any]]:
        """What the confirm would write: the snapshot's recommendation, or --through ID."""
        if through is None:
            return upd.get("recommended_checkpoint")
        match = [c for c in upd["new_comments"] if c.get("id") == through]
        if not match:
            raise UsageError(f"--through {through} is not a comment of snapshot "
                             f"{upd['snapshot_id']}")
        return {"last_comment_id": through,
                "last_comment_created_at": match[0].get("created_at")}

    def confirm(self, snapshot_id: Optional[str], through: Optional[int],
                force: bool) -> Dict[str, Any]:
        doc = self._base()
        with self.store.locked():
            upd = self.store.read_updates()
            if upd is None:
                raise StateError(f"no updates file at {self.store.paths.updates}: run "
                                 "check_issue_updates.py first, then confirm what it returned")
            cp = self.store.read_checkpoint()
            stored = cp["last_comment_id"] if cp else None
            previous = cursor_part(cp)
            # Already applied comes first: a confirm that would change nothing succeeds (also a
            # retried --through whose comment is no longer in a newer snapshot).
            target = None if through is not None and through == stored else \
                self._confirm_target(upd, through)
            already = target is None or stored == target["last_comment_id"]
            written = False
            if not already:
                snap_prev = (upd.get("previous_checkpoint") or {}).get("last_comment_id")
                if (upd.get("after_comment_id") is not None and stored != snap_prev
                        and snapshot_id in (None, upd.get("snapshot_id"))):
                    raise StateError(
                        f"refusing to confirm snapshot {upd['snapshot_id']}: it was read after "
                        f"--after-comment-id {snap_prev}, not after the stored checkpoint "
                        f"({_name(stored)}); a confirm only continues the stored checkpoint. "
                        "Nothing to confirm; to follow the issue from that comment on, run "
                        f"get_latest_comments.py --since-comment-id {snap_prev} --update-state")
                check_confirmable(upd, snapshot_id, stored == snap_prev, _name(snap_prev),
                                  _name(stored))
                new_id = int(target["last_comment_id"])
                if stored is not None and new_id < stored and not force:
                    raise StateError(f"refusing to move the checkpoint backwards from {stored} "
                                     f"to {new_id} (pass --force to do it anyway)")
                hint = upd.get("poll_hint")  # kept only for its own comment: a partial
                if hint and hint.get("comment_id") != new_id:  # confirm drops it
                    hint = None
                self.store.write_checkpoint(self._checkpoint_doc(
                    new_id, target.get("last_comment_created_at"), hint))
                written = True
            after = self.store.read_checkpoint()
        doc.update({
            "selector": {"type": "confirm_updates", "snapshot_id": upd["snapshot_id"],
                         "through": through},
            "comments": [],
            "comment_count": 0,
            "previous_checkpoint": previous,
            "next_checkpoint": cursor_part(after),
            "state_updated": written,
            "already_applied": already,
            "more_available": (bool(upd.get("more_available")) or any(
                c.get("id", 0) > (through or 0) for c in upd["new_comments"])
                if through is not None else bool(upd.get("more_available"))),
            "truncated": False,
            "checkpoint_file": self.store.paths.checkpoint,
            "requests": 0,
            "warnings": self.warnings,
        })
        return doc


def _name(cid: Optional[int]) -> str:
    return f"checkpoint {cid}" if cid is not None else "no checkpoint"


def check_confirmable(upd: Dict[str, Any], snapshot_id: Optional[str], same_previous: bool,
                      snap_name: str, stored_name: str) -> None:
    """Refuse a snapshot that is not the one read, or that was read after another checkpoint
    than the stored one (compare-and-swap)."""
    if snapshot_id is not None and upd.get("snapshot_id") != snapshot_id:
        raise StateError(f"the updates file now holds snapshot {upd.get('snapshot_id')}, "
                         f"not {snapshot_id}: a later check replaced the one you read. "
                         "Process that check's comments, then confirm its snapshot")
    if not same_previous:
        raise StateError(f"refusing to confirm snapshot {upd['snapshot_id']}: it was read with "
                         f"{snap_name}, but the state holds {stored_name}. Run "
                         "check_issue_updates.py again")


# --------------------------------------------------------------------------- pull requests


KINDS = ("conversation", "reviews")
SYSTEM_NOTE = ("REST has no thread resolution state: run get_pr_comments.py for which review "
               "threads are resolved")


def _parts(cp: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The comparable checkpoint of a PR: one cursor per stream."""
    if not cp:
        return None
    return {"conversation": cursor_part(cp.get("conversation")), "reviews": cp.get("reviews")}


def _same(a: Optional[Dict[str, Any]], b: Optional[Dict[str, Any]]) -> bool:
    """Two PR checkpoints name the same position (conversation compared on its id)."""
    a, b = a or {}, b or {}
    conv_a = (a.get("conversation") or {}).get("last_comment_id")
    conv_b = (b.get("conversation") or {}).get("last_comment_id")
    return conv_a == conv_b and (a.get("reviews") or None) == (b.get("reviews") or None)


def _describe(cp: Optional[Dict[str, Any]]) -> str:
    if not cp:
        return "no checkpoint"
    conv = (cp.get("conversation") or {}).get("last_comment_id")
    rev = (cp.get("reviews") or {}).get("last_review_id")
    return f"checkpoint (conversation {conv}, reviews {rev})"


class PullRequestRound(Round):
    """A pull request's round: reviews with their inline comments, and the conversation."""

    label = "pull_request"

    def __init__(self, client: Any, owner: str, repo: str, number: int, store: StateStore,
                 options: Options, max_pages: int) -> None:
        super().__init__(client, owner, repo, number, store, options, max_pages)
        self.reviews = ReviewStream(client, owner, repo, number, max_pages, self.warnings,
                                    self._keeper(lambda raw: normalize.review(raw, 0)))

    @property
    def pages(self) -> int:
        return self.conversation.pages + self.reviews.pages

    def start(self, after_comment_id: Optional[int]) -> Any:
        cp = self.store.read_checkpoint()
        return _parts(cp), (cp.get("poll_hints") if cp else None) or {}

    def no_cursor_message(self) -> str:
        return ("--wait with --pr needs a stored checkpoint: run check_issue_updates.py --pr N, "
                "confirm it, then wait (--after-comment-id does not go with --pr)")

    # -- reading -------------------------------------------------------------------------------
    def empty_reading(self, previous: Any) -> Reading:
        prev = previous or {}
        return Reading({k: Batch(k, cursor=prev.get(k)) for k in KINDS},
                       {"new_comments": [], "new_reviews": [], "new_review_comments": []})

    def position(self, previous: Any, reading: Reading) -> Any:
        return dict(reading.cursors), dict(reading.hints)

    def read(self, previous: Any, hints: Any, limit: int) -> Reading:
        prev = previous or {}
        hints = hints or {}
        reviews = self.reviews.read(prev.get("reviews") if previous else None,
                                    hints.get("reviews"), limit)
        conv = self.conversation.read(prev.get("conversation") if previous else None,
                                      hints.get("conversation"), limit, zero_when_empty=True)
        filtered: Dict[str, Dict[str, int]] = {k: {} for k in
                                               ("conversation", "reviews", "review_comments")}
        comments = self._comments(conv.items, filtered["conversation"])
        shown_reviews: List[Dict[str, Any]] = []
        shown_inline: List[Dict[str, Any]] = []
        o = self.options
        for raw, raw_comments in reviews.items:
            review = normalize.review(raw, len(raw_comments), o.max_body_chars,
                                      o.reveal_hidden)
            inline = [normalize.review_comment(c, o.max_body_chars, o.reveal_hidden)
                      for c in raw_comments]
            why = o.filter.reason(review)
            if why is not None:  # a review left out takes its comments with it
                filtered["reviews"][why] = filtered["reviews"].get(why, 0) + 1
                if inline:
                    filtered["review_comments"][why] = (filtered["review_comments"].get(why, 0)
                                                        + len(inline))
                continue
            inline = self._keep(inline, filtered["review_comments"])
            review["comment_count"] = len(inline)
            system = (review["state"] == "COMMENTED" and not (review["body"] or "").strip())
            if not system or o.include_system:
                shown_reviews.append(review)
            shown_inline += inline
        return Reading({"conversation": conv, "reviews": reviews},
                       {"new_comments": comments, "new_reviews": shown_reviews,
                        "new_review_comments": shown_inline},
                       {k: v for k, v in filtered.items() if v})

    def document(self, previous: Any, reading: Reading, filtered: Dict[str, Any]
                 ) -> Dict[str, Any]:
        conv, reviews = reading.batches["conversation"], reading.batches["reviews"]
        shown = reading.shown
        self._note_hidden(shown["new_comments"], shown["new_reviews"],
                          shown["new_review_comments"])
        self._note_filtered(filtered)
        if SYSTEM_NOTE not in self.warnings:
            self.warnings.append(SYSTEM_NOTE)
        doc = self._base()
        doc.update({
            "has_updates": reading.returned,
            "new_comments": shown["new_comments"],
            "new_comment_count": len(shown["new_comments"]),
            "new_reviews": shown["new_reviews"],
            "new_review_count": len(shown["new_reviews"]),
            "new_review_comments": shown["new_review_comments"],
            "new_review_comment_count": len(shown["new_review_comments"]),
            "more_available": reading.more_available,
            "more_available_by_kind": {"conversation": conv.more_available,
                                       "reviews": reviews.more_available},
            "truncated": conv.truncated or reviews.truncated,
            "latest_comment": conv.latest,
            "previous_checkpoint": previous,
            "recommended_checkpoint": {"conversation": conv.cursor, "reviews": reviews.cursor},
        })
        if previous is None:
            doc["older_not_returned"] = {"conversation": conv.older_not_returned,
                                         "reviews": reviews.older_not_returned}
        doc["filtered_out"] = {k: dict(v) for k, v in filtered.items()}
        return self._finish(doc)

    # -- get_latest_comments.py --pr -----------------------------------------------------------
    def fetch(self, selector: str, value: Optional[int], limit: int, update_state: bool,
              force: bool) -> Dict[str, Any]:
        o = self.options
        doc = self._base()
        comments: List[Dict[str, Any]] = []
        reviews: List[Dict[str, Any]] = []
        inline: List[Dict[str, Any]] = []
        previous = next_cp = None
        more: Optional[bool] = False
        truncated = state_updated = False
        counts: Dict[str, Any] = {}
        if selector == "comment_id":  # reads by id ignore the author filters
            comments = [normalize.issue_comment(self.conversation.one_comment(int(value or 0)),
                                                o.max_body_chars, o.reveal_hidden)]
        elif selector == "review_comment_id":
            inline = [normalize.review_comment(self.reviews.one_comment(int(value or 0)),
                                               o.max_body_chars, o.reveal_hidden)]
        elif selector == "review_id":
            raw, raw_comments = self.reviews.one_review(int(value or 0))
            reviews = [normalize.review(raw, len(raw_comments), o.max_body_chars,
                                        o.reveal_hidden)]
            inline = [normalize.review_comment(c, o.max_body_chars, o.reveal_hidden)
                      for c in raw_comments]
        else:
            self.resolve_me()
            previous, hints = self.start(None)
            reading = self.read(previous, hints, limit)
            comments = reading.shown["new_comments"]
            reviews = reading.shown["new_reviews"]
            inline = reading.shown["new_review_comments"]
            counts = reading.filtered
            more = reading.more_available
            truncated = any(b.truncated for b in reading.batches.values())
            next_cp = {k: reading.cursors[k] for k in KINDS}
            if update_state:
                with self.store.locked():
                    state_updated = self._write_checkpoint(previous, next_cp, reading.hints,
                                                           force, check_previous=False)
            if SYSTEM_NOTE not in self.warnings:
                self.warnings.append(SYSTEM_NOTE)
        self._note_hidden(comments, reviews, inline)
        self._note_filtered(counts)
        doc.update({
            "selector": {"type": selector, "value": value},
            "comments": comments, "comment_count": len(comments),
            "reviews": reviews, "review_count": len(reviews),
            "review_comments": inline, "review_comment_count": len(inline),
            "previous_checkpoint": previous, "next_checkpoint": next_cp,
            "state_updated": state_updated, "more_available": more, "truncated": truncated,
            "filtered_out": counts, "pages_scanned": self.pages,
            "requests": self.client.requests, "warnings": self.warnings,
        })
        return doc

    # -- checkpoint writes ---------------------------------------------------------------------
    def _checkpoint_doc(self, parts: Dict[str, Any], hints: Dict[str, Any]) -> Dict[str, Any]:
        conv = cursor_part(parts.get("conversation"))
        doc = {"schema_version": SCHEMA_VERSION, "repository": self.repository,
               "pull_request": self.number, "conversation": conv,
               "reviews": parts.get("reviews"), "saved_at": now_iso()}
        kept = {}
        conv_hint = (hints or {}).get("conversation")
        if conv and conv_hint and conv_hint.get("comment_id") == conv["last_comment_id"]:
            kept["conversation"] = conv_hint
        rev_hint = (hints or {}).get("reviews")
        if rev_hint and rev_hint.get("cursor") == parts.get("reviews"):
            kept["reviews"] = rev_hint
        if kept:
            doc["poll_hints"] = kept
        return doc

    def _write_checkpoint(self, previous: Any, target: Dict[str, Any], hints: Dict[str, Any],
                          force: bool, check_previous: bool, upd: Any = None,
                          snapshot_id: Optional[str] = None) -> bool:
        """Write `target` unless already applied; refuse a moved checkpoint or a step back.
        The caller holds the lock."""
        stored = _parts(self.store.read_checkpoint())
        if _same(stored, target):
            return False
        if check_previous:
            check_confirmable(upd, snapshot_id, _same(stored, previous),
                              _describe(previous), _describe(stored))
        if stored and not force:
            old_conv = (stored.get("conversation") or {}).get("last_comment_id") or 0
            new_conv = (target.get("conversation") or {}).get("last_comment_id") or 0
            if new_conv < old_conv or cursor_key(target.get("reviews")) < cursor_key(
                    stored.get("reviews")):
                raise StateError(f"refusing to move the checkpoint backwards from "
                                 f"{_describe(stored)} to {_describe(target)} (pass "
                                 "--force to do it anyway)")
        self.store.write_checkpoint(self._checkpoint_doc(target, hints))
        return True

    def confirm(self, snapshot_id: Optional[str], force: bool) -> Dict[str, Any]:
        doc = self._base()
        with self.store.locked():  # the updates file and the checkpoint read as one
            upd = self.store.read_updates()
            if upd is None:
                raise StateError(f"no updates file at {self.store.paths.updates}: run "
                                 "check_issue_updates.py --pr first, then confirm what it "
                                 "returned")
            previous = _parts(self.store.read_checkpoint())
            target = upd.get("recommended_checkpoint")
            if not isinstance(target, dict):
                raise StateError(f"updates file {self.store.paths.updates} holds no "
                                 "recommended checkpoint; left as it is")
            written = self._write_checkpoint(upd.get("previous_checkpoint"), target,
                                             upd.get("poll_hint") or {}, force,
                                             check_previous=True, upd=upd,
                                             snapshot_id=snapshot_id)
            after = _parts(self.store.read_checkpoint())
        doc.update({
            "selector": {"type": "confirm_updates", "snapshot_id": upd["snapshot_id"],
                         "through": None},
            "comments": [], "comment_count": 0,
            "previous_checkpoint": previous, "next_checkpoint": after,
            "state_updated": written, "already_applied": not written,
            "more_available": bool(upd.get("more_available")), "truncated": False,
            "checkpoint_file": self.store.paths.checkpoint, "requests": 0,
            "warnings": self.warnings,
        })
        return doc
