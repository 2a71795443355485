"""In-memory data of the fake GitHub: users, repositories, issues, comments, pull requests.

Plain records only; the JSON shapes are built in ``shapes.py`` (REST) and ``gql.py``
(GraphQL). Every mutation happens under the owning FakeGitHub's lock.

Identifiers imitate GitHub's: database ids are large and grow (issue comments start
above 2**32, review and review-comment ids above 2**31, so a client that stores them in
32 bits breaks here as it would on github.com); node ids are opaque ``PREFIX_kwDO…``
strings.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import struct
from dataclasses import dataclass, field

UTC = dt.timezone.utc

ASSOCIATIONS = (
    "COLLABORATOR",
    "CONTRIBUTOR",
    "FIRST_TIMER",
    "FIRST_TIME_CONTRIBUTOR",
    "MANNEQUIN",
    "MEMBER",
    "NONE",
    "OWNER",
)
REVIEW_STATES = ("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING")


def utc(value) -> dt.datetime:
    """A timezone-aware UTC datetime, truncated to whole seconds (GitHub's precision)."""
    if isinstance(value, str):
        value = parse_iso8601(value)
    if not isinstance(value, dt.datetime):
        raise TypeError(f"expected a datetime, got {value!r}")
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).replace(microsecond=0)


def parse_iso8601(text: str) -> dt.datetime:
    """Parse the ISO 8601 forms GitHub accepts (``Z`` or offset, optional fraction, date only)."""
    text = text.strip()
    if len(text) == 10:
        value = dt.datetime.strptime(text, "%Y-%m-%d")
    else:
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        value = dt.datetime.fromisoformat(text)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def ts(value: dt.datetime | None) -> str | None:
    return (
        None if value is None else value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    )


def node_id(prefix: str, *numbers: int) -> str:
    """An opaque global id in GitHub's new format (prefix, ``_kwDO``/``_kgDO``, base64 payload)."""
    raw = b"".join(struct.pack(">Q", n) for n in numbers)
    payload = base64.urlsafe_b64encode(raw.lstrip(b"\0") or b"\0").decode().rstrip("=")
    marker = "kgDO" if len(numbers) == 1 else "kwDO"
    return f"{prefix}_{marker}{payload}"


def sha(*parts) -> str:
    return hashlib.sha1("/".join(str(p) for p in parts).encode()).hexdigest()


# --------------------------------------------------------------------------- records


@dataclass(eq=False)
class User:
    login: str  # REST spelling: bots end with "[bot]"
    id: int
    type: str  # "User", "Bot" or "Organization"
    node_id: str

    @property
    def graphql_login(self) -> str:
        """GraphQL spells bot logins without the ``[bot]`` suffix (as GitHub does)."""
        if self.type == "Bot" and self.login.endswith("[bot]"):
            return self.login[: -len("[bot]")]
        return self.login


@dataclass(eq=False)
class Repo:
    id: int
    node_id: str
    owner: User
    name: str
    private: bool
    created_at: dt.datetime
    description: str | None = None
    default_branch: str = "main"
    issues: dict = field(default_factory=dict)  # number -> Issue
    moved: dict = field(default_factory=dict)  # number -> Issue transferred elsewhere

    @property
    def full_name(self) -> str:
        return f"{self.owner.login}/{self.name}"


@dataclass(eq=False)
class Issue:
    repo: Repo
    number: int
    id: int
    node_id: str
    title: str
    body: str | None
    user: User
    association: str
    state: str  # "open" / "closed"
    created_at: dt.datetime
    updated_at: dt.datetime
    closed_at: dt.datetime | None = None
    comments: list = field(default_factory=list)  # Comment, ascending id
    pull: Pull | None = None
    events: list = field(default_factory=list)  # Event, ascending id
    state_reason: str | None = None  # None: "completed" when closed (the old default)
    locked: bool = False
    lock_reason: str | None = None
    labels: list = field(default_factory=list)  # label names, in the order added
    assignees: list = field(default_factory=list)  # User
    milestone: str | None = None
    closed_by: User | None = None


@dataclass(eq=False, slots=True)
class Comment:
    id: int
    node_id: str
    issue: Issue
    user: User
    body: str
    association: str
    created_at: dt.datetime
    updated_at: dt.datetime
    history: list = field(default_factory=list)  # Revision, oldest first (edit history)


