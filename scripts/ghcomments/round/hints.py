"""The poll hints: a cache in its own file (OWNER-REPO-N-hints.json), keyed by the cursor each
hint was measured for, safe to lose, never able to make a comment disappear (CONTRACT
sections 5 and 14). One `HintCache` per round: loaded at the start of a read, stored by a
check only for a cursor after which nothing at all lay, installed by every confirm."""

from __future__ import annotations

from ..base.errors import StateError
from ..store.state import StateStore
from ..streams.stream import Stream
from .reading import Cursors

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional, Tuple

    Pairs = Dict[str, Tuple[Dict[str, Any], Dict[str, Any]]]  # stream -> (cursor, hint for it)
else:  # the alias names a type in annotations only
    Pairs = None

HINTS_KEPT = 4  # hints kept per stream, one per recent cursor (the checkpoint, --after-comment-id)


class HintCache:
    """The hints of one round's streams (the caller holds the round's lock to save)."""

    def __init__(self, store: StateStore, streams: Dict[str, Stream],
                 warnings: List[str]) -> None:
        self.store = store
        self.streams = streams
        self.warnings = warnings
        self.loaded: Dict[str, Optional[Dict[str, Any]]] = {}
        self.moved: Optional[Dict[str, Any]] = None  # a relocation learned (relocation.py)

    def load(self, cursors: Cursors) -> Dict[str, Optional[Dict[str, Any]]]:
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
        self.loaded = dict(found)
        return found

    def save(self, pairs: Pairs) -> None:
        """Store hint per stream for its cursor (the caller holds the lock): first in its
        list, replacing one for the same cursor; only when something changes."""
        if not pairs and self.moved is None:
            return
        stored, _problem = self.store.read_hints()
        out: Dict[str, List[Dict[str, Any]]] = {}
        changed = self.moved is not None and self.moved != self.store.moved
        if changed:
            self.store.moved = self.moved
        for kind, stream in self.streams.items():
            old = [h for h in stored.get(kind, []) if stream.valid_hint(h)]
            if kind not in (pairs or {}):
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

    def settled(self, previous: Cursors, cursors: Cursors,
                hints: Dict[str, Optional[Dict[str, Any]]]) -> Pairs:
        """The hints a check may store: for a stream whose cursor did not move (nothing at
        all lay after it, filtered or not), a hint measured anew for that cursor."""
        pairs = {}
        for kind, stream in self.streams.items():
            before, after = (previous or {}).get(kind), (cursors or {}).get(kind)
            hint = hints.get(kind)
            if (stream.same(before, after) and hint is not None and stream.valid_hint(hint)
                    and stream.hint_matches(hint, after)
                    and hint != self.loaded.get(kind)):
                pairs[kind] = (after, hint)
        return pairs

    def matching(self, cursors: Cursors, hints: Any) -> Pairs:
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
