"""A round's layout (engine.py): its kinds of news, and how their cursors are spelled in
checkpoint files and documents — the same rules for every kind, from where layouts.py says
each part stands. Nothing here names a kind: each is a `streams/stream.Stream` subclass that
declares itself (its part name, flag, cursor checks, "already applied" rule, fields).

A part stands at a path in the checkpoint (and in the documents' previous/recommended/next
checkpoint): `()` is the top level itself (an issue's conversation), `("reviews",)` a key of
its own, `("conversation", "events")` a key inside another part's object (which must be
placed before it). A kind with a flag is left out while it has no cursor; one without is
always written (null when it has none).
"""

from __future__ import annotations

import importlib

from ..base.errors import StateError
from ..store import edits

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional, Tuple

    from ..streams.stream import Stream
    from .reading import Cursors, Reading


class Part:
    """One kind in a layout: its stream class (imported when a round of the layout is
    built), where its cursor stands, its name in `more_available_by_kind`, and attributes
    set on its stream."""

    __slots__ = ("module", "name", "at", "more_key", "settings")

    def __init__(self, module: str, name: str, at: Tuple[str, ...],
                 more_key: Optional[str] = None, **settings: Any) -> None:
        self.module, self.name, self.at = module, name, at
        self.more_key = more_key
        self.settings = settings

    def load(self) -> Any:
        """The kind's `Stream` class (streams/MODULE.py)."""
        module = importlib.import_module(f"..streams.{self.module}", __package__)
        return getattr(module, self.name)


def _get(doc: Any, at: Tuple[str, ...]) -> Any:
    for step in at:
        doc = doc.get(step) if isinstance(doc, dict) else None
    return doc


def _put(doc: Dict[str, Any], at: Tuple[str, ...], value: Any) -> None:
    """`value` placed at `at` in `doc` (a copy of an object: the cursors stay as they are);
    at the top level its keys are merged in; under a part that is null, dropped."""
    value = dict(value) if isinstance(value, dict) else value
    if not at:
        doc.update(value or {})
        return
    parent = _get(doc, at[:-1])
    if isinstance(parent, dict):
        parent[at[-1]] = value


def _name(position: Any) -> str:
    return f"checkpoint {position}" if position is not None else "no checkpoint"


