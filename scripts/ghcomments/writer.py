"""manage_issue_comment.py: the bundle's only writer to GitHub (CONTRACT sections 8 and 15).

Each action makes one write and returns its id, url and times, a `handoff` another agent can
use to read exactly what was written, and (for a create, a reply or a review) `wait`, the
command that waits for the answer: an issue comment created or updated; a reply in a review
thread; an inline comment edited; one submitted review; a thread resolved or unresolved. A
write goes through the client's `send_once`: never retried (a retry could post twice), and an
unknown outcome names the read that checks. `--dry-run` sends nothing at all.
"""

from __future__ import annotations

import json
import re
import shlex
import sys

from .base.errors import (
    AuthError,
    BundleError,
    NetworkError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    UsageError,
)
from .base.plain import plain
from .net import config
from .net.config import GITHUB_API
from .net.connect import Connection
from .net.transport import STANDARD_HEADERS
from .store.context import Context, TargetOptions
from .text.normalize import number_at_end
from .text.tokens import contains_token

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional

MAX_BODY_CHARS = 65536
SAME_EDIT = "repeating the same update is safe (it sets the same body again)"


@plain(frozen=True)
class WriteOptions:
    """manage_issue_comment.py's options, built at the face: the target (--issue N in
    `target.number`, --pr N in `target.pr`), how to connect, and the write itself."""

    action: str
    target: TargetOptions = TargetOptions()
    connection: Connection = Connection()
    comment_id: Optional[int] = None
    review_comment_id: Optional[int] = None
    event: Optional[str] = None
    comments_file: Optional[str] = None
    thread_id: Optional[str] = None
    body_file: Optional[str] = None
    dry_run: bool = False


# Which flags each writer action takes (CONTRACT sections 8 and 15); any other is exit 2.
WRITER_FLAGS = {
    "create": {"number", "body_file"},
    "update": {"comment_id", "review_comment_id", "pr", "body_file"},
    "reply": {"pr", "review_comment_id", "body_file"},
    "review": {"pr", "event", "body_file", "comments_file"},
    "resolve": {"thread_id"},
    "unresolve": {"thread_id"},
}
WRITER_FLAG_NAMES = {"number": "--issue", "pr": "--pr", "comment_id": "--comment-id",
                     "review_comment_id": "--review-comment-id", "body_file": "--body-file",
                     "event": "--event", "comments_file": "--comments-file",
                     "thread_id": "--thread-id"}


def _flag(opts: WriteOptions, name: str) -> Any:
    return getattr(opts.target if name in ("number", "pr") else opts, name)


def check_flags(opts: WriteOptions) -> None:
    """Flag conflicts and missing flags, before any file is read or request sent."""
    action = opts.action
    given = {k for k in WRITER_FLAG_NAMES if _flag(opts, k) is not None}
    extra = sorted(WRITER_FLAG_NAMES[k] for k in given - WRITER_FLAGS[action])
    if extra:
        raise UsageError(f"--action {action} does not take {', '.join(extra)}")
    need = {"create": ["number", "body_file"], "reply": ["pr", "review_comment_id", "body_file"],
            "review": ["pr", "event"], "resolve": ["thread_id"], "unresolve": ["thread_id"],
            "update": ["body_file"]}[action]
    missing = [WRITER_FLAG_NAMES[k] for k in need if _flag(opts, k) is None]
    if missing:
        raise UsageError(f"--action {action} needs {' and '.join(missing)}")
    if action == "update" and (opts.comment_id is None) == (opts.review_comment_id is None):
        raise UsageError("--action update needs --comment-id ID (an issue or conversation "
                         "comment) or --review-comment-id ID (an inline comment), one of them")
    if action == "update" and opts.target.pr is not None and opts.review_comment_id is None:
        raise UsageError("--action update --comment-id takes no --pr")
    if action == "review" and opts.body_file is None:
        if opts.event == "REQUEST_CHANGES":
            raise UsageError("--event REQUEST_CHANGES needs --body-file (GitHub asks for the "
                             "changes to be named)")
        if opts.event == "COMMENT" and opts.comments_file is None:
            raise UsageError("--event COMMENT needs --body-file or --comments-file")


