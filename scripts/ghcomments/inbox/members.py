"""The rounds of one inbox command (CONTRACT section 18): which rounds, each its own `Round`
over one shared client, and whose errors are whose.

`select` takes `--follow REF …` and `--followed` (their union, duplicates merged, ordered by
owner, repository, kind, number; at most 100) before any request. `start_members` builds each
round (section 5's or 12's, with its own files and lock) and its starting cursor: the
checkpoint, else the REF's `#issuecomment-ID`. `read_member` reads one round and sorts a failure:

- the round's own (its files untouched, the others read): not found, no access (403), a
  corrupt or foreign state file, a lock not had, a 5xx or a timeout after the retries;
- the host's (the command ends with section 10's error, no round's files changed): no token or
  a 401, a rate limit, a connection that cannot be made, the same 5xx or timeout on two rounds
  in a row, and any usage error.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ..base.errors import (
    AuthError,
    BundleError,
    NetworkError,
    NotFoundError,
    ServerError,
    StateError,
    UsageError,
)
from ..base.plain import plain
from ..net import config
from ..net.connect import Connection, build_client
from ..net.throttle import Throttle
from ..round.engine import ask_history
from ..round.layouts import Monitor, PullRequestRound, spelling_for
from ..round.reading import DEFAULT_LIMIT, DEFAULT_MAX_PAGES, Cursors, Reading
from ..store import refs
from ..store.following import followed_rounds, store_for
from ..store.state import StateLocation, locate, state_folder

MAX_ROUNDS = 100


@plain(frozen=True)
class InboxOptions:
    """An inbox command's options, built at the face: the rounds (`follow`: the REFs as given,
    `followed`), where their files live, how to connect, the read's bounds, and the inbox
    snapshot a confirm applies."""

    follow: tuple = ()
    followed: bool = False
    state: StateLocation = StateLocation()
    connection: Connection = Connection()
    limit: int = DEFAULT_LIMIT
    max_total: Optional[int] = None
    max_pages: int = DEFAULT_MAX_PAGES
    snapshot_id: Optional[str] = None


@dataclass
class Member:
    """One round of the inbox in this command."""

    ref: refs.RoundRef
    rnd: Any = None
    previous: Cursors = None         # where the read starts (the checkpoint, or the REF's id)
    hints: Any = None
    start_id: Optional[int] = None   # the REF's comment id, used as the starting cursor
    had_updates: bool = False        # its updates file stood there when the round started
    reading: Optional[Reading] = None
    step: Any = None                 # a read up to its edit history (finish_members)
    cursors: Cursors = None          # a wait's position (inbox_wait.py)
    poll_hints: Any = None
    advanced: bool = False           # the last poll moved the cursor (left-out items only)
    total_filtered: Dict[str, Any] = field(default_factory=dict)  # over a wait's polls
    filtered: Dict[str, Any] = field(default_factory=dict)
    requests: int = 0
    error: Optional[BundleError] = None
    doc: Optional[Dict[str, Any]] = None

    @property
    def key(self) -> str:
        return self.ref.key


@dataclass
class Selection:
    """The rounds of one command, and what the selection itself found."""

    api_url: str
    root: str
    folder: str
    members: List[Member] = field(default_factory=list)
    errors: List[Dict[str, Any]] = field(default_factory=list)   # unreadable followed rounds
    skipped: List[Dict[str, Any]] = field(default_factory=list)  # another host's
    warnings: List[str] = field(default_factory=list)
    client: Any = None


def error_json(err: BundleError) -> Dict[str, Any]:
    return err.to_json()["error"]


def select(opts: InboxOptions) -> Selection:
    """The rounds `--follow` and `--followed` name, checked before any request."""
    api_url = config.command_api_url(opts.connection.api_url, os.environ)
    where = opts.state
    root, folder = state_folder(where.root, where.run_id, where.retained)
    sel = Selection(api_url=api_url, root=root, folder=folder)
    by_key: Dict[str, refs.RoundRef] = {}
    for text in opts.follow:
        ref = refs.parse_ref(text, api_url)
        if ref.key not in by_key or (ref.start_comment_id and not by_key[ref.key].start_comment_id):
            by_key[ref.key] = ref
    if opts.followed:
        found = followed_rounds(where.root, where.run_id, where.retained,
                                refs.api_host_of(api_url), spelling_for)
        sel.skipped, sel.warnings = list(found.skipped), list(found.warnings)
        for r in found.rounds:
            if r.error is not None or r.ref is None:
                if r.key not in by_key:
                    sel.errors.append({"key": r.key, "error": error_json(
                        r.error or BundleError("unreadable round"))})
            elif r.ref.key not in by_key:
                by_key[r.ref.key] = r.ref
    if len(by_key) + len(sel.errors) > MAX_ROUNDS:
        raise UsageError(f"{len(by_key) + len(sel.errors)} rounds named: at most {MAX_ROUNDS} "
                         "per command (unfollow the ones no longer needed)")
    sel.members = [Member(ref) for ref in sorted(by_key.values(), key=refs.sort_key)]
    return sel


def start_members(sel: Selection, opts: InboxOptions, options: Any, wait: Any) -> List[Member]:
    """Each round built and started (its checkpoint read): no request yet. With a wait, every
    round needs a cursor (exit 2 naming the first that has none) and a token."""
    env = dict(os.environ)
    sel.client = build_client(opts.connection, sel.api_url, env)
    # at most 300 requests in any 60 s, one at a time (a wait's durations scale in tests)
    sel.client.transport = Throttle(sel.client.transport,
                                    scale=wait.scale if wait is not None else 1.0)
    host = refs.api_host_of(sel.api_url)
    where = opts.state
    for m in sel.members:
        ref = m.ref
        kind = PullRequestRound if ref.is_pull else Monitor
        try:
            paths = locate(where.root, where.run_id, where.retained, ref.owner, ref.repo,
                           ref.number, env, suffix="-pr" if ref.is_pull else "")
            m.rnd = kind(sel.client, ref.owner, ref.repo, ref.number,
                         store_for(ref, paths, host), options, opts.max_pages)
            m.rnd.warnings.extend(ref.warnings)
            m.previous, m.hints = m.rnd.start()
            m.had_updates = os.path.lexists(paths.updates)
            if ref.start_comment_id is not None:
                if m.previous is None:
                    m.start_id = ref.start_comment_id
                    m.previous, m.hints = m.rnd.start(ref.start_comment_id)
                    if not m.had_updates:
                        _read_start(m, sel.client)
                else:
                    m.rnd.warnings.append(
                        f"#issuecomment-{ref.start_comment_id} ignored: {ref.key} has a "
                        "checkpoint, and the round continues from it")
        except (UsageError, AuthError):
            raise
        except BundleError as exc:
            m.error = exc
    live = [m for m in sel.members if m.error is None]
    if wait is not None:
        for m in live:
            if m.previous is None:
                raise UsageError(f"--wait needs a cursor for every round: {m.key} has no "
                                 "checkpoint (check it and confirm it first, or follow it from "
                                 "a comment URL with #issuecomment-ID)")
        wait.require_auth(sel.client)
    if live:
        before = sel.client.requests
        live[0].rnd.resolve_me()  # the options are shared: GET /user once per command
        live[0].requests += sel.client.requests - before
    return live


def _read_start(m: Member, client: Any) -> None:
    """A followed `#issuecomment-ID` is read before the round is (CONTRACT section 22): an id
    GitHub does not know, or a comment of another issue, is exit 2 naming the REF (nothing
    followed); the comment's time becomes the cursor's. A 5xx is the round's (section 18)."""
    ref, cid = m.ref, m.ref.start_comment_id
    before = client.requests
    try:
        raw = m.rnd.primary.one_comment(cid)
    except NotFoundError as exc:
        raise UsageError(f"REF {ref.key}#issuecomment-{cid}: {exc.message}; nothing followed")
    finally:
        m.requests += client.requests - before
    kind = m.rnd.primary.kind
    conv = dict((m.previous or {}).get(kind) or {},
                last_comment_id=cid, last_comment_created_at=raw.get("created_at"))
    m.previous = dict(m.previous or {}, **{kind: conv})


