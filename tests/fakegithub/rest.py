"""REST routes of the fake: what api.github.com answers at the same paths.

Each route takes a ``Req`` and returns a ``Resp``; authentication, rate limits, faults,
ETags and the common headers are applied around them in ``server.py``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from . import shapes
from .model import Repo, parse_iso8601, visible_to

DOCS = "https://docs.github.com/rest"
MAX_BODY_CHARS = 65536


@dataclass
class Req:
    method: str
    path: str  # API path, without the /api/v3 prefix and without the query
    query: dict
    headers: dict
    body: bytes
    api: str  # API base the client used: origin (+ /api/v3)
    view: shapes.View
    token: str | None
    login: str | None
    store: object
    fake: object


@dataclass
class Resp:
    status: int
    data: object = None  # JSON-serialisable, or None for no body
    headers: dict = field(default_factory=dict)
    etag: bool = False  # answer If-None-Match / send ETag (GET 200 of a resource)


def error(status: int, message: str, doc: str = DOCS, **extra) -> Resp:
    data = {
        "message": message,
        **extra,
        "documentation_url": doc,
        "status": str(status),
    }
    return Resp(status, data)


def not_found(doc: str = DOCS) -> Resp:
    return error(404, "Not Found", doc)


def requires_auth(doc: str) -> Resp:
    return error(401, "Requires authentication", doc)


def validation_failed(doc: str, errors: list) -> Resp:
    return error(422, "Validation Failed", doc, errors=errors)


# --------------------------------------------------------------------------- pagination


def _int(value: str | None, default: int) -> int:
    try:
        n = int(value) if value is not None else default
    except ValueError:
        return default
    return n if n >= 1 else default


def paginate(
    req: Req, items: list, link_path: str, echo: tuple = ()
) -> tuple[list, dict]:
    """One offset page of ``items`` and GitHub's ``Link`` header for it.

    ``per_page`` defaults to 30 and is clamped to 100; ``page`` defaults to 1 (a value
    that is not a positive integer counts as 1). Links point at ``link_path`` under the
    API base (``/repositories/{id}/…``, as GitHub writes them) with ``page`` first, then
    ``per_page`` exactly as the caller spelled it (only if sent), then the parameters
    in ``echo`` that the caller sent. Past the last page: ``[]`` with prev → last page,
    last and first (as github.com answers).
    """
    per_page = min(100, _int(req.query.get("per_page"), 30))
    page = _int(req.query.get("page"), 1)
    total = len(items)
    last = max(1, math.ceil(total / per_page))
    chunk = items[(page - 1) * per_page : page * per_page]

    def url(k: int) -> str:
        params = [("page", str(k))]
        if "per_page" in req.query:
            params.append(("per_page", req.query["per_page"]))
        params += [(name, req.query[name]) for name in echo if name in req.query]
        return f"{req.api}{link_path}?" + "&".join(
            f"{n}={quote(v, safe='')}" for n, v in params
        )

    rels: list[tuple[str, int]] = []
    if page > last:
        rels = [("prev", last), ("last", last), ("first", 1)]
    elif last > 1:
        if page > 1:
            rels.append(("prev", page - 1))
        if page < last:
            rels += [("next", page + 1), ("last", last)]
        if page > 1:
            rels.append(("first", 1))
    headers = {}
    if rels:
        headers["link"] = ", ".join(f'<{url(k)}>; rel="{rel}"' for rel, k in rels)
    return chunk, headers


def since_filter(req: Req, items: list, doc: str):
    """Items with ``updated_at`` at or after ``since`` (ISO 8601), or an error response."""
    raw = req.query.get("since")
    if raw is None:
        return items
    try:
        since = parse_iso8601(raw)
    except ValueError:
        return error(
            422,
            f"Invalid value for `since`: '{raw}'. Expected an ISO 8601 timestamp.",
            doc,
        )
    if getattr(req.fake, "since_mode", "inclusive") == "exclusive":
        return [c for c in items if c.updated_at > since]
    return [c for c in items if c.updated_at >= since]


# --------------------------------------------------------------------------- routes

DOC_ISSUE_COMMENTS = "https://docs.github.com/rest/issues/comments#list-issue-comments"
DOC_CREATE_COMMENT = (
    "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
)
DOC_COMMENT = "https://docs.github.com/rest/issues/comments#get-an-issue-comment"
DOC_UPDATE_COMMENT = (
    "https://docs.github.com/rest/issues/comments#update-an-issue-comment"
)
DOC_DELETE_COMMENT = (
    "https://docs.github.com/rest/issues/comments#delete-an-issue-comment"
)
DOC_ISSUE = "https://docs.github.com/rest/issues/issues#get-an-issue"
DOC_REPO = "https://docs.github.com/rest/repos/repos#get-a-repository"
DOC_PULL = "https://docs.github.com/rest/pulls/pulls#get-a-pull-request"
DOC_PULLS = "https://docs.github.com/rest/pulls/pulls#list-pull-requests"
DOC_REVIEW_COMMENTS = (
    "https://docs.github.com/rest/pulls/comments#list-review-comments-on-a-pull-request"
)
DOC_REVIEW_COMMENT = "https://docs.github.com/rest/pulls/comments#get-a-review-comment-for-a-pull-request"
DOC_REVIEWS = (
    "https://docs.github.com/rest/pulls/reviews#list-reviews-for-a-pull-request"
)
DOC_REVIEW = (
    "https://docs.github.com/rest/pulls/reviews#get-a-review-for-a-pull-request"
)
DOC_REVIEW_REVIEW_COMMENTS = (
    "https://docs.github.com/rest/pulls/reviews#list-comments-for-a-pull-request-review"
)
DOC_USER = "https://docs.github.com/rest/users/users#get-the-authenticated-user"


def visible_repo(req: Req, groups: dict, doc: str):
    store = req.store
    if groups.get("repo_id"):
        repo = store.repos_by_id.get(int(groups["repo_id"]))
    else:
        repo = store.find_repo(unquote(groups["owner"]), unquote(groups["repo"]))
    if repo is None or (repo.private and req.token is None):
        return None
    return repo


def issue_of(req: Req, repo: Repo, number: str):
    return repo.issues.get(int(number))


def get_root(req: Req, g) -> Resp:
    a = req.api
    return Resp(
        200,
        {
            "current_user_url": f"{a}/user",
            "issue_comment_url": f"{a}/repos/{{owner}}/{{repo}}/issues/comments/{{comment_id}}",
            "rate_limit_url": f"{a}/rate_limit",
            "repository_url": f"{a}/repos/{{owner}}/{{repo}}",
        },
        etag=True,
    )


def get_user(req: Req, g) -> Resp:
    if req.token is None:
        return requires_auth(DOC_USER)
    if req.fake.is_integration_token(req.token):
        # an installation token (GITHUB_TOKEN in Actions, a GitHub App's) is no user
        return error(403, "Resource not accessible by integration", DOC_USER)
    u = req.store.user(req.login)
    data = shapes.user(req.view, u)
    data.update(
        {
            "name": None,
            "company": None,
            "blog": "",
            "location": None,
            "email": None,
            "hireable": None,
            "bio": None,
            "twitter_username": None,
            "public_repos": 0,
            "public_gists": 0,
            "followers": 0,
            "following": 0,
            "created_at": "2011-01-25T18:44:36Z",
            "updated_at": "2011-01-25T18:44:36Z",
        }
    )
    return Resp(200, data, etag=True)


def get_repo(req: Req, g) -> Resp:
    repo = visible_repo(req, g, DOC_REPO)
    if repo is None:
        return not_found(DOC_REPO)
    return Resp(200, shapes.repository(req.view, repo, full=True), etag=True)


def get_issue(req: Req, g) -> Resp:
    repo = visible_repo(req, g, DOC_ISSUE)
    issue = repo and issue_of(req, repo, g["number"])
    if not issue:
        return not_found(DOC_ISSUE)
    return Resp(200, shapes.issue(req.view, issue), etag=True)


def list_issue_comments(req: Req, g) -> Resp:
    repo = visible_repo(req, g, DOC_ISSUE_COMMENTS)
    issue = repo and issue_of(req, repo, g["number"])
    if not issue:
        return not_found(DOC_ISSUE_COMMENTS)
    items = since_filter(req, issue.comments, DOC_ISSUE_COMMENTS)
    if isinstance(items, Resp):
        return items
    chunk, headers = paginate(
        req,
        items,
        f"/repositories/{repo.id}/issues/{issue.number}/comments",
        ("since",),
    )
    return Resp(
        200, [shapes.issue_comment(req.view, c) for c in chunk], headers, etag=True
    )


def _json_body(req: Req, doc: str):
    try:
        data = json.loads(req.body.decode("utf-8") or "null")
    except (UnicodeDecodeError, ValueError):
        return error(400, "Problems parsing JSON", doc)
    if not isinstance(data, dict):
        return error(400, "Problems parsing JSON", doc)
    return data


def _check_body(data: dict, doc: str) -> Resp | None:
    body = data.get("body")
    if body is None or body == "":
        return validation_failed(
            doc,
            [{"resource": "IssueComment", "code": "missing_field", "field": "body"}],
        )
    if not isinstance(body, str):
        return error(
            422,
            f"Invalid request.\n\nFor 'properties/body', {json.dumps(body)} is not a string.",
            doc,
        )
    if len(body) > MAX_BODY_CHARS:
        return validation_failed(
            doc,
            [
                {
                    "resource": "IssueComment",
                    "code": "unprocessable",
                    "field": "data",
                    "message": f"Body is too long (maximum is {MAX_BODY_CHARS} characters)",
                }
            ],
        )
    return None


def create_issue_comment(req: Req, g) -> Resp:
    repo = visible_repo(req, g, DOC_CREATE_COMMENT)
    issue = repo and issue_of(req, repo, g["number"])
    if req.token is None:
        return requires_auth(DOC_CREATE_COMMENT)
    if not issue:
        return not_found(DOC_CREATE_COMMENT)
    data = _json_body(req, DOC_CREATE_COMMENT)
    if isinstance(data, Resp):
        return data
    problem = _check_body(data, DOC_CREATE_COMMENT)
    if problem:
        return problem
    comment = req.fake._post_comment(issue, data["body"], req.login)
    out = shapes.issue_comment(req.view, comment)
    return Resp(201, out, {"location": out["url"]})


def _comment_in(req: Req, g, doc: str):
    repo = visible_repo(req, g, doc)
    if repo is None:
        return None
    comment = req.store.comments.get(int(g["comment_id"]))
    if comment is None or comment.issue.repo is not repo:
        return None
    return comment


def _may_edit(req: Req, comment) -> bool:
    login = (req.login or "").lower()
    return login in (comment.user.login.lower(), comment.issue.repo.owner.login.lower())


def get_issue_comment(req: Req, g) -> Resp:
    comment = _comment_in(req, g, DOC_COMMENT)
    if comment is None:
        return not_found(DOC_COMMENT)
    return Resp(200, shapes.issue_comment(req.view, comment), etag=True)


def update_issue_comment(req: Req, g) -> Resp:
    if req.token is None:
        return requires_auth(DOC_UPDATE_COMMENT)
    comment = _comment_in(req, g, DOC_UPDATE_COMMENT)
    if comment is None:
        return not_found(DOC_UPDATE_COMMENT)
    if not _may_edit(req, comment):
        return error(403, "Must have admin rights to Repository.", DOC_UPDATE_COMMENT)
    data = _json_body(req, DOC_UPDATE_COMMENT)
    if isinstance(data, Resp):
        return data
    problem = _check_body(data, DOC_UPDATE_COMMENT)
    if problem:
        return problem
    req.fake._edit(comment, data["body"])
    return Resp(200, shapes.issue_comment(req.view, comment))


def delete_issue_comment(req: Req, g) -> Resp:
    if req.token is None:
        return requires_auth(DOC_DELETE_COMMENT)
    comment = _comment_in(req, g, DOC_DELETE_COMMENT)
    if comment is None:
        return not_found(DOC_DELETE_COMMENT)
    if not _may_edit(req, comment):
        return error(403, "Must have admin rights to Repository.", DOC_DELETE_COMMENT)
    req.store.delete_comment(comment.id)
    return Resp(204)


def _pull(req: Req, g, doc: str):
    repo = visible_repo(req, g, doc)
    issue = repo and issue_of(req, repo, g["number"])
    return issue.pull if issue else None


def get_pull(req: Req, g) -> Resp:
    pull = _pull(req, g, DOC_PULL)
    if pull is None:
        return not_found(DOC_PULL)
    pull.read_mergeability()  # a read starts GitHub's mergeability job (section 23)
    return Resp(200, shapes.pull_full(req.view, pull), etag=True)


def list_pulls(req: Req, g) -> Resp:
    repo = visible_repo(req, g, DOC_PULLS)
    if repo is None:
        return not_found(DOC_PULLS)
    state = req.query.get("state", "open")
    if state not in ("open", "closed", "all"):
        return validation_failed(
            DOC_PULLS, [{"resource": "Issue", "field": "state", "code": "invalid"}]
        )
    pulls = [i.pull for i in repo.issues.values() if i.pull is not None]
    if state != "all":
        pulls = [
            p
            for p in pulls
            if ("closed" if p.issue.state == "closed" or p.merged else "open") == state
        ]
    head = req.query.get("head")
    if head is not None:
        owner, sep, ref = head.partition(":")
        # GitHub documents ``user:ref-name``; anything else matches nothing here.
        pulls = [
            p
            for p in pulls
            if sep and p.head_owner.login.lower() == owner.lower() and p.head_ref == ref
        ]
    base = req.query.get("base")
    if base is not None:
        pulls = [p for p in pulls if p.base_ref == base]
    sort = req.query.get("sort", "created")
    keyf = {"updated": lambda p: (p.issue.updated_at, p.id)}.get(
        sort, lambda p: (p.issue.created_at, p.id)
    )
    direction = req.query.get("direction", "desc")
    pulls.sort(key=keyf, reverse=direction != "asc")
    chunk, headers = paginate(
        req,
        pulls,
        f"/repositories/{repo.id}/pulls",
        ("state", "head", "base", "sort", "direction"),
    )
    return Resp(
        200, [shapes.pull_simple(req.view, p) for p in chunk], headers, etag=True
    )


def list_review_comments(req: Req, g) -> Resp:
    pull = _pull(req, g, DOC_REVIEW_COMMENTS)
    if pull is None:
        return not_found(DOC_REVIEW_COMMENTS)
    visible = [c for c in pull.review_comments if visible_to(c, req.login)]
    items = since_filter(req, visible, DOC_REVIEW_COMMENTS)
    if isinstance(items, Resp):
        return items
    chunk, headers = paginate(
        req,
        items,
        f"/repositories/{pull.repo.id}/pulls/{pull.number}/comments",
        ("since",),
    )
    return Resp(
        200, [shapes.review_comment(req.view, c) for c in chunk], headers, etag=True
    )


def get_review_comment(req: Req, g) -> Resp:
    repo = visible_repo(req, g, DOC_REVIEW_COMMENT)
    c = repo and req.store.review_comments.get(int(g["comment_id"]))
    if not c or c.thread.pull.repo is not repo or not visible_to(c, req.login):
        return not_found(DOC_REVIEW_COMMENT)
    return Resp(200, shapes.review_comment(req.view, c), etag=True)


def ordered_reviews(req: Req, pull) -> list:
    """The reviews the token sees, in the order ``fake.review_order`` says.

    GitHub documents only "chronological order". "id": ascending id (the token's own
    PENDING review among them by id); "submitted": submitted reviews by (submitted_at,
    id), the token's own PENDING review last.
    """
    items = [r for r in pull.reviews if visible_to(r, req.login)]
    if getattr(req.fake, "review_order", "id") == "submitted":
        done = sorted(
            (r for r in items if r.submitted_at is not None),
            key=lambda r: (r.submitted_at, r.id),
        )
        return done + [r for r in items if r.submitted_at is None]
    return sorted(items, key=lambda r: r.id)


def list_reviews(req: Req, g) -> Resp:
    pull = _pull(req, g, DOC_REVIEWS)
    if pull is None:
        return not_found(DOC_REVIEWS)
    chunk, headers = paginate(
        req,
        ordered_reviews(req, pull),
        f"/repositories/{pull.repo.id}/pulls/{pull.number}/reviews",
    )
    return Resp(200, [shapes.review(req.view, r) for r in chunk], headers, etag=True)


def _review(req: Req, g, doc: str):
    """The review ``review_id`` of this pull request, if the token may see it."""
    pull = _pull(req, g, doc)
    review = pull and req.store.reviews.get(int(g["review_id"]))
    if not review or review.pull is not pull or not visible_to(review, req.login):
        return None
    return review


def get_review(req: Req, g) -> Resp:
    review = _review(req, g, DOC_REVIEW)
    if review is None:
        return not_found(DOC_REVIEW)
    return Resp(200, shapes.review(req.view, review), etag=True)


def list_review_review_comments(req: Req, g) -> Resp:
    """``GET /pulls/N/reviews/ID/comments``: the review's comments, ascending id, in
    GitHub's ``review-comment`` shape (the same fields as ``pull-request-review-comment``)."""
    review = _review(req, g, DOC_REVIEW_REVIEW_COMMENTS)
    if review is None:
        return not_found(DOC_REVIEW_REVIEW_COMMENTS)
    pull = review.pull
    items = [c for c in pull.review_comments if c.review is review]
    chunk, headers = paginate(
        req,
        items,
        f"/repositories/{pull.repo.id}/pulls/{pull.number}/reviews/{review.id}/comments",
    )
    return Resp(
        200, [shapes.review_comment(req.view, c) for c in chunk], headers, etag=True
    )


