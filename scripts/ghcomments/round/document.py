"""What a round's reading shows, and the document a check prints (CONTRACT sections 5, 12
and 14): each kind's items presented, `--max-total`'s cut, the warnings on what was left out or
hidden, and the fields every kind adds. A mixin of the engine's `Round` (engine.py), which
reads; nothing here sends a request or names a kind.
"""

from __future__ import annotations

import os

from ..streams.stream import Batch
from ..text.normalize import now_iso
from .reading import Cursors, Reading

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List


class Documenting:
    """The round's reading shown and documented (`Round` gives streams, options, warnings)."""

    # -- what a reading shows ------------------------------------------------------------------
    def present(self, batches: Dict[str, Batch]) -> Reading:
        """The reading that shows `batches` (each item normalised for output)."""
        o = self.options
        shown: Dict[str, List[Dict[str, Any]]] = {k: [] for k in self.shown_keys}
        filtered: Dict[str, Dict[str, int]] = {}
        for kind, batch in batches.items():
            items, counts = self.streams[kind].present(batch, o.max_body_chars, o.reveal_hidden,
                                                       o.include_system)
            shown.update(items)
            filtered.update(counts)
            if batch.edited is not None:  # --include-edits (section 19)
                stream = self.streams[kind]
                shown[stream.edits_key] = batch.edited
                left = dict(batch.edits_left)
                no_change = left.pop("edited_no_change", 0)  # not an edit (turn 5)
                filtered[stream.edits_filtered] = left
                if no_change:
                    n = filtered.setdefault("edited_no_change", {"count": 0})
                    n["count"] += no_change
        return Reading(batches, shown, {k: v for k, v in filtered.items() if v})

    # -- --max-total (budget.py): the reading cut to fewer units -------------------------
    def cut(self, previous: Cursors, reading: Reading, keep: Dict[str, int]) -> Reading:
        """`reading` with only `keep[stream]` units of each stream (the oldest after the cursor;
        the newest without one): the cursor passes nothing that was not returned."""
        prev = previous or {}
        batches = {}
        for kind, batch in reading.batches.items():
            stream = self.streams[kind]
            n = keep.get(kind, len(batch.items))
            e = keep.get(stream.edits_key, len(batch.edited or []))
            batches[kind] = (batch if n >= len(batch.items) and e >= len(batch.edited or [])
                             else stream.cut(batch, prev.get(kind), n, previous is None, e))
        out = self.present(batches)
        out.moved = reading.moved
        return out

    # -- the document --------------------------------------------------------------------------
    def base_doc(self) -> Dict[str, Any]:
        return {"repository": self.repository, self.label: self.number,
                "retrieved_at": now_iso()}

    def note_hidden(self, shown: Dict[str, List[Dict[str, Any]]]) -> None:
        hidden = sum(1 for items in shown.values() for c in items if c.get("hidden_characters"))
        if hidden:
            self.warnings.append(f"{hidden} item(s) contain invisible or control characters "
                                 "(see hidden_characters; --reveal-hidden or --format summary "
                                 "shows them as <U+XXXX>)")

    def note_filtered(self, filtered: Dict[str, Dict[str, int]]) -> None:
        """One warning per reason a count has: the author filters' left-outs, and events of
        kinds the bundle never returns (`other_kind`: subscribed, referenced, project boards…),
        which no filter chose."""
        by_reason: Dict[str, int] = {}
        for kind, counts in filtered.items():
            if kind != "edited_no_change":
                for reason, n in counts.items():
                    by_reason[reason] = by_reason.get(reason, 0) + n
        other = by_reason.pop("other_kind", 0)
        total = sum(by_reason.values())
        if total:
            self.warnings.append(f"{total} item(s) left out by author filters (see "
                                 "filtered_out); the recommended checkpoint moves past them")
        if other:
            self.warnings.append(f"{other} event(s) of kinds this bundle does not report "
                                 "(subscribed, mentioned, referenced, project boards, ...) left "
                                 "out (filtered_out.events.other_kind); the recommended "
                                 "checkpoint moves past them")

    def document(self, previous: Cursors, reading: Reading,
                 filtered: Dict[str, Dict[str, int]]) -> Dict[str, Any]:
        self.note_hidden(reading.shown)
        self.note_filtered(filtered)
        self.notes()
        batches = reading.batches
        doc = self.base_doc()
        doc["has_updates"] = reading.returned
        flagged = tuple(k for s in self.streams.values() if s.flag is not None and s.active
                        for k in s.shown)  # a flagged kind's lists, with its flag
        for key in self.shown_keys + self.edit_keys + flagged:
            if key in reading.shown:
                doc[key] = reading.shown[key]
                doc[key[:-1] + "_count"] = len(reading.shown[key])
        doc["more_available"] = reading.more_available
        doc.update(self.more_by_kind(reading))
        for stream in self.streams.values():
            doc.update(stream.fields(self, reading))
        doc.update({
            "truncated": any(b.truncated for b in batches.values()),
            "latest_comment": batches[self.primary.kind].latest,
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
