"""The round engine: check, fetch with selectors, confirm (CONTRACT sections 5, 6, 11, 12, 14).

A round reads id-ordered streams (streams.py) after their cursors, under one checkpoint that
holds every stream's cursor: an issue's round reads its conversation; a pull request's round
(`--pr N`) reads its reviews, each with its inline comments, and its conversation. Every rule
lives once, here, for both: the read -> present -> document -> updates-file path; the confirm
(already applied first, compare-and-swap, forward only); `--update-state`; reads by id; the
poll hints (their own file, a cache keyed by the cursor they were measured for); the commit
point (interrupt.py); and the wait (wait.py), which repeats `read` from the hints a read
leaves. The two kinds of round differ only in their layout: which streams, and how their
cursors and counts are spelled in files and documents.

Who writes what: only `check` writes the updates file; only `fetch(update_state=True)` and
`confirm` write the checkpoint, and the checkpoint only moves forward. A check writes the
hints file only for a cursor after which it found nothing at all (filtered or not); the
updates file carries the hints for its recommended checkpoint, and every confirm installs them
(an already-applied one too).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from . import normalize, records
from .errors import StateError, UsageError
from .filters import AuthorFilter, whoami
from .interrupt import Interrupted
from .normalize import now_iso
from .state import SCHEMA_VERSION, StateStore
from .streams import (
    Batch,
    ConversationStream,
    ReviewStream,
    Stream,
    checkpoint_of,
    cursor_part,
)

DEFAULT_LIMIT = 20
DEFAULT_MAX_PAGES = 10
HINTS_KEPT = 4  # hints kept per stream, one per recent cursor (the checkpoint, --after-comment-id)

Cursors = Optional[Dict[str, Optional[Dict[str, Any]]]]  # None: no checkpoint at all

__all__ = ["DEFAULT_LIMIT", "DEFAULT_MAX_PAGES", "Monitor", "Options", "PullRequestRound",
           "Reading", "Round", "now_iso"]


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
    """One read of a round: each stream's batch, what is shown, what the filters left out
    (counts by kind: conversation, reviews, review_comments)."""

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


def _clear(doc: Dict[str, Any]) -> None:
    """An interrupted command returns nothing to process: it confirms nothing."""
    for key in ("new_comments", "new_reviews", "new_review_comments"):
        if key in doc:
            doc[key] = []
            doc[key[:-1] + "_count"] = 0
    if "threads" in doc:
        doc["threads"] = []
    doc["has_updates"] = False


def interrupted_doc(doc: Dict[str, Any], stop: Interrupted) -> Dict[str, Any]:
    """The interrupted document: nothing to process, nothing written (exit 130/143)."""
    doc = dict(doc, snapshot_id=None, state_updated=False, interrupted=True, signal=stop.name)
    _clear(doc)
    return doc


class Round:
    """One round over the streams of an issue or a pull request: the engine. Subclasses give
    the layout only (`streams_for`, `cursors_of`, `public`, `checkpoint_fields`, ...)."""

    label = "issue"
    shown_keys: Tuple[str, ...] = ("new_comments",)

    def __init__(self, client: Any, owner: str, repo: str, number: int, store: StateStore,
                 options: Options, max_pages: int) -> None:
        self.client = client
        self.owner, self.repo, self.number = owner, repo, number
        self.repository = f"{owner}/{repo}"
        self.store = store
        self.options = options
        self.max_pages = max_pages
        self.warnings: List[str] = []
        self.streams: Dict[str, Stream] = self.streams_for()
        self.conversation: ConversationStream = self.streams["conversation"]  # type: ignore
        self._loaded_hints: Dict[str, Optional[Dict[str, Any]]] = {}

    def _stream_args(self) -> Tuple[Any, ...]:
        return (self.client, self.owner, self.repo, self.number, self.max_pages,
                self.warnings)

    def _filters(self) -> Dict[str, Any]:
        """The author filters as tests on raw items: `reason` (why one is left out) and
        `keep` (for --limit, which counts only what they keep). Decided on what GitHub sent."""
        filt = self.options.filter
        if not filt.active:
            return {}

        def reason(raw: Dict[str, Any]) -> Optional[str]:
            return filt.reason(normalize.author_of(raw))

        return {"reason": reason, "keep": lambda raw: reason(raw) is None}

    # -- the layout (one for an issue, one for a pull request) -------------------------------
    def streams_for(self) -> Dict[str, Stream]:
        raise NotImplementedError

    def cursors_of(self, cp: Optional[Dict[str, Any]]) -> Cursors:
        """The stream cursors stored in a checkpoint file (None: no checkpoint)."""
        raise NotImplementedError

    def public(self, cursors: Cursors) -> Any:
        """How cursors are spelled in documents (previous/recommended/next checkpoint)."""
        raise NotImplementedError

    def from_public(self, value: Any) -> Cursors:
        raise NotImplementedError

    def checkpoint_fields(self, cursors: Dict[str, Any]) -> Dict[str, Any]:
        raise NotImplementedError

    def describe(self, cursors: Cursors) -> str:
        raise NotImplementedError

    def public_filtered(self, filtered: Dict[str, Dict[str, int]]) -> Dict[str, Any]:
        raise NotImplementedError

    def extra_fields(self, reading: Reading, previous: Cursors) -> Dict[str, Any]:
        return {}

    def fetch_fields(self, reading: Optional[Reading]) -> Dict[str, Any]:
        """What a fetch of the round (checkpoint or tail mode) adds after the items (None:
        an interrupted one)."""
        return {}

    def confirm_target(self, upd: Dict[str, Any], through: Optional[int],
                       stored: Cursors) -> Cursors:
        raise NotImplementedError

    def no_cursor_message(self) -> str:
        return ("--wait needs a cursor: a stored checkpoint (confirm a check first) or "
                "--after-comment-id ID (e.g. your own comment, right after posting it)")

    def notes(self) -> None:
        """Warnings every round of this kind carries."""

    def on_items(self, reading: Reading) -> None:
        """Runs once per read that returns items (never on a 304 or an idle poll): the place
        for what only such a round needs, e.g. a pull request's thread state."""

    # -- shared pieces -------------------------------------------------------------------------
    @property
    def pages(self) -> int:
        return sum(s.pages for s in self.streams.values())

    def _base(self) -> Dict[str, Any]:
        return {"repository": self.repository, self.label: self.number,
                "retrieved_at": now_iso()}

    def resolve_me(self) -> None:
        """`--ignore-author @me`: the token's login (cached; one request the first time)."""
        if self.options.filter.wants_me:
            login = whoami(self.client, self.store.paths.folder, self.store.paths.root,
                           self.client.api_url, self.warnings.append)
            self.options.filter.resolve_me(login)

    def _note_hidden(self, shown: Dict[str, List[Dict[str, Any]]]) -> None:
        hidden = sum(1 for items in shown.values() for c in items if c.get("hidden_characters"))
        if hidden:
            self.warnings.append(f"{hidden} item(s) contain invisible or control characters "
                                 "(see hidden_characters; --reveal-hidden or --format summary "
                                 "shows them as <U+XXXX>)")

    def _note_filtered(self, filtered: Dict[str, Dict[str, int]]) -> None:
        total = sum(sum(v.values()) for v in filtered.values())
        if total:
            self.warnings.append(f"{total} item(s) left out by author filters (see "
                                 "filtered_out); the recommended checkpoint moves past them")

    def same(self, a: Cursors, b: Cursors) -> bool:
        """Two positions are the same on every stream."""
        a, b = a or {}, b or {}
        return all(s.same(a.get(k), b.get(k)) for k, s in self.streams.items())

    # -- hints: a cache in its own file, keyed by cursor ----------------------------------------
    def load_hints(self, cursors: Cursors) -> Dict[str, Optional[Dict[str, Any]]]:
        """The stored hint of each stream measured for its cursor in `cursors`."""
        stored, problem = self.store.read_hints()
        if problem:
            self.warnings.append(problem)
        found: Dict[str, Optional[Dict[str, Any]]] = {}
        bad = 0
        for kind, stream in self.streams.items():
            cursor = (cursors or {}).get(kind)
            found[kind] = None
            for hint in stored.get(kind, []):
                if not stream.valid_hint(hint):
                    bad += 1
                elif found[kind] is None and stream.hint_matches(hint, cursor):
                    found[kind] = hint
        if bad:
            self.warnings.append(f"{bad} stored poll hint(s) of an unexpected shape in "
                                 f"{self.store.paths.hints}: ignored (rebuilt on the next "
                                 "write; it costs requests, never comments)")
        self._loaded_hints = dict(found)
        return found

    def _save_hints(self, pairs: Dict[str, Tuple[Dict[str, Any], Dict[str, Any]]]) -> None:
        """Store hint per stream for its cursor (the caller holds the lock): first in its
        list, replacing one for the same cursor; only when something changes."""
        if not pairs:
            return
        stored, _problem = self.store.read_hints()
        out: Dict[str, List[Dict[str, Any]]] = {}
        changed = False
        for kind, stream in self.streams.items():
            old = [h for h in stored.get(kind, []) if stream.valid_hint(h)]
            if kind not in pairs:
                out[kind] = old[:HINTS_KEPT]
                continue
            cursor, hint = pairs[kind]
            others = [h for h in old if not stream.hint_matches(h, cursor)]
            if not old or old[0] != hint:
                changed = True
            out[kind] = ([hint] + others)[:HINTS_KEPT]
        if changed or _problem:
            try:
                self.store.write_hints(out)
            except (OSError, StateError) as exc:  # a cache: never an error
                self.warnings.append(f"poll hints not written to {self.store.paths.hints} "
                                     f"({getattr(exc, 'message', None) or exc}); the next "
                                     "poll may cost a request")

    def _settled_hints(self, previous: Cursors, cursors: Cursors,
                       hints: Dict[str, Optional[Dict[str, Any]]]
                       ) -> Dict[str, Tuple[Dict[str, Any], Dict[str, Any]]]:
        """The hints a check may store: for a stream whose cursor did not move (nothing at
        all lay after it, filtered or not), a hint measured anew for that cursor."""
        pairs = {}
        for kind, stream in self.streams.items():
            before, after = (previous or {}).get(kind), (cursors or {}).get(kind)
            hint = hints.get(kind)
            if (stream.same(before, after) and hint is not None and stream.valid_hint(hint)
                    and stream.hint_matches(hint, after)
                    and hint != self._loaded_hints.get(kind)):
                pairs[kind] = (after, hint)
        return pairs

    def _hints_for(self, cursors: Cursors, hints: Any
                   ) -> Dict[str, Tuple[Dict[str, Any], Dict[str, Any]]]:
        """Of `hints` (by stream), those measured for the stream's cursor in `cursors`."""
        pairs = {}
        if not isinstance(hints, dict):
            return pairs
        for kind, stream in self.streams.items():
            cursor, hint = (cursors or {}).get(kind), hints.get(kind)
            if cursor is not None and stream.valid_hint(hint) and stream.hint_matches(
                    hint, cursor):
                pairs[kind] = (cursor, hint)
        return pairs

    # -- reading -------------------------------------------------------------------------------
    def start(self, after_comment_id: Optional[int] = None
              ) -> Tuple[Cursors, Dict[str, Optional[Dict[str, Any]]]]:
        """(cursors, their stored hints): the checkpoint's, or --after-comment-id's."""
        cp = self.store.read_checkpoint()
        if cp and ("poll_hint" in cp or "poll_hints" in cp):
            self.warnings.append(f"poll hints inside {self.store.paths.checkpoint} (an older "
                                 "version's) are ignored; the next checkpoint write drops them")
        cursors = self.cursors_of(cp)
        if after_comment_id is not None:
            conv = (cursors or {}).get("conversation")
            same = conv is not None and conv["last_comment_id"] == after_comment_id
            cursors = dict(cursors or {}, conversation={
                "last_comment_id": after_comment_id,
                "last_comment_created_at": conv.get("last_comment_created_at") if same
                else None})
        return cursors, self.load_hints(cursors)

    def empty_reading(self, previous: Cursors) -> Reading:
        prev = previous or {}
        return Reading({k: Batch(k, cursor=prev.get(k)) for k in self.streams},
                       {k: [] for k in self.shown_keys})

    def read(self, previous: Cursors, hints: Any, limit: int, sharpen: bool = True
             ) -> Reading:
        """Every stream read after its cursor; each item normalised once, for output."""
        hints = hints or {}
        o = self.options
        batches: Dict[str, Batch] = {}
        shown: Dict[str, List[Dict[str, Any]]] = {k: [] for k in self.shown_keys}
        filtered: Dict[str, Dict[str, int]] = {}
        for kind, stream in self.streams.items():
            cursor = previous.get(kind) if previous is not None else None
            batch = stream.read(cursor, hints.get(kind), limit, sharpen=sharpen)
            batches[kind] = batch
            items, counts = stream.present(batch, o.max_body_chars, o.reveal_hidden,
                                           o.include_system)
            shown.update(items)
            filtered.update(counts)
        reading = Reading(batches, shown, {k: v for k, v in filtered.items() if v})
        if reading.returned:
            self.on_items(reading)
        return reading

    def position(self, previous: Cursors, reading: Reading
                 ) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """(cursors, poll hints) after `reading`: where the next read of a wait starts, and
        what the snapshot keeps for the confirm."""
        prev = previous or {}
        cursors = {k: b.cursor if b.cursor is not None else prev.get(k)
                   for k, b in reading.batches.items()}
        return cursors, dict(reading.hints)

    def document(self, previous: Cursors, reading: Reading,
                 filtered: Dict[str, Dict[str, int]]) -> Dict[str, Any]:
        self._note_hidden(reading.shown)
        self._note_filtered(filtered)
        self.notes()
        batches = reading.batches
        doc = self._base()
        doc["has_updates"] = reading.returned
        for key in self.shown_keys:
            doc[key] = reading.shown[key]
            doc[key[:-1] + "_count"] = len(reading.shown[key])
        doc["more_available"] = reading.more_available
        doc.update(self.extra_fields(reading, previous))
        doc.update({
            "truncated": any(b.truncated for b in batches.values()),
            "latest_comment": batches["conversation"].latest,
            "previous_checkpoint": self.public(previous),
            "recommended_checkpoint": self.public(reading.cursors),
        })
        if previous is None:
            doc["older_not_returned"] = self.public_older(reading)
        doc["filtered_out"] = self.public_filtered(filtered)
        doc.update({"pages_scanned": self.pages, "requests": self.client.requests,
                    "snapshot_id": os.urandom(16).hex(),
                    "updates_file": self.store.paths.updates, "state_updated": False,
                    "warnings": self.warnings})
        return doc

    def public_older(self, reading: Reading) -> Any:
        return reading.batches["conversation"].older_not_returned

    # -- the check (check_issue_updates.py), with or without --wait ---------------------------
    def check(self, limit: int, after_comment_id: Optional[int] = None,
              wait: Optional[Any] = None) -> Dict[str, Any]:
        previous: Cursors = None
        doc: Optional[Dict[str, Any]] = None
        try:
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
            cursors, final_hints = self.position(previous, reading)
            private = dict(doc, schema_version=SCHEMA_VERSION,
                           poll_hint={k: h for k, h in final_hints.items() if h is not None})
            if after_comment_id is not None:
                private["after_comment_id"] = after_comment_id  # not the checkpoint's cursor
            with self.store.locked():
                self.store.write_updates(private)  # the commit point
                self._save_hints(self._settled_hints(previous, cursors, final_hints))
        except Interrupted as stop:
            if doc is None:
                doc = self.document(previous, self.empty_reading(previous), {})
            return interrupted_doc(doc, stop)
        return doc

    # -- get_latest_comments.py ------------------------------------------------------------------
    def read_by_id(self, selector: str, value: int) -> Dict[str, List[Dict[str, Any]]]:
        """One item by id (reads by id ignore the author filters)."""
        o = self.options
        shown: Dict[str, List[Dict[str, Any]]] = {k: [] for k in self.shown_keys}
        if selector == "comment_id":
            shown["new_comments"] = [normalize.issue_comment(
                self.conversation.one_comment(value), o.max_body_chars, o.reveal_hidden)]
            return shown
        reviews: ReviewStream = self.streams["reviews"]  # type: ignore[assignment]
        if selector == "review_comment_id":
            shown["new_review_comments"] = [normalize.review_comment(
                reviews.one_comment(value), o.max_body_chars, o.reveal_hidden)]
        else:
            raw, raw_comments = reviews.one_review(value)
            shown["new_reviews"] = [normalize.review(raw, len(raw_comments), o.max_body_chars,
                                                     o.reveal_hidden)]
            shown["new_review_comments"] = [
                normalize.review_comment(c, o.max_body_chars, o.reveal_hidden)
                for c in raw_comments]
        return shown

    def _conversation_selector(self, selector: str, value: int, limit: Optional[int],
                               update_state: bool, hints: Dict[str, Any]) -> Any:
        """--since-comment-id, --last-n, --all: the conversation only."""
        conv = self.conversation
        if selector == "since_comment_id":
            return conv.scan_after(value, limit, hints.get("conversation"),
                                   sharpen=update_state)
        if selector == "last_n":
            return conv.tail(value, quiet=True)
        return conv.everything()

    def fetch(self, selector: str, value: Optional[int], limit: Optional[int],
              update_state: bool, force: bool) -> Dict[str, Any]:
        doc = self._base()
        previous: Cursors = None
        shown: Dict[str, List[Dict[str, Any]]] = {k: [] for k in self.shown_keys}
        counts: Dict[str, Dict[str, int]] = {}
        next_cp: Any = None
        more: Optional[bool] = False
        truncated = state_updated = False
        older: Optional[int] = None
        reading: Optional[Reading] = None
        try:
            if selector in ("comment_id", "review_comment_id", "review_id"):
                shown = self.read_by_id(selector, int(value or 0))
                previous = self.by_id_previous()
            else:
                self.resolve_me()
                previous, hints = self.start()
                target: Cursors = None
                new_hints: Dict[str, Any] = {}
                if selector in ("since_comment_id", "last_n", "all"):
                    result = self._conversation_selector(selector, int(value or 0), limit,
                                                         update_state, hints)
                    batch = Batch("conversation", items=result.returned)
                    shown, counts = self.conversation.present(
                        batch, self.options.max_body_chars, self.options.reveal_hidden,
                        self.options.include_system)
                    counts = {k: v for k, v in counts.items() if v}
                    more, truncated = result.more_available, result.truncated
                    older = result.older_not_returned
                    raws = result.returned
                    if selector == "since_comment_id":
                        next_cp = checkpoint_of(raws[-1]) if raws else self.public(previous)
                        if raws:
                            target = dict(previous or {}, conversation=checkpoint_of(raws[-1]))
                            hint = ConversationStream.hint_for(result, raws[-1]["id"])
                            new_hints = {"conversation": hint}
                else:
                    if previous is None:
                        selector = "tail"
                    reading = self.read(previous, hints, limit or DEFAULT_LIMIT,
                                        sharpen=update_state)
                    shown, counts = reading.shown, reading.filtered
                    more = reading.more_available
                    truncated = any(b.truncated for b in reading.batches.values())
                    older = reading.batches["conversation"].older_not_returned
                    target, new_hints = self.position(previous, reading)
                    next_cp = self.next_public(previous, reading)
                    self.notes()
                if update_state and target is not None and self.writable(target):
                    state_updated = self._advance(target, new_hints, force)
                    if state_updated:
                        next_cp = self.public(
                            {k: cursor_part(v) if k == "conversation" else v
                             for k, v in target.items()})
        except Interrupted as stop:
            doc.update({"selector": {"type": selector, "value": value},
                        "previous_checkpoint": self.public(previous), "warnings": self.warnings})
            return dict(interrupted_doc(doc, stop), **{
                k[4:]: [] for k in self.shown_keys},
                **(self.fetch_fields(None) if selector in ("checkpoint", "tail") else {}))
        self._note_hidden(shown)
        self._note_filtered(counts)
        doc["selector"] = {"type": selector, "value": value}
        for key in self.shown_keys:
            doc[key[4:]] = shown.get(key, [])
            doc[key[4:-1] + "_count"] = len(doc[key[4:]])
        if reading is not None:
            doc.update(self.fetch_fields(reading))
        doc.update({"previous_checkpoint": self.public(previous), "next_checkpoint": next_cp,
                    "state_updated": state_updated, "more_available": more,
                    "truncated": truncated})
        if older is not None and self.label == "issue":
            doc["older_not_returned"] = older
        doc.update({"filtered_out": self.public_filtered(counts),
                    "pages_scanned": self.pages, "requests": self.client.requests,
                    "warnings": self.warnings})
        return doc

    def by_id_previous(self) -> Cursors:
        return None

    def next_public(self, previous: Cursors, reading: Reading) -> Any:
        return self.public(reading.cursors)

    def writable(self, target: Dict[str, Any]) -> bool:
        """A position --update-state can write (every stream has a cursor to store)."""
        return True

    # -- checkpoint writes ---------------------------------------------------------------------
    def _checkpoint_doc(self, cursors: Dict[str, Any]) -> Dict[str, Any]:
        doc = {"schema_version": SCHEMA_VERSION, "repository": self.repository,
               self.label: self.number}
        doc.update(self.checkpoint_fields(cursors))
        doc["saved_at"] = now_iso()
        return doc

    def _forward_only(self, stored: Cursors, target: Dict[str, Any], force: bool) -> None:
        if stored is None or force:
            return
        for kind, stream in self.streams.items():
            if stream.key(target.get(kind)) < stream.key(stored.get(kind)):
                raise StateError(f"refusing to move the checkpoint backwards from "
                                 f"{self.describe(stored)} to {self.describe(target)} (pass "
                                 "--force to do it anyway)")

    def _validate(self, target: Dict[str, Any], source: str) -> None:
        """A value of the wrong type never reaches a checkpoint."""
        checks = {"conversation": records.conversation_cursor, "reviews": records.review_cursor}
        for kind, value in target.items():
            if value is not None and not checks[kind](cursor_part(value) if kind ==
                                                      "conversation" else value):
                raise StateError(f"{source} holds a {kind} cursor of an unexpected shape; "
                                 "left as it is")

    def _advance(self, target: Dict[str, Any], hints: Dict[str, Any], force: bool) -> bool:
        """--update-state: write the checkpoint at `target` now (forward only)."""
        self._validate(target, "the answer")
        with self.store.locked():
            stored = self.cursors_of(self.store.read_checkpoint())
            written = not self.same(stored, target)
            if written:
                self._forward_only(stored, target, force)
                self.store.write_checkpoint(self._checkpoint_doc(target))
            self._save_hints(self._hints_for(target, hints))
        return written

    # -- get_latest_comments.py --confirm-updates ------------------------------------------------
    def confirm(self, snapshot_id: Optional[str], through: Optional[int],
                force: bool) -> Dict[str, Any]:
        doc = self._base()
        try:
            with self.store.locked():  # the updates file and the checkpoint read as one
                upd = self.store.read_updates()
                if upd is None:
                    raise StateError(f"no updates file at {self.store.paths.updates}: run "
                                     "check_issue_updates.py"
                                     + (" --pr" if self.label != "issue" else "")
                                     + " first, then confirm what it returned")
                stored = self.cursors_of(self.store.read_checkpoint())
                target = self.confirm_target(upd, through, stored)
                # Already applied comes first: a confirm that would change nothing succeeds
                # (also a retried --through whose comment is no longer in a newer snapshot).
                already = target is None or self.same(stored, target)
                if not already:
                    self._validate(target, f"updates file {self.store.paths.updates}")
                    snap_prev = self.from_public(upd.get("previous_checkpoint"))
                    self._refuse_other_cursor(upd, stored, snap_prev, snapshot_id)
                    check_confirmable(upd, snapshot_id, self.same(stored, snap_prev),
                                      self.describe(snap_prev), self.describe(stored))
                    self._forward_only(stored, target, force)
                    self.store.write_checkpoint(self._checkpoint_doc(target))
                after = self.cursors_of(self.store.read_checkpoint())
                self._save_hints(self._hints_for(after, upd.get("poll_hint")))
        except Interrupted as stop:
            return interrupted_doc(dict(doc, selector={"type": "confirm_updates",
                                                       "snapshot_id": snapshot_id,
                                                       "through": through},
                                        comments=[], comment_count=0,
                                        warnings=self.warnings), stop)
        returned = [c.get("id", 0) for c in upd.get("new_comments") or []
                    if isinstance(c, dict)]
        doc.update({
            "selector": {"type": "confirm_updates", "snapshot_id": upd["snapshot_id"],
                         "through": through},
            "comments": [], "comment_count": 0,
            "previous_checkpoint": self.public(stored),
            "next_checkpoint": self.public(after),
            "state_updated": not already, "already_applied": already,
            "more_available": bool(upd.get("more_available")) or (
                through is not None and any(isinstance(i, int) and i > through
                                            for i in returned)),
            "truncated": False,
            "checkpoint_file": self.store.paths.checkpoint, "requests": 0,
            "warnings": self.warnings,
        })
        return doc

    def _refuse_other_cursor(self, upd: Dict[str, Any], stored: Cursors, snap_prev: Cursors,
                             snapshot_id: Optional[str]) -> None:
        """A snapshot read after --after-comment-id continues no checkpoint."""
        after = upd.get("after_comment_id")
        if after is None or self.same(stored, snap_prev) or snapshot_id not in (
                None, upd.get("snapshot_id")):
            return
        raise StateError(
            f"refusing to confirm snapshot {upd['snapshot_id']}: it was read after "
            f"--after-comment-id {after}, not after the stored checkpoint "
            f"({self.describe(stored)}); a confirm only continues the stored checkpoint. "
            "Nothing to confirm; to follow the issue from that comment on, run "
            f"get_latest_comments.py --since-comment-id {after} --update-state")