# --------------------------------------------------------------------------- review writes

DOC_CREATE_REPLY = "https://docs.github.com/rest/pulls/comments#create-a-reply-for-a-review-comment"
DOC_UPDATE_REVIEW_COMMENT = (
    "https://docs.github.com/rest/pulls/comments#update-a-review-comment-for-a-pull-request"
)
DOC_CREATE_REVIEW = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"
DOC_SUBMIT_REVIEW = (
    "https://docs.github.com/rest/pulls/reviews#submit-a-review-for-a-pull-request"
)
DOC_DELETE_REVIEW = (
    "https://docs.github.com/rest/pulls/reviews#delete-a-pending-review-for-a-pull-request"
)
DOC_DISMISS_REVIEW = (
    "https://docs.github.com/rest/pulls/reviews#dismiss-a-review-for-a-pull-request"
)
REVIEW_EVENTS = ("APPROVE", "REQUEST_CHANGES", "COMMENT")
REVIEW_COMMENT_KEYS = ("path", "position", "body", "line", "side", "start_line", "start_side")


def unprocessable(doc: str, *reasons: str) -> Resp:
    """GitHub's 422 whose ``errors`` are plain strings (reviews answer so)."""
    return error(422, "Unprocessable Entity", doc, errors=list(reasons))


def _review_comment_body(data: dict, doc: str) -> Resp | None:
    problem = _check_body(data, doc)
    if problem is not None and isinstance(problem.data, dict):
        for item in problem.data.get("errors") or []:
            if isinstance(item, dict) and item.get("resource") == "IssueComment":
                item["resource"] = "PullRequestReviewComment"
    return problem


