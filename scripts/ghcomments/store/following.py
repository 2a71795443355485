"""The followed rounds of a work folder, and how to stop following one (CONTRACT section 18).

A round is followed while its checkpoint exists in the work folder (--root, --run-id or
--retained): `followed_rounds` finds them from the file names and what the files store, without
a request. Rounds of another API host are `skipped`; a checkpoint without `api_host` (written
before section 18) counts as this host's, with a warning. A checkpoint that cannot be read (or
stores another round than its name says) is an error of that round, keyed by its file name's
OWNER-REPO where that splits one way only, else by the file name itself.

`unfollow` removes one round's checkpoint, updates and hints files under the round's lock, then
marks its key `unfollowed` in every kept inbox snapshot under the inbox lock, so an inbox
confirm never recreates it. No request either way.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ..base import interrupt
from ..base.errors import BundleError, StateError
from ..net import config
from .inbox_file import InboxFile
from .refs import ISSUE, PULL, RoundRef, sort_key
from .state import (
    StatePaths,
    StateStore,
    check_owner,
    locate,
    read_json,
    round_paths,
    round_stem,
    state_folder,
    stored_api_host,
    validate_issue_number,
)

# owner-repo-N.json (an issue round) or owner-repo-N-pr.json (a pull-request round)
CHECKPOINT_NAME_RE = re.compile(r"(?P<stem>[a-z0-9._-]+?)-(?P<number>[0-9]{1,20})"
                                r"(?P<pr>-pr)?\.json")


@dataclass
class FollowedRound:
    """One followed round: its checkpoint as stored, or why it cannot be read (`error`)."""

    key: str
    path: str
    ref: Optional[RoundRef] = None
    checkpoint: Optional[Dict[str, Any]] = None
    error: Optional[BundleError] = None


@dataclass
class Followed:
    """This host's rounds (`rounds`, in round order; unreadable ones included with their
    `error`), the other hosts' (`skipped`), and the warnings the listing gave."""

    folder: str
    api_host: str
    rounds: List[FollowedRound] = field(default_factory=list)
    skipped: List[Dict[str, Any]] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)


def identity_of(ref: RoundRef) -> str:
    """The identity field a round's files store: `issue` or `pull_request`."""
    return "pull_request" if ref.kind == PULL else "issue"


def store_for(ref: RoundRef, paths: StatePaths, api_host: Optional[str],
              spelling_for: Any = None) -> StateStore:
    """The round's state store; `spelling_for(pull)` (round/layouts.spelling_for, handed down
    by the caller) checks its checkpoint where no round is built."""
    store = StateStore(paths, ref.repository, ref.number, identity=identity_of(ref),
                       api_host=api_host)
    if spelling_for is not None:
        store.spelling = spelling_for(ref.kind == PULL)
    return store


def key_from_file_name(name: str) -> Tuple[str, Optional[RoundRef]]:
    """The key a checkpoint's file name gives: OWNER-REPO split where only one split is a
    valid owner and repository, else the file name itself (then no RoundRef)."""
    m = CHECKPOINT_NAME_RE.fullmatch(name)
    if not m:
        return name, None
    try:
        number = validate_issue_number(m.group("number"), "number")
    except BundleError:
        return name, None
    stem, kind = m.group("stem"), PULL if m.group("pr") else ISSUE
    splits = []
    for at in [i for i, ch in enumerate(stem) if ch == "-"]:
        owner, repo = stem[:at], stem[at + 1:]
        try:
            config.validate_owner(owner)
            config.validate_repo_name(repo)
        except BundleError:
            continue
        splits.append((owner, repo))
    if len(splits) != 1:
        return name, None
    ref = RoundRef(kind, splits[0][0], splits[0][1], number, form="key")
    return ref.key, ref


def _ref_of(doc: Dict[str, Any], pr: bool) -> Optional[RoundRef]:
    """The round a checkpoint says it belongs to (None when it says nothing usable)."""
    repo, number = doc.get("repository"), doc.get("pull_request" if pr else "issue")
    if not isinstance(repo, str) or repo.count("/") != 1 or not isinstance(number, int) \
            or isinstance(number, bool):
        return None
    owner, name = repo.split("/")
    try:
        config.validate_owner(owner)
        config.validate_repo_name(name)
        validate_issue_number(number, "number")
    except BundleError:
        return None
    return RoundRef(PULL if pr else ISSUE, owner, name, number, form="key")


def followed_rounds(root: Optional[str], run_id: Optional[str], retained: Optional[str],
                    api_host: str, spelling_for: Any,
                    env: Optional[Dict[str, str]] = None) -> Followed:
    """Every round with a checkpoint in the work folder, by host; no request. Each checkpoint
    is checked as its round reads it (`spelling_for(pull)`: round/layouts.spelling_for)."""
    root, folder = state_folder(root, run_id, retained, env)
    found = Followed(folder=folder, api_host=api_host)
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return found
    if not stat.S_ISDIR(st.st_mode):
        raise StateError(f"refusing to use {folder}: not a plain folder (a symlink or a file "
                         "stands there)")
    check_owner(folder, st)
    legacy = []
    for name in sorted(os.listdir(folder)):
        if name.startswith(".") or not CHECKPOINT_NAME_RE.fullmatch(name):
            continue  # lock and temp files, updates, hints, the inbox file, anything else
        path = os.path.join(folder, name)
        entry = _read_round(root, folder, name, path, api_host, spelling_for)
        if entry is None:
            continue
        if isinstance(entry, dict):
            found.skipped.append(entry)
            continue
        if entry.checkpoint is not None and "api_host" not in entry.checkpoint:
            legacy.append(entry.key)
        found.rounds.append(entry)
    found.rounds.sort(key=lambda r: (0, sort_key(r.ref), "") if r.ref is not None
                      else (1, ("", "", "", 0), r.key))
    found.skipped.sort(key=lambda s: s["key"])
    if legacy:
        found.warnings.append(
            f"{len(legacy)} checkpoint(s) store no api_host (written before it was stored: "
            f"{', '.join(legacy[:5])}{' …' if len(legacy) > 5 else ''}); taken as {api_host}'s "
            "— the next write stores it")
    return found


