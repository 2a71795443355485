"""Whose comments count (CONTRACT section 13): --trusted-only, --ignore-author, --humans-only.

A left-out item is counted in `filtered_out` under the first reason that matches, in the order
trusted_only, ignore_author, humans_only, and never returned; cursors still move past it.
`@me` is the token's own login: asked once with `GET /user` and cached in the state folder as
`.whoami-HOST.json` (keyed by host and a SHA-256 of the token, never the token), asked again
when either changes.
"""

from __future__ import annotations

import datetime as _dt
import os
import re

from ..base.errors import AuthError, ServerError, StateError, UsageError
from ..store import state
from ..text.normalize import is_trusted

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, Iterable, List, Optional

REASONS = ("trusted_only", "ignore_author", "humans_only")
ME = "@me"
LOGIN_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?", re.IGNORECASE)


def parse_ignore(values: Optional[Iterable[str]]) -> List[str]:
    """--ignore-author values, checked before any request (`@me` is resolved later)."""
    out: List[str] = []
    for value in values or ():
        text = (value or "").strip()
        if text.lower() == ME:
            out.append(ME)
        elif LOGIN_RE.fullmatch(text):
            out.append(text.lower())
        else:
            raise UsageError(f"invalid --ignore-author {value!r}: a GitHub login, "
                             "name[bot] for a bot, or @me")
    return out


class AuthorFilter:
    """Decides, for one item's author, whether it is returned or why it is left out."""

    def __init__(self, trusted_only: bool = False, humans_only: bool = False,
                 ignore: Optional[List[str]] = None) -> None:
        self.trusted_only = trusted_only
        self.humans_only = humans_only
        self.ignore = [i for i in (ignore or []) if i != ME]
        self.wants_me = ME in (ignore or [])

    @property
    def active(self) -> bool:
        return self.trusted_only or self.humans_only or bool(self.ignore) or self.wants_me

    def resolve_me(self, login: Optional[str]) -> None:
        if self.wants_me and login:
            self.ignore.append(login.lower())
        self.wants_me = False

    def _ignored(self, login: Optional[str]) -> bool:
        name = (login or "").lower()
        for entry in self.ignore:
            if entry.endswith("[bot]"):
                if name == entry:
                    return True
            elif name in (entry, f"{entry}[bot]"):
                return True
        return False

    def reason(self, item: Dict[str, Any]) -> Optional[str]:
        """Why a normalised item (section 4 or 12 shape) is left out, or None to keep it."""
        if self.trusted_only and not is_trusted(item.get("author_association")):
            return "trusted_only"
        if self._ignored(item.get("author")):
            return "ignore_author"
        if self.humans_only and item.get("author_type") == "Bot":
            return "humans_only"
        return None

    def event_reason(self, item: Dict[str, Any], ending: bool = False) -> Optional[str]:
        """Why an event or a push (its actor's or commit author's fields) is left out, or None
        (section 21): --trusted-only does not apply (no association); the end of a
        conversation (`ending`) passes --humans-only, only --ignore-author leaves it out."""
        if self._ignored(item.get("author")):
            return "ignore_author"
        if self.humans_only and not ending and item.get("author_type") == "Bot":
            return "humans_only"
        return None


def add_counts(total: Dict[str, int], more: Dict[str, int]) -> Dict[str, int]:
    for key, value in more.items():
        total[key] = total.get(key, 0) + value
    return total


# --------------------------------------------------------------------------- @me


def _host_key(api_url: str) -> str:
    from urllib.parse import urlsplit

    netloc = urlsplit(api_url).netloc.lower() or "github"
    return re.sub(r"[^a-z0-9._-]", "-", netloc)


def whoami(client: Any, folder: str, root: str, api_url: str,
           warn: Optional[Callable[[str], None]] = None) -> str:
    """The token's login: from `.whoami-HOST.json` when host and token match, else
    `GET /user` (one request) and the cache rewritten."""
    fingerprint = getattr(client.transport, "fingerprint", None)
    if not fingerprint:
        raise AuthError("--ignore-author @me needs a token (it asks GitHub whose it is)")
    host = _host_key(api_url)
    paths = state.StatePaths(root=root, folder=folder,
                             checkpoint=os.path.join(folder, f".whoami-{host}.json"),
                             updates=os.path.join(folder, f".whoami-{host}.json"),
                             lock=os.path.join(folder, f".whoami-{host}.lock"))
    cached = _read_cache(paths.checkpoint)
    if (cached and cached.get("host") == host and cached.get("token_sha256") == fingerprint
            and isinstance(cached.get("login"), str) and cached["login"]):
        return cached["login"]
    login = _ask(client)
    try:
        with state.file_lock(paths, f"the whoami cache of {host}"):
            state.write_json(paths.checkpoint, {
                "schema_version": 1, "host": host, "token_sha256": fingerprint,
                "login": login,
                "saved_at": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
                .isoformat().replace("+00:00", "Z")})
    except (OSError, StateError) as exc:  # a cache: asked again next time, never fatal
        if warn is not None:
            warn(f"the @me cache was not written ({getattr(exc, 'message', None) or exc}); "
                 "the next run asks GitHub again (one request)")
    return login


def _read_cache(path: str) -> Optional[Dict[str, Any]]:
    try:
        return state.read_json(path, "whoami cache")
    except Exception:  # noqa: BLE001  (a broken cache is only a cache: ask again)
        return None


def _ask(client: Any) -> str:
    try:
        data, _ = client.get_json("user", what="the token's own user (for @me)")
    except AuthError as exc:
        if exc.status == 403 and "not accessible by integration" in exc.message.lower():
            raise UsageError("--ignore-author @me: this token cannot say whose it is (GitHub "
                             "answered 'Resource not accessible by integration', as for "
                             "GitHub Actions' GITHUB_TOKEN or an App's installation token); "
                             "name the login instead, e.g. --ignore-author "
                             "github-actions[bot] in GitHub Actions", status=403)
        raise
    login = data.get("login") if isinstance(data, dict) else None
    if not isinstance(login, str) or not login:
        raise ServerError("GET /user: no login in the answer")
    return login
