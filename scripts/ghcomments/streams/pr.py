"""Pull-request review feedback (CONTRACT section 7), read-only.

Review threads, their resolution state and the PR's title/state/URL come from GraphQL: one
query per page of 100 threads (each with its first 100 comments; the pages through
thread_reader.py, the one reader of `reviewThreads`), plus one `node(id:)` query per further
page of a long thread. Timeline feedback (review bodies with their states, and
conversation comments) comes from REST. Everything is normalised to seed 000's camelCase shape,
filtered, and returned as JSON or a readable summary.

The threads are the core: when they cannot be read the command fails with the mapped exit code.
The timeline is secondary: when a part of it fails, the rest is returned and the gap is named in
`limitations`.
"""

from __future__ import annotations

from ..base.errors import BundleError, UsageError
from ..base.plain import factory, plain
from ..net import config
from ..net.connect import Connection
from ..store.context import Context, TargetOptions
from ..store.state import validate_issue_number
from ..text.normalize import (
    body_lines,
    check_comment,
    check_flag,
    check_number,
    check_text,
    cut_body,
    escape_field,
    is_trusted,
    now_iso,
    reveal,
)
from ..text.output import Output
from .thread_reader import (
    PAGE,
    ThreadReader,
    as_object,
    graphql_url,
    int_id,
    node_list,
    page_info,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional, Tuple

# Safety bounds; reaching one is reported in `limitations`, never silent (the threads' own:
# thread_reader.MAX_THREAD_PAGES).
MAX_COMMENT_PAGES = 50      # 5,000 comments in one thread
MAX_REST_PAGES = 50         # 5,000 reviews or conversation comments

# `fullDatabaseId` (BigInt, a string) replaces the deprecated 32-bit `databaseId`; `position`
# is deprecated too but seed 000 asks for it, so it is kept beside `line`/`originalLine`.
COMMENT_FIELDS = """
fragment ReviewCommentFields on PullRequestReviewComment {
  fullDatabaseId
  author { __typename login }
  authorAssociation
  body
  createdAt
  updatedAt
  lastEditedAt
  url
  path
  line
  originalLine
  position
}
"""

THREADS_QUERY = """
query PullRequestReviewThreads($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      title
      state
      url
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          isResolved
          isOutdated
          viewerCanResolve
          path
          line
          startLine
          comments(first: 100) {
            pageInfo { hasNextPage endCursor }
            nodes { ...ReviewCommentFields }
          }
        }
      }
    }
  }
}
""" + COMMENT_FIELDS

THREAD_COMMENTS_QUERY = """
query ReviewThreadComments($id: ID!, $after: String) {
  node(id: $id) {
    ... on PullRequestReviewThread {
      comments(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { ...ReviewCommentFields }
      }
    }
  }
}
""" + COMMENT_FIELDS

FEEDBACK_STATES = ("APPROVED", "CHANGES_REQUESTED", "DISMISSED")


# --------------------------------------------------------------------------- options


@plain
class Filters:
    """What the caller asked to keep (contract section 7)."""

    include_resolved: bool = False
    include_system: bool = False
    timeline: bool = True
    file: Optional[str] = None
    author: Optional[str] = None
    trusted_only: bool = False


@plain
class BodyOptions:
    max_body_chars: Optional[int] = None
    reveal_hidden: bool = False


@plain(frozen=True)
class PrOptions:
    """get_pr_comments.py's options, built at the face: the PR (`target.number`, or --active),
    how to connect, what to keep (raw: checked by _filters) and what to print."""

    target: TargetOptions = TargetOptions()
    connection: Connection = Connection()
    output: Output = Output(format="summary")
    active: bool = False
    include_resolved: bool = False
    no_timeline: bool = False
    include_system: bool = False
    file: Optional[str] = None
    author: Optional[str] = None


def _filters(opts: PrOptions) -> Filters:
    """Filters from the command line, checked before any request."""
    path = opts.file
    if path is not None:
        path = path.strip()
        while path.startswith("./"):
            path = path[2:]
        if not path or path.startswith("/"):
            raise UsageError(f"--file {opts.file!r}: a path relative to the repository root")
    author = opts.author.strip() if opts.author is not None else None
    if author is not None and not author:
        raise UsageError("--author needs a GitHub login")
    return Filters(include_resolved=opts.include_resolved, include_system=opts.include_system,
                   timeline=not opts.no_timeline, file=path, author=author,
                   trusted_only=opts.output.trusted_only)


# --------------------------------------------------------------------------- normalisation


def _actor(actor: Any) -> Tuple[Optional[str], Optional[str]]:
    """(login in REST spelling, type) of a GraphQL actor; bots get REST's `[bot]` suffix."""
    if actor is None:
        return None, None  # a deleted account ("ghost"): unavailable, not invented
    actor = as_object(actor, "review thread comment", "author")
    login = check_text(actor.get("login"), "review thread comment", "author.login")
    kind = check_text(actor.get("__typename"), "review thread comment", "author.__typename")
    if kind == "Bot" and isinstance(login, str) and not login.endswith("[bot]"):
        login += "[bot]"
    return login, kind


def _rest_user(user: Any) -> Tuple[Optional[str], Optional[str]]:
    if not isinstance(user, dict):
        return None, None
    return user.get("login"), user.get("type")


def _comment(*, cid: Any, author: Tuple[Optional[str], Optional[str]], association: Any,
             body: Any, kind: str, created_at: Any, url: Any, opts: BodyOptions,
             line: Any = None, original_line: Any = None, position: Any = None,
             file: Any = None, state: Any = None, updated_at: Any = None,
             last_edited_at: Any = None) -> Dict[str, Any]:
    """One comment in the shared shape (the shell fallback emits the same names).
    `updatedAt` moves on any change (an edit, a re-anchored line); `lastEditedAt` is a body
    edit's time, which only GraphQL gives (null for the REST items: reviews and
    conversation comments; a review has no `updated_at` over REST either)."""
    cut = cut_body(body, opts.max_body_chars, opts.reveal_hidden)
    return {
        "id": cid, "author": author[0], "authorType": author[1],
        "authorAssociation": association,
        "body": cut["body"], "bodyChars": cut["body_chars"],
        "bodyTruncated": cut["body_truncated"], "hiddenCharacters": cut["hidden_characters"],
        "commentType": kind, "createdAt": created_at, "updatedAt": updated_at,
        "lastEditedAt": last_edited_at, "url": url,
        "line": line, "originalLine": original_line, "position": position,
        "file": file, "state": state,
    }


def inline_comment(node: Dict[str, Any], opts: BodyOptions) -> Dict[str, Any]:
    """A GraphQL review-thread comment."""
    what = "review thread comment"
    for name in ("authorAssociation", "body", "createdAt", "updatedAt", "lastEditedAt", "url",
                 "path"):
        check_text(node.get(name), what, name)
    for name in ("line", "originalLine", "position"):
        check_number(node.get(name), what, name)
    return _comment(cid=int_id(node.get("fullDatabaseId")), author=_actor(node.get("author")),
                    association=node.get("authorAssociation"), body=node.get("body"),
                    kind="inline", created_at=node.get("createdAt"), url=node.get("url"),
                    opts=opts, line=node.get("line"), original_line=node.get("originalLine"),
                    position=node.get("position"), file=node.get("path"),
                    updated_at=node.get("updatedAt"), last_edited_at=node.get("lastEditedAt"))


def review_comment(raw: Dict[str, Any], opts: BodyOptions) -> Dict[str, Any]:
    """A REST review (its body and state); its time is when it was submitted."""
    check_comment(raw, "review")
    return _comment(cid=raw.get("id"), author=_rest_user(raw.get("user")),
                    association=raw.get("author_association"), body=raw.get("body"),
                    kind="review", created_at=raw.get("submitted_at"),
                    url=raw.get("html_url"), opts=opts, state=raw.get("state"))


def issue_comment(raw: Dict[str, Any], opts: BodyOptions) -> Dict[str, Any]:
    """A REST conversation comment on the PR."""
    check_comment(raw, "conversation comment")
    return _comment(cid=raw.get("id"), author=_rest_user(raw.get("user")),
                    association=raw.get("author_association"), body=raw.get("body"),
                    kind="issue_comment", created_at=raw.get("created_at"),
                    url=raw.get("html_url"), opts=opts, updated_at=raw.get("updated_at"))


def thread_of(node: Dict[str, Any], comments: List[Dict[str, Any]]) -> Dict[str, Any]:
    what = "review thread"
    check_text(node.get("id"), what, "id")
    check_text(node.get("path"), what, "path")
    for name in ("isResolved", "isOutdated", "viewerCanResolve"):
        check_flag(node.get(name), what, name)
    for name in ("line", "startLine"):
        check_number(node.get(name), what, name)
    return {"id": node.get("id"), "isResolved": node.get("isResolved"),
            "isOutdated": node.get("isOutdated"), "canResolve": node.get("viewerCanResolve"),
            "file": node.get("path"), "line": node.get("line"),
            "startLine": node.get("startLine"), "comments": comments}


def _timeline_key(c: Dict[str, Any]) -> Tuple[bool, str, int]:
    # A pending review has no submission time yet: it goes last rather than getting one.
    return (c["createdAt"] is None, c["createdAt"] or "", c["id"] or 0)


# --------------------------------------------------------------------------- reading


class PullRequestReader(ThreadReader):
    """Reads one PR's threads (GraphQL, through the one paginator) and timeline (REST) and
    normalises them."""

    def __init__(self, client: Any, graphql_url: str, owner: str, name: str, number: int,
                 opts: BodyOptions) -> None:
        super().__init__(client, graphql_url, owner, name, number)
        self.opts = opts

    def threads(self) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
        """(PR metadata, every review thread with every comment): the core of the answer."""
        what = f"review threads of {self.label}"
        meta: Dict[str, Any] = {}
        threads: List[Dict[str, Any]] = []
        for pr, nodes in self.thread_pages(THREADS_QUERY, what):
            meta = {name: check_text(pr.get(name), what, name)
                    for name in ("title", "state", "url")}
            threads += [self._thread(node) for node in nodes]
        return meta, threads

    def _thread(self, node: Dict[str, Any]) -> Dict[str, Any]:
        """One thread; a thread with more than 100 comments is completed through `node(id:)`."""
        what = f"review thread {escape_field(str(node.get('id')))[:80]}"
        conn = as_object(node.get("comments"), what, "comments")
        nodes = node_list(conn, what, "comments")
        more, after = page_info(conn, what, "comments")
        pages = 1
        while more:
            if pages >= MAX_COMMENT_PAGES:
                self.limitations.append(f"review thread {node.get('id')}: only the first "
                                        f"{pages * PAGE} comments were read")
                break
            data = self._query(THREAD_COMMENTS_QUERY, {"id": node.get("id"), "after": after},
                               f"comments of {what}")
            page = as_object(data.get("node"), what, "node").get("comments")
            if page is None:
                # Deleted between two requests: keep what was read, say the PR changed.
                self.limitations.append(f"review thread {node.get('id')} changed during "
                                        f"retrieval; {len(nodes)} of its comments are shown")
                break
            page = as_object(page, what, "comments")
            nodes += node_list(page, what, "comments")
            more, after = page_info(page, what, "comments")
            pages += 1
        return thread_of(node, [inline_comment(n, self.opts) for n in nodes])

    def timeline(self) -> List[Dict[str, Any]]:
        """Review bodies and conversation comments, oldest first; a failed part is a limitation."""
        base = f"repos/{self.owner}/{self.name}"
        parts = (("submitted reviews", f"{base}/pulls/{self.number}/reviews", review_comment),
                 ("conversation comments", f"{base}/issues/{self.number}/comments",
                  issue_comment))
        items: List[Dict[str, Any]] = []
        for label, path, shape in parts:
            try:
                raws, _pages, truncated = self.client.paginate(
                    path, {"per_page": PAGE}, max_pages=MAX_REST_PAGES,
                    what=f"{label} of {self.label}")
                # A malformed item makes the part unavailable, like a failed request.
                shaped = [shape(r, self.opts) for r in raws]
            except BundleError as exc:
                self.limitations.append(f"{label} unavailable ({exc.code}): {exc.message}; "
                                        "they are missing from timelineComments")
                continue
            if truncated:
                self.limitations.append(f"{label}: only the first {MAX_REST_PAGES * PAGE} "
                                        "were read; later ones are missing")
            items += shaped
        return sorted(items, key=_timeline_key)


# --------------------------------------------------------------------------- filtering


def _bare_login(login: Optional[str]) -> str:
    login = (login or "").lower()
    return login[: -len("[bot]")] if login.endswith("[bot]") else login


def is_system_event(c: Dict[str, Any]) -> bool:
    """Not review feedback: a bot's conversation comment, or a bodiless COMMENTED review
    (the wrapper GitHub makes around inline comments)."""
    if c["commentType"] == "issue_comment":
        return c["authorType"] == "Bot"
    if c["commentType"] == "review":
        bodiless = not (c["body"] or "").strip()
        return bodiless and c["state"] not in FEEDBACK_STATES
    return False


@plain
class Selection:
    threads: List[Dict[str, Any]]
    timeline: List[Dict[str, Any]]
    notes: List[str] = factory(list)  # summary-only: what the filters left out


def select(threads: List[Dict[str, Any]], timeline: List[Dict[str, Any]],
           f: Filters) -> Selection:
    """Apply the contract's filters; count what each left out for the summary's notes."""
    notes: List[str] = []

    def keep_comment(c: Dict[str, Any]) -> bool:
        if f.author is not None and _bare_login(c["author"]) != _bare_login(f.author):
            return False
        return not (f.trusted_only and not is_trusted(c["authorAssociation"]))

    resolved = [t for t in threads if t["isResolved"]]
    if resolved and not f.include_resolved:
        notes.append(f"{len(resolved)} resolved thread(s) not shown (--include-resolved "
                     "shows them)")
        threads = [t for t in threads if not t["isResolved"]]
    if f.file is not None:
        before = len(threads)
        threads = [t for t in threads if t["file"] == f.file]
        notes.append(f"--file {f.file}: {before - len(threads)} thread(s) on other files "
                     "not shown")
    kept_threads = []
    for t in threads:
        comments = [c for c in t["comments"] if keep_comment(c)]
        if comments:
            kept_threads.append({**t, "comments": comments})
    if f.author is not None or f.trusted_only:
        what = " and ".join(x for x in (f.author and f"--author {f.author}",
                                        f.trusted_only and "--trusted-only") if x)
        dropped = len(threads) - len(kept_threads)
        notes.append(f"{what}: comments by others not shown"
                     + (f"; {dropped} thread(s) left empty were dropped" if dropped else ""))
    system = [c for c in timeline if is_system_event(c)]
    if system and not f.include_system:
        notes.append(f"{len(system)} system event(s) not shown (bot conversation comments, "
                     "bodiless COMMENTED reviews; --include-system shows them)")
        timeline = [c for c in timeline if not is_system_event(c)]
    timeline = [c for c in timeline if keep_comment(c)]
    return Selection(kept_threads, timeline, notes)


# --------------------------------------------------------------------------- target


def _active_pr(client: Any, target: config.Target) -> int:
    """The one open PR whose head is ORIGIN_OWNER:BRANCH of the working directory."""
    branch = config.git_current_branch()
    if not branch:
        raise UsageError("no active pull request: no branch is checked out here (not a git "
                         "checkout, or a detached HEAD); pass --repo OWNER/NAME and --pr N")
    origin = config.git_origin()
    head_owner = origin[1] if origin else target.owner
    head = f"{head_owner}:{branch}"
    pulls, _pages, _truncated = client.paginate(
        f"repos/{target.owner}/{target.name}/pulls",
        dict(state="open", head=head, per_page=PAGE), max_pages=2,
        what=f"open pull requests of {target.full_name} with head {head}")
    pulls = sorted((p for p in pulls if isinstance(p, dict) and isinstance(p.get("number"), int)),
                   key=lambda p: p["number"])
    if not pulls:
        raise UsageError(f"no open pull request in {target.full_name} has head {head}; pass "
                         "--repo OWNER/NAME and --pr N")
    if len(pulls) > 1:
        listed = "; ".join(f"#{p['number']} {escape_field(p.get('title') or '')} "
                           f"({escape_field(p.get('html_url'))})" for p in pulls)
        raise UsageError(f"{len(pulls)} open pull requests in {target.full_name} have head "
                         f"{head}: {listed}; choose one with --pr N")
    return pulls[0]["number"]


def _context(opts: PrOptions, number: Optional[int]) -> Context:
    """The resolved target; without --pr, a failure names both parameters (seed 000)."""
    try:
        return Context(opts.target, opts.connection)
    except UsageError as exc:
        if number is None and not opts.target.repo:
            raise UsageError(f"{exc.message}; no active pull request could be found: pass "
                             "--repo OWNER/NAME (or --owner OWNER --repo NAME) and --pr N")
        raise


# --------------------------------------------------------------------------- command


def get_pr_comments(opts: PrOptions) -> Tuple[Dict[str, Any], Optional[str]]:
    """get_pr_comments.py: (document, summary text or None)."""
    filters = _filters(opts)
    number = (validate_issue_number(opts.target.number, "--pr")
              if opts.target.number is not None else None)
    if opts.active and number is not None:
        raise UsageError("give --pr N or --active (the PR of the checked-out branch), not both")
    ctx = _context(opts, number)
    client = ctx.client(require_auth=True)  # GitHub's GraphQL API never answers anonymously
    if number is None:
        number = _active_pr(client, ctx.target)
    body = BodyOptions(opts.output.max_body_chars, opts.output.reveal_hidden)
    reader = PullRequestReader(client, graphql_url(client, ctx.env), ctx.target.owner,
                               ctx.target.name, number, body)
    retrieved_at = now_iso()
    meta, threads = reader.threads()
    timeline: List[Dict[str, Any]] = []
    if filters.timeline:
        timeline = reader.timeline()
        if filters.file is not None:
            reader.limitations.append(f"--file {filters.file} filters inline review threads "
                                      "only: timeline items have no file and were left as "
                                      "they are")
    else:
        reader.limitations.append("timeline not read (--no-timeline): general reviews and "
                                  "conversation comments are not included")
    chosen = select(threads, timeline, filters)
    doc = {
        "repository": ctx.target.full_name, "pullRequest": number,
        "title": meta.get("title"), "state": meta.get("state"), "url": meta.get("url"),
        "retrievedAt": retrieved_at,
        "refreshed": True,  # nothing is cached: every call reads GitHub afresh (--refresh)
        "reviewThreads": chosen.threads, "timelineComments": chosen.timeline,
        "limitations": reader.limitations,
    }
    text = summary(doc, filters, chosen.notes) if opts.output.format == "summary" else None
    return doc, text


# --------------------------------------------------------------------------- summary


def _safe(value: Any) -> str:
    """Untrusted text outside a body, for the terminal: newlines, hidden and control
    characters made visible (CONTRACT section 17)."""
    return escape_field(value)


def _body(value: Any) -> str:
    """A body: its lines kept, hidden and control characters made visible."""
    return reveal("" if value is None else str(value)) or ""


def _comment_lines(c: Dict[str, Any], indent: str) -> List[str]:
    kind = _safe(c["commentType"]) + (f" {_safe(c['state'])}" if c.get("state") else "")
    who = f"{_safe(c['author'] or 'unknown')} ({_safe(c['authorType'] or '?')}, " \
          f"{_safe(c['authorAssociation'] or '?')})"
    flags = []
    if c.get("bodyTruncated"):
        flags.append(f"cut from {_safe(c['bodyChars'])} chars")
    if c.get("hiddenCharacters"):
        flags.append(f"{_safe(c['hiddenCharacters'])} hidden chars shown as <U+…>")
    head = (f"{indent}- {who} · {kind} · {_safe(c['createdAt'] or 'not submitted')} · "
            f"id {_safe(c['id'])}")
    lines = [head + (f" [{', '.join(flags)}]" if flags else ""), f"{indent}  {_safe(c['url'])}"]
    body = _body(c.get("body"))
    if body.strip():
        lines += [f"{indent}    {line}".rstrip() for line in body_lines(c.get("body"))]
    else:
        lines.append(f"{indent}    (no body)")
    return lines


def _where(t: Dict[str, Any]) -> str:
    if t["line"] is not None:
        start = t.get("startLine")
        where = f"lines {_safe(start)}-{_safe(t['line'])}" if start and start != t["line"] \
            else f"line {_safe(t['line'])}"
    elif t["isOutdated"]:
        first = t["comments"][0] if t["comments"] else {}
        was = first.get("originalLine")
        where = "outdated" + (f" (was line {_safe(was)})" if was is not None else "")
    else:
        where = "whole file"
    if t["isOutdated"] and t["line"] is not None:
        where += ", outdated"
    return where


def _thread_section(threads: List[Dict[str, Any]]) -> List[str]:
    """Threads grouped by file, files and threads in source order."""
    if not threads:
        return ["  (none)"]
    files: Dict[str, List[Dict[str, Any]]] = {}
    for t in threads:
        files.setdefault(t["file"] or "", []).append(t)
    lines: List[str] = []
    for path, group in files.items():
        lines.append(f"  {_safe(path) or '(no file)'}")
        for t in group:
            state = "resolved" if t["isResolved"] else "unresolved"
            can = ", can resolve" if t["canResolve"] else ""
            lines.append(f"    thread {_safe(t['id'])} · {_where(t)} · {state}{can}")
            for c in t["comments"]:
                lines += _comment_lines(c, "      ")
    return lines


def summary(doc: Dict[str, Any], f: Filters, notes: List[str]) -> str:
    """Seed 000's summary, in its order: identity; title, state, URL; time; unresolved threads
    by file; general feedback; resolved threads when asked; notes."""
    unresolved = [t for t in doc["reviewThreads"] if not t["isResolved"]]
    resolved = [t for t in doc["reviewThreads"] if t["isResolved"]]
    lines = [f"Pull request {_safe(doc['repository'])}#{doc['pullRequest']}",
             f"Title: {_safe(doc['title'])}",
             f"State: {_safe(doc['state'])}",
             f"URL: {_safe(doc['url'])}",
             f"Retrieved: {_safe(doc['retrievedAt'])} (refreshed: "
             f"{'yes' if doc['refreshed'] else 'no'})",
             "",
             f"Unresolved review threads ({len(unresolved)})"]
    lines += _thread_section(unresolved)
    lines += ["", f"General review and timeline feedback ({len(doc['timelineComments'])})"]
    if not f.timeline:
        lines.append("  (not read: --no-timeline)")
    elif not doc["timelineComments"]:
        lines.append("  (none)")
    for c in doc["timelineComments"]:
        lines += _comment_lines(c, "  ")
    if f.include_resolved:
        lines += ["", f"Resolved review threads ({len(resolved)})"]
        lines += _thread_section(resolved)
    lines += ["", "Notes"]
    notes = [*notes, *doc["limitations"]]
    lines += [f"  - {_safe(n)}" for n in notes] or ["  (none: nothing filtered out or missing)"]
    return "\n".join(lines) + "\n"
