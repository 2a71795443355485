"""Review feedback, written (CONTRACT section 15): a reply in a review thread, an inline
comment edited, one submitted review, a thread resolved or unresolved.

A reply is posted to its thread's first comment after one read of the comment given (which
also proves it is on that pull request); a review is one request, never a pending one left
behind; resolution is one GraphQL mutation, sent once, its answer's fields type-checked. Each
goes through outgoing.py: the same token check of what goes out, the dry run, the one write
request. The command and its flags: writer.py.
"""

from __future__ import annotations

import re

from .base.errors import (
    AuthError,
    BundleError,
    NetworkError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    UsageError,
)
from .net import config
from .outgoing import (
    SAME_EDIT,
    client_for,
    command_line,
    dry_run_doc,
    id_str,
    look_first,
    wait_command,
    write_once,
)
from .text.normalize import number_at_end

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional

EVENTS = ("APPROVE", "REQUEST_CHANGES", "COMMENT")
THREAD_ID = re.compile(r"PRRT_[A-Za-z0-9_-]{1,200}")

RESOLVE_MUTATION = """mutation($threadId: ID!) {
  %s(input: {threadId: $threadId}) {
    thread { id isResolved resolvedBy { login } path line pullRequest { number } }
  }
}"""


def _pr_number(raw: Dict[str, Any]) -> Optional[int]:
    return number_at_end(raw.get("pull_request_url"), "pulls", "pull_request_url")


def review_comment_fetch(repository: str, pr: int, comment_id: int, api_url: str) -> str:
    return command_line(["scripts/get_latest_comments.py", "--repo", repository, "--pr", str(pr),
                         "--review-comment-id", str(comment_id)], api_url)


def review_fetch(repository: str, pr: int, review_id: int, api_url: str) -> str:
    return command_line(["scripts/get_latest_comments.py", "--repo", repository, "--pr", str(pr),
                         "--review-id", str(review_id)], api_url)


def _author_check(repository: str, pr: int, api_url: str, thing: str = "reply") -> str:
    return look_first(command_line(["scripts/get_pr_comments.py", "--repo", repository, "--pr",
                                    str(pr), "--author", "LOGIN", "--format", "json"], api_url)
                      + " (LOGIN: your login)", thing)


def _inline_doc(raw: Any, what: str, repository: str, number: Optional[int],
                api_url: str, message: str) -> Dict[str, Any]:
    """A reply's (or an edited inline comment's) output, from GitHub's review comment."""
    if not isinstance(raw, dict) or id_str(raw.get("id")) is None:
        raise ServerError(f"{what}: the response holds no review comment id")
    pr = _pr_number(raw) or number or 0
    cid = raw["id"]
    return {
        "message": message.format(pr=pr),
        "commentId": str(cid),
        "url": raw.get("html_url"),
        "createdAt": raw.get("created_at"),
        "updatedAt": raw.get("updated_at"),
        "author": (raw.get("user") or {}).get("login"),
        "pullRequest": pr,
        "inReplyToId": id_str(raw.get("in_reply_to_id")),
        "path": raw.get("path"),
        "line": raw.get("line"),
        "threadId": None,  # REST does not name the thread; get_pr_comments.py does
        "handoff": {"repository": repository, "number": pr, "commentId": str(cid),
                    "fetch": review_comment_fetch(repository, pr, cid, api_url)},
    }


def reply(ctx: Any, pr: int, comment_id: int, body: str, dry_run: bool) -> Dict[str, Any]:
    """A reply in the thread of inline comment `comment_id`, posted to the thread's root."""
    target = ctx.target
    repository, base = target.full_name, f"repos/{target.owner}/{target.name}"
    read_path = f"{base}/pulls/comments/{comment_id}"
    path = f"{base}/pulls/{pr}/comments/{comment_id}/replies"
    if dry_run:
        return dry_run_doc(ctx, f"Would reply in the thread of review comment {comment_id} "
                           f"on #{pr}", "POST", f"{target.api_url}/{path}", {"body": body},
                           read_first={"method": "GET", "url": f"{target.api_url}/{read_path}",
                                       "why": "proves the comment is on this pull request and "
                                       "finds its thread's first comment, the id the reply "
                                       "goes to (replaces the id in the POST when it differs)"},
                           body_chars=len(body))
    client = client_for(ctx, {"body": body}, f"reply to review comment {comment_id}")
    what = f"review comment {comment_id} in {repository}"
    try:
        raw, _ = client.get_json(read_path, what=f"read {what}")
    except NotFoundError as err:
        raise NotFoundError(f"{what}: not found (or not visible to this token)",
                            status=err.status)
    if not isinstance(raw, dict) or id_str(raw.get("id")) is None:
        raise ServerError(f"read {what}: the response holds no review comment")
    owner_pr = _pr_number(raw)
    if owner_pr != pr:
        raise NotFoundError(f"{what} belongs to pull request #{owner_pr}, not #{pr}: "
                            f"use --pr {owner_pr}", status=404)
    root = raw.get("in_reply_to_id") if id_str(raw.get("in_reply_to_id")) else raw["id"]
    warnings: List[str] = []
    if root != raw["id"]:
        warnings.append(f"review comment {comment_id} is a reply: the reply goes to its "
                        f"thread's first comment, {root} (GitHub takes no reply to a reply)")
    posted = write_once(client, "POST", f"{base}/pulls/{pr}/comments/{root}/replies",
                        {"body": body}, f"reply in the thread of review comment {root} on "
                        f"{repository}#{pr}", _author_check(repository, pr, target.api_url))
    doc = _inline_doc(posted, f"reply to {root}", repository, pr, target.api_url,
                      f"Successfully replied in the thread of review comment {root} on #{{pr}}")
    doc["wait"] = wait_command(repository, target.api_url, pr=pr)
    doc["requests"] = client.requests
    doc["warnings"] = warnings
    return doc


