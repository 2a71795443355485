"""Many conversations in one check: the inbox (CONTRACT section 18).

`check_issue_updates.py --follow REF … / --followed` is a loop over rounds, never a copy of
them: each round is section 5's or 12's `Round` (engine.py) with its own cursor, checkpoint,
updates file, hints, lock and snapshot id; the inbox only chooses the rounds, reads each (or
waits over all: inbox_wait.py), cuts the whole to `--max-total` (budget.py), and commits:
round locks in key order, then the inbox lock; each round's updates file renamed first (the
first rename is the commit point: signals are held from there until stdout is flushed), the
inbox file (inbox_file.py) last.

Errors stay per round where they belong to one round (members.py says which); what belongs to
the host ends the command before any file changes.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Dict, List, Optional, Tuple

from ..base.errors import BundleError, StateError
from ..base.interrupt import Interrupted
from ..round.budget import DEFAULT_MAX_TOTAL, Units, allocate, kept_by_kind, units_of
from ..store import edits, refs
from ..store.inbox_file import InboxFile, round_entry
from ..store.state import check_writable
from ..text.normalize import now_iso
from .members import (
    InboxOptions,
    Member,
    Selection,
    error_json,
    finish_members,
    read_member,
    select,
    start_members,
)


def check(opts: InboxOptions, wait: Any, options: Any) -> Dict[str, Any]:
    """The inbox check (with `wait`: one wait over every round)."""
    sel = select(opts)
    if not sel.members and not sel.errors:
        if wait is not None:
            from ..base.errors import UsageError

            raise UsageError("--wait: no round is followed here (follow one with --follow REF, "
                             "or check --followed in the work folder that holds them)")
        return _document(sel, [], "", None, more_in=[], unfollowed=[])
    live = start_members(sel, opts, options, wait)
    wait_fields = None
    try:
        if wait is not None:
            from .inbox_wait import wait_over

            wait_fields = wait_over(live, wait, opts.limit, sel)
        else:
            last: Optional[BundleError] = None
            for m in live:
                last = read_member(m, opts.limit, sel.client, last, deferred=True)
            finish_members(live, sel.client)  # one edit-history query per 100 (turn 6)
        unread = [m for m in live if m.error is None and m.reading is None]
        for m in unread:  # the wait's end came before its first read: nothing known
            m.reading = m.rnd.empty_reading(m.previous)
            for batch in m.reading.batches.values():
                batch.more_available = None
        held = set(_cut(live, opts.max_total)) | {m.key for m in unread}
        more_in = [m.key for m in live if m.key in held]  # in round order
        for m in live:
            if m.error is None and m.reading is not None and m.reading.returned:
                before = sel.client.requests
                m.rnd.on_items(m.reading)  # a PR's thread state: only for what is returned
                m.requests += sel.client.requests - before
        for m in live:
            if m.error is None:
                m.doc = m.rnd.document(m.previous, m.reading, m.filtered)
                m.doc["requests"] = m.requests
                note = refs.pull_request_warning(m.ref, (m.doc.get("latest_comment") or {})
                                                 .get("url"))
                if note and note not in m.doc["warnings"]:
                    m.doc["warnings"].append(note)
        snapshot_id = os.urandom(16).hex()
        unfollowed, written = _commit(sel, live, snapshot_id)
        if not written:
            snapshot_id = ""  # no round recorded: no inbox snapshot to confirm
    except Interrupted as stop:
        wait_fields = wait_fields or getattr(stop, "wait_fields", None)
        doc = _document(sel, sel.members, "", wait_fields, more_in=[], unfollowed=[])
        doc.update(conversations=[], quiet=[], has_updates=False, snapshot_id=None,
                   interrupted=True, signal=stop.name, state_updated=False)
        return doc
    return _document(sel, sel.members, snapshot_id, wait_fields, more_in=more_in,
                     unfollowed=unfollowed)


def _cut(live: List[Member], max_total: Optional[int]) -> List[str]:
    """--max-total over the whole document: round-robin, one unit per round per pass; the
    keys of the rounds that hold more than they return."""
    readable = [m for m in live if m.error is None and m.reading is not None]
    units = [units_of(m.rnd, m.reading, m.previous is None) for m in readable]
    total = DEFAULT_MAX_TOTAL if max_total is None else max_total
    kept = allocate([Units([s for _k, s in u], tail=m.previous is None)
                     for m, u in zip(readable, units)], total)
    more_in = []
    for m, u, k in zip(readable, units, kept):
        if k >= len(u):
            continue
        m.reading = m.rnd.cut(m.previous, m.reading, kept_by_kind(u, k))
        if m.previous is not None or m.reading.more_available:
            more_in.append(m.key)
    return more_in


def _commit(sel: Selection, live: List[Member], snapshot_id: str) -> Tuple[List[str], bool]:
    """Round locks in key order, then the inbox lock; round files first, the inbox file last.
    (the keys of rounds unfollowed since they were read: nothing of theirs is written, whether
    the inbox snapshot was written)."""
    entries, unfollowed = [], []
    with contextlib.ExitStack() as stack:
        locked = []
        for m in live:
            if m.error is not None:
                continue
            try:
                stack.enter_context(m.rnd.store.locked())
            except StateError as exc:  # a lock not had within 5 s: this round's error
                m.error, m.doc = exc, None
                continue
            locked.append(m)
        if not locked:
            return unfollowed, False
        inbox = InboxFile(sel.root, sel.folder)
        stack.enter_context(inbox.locked())
        inbox.read()  # a corrupt inbox file is exit 7 before anything is renamed
        check_writable(inbox.path, "inbox file")  # nor can its write fail after one
        for m in locked:
            try:
                stored = m.rnd.store.read_checkpoint()
                check_writable(m.rnd.store.paths.updates, "updates file")
            except StateError as exc:
                m.error, m.doc = exc, None
                continue
            if _unfollowed_since_start(m, stored):
                unfollowed.append(m.key)
                m.doc = None
                continue
            _write_round(m)
            previous = m.rnd.public(m.previous) if m.rnd.had_checkpoint else None
            target = m.rnd.from_public(m.doc["recommended_checkpoint"])
            entries.append(round_entry(m.key, m.doc["snapshot_id"], previous,
                                       m.doc["recommended_checkpoint"], m.rnd.times(target),
                                       m.rnd.snapshot_recorded(target)))
        if entries:
            inbox.add({"snapshot_id": snapshot_id, "retrieved_at": now_iso(),
                       "rounds": entries})
    return unfollowed, bool(entries)


def _unfollowed_since_start(m: Member, stored: Any) -> bool:
    """Whether `--unfollow` removed the round's files while this command read it (the round
    lock held): its checkpoint is gone, or (a round started from a REF's comment id, without a
    checkpoint) the updates file it had is gone. Only an unfollow removes them; a round that
    had no file at all is not followed anywhere, and an unfollow of it removed nothing."""
    if stored is not None:
        return False
    return m.rnd.had_checkpoint or (m.had_updates
                                    and not os.path.lexists(m.rnd.store.paths.updates))


def _write_round(m: Member) -> None:
    """The round's updates file as its own check writes it, unless it is quiet and the file
    already holds a snapshot with the same previous and recommended checkpoint (an agent
    working through that snapshot alone is not disturbed): then only its `poll_hint` is
    rewritten with this read's hints, the snapshot id kept, so no confirm reinstalls a hint
    older than this read's (section 22)."""
    doc = m.doc
    try:
        upd = m.rnd.store.read_updates()
    except StateError:
        upd = None
    private, settled = m.rnd.updates_of(m.previous, m.reading, doc, m.start_id)
    if (upd is not None and not doc["has_updates"]
            and upd.get("previous_checkpoint") == doc["previous_checkpoint"]
            and upd.get("recommended_checkpoint") == doc["recommended_checkpoint"]):
        doc["snapshot_id"] = upd["snapshot_id"]
        if upd.get("poll_hint") != private["poll_hint"]:
            m.rnd.store.write_updates(dict(upd, poll_hint=private["poll_hint"]))
        m.rnd.hints.save(settled)
        return
    m.rnd.save_check(private, settled)


