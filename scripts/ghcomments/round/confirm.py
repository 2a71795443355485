"""The checkpoint's writes: the confirm of a snapshot and `--update-state` (CONTRACT sections 6,
11, 12 and 14).

The confirm's order: already applied first (a confirm that would change nothing succeeds), then
the snapshot read after another cursor is refused (compare-and-swap on the snapshot's previous
checkpoint and on its id), then forward only; the checkpoint's rename is the commit point, and
the snapshot's poll hints for the checkpoint now stored are installed (an already-applied
confirm too). Every function takes the round (engine.py) whose checkpoint it writes, under that
round's lock.
"""

from __future__ import annotations

from ..base.errors import StateError
from ..base.interrupt import Interrupted
from ..store import edits
from ..store.state import SCHEMA_VERSION
from ..streams.stream import PAST, SAME
from ..text.normalize import now_iso
from .engine import Round
from .reading import Cursors, interrupted_doc

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Optional


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


# The snapshot a confirm wrote the checkpoint from: a retried confirm of it, after a later
# check replaced the updates file, is told apart from a confirm of a snapshot never applied.
CONFIRMED = "confirmed_snapshot_id"


def checkpoint_doc(rnd: Round, cursors: Dict[str, Any],
                   times: Optional[Dict[str, Any]] = None,
                   snapshot_id: Optional[str] = None, stored: Optional[Dict[str, Any]] = None,
                   fresh: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The checkpoint file at `cursors`: `times` (read_at, tracked_since) copied; the kinds'
    top-level fields from the `stored` checkpoint and the read written from (`fresh`)."""
    doc = {"schema_version": SCHEMA_VERSION, "repository": rnd.repository,
           rnd.label: rnd.number}
    doc.update(rnd.checkpoint_fields(cursors))
    doc.update(rnd.recorded_fields(stored, fresh, cursors))
    doc["saved_at"] = now_iso()
    if isinstance(snapshot_id, str):
        doc[CONFIRMED] = snapshot_id
    for key in ("read_at", "tracked_since"):  # section 19 turn 5: copied, never compared
        if edits.parse_time((times or {}).get(key)) is not None:
            doc[key] = times[key]  # type: ignore[index]
    if not rnd.lacks_watermark(cursors):
        doc.pop("tracked_since", None)  # a confirm that sets W removes it
    return doc


def carried(rnd: Round, stored: Cursors, target: Cursors) -> Cursors:
    """`target` with the parts it does not name (a --through target, a read of
    get_latest_comments.py, a read without a kind's flag) as stored: a write never drops a
    flagged kind's cursor (section 21)."""
    if target is None or stored is None:
        return target
    out = dict(target)
    for kind, stream in rnd.streams.items():
        if stream.flag is not None and out.get(kind) is None:
            out[kind] = stored.get(kind)
    return out


def already_applied(rnd: Round, stored: Cursors, target: Cursors, moved_on: bool) -> bool:
    """The stored checkpoint holds what `target` would write, in every part, by each kind's
    own rule (`Stream.applied`, the one rule for the round's confirm and the inbox's): the
    same (a round's own confirm, sections 6 and 19), or, with `moved_on`, the same or past
    it (the inbox's confirm of an older snapshot, section 18)."""
    if target is None:
        return True
    if stored is None:
        return False
    ok = (SAME, PAST) if moved_on else (SAME,)
    return all(s.applied(stored.get(k), target.get(k)) in ok for k, s in rnd.streams.items())


def forward_only(rnd: Round, stored: Cursors, target: Dict[str, Any], force: bool) -> None:
    if stored is None or force:
        return
    for kind, stream in rnd.streams.items():
        if stream.key(target.get(kind)) < stream.key(stored.get(kind)) or edits.behind(
                edits.of(target.get(kind)), edits.of(stored.get(kind))):
            raise StateError(f"refusing to move the checkpoint backwards from "
                             f"{rnd.describe(stored)} to {rnd.describe(target)} (pass "
                             "--force to do it anyway)")


def validate(rnd: Round, target: Dict[str, Any], source: str) -> None:
    """A value of the wrong type never reaches a checkpoint."""
    for kind, value in target.items():
        if value is not None and not rnd.streams[kind].valid_cursor(value):
            raise StateError(f"{source} holds a {kind} cursor of an unexpected shape; "
                             "left as it is")


def advance(rnd: Round, target: Dict[str, Any], hints: Dict[str, Any], force: bool) -> bool:
    """--update-state: write the checkpoint at `target` now (forward only)."""
    validate(rnd, target, "the answer")
    with rnd.store.locked():
        cp = rnd.store.read_checkpoint()
        stored = rnd.cursors_of(cp)
        target = carried(rnd, stored, target)
        rnd.tracked_since = rnd.tracked_since or rnd.tracked_since_of(cp, stored)
        if rnd.read_at is None:  # a read that did not go through Round.read (selectors.py)
            rnd.note_read_at()
        written = not rnd.same(stored, target)
        if written:
            forward_only(rnd, stored, target, force)
            rnd.store.write_checkpoint(checkpoint_doc(rnd, target, rnd.times(target), None,
                                                      cp, rnd.recorded_now()))
        rnd.hints.save(rnd.hints.matching(target, hints))
    return written


def confirm(rnd: Round, snapshot_id: Optional[str], through: Optional[int],
            force: bool) -> Dict[str, Any]:
    doc = rnd.base_doc()
    try:
        with rnd.store.locked():  # the updates file and the checkpoint read as one
            upd = rnd.store.read_updates()
            if upd is None:
                raise StateError(f"no updates file at {rnd.store.paths.updates}: run "
                                 "check_issue_updates.py"
                                 + (" --pr" if rnd.label != "issue" else "")
                                 + " first, then confirm what it returned")
            cp = rnd.store.read_checkpoint()
            stored = rnd.cursors_of(cp)
            if snapshot_id is not None and upd.get("snapshot_id") != snapshot_id:
                # A later check replaced S: what S would write is unknown, and the newer
                # snapshot's target says nothing of it (it answered "already applied" for
                # items of S never confirmed, which came back: section 22). S is applied
                # only when the checkpoint says it was written from S (a retried confirm).
                if (cp or {}).get(CONFIRMED) != snapshot_id:
                    check_confirmable(upd, snapshot_id, True, "", "")
                return _retried(rnd, doc, stored, snapshot_id, through)
            target = carried(rnd, stored, rnd.confirm_target(upd, through, stored))
            # Already applied comes first: a confirm that would change nothing succeeds.
            already = already_applied(rnd, stored, target, moved_on=False)
            if not already:
                validate(rnd, target, f"updates file {rnd.store.paths.updates}")
                snap_prev = rnd.from_public(upd.get("previous_checkpoint"))
                # A snapshot read from --after-comment-id on a round that had no checkpoint
                # writes its first one while the round still has none (section 6 amended).
                first = (stored is None and upd.get("after_comment_id") is not None
                         and upd.get("had_checkpoint") is False)
                if not first:
                    _refuse_other_cursor(rnd, upd, stored, snap_prev, snapshot_id)
                check_confirmable(upd, snapshot_id, first or rnd.same(stored, snap_prev),
                                  rnd.describe(snap_prev), rnd.describe(stored))
                forward_only(rnd, stored, target, force)
                rnd.store.write_checkpoint(checkpoint_doc(rnd, target, upd,
                                                          upd.get("snapshot_id"), cp, upd))
            after = rnd.cursors_of(rnd.store.read_checkpoint())
            rnd.hints.save(rnd.hints.matching(after, upd.get("poll_hint")))
    except Interrupted as stop:
        return interrupted_doc(dict(doc, selector={"type": "confirm_updates",
                                                   "snapshot_id": snapshot_id,
                                                   "through": through},
                                    comments=[], comment_count=0,
                                    warnings=rnd.warnings), stop, rnd.cleared())
    returned = [c.get("id", 0) for c in upd.get("new_comments") or []
                if isinstance(c, dict)]
    doc.update({
        "selector": {"type": "confirm_updates", "snapshot_id": upd["snapshot_id"],
                     "through": through},
        "comments": [], "comment_count": 0,
        "previous_checkpoint": rnd.public(stored),
        "next_checkpoint": rnd.public(after),
        "state_updated": not already, "already_applied": already,
        "more_available": bool(upd.get("more_available")) or (
            through is not None and any(isinstance(i, int) and i > through
                                        for i in returned)),
        "truncated": False,
        "checkpoint_file": rnd.store.paths.checkpoint, "requests": 0,
        "warnings": rnd.warnings,
    })
    return edits.summarize(doc)


def _retried(rnd: Round, doc: Dict[str, Any], stored: Cursors, snapshot_id: str,
             through: Optional[int]) -> Dict[str, Any]:
    """A confirm of the snapshot the checkpoint was written from, retried after a later check
    replaced the updates file: already applied, nothing written."""
    doc.update({
        "selector": {"type": "confirm_updates", "snapshot_id": snapshot_id, "through": through},
        "comments": [], "comment_count": 0,
        "previous_checkpoint": rnd.public(stored), "next_checkpoint": rnd.public(stored),
        "state_updated": False, "already_applied": True, "more_available": False,
        "truncated": False, "checkpoint_file": rnd.store.paths.checkpoint, "requests": 0,
        "warnings": rnd.warnings,
    })
    return edits.summarize(doc)


def _refuse_other_cursor(rnd: Round, upd: Dict[str, Any], stored: Cursors, snap_prev: Cursors,
                         snapshot_id: Optional[str]) -> None:
    """A snapshot read after --after-comment-id continues no checkpoint."""
    after = upd.get("after_comment_id")
    if after is None or rnd.same(stored, snap_prev) or snapshot_id not in (
            None, upd.get("snapshot_id")):
        return
    raise StateError(
        f"refusing to confirm snapshot {upd['snapshot_id']}: it was read after "
        f"--after-comment-id {after}, not after the stored checkpoint "
        f"({rnd.describe(stored)}); a confirm only continues the stored checkpoint. "
        "Nothing to confirm; to follow the issue from that comment on, run "
        f"get_latest_comments.py --since-comment-id {after} --update-state")
