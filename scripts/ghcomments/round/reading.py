"""What one read of a round gives: the options that shape items, the `Reading` (each stream's
batch, what is shown, what the filters left out), and the document of an interrupted command.
The read itself and its document are the engine's (engine.py)."""

from __future__ import annotations

from ..base.interrupt import Interrupted
from ..base.plain import factory, plain
from ..store import edits
from ..streams.stream import Batch
from .filters import AuthorFilter

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional

    Cursors = Optional[Dict[str, Optional[Dict[str, Any]]]]  # None: no checkpoint at all
else:  # the alias names a type in annotations only
    Cursors = None

DEFAULT_LIMIT = 20
DEFAULT_MAX_PAGES = 10


class RoundOptions:
    """What shapes the items shown: body cut, escapes, whose comments count, system reviews."""

    def __init__(self, max_body_chars: Optional[int] = None, reveal_hidden: bool = False,
                 trusted_only: bool = False, humans_only: bool = False,
                 ignore: Optional[List[str]] = None, include_system: bool = False,
                 include_edits: bool = False, **flags: bool) -> None:
        self.max_body_chars = max_body_chars
        self.include_edits = include_edits  # section 19: also each list's edits
        # each kind's flag (`Stream.flag`: include_events, section 21): a kind is read only
        # with its flag; a flag no kind has is not an option
        self.include_events = False
        for name, value in flags.items():
            if not name.startswith("include_"):
                raise TypeError(f"RoundOptions: unknown option {name}")
            setattr(self, name, bool(value))
        self.reveal_hidden = reveal_hidden
        self.filter = AuthorFilter(trusted_only, humans_only, ignore)
        self.include_system = include_system


@plain
class Reading:
    """One read of a round: each stream's batch, what is shown, what the filters left out
    (counts by kind: conversation, reviews, review_comments)."""

    batches: Dict[str, Batch]
    shown: Dict[str, List[Dict[str, Any]]]
    filtered: Dict[str, Dict[str, int]] = factory(dict)
    moved: bool = False  # section 21: a newly set `moved_to` (a transferred issue's 301)

    @property
    def returned(self) -> bool:
        return any(self.shown.values()) or self.moved

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


def _clear(doc: Dict[str, Any], cleared: Dict[str, Any]) -> None:
    """An interrupted command returns nothing to process: it confirms nothing. Every item
    list (a list beside its `_count`) is emptied, and the kinds' other fields are as
    `cleared` says (layout.py's `cleared`)."""
    for key, value in list(doc.items()):
        count = key[:-1] + "_count"
        if isinstance(value, list) and count in doc:
            doc[key] = []
            doc[count] = 0
    for key, value in cleared.items():
        if key in doc:
            doc[key] = value
    doc["has_updates"] = False


def interrupted_doc(doc: Dict[str, Any], stop: Interrupted,
                    cleared: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The interrupted document: nothing to process, nothing written (exit 130/143)."""
    doc = dict(doc, snapshot_id=None, state_updated=False, interrupted=True, signal=stop.name)
    _clear(doc, cleared or {})
    return edits.summarize(doc)
