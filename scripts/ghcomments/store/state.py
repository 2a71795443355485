"""The state store: where the checkpoint and updates files live, and how they are written.

Layout (CONTRACT section 3):
  <root>/.tmp/runs/<run-id>/gh-issue-comment-monitor/owner-repo-ISSUE.json          checkpoint
  <root>/.tmp/runs/<run-id>/gh-issue-comment-monitor/owner-repo-ISSUE-updates.json  updates
  <root>/.tmp/runs/<run-id>/gh-issue-comment-monitor/owner-repo-ISSUE-hints.json    poll hints
  <root>/.tmp/retained/<name>/gh-issue-comment-monitor/...                           long-lived

Every name is validated before a path is built from it; nothing is followed through a symlink;
writes are atomic (temp file in the same folder, flush, fsync, rename, fsync of the folder)
under an advisory flock on a hidden lock file beside the pair; a corrupt or mismatched file is
reported (exit 7) and left exactly as it is. The hints file is a cache (CONTRACT section 14):
one that cannot be used is ignored and replaced, never an error.

A write's rename is the commit point of the command (interrupt.py): signals are held from there.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
import time

from ..base import interrupt
from ..base.errors import StateError, UsageError, strict_loads
from ..base.plain import plain
from ..text.output import encode_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Iterator, Optional, Tuple

SCHEMA_VERSION = 1
SKILL_DIR = "gh-issue-comment-monitor"
# Both matched with fullmatch: `$` alone lets a trailing newline through (CONTRACT section 17).
NAME_RE = re.compile(r"[A-Za-z0-9._-]{1,64}")
# section 2's HOST: a host name or [IPv6], and a port
API_HOST_RE = re.compile(r"(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")
DIGITS_RE = re.compile(r"[0-9]{1,20}")  # ASCII digits only: int() also takes " 5", "5_0", "٣"
LOCK_WAIT_SECONDS = 5.0
# Tests only: seconds to pause between the steps of an atomic write (crash-safety tests kill
# the process during the pause).
PAUSE_ENV = "GH_MONITOR_TEST_WRITE_PAUSE"


def validate_name(value: str, flag: str) -> str:
    if not isinstance(value, str) or not NAME_RE.fullmatch(value) or value in (".", ".."):
        raise UsageError(f"invalid {flag} {value!r}: 1 to 64 of A-Z a-z 0-9 . _ - "
                         "(not '.' or '..')")
    return value


def parse_digits(value: Any) -> Optional[int]:
    """A whole number written in ASCII digits, else None."""
    text = str(value)
    return int(text) if DIGITS_RE.fullmatch(text) else None


def validate_issue_number(value: Any, flag: str = "--issue") -> int:
    number = parse_digits(value)
    if number is None or number < 1 or number > 2**31 - 1:
        raise UsageError(f"invalid {flag} {value!r}: a positive whole number")
    return number


def validate_comment_id(value: Any, flag: str) -> int:
    number = parse_digits(value)
    if number is None or number < 1 or number > 2**63 - 1:
        raise UsageError(f"invalid {flag} {value!r}: a comment id (a positive whole number)")
    return number


@plain(frozen=True)
class StateLocation:
    """Where a command's state lives (its state flags): --root (None: the current folder),
    --run-id (None: env GH_MONITOR_RUN_ID, else 'default') or --retained NAME. Raw as given:
    state_folder and locate validate them."""

    root: Optional[str] = None
    run_id: Optional[str] = None
    retained: Optional[str] = None


@plain
class StatePaths:
    root: str
    folder: str
    checkpoint: str
    updates: str
    lock: str
    hints: str = ""


def state_folder(root: Optional[str], run_id: Optional[str], retained: Optional[str],
                 env: Optional[Dict[str, str]] = None) -> Tuple[str, str]:
    """(root, folder) of a work folder (--root, --run-id or --retained), validated, not
    created: the folder every round's files of that work live in."""
    env = dict(os.environ if env is None else env)
    root = os.path.abspath(root or os.getcwd())
    if "\x00" in root:
        raise UsageError("invalid --root: contains NUL")
    if os.path.islink(root):
        raise UsageError(f"invalid --root {root!r}: a symbolic link (give the real folder)")
    if not os.path.isdir(root):
        raise UsageError(f"invalid --root {root!r}: not an existing folder")
    if retained is not None:
        if run_id is not None:
            raise UsageError("--retained and --run-id exclude each other")
        base = os.path.join(root, ".tmp", "retained", validate_name(retained, "--retained"))
    else:
        rid = run_id if run_id is not None else (env.get("GH_MONITOR_RUN_ID") or "default")
        base = os.path.join(root, ".tmp", "runs", validate_name(rid, "--run-id"))
    return root, os.path.join(base, SKILL_DIR)