@dataclass(eq=False, slots=True)
class Revision:
    """One revision of a comment's body as GitHub's GraphQL `userContentEdits` shows it:
    the original is recorded (`includesCreatedEdit`) when the first edit is made, each edit
    adds one; `diff` holds that revision's whole text (observed, not documented), null once
    the revision was deleted from the history."""

    node_id: str
    edited_at: dt.datetime
    body: str | None
    editor: User
    deleted_at: dt.datetime | None = None


@dataclass(eq=False)
class Pull:
    issue: Issue
    id: int
    node_id: str
    head_ref: str
    head_owner: User
    base_ref: str
    head_sha: str
    base_sha: str
    draft: bool
    merged: bool
    reviews: list = field(default_factory=list)  # Review, ascending id
    threads: list = field(default_factory=list)  # Thread, creation order
    review_comments: list = field(default_factory=list)  # ReviewComment, ascending id
    commits: list = field(default_factory=list)  # GitCommit of the PR, oldest first
    merged_at: dt.datetime | None = None
    merged_by: User | None = None
    merge_sha: str | None = None
    head_ref_deleted: bool = False
    head_repo_deleted: bool = False
    head_seq: int = 0  # when the head last moved (store-wide counter): shared branches
    requested_reviewers: list = field(default_factory=list)  # User
    requested_teams: list = field(default_factory=list)  # team slug
    # mergeability (section 23): what GitHub's computation yields, (mergeable, state) with
    # state None derived (clean, draft or dirty); what a read shows (None while computing);
    # how many reads still show null before the result (None: until set again)
    merge_truth: tuple = (True, None)
    merge_shown: tuple | None = (True, None)
    merge_reads_left: int | None = 0

    @property
    def number(self) -> int:
        return self.issue.number

    @property
    def repo(self) -> Repo:
        return self.issue.repo

    def read_mergeability(self) -> None:
        """A read of ``GET /pulls/N``: it starts (or advances) a pending mergeability job;
        the read after the last one that shows null shows the result."""
        if self.merge_shown is not None or self.merge_reads_left is None:
            return
        if self.merge_reads_left <= 0:
            self.merge_shown = self.merge_truth
        else:
            self.merge_reads_left -= 1


@dataclass(eq=False)
class Event:
    """One issue event (``GET /issues/N/events``): ``fields`` holds the kind's own fields
    in GitHub's nesting, with logins for the user-valued ones (rendered in shapes.py)."""

    id: int
    node_id: str
    issue: Issue
    event: str
    actor: User
    created_at: dt.datetime
    commit_id: str | None = None
    fields: dict = field(default_factory=dict)


@dataclass(eq=False, slots=True)
class GitCommit:
    """A commit: ``author`` is the GitHub account (None: no account matches the email)."""

    sha: str
    repo: Repo
    message: str
    author: User | None
    author_name: str
    committed_at: dt.datetime
    parents: list  # shas


@dataclass(eq=False)
class Review:
    id: int
    node_id: str
    pull: Pull
    user: User
    state: str
    body: str
    association: str
    submitted_at: dt.datetime | None
    commit_id: str
    created_at: dt.datetime | None = None  # when it was started (drafting time)
    dismissal_message: str | None = None

    def visible_to(self, login: str | None) -> bool:
        """A PENDING review is seen only by its author (GitHub shows drafts to no one else)."""
        if self.state != "PENDING":
            return True
        return login is not None and self.user.login.lower() == login.lower()


def visible_to(item, login: str | None) -> bool:
    """Whether a Review, ReviewComment or Thread is visible to the token of ``login``.

    A review comment is as visible as its review; a thread is visible when any of its
    comments is (a thread whose comments are all in others' pending reviews is absent).
    """
    if isinstance(item, Review):
        return item.visible_to(login)
    if isinstance(item, ReviewComment):
        return item.review.visible_to(login)
    if isinstance(item, Thread):
        return any(c.review.visible_to(login) for c in item.comments)
    return True