def _visible_review_comment(req: Req, g, doc: str):
    repo = visible_repo(req, g, doc)
    c = repo and req.store.review_comments.get(int(g["comment_id"]))
    if not c or c.thread.pull.repo is not repo or not visible_to(c, req.login):
        return None
    return c


def create_reply(req: Req, g) -> Resp:
    """``POST /pulls/N/comments/ID/replies``. GitHub documents that ID must be a thread's
    first comment ("replies to replies are not supported"); the fake refuses a reply's id,
    the worst case of that sentence."""
    if req.token is None:
        return requires_auth(DOC_CREATE_REPLY)
    pull = _pull(req, g, DOC_CREATE_REPLY)
    target = pull and _visible_review_comment(req, g, DOC_CREATE_REPLY)
    if not target or target.thread.pull is not pull:
        return not_found(DOC_CREATE_REPLY)
    data = _json_body(req, DOC_CREATE_REPLY)
    if isinstance(data, Resp):
        return data
    problem = _review_comment_body(data, DOC_CREATE_REPLY)
    if problem:
        return problem
    if any(r.state == "PENDING" and r.user.login.lower() == req.login.lower()
           for r in pull.reviews):
        # GitHub ties a reply to the user's open draft and refuses (namanshergill/diohub#18)
        return validation_failed(
            DOC_CREATE_REPLY,
            [{"resource": "PullRequestReview", "code": "custom", "field": "user_id",
              "message": "user_id can only have one pending review per pull request"}],
        )
    if target.in_reply_to is not None:
        return validation_failed(
            DOC_CREATE_REPLY,
            [{"resource": "PullRequestReviewComment", "code": "invalid",
              "field": "in_reply_to_id",
              "message": "replies to replies are not supported"}],
        )
    made = req.fake.reply_to_review_comment(
        target.id, req.login, data["body"],
        user_type="Bot" if req.login.endswith("[bot]") else "User",
        association="OWNER" if req.login.lower() == pull.repo.owner.login.lower() else "NONE",
    )
    out = shapes.review_comment(req.view, req.store.review_comments[made["id"]])
    return Resp(201, out, {"location": out["url"]})


