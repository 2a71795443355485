"""The round engine: one `Round` over its kinds of news under one checkpoint (CONTRACT
sections 5, 11, 12 and 14).

A round reads each of its kinds (streams/: one module a kind, each a `Stream` that declares
its own rules) after its cursor, under one checkpoint that holds every kind's cursor; which
kinds a layout has, and where each cursor stands, is round/layouts.py's registry, and how
cursors are spelled is round/layout.py's. Nothing here names a kind: the engine calls each
kind's hooks in the layout's order. Every rule lives once: here the read -> present ->
document -> updates-file path of a check; the confirm and `--update-state` in confirm.py; the
reads of get_latest_comments.py in selectors.py; the poll hints in hints.py (their own file, a
cache keyed by the cursor they were measured for); the commit point in interrupt.py; and the
wait in wait.py, which repeats `read` from the hints a read leaves.
Who writes what: only `check` writes the updates file; only `--update-state` and the confirm
write the checkpoint, and the checkpoint only moves forward. A check writes the hints file only
for a cursor after which it found nothing at all (filtered or not); the updates file carries the
hints for its recommended checkpoint, and every confirm installs them (an already-applied one
too).
"""

from __future__ import annotations

from ..base.errors import MovedError, UsageError
from ..base.interrupt import Interrupted
from ..store import edits
from ..store.state import SCHEMA_VERSION, StateStore
from ..streams.stream import Batch, Stream
from ..text import normalize
from . import relocation
from .document import Documenting
from .filters import whoami
from .hints import HintCache
from .layout import Layout
from .reading import Cursors, Reading, RoundOptions, interrupted_doc
from .tracking import TrackedTimes

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional, Tuple


class ReadStep:
    """A round's read up to the edit history of its lists' candidates (`Round.read_begin`)."""

    def __init__(self, batches: Dict[str, Batch], steps: Dict[str, Any], news: bool,
                 reading: Optional[Reading] = None) -> None:
        self.batches, self.steps, self.news = batches, steps, news
        self.reading = reading  # already whole (a moved round reads nothing)

    @property
    def pending(self) -> List[Any]:
        return [s.pending for s in self.steps.values() if s.pending is not None]


def ask_history(client: Any, steps: List[ReadStep]) -> Tuple[Any, List[str]]:
    """The edit history of every candidate of `steps` (one command's rounds): one GraphQL
    query per 100 (section 19, turn 6), none without a candidate. (node_id -> node, None when
    GraphQL could not be read; the warning each list with a candidate then reports)."""
    pending = [p for step in steps for p in step.pending]
    if not any(p.candidates for p in pending):
        return {}, []
    from ..streams import since

    return since.ask_history(client, pending)