def update_review_comment(ctx: Any, comment_id: int, body: str,
                          dry_run: bool) -> Dict[str, Any]:
    """Edit one's own inline comment (PATCH /pulls/comments/ID)."""
    target = ctx.target
    repository = target.full_name
    path = f"repos/{target.owner}/{target.name}/pulls/comments/{comment_id}"
    if dry_run:
        return dry_run_doc(ctx, f"Would update review comment {comment_id}", "PATCH",
                           f"{target.api_url}/{path}", {"body": body}, body_chars=len(body))
    client = client_for(ctx, {"body": body}, f"update review comment {comment_id}")
    what = f"update review comment {comment_id} in {repository}"
    raw = write_once(client, "PATCH", path, {"body": body}, what, SAME_EDIT)
    doc = _inline_doc(raw, what, repository, ctx.pr, target.api_url,
                      f"Successfully updated review comment {comment_id} on #{{pr}}")
    doc["requests"] = client.requests
    doc["warnings"] = []
    return doc


def review(ctx: Any, pr: int, event: str, body: Optional[str],
           comments: List[Dict[str, Any]], dry_run: bool) -> Dict[str, Any]:
    """One submitted review in one request (never a pending one left behind)."""
    target = ctx.target
    repository, base = target.full_name, f"repos/{target.owner}/{target.name}"
    if event == "REQUEST_CHANGES" and body is None:
        raise UsageError("--event REQUEST_CHANGES needs --body-file (GitHub asks for the "
                         "changes to be named)")
    if event == "COMMENT" and body is None and not comments:
        raise UsageError("--event COMMENT needs --body-file or --comments-file")
    payload: Dict[str, Any] = {"event": event}
    if body is not None:
        payload["body"] = body
    if comments:
        payload["comments"] = comments
    path = f"{base}/pulls/{pr}/reviews"
    if dry_run:
        return dry_run_doc(ctx, f"Would submit a review ({event}) on #{pr}", "POST",
                           f"{target.api_url}/{path}", payload, comment_count=len(comments))
    client = client_for(ctx, payload, f"submit a review ({event}) on #{pr}")
    what = f"submit a review ({event}) on {repository}#{pr}"
    raw = write_once(client, "POST", path, payload, what,
                     _author_check(repository, pr, target.api_url, "review"))
    if not isinstance(raw, dict) or id_str(raw.get("id")) is None:
        raise ServerError(f"{what}: the response holds no review id")
    rid = raw["id"]
    warnings: List[str] = []
    comment_ids: Optional[List[str]] = []
    if comments:  # the review exists now: a failed read of its comments is only a warning
        try:
            items, _, truncated = client.paginate(f"{path}/{rid}/comments",
                                                  {"per_page": 100}, max_pages=10,
                                                  what=f"comments of review {rid}")
            comment_ids = [str(c["id"]) for c in items
                           if isinstance(c, dict) and id_str(c.get("id"))]
            if truncated:
                warnings.append(f"only the first 1000 comment ids of review {rid} were read")
        except BundleError as err:
            comment_ids = None
            warnings.append(f"the review was submitted, but its comment ids could not be read "
                            f"({err.message}); read them with "
                            f"{review_fetch(repository, pr, rid, target.api_url)}")
    return {
        "message": f"Successfully submitted a review ({raw.get('state')}) on #{pr}",
        "reviewId": str(rid),
        "state": raw.get("state"),
        "url": raw.get("html_url"),
        "submittedAt": raw.get("submitted_at"),
        "author": (raw.get("user") or {}).get("login"),
        "commentIds": comment_ids,
        "handoff": {"repository": repository, "number": pr, "reviewId": str(rid),
                    "fetch": review_fetch(repository, pr, rid, target.api_url)},
        "wait": wait_command(repository, target.api_url, pr=pr),
        "requests": client.requests,
        "warnings": warnings,
    }


def graphql_url(client: Any, ctx: Any) -> str:
    # gh resolves the host itself: it takes the `graphql` endpoint on its own API base.
    if hasattr(client.transport, "api_base"):
        return f"{client.base}/graphql"
    return config.graphql_url_for(ctx.target.api_url, ctx.env)


