"""`get_latest_comments.py`'s reads of a round: by id (`--comment-id`, `--review-id`,
`--review-comment-id`), by selector (`--since-comment-id`, `--last-n`, `--all`), or after the
checkpoint; `--update-state` writes the checkpoint through confirm.py (CONTRACT sections 6, 12).
Reads by id ignore the author filters and never move a checkpoint."""

from __future__ import annotations

from ..base.interrupt import Interrupted
from ..store import edits
from ..streams.stream import Batch, checkpoint_of, with_edits
from .confirm import advance
from .engine import Round
from .reading import DEFAULT_LIMIT, Cursors, Reading, interrupted_doc

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional


def read_by_id(rnd: Round, selector: str, value: int) -> Dict[str, List[Dict[str, Any]]]:
    """One item by id, read by the kind that serves the selector (reads by id ignore the
    author filters)."""
    o = rnd.options
    shown: Dict[str, List[Dict[str, Any]]] = {k: [] for k in rnd.shown_keys}
    stream = next(s for s in rnd.streams.values() if selector in s.by_id)
    shown.update(stream.read_one(selector, value, o.max_body_chars, o.reveal_hidden))
    return shown


def _conversation_selector(rnd: Round, selector: str, value: int, limit: Optional[int],
                           update_state: bool, hints: Dict[str, Any]) -> Any:
    """--since-comment-id, --last-n, --all: the conversation only."""
    conv: Any = rnd.primary
    if selector == "since_comment_id":
        return conv.scan_after(value, limit, hints.get(conv.kind), sharpen=update_state)
    if selector == "last_n":
        return conv.tail(value, quiet=True)
    return conv.everything()


def fetch(rnd: Round, selector: str, value: Optional[int], limit: Optional[int],
          update_state: bool, force: bool) -> Dict[str, Any]:
    doc = rnd.base_doc()
    previous: Cursors = None
    shown: Dict[str, List[Dict[str, Any]]] = {k: [] for k in rnd.shown_keys}
    counts: Dict[str, Dict[str, int]] = {}
    next_cp: Any = None
    more: Optional[bool] = False
    truncated = state_updated = False
    older: Optional[int] = None
    reading: Optional[Reading] = None
    by_id = any(selector in s.by_id for s in rnd.streams.values())
    try:
        if by_id:
            shown = read_by_id(rnd, selector, int(value or 0))
            previous = rnd.by_id_previous()
            rnd.notes(shown)
        else:
            rnd.resolve_me()
            previous, hints = rnd.start()
            target: Cursors = None
            new_hints: Dict[str, Any] = {}
            if selector in ("since_comment_id", "last_n", "all"):
                result = _conversation_selector(rnd, selector, int(value or 0), limit,
                                                     update_state, hints)
                primary: Any = rnd.primary
                batch = Batch(primary.kind, items=result.returned)
                shown, counts = primary.present(
                    batch, rnd.options.max_body_chars, rnd.options.reveal_hidden,
                    rnd.options.include_system)
                counts = {k: v for k, v in counts.items() if v}
                more, truncated = result.more_available, result.truncated
                older = result.older_not_returned
                raws = result.returned
                if selector == "since_comment_id":
                    next_cp = checkpoint_of(raws[-1]) if raws else rnd.public(previous)
                    if raws:
                        stored = edits.of((previous or {}).get(primary.kind))
                        target = dict(previous or {}, **{primary.kind: with_edits(
                            checkpoint_of(raws[-1]),
                            edits.carry(stored, raws))})  # seen kept by every write
                        hint = primary.hint_for(result, raws[-1]["id"])
                        new_hints = {primary.kind: hint}
            else:
                if previous is None:
                    selector = "tail"
                reading = rnd.read(previous, hints, limit or DEFAULT_LIMIT,
                                    sharpen=update_state)
                shown, counts = reading.shown, reading.filtered
                more = reading.more_available
                truncated = any(b.truncated for b in reading.batches.values())
                older = reading.batches[rnd.primary.kind].older_not_returned
                target, new_hints = rnd.position(previous, reading)
                next_cp = rnd.next_public(previous, reading)
                rnd.notes()
            if update_state and target is not None and rnd.writable(target):
                state_updated = advance(rnd, target, new_hints, force)
                if state_updated:
                    next_cp = rnd.public({k: rnd.streams[k].stored(v)
                                          for k, v in target.items()})
    except Interrupted as stop:
        doc.update({"selector": {"type": selector, "value": value},
                    "previous_checkpoint": rnd.public(previous), "warnings": rnd.warnings})
        return dict(interrupted_doc(doc, stop, rnd.cleared()), **{
            k[4:]: [] for k in rnd.shown_keys},
            **(rnd.fetch_fields(None) if selector in ("checkpoint", "tail") else {}))
    rnd.note_hidden(shown)
    rnd.note_filtered(counts)
    doc["selector"] = {"type": selector, "value": value}
    for key in rnd.shown_keys:
        doc[key[4:]] = shown.get(key, [])
        doc[key[4:-1] + "_count"] = len(doc[key[4:]])
    if by_id:  # what a kind's read by id returns beside the round's lists, as it names it
        for key, items in shown.items():
            if key not in rnd.shown_keys:
                doc[key] = items
    if reading is not None:
        doc.update(rnd.fetch_fields(reading))
    doc.update({"previous_checkpoint": rnd.public(previous), "next_checkpoint": next_cp,
                "state_updated": state_updated, "more_available": more,
                "truncated": truncated})
    if older is not None and rnd.label == "issue":
        doc["older_not_returned"] = older
    doc.update({"filtered_out": rnd.public_filtered(counts),
                "pages_scanned": rnd.pages, "requests": rnd.client.requests,
                "warnings": rnd.warnings})
    return edits.summarize(doc)