def update_review_comment(req: Req, g) -> Resp:
    if req.token is None:
        return requires_auth(DOC_UPDATE_REVIEW_COMMENT)
    c = _visible_review_comment(req, g, DOC_UPDATE_REVIEW_COMMENT)
    if c is None:
        return not_found(DOC_UPDATE_REVIEW_COMMENT)
    login = (req.login or "").lower()
    if login not in (c.user.login.lower(), c.thread.pull.repo.owner.login.lower()):
        return error(403, "Must have admin rights to Repository.", DOC_UPDATE_REVIEW_COMMENT)
    data = _json_body(req, DOC_UPDATE_REVIEW_COMMENT)
    if isinstance(data, Resp):
        return data
    problem = _review_comment_body(data, DOC_UPDATE_REVIEW_COMMENT)
    if problem:
        return problem
    return Resp(200, req.fake.edit_review_comment(c.id, data["body"]))


def _review_verdict_refusal(req: Req, pull, event: str | None, body, has_comments: bool,
                            doc: str) -> Resp | None:
    """GitHub's refusals of a verdict: one's own PR, a change request without words."""
    own = (req.login or "").lower() == pull.issue.user.login.lower()
    if own and event == "APPROVE":
        return unprocessable(doc, "Can not approve your own pull request")
    if own and event == "REQUEST_CHANGES":
        return unprocessable(doc, "Can not request changes on your own pull request")
    if event == "REQUEST_CHANGES" and not body:
        return unprocessable(doc, "You need to leave a comment indicating the requested changes.")
    if event == "COMMENT" and not body and not has_comments:
        return validation_failed(
            doc, [{"resource": "PullRequestReview", "code": "missing_field", "field": "body"}]
        )
    return None


