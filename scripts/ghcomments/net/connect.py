"""The client one command talks to GitHub with: the transport its flags ask for (requests, or
gh api), the token found for its API, and the fallback to gh where requests is missing."""

from __future__ import annotations

import sys

from ..base.errors import AuthError
from ..base.plain import plain
from ..text import tokens
from ..text.output import stderr_line
from . import config
from .client import GitHubClient

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Mapping, Optional


@plain(frozen=True)
class Connection:
    """How a command connects (its connection flags): --api-url (None: env GITHUB_API_URL,
    else api.github.com), --transport auto|requests|gh, --timeout and --max-wait in seconds."""

    api_url: Optional[str] = None
    transport: str = "auto"
    timeout: float = 30.0
    max_wait: float = 10.0


def build_client(connection: Connection, api_url: str, env: Mapping[str, str],
                 require_auth: bool = False) -> GitHubClient:
    from .gh import GhTransport
    from .http_requests import RequestsTransport
    from .transport import token_fingerprint

    def warn(message: str) -> None:
        print(f"warning: {stderr_line(message)}", file=sys.stderr)

    transport: Any
    if connection.transport == "gh":
        hostname = env.get("GH_HOST") or config.host_for(api_url)
        config.check_env_tokens(env)  # gh may send any of them: none it could mangle
        # gh picks its token itself (GH_TOKEN included) for `gh api`: ask it the same way.
        gh_token = config.gh_auth_token(hostname, env, strip_env_tokens=False)
        if not gh_token:
            raise AuthError(f"--transport gh: gh is not installed or not logged in to "
                            f"{hostname} (`gh auth login --hostname {hostname}`)")
        transport = GhTransport(hostname, connection.timeout, env, token_fingerprint(gh_token),
                                token=gh_token)
    else:
        token, source = config.discover_token(api_url, env)  # registered for scrubbing there
        if token is None and require_auth:
            raise AuthError(f"no token for {config.host_for(api_url)}: set GH_TOKEN (or "
                            "GH_ENTERPRISE_TOKEN for another host) or run `gh auth login`")
        elif token is None:
            warn(f"no token found for {config.host_for(api_url)}: unauthenticated requests "
                 "(60 an hour, public repositories only)")
        fallback = (lambda: gh_fallback(api_url, connection.timeout, env, warn)) \
            if connection.transport == "auto" else None
        transport = RequestsTransport(token, connection.timeout, fallback=fallback)
    return GitHubClient(api_url, transport, max_wait=connection.max_wait, warn=warn)


def gh_fallback(api_url: str, timeout: float, env: Mapping[str, str],
                warn: Callable[[str], None]) -> Any:
    """--transport auto on a Python without requests: a gh logged in to the same API, with a
    warning; None (the `dependency` error) when there is none (CONTRACT section 16)."""
    from .gh import GhTransport
    from .transport import token_fingerprint

    hostname = env.get("GH_HOST") or config.host_for(api_url)
    gh = GhTransport(hostname, timeout, env)
    # gh api sends with gh's own token rules, as --transport gh: asked with the full environment
    if gh.gh:
        config.check_env_tokens(env)
    gh_token = config.gh_auth_token(hostname, env, strip_env_tokens=False) if gh.gh else None
    if not gh_token or gh.api_base() != api_url.rstrip("/"):
        return None
    tokens.register(gh_token)
    gh = GhTransport(hostname, timeout, env, token_fingerprint(gh_token), token=gh_token)
    warn(f"requests is not installed for {sys.executable}: sending the requests that need it "
         f"through the logged-in gh CLI ({hostname}) instead; install requests, or run the "
         "script with `uv run`, for the faster path")
    return gh