def command(opts: WriteOptions) -> Dict[str, Any]:
    """manage_issue_comment.py: the flags checked before the body is read (sections 8, 15),
    then the one write (or, with --dry-run, what it would send)."""
    check_flags(opts)
    ctx = Context(opts.target, opts.connection)
    action, dry_run = opts.action, opts.dry_run
    body = read_body(opts.body_file) if opts.body_file is not None else None
    if action in ("create", "update") and opts.review_comment_id is None:
        return manage(ctx, action, ctx.number, opts.comment_id, body or "", dry_run)
    if action == "update":
        return update_review_comment(ctx, opts.review_comment_id, body or "", dry_run)
    if action == "reply":
        return reply(ctx, ctx.pr, opts.review_comment_id, body or "", dry_run)
    if action == "review":
        comments = (read_comments_file(opts.comments_file)
                    if opts.comments_file is not None else [])
        return review(ctx, ctx.pr, opts.event, body, comments, dry_run)
    return resolve(ctx, action, opts.thread_id, dry_run)


# A body of MAX_BODY_CHARS code points is at most 4 bytes each in UTF-8: reading one code
# point more than that (BODY_READ_BYTES) is enough to tell a body that is too long, and no file
# (a 3 GiB sparse one, /dev/zero, an endless stdin) is ever held whole (CONTRACT section 17).
BODY_READ_BYTES = 4 * (MAX_BODY_CHARS + 1)
# A review's comments file: every entry a body of at most MAX_BODY_CHARS, read up to this.
COMMENTS_FILE_BYTES = 16 * 1024 * 1024


