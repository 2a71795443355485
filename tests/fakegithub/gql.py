"""POST /graphql: GitHub's GraphQL API over the subset schema in ``schema.graphql``.

Queries run through graphql-core against that schema, so a query GitHub would reject
for an unknown field or a wrong argument type is rejected here too. Errors look like
GitHub's: ``{"data": …, "errors": [{"type": "NOT_FOUND", "path": […], "locations": […],
"message": "…"}]}`` with HTTP 200; connection arguments are checked before execution
(``first``/``last`` over 100 or missing → EXCESSIVE_PAGINATION / MISSING_PAGINATION_BOUNDARIES,
no ``data``), as GitHub does.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
from pathlib import Path

from graphql import (
    GraphQLError,
    TypeInfo,
    TypeInfoVisitor,
    Visitor,
    build_schema,
    execute,
    get_named_type,
    parse,
    validate,
    visit,
)
from graphql.execution.values import get_argument_values, get_variable_values
from graphql.language import FieldNode, OperationDefinitionNode

from . import model
from .model import ts

SCHEMA_PATH = Path(__file__).with_name("schema.graphql")
MAX_PAGE = 100


def load_schema():
    schema = build_schema(SCHEMA_PATH.read_text(encoding="utf-8"))
    big_int = lambda value: str(int(value))
    date_time = lambda value: value if isinstance(value, str) else ts(value)
    for name, out in (("BigInt", big_int), ("DateTime", date_time)):
        # graphql-core 3.3 calls coerce_output_value; older releases call serialize
        schema.type_map[name].coerce_output_value = out
        schema.type_map[name].serialize = out
    for name in ("Actor", "Node", "RepositoryOwner"):
        schema.type_map[name].resolve_type = lambda obj, _info, _type: obj.typename
    return schema


class GitHubGraphQLError(GraphQLError):
    """An error with GitHub's ``type`` (NOT_FOUND, FORBIDDEN, …), raised from a resolver."""

    def __init__(self, type_: str, message: str):
        super().__init__(message, extensions={"type": type_})


# --------------------------------------------------------------------------- cursors


