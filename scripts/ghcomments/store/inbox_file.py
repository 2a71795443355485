"""The inbox file: `inbox-updates.json` beside the rounds' files, under its own lock (CONTRACT
section 18).

It keeps the last 4 inbox snapshots, newest first, each

    {"snapshot_id", "retrieved_at",
     "rounds": [{"key", "snapshot_id", "had_checkpoint", "previous_sha256",
                 "recommended_checkpoint", "unfollowed"}]}

for every round an inbox check read without error (quiet ones included): cursors only, never
bodies. `previous_sha256` is the SHA-256 of the canonical JSON of the cursor the round was read
after (`cursor_sha256`), null when the round had no checkpoint. The inbox confirm compares each
round's stored checkpoint with it (compare-and-swap); `--unfollow` marks a key `unfollowed` in
every kept snapshot (`mark_unfollowed`), so a confirm never recreates a round the agent dropped.

Every inbox command takes the round locks in key order, then this lock (`InboxFile.locked`). A
file that cannot be read as this shape is reported (exit 7) and left as it is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from typing import Any, Dict, Iterator, List, Optional

from ..base.errors import StateError
from .refs import is_key
from .state import LOCK_WAIT_SECONDS, SCHEMA_VERSION, StatePaths, file_lock, read_json, write_json

INBOX_NAME = "inbox-updates.json"
INBOX_LOCK = ".inbox.lock"
SNAPSHOTS_KEPT = 4
ROUND_FIELDS = ("key", "snapshot_id", "had_checkpoint", "previous_sha256",
                "recommended_checkpoint", "unfollowed")
TIME_FIELDS = ("read_at", "tracked_since")  # section 19 turn 5: optional, never compared
RECORDED = "recorded"  # the kinds' top-level checkpoint fields (an object): optional


def canonical_json(value: Any) -> bytes:
    """One spelling of a JSON value: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def cursor_sha256(cursor: Any) -> Optional[str]:
    """The SHA-256 of a cursor's canonical JSON (None: no cursor, no checkpoint)."""
    if cursor is None:
        return None
    return hashlib.sha256(canonical_json(cursor)).hexdigest()


def _valid_round(entry: Any) -> bool:
    if not isinstance(entry, dict) or not set(ROUND_FIELDS) <= set(entry) <= set(
            ROUND_FIELDS + TIME_FIELDS + (RECORDED,)):
        return False
    if not all(isinstance(entry[k], str) for k in TIME_FIELDS if k in entry):
        return False
    if not isinstance(entry.get(RECORDED, {}), dict):
        return False
    sha = entry["previous_sha256"]
    return (is_key(entry["key"]) and isinstance(entry["snapshot_id"], str)
            and isinstance(entry["had_checkpoint"], bool)
            and isinstance(entry["unfollowed"], bool)
            and (sha is None or (isinstance(sha, str) and len(sha) == 64))
            and (entry["recommended_checkpoint"] is None
                 or isinstance(entry["recommended_checkpoint"], dict)))


def _valid_snapshot(snap: Any) -> bool:
    return (isinstance(snap, dict) and isinstance(snap.get("snapshot_id"), str)
            and isinstance(snap.get("retrieved_at"), str)
            and isinstance(snap.get("rounds"), list)
            and all(_valid_round(r) for r in snap["rounds"]))


class InboxFile:
    """The inbox file of one work folder (the folder the rounds' files live in)."""

    def __init__(self, root: str, folder: str) -> None:
        self.path = os.path.join(folder, INBOX_NAME)
        self.paths = StatePaths(root=root, folder=folder, checkpoint="", updates=self.path,
                                lock=os.path.join(folder, INBOX_LOCK))
        self._locked = False

    @contextlib.contextmanager
    def locked(self, wait: float = LOCK_WAIT_SECONDS) -> Iterator[InboxFile]:
        with file_lock(self.paths, "the inbox", wait):
            self._locked = True
            try:
                folder, base = os.path.split(self.path)
                for entry in os.listdir(folder):  # a killed writer's temp file
                    if entry.startswith(f".{base}.tmp-"):
                        with contextlib.suppress(OSError):
                            os.unlink(os.path.join(folder, entry))
                yield self
            finally:
                self._locked = False

    def read(self) -> List[Dict[str, Any]]:
        """The kept snapshots, newest first ([] when there is no file)."""
        doc = read_json(self.path, "inbox file")
        if doc is None:
            return []
        snaps = doc.get("snapshots")
        if (doc.get("schema_version") != SCHEMA_VERSION or not isinstance(snaps, list)
                or not all(_valid_snapshot(s) for s in snaps)):
            raise StateError(f"inbox file {self.path} is corrupt (unexpected shape); left as "
                             "it is — inspect or move it away yourself")
        return snaps

    def find(self, snapshot_id: str) -> Optional[Dict[str, Any]]:
        return next((s for s in self.read() if s["snapshot_id"] == snapshot_id), None)

    def _write(self, snaps: List[Dict[str, Any]]) -> None:
        if not self._locked:
            raise RuntimeError("inbox file written without its lock")
        write_json(self.path, {"schema_version": SCHEMA_VERSION,
                               "snapshots": snaps[:SNAPSHOTS_KEPT]}, commit=True)

    def add(self, snapshot: Dict[str, Any]) -> None:
        """Keep `snapshot` first, the 3 before it after it (the caller holds the lock)."""
        if not _valid_snapshot(snapshot):
            raise RuntimeError("an inbox snapshot of an unexpected shape")
        self._write([snapshot] + self.read())

    def mark_unfollowed(self, key: str) -> int:
        """Mark `key` unfollowed in every kept snapshot (the caller holds the lock); the number
        of snapshots changed. No file, or no snapshot holding the key: nothing written."""
        snaps = self.read()
        changed = 0
        for snap in snaps:
            for entry in snap["rounds"]:
                if entry["key"] == key and not entry["unfollowed"]:
                    entry["unfollowed"] = True
                    changed += 1
        if changed:
            self._write(snaps)
        return changed


def round_entry(key: str, snapshot_id: str, previous: Any, recommended: Any,
                times: Any = None, recorded: Any = None) -> Dict[str, Any]:
    """One round of an inbox snapshot: `previous` and `recommended` in the round's public
    spelling (section 5's or 12's checkpoint object; None: no checkpoint); `times`: its
    `read_at` and `tracked_since` (section 19 turn 5); `recorded`: the kinds' top-level
    checkpoint fields its confirm writes (streams/stream.py, `Stream.recorded`)."""
    out = {"key": key, "snapshot_id": snapshot_id, "had_checkpoint": previous is not None,
           "previous_sha256": cursor_sha256(previous), "recommended_checkpoint": recommended,
           "unfollowed": False}
    out.update({k: v for k, v in (times or {}).items() if k in TIME_FIELDS})
    if recorded:
        out[RECORDED] = dict(recorded)
    return out


__all__ = ["INBOX_NAME", "InboxFile", "SNAPSHOTS_KEPT", "canonical_json", "cursor_sha256",
           "round_entry"]