def _bad_event(event, doc: str) -> Resp | None:
    if event is None or event in REVIEW_EVENTS:
        return None
    return error(
        422,
        f"Invalid request.\n\nFor 'properties/event', {json.dumps(event)} is not one of "
        f"{json.dumps(list(REVIEW_EVENTS))}.",
        doc,
    )


def create_review(req: Req, g) -> Resp:
    """``POST /pulls/N/reviews``: with ``event`` a submitted review, without one a PENDING
    review; its ``comments`` open new threads. One pending review per user per PR; no
    approving or requesting changes on one's own PR."""
    if req.token is None:
        return requires_auth(DOC_CREATE_REVIEW)
    pull = _pull(req, g, DOC_CREATE_REVIEW)
    if pull is None:
        return not_found(DOC_CREATE_REVIEW)
    data = _json_body(req, DOC_CREATE_REVIEW)
    if isinstance(data, Resp):
        return data
    event, body = data.get("event"), data.get("body")
    bad = _bad_event(event, DOC_CREATE_REVIEW)
    if bad:
        return bad
    if body is not None and not isinstance(body, str):
        return error(422, f"Invalid request.\n\nFor 'properties/body', {json.dumps(body)} "
                     "is not a string.", DOC_CREATE_REVIEW)
    comments = data.get("comments") or []
    if not isinstance(comments, list):
        return error(422, "Invalid request.\n\nFor 'properties/comments', "
                     f"{json.dumps(comments)} is not an array.", DOC_CREATE_REVIEW)
    drafts = []
    for c in comments:
        if not isinstance(c, dict):
            return error(422, "Invalid request.\n\nFor 'items', "
                         f"{json.dumps(c)} is not an object.", DOC_CREATE_REVIEW)
        extra = [k for k in c if k not in REVIEW_COMMENT_KEYS]
        if extra:
            return error(422, f"Invalid request.\n\n{json.dumps(extra[0])} is not a "
                         "permitted key.", DOC_CREATE_REVIEW)
        if not isinstance(c.get("path"), str) or not isinstance(c.get("body"), str) \
                or not c["body"]:
            return validation_failed(DOC_CREATE_REVIEW, [
                {"resource": "PullRequestReviewComment", "code": "missing_field",
                 "field": "path" if not isinstance(c.get("path"), str) else "body"}])
        line = c.get("line")
        if not isinstance(line, int) or isinstance(line, bool) or line < 1:
            # the fake serves no diff positions: a comment needs its line
            return unprocessable(DOC_CREATE_REVIEW,
                                 "pull_request_review_thread.line must be part of the diff")
        start = c.get("start_line")
        if start is not None and (not isinstance(start, int) or start >= line):
            return unprocessable(DOC_CREATE_REVIEW, "pull_request_review_thread.start_line "
                                 "must precede the end line.")
        drafts.append({"path": c["path"], "line": line, "body": c["body"],
                       "start_line": start, "side": c.get("side")})
    mine = [r for r in pull.reviews if r.state == "PENDING"
            and r.user.login.lower() == (req.login or "").lower()]
    if mine:
        return unprocessable(DOC_CREATE_REVIEW,
                             "User can only have one pending review per pull request")
    refused = _review_verdict_refusal(req, pull, event, body, bool(drafts), DOC_CREATE_REVIEW)
    if refused:
        return refused
    out = req.fake.create_review(
        pull.repo.owner.login, pull.repo.name, pull.number, req.login, event=event,
        body=body or "", comments=drafts,
        user_type="Bot" if req.login.endswith("[bot]") else "User",
    )
    return Resp(200, out)


def submit_review(req: Req, g) -> Resp:
    """``POST /pulls/N/reviews/ID/events``: submit one's PENDING review."""
    if req.token is None:
        return requires_auth(DOC_SUBMIT_REVIEW)
    review = _review(req, g, DOC_SUBMIT_REVIEW)
    if review is None:
        return not_found(DOC_SUBMIT_REVIEW)
    data = _json_body(req, DOC_SUBMIT_REVIEW)
    if isinstance(data, Resp):
        return data
    event, body = data.get("event"), data.get("body")
    if event is None:
        return validation_failed(DOC_SUBMIT_REVIEW, [
            {"resource": "PullRequestReview", "code": "missing_field", "field": "event"}])
    bad = _bad_event(event, DOC_SUBMIT_REVIEW)
    if bad:
        return bad
    if review.state != "PENDING":
        return unprocessable(DOC_SUBMIT_REVIEW, "Can not submit a non-pending review")
    has_comments = any(c.review is review for c in review.pull.review_comments)
    refused = _review_verdict_refusal(req, review.pull, event, body or review.body,
                                      has_comments, DOC_SUBMIT_REVIEW)
    if refused:
        return refused
    states = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED",
              "COMMENT": "COMMENTED"}
    return Resp(200, req.fake.submit_review(review.id, states[event], body))