class Spelling:
    """How a layout's cursors are spelled in files and documents, from its parts' kinds
    alone (no client, no files): what the state store checks a stored checkpoint with, and
    what the followed listing shows (store/following.py); a round (`Layout`) is one too."""

    placement: List[Tuple[Part, Any]]  # each part with its kind (a class, or a round's stream)
    primary: Any

    def __init__(self, parts: Tuple[Part, ...]) -> None:
        self.placement = [(part, part.load()) for part in parts]
        self.primary = next(kind for _part, kind in self.placement if kind.primary)

    def _placed(self) -> List[Tuple[Part, Any]]:
        return self.placement

    @property
    def flat(self) -> bool:
        """The primary kind stands at the top level (an issue's round, section 5)."""
        return any(not part.at and kind.primary for part, kind in self._placed())

    # -- cursors in files and documents ---------------------------------------------------------
    def cursors_of(self, cp: Optional[Dict[str, Any]]) -> Cursors:
        """The stream cursors stored in a checkpoint file (None: no checkpoint)."""
        if not cp:
            return None
        return {stream.kind: stream.stored(_get(cp, part.at)) for part, stream in self._placed()}

    def _spelled(self, cursors: Cursors, files: bool) -> Any:
        if cursors is None or (self.flat and cursors.get(self.primary.kind) is None):
            return None
        out: Dict[str, Any] = {}
        for part, stream in self._placed():
            value = cursors.get(stream.kind)
            if value is None and stream.flag is not None:
                continue  # a flagged kind without a cursor is not spelled
            _put(out, part.at, stream.stored(value) if files else value)
        return out

    def public(self, cursors: Cursors) -> Any:
        """How cursors are spelled in documents (previous/recommended/next checkpoint)."""
        return self._spelled(cursors, files=False)

    def checkpoint_fields(self, cursors: Dict[str, Any]) -> Dict[str, Any]:
        """The cursors as a checkpoint file holds them."""
        return self._spelled(cursors, files=True) or {}

    def valid_stored(self, doc: Dict[str, Any]) -> bool:
        """Every part of a stored checkpoint (or a document's) has its kind's shape."""
        for part, stream in self._placed():
            value = _get(doc, part.at)
            if (not part.at or value is not None) and not stream.valid_cursor(value):
                return False
        return True

    def listed(self, doc: Dict[str, Any]) -> Any:
        """A stored checkpoint as the followed listing shows it: the kinds without a flag
        (each edit watermark as stdout shows it, `{through, seen_count}`)."""
        cursors = {k: v for k, v in (self.cursors_of(doc) or {}).items()
                   if next(kind for _p, kind in self._placed() if kind.kind == k).flag is None}
        return edits.summarize(self._spelled(cursors, files=True))

    # -- the kinds' top-level fields (`Stream.recorded`): copied by writes, never compared ------
    def recorded_of(self, doc: Any) -> Dict[str, Any]:
        """The kinds' top-level fields as `doc` holds them (a checkpoint, an updates file, an
        inbox round's `recorded`), unchecked: each kind checks its own when it writes."""
        if not isinstance(doc, dict):
            return {}
        return {name: doc[name] for _part, kind in self._placed() for name in kind.recorded
                if name in doc}

    def recorded_fields(self, stored: Any, fresh: Any, cursors: Any) -> Dict[str, Any]:
        """The top-level fields a write at `cursors` carries (each kind's rule)."""
        out: Dict[str, Any] = {}
        for _part, kind in self._placed():
            if kind.recorded:
                out.update(kind.recorded_fields(self.recorded_of(stored),
                                                self.recorded_of(fresh), cursors))
        return out

    def from_public(self, value: Any) -> Cursors:
        """A document's cursors (the updates file's), checked: exit 7 naming the file."""
        if value is None:
            return None
        where = f"updates file {self.store.paths.updates}"
        for part, stream in self._placed():
            part_value = _get(value, part.at) if isinstance(value, dict) else None
            if not isinstance(value, dict) or (
                    (not part.at or part_value is not None)
                    and not stream.valid_cursor(part_value)):
                which = f" ({stream.kind})" if stream.flag is not None else ""
                raise StateError(f"{where} holds a checkpoint of an unexpected shape{which}; "
                                 "left as it is")
        return self.cursors_of(value)



