"""The times a round records (CONTRACT sections 19 and 21): `read_at`, the `Date` of a read's
first answer, and `tracked_since`, from when the round was tracked — kept in every checkpoint
until both the edit watermarks and the event cursor are set, so a later first ask (of edits, of
events) is answered from it. A mixin of the round (engine.py)."""

from __future__ import annotations

from ..store import edits
from ..text.normalize import date_header

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional

    from ..store.state import StateStore
    from ..streams.stream import Stream
    from .reading import Cursors, RoundOptions


class TrackedTimes:
    """`read_at` and `tracked_since` of one round (the round gives its streams, store,
    options, client and warnings)."""

    streams: Dict[str, Stream]
    store: StateStore
    options: RoundOptions
    client: Any
    warnings: List[str]
    tracked_since: Optional[str]
    tracked_since_fallback: bool
    read_at: Optional[str]

    FALLBACK_MINUTES = 10

    def lacks_watermark(self, cursors: Cursors) -> bool:
        """Some list's cursor has no edit watermark W (no `edits`, or `through` null), or
        a kind whose first ask is answered from `tracked_since` has no cursor yet (the
        events, section 21): `tracked_since` is kept until all are set."""
        if any(s.asks_since and (cursors or {}).get(k) is None
               for k, s in self.streams.items()):
            return True
        return self.lists_lack_w(cursors)

    def lists_lack_w(self, cursors: Cursors) -> bool:
        """Some comment list's cursor has no edit watermark W."""
        return any(isinstance(c, dict) and (edits.of(c) or {}).get("through") is None
                   for k, c in (cursors or {}).items()
                   if k in self.streams and self.streams[k].has_edits)

    def tracked_since_of(self, cp: Optional[Dict[str, Any]], cursors: Cursors
                         ) -> Optional[str]:
        """The stored `tracked_since`; for a checkpoint written before it (no `read_at`) and
        without W, `saved_at` minus 10 minutes (this machine's clock: a flagged check warns);
        None on a first look or once every list has W."""
        if not cp or not self.lacks_watermark(cursors):
            return None
        if edits.parse_time(cp.get("tracked_since")) is not None:
            return cp["tracked_since"]
        saved = edits.parse_time(cp.get("saved_at"))
        if saved is None:
            return None
        import datetime as _dt

        fallback = edits.format_time(saved - _dt.timedelta(minutes=self.FALLBACK_MINUTES))
        self.tracked_since_fallback = True
        if self.options.include_edits and self.lists_lack_w(cursors):  # edits use it too
            self.warnings.append(
                f"{self.store.paths.checkpoint} was written before read_at/tracked_since were "
                f"recorded: edits are reported from its saved_at minus "
                f"{self.FALLBACK_MINUTES} minutes ({fallback}), a time of this machine's "
                "clock, not GitHub's")
        return fallback

    def note_read_at(self) -> None:
        """`read_at`: the `Date` of this read's first answer, in GitHub's form (whole
        seconds); one more than a day from this machine's clock is not recorded."""
        import datetime as _dt

        header, self.read_at = self.client.first_date, None
        when = date_header(header)
        if when is None:
            return
        if abs((when - _dt.datetime.now(_dt.timezone.utc)).total_seconds()) > 86400:
            said = (f"GitHub's Date ({header}) is more than a day from this machine's clock: "
                    "read_at is not recorded")
            if not any(w.endswith(": read_at is not recorded") for w in self.warnings):
                self.warnings.append(said)  # each kind's read asks again: said once
            return
        self.read_at = edits.format_time(when)

    def times(self, cursors: Cursors) -> Dict[str, Any]:
        """The top-level `read_at` and `tracked_since` a snapshot (or a checkpoint written
        from this read) carries: `tracked_since` while some list has no W."""
        out: Dict[str, Any] = {}
        if self.read_at is not None:
            out["read_at"] = self.read_at
        since = self.tracked_since or self.read_at
        if since is not None and self.lacks_watermark(cursors):
            out["tracked_since"] = since
        return out