def locate(root: Optional[str], run_id: Optional[str], retained: Optional[str], owner: str,
           repo: str, issue: int, env: Optional[Dict[str, str]] = None,
           suffix: str = "") -> StatePaths:
    """Build (but do not create) the paths; every input is validated first. `suffix` "-pr"
    names a pull request's round files (CONTRACT section 12)."""
    root, folder = state_folder(root, run_id, retained, env)
    return round_paths(root, folder, round_stem(owner, repo, issue, suffix))


def round_paths(root: str, folder: str, stem: str) -> StatePaths:
    """The files of the round named `stem` (round_stem) in a work folder."""
    return StatePaths(root=root, folder=folder,
                      checkpoint=os.path.join(folder, f"{stem}.json"),
                      updates=os.path.join(folder, f"{stem}-updates.json"),
                      lock=os.path.join(folder, f".{stem}.lock"),
                      hints=os.path.join(folder, f"{stem}-hints.json"))


def round_stem(owner: str, repo: str, number: int, suffix: str = "") -> str:
    """A round's file stem: owner-repo-N (an issue) or owner-repo-N-pr, lowercased."""
    return f"{owner.lower()}-{repo.lower()}-{int(number)}{suffix}"


def check_owner(path: str, st: os.stat_result) -> None:
    """Refuse a state folder or file another user owns or may write (CONTRACT section 17):
    in a shared work root, a planted checkpoint could otherwise hide every comment."""
    if st.st_uid != os.geteuid():
        raise StateError(f"refusing to use {path}: it belongs to another user (uid "
                         f"{st.st_uid}), so its content cannot be trusted; move it away or "
                         "use another --root")
    if st.st_mode & stat.S_IWOTH:
        raise StateError(f"refusing to use {path}: other users may write to it "
                         "(chmod o-w it, or use another --root)")
    if st.st_mode & stat.S_IWGRP and not _private_group(st.st_gid):
        raise StateError(f"refusing to use {path}: the members of its group (gid {st.st_gid}) "
                         "may write to it, and one could plant files there (chmod g-w it, or "
                         "use another --root)")


def _private_group(gid: int) -> bool:
    """Whether `gid` is this user's own group (a user-private group, as Debian and Fedora
    give every user, under umask 002): named as the user, the user's primary group, and no
    other member. Group write on such a folder gives no one else anything (CONTRACT 22)."""
    import grp
    import pwd

    try:
        user = pwd.getpwuid(os.geteuid())
        group = grp.getgrgid(gid)
    except KeyError:
        return False
    return (gid == user.pw_gid and group.gr_name == user.pw_name
            and set(group.gr_mem) <= {user.pw_name})


def _check_folders_of(path: str) -> None:
    """check_owner on every existing folder from `<root>/.tmp` down to `path`'s own."""
    chain = []
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        chain.append(folder)
        if os.path.basename(folder) == ".tmp":
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            return  # not below a .tmp folder: not a state path
        folder = parent
    for folder in reversed(chain):
        try:
            check_owner(folder, os.lstat(folder))
        except FileNotFoundError:
            return


def _ensure_folder(paths: StatePaths) -> None:
    """Create the folders below root, refusing any symlink on the way; write .tmp/.gitignore."""
    rel = os.path.relpath(paths.folder, paths.root)
    current = paths.root
    for part in rel.split(os.sep):
        current = os.path.join(current, part)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            try:
                os.mkdir(current, 0o700)  # state is private: only this user reads it
            except FileExistsError:
                pass
            st = os.lstat(current)
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
            raise StateError(f"refusing to use {current}: not a plain folder (a symlink or "
                             "a file stands there)")
        check_owner(current, st)
        if part == ".tmp" and current == os.path.join(paths.root, ".tmp"):
            ignore = os.path.join(current, ".gitignore")
            if not os.path.lexists(ignore):
                _atomic_write_bytes(ignore, b"*\n")


