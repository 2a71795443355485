"""The `Stream` base every kind of news extends, and what a read gives (`Batch`).

A kind of news is one module: a `Stream` subclass that declares everything a round, its
confirm and the inbox need to know about it (CONTRACT sections 14, 18, 19, 21): its cursor
part's name (`kind`), the flag that turns it on, its cursor's shape and order ("already
applied", forward only), its hint, what a read shows and what the document gains, what wakes a
wait (whatever it shows), and how a first ask is answered. `Stream.HOOKS` names what every kind
must define: a kind that lacks one fails when its module is imported, naming the kind.
round/layouts.py registers the kinds, one line each, and says where each cursor is spelled in
files and documents; the engine, the confirm and the inbox iterate over a round's kinds and
never name one.

A stream turns (cursor, poll hint, limit) into a `Batch`: the raw items after the cursor, the
cursor that moves past them, a poll hint valid for that cursor, and what was left out. The wait
(round/wait.py) reads the same streams again and again from the hints they leave.

The kinds: conversation.py (an issue's or a PR's comments: `scan.Scanner` over the
issue-comment list, ascending ids), review_stream.py (a PR's reviews with their inline
comments; review_order.py: which review is new under a cursor; review_listing.py: the review
list and its probes), events.py (what happened, `--include-events`), head.py (a PR's pushes,
`--include-events`); store/edits.py owns the edit watermark each comment list's cursor carries.
"""

from __future__ import annotations

