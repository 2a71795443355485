"""manage_issue_comment.py: the bundle's only writer to GitHub (CONTRACT section 8).

It creates or updates one issue comment and returns its id, url and times, with a `handoff`
object another agent can use to read exactly that comment. A POST or PATCH is never retried:
a retry could post twice. `--dry-run` sends nothing at all.
"""

from __future__ import annotations

import re
import shlex
import sys
from typing import Any, Dict, Optional

from .config import GITHUB_API
from .errors import NetworkError, ServerError, UsageError
from .tokens import contains_token
from .transport import STANDARD_HEADERS

MAX_BODY_CHARS = 65536


def read_body(source: str) -> str:
    """The body exactly as read from FILE or `-` (stdin): UTF-8, no NUL, not empty."""
    try:
        if source == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(source, "rb") as fh:
                raw = fh.read()
    except OSError as exc:
        raise UsageError(f"cannot read --body-file {source!r}: {exc.strerror}")
    try:
        body = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"--body-file is not valid UTF-8 (byte {exc.start})")
    if "\x00" in body:
        raise UsageError("--body-file holds a NUL character; GitHub cannot store it")
    if not body.strip():
        raise UsageError("--body-file is empty")
    if contains_token(body):  # every known token, in any printable form (CONTRACT section 17)
        raise UsageError("--body-file contains the token in use (or another token of this "
                         "environment); nothing was sent")
    if len(body) > MAX_BODY_CHARS:
        raise UsageError(f"the body has {len(body)} characters; GitHub takes at most "
                         f"{MAX_BODY_CHARS}")
    return body


def fetch_command(repository: str, number: int, comment_id: int, api_url: str) -> str:
    """The read that returns exactly this comment, relative to the bundle root."""
    cmd = ["python3", "scripts/get_latest_comments.py", "--repo", repository, "--issue",
           str(number), "--comment-id", str(comment_id)]
    if api_url.rstrip("/") != GITHUB_API:
        cmd += ["--api-url", api_url]
    return " ".join(shlex.quote(part) for part in cmd)


def _issue_number(comment: Dict[str, Any]) -> Optional[int]:
    m = re.search(r"/issues/(\d+)$", str(comment.get("issue_url") or ""))
    return int(m.group(1)) if m else None


def manage(ctx: Any, action: str, issue: Optional[int], comment_id: Optional[int],
           body: str, dry_run: bool) -> Dict[str, Any]:
    target = ctx.target
    repository = target.full_name
    if action == "create":
        method, path = "POST", f"repos/{target.owner}/{target.name}/issues/{issue}/comments"
    else:
        method, path = "PATCH", f"repos/{target.owner}/{target.name}/issues/comments/{comment_id}"
    if dry_run:
        return {"dry_run": True, "message": f"Would {action} a comment; nothing was sent",
                "request": {"method": method, "url": f"{target.api_url}/{path}",
                            "headers": dict(STANDARD_HEADERS, Authorization="(token, not shown)"),
                            "json": {"body": body}},
                "body_chars": len(body), "author": None}
    client = ctx.client(require_auth=True)
    what = (f"create a comment on {repository}#{issue}" if action == "create"
            else f"update comment {comment_id} in {repository}")
    try:
        resp = client.request(method, path, json_body={"body": body}, what=what)
    except NetworkError as exc:
        if action == "create" and issue is not None:
            exc.message += ("; check with: " + " ".join(
                ["python3 scripts/get_latest_comments.py", "--repo", repository, "--issue",
                 str(issue), "--last-n", "1"]
                + (["--api-url", target.api_url] if target.api_url != GITHUB_API else [])))
        raise
    comment = client.json_of(resp, what)
    if not isinstance(comment, dict) or not isinstance(comment.get("id"), int):
        raise ServerError(f"{what}: the response holds no comment id")
    number = _issue_number(comment) or issue
    cid = comment["id"]
    verb = "created" if action == "create" else "updated"
    return {
        "message": f"Successfully {verb} comment on #{number}",
        "commentId": str(cid),
        "author": (comment.get("user") or {}).get("login"),  # whom to ignore while waiting
        "url": comment.get("html_url"),
        "createdAt": comment.get("created_at"),
        "updatedAt": comment.get("updated_at"),
        "handoff": {"repository": repository, "number": number, "commentId": str(cid),
                    "fetch": fetch_command(repository, int(number or 0), cid,
                                           target.api_url)},
        "requests": client.requests,
    }