def resolve(ctx: Any, action: str, thread_id: str, dry_run: bool) -> Dict[str, Any]:
    """resolveReviewThread / unresolveReviewThread: one mutation, sent once."""
    if not THREAD_ID.fullmatch(thread_id):
        raise UsageError(f"--thread-id {thread_id!r} is not a review thread's id: it starts "
                         "with PRRT_ (the `id` of a thread in get_pr_comments.py's output; a "
                         "comment's number or PRRC_ id is not a thread); nothing was sent")
    name = "resolveReviewThread" if action == "resolve" else "unresolveReviewThread"
    mutation = RESOLVE_MUTATION % name
    variables = {"threadId": thread_id}
    if dry_run:
        url = config.graphql_url_for(ctx.target.api_url, ctx.env)
        return dry_run_doc(ctx, f"Would {action} review thread {thread_id}", "POST", url,
                           {"query": mutation, "variables": variables})
    client = client_for(ctx, {"query": mutation, "variables": variables},
                        f"{action} review thread {thread_id}")
    what = f"{action} review thread {thread_id}"
    check = ("the mutation is idempotent: running the same command again is safe; or read the "
             "thread's state with " + command_line(["scripts/get_pr_comments.py", "--repo",
                                                     ctx.target.full_name, "--pr", "N",
                                                     "--include-resolved", "--format", "json"],
                                                    ctx.target.api_url))
    try:
        data, errors = client.mutate(graphql_url(client, ctx), mutation, variables, what)
    except (NetworkError, ServerError) as err:
        if getattr(err, "maybe_applied", False):
            err.message += f" — it may have been applied; {check}"
        raise
    if errors:
        raise _mutation_error(errors, what, check)
    thread = _thread_of(data, name)
    if thread is None:
        err = ServerError(f"{what}: malformed GraphQL answer (no thread, or a field of the "
                          f"wrong type); the mutation was sent — it may have been applied; "
                          f"{check}")
        raise err
    verb = "Resolved" if action == "resolve" else "Unresolved"
    return {
        "message": f"{verb} review thread {thread_id}",
        "threadId": thread["id"],
        "isResolved": thread["isResolved"],
        "resolvedBy": (thread.get("resolvedBy") or {}).get("login"),
        "requests": client.requests,
    }


def _thread_of(data: Any, name: str) -> Optional[Dict[str, Any]]:
    """The mutation's thread, every field of the output type-checked (CONTRACT sections 15
    and 17: ids are strings, isResolved a boolean, resolvedBy null or an actor); None when the
    answer is malformed."""
    payload = data.get(name) if isinstance(data, dict) else None
    thread = payload.get("thread") if isinstance(payload, dict) else None
    if not isinstance(thread, dict):
        return None
    if not isinstance(thread.get("id"), str) or not isinstance(thread.get("isResolved"), bool):
        return None
    actor = thread.get("resolvedBy")
    if actor is not None and not (isinstance(actor, dict)
                                  and isinstance(actor.get("login"), (str, type(None)))):
        return None
    return thread


def _mutation_error(errors: List[Any], what: str, check: str = "") -> BundleError:
    """GraphQL's HTTP-200 errors: NOT_FOUND exit 4, FORBIDDEN exit 3 with GitHub's message,
    RATE_LIMITED exit 5, anything else exit 6 (fields of the wrong type read as absent)."""
    from .text.normalize import escape_field

    first = next((e for e in errors if isinstance(e, dict)), None)
    odd = first is None  # no error object: a malformed answer, whatever it meant
    first = first or {}
    extensions = first.get("extensions")
    odd = odd or not isinstance(extensions, (dict, type(None)))
    odd = odd or not isinstance(first.get("type"), (str, type(None)))
    odd = odd or not isinstance(first.get("message"), (str, type(None)))
    code = extensions.get("code") if isinstance(extensions, dict) else None
    kind = first.get("type")
    kind = kind if isinstance(kind, str) and kind else code if isinstance(code, str) else None
    kind = escape_field(kind[:60]) if kind else "error"
    message = first.get("message")
    message = escape_field(" ".join(message.split())[:300]) if isinstance(message, str) else ""
    text = f"{what}: GraphQL {kind}" + (f": {message}" if message else "")
    if kind == "NOT_FOUND":
        return NotFoundError(text + " (a thread id of another repository, a deleted thread, "
                             "or one this token cannot see)")
    if kind == "FORBIDDEN":
        return AuthError(text + " (resolving needs write access to the repository: "
                         "docs/dependencies.md)")
    if kind == "RATE_LIMITED":
        return RateLimitedError(text, retry_after_seconds=60)
    if odd:  # the mutation was sent and the answer cannot be read: it may have been applied
        return ServerError(f"{text} (a malformed GraphQL answer: fields of the wrong type); "
                           f"the mutation was sent — it may have been applied; {check}")
    return ServerError(text)
