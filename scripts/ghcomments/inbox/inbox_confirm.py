"""One confirm for the inbox: `get_latest_comments.py --followed --confirm-updates --snapshot-id S`
(or `--follow REF …` to pick rounds of S) (CONTRACT section 18). No network.

For each round of inbox snapshot S, in key order, under the round locks then the inbox lock:
(1) marked `unfollowed` -> skipped, never recreated; (2) already applied when the stored
checkpoint is at or past the recorded `recommended_checkpoint` in every part -> nothing
written; (3) else the stored checkpoint must hash to the recorded `previous_sha256` (none, when
the round had none): compare-and-swap, forward only, then the recorded recommendation is
written (confirm.py's own checkpoint writer). The round's poll hint is installed only when its
updates file still holds the recorded snapshot id. What is refused is listed with its error,
the rest confirmed either way; then exit 7 with section 10's `error` naming the refused keys.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Dict, List, Tuple

from ..base.errors import StateError, UsageError
from ..base.interrupt import Interrupted
from ..round.confirm import already_applied, checkpoint_doc, forward_only, validate
from ..round.layouts import Monitor, PullRequestRound
from ..round.reading import DEFAULT_MAX_PAGES, RoundOptions
from ..store import refs
from ..store.following import store_for
from ..store.inbox_file import InboxFile, cursor_sha256
from ..store.state import StateLocation, locate, state_folder
from .members import InboxOptions


def _rounds(snap: Dict[str, Any], picked: List[str], api_url: str, where: StateLocation
            ) -> List[Tuple[Dict[str, Any], Any]]:
    """(entry, round) for each round of the snapshot to confirm, in round order."""
    host = refs.api_host_of(api_url)
    out = []
    for entry in snap["rounds"]:
        if picked and entry["key"] not in picked:
            continue
        ref = refs.parse_ref(entry["key"], api_url)
        paths = locate(where.root, where.run_id, where.retained, ref.owner, ref.repo, ref.number,
                       suffix="-pr" if ref.is_pull else "")
        kind = PullRequestRound if ref.is_pull else Monitor
        out.append((entry, kind(None, ref.owner, ref.repo, ref.number,
                                store_for(ref, paths, host), RoundOptions(), DEFAULT_MAX_PAGES)))
    out.sort(key=lambda pair: refs.sort_key(refs.parse_ref(pair[0]["key"], api_url)))
    return out


def _confirm_round(entry: Dict[str, Any], rnd: Any) -> bool:
    """One round (its lock held); True when its checkpoint was written."""
    store = rnd.store
    cp = store.read_checkpoint()
    stored = rnd.cursors_of(cp)
    target = rnd.from_public(entry["recommended_checkpoint"])
    written = False
    if not already_applied(rnd, stored, target, moved_on=True):
        found = cursor_sha256(rnd.public(stored)) if stored is not None else None
        if found != entry["previous_sha256"]:
            raise StateError(f"{entry['key']}: the checkpoint is now {rnd.describe(stored)}, "
                             "not the one inbox snapshot read after (it was confirmed or moved "
                             "alone in between); check it again")
        validate(rnd, target, "the inbox file")
        forward_only(rnd, stored, target, False)
        # the first rename: the commit point
        store.write_checkpoint(checkpoint_doc(rnd, target, entry, entry.get("snapshot_id"),
                                              cp, entry.get("recorded")))
        written = True
    try:
        upd = store.read_updates()
    except StateError:
        upd = None
    if upd is not None and upd.get("snapshot_id") == entry["snapshot_id"]:
        after = rnd.cursors_of(store.read_checkpoint())
        rnd.hints.save(rnd.hints.matching(after, upd.get("poll_hint")))
    return written


def confirm(opts: InboxOptions) -> Dict[str, Any]:
    if not opts.snapshot_id:
        raise UsageError("--followed/--follow --confirm-updates needs --snapshot-id S (the "
                         "inbox check's snapshot_id)")
    from ..net import config

    api_url = config.command_api_url(opts.connection.api_url, os.environ)
    picked = [refs.parse_ref(text, api_url).key for text in opts.follow]
    where = opts.state
    root, folder = state_folder(where.root, where.run_id, where.retained)
    inbox = InboxFile(root, folder)
    snap = inbox.find(opts.snapshot_id) if os.path.lexists(folder) else None
    if snap is None:
        raise StateError(f"inbox snapshot {opts.snapshot_id} is not among the last kept in "
                         f"{inbox.path}: nothing was confirmed (check again)")
    keys = {e["key"] for e in snap["rounds"]}
    missing = [k for k in picked if k not in keys]
    if missing:
        raise UsageError(f"{', '.join(missing)}: not a round of inbox snapshot "
                         f"{opts.snapshot_id}; nothing was confirmed")
    rounds = _rounds(snap, picked, api_url, where)
    doc: Dict[str, Any] = {"snapshot_id": opts.snapshot_id, "confirmed": [],
                           "already_applied": [], "refused": [], "unfollowed": [],
                           "requests": 0, "state_updated": False, "warnings": []}
    try:
        with contextlib.ExitStack() as stack:
            locked = []
            for entry, rnd in rounds:  # round locks in key order
                try:
                    stack.enter_context(rnd.store.locked())
                    locked.append((entry, rnd))
                except StateError as exc:
                    doc["refused"].append({"key": entry["key"], "error": exc.to_json()["error"]})
            stack.enter_context(inbox.locked())  # then the inbox lock
            current = inbox.find(opts.snapshot_id)  # read again under the lock
            if current is None:  # pushed out of the kept 4 while the round locks were taken
                raise StateError(f"inbox snapshot {opts.snapshot_id} left {inbox.path} (newer "
                                 "inbox checks replaced it) while this confirm waited for the "
                                 "round locks: nothing was confirmed (check again)")
            now = {e["key"]: e for e in current["rounds"]}
            for entry, rnd in locked:
                entry = now.get(entry["key"], entry)  # an --unfollow since it was read
                if entry["unfollowed"]:
                    doc["unfollowed"].append(entry["key"])
                    continue
                try:
                    written = _confirm_round(entry, rnd)
                except StateError as exc:
                    doc["refused"].append({"key": entry["key"], "error": exc.to_json()["error"]})
                    continue
                doc["confirmed" if written else "already_applied"].append(entry["key"])
    except Interrupted as stop:
        return dict(doc, confirmed=[], already_applied=[], interrupted=True, signal=stop.name,
                    snapshot_id=None)
    doc["state_updated"] = bool(doc["confirmed"])
    if doc["refused"]:
        keys_refused = ", ".join(r["key"] for r in doc["refused"])
        doc["error"] = StateError(f"refused to confirm {keys_refused} (see refused); the "
                                  "other rounds were confirmed").to_json()["error"]
    for _entry, rnd in rounds:
        doc["warnings"] += [w for w in rnd.warnings if w not in doc["warnings"]]
    return doc