class Monitor(Round):
    """An issue's round: its conversation comments (also a PR's, with --issue)."""

    label = "issue"

    @property
    def issue(self) -> int:
        return self.number

    def streams_for(self) -> Dict[str, Stream]:
        return {"conversation": ConversationStream(*self._stream_args(), **self._filters())}

    def cursors_of(self, cp: Optional[Dict[str, Any]]) -> Cursors:
        return {"conversation": cursor_part(cp)} if cp else None

    def public(self, cursors: Cursors) -> Any:
        return (cursors or {}).get("conversation")

    def from_public(self, value: Any) -> Cursors:
        if value is None:
            return None
        if not records.conversation_cursor(value):
            raise StateError(f"updates file {self.store.paths.updates} holds a checkpoint of "
                             "an unexpected shape; left as it is")
        return {"conversation": cursor_part(value)}

    def checkpoint_fields(self, cursors: Dict[str, Any]) -> Dict[str, Any]:
        conv = cursor_part(cursors["conversation"]) or {}
        return {"last_comment_id": conv.get("last_comment_id"),
                "last_comment_created_at": conv.get("last_comment_created_at")}

    def describe(self, cursors: Cursors) -> str:
        return _name(((cursors or {}).get("conversation") or {}).get("last_comment_id"))

    def public_filtered(self, filtered: Dict[str, Dict[str, int]]) -> Dict[str, Any]:
        return dict(filtered.get("conversation") or {})

    def writable(self, target: Dict[str, Any]) -> bool:
        return target.get("conversation") is not None

    def next_public(self, previous: Cursors, reading: Reading) -> Any:
        raws = reading.batches["conversation"].items
        return checkpoint_of(raws[-1]) if raws else self.public(previous)

    def by_id_previous(self) -> Cursors:
        return self.cursors_of(self.store.read_checkpoint())

    def confirm_target(self, upd: Dict[str, Any], through: Optional[int],
                       stored: Cursors) -> Cursors:
        """The snapshot's recommendation, or --through ID (a comment of that snapshot)."""
        conv = (stored or {}).get("conversation") or {}
        if through is None:
            return self.from_public(upd.get("recommended_checkpoint"))
        if through == conv.get("last_comment_id"):
            return None  # already there
        match = [c for c in upd["new_comments"] if isinstance(c, dict) and c.get("id") == through]
        if not match:
            raise UsageError(f"--through {through} is not a comment of snapshot "
                             f"{upd['snapshot_id']}")
        return {"conversation": {"last_comment_id": through,
                                 "last_comment_created_at": match[0].get("created_at")}}