def read_bounded(source: str, limit: int, flag: str) -> bytes:
    """At most `limit` + 1 bytes of FILE or `-` (stdin): one byte more than allowed tells a
    source that is too large, without reading the rest."""
    try:
        if source == "-":
            stream = sys.stdin.buffer
            return _read_up_to(stream, limit + 1)
        with open(source, "rb") as fh:
            return _read_up_to(fh, limit + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {flag} {source!r}: {exc.strerror}")


def _read_up_to(stream: Any, size: int) -> bytes:
    parts = []
    left = size
    while left > 0:
        chunk = stream.read(min(left, 1024 * 1024))
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def read_body(source: str) -> str:
    """The body exactly as read from FILE or `-` (stdin): UTF-8, no NUL, not empty, at most
    MAX_BODY_CHARS code points (read no further than that allows)."""
    raw = read_bounded(source, BODY_READ_BYTES, "--body-file")
    if len(raw) > BODY_READ_BYTES:
        raise UsageError(f"the body has more than {MAX_BODY_CHARS} characters; GitHub takes "
                         f"at most {MAX_BODY_CHARS}")
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


def _command(parts: List[str], api_url: str) -> str:
    """A command relative to the bundle root; --api-url when the API is not github.com."""
    cmd = ["python3"] + parts
    if api_url.rstrip("/") != GITHUB_API:
        cmd += ["--api-url", api_url]
    return " ".join(shlex.quote(part) for part in cmd)


def fetch_command(repository: str, number: int, comment_id: int, api_url: str) -> str:
    """The read that returns exactly this comment, relative to the bundle root."""
    return _command(["scripts/get_latest_comments.py", "--repo", repository, "--issue",
                     str(number), "--comment-id", str(comment_id)], api_url)


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
    return _command(parts, api_url)


def _issue_number(comment: Dict[str, Any]) -> Optional[int]:
    return number_at_end(comment.get("issue_url"), "issues", "the comment's issue_url")


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


def _client(ctx: Any, json_body: Any, message: str) -> Any:
    """The real run's client, after the same body check as the dry run's."""
    check_outgoing(ctx, json_body, message)
    return ctx.client(require_auth=True)


def _dry_run(ctx: Any, message: str, method: str, url: str, json_body: Any,
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


def _write(client: Any, method: str, path: str, json_body: Any, what: str,
           check: str) -> Any:
    """The one write request; an unknown outcome says it may have been applied and names the
    read that checks (CONTRACT sections 11 and 15)."""
    try:
        result = client.write_json(method, path, json_body, what)
        if not isinstance(result, dict) or _id_str(result.get("id")) is None:
            # GitHub answered 2xx: the write happened, but what it made cannot be named.
            err = ServerError(f"{what}: the response (HTTP 2xx) holds no id")
            err.maybe_applied = True  # type: ignore[attr-defined]
            raise err
        return result
    except (NetworkError, ServerError) as err:
        if getattr(err, "maybe_applied", False):
            err.message += f" — it may have been applied; {check}"
        raise


def manage(ctx: Any, action: str, issue: Optional[int], comment_id: Optional[int],
           body: str, dry_run: bool) -> Dict[str, Any]:
    target = ctx.target
    repository = target.full_name
    if action == "create":
        method, path = "POST", f"repos/{target.owner}/{target.name}/issues/{issue}/comments"
    else:
        method, path = "PATCH", f"repos/{target.owner}/{target.name}/issues/comments/{comment_id}"
    if dry_run:
        return _dry_run(ctx, f"Would {action} a comment", method, f"{target.api_url}/{path}",
                        {"body": body}, body_chars=len(body))
    client = _client(ctx, {"body": body}, f"{action} a comment")
    what = (f"create a comment on {repository}#{issue}" if action == "create"
            else f"update comment {comment_id} in {repository}")
    check = (_look_first(_command(["scripts/get_latest_comments.py", "--repo", repository,
                                   "--issue", str(issue), "--last-n", "1"], target.api_url))
             if action == "create" else SAME_EDIT)
    comment = _write(client, method, path, {"body": body}, what, check)
    if not isinstance(comment, dict) or not isinstance(comment.get("id"), int):
        raise ServerError(f"{what}: the response holds no comment id")
    number = _issue_number(comment) or issue
    cid = comment["id"]
    verb = "created" if action == "create" else "updated"
    doc = {
        "message": f"Successfully {verb} comment on #{number}",
        "commentId": str(cid),
        "author": (comment.get("user") or {}).get("login"),  # whom to ignore while waiting
        "url": comment.get("html_url"),
        "createdAt": comment.get("created_at"),
        "updatedAt": comment.get("updated_at"),
        "handoff": {"repository": repository, "number": number, "commentId": str(cid),
                    "fetch": fetch_command(repository, int(number or 0), cid,
                                           target.api_url)},
    }
    if action == "create":
        doc["wait"] = wait_command(repository, target.api_url, issue=int(number or 0),
                                   after=cid)
    doc["requests"] = client.requests
    return doc


# --------------------------------------------------------------------------- review feedback
# CONTRACT section 15: replies in threads, reviews, thread resolution, inline-comment edits.

EVENTS = ("APPROVE", "REQUEST_CHANGES", "COMMENT")
SIDES = ("LEFT", "RIGHT")
ENTRY_KEYS = ("path", "line", "body", "side", "start_line", "start_side")
THREAD_ID = re.compile(r"PRRT_[A-Za-z0-9_-]{1,200}")

RESOLVE_MUTATION = """mutation($threadId: ID!) {
  %s(input: {threadId: $threadId}) {
    thread { id isResolved resolvedBy { login } path line pullRequest { number } }
  }
}"""


def _id_str(value: Any) -> Optional[str]:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _pr_number(raw: Dict[str, Any]) -> Optional[int]:
    return number_at_end(raw.get("pull_request_url"), "pulls", "pull_request_url")


def review_comment_fetch(repository: str, pr: int, comment_id: int, api_url: str) -> str:
    return _command(["scripts/get_latest_comments.py", "--repo", repository, "--pr", str(pr),
                     "--review-comment-id", str(comment_id)], api_url)


def review_fetch(repository: str, pr: int, review_id: int, api_url: str) -> str:
    return _command(["scripts/get_latest_comments.py", "--repo", repository, "--pr", str(pr),
                     "--review-id", str(review_id)], api_url)


def _look_first(command: str, thing: str = "comment") -> str:
    return f"the {thing} may exist: check with {command} before posting again"


def _author_check(repository: str, pr: int, api_url: str, thing: str = "reply") -> str:
    return _look_first(_command(["scripts/get_pr_comments.py", "--repo", repository, "--pr",
                                 str(pr), "--author", "LOGIN", "--format", "json"], api_url)
                       + " (LOGIN: your login)", thing)


def _inline_doc(raw: Any, what: str, repository: str, number: Optional[int],
                api_url: str, message: str) -> Dict[str, Any]:
    """A reply's (or an edited inline comment's) output, from GitHub's review comment."""
    if not isinstance(raw, dict) or _id_str(raw.get("id")) is None:
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
        "inReplyToId": _id_str(raw.get("in_reply_to_id")),
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
        return _dry_run(ctx, f"Would reply in the thread of review comment {comment_id} on #{pr}",
                        "POST", f"{target.api_url}/{path}", {"body": body},
                        read_first={"method": "GET", "url": f"{target.api_url}/{read_path}",
                                    "why": "proves the comment is on this pull request and "
                                    "finds its thread's first comment, the id the reply "
                                    "goes to (replaces the id in the POST when it differs)"},
                        body_chars=len(body))
    client = _client(ctx, {"body": body}, f"reply to review comment {comment_id}")
    what = f"review comment {comment_id} in {repository}"
    try:
        raw, _ = client.get_json(read_path, what=f"read {what}")
    except NotFoundError as err:
        raise NotFoundError(f"{what}: not found (or not visible to this token)",
                            status=err.status)
    if not isinstance(raw, dict) or _id_str(raw.get("id")) is None:
        raise ServerError(f"read {what}: the response holds no review comment")
    owner_pr = _pr_number(raw)
    if owner_pr != pr:
        raise NotFoundError(f"{what} belongs to pull request #{owner_pr}, not #{pr}: "
                            f"use --pr {owner_pr}", status=404)
    root = raw.get("in_reply_to_id") if _id_str(raw.get("in_reply_to_id")) else raw["id"]
    warnings: List[str] = []
    if root != raw["id"]:
        warnings.append(f"review comment {comment_id} is a reply: the reply goes to its "
                        f"thread's first comment, {root} (GitHub takes no reply to a reply)")
    posted = _write(client, "POST", f"{base}/pulls/{pr}/comments/{root}/replies",
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
        return _dry_run(ctx, f"Would update review comment {comment_id}", "PATCH",
                        f"{target.api_url}/{path}", {"body": body}, body_chars=len(body))
    client = _client(ctx, {"body": body}, f"update review comment {comment_id}")
    what = f"update review comment {comment_id} in {repository}"
    raw = _write(client, "PATCH", path, {"body": body}, what, SAME_EDIT)
    doc = _inline_doc(raw, what, repository, ctx.pr, target.api_url,
                      f"Successfully updated review comment {comment_id} on #{{pr}}")
    doc["requests"] = client.requests
    doc["warnings"] = []
    return doc


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 10**7


def _entry_problem(entry: Any) -> Optional[str]:
    if not isinstance(entry, dict):
        return "is not an object {path, line, body}"
    if "subject_type" in entry:
        return ("has subject_type: GitHub's review request takes no file-level comment; give "
                "a line of the diff, or post file-level feedback in the review body")
    unknown = [k for k in entry if k not in ENTRY_KEYS]
    if unknown:
        return (f"has {', '.join(map(repr, unknown))}: an entry takes path, line, body and "
                "optionally side, start_line, start_side")
    if not isinstance(entry.get("path"), str) or not entry["path"].strip():
        return "has no path"
    if "\x00" in entry["path"]:
        return "has a NUL character in its path; no file of a diff has one"
    if "line" not in entry or entry["line"] is None:
        return ("has no line: GitHub's review request takes no file-level comment; give the "
                "line of the diff it is about")
    if not _positive(entry["line"]):
        return f"has line {entry['line']!r}: a line number is a whole number from 1"
    body = entry.get("body")
    if not isinstance(body, str) or not body.strip():
        return "has no body"
    if "\x00" in body:
        return "has a NUL character in its body; GitHub cannot store it"
    if len(body) > MAX_BODY_CHARS:
        return f"has a body of {len(body)} characters; GitHub takes at most {MAX_BODY_CHARS}"
    for key in ("side", "start_side"):
        if key in entry and entry[key] not in SIDES:
            return f"has {key} {entry[key]!r}: LEFT or RIGHT"
    if "start_line" in entry:
        if not _positive(entry["start_line"]) or entry["start_line"] >= entry["line"]:
            return (f"has start_line {entry['start_line']!r}: the first line of a range, "
                    "below line")
    elif "start_side" in entry:
        return "has start_side without start_line"
    return None


def read_comments_file(source: str) -> List[Dict[str, Any]]:
    """The review's inline comments: a JSON list of {path, line, body} with optional side,
    start_line and start_side, every entry checked before anything is sent."""
    raw = read_bounded(source, COMMENTS_FILE_BYTES, "--comments-file")
    if len(raw) > COMMENTS_FILE_BYTES:
        raise UsageError(f"--comments-file is larger than {COMMENTS_FILE_BYTES // (1024 * 1024)}"
                         " MiB; nothing was sent")
    try:
        entries = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UsageError(f"--comments-file is not valid UTF-8 (byte {exc.start})")
    except ValueError as exc:
        raise UsageError(f"--comments-file is not JSON: {exc}")
    except RecursionError:
        raise UsageError("--comments-file is not a list of {path, line, body}: its JSON is "
                         "nested too deeply")
    if not isinstance(entries, list):
        raise UsageError("--comments-file must hold a JSON list of {path, line, body}")
    problems = []
    for index, entry in enumerate(entries):
        problem = _entry_problem(entry)
        if problem:
            where = entry.get("path") if isinstance(entry, dict) else None
            problems.append(f"entry {index}" + (f" ({where})" if isinstance(where, str)
                                                 else "") + f" {problem}")
    if problems:
        raise UsageError("--comments-file: " + "; ".join(problems[:5])
                         + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
                         + "; nothing was sent")
    return [{k: e[k] for k in ENTRY_KEYS if k in e} for e in entries]


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
        return _dry_run(ctx, f"Would submit a review ({event}) on #{pr}", "POST",
                        f"{target.api_url}/{path}", payload, comment_count=len(comments))
    client = _client(ctx, payload, f"submit a review ({event}) on #{pr}")
    what = f"submit a review ({event}) on {repository}#{pr}"
    raw = _write(client, "POST", path, payload, what,
                 _author_check(repository, pr, target.api_url, "review"))
    if not isinstance(raw, dict) or _id_str(raw.get("id")) is None:
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
                           if isinstance(c, dict) and _id_str(c.get("id"))]
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
        return _dry_run(ctx, f"Would {action} review thread {thread_id}", "POST", url,
                        {"query": mutation, "variables": variables})
    client = _client(ctx, {"query": mutation, "variables": variables},
                     f"{action} review thread {thread_id}")
    what = f"{action} review thread {thread_id}"
    check = ("the mutation is idempotent: running the same command again is safe; or read the "
             "thread's state with " + _command(["scripts/get_pr_comments.py", "--repo",
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