from ..base.errors import NotFoundError, ServerError
from ..base.plain import factory, plain, replace
from ..store import edits
from ..text import normalize
from .scan import (
    Keep,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional, Tuple

ZERO_CONVERSATION = {"last_comment_id": 0, "last_comment_created_at": None}

# How a stored cursor part stands to a confirm's target (`Stream.applied`): the same, past it,
# or neither (CONTRACT sections 18, 19 and 21: "already applied", per part).
SAME, PAST = "same", "past"


def watermark_order(stored: Any, target: Any) -> Optional[str]:
    """An edit watermark's place against the target's: SAME, PAST, or None."""
    if edits.same(stored, target):
        return SAME
    return PAST if edits.at_or_past(stored, target) else None


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
    if edits.of(cp) is not None:
        out[edits.PART] = edits.of(cp)
    return out


def with_edits(cursor: Optional[Dict[str, Any]], record: Optional[Dict[str, Any]]
               ) -> Optional[Dict[str, Any]]:
    """`cursor` carrying the edit watermark `record` (None: without one)."""
    if cursor is None:
        return None
    out = {k: v for k, v in cursor.items() if k != edits.PART}
    if record is not None:
        out[edits.PART] = record
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


class EditsStep:
    """One list's edits of one read up to its candidates' edit history (`Stream.edits_begin`):
    `pending` (since.PendingEdits; None: nothing to ask), then `finish` with the history the
    command asked for every list at once (round/engine.ask_history)."""

    def __init__(self, pending: Any, done: Callable[[Any], Any]) -> None:
        self.pending, self._done = pending, done

    @property
    def candidates(self) -> List[Any]:
        return self.pending.candidates if self.pending is not None else []

    def finish(self, nodes: Any, warnings: List[str]
               ) -> Tuple[Optional[List[Dict[str, Any]]], Dict[str, int]]:
        """(the edited items to show, what the filters left out); the batch's cursor and
        hint carry the watermark."""
        return self._done(self.pending.finish(nodes, warnings) if self.pending is not None
                          else None)


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
    pages it read. A stream also knows its cursor (how two compare, which is further, whether a
    stored one already holds a target) and its poll hint (its shape, and which cursor it was
    measured for): the round (round/engine.py) keeps every rule about checkpoints, hints and
    confirms, for every kind alike, through these hooks."""

    # -- the kind: what it declares (a subclass that sets `kind` defines every HOOK) -------------
    kind = ""            # the cursor part's name: in checkpoints, hints files and documents
    flag: Optional[str] = None  # the round option (round/reading.RoundOptions) that turns the
    # kind on; None: always read. A flagged kind sends nothing without its flag, and every
    # write without it carries its stored cursor as it is (section 21)
    active = True        # set from the flag when the round is built
    has_edits = True     # a comment list: --include-edits reports its edits (section 19)
    takes_filters = True  # the author filters as `keep`/`reason` (a flagged kind wires its own)
    primary = False      # the list --after-comment-id, --since-comment-id and a REF's
    # #issuecomment-ID name (the conversation)
    counted = True       # listed in more_available_by_kind (section 21)
    asks_since = False   # with no cursor yet, its first ask is answered from the round's
    # tracked_since, which every checkpoint keeps until the cursor is set (section 21)
    by_id: Tuple[str, ...] = ()  # the reads by id it serves (get_latest_comments.py)
    shown: Tuple[str, ...] = ()  # the document lists of its items (`new_...`), in order
    cleared: Dict[str, Any] = {}  # its other document fields, as an interrupted command has them
    recorded: Tuple[str, ...] = ()  # top-level checkpoint fields the kind records beside its
    # cursor, never compared: what a write keeps of them is `recorded_fields`'s answer
    reads_subject = False  # when active, it reads the round's subject (`rnd.subject`: the
    # issue or pull request itself) on every poll, so another kind may probe through that one
    # answer instead of a request of its own (section 23: CI's pull request is the head probe)

    HOOKS = ("same", "key", "valid_cursor", "applied", "valid_hint", "hint_matches", "read",
             "present", "cursor_after")

    def __init_subclass__(cls, **kw: Any) -> None:
        """A kind that lacks a hook fails here, when its module is imported, with its name."""
        super().__init_subclass__(**kw)
        if not cls.kind:
            return
        missing = [h for h in Stream.HOOKS if getattr(cls, h) is getattr(Stream, h)]
        if missing:
            raise TypeError(f"the {cls.kind!r} kind ({cls.__module__}.{cls.__name__}) lacks "
                            f"{', '.join(missing)}: every kind of news defines "
                            f"{', '.join(Stream.HOOKS)} (streams/stream.py)")

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
    def valid_cursor(cursor: Any) -> bool:
        """A stored cursor of this kind has the right shape (store/records.py)."""
        raise NotImplementedError

    @staticmethod
    def applied(stored: Any, target: Any) -> Optional[str]:
        """"Already applied", this part's rule: the stored cursor is the SAME as the target,
        PAST it, or neither (None)."""
        raise NotImplementedError

    @staticmethod
    def stored(cursor: Any) -> Any:
        """The cursor as a checkpoint file holds it (what a read adds, dropped)."""
        return cursor

    @staticmethod
    def position(cursor: Any) -> Any:
        """Where the cursor stands, as messages name it (`describe`)."""
        return None

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
        record = edits.of(batch.cursor)
        if out is batch or record is None:
            return out
        kept_ids = {r["id"] for r in self.returned(out)} | {e["id"] for e in out.edited or []}
        dropped = [r["id"] for r in self.returned(batch) if r["id"] not in kept_ids]
        dropped += [e["id"] for e in edited if e["id"] not in kept_ids]
        out.cursor = with_edits(out.cursor, edits.after_cut(
            edits.of(previous), record, dropped, len(out.edited or []) < len(edited)))
        return out

    def cursor_after(self, items: List[Any], previous: Optional[Dict[str, Any]]
                     ) -> Optional[Dict[str, Any]]:
        """The cursor once `items` (the oldest after `previous`) are handled."""
        raise NotImplementedError

    # -- top-level fields (`recorded`): written beside the cursors, never compared ------------
    @classmethod
    def recorded_fields(cls, stored: Dict[str, Any], fresh: Dict[str, Any],
                        cursors: Any) -> Dict[str, Any]:
        """The kind's top-level fields a write at `cursors` carries, from the stored
        checkpoint's (`stored`) and what the read written from showed (`fresh`); each of
        the right shape (what is not is dropped)."""
        return {}

    def recorded_now(self, rnd: Any) -> Dict[str, Any]:
        """What this command's reads showed of the kind's top-level fields."""
        return {}

    # -- the round's hooks (round/engine.py calls each for every kind; `rnd` is the round) ----
    def wire(self, rnd: Any) -> None:
        """Once, when the round is built: what the kind needs from the round's options."""

    def before_read(self, rnd: Any, previous: Any, batches: Dict[str, Batch]) -> None:
        """Before this stream's read in each poll (`batches`: the kinds read before it)."""

    def on_moved(self, rnd: Any, previous: Any, batches: Dict[str, Batch],
                 location: str) -> Optional[bool]:
        """A read answered with a redirect that was not followed: None when the kind does not
        record it, else whether the news is new."""
        return None

    def moved_to(self, rnd: Any, cursor: Any) -> Optional[str]:
        """Where the stored cursor says the round went (a redirect recorded before): then
        nothing is read on its polls. None: read as usual."""
        return None

    def on_items(self, rnd: Any, reading: Any) -> None:
        """Once per read that returns items (never on an idle poll)."""

    def notes(self, rnd: Any, by_id: Optional[Dict[str, List[Dict[str, Any]]]]) -> None:
        """Notes on what the output cannot hold, after a round read or (`by_id`: what it
        returned) a read by id."""

    def fields(self, rnd: Any, reading: Any) -> Dict[str, Any]:
        """What a round's document gains from this kind beside its `shown` lists."""
        return {}

    def fetch_fields(self, rnd: Any, reading: Any) -> Dict[str, Any]:
        """What a read of get_latest_comments.py (checkpoint or tail) gains (`reading`
        None: an interrupted one)."""
        return {}

    def read_one(self, selector: str, value: int, max_body_chars: Optional[int],
                 reveal_hidden: bool) -> Dict[str, List[Dict[str, Any]]]:
        """A read by id (`by_id`): its shown lists."""
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

    def edits_begin(self, previous: Optional[Dict[str, Any]], batch: Batch,
                    hint: Optional[Dict[str, Any]], limit: int, flagged: bool,
                    max_body_chars: Optional[int], reveal_hidden: bool) -> EditsStep:
        """The list's edit watermark after the id read of `batch`, up to the edit history of
        its candidates (section 19, turn 6: the round, or the inbox, asks every list's in one
        query per 100, then calls each step's `finish`). `finish` puts the watermark into
        the batch's cursor and hint and gives (the edited items to show, what the filters
        left out). With `flagged` (--include-edits): the `since` read and its decision.
        Without: the stored watermark kept, the items returned recorded as given (None:
        nothing to show)."""
        stored = edits.of(previous)
        old_hint = edits.of(hint)
        base = batch.cursor if batch.cursor is not None else previous
        if base is None:  # a first look at an empty list: no cursor to carry a watermark
            return EditsStep(None, lambda _er: (([] if flagged else None), {}))
        first = stored is None or stored.get("through") is None
        shown: Optional[List[Dict[str, Any]]] = None
        if flagged and first and batch.more_available is not False:
            # W is set (and a first ask answered) by the check that reaches the end of the
            # list, where the newest comment bounds the read (a batch cut short does not);
            # until then the returned items are recorded as given
            flagged, shown = False, []
        if not flagged:
            record = edits.carry(stored, self.returned(batch))

            def carried(_er: Any) -> Tuple[Optional[List[Dict[str, Any]]], Dict[str, int]]:
                self._edits_into(batch, base, record, old_hint)
                return shown, {}

            return EditsStep(None, carried)
        from . import since  # only a flagged check reads `since` windows

        pending = since.begin_edits(
            self.client, self.edits_list(), f"{self.what_edits} of {self.label}",
            stored if previous is not None else None,
            self.establish_from(previous, batch), self.handled(previous, batch),
            self.returned(batch), limit, self.reason, self.max_pages, old_hint,
            self.tracked_since, self.read_at)

        def finish(er: Any) -> Tuple[Optional[List[Dict[str, Any]]], Dict[str, int]]:
            self.pages += er.pages
            self.warnings.extend(er.warnings)
            shown = [with_history(self.present_edit(r, max_body_chars, reveal_hidden),
                                  er.history.get(r["id"]), max_body_chars, reveal_hidden)
                     for r in er.edited]
            if er.more_available or er.truncated:  # edits left for a later check
                batch.more_available = True
            batch.truncated = batch.truncated or er.truncated
            self._edits_into(batch, base, er.record, er.hint)
            return shown, dict(er.left_out)

        return EditsStep(pending, finish)

    @staticmethod
    def _edits_into(batch: Batch, base: Dict[str, Any], record: Optional[Dict[str, Any]],
                    new_hint: Optional[Dict[str, Any]]) -> None:
        """The batch's cursor carrying the watermark `record`, its hint `new_hint`."""
        batch.cursor = with_edits(base, record)
        if isinstance(batch.hint, dict):
            batch.hint = {k: v for k, v in batch.hint.items() if k != edits.PART}
            if new_hint is not None:
                batch.hint[edits.PART] = new_hint
            if "cursor" in batch.hint:  # a hint naming its cursor names the final one
                batch.hint["cursor"] = batch.cursor

    def _count(self, counts: Dict[str, int], why: str, n: int = 1) -> None:
        counts[why] = counts.get(why, 0) + n
