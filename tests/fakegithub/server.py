"""FakeGitHub: a loopback HTTP/1.1 server that answers like api.github.com.

Start it, point a real client at ``fake.url`` (or, for the gh CLI, use it as the HTTP
proxy of ``api.github.localhost``), add data with the ``add_*`` methods, and assert on
``fake.requests``. See ``tests/fakegithub/__init__.py`` for the whole API.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import http.server
import json
import re
import secrets
import sys
import threading
import time
import traceback
from base64 import b64decode
from collections.abc import Callable
from http import HTTPStatus
from urllib.parse import parse_qsl, urlsplit

from . import gql, rest, shapes
from .checks import ChecksMixin
from .faults import MODES, Fault, GraphQLFault, LogEntry, RateLimiter
from .model import ReviewComment, Store, utc
from .model import sha as sha_of

API_VERSION = "2022-11-28"
UA_REQUIRED = (
    b"Request forbidden by administrative rules. Please make sure your request has a User-Agent "
    b"header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). "
    b"Check https://developer.github.com for other possible causes.\n"
)
DOC_RATE = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
DOC_GRAPHQL_AUTH = "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"
MEDIA = re.compile(r"application/vnd\.github(?:\.v3)?(?:\.(raw|text|html|full))?\+json")


# the kind's own fields add_event keeps (GitHub's nesting); other kinds keep none
EVENT_FIELDS = {
    "closed": ("state_reason",),
    "reopened": ("state_reason",),
    "labeled": ("label",),
    "unlabeled": ("label",),
    "assigned": ("assignee", "assigner"),
    "unassigned": ("assignee", "assigner"),
    "milestoned": ("milestone",),
    "demilestoned": ("milestone",),
    "renamed": ("rename",),
    "review_requested": ("review_requester", "requested_reviewer", "requested_team"),
    "review_request_removed": ("review_requester", "requested_reviewer", "requested_team"),
    "review_dismissed": ("dismissed_review",),
    "locked": ("lock_reason",),
}


def _now_utc() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


class FakeGitHub(ChecksMixin):
    """A fake api.github.com for tests, demos and benchmarks (see the package docstring)."""

    def __init__(
        self,
        html_base: str = "https://github.com",
        host: str = "127.0.0.1",
        port: int = 0,
    ):
        self.html_base = html_base.rstrip("/")
        self._host, self._port = host, port
        self._lock = threading.RLock()
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._schema = gql.load_schema()
        self.hook_errors: list = []
        self._reset_state()

    # ------------------------------------------------------------------ lifecycle

    def _reset_state(self) -> None:
        self.store = Store()
        self._tokens: dict[str, str] = {}
        self._integration_tokens: set[str] = set()
        self._checks_denied: set = set()  # (kind, token or None): 403 (forbid_checks)
        self.review_order = "id"  # or "submitted": see list_reviews in rest.py
        # the issue events list: "ascending" (observed) or "descending" (newest first)
        self.events_order = "ascending"
        # `since` keeps items updated at or after it ("inclusive"), or only after it
        # ("exclusive"): GitHub's reference says "after"; which one it does is not confirmed
        self.since_mode = "inclusive"
        self.poll_interval: int | None = (
            None  # when set: X-Poll-Interval on every REST answer
        )
        self._log: list[LogEntry] = []
        self._faults: list[Fault] = []
        self._gql_faults: list[GraphQLFault] = []
        self._hooks: list[Callable] = []
        self._limiter = RateLimiter()
        self._clock = _now_utc()
        # `Date` is this machine's clock (as http.server sends it); with date_follows_clock,
        # the later of it and the data clock: GitHub's Date and its data agree, which a test
        # that moves the data clock ahead (the model test) needs for read_at (section 19)
        self.date_follows_clock = False
        self.hook_errors = []

    def start(self) -> FakeGitHub:
        if self._server is not None:
            return self
        handler = type("Handler", (_Handler,), {"fake": self})
        server = _Server((self._host, self._port), handler)
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fakegithub",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeGitHub is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def reset(self) -> None:
        """Drop all data, the log, faults, hooks, tokens and rate-limit state; clock back to now."""
        with self._lock:
            self._reset_state()

    # ------------------------------------------------------------------ clock

    @property
    def clock(self) -> dt.datetime:
        """The fake's "now" (UTC, whole seconds) for new content. It does not move by itself."""
        return self._clock

    @clock.setter
    def clock(self, value) -> None:
        with self._lock:
            self._clock = utc(value)

    def advance(self, seconds: float) -> dt.datetime:
        with self._lock:
            self._clock = utc(self._clock + dt.timedelta(seconds=seconds))
            return self._clock

    # ------------------------------------------------------------------ tokens, rate limits

    def add_token(
        self, token: str, login: str = "octocat", integration: bool = False
    ) -> None:
        """A token for ``login``. ``integration``: an installation token (GitHub Actions'
        GITHUB_TOKEN, a GitHub App's): ``GET /user`` answers 403 "Resource not accessible by
        integration"; every other route works as for any token."""
        with self._lock:
            self._tokens[token] = login
            if integration:
                self._integration_tokens.add(token)
            else:
                self._integration_tokens.discard(token)
            self.store.user(login, "Bot" if login.endswith("[bot]") else "User")

    def is_integration_token(self, token: str | None) -> bool:
        return token is not None and token in self._integration_tokens

    def rate_limit(
        self,
        remaining: int,
        reset: int | None = None,
        resource: str = "core",
        limit: int | None = None,
        token: str | None = None,
        status: int = 403,
    ) -> None:
        """Force a primary rate-limit window: every bucket of ``resource`` (or only ``token``'s).

        ``reset`` is an epoch (default: an hour from now, wall clock); ``status`` is what a
        request gets once ``remaining`` is 0 (403 as GitHub mostly answers, or 429).
        """
        with self._lock:
            key = ("token", token) if token is not None else None
            self._limiter.force(resource, remaining, reset, limit, status, key)

    # ------------------------------------------------------------------ data

    def _view(self) -> shapes.View:
        origin = self.url if self._server is not None else "http://127.0.0.1"
        return shapes.View(api=origin, html=self.html_base)

    def add_repo(
        self, owner: str, name: str, private: bool = False, owner_type: str = "User"
    ) -> dict:
        with self._lock:
            repo = self.store.add_repo(owner, name, private, self._clock, owner_type)
            return shapes.repository(self._view(), repo, full=True)

    def add_issue(
        self,
        owner: str,
        name: str,
        number: int,
        title: str = "An issue",
        user: str = "octocat",
        state: str = "open",
        pull: bool = False,
        body: str | None = None,
    ) -> dict:
        if pull:
            self.add_pull(
                owner, name, number, title=title, user=user, state=state, body=body
            )
            with self._lock:
                return shapes.issue(
                    self._view(), self.store.issue_or_raise(owner, name, number)
                )
        with self._lock:
            repo = self.store.repo_or_raise(owner, name)
            author = self.store.user(user)
            issue = self.store.add_issue(
                repo,
                number,
                title,
                author,
                state,
                self._clock,
                body,
                "OWNER" if author is repo.owner else "NONE",
            )
            return shapes.issue(self._view(), issue)

    def add_comment(
        self,
        owner: str,
        name: str,
        number: int,
        body: str,
        user: str = "alice",
        user_type: str = "User",
        association: str = "NONE",
        created_at=None,
    ) -> dict:
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            when = utc(created_at) if created_at is not None else self._clock
            comment = self.store.add_comment(
                issue, body, self.store.user(user, user_type), association, when
            )
            return shapes.issue_comment(self._view(), comment)

    def add_comments(
        self,
        owner: str,
        name: str,
        number: int,
        count: int,
        user: str = "alice",
        body: Callable[[int], str] = lambda i: f"comment {i}",
        start=None,
        step_seconds: float = 60,
        user_type: str = "User",
        association: str = "NONE",
    ) -> list[int]:
        """Add ``count`` comments fast; comment ``i`` is created at ``start + i*step_seconds``.

        Without ``start`` the comments end one step before the clock (they are history),
        but never before the issue's newest comment; if that pushes them up to the
        clock, the clock moves one step past the last. Either way, later content is newer.
        """
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            author = self.store.user(user, user_type)
            step = dt.timedelta(seconds=step_seconds)
            if start is not None:
                first = utc(start)
            else:
                first = self._clock - count * step
                if issue.comments and first <= issue.comments[-1].created_at:
                    first = issue.comments[-1].created_at + step
            ids = []
            for i in range(count):
                ids.append(
                    self.store.add_comment(
                        issue, body(i), author, association, utc(first + i * step)
                    ).id
                )
            if start is None and count and first + (count - 1) * step >= self._clock:
                self._clock = utc(first + count * step)
            return ids

    def edit_comment(self, comment_id: int, body: str, at=None, editor: str | None = None
                     ) -> dict:
        """Edit a comment: its body and ``updated_at`` (``clock``, or ``at``: an earlier time
        for a write that becomes visible late, a hostile future one), and its edit history
        (GraphQL ``userContentEdits``; ``editor``: who edited it, its author by default)."""
        with self._lock:
            comment = self.store.comments[int(comment_id)]
            self._edit(comment, body, at, editor)
            return shapes.issue_comment(self._view(), comment)

    def touch_comment(self, comment_id: int, at=None) -> dict:
        """Move ``updated_at`` without changing the body (assumed possible: a reaction, a
        re-anchored line, hiding). Issue comments and review comments alike."""
        with self._lock:
            comment = self.store.comments.get(int(comment_id)) or self.store.review_comments[
                int(comment_id)
            ]
            self._edit(comment, comment.body, at)
            if isinstance(comment, ReviewComment):
                return shapes.review_comment(self._view(), comment)
            return shapes.issue_comment(self._view(), comment)

    def _edit(self, comment, body: str, at=None, editor: str | None = None) -> None:
        when = self._clock if at is None else utc(at)
        if body != comment.body:  # a body edit: GitHub's edit history gains a revision
            if not comment.history:  # the original is recorded with the first edit
                comment.history.append(self._revision(comment, comment.created_at,
                                                      comment.body, comment.user))
            who = comment.user if editor is None else self.store.user(editor, "User")
            comment.history.append(self._revision(comment, when, body, who))
        comment.body = body
        comment.updated_at = when

    def _revision(self, comment, when, body, who):
        from .model import Revision, node_id

        self._revisions = getattr(self, "_revisions", 0) + 1
        return Revision(node_id("UCE", comment.id, self._revisions), when, body, who)

    def delete_revision(self, comment_id: int, index: int) -> None:
        """Delete one revision of a comment's edit history (``index`` into its revisions,
        oldest first): GitHub keeps the entry with ``deletedAt`` and a null ``diff``."""
        with self._lock:
            comment = self.store.comments.get(int(comment_id)) or self.store.review_comments[
                int(comment_id)]
            rev = comment.history[index]
            rev.deleted_at, rev.body = self._clock, None

    def _post_comment(self, issue, body: str, login: str):
        author = self.store.user(login, "Bot" if login.endswith("[bot]") else "User")
        association = "OWNER" if author is issue.repo.owner else "NONE"
        return self.store.add_comment(issue, body, author, association, self._clock)

    def delete_comment(self, comment_id: int) -> None:
        with self._lock:
            self.store.delete_comment(int(comment_id))

    def comment_ids(self, owner: str, name: str, number: int) -> list[int]:
        with self._lock:
            return [
                c.id for c in self.store.issue_or_raise(owner, name, number).comments
            ]

    def get_comment(self, comment_id: int) -> dict:
        with self._lock:
            return shapes.issue_comment(
                self._view(), self.store.comments[int(comment_id)]
            )

    def get_review_comment(self, comment_id: int) -> dict:
        with self._lock:
            return shapes.review_comment(
                self._view(), self.store.review_comments[int(comment_id)]
            )

    # pull requests ------------------------------------------------------

    def add_pull(
        self,
        owner: str,
        name: str,
        number: int,
        title: str = "A pull request",
        user: str = "octocat",
        head_ref: str | None = None,
        head_owner: str | None = None,
        state: str = "open",
        draft: bool = False,
        body: str | None = None,
        base_ref: str = "main",
    ) -> dict:
        """A pull request (an issue too, sharing the number). ``state``: open, closed or merged.

        ``head_ref`` None: "feature", or "feature-N" when another PR of the same head
        repository has that branch (GitHub keeps one head per branch: two PRs sharing a
        branch would share every push)."""
        if state not in ("open", "closed", "merged"):
            raise ValueError("state must be open, closed or merged")
        with self._lock:
            repo = self.store.repo_or_raise(owner, name)
            author = self.store.user(user)
            issue = self.store.add_issue(
                repo,
                number,
                title,
                author,
                "open" if state == "open" else "closed",
                self._clock,
                body,
                "OWNER" if author is repo.owner else "CONTRIBUTOR",
            )
            head = self.store.user(head_owner) if head_owner else repo.owner
            if head_ref is None:
                taken = {
                    i.pull.head_ref
                    for i in repo.issues.values()
                    if i.pull is not None and i.pull.head_owner is head
                }
                head_ref = "feature" if "feature" not in taken else f"feature-{number}"
            pull = self.store.add_pull(
                issue, head_ref, head, base_ref, draft, state == "merged"
            )
            return shapes.pull_full(self._view(), pull)

    def _pull_or_raise(self, owner, name, number):
        issue = self.store.issue_or_raise(owner, name, number)
        if issue.pull is None:
            raise KeyError(f"{owner}/{name}#{number} is an issue, not a pull request")
        return issue.pull

    def add_review(
        self,
        owner: str,
        name: str,
        number: int,
        user: str,
        state: str,
        body: str = "",
        user_type: str = "User",
        association: str = "MEMBER",
        submitted_at=None,
    ) -> dict:
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            when = utc(submitted_at) if submitted_at is not None else self._clock
            review = self.store.add_review(
                pull, self.store.user(user, user_type), state, body, association, when
            )
            return shapes.review(self._view(), review)

    def add_review_thread(
        self,
        owner: str,
        name: str,
        number: int,
        path: str,
        line: int | None = None,
        start_line: int | None = None,
        is_resolved: bool = False,
        is_outdated: bool = False,
        viewer_can_resolve: bool = True,
        comments: list | None = None,
        subject_type: str | None = None,
    ) -> dict:
        """A review thread; each comment dict: user, body, user_type, association, created_at, review_id.

        Each comment without ``review_id`` gets its own COMMENTED review with an empty body
        (GitHub wraps inline comments so); replies point at the root (``in_reply_to_id``).
        """
        comments = comments or [{"user": "bob", "body": "Please look at this."}]
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            thread = self.store.add_thread(
                pull,
                path,
                line,
                start_line,
                is_resolved,
                is_outdated,
                viewer_can_resolve,
                subject_type,
            )
            ids = [self._thread_comment(thread, **c).id for c in comments]
            return {
                "id": thread.node_id,
                "comment_ids": ids,
                "comment_node_ids": [c.node_id for c in thread.comments],
                "path": path,
                "line": thread.line,
                "is_resolved": is_resolved,
                "is_outdated": is_outdated,
            }

    def _thread_comment(
        self,
        thread,
        user: str = "bob",
        body: str = "",
        user_type: str = "User",
        association: str = "MEMBER",
        created_at=None,
        review_id: int | None = None,
    ):
        author = self.store.user(user, user_type)
        when = utc(created_at) if created_at is not None else self._clock
        if review_id is not None:
            review = self.store.reviews[int(review_id)]
        else:
            review = self.store.add_review(
                thread.pull, author, "COMMENTED", "", association, when
            )
        return self.store.add_review_comment(
            thread, author, body, association, when, review
        )

    def add_thread_comments(
        self,
        thread_id: str,
        count: int,
        user: str = "bob",
        body: Callable[[int], str] = lambda i: f"reply {i}",
        user_type: str = "User",
        association: str = "MEMBER",
        step_seconds: float = 60,
    ) -> list[int]:
        """Add ``count`` replies to a thread fast (one wrapping COMMENTED review for them all).

        Timestamps as in ``add_comments``: history ending before the clock, after the
        thread's newest comment.
        """
        with self._lock:
            thread = self.store.nodes[thread_id]
            author = self.store.user(user, user_type)
            step = dt.timedelta(seconds=step_seconds)
            first = self._clock - count * step
            if thread.comments and first <= thread.comments[-1].created_at:
                first = thread.comments[-1].created_at + step
            review = self.store.add_review(
                thread.pull,
                author,
                "COMMENTED",
                "",
                association,
                utc(first + max(0, count - 1) * step),
            )
            ids = []
            for i in range(count):
                ids.append(
                    self.store.add_review_comment(
                        thread,
                        author,
                        body(i),
                        association,
                        utc(first + i * step),
                        review,
                    ).id
                )
            if count and first + (count - 1) * step >= self._clock:
                self._clock = utc(first + count * step)
            return ids

    # pending reviews and review life cycle -----------------------------------

    def _review_or_raise(self, review_id):
        review = self.store.reviews.get(int(review_id))
        if review is None:
            raise KeyError(f"no review {review_id}")
        return review

    def _pending_or_raise(self, review_id):
        review = self._review_or_raise(review_id)
        if review.state != "PENDING":
            raise ValueError(f"review {review_id} is {review.state}, not PENDING")
        return review

    def _draft_comment(
        self,
        review,
        body: str,
        path: str | None = None,
        line: int | None = None,
        in_reply_to: int | None = None,
        start_line: int | None = None,
        subject_type: str | None = None,
        created_at=None,
        side: str | None = None,
    ):
        """One comment of ``review`` (a new thread, or a reply joining a thread), dated now."""
        when = utc(created_at) if created_at is not None else self._clock
        if in_reply_to is not None:
            target = self.store.review_comments.get(int(in_reply_to))
            if target is None or target.thread.pull is not review.pull:
                raise KeyError(
                    f"no review comment {in_reply_to} on {review.pull.repo.full_name}"
                    f"#{review.pull.number}"
                )
            thread = target.thread
        else:
            if path is None:
                raise ValueError("a new thread needs a path (or pass in_reply_to)")
            if subject_type not in (None, "line", "file", "LINE", "FILE"):
                raise ValueError("subject_type must be 'line' or 'file'")
            kind = subject_type.upper() if subject_type else None
            if kind is None:
                kind = "FILE" if line is None else "LINE"
            thread = self.store.add_thread(
                review.pull,
                path,
                None if kind == "FILE" else line,
                None if kind == "FILE" else start_line,
                False,
                False,
                True,
                kind,
            )
            if side in ("LEFT", "RIGHT"):
                thread.diff_side = side
        return self.store.add_review_comment(
            thread, review.user, body, review.association, when, review
        )

    def start_review(
        self,
        owner: str,
        name: str,
        number: int,
        user: str,
        body: str = "",
        user_type: str = "User",
        association: str = "MEMBER",
        comments: list | None = None,
    ) -> dict:
        """A PENDING review started now, with its draft comments (ids and created_at now).

        Each comment: a new thread ``{"path", "line", "body"}`` (optional ``start_line``,
        ``subject_type`` "line"/"file", ``created_at``) or a reply ``{"in_reply_to": id,
        "body"}`` (joins that comment's thread; ``in_reply_to_id`` is the thread's root).
        Invisible to every token but its author's until ``submit_review``.
        """
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            review = self.store.add_review(
                pull,
                self.store.user(user, user_type),
                "PENDING",
                body,
                association,
                self._clock,
            )
            ids = [self._draft_comment(review, **c).id for c in comments or []]
            return {"id": review.id, "node_id": review.node_id, "comment_ids": ids}

    def add_pending_comment(
        self,
        review_id: int,
        body: str,
        path: str | None = None,
        line: int | None = None,
        in_reply_to: int | None = None,
        start_line: int | None = None,
        subject_type: str | None = None,
    ) -> dict:
        """One more draft comment in a PENDING review (its id and created_at are now's)."""
        with self._lock:
            review = self._pending_or_raise(review_id)
            c = self._draft_comment(
                review, body, path, line, in_reply_to, start_line, subject_type
            )
            return {"id": c.id, "node_id": c.node_id}

    def submit_review(
        self,
        review_id: int,
        state: str = "COMMENTED",
        body: str | None = None,
        submitted_at=None,
    ) -> dict:
        """PENDING -> ``state`` (COMMENTED, APPROVED, CHANGES_REQUESTED), submitted now.

        From now on the review and its comments are visible to everyone; the comments keep
        the ids and ``created_at``/``updated_at`` they got when drafted.
        """
        if state not in ("COMMENTED", "APPROVED", "CHANGES_REQUESTED"):
            raise ValueError("state must be COMMENTED, APPROVED or CHANGES_REQUESTED")
        with self._lock:
            review = self._pending_or_raise(review_id)
            review.state = state
            review.submitted_at = (
                utc(submitted_at) if submitted_at is not None else self._clock
            )
            if body is not None:
                review.body = body
            return shapes.review(self._view(), review)

    def delete_pending_review(self, review_id: int) -> None:
        """Drop a PENDING review and its draft comments (GitHub allows only pending ones)."""
        with self._lock:
            self._pending_or_raise(review_id)
            self.store.delete_review(int(review_id))

    def reply_to_review_comment(
        self,
        comment_id: int,
        user: str,
        body: str,
        user_type: str = "User",
        association: str = "MEMBER",
    ) -> dict:
        """A reply posted outside a pending review: its own bodiless COMMENTED review,
        submitted now, holding just this comment (``in_reply_to_id``: the thread's root)."""
        with self._lock:
            target = self.store.review_comments[int(comment_id)]
            review = self.store.add_review(
                target.thread.pull,
                self.store.user(user, user_type),
                "COMMENTED",
                "",
                association,
                self._clock,
            )
            c = self._draft_comment(review, body, in_reply_to=target.id)
            return {"id": c.id, "node_id": c.node_id, "review_id": review.id}

    def delete_review_comment(self, comment_id: int) -> None:
        """Delete one review comment (its review stays; an emptied thread goes)."""
        with self._lock:
            self.store.delete_review_comment(int(comment_id))

    def dismiss_review(self, review_id: int, message: str = "", by: str | None = None,
                       at=None) -> dict:
        """A submitted APPROVED or CHANGES_REQUESTED review becomes DISMISSED, in place,
        and ``review_dismissed`` is recorded on its PR (by ``by``, default the owner)."""
        with self._lock:
            review = self._review_or_raise(review_id)
            if review.state not in ("APPROVED", "CHANGES_REQUESTED"):
                # GitHub: 422 "Can not dismiss a commented/pending pull request review"
                raise ValueError(f"a {review.state} review cannot be dismissed")
            self._record(review.pull.issue, "review_dismissed",
                         by or review.pull.repo.owner.login, at, None, {
                             "dismissed_review": {
                                 "state": review.state.lower(),
                                 "review_id": review.id,
                                 "dismissal_message": message,
                                 "dismissal_commit_id": review.pull.head_sha,
                             }})
            review.state = "DISMISSED"
            review.dismissal_message = message
            return shapes.review(self._view(), review)

    def edit_review_comment(self, comment_id: int, body: str, at=None,
                            editor: str | None = None) -> dict:
        with self._lock:
            comment = self.store.review_comments[int(comment_id)]
            self._edit(comment, body, at, editor)
            return shapes.review_comment(self._view(), comment)

    def create_review(
        self,
        owner: str,
        name: str,
        number: int,
        user: str,
        event: str | None = None,
        body: str = "",
        comments: list | None = None,
        user_type: str = "User",
        association: str | None = None,
    ) -> dict:
        """What ``POST /pulls/N/reviews`` does once GitHub accepted it: a review started now
        with its comments (new threads, as ``start_review``), submitted now when ``event``
        is APPROVE, REQUEST_CHANGES or COMMENT, left PENDING without one. The REST route
        checks GitHub's refusals first (one pending review per user, not one's own PR)."""
        states = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED",
                  "COMMENT": "COMMENTED"}
        if event is not None and event not in states:
            raise ValueError("event must be APPROVE, REQUEST_CHANGES, COMMENT or None")
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            author = self.store.user(user, user_type)
            if association is None:
                association = "OWNER" if author is pull.repo.owner else "NONE"
            started = self.start_review(owner, name, number, user, body=body,
                                        user_type=user_type, association=association,
                                        comments=comments)
            if event is not None:
                self.submit_review(started["id"], states[event])
            return shapes.review(self._view(), self._review_or_raise(started["id"]))

    def resolve_thread(self, thread_id: str, by: str | None = None) -> dict:
        """Mark a thread resolved (idempotent), by ``by`` (default: the PR's author)."""
        return self._set_resolved(thread_id, True, by)

    def unresolve_thread(self, thread_id: str) -> dict:
        return self._set_resolved(thread_id, False, None)

    def _set_resolved(self, thread_id: str, resolved: bool, by: str | None) -> dict:
        with self._lock:
            thread = self.store.nodes.get(thread_id)
            if thread is None or type(thread).__name__ != "Thread":
                raise KeyError(f"no review thread {thread_id}")
            user = self.store.user(by) if by else None
            self.store.set_thread_resolved(thread, resolved, user)
            return {"id": thread.node_id, "is_resolved": thread.is_resolved,
                    "resolved_by": user.login if user else None}

    def review_ids(
        self, owner: str, name: str, number: int, include_pending: bool = False
    ) -> list[int]:
        """Ids of the PR's reviews, ascending (submitted ones; pending ones too if asked)."""
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            return sorted(
                r.id for r in pull.reviews if include_pending or r.state != "PENDING"
            )

    def review_comment_ids(self, owner: str, name: str, number: int) -> list[int]:
        """Ids of the PR's review comments visible to everyone (not in a pending review)."""
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            return sorted(
                c.id for c in pull.review_comments if c.review.state != "PENDING"
            )

    def get_review(self, review_id: int) -> dict:
        with self._lock:
            return shapes.review(self._view(), self._review_or_raise(review_id))

    # ------------------------------------------------------------------ issue events, pushes

    def _who(self, login: str):
        return self.store.user(login, "Bot" if login.endswith("[bot]") else "User")

    def _record(self, issue, kind: str, by: str, at=None, commit_id=None, fields=None):
        when = utc(at) if at is not None else self._clock
        return self.store.add_event(issue, kind, self._who(by), when, commit_id, fields)

    def _event_out(self, ev) -> dict:
        return shapes.event(self._view(), ev, self._who)

    def _touch(self, issue, when=None) -> None:
        issue.updated_at = max(issue.updated_at, when or self._clock)

    def add_event(self, owner: str, name: str, number: int, event: str,
                  actor: str = "octocat", at=None, **fields) -> dict:
        """Record one issue event as GitHub lists it (no effect on the issue: the
        convenience methods below apply theirs). ``fields``: the kind's own, in GitHub's
        nesting — ``label`` (a name or {name, color}), ``assignee``/``assigner``,
        ``review_requester``/``requested_reviewer`` (logins), ``requested_team`` (a slug),
        ``milestone`` (a title or {title}), ``rename`` ({from, to}), ``dismissed_review``,
        ``lock_reason``, ``state_reason``; ``commit_id``. A kind not in ``EVENT_FIELDS``
        keeps only the base fields."""
        commit_id = fields.pop("commit_id", None)
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            kept = {}
            for key in EVENT_FIELDS.get(event, ()):
                if key not in fields:
                    continue
                value = fields[key]
                if key == "label" and isinstance(value, str):
                    value = {"name": value, "color": shapes.label_color(value)}
                if key == "milestone" and isinstance(value, str):
                    value = {"title": value}
                kept[key] = value
            ev = self._record(issue, event, actor, at, commit_id, kept)
            return self._event_out(ev)

    def close_issue(self, owner: str, name: str, number: int, by: str = "octocat",
                    reason: str | None = None, at=None) -> dict:
        """Close an issue or a PR: state closed, closed_at, closed_by, state_reason
        (``reason``; default "completed" for an issue, none for a PR)."""
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            ev = self._close(issue, by, reason, at)
            return self._event_out(ev)

    def _close(self, issue, by, reason=None, at=None, commit_id=None):
        fields = {}
        if issue.pull is None:
            reason = reason or "completed"
            fields["state_reason"] = reason
        ev = self._record(issue, "closed", by, at, commit_id, fields)
        issue.state, issue.closed_at = "closed", ev.created_at
        issue.state_reason, issue.closed_by = reason, ev.actor
        self._touch(issue, ev.created_at)
        return ev

    def reopen_issue(self, owner: str, name: str, number: int, by: str = "octocat",
                     at=None) -> dict:
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            if issue.pull is not None and issue.pull.merged:
                raise ValueError("a merged pull request cannot be reopened")
            fields = {"state_reason": "reopened"} if issue.pull is None else {}
            ev = self._record(issue, "reopened", by, at, None, fields)
            issue.state, issue.closed_at = "open", None
            issue.state_reason = "reopened" if issue.pull is None else None
            self._touch(issue, ev.created_at)
            return self._event_out(ev)

    def merge_pull(self, owner: str, name: str, number: int, by: str = "octocat",
                   at=None) -> list[dict]:
        """Merge an open PR: ``merged`` (commit_id: the merge commit) then ``closed``, in
        the same second, as GitHub records them; merged, merged_at, merged_by, closed."""
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            if pull.merged or pull.issue.state != "open":
                raise ValueError(f"{owner}/{name}#{number} is not open")
            merge_sha = sha_of("merge", pull.head_sha)
            merged = self._record(pull.issue, "merged", by, at, merge_sha)
            closed = self._close(pull.issue, by, None, merged.created_at)
            pull.merged, pull.merged_at = True, merged.created_at
            pull.merged_by, pull.merge_sha = merged.actor, merge_sha
            return [self._event_out(merged), self._event_out(closed)]

    def lock_issue(self, owner: str, name: str, number: int, reason: str | None = "resolved",
                   by: str = "octocat", at=None) -> dict:
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            ev = self._record(issue, "locked", by, at, None, {"lock_reason": reason})
            issue.locked, issue.lock_reason = True, reason
            self._touch(issue, ev.created_at)
            return self._event_out(ev)

    def unlock_issue(self, owner: str, name: str, number: int, by: str = "octocat",
                     at=None) -> dict:
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            ev = self._record(issue, "unlocked", by, at)
            issue.locked, issue.lock_reason = False, None
            self._touch(issue, ev.created_at)
            return self._event_out(ev)

    def rename_issue(self, owner: str, name: str, number: int, title: str,
                     by: str = "octocat", at=None) -> dict:
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            ev = self._record(issue, "renamed", by, at, None,
                              {"rename": {"from": issue.title, "to": title}})
            issue.title = title
            self._touch(issue, ev.created_at)
            return self._event_out(ev)

    def add_label(self, owner: str, name: str, number: int, label: str,
                  by: str = "octocat", at=None) -> dict:
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            ev = self._record(issue, "labeled", by, at, None, {
                "label": {"name": label, "color": shapes.label_color(label)}})
            if label not in issue.labels:
                issue.labels.append(label)
            self._touch(issue, ev.created_at)
            return self._event_out(ev)

    def remove_label(self, owner: str, name: str, number: int, label: str,
                     by: str = "octocat", at=None) -> dict:
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            ev = self._record(issue, "unlabeled", by, at, None, {
                "label": {"name": label, "color": shapes.label_color(label)}})
            if label in issue.labels:
                issue.labels.remove(label)
            self._touch(issue, ev.created_at)
            return self._event_out(ev)

    def assign(self, owner: str, name: str, number: int, login: str, by: str = "octocat",
               at=None) -> dict:
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            who = self._who(login)
            ev = self._record(issue, "assigned", by, at, None,
                              {"assignee": who.login, "assigner": by})
            if who not in issue.assignees:
                issue.assignees.append(who)
            self._touch(issue, ev.created_at)
            return self._event_out(ev)

    def unassign(self, owner: str, name: str, number: int, login: str, by: str = "octocat",
                 at=None) -> dict:
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            who = self._who(login)
            ev = self._record(issue, "unassigned", by, at, None,
                              {"assignee": who.login, "assigner": by})
            if who in issue.assignees:
                issue.assignees.remove(who)
            self._touch(issue, ev.created_at)
            return self._event_out(ev)

    def set_milestone(self, owner: str, name: str, number: int, title: str | None,
                      by: str = "octocat", at=None) -> dict:
        """``milestoned`` (a title) or ``demilestoned`` (None: the current one removed)."""
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            if title is None:
                if issue.milestone is None:
                    raise ValueError("no milestone to remove")
                ev = self._record(issue, "demilestoned", by, at, None,
                                  {"milestone": {"title": issue.milestone}})
            else:
                ev = self._record(issue, "milestoned", by, at, None,
                                  {"milestone": {"title": title}})
            issue.milestone = title
            self._touch(issue, ev.created_at)
            return self._event_out(ev)

    def request_review(self, owner: str, name: str, number: int, reviewer: str | None = None,
                       team: str | None = None, by: str = "octocat", at=None) -> dict:
        """``review_requested`` from a user (``reviewer``) or a team (``team``: its slug)."""
        return self._review_request(owner, name, number, reviewer, team, by, at, True)

    def remove_review_request(self, owner: str, name: str, number: int,
                              reviewer: str | None = None, team: str | None = None,
                              by: str = "octocat", at=None) -> dict:
        return self._review_request(owner, name, number, reviewer, team, by, at, False)

    def _review_request(self, owner, name, number, reviewer, team, by, at, add):
        if (reviewer is None) == (team is None):
            raise ValueError("pass exactly one of reviewer and team")
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            fields = {"review_requester": by}
            if reviewer is not None:
                who = self._who(reviewer)
                fields["requested_reviewer"] = who.login
                people = pull.requested_reviewers
                if add and who not in people:
                    people.append(who)
                elif not add and who in people:
                    people.remove(who)
            else:
                fields["requested_team"] = team
                teams = pull.requested_teams
                if add and team not in teams:
                    teams.append(team)
                elif not add and team in teams:
                    teams.remove(team)
            kind = "review_requested" if add else "review_request_removed"
            ev = self._record(pull.issue, kind, by, at, None, fields)
            self._touch(pull.issue, ev.created_at)
            return self._event_out(ev)

    def set_draft(self, owner: str, name: str, number: int, draft: bool,
                  by: str = "octocat", at=None) -> dict:
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            kind = "convert_to_draft" if draft else "ready_for_review"
            ev = self._record(pull.issue, kind, by, at)
            pull.draft = bool(draft)
            self._touch(pull.issue, ev.created_at)
            return self._event_out(ev)

    def change_base(self, owner: str, name: str, number: int, base: str,
                    by: str = "octocat", at=None) -> dict:
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            ev = self._record(pull.issue, "base_ref_changed", by, at)
            pull.base_ref = base
            self._touch(pull.issue, ev.created_at)
            return self._event_out(ev)

    def delete_head_ref(self, owner: str, name: str, number: int, by: str = "octocat",
                        at=None) -> dict:
        """The head branch is deleted: its ref answers 404; ``head`` on the PR stays."""
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            ev = self._record(pull.issue, "head_ref_deleted", by, at)
            pull.head_ref_deleted = True
            return self._event_out(ev)

    def restore_head_ref(self, owner: str, name: str, number: int, by: str = "octocat",
                         at=None) -> dict:
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            ev = self._record(pull.issue, "head_ref_restored", by, at)
            pull.head_ref_deleted = False
            return self._event_out(ev)

    def delete_head_repo(self, owner: str, name: str, number: int) -> None:
        """The PR's head repository is gone (a deleted fork): ``head.repo`` null, its ref
        404. No issue event (GitHub records none)."""
        with self._lock:
            self._pull_or_raise(owner, name, number).head_repo_deleted = True

    def transfer_issue(self, owner: str, name: str, number: int, to_owner: str,
                       to_name: str, by: str = "octocat", at=None) -> int:
        """Move an issue (not a PR) to another stored repository, with its comments and
        events, after recording ``transferred``; returns its new number. Every REST read
        under the old path then answers 301 with ``Location`` at the new place."""
        with self._lock:
            issue = self.store.issue_or_raise(owner, name, number)
            if issue.pull is not None:
                raise ValueError("pull requests cannot be transferred")
            target = self.store.repo_or_raise(to_owner, to_name)
            if target is issue.repo:
                raise ValueError("an issue is transferred to another repository")
            self._record(issue, "transferred", by, at)
            old = issue.repo
            new_number = max([*target.issues, *target.moved, 0]) + 1
            del old.issues[issue.number]
            old.moved[issue.number] = issue
            issue.repo, issue.number = target, new_number
            target.issues[new_number] = issue
            return new_number

    def rename_repo(self, owner: str, name: str, new_name: str,
                    new_owner: str | None = None) -> int:
        """Rename (or, with ``new_owner``, transfer) a repository; returns its id. Every REST
        read under the old ``/repos/OWNER/NAME`` then answers 301 with ``Location`` at
        ``/repositories/{id}`` and the rest of the path (a write: 307)."""
        with self._lock:
            repo = self.store.repo_or_raise(owner, name)
            to_owner = new_owner or repo.owner.login
            if self.store.find_repo(to_owner, new_name) is not None:
                raise ValueError(f"repository {to_owner}/{new_name} already exists")
            del self.store.repos[(repo.owner.login.lower(), repo.name.lower())]
            self.store.renamed[(owner.lower(), name.lower())] = repo
            if new_owner:
                repo.owner = self.store.user(new_owner)
            repo.name = new_name
            self.store.repos[(to_owner.lower(), new_name.lower())] = repo
            return repo.id

    def push(self, owner: str, name: str, number: int, count: int = 1,
             messages: list | None = None, author: str | None = "octocat",
             author_type: str = "User", committed_at=None, force: bool = False,
             by: str | None = None, outdate_paths=None, to_sha: str | None = None,
             at=None) -> list[str]:
        """Push ``count`` commits to the PR's head branch; returns their shas, oldest first.

        A fast-forward appends them (no issue event: GitHub records none for a push).
        ``force``: they replace the PR's commits (parented on its base), and
        ``head_ref_force_pushed`` is recorded by ``by`` or ``author`` (commit_id null);
        with ``to_sha`` (one of the PR's commits) the head is forced back to it and no
        commit is made. ``committed_at``: one date or a list (one per commit; default the
        clock). ``author`` None: a commit whose email matches no account (author null).
        Threads on ``outdate_paths`` become outdated (line null). The new head has no checks
        (they are per commit); ``GET /pulls/N`` shows ``mergeable: null`` once (a recompute)."""
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            repo = pull.repo
            who = None if author is None else self.store.user(author, author_type)
            new = []
            if to_sha is not None:
                shas = [c.sha for c in pull.commits]
                if to_sha not in shas:
                    raise ValueError(f"{to_sha} is not a commit of the pull request")
                pull.commits = pull.commits[: shas.index(to_sha) + 1]
                force = True
            else:
                parent = pull.base_sha if force else pull.head_sha
                dates = committed_at if isinstance(committed_at, (list, tuple)) else None
                for i in range(count):
                    message = messages[i] if messages else f"Commit {len(new) + 1} on #{number}"
                    if dates is not None:
                        when = utc(dates[i])
                    else:
                        when = utc(committed_at) if committed_at is not None else self._clock
                    self._pushes = getattr(self, "_pushes", 0) + 1
                    commit_sha = sha_of("commit", repo.id, number, self._pushes, message)
                    new.append(self.store.add_commit(
                        repo, commit_sha, message, who, when, [parent],
                        author_name=author or "Someone"))
                    parent = commit_sha
                pull.commits = new if force else pull.commits + new
            pull.head_sha = pull.commits[-1].sha
            self.store.head_moves += 1
            pull.head_seq = self.store.head_moves
            self._recompute(pull)  # GitHub recomputes mergeability: one read shows null
            if force:
                actor = by or author or "octocat"
                self._record(pull.issue, "head_ref_force_pushed", actor, at)
            paths = set(outdate_paths or ())
            for t in pull.threads:
                if t.path in paths and not t.is_outdated:
                    t.is_outdated = True
                    t.line = t.start_line = None
                    for c in t.comments:
                        c.position = None
            return [c.sha for c in new]

    def gc(self, commit_sha: str) -> None:
        """``commit_sha`` is garbage-collected: compare answers 404 "No commit found"."""
        with self._lock:
            self.store.gone_shas.add(commit_sha)

    def event_ids(self, owner: str, name: str, number: int) -> list[int]:
        with self._lock:
            return [e.id for e in self.store.issue_or_raise(owner, name, number).events]

    # ------------------------------------------------------------------ log, hooks, faults

    @property
    def requests(self) -> list[LogEntry]:
        with self._lock:
            return list(self._log)

    def clear_log(self) -> None:
        with self._lock:
            self._log.clear()

    def on_request(self, callback: Callable[[LogEntry], None]) -> None:
        """Call ``callback(entry)`` for each request before it is served (faults included)."""
        with self._lock:
            self._hooks.append(callback)

    def clear_hooks(self) -> None:
        with self._lock:
            self._hooks.clear()

    def inject(
        self,
        method: str | None = "GET",
        path: str = r".*",
        times: int | None = 1,
        status: int = 503,
        headers: dict | None = None,
        body=None,
        delay: float = 0.0,
        mode: str | None = None,
    ) -> Fault:
        """Answer the next ``times`` matching requests with a fault (``times=None``: forever).

        ``path`` is a regex searched in the request path (no query). ``mode``: None (send
        ``status``/``headers``/``body``), "close" (close the connection, no response),
        "truncate" (the real response cut short: Content-Length larger than the body sent),
        "malformed" (200 with a body that is not JSON), "delay" (wait ``delay`` s, then
        serve normally). ``delay`` also applies before the other modes.
        """
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        fault = Fault(
            method=method,
            path=re.compile(path),
            times=times,
            status=status,
            headers={k.lower(): str(v) for k, v in (headers or {}).items()},
            body=body,
            delay=delay,
            mode=mode,
        )
        with self._lock:
            self._faults.append(fault)
        return fault

    def secondary_rate_limit(
        self,
        retry_after: int | None = 60,
        times: int | None = 1,
        method: str | None = None,
        path: str = r".*",
        status: int = 403,
    ) -> Fault:
        """GitHub's secondary rate limit answer (403/429, ``retry-after``, remaining not 0)."""
        headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
        body = {
            "message": "You have exceeded a secondary rate limit. Please wait a few minutes before "
            "you try again. If you reach out to GitHub Support for help, please include "
            "the request ID " + _request_id() + ".",
            "documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/"
            "rate-limits-for-the-rest-api#about-secondary-rate-limits",
            "status": str(status),
        }
        return self.inject(
            method=method,
            path=path,
            times=times,
            status=status,
            headers=headers,
            body=body,
        )

    def fail_large_pages(
        self,
        path: str = r"/pulls/\d+/comments$",
        at_least: int = 100,
        status: int = 502,
        times: int | None = None,
    ) -> Fault:
        """A GET on a list path matching ``path`` whose ``per_page`` (clamped to 100, as
        GitHub does) is ``at_least`` or more answers ``status`` (``times=None``: until
        ``clear_faults()``). GitHub has answered 5xx at per_page=100 on a PR's review
        comments where 50 worked (chaoss/grimoirelab-perceval#755)."""
        fault = self.inject("GET", path, times=times, status=status)
        fault.min_per_page = int(at_least)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()
            self._gql_faults.clear()

    def inject_graphql_error(
        self,
        type: str = "FORBIDDEN",
        message: str | None = None,
        times: int | None = 1,
        path: list | None = None,
        status: int = 200,
    ) -> None:
        """Answer the next ``times`` GraphQL requests with a GitHub-typed error.

        With ``path`` (response keys, e.g. ``["repository"]``; default for NOT_FOUND and
        FORBIDDEN) the query runs, the value at ``path`` becomes null and the error names
        it, as GitHub answers a field it refuses; without, the answer is ``{"errors": […]}``
        only (as for RATE_LIMITED, which also sends ``x-ratelimit-remaining: 0``).
        """
        if path is None and type in ("NOT_FOUND", "FORBIDDEN"):
            path = ["repository"]
        with self._lock:
            self._gql_faults.append(
                GraphQLFault(
                    type=type,
                    message=message,
                    times=times,
                    path=list(path) if path else None,
                    status=status,
                )
            )

    # ------------------------------------------------------------------ serving (handler side)

    def _take(self, queue: list, match=lambda f: True):
        with self._lock:
            for fault in queue:
                if match(fault):
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            queue.remove(fault)
                    return fault
        return None

    def _log_entry(self, entry: LogEntry) -> None:
        with self._lock:
            self._log.append(entry)
            hooks = list(self._hooks)
        for hook in hooks:
            try:
                hook(entry)
            except Exception:  # noqa: BLE001  (a broken test hook is recorded and shown, not fatal)
                self.hook_errors.append(traceback.format_exc())
                traceback.print_exc(file=sys.stderr)

    def _auth(self, headers: dict):
        """(token, login) from Authorization, or (None, None); ("", None) for a bad token."""
        raw = headers.get("authorization")
        if not raw:
            return None, None
        scheme, _, value = raw.strip().partition(" ")
        value = value.strip()
        if scheme.lower() == "basic":
            try:
                value = b64decode(value).decode().partition(":")[2]
            except (ValueError, UnicodeDecodeError):
                value = ""
        elif scheme.lower() not in ("token", "bearer"):
            value = ""
        login = self._tokens.get(value)
        return (value, login) if login else ("", None)

    def _serve(
        self,
        method: str,
        path: str,
        query: dict,
        headers: dict,
        body: bytes,
        origin: str,
        client_ip: str,
    ):
        """Answer one request: (status, headers, body bytes)."""
        rid = _request_id()
        base = {
            "x-github-request-id": rid,
            "x-github-api-version-selected": API_VERSION,
        }
        if not headers.get("user-agent"):
            return (
                403,
                {**base, "content-type": "text/plain; charset=utf-8"},
                UA_REQUIRED,
            )
        prefix = ""
        if path == "/api/v3" or path.startswith("/api/v3/"):  # GitHub Enterprise layout
            prefix, path = "/api/v3", path[len("/api/v3") :] or "/"
        elif path == "/api/graphql":
            prefix, path = "/api", "/graphql"
        if path != "/graphql" and self.poll_interval is not None:
            base["x-poll-interval"] = str(int(self.poll_interval))
        media_match = MEDIA.search(headers.get("accept", ""))
        media = (media_match.group(1) or "raw") if media_match else "raw"
        view = shapes.View(api=origin + prefix, html=self.html_base, media=media)

        with self._lock:
            token, login = self._auth(headers)
            if (
                token == ""
            ):  # an Authorization header with a token the fake does not know
                bucket = self._limiter.bucket(("ip", client_ip), "core")
                doc = (
                    "https://docs.github.com/graphql"
                    if path == "/graphql"
                    else rest.DOCS
                )
                return _error(
                    401,
                    "Bad credentials",
                    doc,
                    {**base, **_rate_headers(bucket, "core")},
                )
            key = ("token", token) if token else ("ip", client_ip)
            if token:
                base.update(
                    {"x-oauth-scopes": "repo, read:org", "x-accepted-oauth-scopes": ""}
                )
            if path == "/graphql":
                return self._serve_graphql(method, body, login, key, base, rid)
            return self._serve_rest(
                method, path, query, headers, body, view, token, login, key, base
            )

    def _serve_rest(
        self, method, path, query, headers, body, view, token, login, key, base
    ):
        if (
            method == "GET" and path == "/rate_limit"
        ):  # free: it does not count against the limit
            core = self._limiter.bucket(key, "core")
            out = _json(shapes.rate_limit_overview(self._limiter.overview(key)))
            return (
                200,
                {**base, **_rate_headers(core, "core"), **_json_headers(view.media)},
                out,
            )

        bucket = self._limiter.bucket(key, "core")
        if bucket.remaining <= 0:
            return self._rate_limited(bucket, key, login, key[1], base, "core")

        func, groups = rest.route(method, path)
        req = rest.Req(
            method=method,
            path=path,
            query=query,
            headers=headers,
            body=body,
            api=view.api,
            view=view,
            token=token,
            login=login,
            store=self.store,
            fake=self,
        )
        resp = rest.renamed_repo(req) or rest.moved_issue(req)  # old paths redirect
        if resp is None:
            resp = func(req, groups) if func is not None else rest.not_found()
        out_headers = {**base, **{k.lower(): v for k, v in resp.headers.items()}}
        payload = b"" if resp.data is None else _json(resp.data)
        if resp.data is not None:
            out_headers.update(_json_headers(view.media))
        if resp.etag and resp.status == 200:
            etag = 'W/"' + hashlib.sha256(payload).hexdigest() + '"'
            out_headers["etag"] = etag
            out_headers["vary"] = (
                "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding"
            )
            if _etag_matches(headers.get("if-none-match"), etag):  # a 304 costs nothing
                out_headers.pop("content-type", None)
                out_headers.pop("link", None)
                out_headers.update(_rate_headers(bucket, "core"))
                return 304, out_headers, b""
        bucket.remaining -= 1
        out_headers.update(_rate_headers(bucket, "core"))
        return resp.status, out_headers, payload

    def _rate_limited(self, bucket, key, login, client_ip, base, resource):
        status = self._limiter.exceeded_status(key, resource)
        if login:
            message = (
                f"API rate limit exceeded for user ID {self.store.user(login).id}."
            )
        else:
            message = (
                f"API rate limit exceeded for {client_ip}. (But here's the good news: "
                "Authenticated requests get a higher rate limit. Check out the documentation "
                "for more details.)"
            )
        return _error(
            status, message, DOC_RATE, {**base, **_rate_headers(bucket, resource)}
        )

    def _serve_graphql(self, method, body, login, key, base, rid):
        doc = "https://docs.github.com/graphql"
        if method != "POST":
            return _error(404, "Not Found", doc, base)
        if login is None:
            return _error(
                401,
                "This endpoint requires you to be authenticated.",
                DOC_GRAPHQL_AUTH,
                base,
            )
        bucket = self._limiter.bucket(key, "graphql")
        headers = {**base, **_json_headers("raw")}
        if bucket.remaining <= 0:
            status = self._limiter.exceeded_status(key, "graphql")
            message = (
                f"API rate limit exceeded for user ID {self.store.user(login).id}."
            )
            headers.update(_rate_headers(bucket, "graphql"))
            if status != 200:
                return _error(status, message, DOC_RATE, headers)
            return (
                200,
                headers,
                _json({"errors": [{"type": "RATE_LIMITED", "message": message}]}),
            )
        try:
            payload = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return _error(
                400,
                "Problems parsing JSON",
                doc,
                {**headers, **_rate_headers(bucket, "graphql")},
            )
        bucket.remaining -= 1
        fault = self._take(self._gql_faults)
        viewer = self.store.user(login, "Bot" if login.endswith("[bot]") else "User")
        ctx = gql.Context(self.store, self.html_base, viewer, bucket)
        status = 200
        if fault is None:
            answer = gql.run(self._schema, payload, ctx)
        else:
            status = fault.status
            answer = gql.run_with_fault(
                self._schema, payload, ctx, fault, request_id=rid
            )
            if fault.type == "RATE_LIMITED":
                bucket.remaining = 0
        return status, {**headers, **_rate_headers(bucket, "graphql")}, _json(answer)