def is_host_error(err: BundleError, last: Optional[BundleError]) -> bool:
    """Whether `err` (one round's) ends the command; `last`: the error of the round read just
    before, when it failed with a 5xx or a timeout."""
    if isinstance(err, (NotFoundError, StateError)):
        return False
    if isinstance(err, AuthError):
        return err.status != 403  # 403: no access to this one round; 401 or no token: all
    if isinstance(err, (ServerError, NetworkError)):
        if getattr(err, "kind", None) == "connect":
            return True  # DNS, refused, TLS: the host cannot be reached
        return last is not None and type(last) is type(err) and last.status == err.status
    return True  # a rate limit, a usage error, a missing dependency, a bug: the command's


def read_member(m: Member, limit: int, client: Any, last: Optional[BundleError],
                waiting: bool = False, deferred: bool = False) -> Optional[BundleError]:
    """Read one round (from its start, or `waiting`: from where its last poll left it; the
    thread hook waits for --max-total's cut); the error that stays with the round, for the
    next round's test of two in a row. `deferred`: read up to its edit history (`m.step`),
    which `finish_members` asks for every round at once."""
    before = client.requests
    cursors, hints = (m.cursors, m.poll_hints) if waiting else (m.previous, m.hints)
    try:
        step = m.rnd.read_begin(cursors, hints, limit)
        if deferred:
            m.step = step
            return None
        m.reading = m.rnd.read_finish(step, *ask_history(client, [step]), hook=False)
        m.filtered = dict(m.reading.filtered)
        return None
    except BundleError as err:
        if is_host_error(err, last):
            raise
        m.error = err
        return err if isinstance(err, (ServerError, NetworkError)) else None
    finally:
        m.requests += client.requests - before


def finish_members(members: List[Member], client: Any, ask: bool = True) -> List[Member]:
    """The rounds `read_member(deferred=True)` read, finished: the edit history of every
    round's candidates in one GraphQL query per 100 (section 19, turn 6), its requests counted
    in the first round that asked, then each round's reading. Not `ask` (a wait's end came
    first): the rounds without a candidate are finished, the others keep their last reading
    (their news comes at the next read, none half-way). The rounds finished."""
    begun = [m for m in members if m.error is None and m.step is not None]
    if not ask:
        for m in begun:
            if any(p.candidates for p in m.step.pending):
                m.step = None
        begun = [m for m in begun if m.step is not None]
    before = client.requests
    try:
        nodes, warnings = ask_history(client, [m.step for m in begun])
    finally:
        first = next((m for m in begun if any(p.candidates for p in m.step.pending)), None)
        if first is not None:
            first.requests += client.requests - before
    for m in begun:
        step, m.step = m.step, None
        m.reading = m.rnd.read_finish(step, nodes, warnings, hook=False)
        m.filtered = dict(m.reading.filtered)
    return begun