def _read_round(root: str, folder: str, name: str, path: str, api_host: str,
                spelling_for: Any) -> Any:
    """A FollowedRound of this host, a `skipped` entry of another, or None (not a round)."""
    key, named = key_from_file_name(name)
    pr = name.endswith("-pr.json")
    try:
        doc = read_json(path, "checkpoint file")
    except BundleError as exc:
        return FollowedRound(key, path, named, error=exc)
    if doc is None:
        return None  # removed since the listing
    ref = _ref_of(doc, pr)
    suffix = "-pr" if pr else ""
    if ref is None or round_stem(ref.owner, ref.repo, ref.number, suffix) + ".json" != name:
        return FollowedRound(key, path, named, error=StateError(
            f"checkpoint file {path} is corrupt or stores another round than its name says; "
            "left as it is"))
    try:
        host = stored_api_host(doc, path, "checkpoint file")
    except BundleError as exc:
        return FollowedRound(ref.key, path, ref, error=exc)
    if host is not None and host != api_host.lower():
        return {"key": ref.key, "api_host": host, "checkpoint_file": path}
    paths = round_paths(root, folder, round_stem(ref.owner, ref.repo, ref.number, suffix))
    try:
        checked = store_for(ref, paths, api_host, spelling_for).read_checkpoint()
    except BundleError as exc:
        return FollowedRound(ref.key, path, ref, error=exc)
    return FollowedRound(ref.key, path, ref, checkpoint=checked)


def followed_document(found: Followed, spelling_for: Any) -> Dict[str, Any]:
    """`get_latest_comments.py --followed` alone: the followed rounds, no request (each
    checkpoint as its layout lists it: `spelling_for(pull).listed`)."""
    rounds, errors = [], []
    for r in found.rounds:
        if r.error is not None:
            errors.append({"key": r.key, "error": r.error.to_json()["error"]})
        elif r.ref is not None and r.checkpoint is not None:
            rounds.append({"key": r.key, "checkpoint": spelling_for(
                r.ref.kind == PULL).listed(r.checkpoint),
                           "saved_at": r.checkpoint.get("saved_at"),
                           "checkpoint_file": r.path})
    return {"api_host": found.api_host, "folder": found.folder,
            "followed": len(found.rounds), "rounds": rounds, "errors": errors,
            "skipped": found.skipped, "requests": 0, "warnings": found.warnings}


def unfollow(ref: RoundRef, root: Optional[str], run_id: Optional[str],
             retained: Optional[str], api_host: str, spelling_for: Any,
             env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Remove one round's checkpoint, updates and hints files (under its lock; each checked to
    be that round's first: another round's or a corrupt file is exit 7, nothing removed), then
    mark its key unfollowed in the kept inbox snapshots (under the inbox lock). No request."""
    paths = locate(root, run_id, retained, ref.owner, ref.repo, ref.number, env,
                   suffix="-pr" if ref.kind == PULL else "")
    store = store_for(ref, paths, api_host, spelling_for)
    warnings = list(ref.warnings)
    removed: List[str] = []
    checkpoint, marked = None, 0
    if os.path.lexists(paths.folder):
        with store.locked():  # the round's lock, then the inbox's (CONTRACT section 18)
            stored = store.read_checkpoint()  # each file checked before anything changes
            store.read_updates()
            targets = [paths.checkpoint, paths.updates] + (
                [paths.hints] if _hints_are_ours(store) else [])
            checkpoint = store.spelling.listed(stored) if stored is not None else None
            marked = mark_unfollowed(paths.root, paths.folder, ref.key)
            for path in targets:
                if os.path.lexists(path):
                    interrupt.hold()  # the first removal is the commit point
                    os.unlink(path)
                    removed.append(path)
            if removed:
                _fsync_folder(paths.folder)
    if not removed:
        warnings.append(f"no files of {ref.key} in {paths.folder}: nothing was removed (it "
                        "was not followed here; see get_latest_comments.py --followed)")
    return {"unfollowed": ref.key, "repository": ref.repository, identity_of(ref): ref.number,
            "removed": removed, "checkpoint": checkpoint, "inbox_snapshots_marked": marked,
            "requests": 0, "warnings": warnings}


def _hints_are_ours(store: StateStore) -> bool:
    """The hints file is a cache: removed when it is this round's or unreadable, left when it
    plainly belongs to another round (colliding OWNER-REPO names)."""
    try:
        doc = read_json(store.paths.hints, "hints file")
    except BundleError:
        return True
    if doc is None:
        return False
    repo, number = doc.get("repository"), doc.get(store.identity)
    return not (isinstance(repo, str) and (repo.lower() != store.repository.lower()
                                           or number != store.issue))


def _fsync_folder(folder: str) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def mark_unfollowed(root: str, folder: str, key: str) -> int:
    """Mark `key` unfollowed in every kept inbox snapshot, under the inbox lock (the caller
    holds the round's); the number of entries marked."""
    inbox = InboxFile(root, folder)
    if not os.path.lexists(inbox.path):
        return 0
    with inbox.locked():
        return inbox.mark_unfollowed(key)