@dataclass(eq=False)
class Thread:
    seq: int
    node_id: str
    pull: Pull
    path: str
    line: int | None
    start_line: int | None
    original_line: int | None
    original_start_line: int | None
    is_resolved: bool
    is_outdated: bool
    viewer_can_resolve: bool
    subject_type: str  # "LINE" / "FILE"
    diff_side: str = "RIGHT"
    comments: list = field(default_factory=list)  # ReviewComment, ascending id
    resolved_by: User | None = None  # who resolved it (None: not recorded, or unresolved)


@dataclass(eq=False, slots=True)
class ReviewComment:
    id: int
    node_id: str
    thread: Thread
    user: User
    body: str
    association: str
    created_at: dt.datetime
    updated_at: dt.datetime
    review: Review
    in_reply_to: ReviewComment | None
    diff_hunk: str
    position: int | None
    original_position: int
    commit_id: str
    original_commit_id: str
    history: list = field(default_factory=list)  # Revision, oldest first


@dataclass(eq=False)
class App:
    """A GitHub App that runs checks (``github-actions`` by default)."""

    id: int
    slug: str
    name: str
    node_id: str
    owner: User
    created_at: dt.datetime


@dataclass(eq=False)
class CheckAnnotation:
    path: str
    start_line: int
    end_line: int
    annotation_level: str  # notice, warning, failure
    message: str
    title: str | None = None
    raw_details: str | None = None
    start_column: int | None = None
    end_column: int | None = None


@dataclass(eq=False)
class CheckRun:
    """One check run on a commit (section 23): ``suite_id`` is its check suite's id."""

    id: int
    node_id: str
    repo: Repo
    head_sha: str
    name: str
    app: App
    suite_id: int
    status: str  # queued, in_progress, completed, waiting, requested, pending
    started_at: dt.datetime | None
    conclusion: str | None = None
    completed_at: dt.datetime | None = None
    external_id: str = ""
    details_url: str | None = None
    title: str | None = None
    summary: str | None = None
    text: str | None = None
    annotations: list = field(default_factory=list)  # CheckAnnotation, in order


@dataclass(eq=False)
class CommitStatus:
    """One commit status (``POST /statuses/SHA`` as GitHub stores it)."""

    id: int
    node_id: str
    repo: Repo
    sha: str
    context: str
    state: str  # error, failure, pending, success
    description: str | None
    target_url: str | None
    creator: User
    created_at: dt.datetime
    updated_at: dt.datetime


CHECK_STATUSES = ("queued", "in_progress", "completed", "waiting", "requested", "pending")
CHECK_CONCLUSIONS = ("success", "failure", "neutral", "cancelled", "skipped", "timed_out",
                     "action_required", "stale", "startup_failure")
STATUS_STATES = ("error", "failure", "pending", "success")
ANNOTATION_LEVELS = ("notice", "warning", "failure")


# --------------------------------------------------------------------------- store