def _is_conversation(doc: Dict[str, Any]) -> bool:
    return bool(doc["has_updates"] or doc.get("truncated")
                or doc.get("more_available") is not False
                or doc.get("warnings"))


def _document(sel: Selection, members: List[Member], snapshot_id: str, wait_fields: Any,
              more_in: List[str], unfollowed: List[str]) -> Dict[str, Any]:
    conversations, quiet, errors = [], [], list(sel.errors)
    for m in members:
        if m.error is not None:
            errors.append({"key": m.key, "error": error_json(m.error)})
        elif m.doc is not None:
            if _is_conversation(m.doc):  # the files hold the whole watermarks, stdout not
                conversations.append(edits.summarize(dict(m.doc, key=m.key)))
            else:
                quiet.append(m.key)
    doc: Dict[str, Any] = {
        "retrieved_at": now_iso(),
        "has_updates": any(c["has_updates"] for c in conversations),
        "conversations": conversations, "quiet": quiet, "errors": errors,
        "skipped": sel.skipped, "unfollowed": unfollowed, "more_in": more_in,
        "followed": len(members) + len(sel.errors),
        "requests": sel.client.requests if sel.client is not None else 0,
        "snapshot_id": snapshot_id or None,
        "updates_file": InboxFile(sel.root, sel.folder).path if sel.folder else None,
        "warnings": sel.warnings,
    }
    if wait_fields is not None:
        doc.update(wait_fields)
    if doc["followed"] and not conversations and not quiet and errors:
        doc["error"] = errors[0]["error"]  # no round could be read: its exit code
        doc["snapshot_id"] = None
    return doc