def delete_pending_review(req: Req, g) -> Resp:
    """``DELETE /pulls/N/reviews/ID``: discard one's PENDING review (200 with the review)."""
    if req.token is None:
        return requires_auth(DOC_DELETE_REVIEW)
    review = _review(req, g, DOC_DELETE_REVIEW)
    if review is None:
        return not_found(DOC_DELETE_REVIEW)
    if review.state != "PENDING":
        return unprocessable(DOC_DELETE_REVIEW, "Can not delete a non-pending pull request "
                             "review")
    out = shapes.review(req.view, review)
    req.fake.delete_pending_review(review.id)
    return Resp(200, out)


def dismiss_review(req: Req, g) -> Resp:
    """``PUT /pulls/N/reviews/ID/dismissals``: the repository's owner dismisses an APPROVED
    or CHANGES_REQUESTED review (the fake knows no other maintainers)."""
    if req.token is None:
        return requires_auth(DOC_DISMISS_REVIEW)
    review = _review(req, g, DOC_DISMISS_REVIEW)
    if review is None:
        return not_found(DOC_DISMISS_REVIEW)
    if (req.login or "").lower() != review.pull.repo.owner.login.lower():
        return error(403, "Must have admin rights to Repository.", DOC_DISMISS_REVIEW)
    data = _json_body(req, DOC_DISMISS_REVIEW)
    if isinstance(data, Resp):
        return data
    message = data.get("message")
    if not isinstance(message, str) or not message:
        return validation_failed(DOC_DISMISS_REVIEW, [
            {"resource": "PullRequestReview", "code": "missing_field", "field": "message"}])
    if data.get("event") not in (None, "DISMISS"):
        return _bad_event(data.get("event"), DOC_DISMISS_REVIEW)
    if review.state not in ("APPROVED", "CHANGES_REQUESTED"):
        kind = "pending" if review.state == "PENDING" else review.state.lower()
        return unprocessable(DOC_DISMISS_REVIEW,
                             f"Can not dismiss a {kind} pull request review")
    return Resp(200, req.fake.dismiss_review(review.id, message, by=req.login))


# --------------------------------------------------------------------------- events, refs, commits

DOC_ISSUE_EVENTS = "https://docs.github.com/rest/issues/events#list-issue-events"
DOC_GIT_REF = "https://docs.github.com/rest/git/refs#get-a-reference"
DOC_MATCHING_REFS = "https://docs.github.com/rest/git/refs#list-matching-references"
DOC_COMPARE = "https://docs.github.com/rest/commits/commits#compare-two-commits"
DOC_PULL_COMMITS = (
    "https://docs.github.com/rest/pulls/pulls#list-commits-on-a-pull-request"
)
DOC_REDIRECT = (
    "https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects"
)
PULL_COMMITS_CAP = 250  # "Lists a maximum of 250 commits for a pull request"
COMPARE_UNPAGED_CAP = 250  # compare without page/per_page: at most 250 commits


def list_issue_events(req: Req, g) -> Resp:
    repo = visible_repo(req, g, DOC_ISSUE_EVENTS)
    issue = repo and issue_of(req, repo, g["number"])
    if not issue:
        return not_found(DOC_ISSUE_EVENTS)
    items = list(issue.events)
    if getattr(req.fake, "events_order", "ascending") == "descending":
        items.reverse()
    chunk, headers = paginate(
        req, items, f"/repositories/{repo.id}/issues/{issue.number}/events"
    )
    users = req.fake._who
    return Resp(
        200, [shapes.event(req.view, e, users) for e in chunk], headers, etag=True
    )


def get_issue_event(req: Req, g) -> Resp:
    doc = "https://docs.github.com/rest/issues/events#get-an-issue-event"
    repo = visible_repo(req, g, doc)
    wanted = int(g["event_id"])
    for issue in (repo.issues.values() if repo else ()):
        for e in issue.events:
            if e.id == wanted:
                return Resp(200, shapes.event(req.view, e, req.fake._who), etag=True)
    return not_found(doc)


def moved_issue(req: Req):
    """A 301 (307 for a write) for a path under a transferred issue, or None."""
    found = re.match(REPO + r"/issues/(?P<number>\d+)(?P<rest>/.*)?$", req.path)
    if not found:
        return None
    g = found.groupdict()
    repo = visible_repo(req, g, DOC_ISSUE)
    issue = repo and repo.moved.get(int(g["number"]))
    if not issue:
        return None
    query = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in req.query.items())
    location = (
        f"{req.api}/repositories/{issue.repo.id}/issues/{issue.number}{g['rest'] or ''}"
        + (f"?{query}" if query else "")
    )
    status = 301 if req.method in ("GET", "HEAD") else 307
    data = {"message": "Moved Permanently", "url": location, "documentation_url": DOC_REDIRECT}
    return Resp(status, data, {"location": location})