class Layout(Spelling):
    """The layout's part of a round: its `parts` (layouts.py), their streams, and the rules
    that need the round (its store, its reads)."""

    parts: Tuple[Part, ...] = ()
    streams: Dict[str, Stream]
    primary: Stream
    store: Any
    shown_keys: Tuple[str, ...]
    edit_keys: Tuple[str, ...]

    def stream_args(self) -> Tuple[Any, ...]:
        raise NotImplementedError

    def filters(self) -> Dict[str, Any]:
        raise NotImplementedError

    def streams_for(self) -> Dict[str, Stream]:
        """Each kind's stream, in the layout's order (the order of reading)."""
        out: Dict[str, Stream] = {}
        self.placement = []
        for part in self.parts:
            cls = part.load()
            stream = cls(*self.stream_args(), **(self.filters() if cls.takes_filters else {}))
            for attr, value in part.settings.items():
                setattr(stream, attr, value)
            out[cls.kind] = stream
            self.placement.append((part, stream))
        return out

    def describe(self, cursors: Cursors) -> str:
        """The position as messages name it: the kinds without a flag, by name."""
        named = sorted(k for k, s in self.streams.items() if s.flag is None)
        if len(named) == 1:
            return _name(self.streams[named[0]].position((cursors or {}).get(named[0])))
        if not cursors:
            return "no checkpoint"
        return "checkpoint (" + ", ".join(
            f"{k} {self.streams[k].position(cursors.get(k))}" for k in named) + ")"

    def writable(self, target: Dict[str, Any]) -> bool:
        """A position --update-state can write (a top-level part has a cursor to store)."""
        return not self.flat or target.get(self.primary.kind) is not None

    # -- counts in documents ------------------------------------------------------------------
    def public_filtered(self, filtered: Dict[str, Dict[str, int]]) -> Dict[str, Any]:
        """`filtered_out`: by kind (a flat layout's primary kind at the top level), and the
        updated_at bumps that were not edits as one count (section 19, turn 5)."""
        top = self.primary.kind if self.flat else None
        out: Dict[str, Any] = dict(filtered.get(top) or {}) if top else {}
        for key, counts in filtered.items():
            if counts and key not in (top, "edited_no_change"):
                out[key] = dict(counts)
        if filtered.get("edited_no_change"):
            out["edited_no_change"] = filtered["edited_no_change"]["count"]
        return out

    def public_older(self, reading: Reading) -> Any:
        """`older_not_returned` of a first look."""
        if self.flat:
            return reading.batches[self.primary.kind].older_not_returned
        return {k: reading.batches[k].older_not_returned for k, s in self.streams.items()
                if s.flag is None}

    def more_by_kind(self, reading: Reading) -> Dict[str, Any]:
        """`more_available_by_kind`: every kind read and counted (a flat layout's only when a
        flagged kind is on)."""
        on = [(part, s) for part, s in self._placed() if s.active and s.counted]
        if self.flat and all(s.flag is None for _, s in on):
            return {}
        return {"more_available_by_kind": {part.more_key or s.kind:
                                           reading.batches[s.kind].more_available
                                           for part, s in on}}

    def item_lists(self) -> Tuple[str, ...]:
        """The item lists of the kinds without a flag, as documents name them."""
        keys: Tuple[str, ...] = ()
        for s in self.streams.values():
            if s.flag is None:
                keys += s.shown
        return keys

    def edited_lists(self) -> Tuple[str, ...]:
        """The edited-item lists (`--include-edits`, section 19)."""
        return tuple(s.edits_key for s in self.streams.values() if s.has_edits)

    def cleared(self) -> Dict[str, Any]:
        """Every kind's fields as an interrupted command has them (reading.interrupted_doc)."""
        out: Dict[str, Any] = {}
        for s in self.streams.values():
            out.update(s.cleared)
        return out

    # -- what only some layouts do ------------------------------------------------------------
    def fetch_fields(self, reading: Optional[Reading]) -> Dict[str, Any]:
        """What a fetch of the round (checkpoint or tail mode) adds after the items (None:
        an interrupted one)."""
        out: Dict[str, Any] = {}
        for s in self.streams.values():
            out.update(s.fetch_fields(self, reading))
        return out

    def confirm_target(self, upd: Dict[str, Any], through: Optional[int],
                       stored: Cursors) -> Cursors:
        raise NotImplementedError

    def no_cursor_message(self) -> str:
        return ("--wait needs a cursor: a stored checkpoint (confirm a check first) or "
                "--after-comment-id ID (e.g. your own comment, right after posting it)")

    def notes(self, by_id: Optional[Dict[str, List[Dict[str, Any]]]] = None) -> None:
        """The round's notes about what its output cannot hold (its kinds'), after a round
        read, or after a read by id (`by_id`: what that read returned)."""
        for s in self.streams.values():
            s.notes(self, by_id)

    def by_id_previous(self) -> Cursors:
        """A read by id's `previous_checkpoint`: the stored one, read from the state folder
        (no request), never moved (CONTRACT sections 6, 12)."""
        return self.cursors_of(self.store.read_checkpoint())

    def next_public(self, previous: Cursors, reading: Reading) -> Any:
        return self.public(reading.cursors)
