"""Thread state in a pull request's round (CONTRACT section 15, "Threads in rounds").

A round that returns inline comments also returns `threads`: the state of each review thread
those comments belong to (resolved, outdated, what the viewer may do), and each comment's
`thread_id`. REST has no threads, so they come from GraphQL `reviewThreads`, matched on the
thread's first comment (`comments(first: 1)`, its `fullDatabaseId`), which is the REST
comment's `thread_root_id`. Only then: a poll that returns no inline comment sends no query.

The pages are read through the one paginator of review threads (thread_reader.py), from
both ends in turn, newest first — new comments mostly open new threads or answer recent ones,
and an old thread sits at the start — and the read stops as soon as every root is found, or
once the pages read cover every thread: at most one query per 100 threads of the pull request.
When GraphQL cannot be read (no token, an error, FORBIDDEN, the network), the round still
succeeds: `threads` is null, every `thread_id` null, and a warning says why.
"""

from __future__ import annotations

import os

from ..base.errors import BundleError
from ..store.records import SHA_RE
from ..text.normalize import check_flag, check_number, check_text
from .thread_reader import ThreadReader, as_object, graphql_url, int_id, node_list

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

WHAT = "review thread"

# {args}: the page (newest first from the end, or oldest first from the start); nodes shared.
THREAD_STATE_QUERY = """
query PullRequestThreadState($owner: String!, $name: String!, $number: Int!, {var}) {{
  repository(owner: $owner, name: $name) {{
    pullRequest(number: $number) {{
      headRefOid
      reviewThreads({args}) {{
        totalCount
        pageInfo {{ {info} }}
        nodes {{
          id
          path
          line
          isResolved
          isOutdated
          viewerCanResolve
          viewerCanUnresolve
          viewerCanReply
          comments(first: 1) {{ nodes {{ fullDatabaseId }} }}
        }}
      }}
    }}
  }}
}}
"""
FROM_THE_END = THREAD_STATE_QUERY.format(var="$before: String", args="last: 100, before: $before",
                                         info="hasPreviousPage startCursor")
FROM_THE_START = THREAD_STATE_QUERY.format(var="$after: String", args="first: 100, after: $after",
                                           info="hasNextPage endCursor")


def _root_of(node: Dict[str, Any]) -> Optional[int]:
    """The thread's first comment's id (types checked on the way in: a malformed answer is
    exit 6 in get_pr_comments.py, `threads: null` here)."""
    conn = as_object(node.get("comments"), WHAT, "comments")
    first = next(iter(node_list(conn, WHAT, "comments")), {})
    return int_id(first.get("fullDatabaseId"))


def _entry(node: Dict[str, Any], root: int) -> Dict[str, Any]:
    for name in ("id", "path"):
        check_text(node.get(name), WHAT, name)
    check_number(node.get("line"), WHAT, "line")
    flags = ("isResolved", "isOutdated", "viewerCanResolve", "viewerCanUnresolve",
             "viewerCanReply")
    for name in flags:
        check_flag(node.get(name), WHAT, name)
    return {"id": node.get("id"), "root_comment_id": root, "path": node.get("path"),
            "line": node.get("line"), "is_resolved": node.get("isResolved"),
            "is_outdated": node.get("isOutdated"),
            "viewer_can_resolve": node.get("viewerCanResolve"),
            "viewer_can_unresolve": node.get("viewerCanUnresolve"),
            "viewer_can_reply": node.get("viewerCanReply")}