def renamed_repo(req: Req):
    """A 301 (307 for a write) for a path under a repository's old name, or None. GitHub
    answers a renamed (or transferred) repository's old ``/repos/OWNER/NAME`` with
    ``Location: {api}/repositories/{id}`` (recorded: PyGithub's
    testGetRepositoryWith301Redirect, octokit's rename-repository, a 301 that costs a point);
    below it the rest of the path and the query are kept (assumed: no recording shows a
    sub-path)."""
    found = re.match(r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)(?P<rest>/.*)?$", req.path)
    if not found:
        return None
    g = found.groupdict()
    owner, name = unquote(g["owner"]).lower(), unquote(g["repo"]).lower()
    if req.store.find_repo(owner, name) is not None:
        return None
    repo = req.store.renamed.get((owner, name))
    if repo is None or (repo.private and req.token is None):
        return None
    query = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in req.query.items())
    location = (f"{req.api}/repositories/{repo.id}{g['rest'] or ''}"
                + (f"?{query}" if query else ""))
    status = 301 if req.method in ("GET", "HEAD") else 307
    data = {"message": "Moved Permanently", "url": location,
            "documentation_url": "https://docs.github.com/v3/#http-redirects"}
    return Resp(status, data, {"location": location})


def branches(req: Req, g) -> dict | None:
    """The branches the fake knows of one repository (stored, or a PR's fork): ref ->
    (Repo, sha); None when no such repository is visible. A branch is a PR's head (not
    deleted, head repository not deleted) or a PR's base; when several PRs share a head
    branch, the one whose head moved last wins."""
    store = req.store
    rid = int(g["repo_id"]) if g.get("repo_id") else None
    owner = None if rid else unquote(g["owner"]).lower()
    name = None if rid else unquote(g["repo"]).lower()

    def same(r):
        if r is None:
            return False
        if rid is not None:
            return r.id == rid
        return r.owner.login.lower() == owner and r.name.lower() == name

    found, known = {}, False
    for base in list(store.repos.values()):
        if base.private and req.token is None:
            continue
        pulls = [i.pull for i in base.issues.values() if i.pull is not None]
        if same(base):
            known = True
            for p in pulls:
                found.setdefault(p.base_ref, (base, p.base_sha, -1))
        for p in sorted(pulls, key=lambda p: (p.head_seq, p.issue.state == "open", p.number)):
            head = shapes.head_repo(p)
            if same(head):
                known = True
                if not p.head_ref_deleted:
                    found[p.head_ref] = (head, p.head_sha, p.head_seq)
        # a fork whose every PR lost its head repository is unknown
    if not known:
        return None
    return {ref: (r, s) for ref, (r, s, _) in found.items()}


def get_git_ref(req: Req, g) -> Resp:
    known = branches(req, g)
    ref = unquote(g["ref"])
    if known is None or not ref.startswith("heads/") or ref[6:] not in known:
        return not_found(DOC_GIT_REF)
    repo, commit_sha = known[ref[6:]]
    return Resp(200, shapes.git_ref(req.view, repo, ref[6:], commit_sha), etag=True)


def list_matching_refs(req: Req, g) -> Resp:
    known = branches(req, g)
    if known is None:
        return not_found(DOC_MATCHING_REFS)
    prefix = unquote(g["ref"] or "")
    out = [
        shapes.git_ref(req.view, repo, ref, s)
        for ref, (repo, s) in sorted(known.items())
        if f"heads/{ref}".startswith(prefix)
    ]
    return Resp(200, out, etag=True)


def _commit_for(req: Req, repo, spec: str):
    """A compare side: a sha (full or 7+ hex), ``owner:branch`` or a branch name."""
    store = req.store
    if spec in store.gone_shas:
        return None
    c = store.commits.get(spec)
    if c is None and re.fullmatch(r"[0-9a-f]{7,39}", spec):
        hits = [s for s in store.commits if s.startswith(spec)]
        c = store.commits.get(hits[0]) if len(hits) == 1 else None
    if c is None:
        owner, sep, ref = spec.rpartition(":")
        g = {"owner": owner if sep else repo.owner.login, "repo": repo.name}
        known = branches(req, g) or {}
        if ref in known:
            c = store.commits.get(known[ref][1])
    if c is None or c.sha in store.gone_shas or c.repo is not repo:
        return None
    return c


DOC_COMMIT = "https://docs.github.com/rest/commits/commits#get-a-commit"


def get_commit(req: Req, g) -> Resp:
    """`GET /repos/O/R/commits/REF` (a sha): the commit, 404 for one GitHub does not have
    (unknown or garbage-collected, like compare); the `files`/`stats` of the real answer are
    left out (nothing reads them)."""
    repo = visible_repo(req, g, DOC_COMMIT)
    if repo is None:
        return not_found(DOC_COMMIT)
    c = _commit_for(req, repo, unquote(g["ref"]))
    if c is None:
        return error(422, f"No commit found for SHA: {unquote(g['ref'])}", DOC_COMMIT)
    return Resp(200, shapes.commit(req.view, c), {}, etag=True)


def compare(req: Req, g) -> Resp:
    repo = visible_repo(req, g, DOC_COMPARE)
    if repo is None:
        return not_found(DOC_COMPARE)
    basehead = unquote(g["basehead"])
    base_spec, sep, head_spec = basehead.partition("...")
    if not sep:
        return not_found(DOC_COMPARE)
    ends = []
    for spec in (base_spec, head_spec):
        c = _commit_for(req, repo, spec)
        if c is None:
            return error(404, f"No commit found for SHA: {spec}", DOC_COMPARE)
        ends.append(c)
    base, head = ends
    store = req.store
    base_line, head_line = store.ancestry(base.sha), store.ancestry(head.sha)
    in_base, in_head = set(base_line), set(head_line)
    ahead = [s for s in head_line if s not in in_base][::-1]  # oldest first
    behind = [s for s in base_line if s not in in_head]
    merge_base = next((s for s in head_line if s in in_base), base.sha)
    if not ahead and not behind:
        status = "identical"
    elif not behind:
        status = "ahead"
    elif not ahead:
        status = "behind"
    else:
        status = "diverged"
    commits = [store.commits[s] for s in ahead]
    headers = {}
    if "page" in req.query or "per_page" in req.query:
        commits, headers = paginate(req, commits, f"/repositories/{repo.id}/compare/{basehead}")
    else:
        commits = commits[:COMPARE_UNPAGED_CAP]
    a = f"{req.view.api}/repos/{repo.full_name}"
    html = f"{req.view.html}/{repo.full_name}"
    data = {
        "url": f"{a}/compare/{basehead}",
        "html_url": f"{html}/compare/{basehead}",
        "permalink_url": f"{html}/compare/{repo.owner.login}:{base.sha[:7]}..."
        f"{repo.owner.login}:{head.sha[:7]}",
        "diff_url": f"{html}/compare/{basehead}.diff",
        "patch_url": f"{html}/compare/{basehead}.patch",
        "base_commit": shapes.commit(req.view, base),
        "merge_base_commit": shapes.commit(req.view, store.commits[merge_base]),
        "status": status,
        "ahead_by": len(ahead),
        "behind_by": len(behind),
        "total_commits": len(ahead),
        "commits": [shapes.commit(req.view, c) for c in commits],
        "files": [],
    }
    return Resp(200, data, headers, etag=True)


