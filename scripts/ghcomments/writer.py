"""manage_issue_comment.py: the bundle's only writer to GitHub (CONTRACT sections 8 and 15).

Each action makes one write and returns its id, url and times, a `handoff` another agent can
use to read exactly what was written, and (for a create, a reply or a review) `wait`, the
command that waits for the answer: an issue comment created or updated; a reply in a review
thread; an inline comment edited; one submitted review; a thread resolved or unresolved. A
write goes through the client's `send_once`: never retried (a retry could post twice), and an
unknown outcome names the read that checks. `--dry-run` sends nothing at all.

Here: the command (its options, its flag rules, the files it reads: `--body-file`,
`--comments-file`) and the issue comment's write (section 8). Review feedback's writes (section
15): review_writes.py; what every write sends and hands back: outgoing.py.
"""

from __future__ import annotations

import json
import sys

from .base.errors import ServerError, UsageError
from .base.plain import plain
from .net.connect import Connection
from .outgoing import (
    SAME_EDIT,
    client_for,
    command_line,
    dry_run_doc,
    look_first,
    wait_command,
    write_once,
)
from .review_writes import reply, resolve, review, update_review_comment
from .store.context import Context, TargetOptions
from .text.normalize import number_at_end
from .text.tokens import contains_token

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional

MAX_BODY_CHARS = 65536


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


# A review's inline comments (CONTRACT section 15): every entry checked before anything is sent.
SIDES = ("LEFT", "RIGHT")
ENTRY_KEYS = ("path", "line", "body", "side", "start_line", "start_side")


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


def fetch_command(repository: str, number: Any, comment_id: int, api_url: str) -> str:
    """The read that returns exactly this comment, relative to the bundle root."""
    return command_line(["scripts/get_latest_comments.py", "--repo", repository, "--issue",
                         str(number), "--comment-id", str(comment_id)], api_url)


def _issue_number(comment: Dict[str, Any]) -> Optional[int]:
    return number_at_end(comment.get("issue_url"), "issues", "the comment's issue_url")


def manage(ctx: Any, action: str, issue: Optional[int], comment_id: Optional[int],
           body: str, dry_run: bool) -> Dict[str, Any]:
    target = ctx.target
    repository = target.full_name
    if action == "create":
        method, path = "POST", f"repos/{target.owner}/{target.name}/issues/{issue}/comments"
    else:
        method, path = "PATCH", f"repos/{target.owner}/{target.name}/issues/comments/{comment_id}"
    if dry_run:
        return dry_run_doc(ctx, f"Would {action} a comment", method, f"{target.api_url}/{path}",
                           {"body": body}, body_chars=len(body))
    client = client_for(ctx, {"body": body}, f"{action} a comment")
    what = (f"create a comment on {repository}#{issue}" if action == "create"
            else f"update comment {comment_id} in {repository}")
    check = (look_first(command_line(["scripts/get_latest_comments.py", "--repo", repository,
                                      "--issue", str(issue), "--last-n", "1"], target.api_url))
             if action == "create" else SAME_EDIT)
    comment = write_once(client, method, path, {"body": body}, what, check)
    if not isinstance(comment, dict) or not isinstance(comment.get("id"), int):
        raise ServerError(f"{what}: the response holds no comment id")
    # The issue: GitHub's answer names it (`issue_url`), else a create's --issue. An update
    # takes no --issue and reads nothing first: an answer without issue_url (GitHub's 2012
    # shape) leaves it unknown, and the hand-off says so rather than inventing one.
    number = _issue_number(comment) or issue
    cid = comment["id"]
    verb = "created" if action == "create" else "updated"
    warnings: List[str] = []
    if number is None:
        warnings.append(f"GitHub's answer names no issue (no issue_url), so handoff.number and "
                        f"handoff.fetch are null; with the issue's number N, "
                        f"{fetch_command(repository, 'N', cid, target.api_url)} reads it")
    doc = {
        "message": (f"Successfully {verb} comment on #{number}" if number is not None
                    else f"Successfully {verb} comment {cid} (GitHub's answer names no issue)"),
        "commentId": str(cid),
        "author": (comment.get("user") or {}).get("login"),  # whom to ignore while waiting
        "url": comment.get("html_url"),
        "createdAt": comment.get("created_at"),
        "updatedAt": comment.get("updated_at"),
        "handoff": {"repository": repository, "number": number, "commentId": str(cid),
                    "fetch": (fetch_command(repository, number, cid, target.api_url)
                              if number is not None else None)},
    }
    if action == "create":  # a create always has its issue (--issue)
        doc["wait"] = wait_command(repository, target.api_url, issue=number, after=cid)
    doc["warnings"] = warnings
    doc["requests"] = client.requests
    return doc