# --------------------------------------------------------------------------- helpers


def _error(status: int, message: str, doc: str, headers: dict):
    """GitHub's error document (BasicError) as (status, headers, body)."""
    body = {"message": message, "documentation_url": doc, "status": str(status)}
    return status, {**headers, **_json_headers("raw")}, _json(body)


def _request_id() -> str:
    h = secrets.token_hex(12).upper()
    return f"{h[0:4]}:{h[4:9]}:{h[9:15]}:{h[15:21]}:{h[21:24]}{secrets.token_hex(3).upper()}"


def _json(data) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )


def _json_headers(media: str) -> dict:
    param = "" if media == "raw" else f"param={media}; "
    return {
        "content-type": "application/json; charset=utf-8",
        "x-github-media-type": f"github.v3; {param}format=json",
    }


def _rate_headers(bucket, resource: str) -> dict:
    return {
        "x-ratelimit-limit": str(bucket.limit),
        "x-ratelimit-remaining": str(max(0, bucket.remaining)),
        "x-ratelimit-reset": str(bucket.reset),
        "x-ratelimit-used": str(bucket.used),
        "x-ratelimit-resource": resource,
    }


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    weak = etag.removeprefix("W/")
    for candidate in header.split(","):
        candidate = candidate.strip()
        if candidate == "*" or (candidate.removeprefix("W/")) == weak:
            return True
    return False


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = (
        True  # keep-alive connections never hold up stop() or the interpreter
    )
    block_on_close = False

    def handle_error(self, request, client_address) -> None:
        # A client that hung up (a timeout test, a closed keep-alive) is not a server error.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "github.com"
    sys_version = ""
    timeout = 60  # an idle keep-alive connection is dropped after a minute
    fake: FakeGitHub  # set on the subclass made by FakeGitHub.start()

    def version_string(self) -> str:
        return "github.com"

    def log_message(self, *args) -> None:  # the request log is fake.requests
        pass

    def date_time_string(self, timestamp=None) -> str:
        if timestamp is None and getattr(self.fake, "date_follows_clock", False):
            timestamp = max(time.time(), self.fake.clock.timestamp())
        return super().date_time_string(timestamp)

    def do_GET(self):
        self._handle()

    do_POST = do_PATCH = do_DELETE = do_PUT = do_HEAD = do_GET

    def do_CONNECT(self):
        # HTTPS through the proxy is not offered: gh uses plain http for github.localhost.
        self.send_response(405)
        self.send_header("content-length", "0")
        self.end_headers()

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        fake = self.fake
        target = self.path
        if target.startswith(
            ("http://", "https://")
        ):  # absolute-form: a client using us as its proxy
            parts = urlsplit(target)
            origin = f"{parts.scheme}://{parts.netloc}"
            path, query_string = parts.path or "/", parts.query
        else:
            host = self.headers.get("host")
            origin = f"http://{host}" if host else fake.url
            path, _, query_string = target.partition("?")
        headers = {k.lower(): v for k, v in self.headers.items()}
        body = self._read_body()
        entry = LogEntry(
            method=self.command,
            path=path,
            query=dict(parse_qsl(query_string, keep_blank_values=True)),
            headers=headers,
            body=body,
            target=target,
            origin=origin,
        )
        fake._log_entry(entry)

        fault = fake._take(
            fake._faults, lambda f: f.matches(self.command, path, entry.query)
        )
        if fault is not None and fault.delay:
            time.sleep(fault.delay)
        if fault is not None and fault.mode in ("close",):
            entry.fault = "close"
            self.close_connection = True
            return
        if fault is not None and fault.mode is None:
            entry.fault = "status"
            body_out = fault.body
            if body_out is None:
                phrase = (
                    HTTPStatus(fault.status).phrase
                    if fault.status in HTTPStatus._value2member_map_
                    else ""
                )
                body_out = {
                    "message": phrase,
                    "documentation_url": "https://docs.github.com/rest",
                    "status": str(fault.status),
                }
            if isinstance(body_out, (dict, list)):
                raw = _json(body_out)
                out_headers = {"content-type": "application/json; charset=utf-8"}
            else:
                raw = (
                    body_out.encode() if isinstance(body_out, str) else bytes(body_out)
                )
                out_headers = {"content-type": "text/plain; charset=utf-8"}
            out_headers.update({"x-github-request-id": _request_id()})
            out_headers.update(fault.headers)
            self._send(entry, fault.status, out_headers, raw)
            return
        if fault is not None and fault.mode == "malformed":
            entry.fault = "malformed"
            raw = (
                fault.body
                if fault.body is not None
                else b'{"message": "this response is cut'
            )
            raw = raw.encode() if isinstance(raw, str) else raw
            out_headers = {
                "content-type": "application/json; charset=utf-8",
                "x-github-request-id": _request_id(),
            }
            out_headers.update(fault.headers)
            self._send(entry, 200, out_headers, raw)
            return

        try:
            status, out_headers, raw = fake._serve(
                self.command,
                path,
                entry.query,
                headers,
                body,
                origin,
                self.client_address[0],
            )
        except Exception:  # noqa: BLE001  (a fake bug answers 500 and shows the traceback)
            traceback.print_exc(file=sys.stderr)
            status, out_headers, raw = (
                500,
                {"content-type": "application/json; charset=utf-8"},
                _json({"message": "Server Error (fake GitHub bug; see stderr)"}),
            )
        if fault is not None and fault.mode == "truncate":
            entry.fault = "truncate"
            out_headers = {**out_headers, **fault.headers}
            self._send(entry, status, out_headers, raw, truncate=True)
            return
        if fault is not None:
            entry.fault = fault.mode
        self._send(entry, status, out_headers, raw)

    def _send(
        self,
        entry: LogEntry,
        status: int,
        headers: dict,
        body: bytes,
        truncate: bool = False,
    ) -> None:
        entry.status = status
        entry.response_headers = {k.lower(): str(v) for k, v in headers.items()}
        entry.response_body = body
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if status not in (204, 304):
            declared = max(len(body), 16) if truncate else len(body)
            self.send_header("content-length", str(declared))
            entry.response_headers["content-length"] = str(declared)
        self.end_headers()
        if self.command != "HEAD" and status not in (204, 304):
            self.wfile.write(body[: len(body) // 2] if truncate else body)
        self.wfile.flush()
        if truncate:
            self.close_connection = True