def find_threads(client: Any, owner: str, name: str, number: int, roots: Set[int],
                 env: Optional[Mapping[str, str]] = None,
                 seen: Optional[Dict[str, Any]] = None
                 ) -> Tuple[Dict[int, Dict[str, Any]], List[str]]:
    """({root comment id: thread entry} for the threads whose first comment is in `roots`,
    limitations). Pages are taken from both ends in turn, the newest first (a new comment
    mostly opens a thread or answers a recent one; an old thread sits at the start), and the
    read stops once every root is found or the pages read cover all `totalCount` threads: at
    most one query per 100 threads. Raises the typed error of a failed read (thread_reader.py's
    mapping of GraphQL's errors)."""
    reader = ThreadReader(client, graphql_url(client, os.environ if env is None else env),
                          owner, name, number)
    what = f"review threads of {reader.label}"
    ends = [reader.thread_pages(FROM_THE_END, what, backward=True),
            reader.thread_pages(FROM_THE_START, what)]
    found: Dict[int, Dict[str, Any]] = {}
    read = turn = 0
    total: Optional[int] = None
    try:
        while len(found) < len(roots):
            try:  # without a total the start is never known to be unread: one end only
                pr, nodes = next(ends[turn % 2 if total is not None else 0])
            except StopIteration:  # that end reached the other: every thread was read
                break
            turn += 1
            read += len(nodes)
            if (seen is not None and "head_ref_oid" not in seen
                    and _sha(pr.get("headRefOid"))):  # the head beside the threads (section 21)
                seen["head_ref_oid"] = pr["headRefOid"]
            for node in nodes:
                root = _root_of(node)
                if root in roots and root not in found:
                    found[root] = _entry(node, root)
            count = (pr.get("reviewThreads") or {}).get("totalCount")
            total = count if isinstance(count, int) and total in (None, count) else None
            if total is not None and read >= total:
                break
    finally:
        for pages in ends:
            pages.close()
    return found, reader.limitations


def _sha(value: Any) -> bool:
    return isinstance(value, str) and SHA_RE.fullmatch(value) is not None


def attach(client: Any, owner: str, name: str, number: int,
           comments: List[Dict[str, Any]], warnings: List[str],
           seen: Optional[Dict[str, Any]] = None) -> Optional[List[Dict[str, Any]]]:
    """Give each returned review comment its `thread_id`; the round's `threads` (one per
    thread, in the order the comments first name them), or None when GraphQL could not be
    read (then a warning says why). `seen["head_ref_oid"]`: the pull request's head the query
    showed (`headRefOid`), when it did."""
    roots = {c["thread_root_id"] for c in comments if isinstance(c.get("thread_root_id"), int)}
    problem = None
    found: Dict[int, Dict[str, Any]] = {}
    if not roots:
        pass
    elif not getattr(client.transport, "authenticated", True):
        problem = "GitHub's GraphQL API needs a token"
    else:
        try:
            found, limitations = find_threads(client, owner, name, number, roots, seen=seen)
            warnings.extend(limitations)
        except BundleError as err:
            problem = f"{err.code}: {err.message}"
    threads: List[Dict[str, Any]] = []
    seen: Set[int] = set()
    for c in comments:
        entry = found.get(c.get("thread_root_id"))  # type: ignore[arg-type]
        c["thread_id"] = entry["id"] if entry else None
        if entry and entry["root_comment_id"] not in seen:
            seen.add(entry["root_comment_id"])
            threads.append(entry)
    if problem is not None:
        warnings.append(f"threads is null: the review threads could not be read ({problem})")
        return None
    return threads


OUTDATED_QUERY = """
query PullRequestOutdatedThreads($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          path
          line
          originalLine
          isResolved
          isOutdated
          comments(first: 1) { nodes { fullDatabaseId url } }
        }
      }
    }
  }
}
"""


def outdated_threads(client: Any, owner: str, name: str, number: int,
                     env: Optional[Mapping[str, str]] = None
                     ) -> Tuple[List[Dict[str, Any]], List[str]]:
    """(the unresolved review threads that are outdated now, limitations) — CONTRACT section
    21's `outdated_threads`, each `{thread_id, path, line, original_line, root_comment_id,
    url}`: one query per 100 threads through the one paginator (thread_reader.py)."""
    reader = ThreadReader(client, graphql_url(client, os.environ if env is None else env),
                          owner, name, number)
    what = f"review threads of {reader.label}"
    out: List[Dict[str, Any]] = []
    for _pr, nodes in reader.thread_pages(OUTDATED_QUERY, what):
        for node in nodes:
            for flag in ("isResolved", "isOutdated"):
                check_flag(node.get(flag), WHAT, flag)
            if node.get("isResolved") or not node.get("isOutdated"):
                continue
            for field in ("id", "path"):
                check_text(node.get(field), WHAT, field)
            for field in ("line", "originalLine"):
                check_number(node.get(field), WHAT, field)
            conn = as_object(node.get("comments"), WHAT, "comments")
            first = next(iter(node_list(conn, WHAT, "comments")), {})
            out.append({"thread_id": node.get("id"), "path": node.get("path"),
                        "line": node.get("line"), "original_line": node.get("originalLine"),
                        "root_comment_id": int_id(first.get("fullDatabaseId")),
                        "url": check_text(first.get("url"), WHAT, "url")})
    return out, reader.limitations