def list_pull_commits(req: Req, g) -> Resp:
    pull = _pull(req, g, DOC_PULL_COMMITS)
    if pull is None:
        return not_found(DOC_PULL_COMMITS)
    ordered = sorted(pull.commits, key=lambda c: c.committed_at)[:PULL_COMMITS_CAP]
    chunk, headers = paginate(
        req, ordered, f"/repositories/{pull.repo.id}/pulls/{pull.number}/commits"
    )
    return Resp(200, [shapes.commit(req.view, c) for c in chunk], headers, etag=True)


REPO = r"^/(?:repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)|repositories/(?P<repo_id>\d+))"

ROUTES: list[tuple[str, re.Pattern, Callable]] = [
    (m, re.compile(p), f)
    for m, p, f in [
        ("GET", r"^/?$", get_root),
        ("GET", r"^/user$", get_user),
        ("GET", REPO + r"$", get_repo),
        ("GET", REPO + r"/issues/(?P<number>\d+)$", get_issue),
        ("GET", REPO + r"/issues/(?P<number>\d+)/comments$", list_issue_comments),
        ("POST", REPO + r"/issues/(?P<number>\d+)/comments$", create_issue_comment),
        ("GET", REPO + r"/issues/(?P<number>\d+)/events$", list_issue_events),
        ("GET", REPO + r"/issues/events/(?P<event_id>\d+)$", get_issue_event),
        ("GET", REPO + r"/git/ref/(?P<ref>.+)$", get_git_ref),
        ("GET", REPO + r"/git/matching-refs/(?P<ref>.*)$", list_matching_refs),
        ("GET", REPO + r"/compare/(?P<basehead>.+)$", compare),
        ("GET", REPO + r"/commits/(?P<ref>[^/]+)$", get_commit),
        ("GET", REPO + r"/pulls/(?P<number>\d+)/commits$", list_pull_commits),
        ("GET", REPO + r"/issues/comments/(?P<comment_id>\d+)$", get_issue_comment),
        (
            "PATCH",
            REPO + r"/issues/comments/(?P<comment_id>\d+)$",
            update_issue_comment,
        ),
        (
            "DELETE",
            REPO + r"/issues/comments/(?P<comment_id>\d+)$",
            delete_issue_comment,
        ),
        ("GET", REPO + r"/pulls$", list_pulls),
        ("GET", REPO + r"/pulls/(?P<number>\d+)$", get_pull),
        ("GET", REPO + r"/pulls/(?P<number>\d+)/comments$", list_review_comments),
        ("GET", REPO + r"/pulls/comments/(?P<comment_id>\d+)$", get_review_comment),
        ("PATCH", REPO + r"/pulls/comments/(?P<comment_id>\d+)$", update_review_comment),
        (
            "POST",
            REPO + r"/pulls/(?P<number>\d+)/comments/(?P<comment_id>\d+)/replies$",
            create_reply,
        ),
        ("POST", REPO + r"/pulls/(?P<number>\d+)/reviews$", create_review),
        (
            "POST",
            REPO + r"/pulls/(?P<number>\d+)/reviews/(?P<review_id>\d+)/events$",
            submit_review,
        ),
        (
            "DELETE",
            REPO + r"/pulls/(?P<number>\d+)/reviews/(?P<review_id>\d+)$",
            delete_pending_review,
        ),
        (
            "PUT",
            REPO + r"/pulls/(?P<number>\d+)/reviews/(?P<review_id>\d+)/dismissals$",
            dismiss_review,
        ),
        ("GET", REPO + r"/pulls/(?P<number>\d+)/reviews$", list_reviews),
        (
            "GET",
            REPO + r"/pulls/(?P<number>\d+)/reviews/(?P<review_id>\d+)$",
            get_review,
        ),
        (
            "GET",
            REPO + r"/pulls/(?P<number>\d+)/reviews/(?P<review_id>\d+)/comments$",
            list_review_review_comments,
        ),
    ]
]


_CHECK_ROUTES: list = []


def _check_routes() -> list:
    """The CI checks routes (checks.py, which imports this module: loaded on first use)."""
    if not _CHECK_ROUTES:
        from . import checks

        _CHECK_ROUTES.extend((m, re.compile(REPO + p), f) for m, p, f in checks.ROUTES)
    return _CHECK_ROUTES


def route(method: str, path: str):
    for m, pattern, func in ROUTES + _check_routes():
        if m == method:
            found = pattern.match(path)
            if found:
                return func, found.groupdict()
    return None, None
