"""What a layout gives the round engine (engine.py): which streams a round reads and how its
cursors and counts are spelled in files and documents. The two layouts are layouts.py's."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional

    from ..streams.stream import Stream
    from .reading import Cursors, Reading


class Layout:
    """The layout's part of a round: subclasses (layouts.py) implement each."""

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

    def notes(self, by_id: Optional[Dict[str, List[Dict[str, Any]]]] = None) -> None:
        """The round's notes about what its output cannot hold, after a round read, or after
        a read by id (`by_id`: what that read returned)."""

    def on_items(self, reading: Reading) -> None:
        """Runs once per read that returns items (never on a 304 or an idle poll): the place
        for what only such a round needs, e.g. a pull request's thread state."""