SYSTEM_NOTE = ("REST has no thread resolution state: run get_pr_comments.py for which review "
               "threads are resolved")
THREADS_NOTE = ("threads holds the resolution state of the returned inline comments' threads "
                "(GraphQL); get_pr_comments.py lists the pull request's other threads")
KINDS = ("conversation", "reviews")


class PullRequestRound(Round):
    """A pull request's round: reviews with their inline comments, and the conversation."""

    label = "pull_request"
    shown_keys = ("new_comments", "new_reviews", "new_review_comments")

    def streams_for(self) -> Dict[str, Stream]:
        conversation = ConversationStream(*self._stream_args(), **self._filters())
        conversation.zero_when_empty = True  # a round's cursor starts at 0 on an empty one
        return {"reviews": ReviewStream(*self._stream_args(), **self._filters()),
                "conversation": conversation}

    def cursors_of(self, cp: Optional[Dict[str, Any]]) -> Cursors:
        if not cp:
            return None
        return {"conversation": cursor_part(cp.get("conversation")),
                "reviews": cp.get("reviews")}

    def public(self, cursors: Cursors) -> Any:
        if cursors is None:
            return None
        return {k: cursors.get(k) for k in KINDS}

    def from_public(self, value: Any) -> Cursors:
        if value is None:
            return None
        conv = value.get("conversation") if isinstance(value, dict) else None
        rev = value.get("reviews") if isinstance(value, dict) else None
        if (not isinstance(value, dict)
                or (conv is not None and not records.conversation_cursor(conv))
                or (rev is not None and not records.review_cursor(rev))):
            raise StateError(f"updates file {self.store.paths.updates} holds a checkpoint of "
                             "an unexpected shape; left as it is")
        return self.cursors_of(value)

    def checkpoint_fields(self, cursors: Dict[str, Any]) -> Dict[str, Any]:
        return {"conversation": cursor_part(cursors.get("conversation")),
                "reviews": cursors.get("reviews")}

    def describe(self, cursors: Cursors) -> str:
        if not cursors:
            return "no checkpoint"
        conv = (cursors.get("conversation") or {}).get("last_comment_id")
        rev = (cursors.get("reviews") or {}).get("last_review_id")
        return f"checkpoint (conversation {conv}, reviews {rev})"

    def public_filtered(self, filtered: Dict[str, Dict[str, int]]) -> Dict[str, Any]:
        return {k: dict(v) for k, v in filtered.items() if v}

    def public_older(self, reading: Reading) -> Any:
        return {k: reading.batches[k].older_not_returned for k in KINDS}

    def extra_fields(self, reading: Reading, previous: Cursors) -> Dict[str, Any]:
        return {"more_available_by_kind": {k: reading.batches[k].more_available
                                           for k in KINDS},
                "threads": self.threads_of(reading)}

    # -- thread state (CONTRACT section 15): read only for a round that returns inline comments
    _thread_read: Optional[Tuple[Reading, Optional[List[Dict[str, Any]]]]] = None

    def on_items(self, reading: Reading) -> None:
        comments = reading.shown.get("new_review_comments") or []
        if comments:
            from .threads import attach  # loaded (with pr.py) only by such a round

            self._thread_read = (reading, attach(self.client, self.owner, self.repo,
                                                 self.number, comments, self.warnings))

    def threads_of(self, reading: Reading) -> Optional[List[Dict[str, Any]]]:
        """The round's `threads`: [] when it returns no inline comment, null when GraphQL
        could not be read."""
        read = self._thread_read
        return read[1] if read is not None and read[0] is reading else []

    def notes(self) -> None:
        read = self._thread_read
        note = THREADS_NOTE if read is not None and read[1] is not None else SYSTEM_NOTE
        if note not in self.warnings:
            self.warnings.append(note)

    def fetch_fields(self, reading: Optional[Reading]) -> Dict[str, Any]:
        """A round read (not a read by id: those carry no thread data) returns `threads`."""
        return {"threads": [] if reading is None else self.threads_of(reading)}

    def no_cursor_message(self) -> str:
        return ("--wait with --pr needs a stored checkpoint: run check_issue_updates.py --pr N, "
                "confirm it, then wait (--after-comment-id does not go with --pr)")

    def confirm_target(self, upd: Dict[str, Any], through: Optional[int],
                       stored: Cursors) -> Cursors:
        target = upd.get("recommended_checkpoint")
        if not isinstance(target, dict):
            raise StateError(f"updates file {self.store.paths.updates} holds no "
                             "recommended checkpoint; left as it is")
        return self.from_public(target)