def _pause(step: str) -> None:
    """Tests: SECONDS pauses at every step ("write", "rename", "renamed"); STEP:SECONDS at one."""
    spec = os.environ.get(PAUSE_ENV)
    if spec:
        name, _, value = spec.rpartition(":")
        if name and name != step:
            return
        seconds = pause_seconds(value)
        if seconds:
            time.sleep(seconds)


MAX_PAUSE = 60.0


def pause_seconds(value: str) -> float:
    """The pause a test asked for: a plain number of seconds from 0 to MAX_PAUSE; anything
    else (inf, nan, a negative or larger value, text) is ignored, so no value a user's
    environment holds turns a write into a hang or an error (CONTRACT section 20)."""
    if not re.fullmatch(r"[0-9]{1,3}(\.[0-9]{1,9})?", value.strip()):
        return 0.0
    seconds = float(value)
    return seconds if seconds <= MAX_PAUSE else 0.0


def _atomic_write_bytes(path: str, data: bytes, commit: bool = False) -> None:
    """Temp file, flush, fsync, rename, fsync of the folder; `commit`: the rename is the
    command's commit point (signals are held from it on)."""
    folder, base = os.path.split(path)
    tmp = os.path.join(folder, f".{base}.tmp-{os.getpid()}")
    fd = -1
    try:  # the open inside: a signal just after it created the file removes the file too
        try:
            fd = _create_temp(tmp)
            half = len(data) // 2
            os.write(fd, data[:half])
            _pause("write")
            os.write(fd, data[half:])
            os.fsync(fd)
        finally:
            if fd >= 0:
                os.close(fd)
        _pause("rename")
        if commit:
            interrupt.hold()  # from the rename on, a signal no longer interrupts
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    try:
        os.replace(tmp, path)
    except OSError as exc:  # a folder stands at the path: named, left as it is
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise StateError(f"cannot write {path}: {exc.strerror} (a folder or another thing "
                         "that is not a file stands there?); left as it is — move it away")
    if commit:
        _pause("renamed")
    dfd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def _create_temp(tmp: str) -> int:
    """A new regular file at `tmp`, mode 0600, never opened through what stands there: a
    leftover regular file of a killed run is removed and made anew; a FIFO, a link or a
    folder is exit 7 at once (O_EXCL never opens it, so a planted FIFO cannot block)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_NONBLOCK
    for _ in range(2):
        try:
            fd = os.open(tmp, flags, 0o600)
        except FileExistsError:
            st = os.lstat(tmp)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                raise StateError(f"refusing to write {tmp}: something that is not this user's "
                                 "file stands at the temporary name; move it away")
            os.unlink(tmp)  # our own leftover (a run killed before its rename)
            continue
        os.set_blocking(fd, True)
        return fd
    raise StateError(f"cannot create {tmp}: it came back while being replaced; move it away")


def _open_regular(path: str, label: str, flags: int, mode: int = 0o600) -> int:
    """A descriptor on the regular file at `path`, or exit 7 naming what stands there. The
    open never waits (O_NONBLOCK: a FIFO opens at once, then fails the check) and never
    follows a symbolic link; O_NONBLOCK is cleared before the descriptor is used."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK, mode)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise
        if exc.errno == errno.ELOOP:
            raise StateError(f"{label} {path} is a symbolic link; refusing to use it (left as "
                             "it is)")
        if exc.errno == errno.EISDIR:
            raise StateError(f"{label} {path} is a folder, not a file; left as it is — move "
                             "it away")
        raise StateError(f"cannot open {label} {path}: {exc.strerror}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise StateError(f"{label} {path} is not a regular file (a folder, FIFO or device "
                             "stands there); left as it is — move it away")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_json(path: str, label: str) -> Optional[Dict[str, Any]]:
    try:
        fd = _open_regular(path, label, os.O_RDONLY)
    except FileNotFoundError:
        return None
    st = os.fstat(fd)
    with os.fdopen(fd, "rb") as fh:
        check_owner(path, st)
        _check_folders_of(path)
        raw = fh.read()
    try:
        doc = strict_loads(raw.decode("utf-8"))  # NaN, Infinity, 21+ digits: corrupt (s. 22)
    except RecursionError:  # nested past Python's limit: corrupt all the same
        raise StateError(f"{label} {path} is corrupt (JSON nested too deeply); it was left as "
                         "it is — inspect or move it away yourself")
    except (ValueError, UnicodeDecodeError) as exc:
        raise StateError(f"{label} {path} is corrupt (not valid JSON: {exc}); it was left as "
                         "it is — inspect or move it away yourself")
    if not isinstance(doc, dict):
        raise StateError(f"{label} {path} is corrupt (not a JSON object); left as it is")
    return doc


@contextlib.contextmanager
def file_lock(paths: StatePaths, label: str, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """An advisory flock on `paths.lock` (the folders made first); exit 7 after `wait` s."""
    _ensure_folder(paths)
    fd = _open_regular(paths.lock, "lock file", os.O_RDWR | os.O_CREAT)
    try:
        check_owner(paths.lock, os.fstat(fd))
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    raise StateError(f"state for {label} is locked by another run "
                                     f"({paths.lock}); waited {wait:g} s")
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing releases the flock


def check_writable(path: str, label: str) -> None:
    """Exit 7 now, naming it, when what stands at `path` (or at its temporary name) is not a
    regular file of this user: a command that renames several files checks each before the
    first rename, so none stops half applied (CONTRACT section 22)."""
    folder, base = os.path.split(path)
    for where in (path, os.path.join(folder, f".{base}.tmp-{os.getpid()}")):
        try:
            st = os.lstat(where)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise StateError(f"refusing to write the {label} {where}: what stands there is not "
                             "this user's regular file (a folder, link, FIFO or another "
                             "user's); move it away")


def write_json(path: str, doc: Dict[str, Any], commit: bool = False) -> None:
    """Atomically replace `path` with `doc` (the caller holds the lock)."""
    _atomic_write_bytes(path, encode_json(doc, files=True), commit)


def stored_api_host(doc: Dict[str, Any], path: str, label: str) -> Optional[str]:
    """The `api_host` a state file stores (lowercased), None when it has none (a file written
    before section 18: it counts as this host's); exit 7 when it is not a host name."""
    host = doc.get("api_host")
    if host is None:
        return None
    if not isinstance(host, str) or not API_HOST_RE.fullmatch(host):
        raise StateError(f"{label} {path} is corrupt (api_host is not a host name); left as "
                         "it is")
    return host.lower()


class StateStore:
    """The checkpoint/updates pair of one issue, or of one pull request's rounds
    (`identity` "pull_request": files OWNER-REPO-N-pr…, CONTRACT section 12)."""

    def __init__(self, paths: StatePaths, repository: str, issue: int,
                 identity: str = "issue", api_host: Optional[str] = None) -> None:
        self.paths = paths
        self.repository = repository
        self.issue = issue
        self.identity = identity
        # Section 2's HOST of the API in use: stored in every file written, part of the
        # identity (CONTRACT section 18); a file without it counts as this host's.
        self.api_host = api_host
        # How the checkpoint's cursors are spelled and checked (round/layout.Spelling: the
        # round's kinds, or store/following.py's caller's); a store without one reads no
        # checkpoint
        self.spelling: Any = None
        self.moved: Any = None  # the hints file's `moved` (a moved repository or issue)
        self._locked = False

    # -- identity --------------------------------------------------------------------------
    def _check_identity(self, doc: Dict[str, Any], path: str, label: str) -> None:
        repo, issue = doc.get("repository"), doc.get(self.identity)
        if not isinstance(repo, str) or not isinstance(issue, int) or isinstance(issue, bool):
            raise StateError(f"{label} {path} is corrupt (no repository/{self.identity} "
                             "identity); left as it is")
        if repo.lower() != self.repository.lower() or issue != self.issue:
            raise StateError(f"{label} {path} belongs to {repo}#{issue}, not "
                             f"{self.repository}#{self.issue} (OWNER-REPO file names can "
                             "collide); it was not used or changed")
        host = stored_api_host(doc, path, label)
        if host is not None and self.api_host is not None and host != self.api_host.lower():
            raise StateError(f"{label} {path} belongs to {repo}#{issue} on the API host "
                             f"{host}, not on {self.api_host} (the host of this command's "
                             "API); it was not used or changed — use another --run-id or "
                             "--retained name for each host")

    def _stamped(self, doc: Dict[str, Any]) -> Dict[str, Any]:
        """`doc` with this store's `api_host` right after its identity."""
        if self.api_host is None:
            return doc
        out: Dict[str, Any] = {}
        for key, value in doc.items():
            if key != "api_host":
                out[key] = value
            if key == self.identity:
                out["api_host"] = self.api_host
        out.setdefault("api_host", self.api_host)
        return out

    def read_checkpoint(self) -> Optional[Dict[str, Any]]:
        doc = read_json(self.paths.checkpoint, "checkpoint file")
        if doc is None:
            return None
        self._check_identity(doc, self.paths.checkpoint, "checkpoint file")
        if self.spelling is None:
            raise RuntimeError("a state store reads a checkpoint only with its spelling")
        if (doc.get("schema_version") != SCHEMA_VERSION
                or not self.spelling.valid_stored(doc)):
            raise StateError(f"checkpoint file {self.paths.checkpoint} is corrupt (unexpected "
                             "schema_version or cursor); left as it is")
        return doc

    def read_updates(self) -> Optional[Dict[str, Any]]:
        doc = read_json(self.paths.updates, "updates file")
        if doc is None:
            return None
        self._check_identity(doc, self.paths.updates, "updates file")
        if not isinstance(doc.get("snapshot_id"), str) or not isinstance(
                doc.get("new_comments"), list):
            raise StateError(f"updates file {self.paths.updates} is corrupt (no snapshot_id or "
                             "new_comments); left as it is")
        return doc

    def read_hints(self) -> Tuple[Dict[str, Any], Optional[str]]:
        """The stored poll hints by stream ({kind: [hint, ...]}) and why none could be used
        (None when the file is fine or simply missing). A cache: never an error."""
        try:
            doc = read_json(self.paths.hints, "hints file")
        except StateError as exc:
            return {}, f"{exc.message}: ignored (it is a cache, rebuilt on the next write)"
        self.moved = None
        if doc is None:
            return {}, None
        hints, repo, host = doc.get("hints"), doc.get("repository"), doc.get("api_host")
        if (doc.get("schema_version") != SCHEMA_VERSION or not isinstance(hints, dict)
                or not isinstance(repo, str) or repo.lower() != self.repository.lower()
                or doc.get(self.identity) != self.issue
                or (host is not None and self.api_host is not None
                    and (not isinstance(host, str) or host.lower() != self.api_host.lower()))):
            return {}, (f"hints file {self.paths.hints} is of another shape or belongs to "
                        "another issue: ignored (a cache, rebuilt on the next write)")
        self.moved = doc.get("moved")  # checked by its reader (round/relocation.py)
        return {k: v for k, v in hints.items() if isinstance(v, list)}, None

    def write_hints(self, hints: Dict[str, Any]) -> None:
        doc = {"schema_version": SCHEMA_VERSION, "repository": self.repository,
               self.identity: self.issue, "hints": hints}
        if self.moved is not None:
            doc["moved"] = self.moved
        self._write(self.paths.hints, self._stamped(doc))

    # -- locking and writing ---------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self, wait: float = LOCK_WAIT_SECONDS) -> Iterator[StateStore]:
        with file_lock(self.paths, f"{self.repository}#{self.issue}", wait):
            self._locked = True
            try:
                self._clean_leftovers()
                yield self
            finally:
                self._locked = False

    def _clean_leftovers(self) -> None:
        """Remove temp files a killed writer left behind (only writers hold the lock)."""
        for path in (self.paths.checkpoint, self.paths.updates, self.paths.hints):
            folder, base = os.path.split(path)
            prefix = f".{base}.tmp-"
            for entry in os.listdir(folder):
                if entry.startswith(prefix):
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(folder, entry))

    def _write(self, path: str, doc: Dict[str, Any]) -> None:
        if not self._locked:
            raise RuntimeError("state written without the lock")
        write_json(path, doc, commit=True)

    def write_checkpoint(self, doc: Dict[str, Any]) -> None:
        self._write(self.paths.checkpoint, self._stamped(doc))

    def write_updates(self, doc: Dict[str, Any]) -> None:
        self._write(self.paths.updates, self._stamped(doc))