class Round(Documenting, Layout, TrackedTimes):
    """One round over the kinds of news of an issue or a pull request: the engine. Subclasses
    give the layout only (layouts.py: its kinds, registered once; layout.py: how their
    cursors are spelled); each kind's own rules are its stream's hooks (streams/stream.py);
    the times a snapshot and a checkpoint carry are tracking.py's; what a reading shows and
    the document are document.py's."""

    label = "issue"

    def __init__(self, client: Any, owner: str, repo: str, number: int, store: StateStore,
                 options: RoundOptions, max_pages: int) -> None:
        self.client = client
        self.owner, self.repo, self.number = owner, repo, number
        self.repository = f"{owner}/{repo}"
        self.store = store
        self.options = options
        self.max_pages = max_pages
        self.warnings: List[str] = []
        self.streams: Dict[str, Stream] = self.streams_for()
        # the list --after-comment-id and a REF's #issuecomment-ID name (the conversation)
        self.primary: Stream = next(s for s in self.streams.values() if s.primary)
        store.spelling = self  # the store checks a stored checkpoint by this layout's kinds
        self.shown_keys = self.item_lists()
        self.edit_keys = self.edited_lists()  # with --include-edits (section 19)
        self.hints = HintCache(store, self.streams, self.warnings)
        self.had_checkpoint = False  # what start() found
        self.tracked_since: Optional[str] = None  # section 19 turn 5 (start() sets it)
        self.read_at: Optional[str] = None        # the `Date` of this read's first answer
        self.tracked_since_fallback = False  # tracked_since from saved_at (an older checkpoint)
        self.moved_to: Optional[str] = None  # section 21: where a redirect said it went
        self.relocation: Optional[Dict[str, Any]] = None  # turn 6: where it is read now
        self.stored_recorded: Dict[str, Any] = {}  # the kinds' top-level fields start() found
        self._subject: Any = None
        for stream in self.streams.values():
            if stream.flag is not None:  # a flagged kind reads only with its flag
                stream.active = bool(getattr(options, stream.flag, False))
        for stream in self.streams.values():  # each kind wired knowing which are active
            stream.wire(self)

    @property
    def subject(self) -> Any:
        """The issue or pull request itself (streams/subject.py), read at most once per
        read and shared by the kinds that need it."""
        if self._subject is None:
            from ..streams.subject import Subject

            self._subject = Subject(self.client, self.owner, self.repo, self.number,
                                    pull=self.label == "pull_request")
        return self._subject

    def stream_args(self) -> Tuple[Any, ...]:
        return (self.client, self.owner, self.repo, self.number, self.max_pages,
                self.warnings)

    def filters(self) -> Dict[str, Any]:
        """The author filters as tests on raw items: `reason` (why one is left out) and
        `keep` (for --limit, which counts only what they keep). Decided on what GitHub sent."""
        filt = self.options.filter
        if not filt.active:
            return {}

        def reason(raw: Dict[str, Any]) -> Optional[str]:
            return filt.reason(normalize.author_of(raw))

        return {"reason": reason, "keep": lambda raw: reason(raw) is None}

    # -- shared pieces -------------------------------------------------------------------------
    @property
    def pages(self) -> int:
        return sum(s.pages for s in self.streams.values())

    def resolve_me(self) -> None:
        """`--ignore-author @me`: the token's login (cached; one request the first time)."""
        if self.options.filter.wants_me:
            login = whoami(self.client, self.store.paths.folder, self.store.paths.root,
                           self.client.api_url, self.warnings.append)
            self.options.filter.resolve_me(login)

    def same(self, a: Cursors, b: Cursors) -> bool:
        """Two positions are the same on every stream."""
        a, b = a or {}, b or {}
        return all(s.same(a.get(k), b.get(k)) for k, s in self.streams.items())


    # -- reading -------------------------------------------------------------------------------
    def start(self, after_comment_id: Optional[int] = None
              ) -> Tuple[Cursors, Dict[str, Optional[Dict[str, Any]]]]:
        """(cursors, their stored hints): the checkpoint's, or --after-comment-id's."""
        cp = self.store.read_checkpoint()
        self.had_checkpoint = cp is not None
        if cp and ("poll_hint" in cp or "poll_hints" in cp):
            self.warnings.append(f"poll hints inside {self.store.paths.checkpoint} (an older "
                                 "version's) are ignored; the next checkpoint write drops them")
        cursors = self.cursors_of(cp)
        self.stored_recorded = self.recorded_of(cp)
        self.tracked_since = self.tracked_since_of(cp, cursors)
        if after_comment_id is not None:
            conv = (cursors or {}).get(self.primary.kind)
            same = conv is not None and conv["last_comment_id"] == after_comment_id
            cursors = dict(cursors or {}, **{self.primary.kind: {
                "last_comment_id": after_comment_id,
                "last_comment_created_at": conv.get("last_comment_created_at") if same
                else None}})
        hints = self.hints.load(cursors)
        relocation.install(self)  # a moved repository or issue: read at its new place
        return cursors, hints

    def empty_reading(self, previous: Cursors) -> Reading:
        prev = previous or {}
        return Reading({k: Batch(k, cursor=prev.get(k)) for k in self.streams},
                       {k: [] for k in self.shown_keys})

    def read(self, previous: Cursors, hints: Any, limit: int, sharpen: bool = True,
             hook: bool = True) -> Reading:
        """Every stream read after its cursor; each item normalised once, for output:
        `read_begin`, one edit-history query per 100 candidates of all its lists
        (`ask_history`), `read_finish`."""
        step = self.read_begin(previous, hints, limit, sharpen)
        return self.read_finish(step, *ask_history(self.client, [step]), hook=hook)

    def read_begin(self, previous: Cursors, hints: Any, limit: int, sharpen: bool = True
                   ) -> ReadStep:
        """Every stream read after its cursor, each list's edits up to their candidates' edit
        history (section 19, turn 6: a command asks it once for all its rounds' lists)."""
        hints = hints or {}
        batches: Dict[str, Batch] = {}
        self.client.first_date = None  # read_at: this read's first answer
        if self._subject is not None:  # read afresh in each read (a wait's next poll)
            self._subject.forget()
        news = False
        prev = previous or {}
        gone = next((w for k, s in self.streams.items() for w in [s.moved_to(self, prev.get(k))]
                     if w), None)
        if gone:  # a moved round sends nothing on its polls (turn 6)
            self.moved_to = gone
            reading = self.present({k: Batch(k, cursor=prev.get(k), hint=hints.get(k),
                                             more_available=False) for k in self.streams})
            reading.moved = False
            return ReadStep(batches, {}, False, reading)
        steps: Dict[str, Any] = {}
        for kind, stream in self.streams.items():
            cursor = previous.get(kind) if previous is not None else None
            stream.before_read(self, previous, batches)
            try:
                batch = stream.read(cursor, hints.get(kind), limit, sharpen=sharpen)
            except MovedError as exc:  # only a flagged round follows no redirect
                news = self.moved(previous, batches, exc)
                break
            if self.read_at is None or self.client.first_date is not None:
                self.note_read_at()
            if stream.has_edits:
                stream.tracked_since = self.tracked_since if previous is not None else None
                stream.read_at = self.read_at
                o = self.options
                steps[kind] = stream.edits_begin(
                    cursor, batch, hints.get(kind), limit, o.include_edits, o.max_body_chars,
                    o.reveal_hidden)
            batches[kind] = batch
        relocation.after_read(self)
        return ReadStep(batches, steps, news)

    def read_finish(self, step: ReadStep, nodes: Any, warnings: List[str],
                    hook: bool = True) -> Reading:
        """`read_begin`'s reading, its lists' edits decided with `ask_history`'s answer."""
        if step.reading is not None:
            return step.reading
        for kind, edit_step in step.steps.items():
            batch = step.batches[kind]
            batch.edited, batch.edits_left = edit_step.finish(nodes, warnings)
            if edit_step.candidates:
                warnings = []  # one query failed: said once in the round's warnings
        reading = self.present(step.batches)
        reading.moved = step.news
        if reading.returned and hook:  # the inbox runs it after --max-total's cut
            self.on_items(reading)
        return reading

    def moved(self, previous: Cursors, batches: Dict[str, Batch], exc: MovedError) -> bool:
        """A redirect not followed (a transferred conversation): every stream not yet read
        keeps its cursor, and the kind that records it says whether it is news."""
        prev = previous or {}
        for kind in self.streams:
            if kind not in batches:
                batches[kind] = Batch(kind, cursor=prev.get(kind), hint=None,
                                      more_available=False)
        for stream in self.streams.values():
            news = stream.on_moved(self, previous, batches, exc.location)
            if news is not None:
                return news
        raise exc

    def recorded_now(self) -> Dict[str, Any]:
        """What this command's reads showed of the kinds' top-level fields."""
        out: Dict[str, Any] = {}
        for stream in self.streams.values():
            out.update(stream.recorded_now(self))
        return out

    def snapshot_recorded(self, cursors: Cursors) -> Dict[str, Any]:
        """The kinds' top-level fields a snapshot at `cursors` carries to its confirm."""
        return self.recorded_fields(self.stored_recorded, self.recorded_now(), cursors)

    def on_items(self, reading: Reading) -> None:
        """Once per read that returns items (never on a 304 or an idle poll): each kind's
        hook (a pull request's thread state, the threads a push outdated)."""
        for stream in self.streams.values():
            stream.on_items(self, reading)

    def position(self, previous: Cursors, reading: Reading
                 ) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """(cursors, poll hints) after `reading`: where the next read of a wait starts, and
        what the snapshot keeps for the confirm."""
        prev = previous or {}
        cursors = {k: b.cursor if b.cursor is not None else prev.get(k)
                   for k, b in reading.batches.items()}
        return cursors, dict(reading.hints)

    # -- the check (check_issue_updates.py), with or without --wait ---------------------------
    def check(self, limit: int, after_comment_id: Optional[int] = None,
              wait: Optional[Any] = None) -> Dict[str, Any]:
        """`check_issue_updates.py`'s round, in order: the checkpoint and its hints (`start`),
        every stream read after its cursor (`read`: the requests), the items shown
        (`present`), the document (`document`), then under the round's lock the updates file
        and the settled hints (`save_check`). The checkpoint is never written here. With
        `wait`, the read is repeated from the hints until something would be returned."""
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
            private, settled = self.updates_of(previous, reading, doc, after_comment_id)
            with self.store.locked():
                self.save_check(private, settled)
        except Interrupted as stop:
            if doc is None:
                doc = self.document(previous, self.empty_reading(previous), {})
            return interrupted_doc(doc, stop, self.cleared())
        return edits.summarize(doc)  # stdout shows each watermark as {through, seen_count}

    def updates_of(self, previous: Cursors, reading: Reading, doc: Dict[str, Any],
                   after_comment_id: Optional[int] = None) -> Tuple[Dict[str, Any], Any]:
        """(the updates file's document, the settled hints a check stores) for `doc`."""
        cursors, final_hints = self.position(previous, reading)
        private = dict(doc, schema_version=SCHEMA_VERSION,
                       poll_hint={k: h for k, h in final_hints.items() if h is not None})
        private.update(self.times(cursors))  # section 19 turn 5: never compared
        private.update(self.snapshot_recorded(cursors))  # the kinds' top-level fields
        if after_comment_id is not None:
            private["after_comment_id"] = after_comment_id  # not the checkpoint's cursor
            private["had_checkpoint"] = self.had_checkpoint  # none: the confirm writes the first
        return private, self.hints.settled(previous, cursors, final_hints)

    def save_check(self, private: Dict[str, Any], settled: Any) -> None:
        """A check's writes (the caller holds the round's lock): the updates file (its rename
        is the commit point), then the hints measured for a cursor with nothing after it."""
        self.store.write_updates(private)
        self.hints.save(settled)