def encode_cursor(key: int) -> str:
    return base64.b64encode(f"cursor:v2:{key}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
        if not text.startswith("cursor:v2:"):
            raise ValueError(text)
        return int(text[len("cursor:v2:") :])
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise GitHubGraphQLError(
            "INVALID_CURSOR_ARGUMENTS",
            f"`{cursor}` does not appear to be a valid cursor.",
        ) from None


def connection(
    items: list, key, wrap, first=None, after=None, last=None, before=None, skip=None
) -> dict:
    """A Relay connection over ``items`` (already in order; ``key(item)`` ascending)."""
    if after is not None:
        k = decode_cursor(after)
        window_start = next(
            (i for i, it in enumerate(items) if key(it) > k), len(items)
        )
    else:
        window_start = 0
    if before is not None:
        k = decode_cursor(before)
        window_end = next((i for i, it in enumerate(items) if key(it) >= k), len(items))
    else:
        window_end = len(items)
    window_end = max(window_start, window_end)
    if skip:
        window_start = min(window_end, window_start + max(0, skip))
    start, end = window_start, window_end
    if first is not None:
        end = min(end, start + first)
    if last is not None:
        start = max(start, end - last)
    page = items[start:end]
    edges = [{"cursor": encode_cursor(key(it)), "node": wrap(it)} for it in page]
    return {
        "totalCount": len(items),
        "pageInfo": {
            "hasNextPage": end < len(items),
            "hasPreviousPage": start > 0,
            "startCursor": edges[0]["cursor"] if edges else None,
            "endCursor": edges[-1]["cursor"] if edges else None,
        },
        "edges": edges,
        "nodes": [e["node"] for e in edges],
    }


# --------------------------------------------------------------------------- resolvers


class GActor:
    def __init__(self, user: model.User, ctx):
        self.u, self.ctx = user, ctx
        self.typename = user.type  # User, Bot or Organization
        self.id = user.node_id
        self.databaseId = user.id
        self.login = user.graphql_login
        self.name = None
        self.resourcePath = (
            f"/apps/{user.graphql_login}" if user.type == "Bot" else f"/{user.login}"
        )
        self.url = ctx.html + self.resourcePath

    def avatarUrl(self, _info, size=None):
        base = (
            f"https://avatars.githubusercontent.com/in/{self.u.id % 1_000_000}?v=4"
            if self.u.type == "Bot"
            else f"https://avatars.githubusercontent.com/u/{self.u.id}?v=4"
        )
        return base + (f"&s={size}" if size else "")


class GRepository:
    typename = "Repository"

    def __init__(self, repo: model.Repo, ctx):
        self.r, self.ctx = repo, ctx
        self.id = repo.node_id
        self.databaseId = repo.id
        self.name = repo.name
        self.nameWithOwner = repo.full_name
        self.isPrivate = repo.private
        self.url = f"{ctx.html}/{repo.full_name}"

    @property
    def owner(self):
        return GActor(self.r.owner, self.ctx)

    def pullRequest(self, _info, number):
        issue = self.r.issues.get(number)
        if issue is None or issue.pull is None:
            raise GitHubGraphQLError(
                "NOT_FOUND",
                f"Could not resolve to a PullRequest with the number of {number}.",
            )
        return GPullRequest(issue.pull, self.ctx)


class GPullRequest:
    typename = "PullRequest"

    def __init__(self, pull: model.Pull, ctx):
        self.p, self.ctx = pull, ctx
        i = pull.issue
        self.id = pull.node_id
        self.databaseId = pull.id
        self.fullDatabaseId = pull.id
        self.number = i.number
        self.title = i.title
        self.body = i.body or ""
        self.authorAssociation = i.association
        self.baseRefName = pull.base_ref
        self.headRefName = pull.head_ref
        self.headRefOid = pull.head_sha
        self.isDraft = pull.draft
        self.createdAt = i.created_at
        self.updatedAt = i.updated_at
        self.state = (
            "MERGED" if pull.merged else ("CLOSED" if i.state == "closed" else "OPEN")
        )
        self.url = f"{ctx.html}/{pull.repo.full_name}/pull/{i.number}"

    @property
    def author(self):
        return GActor(self.p.issue.user, self.ctx)

    @property
    def repository(self):
        return GRepository(self.p.repo, self.ctx)

    def reviewThreads(self, _info, first=None, after=None, last=None, before=None):
        # a thread whose comments are all in others' pending reviews is absent
        return connection(
            [t for t in self.p.threads if self.ctx.sees(t)],
            lambda t: t.seq,
            lambda t: GThread(t, self.ctx),
            first=first,
            after=after,
            last=last,
            before=before,
        )


class GThread:
    typename = "PullRequestReviewThread"

    def __init__(self, thread: model.Thread, ctx):
        self.t, self.ctx = thread, ctx
        self.id = thread.node_id
        self.path = thread.path
        self.line = thread.line
        self.startLine = thread.start_line
        self.originalLine = thread.original_line
        self.originalStartLine = thread.original_start_line
        self.diffSide = thread.diff_side
        self.startDiffSide = (
            thread.diff_side if thread.original_start_line is not None else None
        )
        self.isResolved = thread.is_resolved
        self.isOutdated = thread.is_outdated
        self.isCollapsed = thread.is_resolved
        self.subjectType = thread.subject_type
        self.viewerCanReply = True
        self.viewerCanResolve = thread.viewer_can_resolve and not thread.is_resolved
        self.viewerCanUnresolve = thread.viewer_can_resolve and thread.is_resolved

    @property
    def resolvedBy(self):
        # Who resolved it when recorded (the mutations record it); else the PR's author.
        if not self.t.is_resolved:
            return None
        return GActor(self.t.resolved_by or self.t.pull.issue.user, self.ctx)

    @property
    def pullRequest(self):
        return GPullRequest(self.t.pull, self.ctx)

    @property
    def repository(self):
        return GRepository(self.t.pull.repo, self.ctx)

    def comments(
        self, _info, first=None, after=None, last=None, before=None, skip=None
    ):
        return connection(
            [c for c in self.t.comments if self.ctx.sees(c)],
            lambda c: c.id,
            lambda c: GComment(c, self.ctx),
            first=first,
            after=after,
            last=last,
            before=before,
            skip=skip,
        )


class GComment:
    typename = "PullRequestReviewComment"

    def __init__(self, c: model.ReviewComment, ctx):
        self.c, self.ctx = c, ctx
        t = c.thread
        self.id = c.node_id
        self.databaseId = (
            c.id
        )  # over 2**31: serialising it fails, as the deprecation warns
        self.fullDatabaseId = c.id
        self.body = c.body
        self.bodyText = c.body
        self.createdAt = c.created_at
        # a draft is not published; a drafted comment is published with its review (assumed)
        rv = c.review
        self.publishedAt = (
            None
            if rv.state == "PENDING"
            else max(c.created_at, rv.submitted_at or c.created_at)
        )
        self.updatedAt = c.updated_at
        edit_history(self, c, ctx)
        self.authorAssociation = c.association
        self.path = t.path
        self.line = t.line
        self.startLine = t.start_line
        self.originalLine = t.original_line
        self.originalStartLine = t.original_start_line
        self.position = c.position
        self.originalPosition = c.original_position
        self.outdated = t.is_outdated
        self.diffHunk = c.diff_hunk
        self.isMinimized = False
        self.minimizedReason = None
        self.state = "PENDING" if c.review.state == "PENDING" else "SUBMITTED"
        self.subjectType = t.subject_type
        self.viewerDidAuthor = ctx.viewer is not None and ctx.viewer is c.user
        self.url = f"{ctx.html}/{t.pull.repo.full_name}/pull/{t.pull.number}#discussion_r{c.id}"

    @property
    def author(self):
        return GActor(self.c.user, self.ctx)

    @property
    def replyTo(self):
        return (
            GComment(self.c.in_reply_to, self.ctx)
            if self.c.in_reply_to is not None
            else None
        )

    @property
    def pullRequestReview(self):
        return GReview(self.c.review, self.ctx)

    @property
    def pullRequest(self):
        return GPullRequest(self.c.thread.pull, self.ctx)


def edit_history(obj, c, ctx) -> None:
    """`lastEditedAt`, `editor`, `includesCreatedEdit` and `userContentEdits` of a comment
    from its revisions (a body edit only: a bump of `updated_at` without one adds none)."""
    last = c.history[-1] if c.history else None
    obj.lastEditedAt = last.edited_at if last is not None else None
    obj.editor = GActor(last.editor, ctx) if last is not None else None
    obj.includesCreatedEdit = bool(c.history)

    def userContentEdits(_info, first=None, after=None, last=None, before=None):
        newest_first = list(enumerate(reversed(c.history)))
        return connection(newest_first, lambda t: t[0], lambda t: GUserContentEdit(t[1], ctx),
                          first=first, after=after, last=last, before=before)

    obj.userContentEdits = userContentEdits


class GUserContentEdit:
    typename = "UserContentEdit"

    def __init__(self, rev: model.Revision, ctx):
        self.id = rev.node_id
        self.createdAt = rev.edited_at
        self.updatedAt = rev.deleted_at or rev.edited_at
        self.editedAt = rev.edited_at
        self.deletedAt = rev.deleted_at
        self.diff = rev.body  # the revision's whole text (observed); null once deleted
        self.editor = GActor(rev.editor, ctx)
        self.deletedBy = GActor(rev.editor, ctx) if rev.deleted_at is not None else None


class GIssueComment:
    typename = "IssueComment"

    def __init__(self, c: model.Comment, ctx):
        self.c, self.ctx = c, ctx
        self.id = c.node_id
        self.databaseId = c.id
        self.fullDatabaseId = c.id
        self.body = c.body
        self.bodyText = c.body
        self.createdAt = c.created_at
        self.updatedAt = c.updated_at
        self.authorAssociation = c.association
        self.isMinimized = False
        self.minimizedReason = None
        self.viewerDidAuthor = ctx.viewer is not None and ctx.viewer is c.user
        issue = c.issue
        kind = "pull" if issue.pull is not None else "issues"
        self.url = f"{ctx.html}/{issue.repo.full_name}/{kind}/{issue.number}#issuecomment-{c.id}"
        edit_history(self, c, ctx)

    @property
    def author(self):
        return GActor(self.c.user, self.ctx)


class GReview:
    typename = "PullRequestReview"

    def __init__(self, rv: model.Review, ctx):
        self.rv, self.ctx = rv, ctx
        self.id = rv.node_id
        self.databaseId = rv.id
        self.fullDatabaseId = rv.id
        self.body = rv.body
        self.state = rv.state
        self.authorAssociation = rv.association
        self.submittedAt = rv.submitted_at
        self.url = f"{ctx.html}/{rv.pull.repo.full_name}/pull/{rv.pull.number}#pullrequestreview-{rv.id}"

    @property
    def author(self):
        return GActor(self.rv.user, self.ctx)


def wrap_node(obj, ctx):
    if isinstance(obj, model.User):
        return GActor(obj, ctx)
    if isinstance(obj, model.Repo):
        return GRepository(obj, ctx)
    if isinstance(obj, model.Pull):
        return GPullRequest(obj, ctx)
    if isinstance(obj, model.Thread):
        return GThread(obj, ctx)
    if isinstance(obj, model.ReviewComment):
        return GComment(obj, ctx)
    if isinstance(obj, model.Review):
        return GReview(obj, ctx)
    if isinstance(obj, model.Comment):
        return GIssueComment(obj, ctx)
    return None  # a type outside the subset schema


class Root:
    def __init__(self, ctx):
        self.ctx = ctx

    def repository(self, _info, owner, name, followRenames=True):
        repo = self.ctx.store.find_repo(owner, name)
        if repo is None:
            raise GitHubGraphQLError(
                "NOT_FOUND",
                f"Could not resolve to a Repository with the name '{owner}/{name}'.",
            )
        return GRepository(repo, self.ctx)

    def node(self, _info, id):
        obj = self.ctx.store.nodes.get(id)
        if obj is not None and not self.ctx.sees(obj):
            obj = None
        wrapped = wrap_node(obj, self.ctx) if obj is not None else None
        if wrapped is None:
            raise GitHubGraphQLError(
                "NOT_FOUND", f"Could not resolve to a node with the global id of '{id}'"
            )
        return wrapped

    def nodes(self, info, ids):
        out = []
        for i, node_id in enumerate(ids):
            obj = self.ctx.store.nodes.get(node_id)
            if obj is not None and not self.ctx.sees(obj):
                obj = None
            wrapped = wrap_node(obj, self.ctx) if obj is not None else None
            if wrapped is None:
                self.ctx.extra_errors.append(
                    {
                        "type": "NOT_FOUND",
                        "path": [info.path.key, i],
                        "message": f"Could not resolve to a node with the global id of '{node_id}'",
                    }
                )
            out.append(wrapped)
        return out

    @property
    def viewer(self):
        return GActor(self.ctx.viewer, self.ctx)

    # mutations (the schema's Mutation type resolves on the same root value)
    def resolveReviewThread(self, _info, input):
        return self._set_resolved(input, True, "ResolveReviewThread")

    def unresolveReviewThread(self, _info, input):
        return self._set_resolved(input, False, "UnresolveReviewThread")

    def _set_resolved(self, input, resolved: bool, mutation: str):
        thread_id = input["threadId"]
        thread = self.ctx.store.nodes.get(thread_id)
        if not isinstance(thread, model.Thread) or not self.ctx.sees(thread):
            raise GitHubGraphQLError(
                "NOT_FOUND",
                f"Could not resolve to PullRequestReviewThread node with the global id of "
                f"'{thread_id}'",
            )
        if not thread.viewer_can_resolve:
            login = self.ctx.viewer.graphql_login if self.ctx.viewer else "viewer"
            raise GitHubGraphQLError(
                "FORBIDDEN",
                f"{login} does not have the correct permissions to execute `{mutation}`",
            )
        self.ctx.store.set_thread_resolved(thread, resolved, self.ctx.viewer)
        return {
            "clientMutationId": input.get("clientMutationId"),
            "thread": GThread(thread, self.ctx),
        }

    def rateLimit(self, _info, dryRun=False):
        b = self.ctx.bucket
        return {
            "cost": 1,
            "limit": b.limit,
            "nodeCount": 0,
            "remaining": b.remaining,
            "resetAt": ts(dt.datetime.fromtimestamp(b.reset, dt.timezone.utc)),
            "used": b.used,
        }


class Context:
    def __init__(self, store, html: str, viewer: model.User | None, bucket):
        self.store, self.html, self.viewer, self.bucket = store, html, viewer, bucket
        self.extra_errors: list = []

    def sees(self, item) -> bool:
        """Pending reviews, their comments and threads of only such comments are the
        author's alone (GitHub shows drafts to no one else)."""
        return model.visible_to(item, self.viewer.login if self.viewer else None)


# --------------------------------------------------------------------------- execution


def _format_error(err: GraphQLError) -> dict:
    out: dict = {}
    ext = dict(err.extensions or {})
    if "type" in ext:
        out["type"] = ext.pop("type")
    if err.path is not None:
        out["path"] = list(err.path)
    if ext:
        out["extensions"] = ext
    if err.locations:
        out["locations"] = [
            {"line": loc.line, "column": loc.column} for loc in err.locations
        ]
    out["message"] = err.message
    return out


def _pagination_errors(schema, document, operation, variables) -> list:
    """GitHub's static checks of ``first``/``last`` on every connection field."""
    errors: list = []
    type_info = TypeInfo(schema)
    keys: list = []

    class Check(Visitor):
        def enter_field(self, node: FieldNode, *_):
            keys.append(node.alias.value if node.alias else node.name.value)
            field_def = type_info.get_field_def()
            if field_def is None:
                return
            named = get_named_type(field_def.type)
            if not named.name.endswith("Connection"):
                return
            try:
                args = get_argument_values(field_def, node, variables)
            except GraphQLError:
                return
            loc = node.loc.source.get_location(node.loc.start) if node.loc else None
            where = {"path": list(keys)}
            if loc is not None:
                where["locations"] = [{"line": loc.line, "column": loc.column}]
            first, last = args.get("first"), args.get("last")
            if first is None and last is None:
                errors.append(
                    {
                        "type": "MISSING_PAGINATION_BOUNDARIES",
                        **where,
                        "message": f"You must provide a `first` or `last` value to properly paginate the `{node.name.value}` connection.",
                    }
                )
            for arg, value in (("first", first), ("last", last)):
                if value is not None and value > MAX_PAGE:
                    errors.append(
                        {
                            "type": "EXCESSIVE_PAGINATION",
                            **where,
                            "message": f"Requesting {value} records on the `{node.name.value}` connection exceeds the `{arg}` limit of {MAX_PAGE} records.",
                        }
                    )
                elif value is not None and value < 0:
                    errors.append(
                        {
                            "type": "INVALID_CURSOR_ARGUMENTS",
                            **where,
                            "message": f"`{arg}` must be a non-negative integer.",
                        }
                    )

        def leave_field(self, *_):
            keys.pop()

    for definition in document.definitions:
        if definition is operation or not isinstance(
            definition, OperationDefinitionNode
        ):
            visit(definition, TypeInfoVisitor(type_info, Check()))
    return errors


def run(schema, payload, ctx) -> dict:
    """Execute one GraphQL request body (already JSON-decoded); returns the response document."""
    if not isinstance(payload, dict) or not isinstance(payload.get("query"), str):
        return {
            "errors": [
                {"message": "A query attribute must be specified and must be a string."}
            ]
        }
    raw_vars = payload.get("variables") or {}
    if not isinstance(raw_vars, dict):
        return {"errors": [{"message": "Variables are invalid JSON."}]}
    try:
        document = parse(payload["query"])
    except GraphQLError as err:
        return {"errors": [_format_error(err)]}
    problems = validate(schema, document)
    if problems:
        return {"errors": [_format_error(e) for e in problems]}
    operations = [
        d for d in document.definitions if isinstance(d, OperationDefinitionNode)
    ]
    name = payload.get("operationName")
    operation = next(
        (o for o in operations if name and o.name and o.name.value == name), None
    )
    if operation is None and len(operations) == 1:
        operation = operations[0]
    if operation is not None:
        coerced = get_variable_values(
            schema, operation.variable_definitions or [], raw_vars
        )
        if not isinstance(
            coerced, list
        ):  # a list holds coercion errors: execute() reports them
            pagination = _pagination_errors(schema, document, operation, coerced)
            if pagination:
                return {"errors": pagination}
    result = execute(
        schema,
        document,
        root_value=Root(ctx),
        context_value=ctx,
        variable_values=raw_vars,
        operation_name=name,
    )
    out: dict = {"data": result.data}
    errors = [_format_error(e) for e in (result.errors or [])] + ctx.extra_errors
    if errors:
        out["errors"] = errors
    if result.data is None and not errors:
        out["errors"] = [
            {"message": "Something went wrong while executing your query."}
        ]
    return out


def locate(document_text: str, path: list) -> list | None:
    """Source locations of the field at ``path`` (response keys) in the query, if found."""
    try:
        document = parse(document_text)
    except GraphQLError:
        return None
    selections = [
        d for d in document.definitions if isinstance(d, OperationDefinitionNode)
    ]
    if not selections:
        return None
    nodes = list(selections[0].selection_set.selections)
    found = None
    for key in path:
        if isinstance(key, int):
            continue
        found = next(
            (
                n
                for n in nodes
                if isinstance(n, FieldNode)
                and (n.alias.value if n.alias else n.name.value) == key
            ),
            None,
        )
        if found is None:
            return None
        nodes = list(found.selection_set.selections) if found.selection_set else []
    if found is None or found.loc is None:
        return None
    loc = found.loc.source.get_location(found.loc.start)
    return [{"line": loc.line, "column": loc.column}]


def _default_fault_message(fault, payload: dict, ctx, request_id: str) -> str:
    variables = payload.get("variables") or {}
    if fault.type == "NOT_FOUND":
        owner, name = variables.get("owner", "owner"), variables.get("name", "name")
        return f"Could not resolve to a Repository with the name '{owner}/{name}'."
    if fault.type == "FORBIDDEN":
        return "Resource not accessible by integration"
    if fault.type == "RATE_LIMITED":
        return f"API rate limit exceeded for user ID {ctx.viewer.id}."
    return (
        "Something went wrong while executing your query. Please include "
        f"`{request_id}` when reporting this issue."
    )


def run_with_fault(schema, payload: dict, ctx, fault, request_id: str) -> dict:
    """The answer to a request that ``FakeGitHub.inject_graphql_error`` targets."""
    error: dict = {"type": fault.type}
    message = fault.message or _default_fault_message(fault, payload, ctx, request_id)
    if not fault.path:
        error["message"] = message
        return {"errors": [error]}
    data = run(schema, payload, ctx).get("data")
    node = data
    for key in fault.path[:-1]:  # null the refused field, as GitHub does
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node[fault.path[-1]] = None
    error["path"] = list(fault.path)
    locations = locate(payload.get("query", ""), fault.path)
    if locations:
        error["locations"] = locations
    error["message"] = message
    return {"data": data, "errors": [error]}