class Store:
    """All data of one fake GitHub. Not thread-safe by itself: callers hold the lock."""

    def __init__(self):
        self.users: dict[str, User] = {}
        self.repos: dict[tuple[str, str], Repo] = {}
        self.repos_by_id: dict[int, Repo] = {}
        self.renamed: dict[tuple[str, str], Repo] = {}  # an old full name -> the repository
        self.comments: dict[int, Comment] = {}
        self.reviews: dict[int, Review] = {}
        self.review_comments: dict[int, ReviewComment] = {}
        self.nodes: dict[str, object] = {}
        self._seq = {
            "user": 1_000_000,
            "bot": 180_000_000,
            "org": 90_000_000,
            "repo": 876_543_210,
            "issue": 3_400_000_000,
            "comment": 4_300_000_000,
            "pull": 2_800_000_000,
            "review": 3_100_000_000,
            "review_comment": 2_600_000_000,
            "thread": 0,
            "event": 9_100_000_000,  # above 2**33, as GitHub's issue event ids are now
            "check_run": 31_000_000_000,  # GitHub's check run and status ids are past 2**34
            "check_suite": 29_000_000_000,
            "status": 33_000_000_000,
            "app": 900_000,
        }
        self.check_runs: dict[int, CheckRun] = {}  # id -> CheckRun
        self.statuses: list[CommitStatus] = []  # ascending id
        self.apps: dict[str, App] = {}  # slug -> App
        self.suites: dict[tuple, int] = {}  # (repo id, sha, app slug, key) -> suite id
        self.commits: dict[str, GitCommit] = {}
        self.gone_shas: set[str] = set()  # garbage-collected: compare answers 404
        self.head_moves = 0
        self._tick = 0

    def next_id(self, kind: str) -> int:
        # Ascending, never contiguous: GitHub's ids are shared with every other repository.
        self._tick += 1
        self._seq[kind] += 1 + (self._tick * 7) % 5
        return self._seq[kind]

    # users ------------------------------------------------------------------

    def user(self, login: str, user_type: str = "User") -> User:
        if user_type not in ("User", "Bot", "Organization"):
            raise ValueError(
                f"user_type must be User, Bot or Organization, not {user_type!r}"
            )
        if user_type == "Bot" and not login.endswith("[bot]"):
            login = f"{login}[bot]"
        key = login.lower()
        found = self.users.get(key)
        if found is not None:
            return found
        if key == "octocat":
            uid = 583231  # the real octocat
        else:
            uid = self.next_id(
                {"User": "user", "Bot": "bot", "Organization": "org"}[user_type]
            )
        prefix = {"User": "U", "Bot": "BOT", "Organization": "O"}[user_type]
        rec = User(login=login, id=uid, type=user_type, node_id=node_id(prefix, uid))
        self.users[key] = rec
        self.nodes[rec.node_id] = rec
        return rec

    # repositories -----------------------------------------------------------

    def find_repo(self, owner: str, name: str) -> Repo | None:
        return self.repos.get((owner.lower(), name.lower()))

    def add_repo(
        self, owner: str, name: str, private: bool, now: dt.datetime, owner_type="User"
    ) -> Repo:
        if self.find_repo(owner, name) is not None:
            raise ValueError(f"repository {owner}/{name} already exists")
        rid = self.next_id("repo")
        repo = Repo(
            id=rid,
            node_id=node_id("R", rid),
            owner=self.user(owner, owner_type),
            name=name,
            private=private,
            created_at=now,
        )
        self.repos[(owner.lower(), name.lower())] = repo
        self.repos_by_id[rid] = repo
        self.nodes[repo.node_id] = repo
        return repo

    def repo_or_raise(self, owner: str, name: str) -> Repo:
        repo = self.find_repo(owner, name)
        if repo is None:
            raise KeyError(
                f"no repository {owner}/{name}; add it with add_repo() first"
            )
        return repo

    def issue_or_raise(self, owner: str, name: str, number: int) -> Issue:
        repo = self.repo_or_raise(owner, name)
        issue = repo.issues.get(int(number))
        if issue is None:
            raise KeyError(
                f"no issue #{number} in {owner}/{name}; add it with add_issue() first"
            )
        return issue

    # issues and comments ----------------------------------------------------

    def add_issue(
        self,
        repo: Repo,
        number: int,
        title: str,
        user: User,
        state: str,
        now: dt.datetime,
        body: str | None = None,
        association="OWNER",
    ) -> Issue:
        number = int(number)
        if number in repo.issues:
            raise ValueError(f"{repo.full_name}#{number} already exists")
        if state not in ("open", "closed"):
            raise ValueError("state must be 'open' or 'closed'")
        iid = self.next_id("issue")
        issue = Issue(
            repo=repo,
            number=number,
            id=iid,
            node_id=node_id("I", repo.id, iid),
            title=title,
            body=body,
            user=user,
            association=association,
            state=state,
            created_at=now,
            updated_at=now,
            closed_at=now if state == "closed" else None,
        )
        repo.issues[number] = issue
        self.nodes[issue.node_id] = issue
        return issue

    def add_comment(
        self,
        issue: Issue,
        body: str,
        user: User,
        association: str,
        created_at: dt.datetime,
    ) -> Comment:
        if association not in ASSOCIATIONS:
            raise ValueError(f"association must be one of {ASSOCIATIONS}")
        cid = self.next_id("comment")
        comment = Comment(
            id=cid,
            node_id=node_id("IC", issue.repo.id, cid),
            issue=issue,
            user=user,
            body=body,
            association=association,
            created_at=created_at,
            updated_at=created_at,
        )
        issue.comments.append(comment)
        self.comments[cid] = comment
        self.nodes[comment.node_id] = comment
        issue.updated_at = max(issue.updated_at, created_at)
        return comment

    def delete_comment(self, comment_id: int) -> None:
        comment = self.comments.pop(int(comment_id))
        comment.issue.comments.remove(comment)
        self.nodes.pop(comment.node_id, None)

    # pull requests ----------------------------------------------------------

    def add_pull(
        self,
        issue: Issue,
        head_ref: str,
        head_owner: User,
        base_ref: str,
        draft: bool,
        merged: bool,
    ) -> Pull:
        pid = self.next_id("pull")
        pull = Pull(
            issue=issue,
            id=pid,
            node_id=node_id("PR", issue.repo.id, pid),
            head_ref=head_ref,
            head_owner=head_owner,
            base_ref=base_ref,
            head_sha=sha("head", issue.repo.id, issue.number, head_ref),
            base_sha=sha("base", issue.repo.id, issue.number, base_ref),
            draft=draft,
            merged=merged,
        )
        issue.pull = pull
        self.nodes[pull.node_id] = pull
        base = self.commits.get(pull.base_sha) or self.add_commit(
            issue.repo, pull.base_sha, f"Base of {base_ref}", issue.repo.owner,
            issue.created_at, [])
        head = self.add_commit(issue.repo, pull.head_sha, issue.title, issue.user,
                               issue.created_at, [base.sha])
        pull.commits = [head]
        # GitHub's REST issue for a PR also has its own node id; the PR is what GraphQL serves.
        return pull

    def add_review(
        self,
        pull: Pull,
        user: User,
        state: str,
        body: str,
        association: str,
        submitted_at: dt.datetime | None,
    ) -> Review:
        if state not in REVIEW_STATES:
            raise ValueError(f"state must be one of {REVIEW_STATES}")
        if association not in ASSOCIATIONS:
            raise ValueError(f"association must be one of {ASSOCIATIONS}")
        rid = self.next_id("review")
        review = Review(
            id=rid,
            node_id=node_id("PRR", pull.repo.id, rid),
            pull=pull,
            user=user,
            state=state,
            body=body,
            association=association,
            submitted_at=None if state == "PENDING" else submitted_at,
            commit_id=pull.head_sha,
            created_at=submitted_at,
        )
        pull.reviews.append(review)
        self.reviews[rid] = review
        self.nodes[review.node_id] = review
        return review

    def add_thread(
        self,
        pull: Pull,
        path: str,
        line,
        start_line,
        is_resolved: bool,
        is_outdated: bool,
        viewer_can_resolve: bool,
        subject_type: str | None,
    ) -> Thread:
        seq = self.next_id("thread")
        if subject_type is None:
            subject_type = "FILE" if line is None and not is_outdated else "LINE"
        thread = Thread(
            seq=seq,
            node_id=node_id("PRRT", pull.repo.id, seq),
            pull=pull,
            path=path,
            line=None if is_outdated else line,
            start_line=None if is_outdated else start_line,
            original_line=line,
            original_start_line=start_line,
            is_resolved=is_resolved,
            is_outdated=is_outdated,
            viewer_can_resolve=viewer_can_resolve,
            subject_type=subject_type,
        )
        pull.threads.append(thread)
        self.nodes[thread.node_id] = thread
        return thread

    def add_review_comment(
        self,
        thread: Thread,
        user: User,
        body: str,
        association: str,
        created_at: dt.datetime,
        review: Review,
    ) -> ReviewComment:
        if association not in ASSOCIATIONS:
            raise ValueError(f"association must be one of {ASSOCIATIONS}")
        pull = thread.pull
        cid = self.next_id("review_comment")
        root = thread.comments[0] if thread.comments else None
        line = thread.original_line if thread.original_line is not None else 1
        hunk_start = max(1, line - 3)
        diff_hunk = (
            f"@@ -{hunk_start},3 +{hunk_start},4 @@\n"
            + "".join(f" context line {n}\n" for n in range(hunk_start, line))
            + f"+changed line {line}"
        )
        position = (
            None
            if thread.is_outdated or thread.subject_type == "FILE"
            else (line - hunk_start + 1)
        )
        comment = ReviewComment(
            id=cid,
            node_id=node_id("PRRC", pull.repo.id, cid),
            thread=thread,
            user=user,
            body=body,
            association=association,
            created_at=created_at,
            updated_at=created_at,
            review=review,
            in_reply_to=root,
            diff_hunk=diff_hunk,
            position=position,
            original_position=line - hunk_start + 1,
            # an outdated comment stays on the commit it was written on, no longer the head
            commit_id=sha("orig", pull.head_sha)
            if thread.is_outdated
            else pull.head_sha,
            original_commit_id=sha("orig", pull.head_sha)
            if thread.is_outdated
            else pull.head_sha,
        )
        thread.comments.append(comment)
        pull.review_comments.append(comment)
        self.review_comments[cid] = comment
        self.nodes[comment.node_id] = comment
        return comment

    def delete_review_comment(self, comment_id: int) -> ReviewComment:
        """Drop one review comment (its thread goes too once it has no comment left)."""
        comment = self.review_comments.pop(int(comment_id))
        thread, pull = comment.thread, comment.thread.pull
        thread.comments.remove(comment)
        pull.review_comments.remove(comment)
        self.nodes.pop(comment.node_id, None)
        if not thread.comments:
            pull.threads.remove(thread)
            self.nodes.pop(thread.node_id, None)
        return comment

    def set_thread_resolved(self, thread: Thread, resolved: bool, by: User | None) -> Thread:
        """Resolve or unresolve a thread (both idempotent, as GitHub's mutations are)."""
        thread.is_resolved = bool(resolved)
        thread.resolved_by = by if resolved else None
        return thread

    def delete_review(self, review_id: int) -> None:
        """Drop a review and every comment in it."""
        review = self.reviews.pop(int(review_id))
        pull = review.pull
        for c in [c for c in pull.review_comments if c.review is review]:
            self.delete_review_comment(c.id)
        pull.reviews.remove(review)
        self.nodes.pop(review.node_id, None)

    # events and commits -----------------------------------------------------

    def add_event(self, issue: Issue, kind: str, actor: User, when: dt.datetime,
                  commit_id: str | None = None, fields: dict | None = None) -> Event:
        eid = self.next_id("event")
        ev = Event(id=eid, node_id=node_id(EVENT_PREFIX.get(kind, "IE"), issue.repo.id, eid),
                   issue=issue, event=kind, actor=actor, created_at=when,
                   commit_id=commit_id, fields=dict(fields or {}))
        issue.events.append(ev)
        self.nodes[ev.node_id] = ev
        return ev

    def add_commit(self, repo: Repo, commit_sha: str, message: str, author: User | None,
                   when: dt.datetime, parents: list, author_name: str | None = None
                   ) -> GitCommit:
        c = GitCommit(sha=commit_sha, repo=repo, message=message, author=author,
                      author_name=author_name or (author.login if author else "Unknown"),
                      committed_at=when, parents=list(parents))
        self.commits[commit_sha] = c
        return c

    def ancestry(self, commit_sha: str) -> list[str]:
        """``commit_sha`` and its ancestors, newest first (first parents, then the rest)."""
        seen, order, todo = set(), [], [commit_sha]
        while todo:
            s = todo.pop(0)
            if s in seen or s not in self.commits:
                continue
            seen.add(s)
            order.append(s)
            todo.extend(self.commits[s].parents)
        return order


# GraphQL-style node id prefixes of the REST issue events (GitHub: e.g. "LE_", "CE_")
EVENT_PREFIX = {
    "labeled": "LE", "unlabeled": "UNLE", "closed": "CE", "reopened": "REE",
    "merged": "ME", "renamed": "RTE", "assigned": "AE", "unassigned": "UAE",
    "locked": "LOE", "unlocked": "UNLOE", "review_requested": "RRE",
    "review_request_removed": "RRRE", "review_dismissed": "RDE",
    "head_ref_force_pushed": "HRFPE", "head_ref_deleted": "HRDE",
    "head_ref_restored": "HRRE", "base_ref_changed": "BRCE",
    "convert_to_draft": "CTDE", "ready_for_review": "RFRE", "transferred": "TE",
    "milestoned": "MIE", "demilestoned": "DEME",
}
