"""What every write of manage_issue_comment.py sends and hands back (CONTRACT sections 8,
15 and 17).

The one check of what goes out, for the dry run and the real run alike (no token in any field
of the request, in any printable form); the dry run's document (what would be sent, nothing
sent); the one write request, sent once and never retried, whose unknown outcome names the read
that checks; and the commands a write hands back (the wait for the answer), relative to the
bundle root. The writes themselves: writer.py (an issue comment) and review_writes.py (review
feedback).
"""

from __future__ import annotations

import json
import shlex

from .base.errors import BundleError, NetworkError, ServerError, UsageError
from .net import config
from .net.config import GITHUB_API
from .net.transport import STANDARD_HEADERS
from .text.tokens import contains_token

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional

SAME_EDIT = "repeating the same update is safe (it sets the same body again)"


def command_line(parts: List[str], api_url: str) -> str:
    """A command relative to the bundle root; --api-url when the API is not github.com."""
    cmd = ["python3"] + parts
    if api_url.rstrip("/") != GITHUB_API:
        cmd += ["--api-url", api_url]
    return " ".join(shlex.quote(part) for part in cmd)


def wait_command(repository: str, api_url: str, *, issue: Optional[int] = None,
                 after: Optional[int] = None, pr: Optional[int] = None) -> str:
    """The wait for the answer (CONTRACT section 15): from one's own comment on an issue,
    from the checkpoint on a pull request."""
    if pr is not None:
        parts = ["scripts/check_issue_updates.py", "--repo", repository, "--pr", str(pr),
                 "--ignore-author", "@me", "--wait", "540"]
    else:
        parts = ["scripts/check_issue_updates.py", "--repo", repository, "--issue",
                 str(issue), "--after-comment-id", str(after), "--ignore-author", "@me",
                 "--humans-only", "--wait", "540"]
    return command_line(parts, api_url)


def look_first(command: str, thing: str = "comment") -> str:
    return f"the {thing} may exist: check with {command} before posting again"


def id_str(value: Any) -> Optional[str]:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _learn_tokens(ctx: Any) -> None:
    """Register the token of gh's login for the API's host (and GH_HOST), as a real run
    would: `gh auth token` makes no request. The environment's tokens are registered at
    start-up (cli.run)."""
    hosts = {config.host_for(ctx.target.api_url), (ctx.env.get("GH_HOST") or "").strip()}
    for host in sorted(h for h in hosts if h):
        try:
            config.gh_auth_token(host, ctx.env)  # registered before it is checked
        except BundleError:
            pass  # a token no header can carry: registered all the same, never printed


def check_outgoing(ctx: Any, json_body: Any, message: str) -> None:
    """The one body check of the dry run and the real run alike, before anything is sent or
    printed: no token the run could send — every token variable (registered at start-up) and
    gh's login for the API's host (and GH_HOST) — in any field of the request, in any
    printable form (CONTRACT section 17)."""
    _learn_tokens(ctx)
    if contains_token(json.dumps(json_body, ensure_ascii=False)):
        raise UsageError(f"{message}: the text to send contains the token in use (or another "
                         "token of this environment, or of gh's login); nothing was sent, "
                         "nothing printed")


def client_for(ctx: Any, json_body: Any, message: str) -> Any:
    """The real run's client, after the same body check as the dry run's."""
    check_outgoing(ctx, json_body, message)
    return ctx.client(require_auth=True)


def dry_run_doc(ctx: Any, message: str, method: str, url: str, json_body: Any,
                **extra: Any) -> Dict[str, Any]:
    """What would be sent, and nothing sent (no token needed). A request the real run would
    refuse for holding a token (in any field: a body, a comments-file entry) is refused here
    too, by the same check (CONTRACT section 17: `--dry-run` never prints a token)."""
    check_outgoing(ctx, json_body, message)
    doc: Dict[str, Any] = {"dry_run": True, "message": message + "; nothing was sent",
                           "request": {"method": method, "url": url,
                                       "headers": dict(STANDARD_HEADERS,
                                                       Authorization="(token, not shown)"),
                                       "json": json_body}}
    doc.update(extra)
    doc["author"] = None
    return doc


def write_once(client: Any, method: str, path: str, json_body: Any, what: str,
               check: str) -> Any:
    """The one write request; an unknown outcome says it may have been applied and names the
    read that checks (CONTRACT sections 11 and 15)."""
    try:
        result = client.write_json(method, path, json_body, what)
        if not isinstance(result, dict) or id_str(result.get("id")) is None:
            # GitHub answered 2xx: the write happened, but what it made cannot be named.
            err = ServerError(f"{what}: the response (HTTP 2xx) holds no id")
            err.maybe_applied = True  # type: ignore[attr-defined]
            raise err
        return result
    except (NetworkError, ServerError) as err:
        if getattr(err, "maybe_applied", False):
            err.message += f" — it may have been applied; {check}"
        raise
