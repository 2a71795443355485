"""REST JSON shapes, field for field as GitHub's v3 API (2022-11-28) writes them.

``View`` carries what changes between clients: ``api`` is the API base the client used
(``http://127.0.0.1:PORT``, ``http://api.github.localhost``, or either followed by
``/api/v3``), ``html`` the web origin (``https://github.com`` by default), ``media`` the
body representation asked for with ``Accept: application/vnd.github.<media>+json``
(raw → ``body``; text → ``body_text``; html → ``body_html``; full → all three).
"""

from __future__ import annotations

import html as html_lib
from dataclasses import dataclass
from urllib.parse import quote

from .model import (
    Comment,
    Event,
    GitCommit,
    Issue,
    Pull,
    Repo,
    Review,
    ReviewComment,
    User,
    node_id,
    sha,
    ts,
)


@dataclass(frozen=True)
class View:
    api: str
    html: str
    media: str = "raw"


def _bodies(view: View, body, key="body") -> dict:
    """GitHub's body fields for the media type asked for, in GitHub's key order."""
    out = {}
    if view.media in ("html", "full"):
        out[f"{key}_html"] = None if body is None else _render(body)
    if view.media in ("text", "full"):
        out[f"{key}_text"] = body
    if view.media in ("raw", "full"):
        out[key] = body
    return out


def _render(body: str) -> str:
    paragraphs = [p for p in body.split("\n\n") if p.strip()]
    return "\n".join(
        '<p dir="auto">' + html_lib.escape(p).replace("\n", "<br>\n") + "</p>"
        for p in paragraphs
    )


def reactions(url: str) -> dict:
    return {
        "url": url,
        "total_count": 0,
        "+1": 0,
        "-1": 0,
        "laugh": 0,
        "hooray": 0,
        "confused": 0,
        "heart": 0,
        "rocket": 0,
        "eyes": 0,
    }


def user(view: View, u: User) -> dict:
    api_user = f"{view.api}/users/{quote(u.login, safe='')}"
    if u.type == "Bot":
        html_url = f"{view.html}/apps/{u.graphql_login}"
        avatar = f"https://avatars.githubusercontent.com/in/{u.id % 1_000_000}?v=4"
    else:
        html_url = f"{view.html}/{u.login}"
        avatar = f"https://avatars.githubusercontent.com/u/{u.id}?v=4"
    return {
        "login": u.login,
        "id": u.id,
        "node_id": u.node_id,
        "avatar_url": avatar,
        "gravatar_id": "",
        "url": api_user,
        "html_url": html_url,
        "followers_url": f"{api_user}/followers",
        "following_url": f"{api_user}/following{{/other_user}}",
        "gists_url": f"{api_user}/gists{{/gist_id}}",
        "starred_url": f"{api_user}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{api_user}/subscriptions",
        "organizations_url": f"{api_user}/orgs",
        "repos_url": f"{api_user}/repos",
        "events_url": f"{api_user}/events{{/privacy}}",
        "received_events_url": f"{api_user}/received_events",
        "type": u.type,
        "user_view_type": "public",
        "site_admin": False,
    }


def repository(view: View, r: Repo, full: bool = False) -> dict:
    """``Repository`` (as embedded in a pull request) or, with ``full``, ``FullRepository``."""
    a = f"{view.api}/repos/{r.full_name}"
    html_host = view.html.split("://", 1)[-1]
    open_issues = sum(1 for i in r.issues.values() if i.state == "open")
    created = ts(r.created_at)
    data = {
        "id": r.id,
        "node_id": r.node_id,
        "name": r.name,
        "full_name": r.full_name,
        "private": r.private,
        "owner": user(view, r.owner),
        "html_url": f"{view.html}/{r.full_name}",
        "description": r.description,
        "fork": False,
        "url": a,
        "forks_url": f"{a}/forks",
        "keys_url": f"{a}/keys{{/key_id}}",
        "collaborators_url": f"{a}/collaborators{{/collaborator}}",
        "teams_url": f"{a}/teams",
        "hooks_url": f"{a}/hooks",
        "issue_events_url": f"{a}/issues/events{{/number}}",
        "events_url": f"{a}/events",
        "assignees_url": f"{a}/assignees{{/user}}",
        "branches_url": f"{a}/branches{{/branch}}",
        "tags_url": f"{a}/tags",
        "blobs_url": f"{a}/git/blobs{{/sha}}",
        "git_tags_url": f"{a}/git/tags{{/sha}}",
        "git_refs_url": f"{a}/git/refs{{/sha}}",
        "trees_url": f"{a}/git/trees{{/sha}}",
        "statuses_url": f"{a}/statuses/{{sha}}",
        "languages_url": f"{a}/languages",
        "stargazers_url": f"{a}/stargazers",
        "contributors_url": f"{a}/contributors",
        "subscribers_url": f"{a}/subscribers",
        "subscription_url": f"{a}/subscription",
        "commits_url": f"{a}/commits{{/sha}}",
        "git_commits_url": f"{a}/git/commits{{/sha}}",
        "comments_url": f"{a}/comments{{/number}}",
        "issue_comment_url": f"{a}/issues/comments{{/number}}",
        "contents_url": f"{a}/contents/{{+path}}",
        "compare_url": f"{a}/compare/{{base}}...{{head}}",
        "merges_url": f"{a}/merges",
        "archive_url": f"{a}/{{archive_format}}{{/ref}}",
        "downloads_url": f"{a}/downloads",
        "issues_url": f"{a}/issues{{/number}}",
        "pulls_url": f"{a}/pulls{{/number}}",
        "milestones_url": f"{a}/milestones{{/number}}",
        "notifications_url": f"{a}/notifications{{?since,all,participating}}",
        "labels_url": f"{a}/labels{{/name}}",
        "releases_url": f"{a}/releases{{/id}}",
        "deployments_url": f"{a}/deployments",
        "created_at": created,
        "updated_at": created,
        "pushed_at": created,
        "git_url": f"git://{html_host}/{r.full_name}.git",
        "ssh_url": f"git@{html_host}:{r.full_name}.git",
        "clone_url": f"{view.html}/{r.full_name}.git",
        "svn_url": f"{view.html}/{r.full_name}",
        "homepage": None,
        "size": 108,
        "stargazers_count": 0,
        "watchers_count": 0,
        "language": "Python",
        "has_issues": True,
        "has_projects": True,
        "has_downloads": True,
        "has_wiki": True,
        "has_pages": False,
        "has_discussions": False,
        "forks_count": 0,
        "mirror_url": None,
        "archived": False,
        "disabled": False,
        "open_issues_count": open_issues,
        "license": None,
        "allow_forking": True,
        "is_template": False,
        "web_commit_signoff_required": False,
        "topics": [],
        "visibility": "private" if r.private else "public",
        "forks": 0,
        "open_issues": open_issues,
        "watchers": 0,
        "default_branch": r.default_branch,
    }
    if full:
        data["permissions"] = {
            "admin": False,
            "maintain": False,
            "push": False,
            "triage": False,
            "pull": True,
        }
        data["temp_clone_token"] = None
        data["network_count"] = 0
        data["subscribers_count"] = 1
    return data


def issue(view: View, i: Issue, single: bool = True) -> dict:
    r = i.repo
    a = f"{view.api}/repos/{r.full_name}/issues/{i.number}"
    kind = "pull" if i.pull is not None else "issues"
    data = {
        "url": a,
        "repository_url": f"{view.api}/repos/{r.full_name}",
        "labels_url": f"{a}/labels{{/name}}",
        "comments_url": f"{a}/comments",
        "events_url": f"{a}/events",
        "html_url": f"{view.html}/{r.full_name}/{kind}/{i.number}",
        "id": i.id,
        "node_id": i.node_id,
        "number": i.number,
        "title": i.title,
        "user": user(view, i.user),
        "labels": [label(view, r, n) for n in i.labels],
        "state": i.state,
        "locked": i.locked,
        "assignee": user(view, i.assignees[0]) if i.assignees else None,
        "assignees": [user(view, u) for u in i.assignees],
        "milestone": milestone(view, i),
        "comments": len(i.comments),
        "created_at": ts(i.created_at),
        "updated_at": ts(i.updated_at),
        "closed_at": ts(i.closed_at),
        "author_association": i.association,
        "type": None,
        "active_lock_reason": i.lock_reason if i.locked else None,
    }
    if i.pull is not None:
        p = i.pull
        data["draft"] = p.draft
        data["pull_request"] = {
            "url": f"{view.api}/repos/{r.full_name}/pulls/{i.number}",
            "html_url": f"{view.html}/{r.full_name}/pull/{i.number}",
            "diff_url": f"{view.html}/{r.full_name}/pull/{i.number}.diff",
            "patch_url": f"{view.html}/{r.full_name}/pull/{i.number}.patch",
            "merged_at": ts(merged_at(p)),
        }
    data.update(_bodies(view, i.body))
    if single:
        data["closed_by"] = (
            user(view, i.closed_by) if i.closed_by and i.state == "closed" else None
        )
    data["reactions"] = reactions(f"{a}/reactions")
    data["timeline_url"] = f"{a}/timeline"
    data["performed_via_github_app"] = None
    data["state_reason"] = state_reason(i)
    return data


def state_reason(i: Issue):
    if i.state_reason is not None:
        return i.state_reason
    return "completed" if i.state == "closed" else None


def merged_at(p: Pull):
    if not p.merged:
        return None
    return p.merged_at or p.issue.closed_at


def label(view: View, r: Repo, name: str) -> dict:
    lid = int(sha("label", r.id, name)[:8], 16)
    return {
        "id": lid,
        "node_id": node_id("LA", r.id, lid),
        "url": f"{view.api}/repos/{r.full_name}/labels/{quote(name, safe='')}",
        "name": name,
        "color": label_color(name),
        "default": False,
        "description": None,
        "archived_by": None,
    }


def label_color(name: str) -> str:
    return sha("color", name)[:6]


def milestone(view: View, i: Issue):
    if i.milestone is None:
        return None
    r = i.repo
    number = int(sha("milestone", r.id, i.milestone)[:4], 16) % 997 + 1
    mid = int(sha("milestone-id", r.id, i.milestone)[:8], 16)
    a = f"{view.api}/repos/{r.full_name}/milestones/{number}"
    created = ts(r.created_at)
    return {
        "url": a,
        "html_url": f"{view.html}/{r.full_name}/milestone/{number}",
        "labels_url": f"{a}/labels",
        "id": mid,
        "node_id": node_id("MI", r.id, mid),
        "number": number,
        "state": "open",
        "title": i.milestone,
        "description": None,
        "creator": user(view, r.owner),
        "open_issues": 1,
        "closed_issues": 0,
        "created_at": created,
        "updated_at": created,
        "closed_at": None,
        "due_on": None,
    }


def team(view: View, r: Repo, slug: str) -> dict:
    """A team of the repository's owner (GitHub's ``Team``); ``slug`` is also its name."""
    tid = int(sha("team", r.owner.id, slug)[:7], 16)
    org = quote(r.owner.login, safe="")
    a = f"{view.api}/organizations/{r.owner.id}/team/{tid}"
    return {
        "name": slug,
        "id": tid,
        "node_id": node_id("T", tid),
        "slug": slug,
        "description": None,
        "privacy": "closed",
        "notification_setting": "notifications_enabled",
        "url": a,
        "html_url": f"{view.html}/orgs/{org}/teams/{slug}",
        "members_url": f"{a}/members{{/member}}",
        "repositories_url": f"{a}/repos",
        "type": "organization",
        "organization_id": r.owner.id,
        "permission": "pull",
        "parent": None,
    }


def comment_html_url(view: View, c: Comment) -> str:
    i = c.issue
    kind = "pull" if i.pull is not None else "issues"
    return f"{view.html}/{i.repo.full_name}/{kind}/{i.number}#issuecomment-{c.id}"


def issue_comment(view: View, c: Comment) -> dict:
    r = c.issue.repo
    url = f"{view.api}/repos/{r.full_name}/issues/comments/{c.id}"
    data = {
        "url": url,
        "html_url": comment_html_url(view, c),
        "issue_url": f"{view.api}/repos/{r.full_name}/issues/{c.issue.number}",
        "id": c.id,
        "node_id": c.node_id,
        "user": user(view, c.user),
        "created_at": ts(c.created_at),
        "updated_at": ts(c.updated_at),
        "author_association": c.association,
    }
    data.update(_bodies(view, c.body))
    data["reactions"] = reactions(f"{url}/reactions")
    data["performed_via_github_app"] = None
    return data


def _branch(view: View, p: Pull, which: str) -> dict:
    r = p.repo
    if which == "head":
        owner, ref, commit = p.head_owner, p.head_ref, p.head_sha
        repo = head_repo(p)
    else:
        owner, ref, commit, repo = r.owner, p.base_ref, p.base_sha, r
    return {
        "label": f"{owner.login}:{ref}",
        "ref": ref,
        "sha": commit,
        "user": user(view, owner),
        "repo": None if repo is None else repository(view, repo),
    }


def head_repo(p: Pull):
    """The PR's head repository (the base one, or a fork not stored); None once deleted."""
    if p.head_repo_deleted:
        return None
    r = p.repo
    return r if p.head_owner is r.owner else _fork(r, p.head_owner)


def _fork(r: Repo, owner: User) -> Repo:
    """The head repository of a pull request from another owner (a fork, not stored)."""
    fork_id = r.id + 1_000_000 + owner.id % 1_000_000
    return Repo(
        id=fork_id,
        node_id=node_id("R", fork_id),
        owner=owner,
        name=r.name,
        private=r.private,
        created_at=r.created_at,
    )


def _pull_common(view: View, p: Pull) -> dict:
    i, r = p.issue, p.repo
    a = f"{view.api}/repos/{r.full_name}/pulls/{i.number}"
    ia = f"{view.api}/repos/{r.full_name}/issues/{i.number}"
    html = f"{view.html}/{r.full_name}/pull/{i.number}"
    state = "closed" if i.state == "closed" or p.merged else "open"
    data = {
        "url": a,
        "id": p.id,
        "node_id": p.node_id,
        "html_url": html,
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "issue_url": ia,
        "number": i.number,
        "state": state,
        "locked": i.locked,
        "title": i.title,
        "user": user(view, i.user),
    }
    data.update(_bodies(view, i.body))
    data.update(
        {
            "created_at": ts(i.created_at),
            "updated_at": ts(i.updated_at),
            "closed_at": ts(i.closed_at),
            "merged_at": ts(merged_at(p)),
            "merge_commit_sha": p.merge_sha or sha("merge", p.head_sha),
            "assignee": user(view, i.assignees[0]) if i.assignees else None,
            "assignees": [user(view, u) for u in i.assignees],
            "requested_reviewers": [user(view, u) for u in p.requested_reviewers],
            "requested_teams": [team(view, r, t) for t in p.requested_teams],
            "labels": [label(view, r, n) for n in i.labels],
            "milestone": milestone(view, i),
            "draft": p.draft,
            "commits_url": f"{a}/commits",
            "review_comments_url": f"{a}/comments",
            "review_comment_url": f"{view.api}/repos/{r.full_name}/pulls/comments{{/number}}",
            "comments_url": f"{ia}/comments",
            "statuses_url": f"{view.api}/repos/{r.full_name}/statuses/{p.head_sha}",
            "head": _branch(view, p, "head"),
            "base": _branch(view, p, "base"),
            "_links": {
                "self": {"href": a},
                "html": {"href": html},
                "issue": {"href": ia},
                "comments": {"href": f"{ia}/comments"},
                "review_comments": {"href": f"{a}/comments"},
                "review_comment": {
                    "href": f"{view.api}/repos/{r.full_name}/pulls/comments{{/number}}"
                },
                "commits": {"href": f"{a}/commits"},
                "statuses": {
                    "href": f"{view.api}/repos/{r.full_name}/statuses/{p.head_sha}"
                },
            },
            "author_association": i.association,
            "auto_merge": None,
            "active_lock_reason": i.lock_reason if i.locked else None,
        }
    )
    return data


def pull_simple(view: View, p: Pull) -> dict:
    return _pull_common(view, p)


def mergeability(p: Pull) -> tuple:
    """(mergeable, rebaseable, mergeable_state) as ``GET /pulls/N`` shows them now: null and
    "unknown" while GitHub computes (and once closed); a state not set is dirty when not
    mergeable, else draft or clean."""
    if p.merged or p.issue.state == "closed" or p.merge_shown is None:
        return None, None, "unknown"
    value, state = p.merge_shown
    if state is None:
        state = "dirty" if not value else ("draft" if p.draft else "clean")
    return value, value, state


def pull_full(view: View, p: Pull) -> dict:
    data = _pull_common(view, p)
    mergeable, rebaseable, mergeable_state = mergeability(p)
    data.update(
        {
            "merged": p.merged,
            "mergeable": mergeable,
            "rebaseable": rebaseable,
            "mergeable_state": mergeable_state,
            "merged_by": user(view, p.merged_by or p.repo.owner) if p.merged else None,
            "comments": len(p.issue.comments),
            # drafts in pending reviews are not counted (whoever asks)
            "review_comments": sum(
                1 for c in p.review_comments if c.review.state != "PENDING"
            ),
            "maintainer_can_modify": False,
            "commits": len(p.commits),
            "additions": 10,
            "deletions": 2,
            "changed_files": max(1, len({t.path for t in p.threads})),
        }
    )
    return data


def review(view: View, rv: Review) -> dict:
    p, r = rv.pull, rv.pull.repo
    html = f"{view.html}/{r.full_name}/pull/{p.number}#pullrequestreview-{rv.id}"
    pr_url = f"{view.api}/repos/{r.full_name}/pulls/{p.number}"
    data = {
        "id": rv.id,
        "node_id": rv.node_id,
        "user": user(view, rv.user),
    }
    data.update(_bodies(view, rv.body))
    data.update(
        {
            "state": rv.state,
            "html_url": html,
            "pull_request_url": pr_url,
            "author_association": rv.association,
            "_links": {"html": {"href": html}, "pull_request": {"href": pr_url}},
        }
    )
    if rv.submitted_at is not None:
        data["submitted_at"] = ts(rv.submitted_at)
    data["commit_id"] = rv.commit_id
    return data


def review_comment(view: View, c: ReviewComment) -> dict:
    t, p = c.thread, c.thread.pull
    r = p.repo
    url = f"{view.api}/repos/{r.full_name}/pulls/comments/{c.id}"
    html = f"{view.html}/{r.full_name}/pull/{p.number}#discussion_r{c.id}"
    pr_url = f"{view.api}/repos/{r.full_name}/pulls/{p.number}"
    data = {
        "url": url,
        "pull_request_review_id": c.review.id,
        "id": c.id,
        "node_id": c.node_id,
        "diff_hunk": c.diff_hunk,
        "path": t.path,
        "position": c.position,
        "original_position": c.original_position,
        "commit_id": c.commit_id,
        "original_commit_id": c.original_commit_id,
    }
    if c.in_reply_to is not None:
        data["in_reply_to_id"] = c.in_reply_to.id
    data["user"] = user(view, c.user)
    data.update(_bodies(view, c.body))
    multi = t.original_start_line is not None
    data.update(
        {
            "created_at": ts(c.created_at),
            "updated_at": ts(c.updated_at),
            "html_url": html,
            "pull_request_url": pr_url,
            "author_association": c.association,
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "pull_request": {"href": pr_url},
            },
            "reactions": reactions(f"{url}/reactions"),
            "start_line": t.start_line,
            "original_start_line": t.original_start_line,
            "start_side": t.diff_side if multi else None,
            "line": t.line,
            "original_line": t.original_line,
            "side": t.diff_side,
            "subject_type": t.subject_type.lower(),
        }
    )
    return data


# --------------------------------------------------------------------------- events, commits

USER_FIELDS = ("assignee", "assigner", "review_requester", "requested_reviewer")


def event(view: View, ev: Event, users) -> dict:
    """An issue event as ``GET /issues/N/events`` lists it (``users``: login -> User)."""
    r = ev.issue.repo
    data = {
        "id": ev.id,
        "node_id": ev.node_id,
        "url": f"{view.api}/repos/{r.full_name}/issues/events/{ev.id}",
        "actor": user(view, ev.actor),
        "event": ev.event,
        "commit_id": ev.commit_id,
        "commit_url": None
        if ev.commit_id is None
        else f"{view.api}/repos/{r.full_name}/commits/{ev.commit_id}",
        "created_at": ts(ev.created_at),
    }
    for key, value in ev.fields.items():
        if key in USER_FIELDS:
            data[key] = None if value is None else user(view, users(value))
        elif key == "requested_team":
            data[key] = team(view, r, value)
        else:
            data[key] = value
    data["performed_via_github_app"] = None
    return data


def commit(view: View, c: GitCommit) -> dict:
    """A commit as the compare and PR commits lists show it (GitHub's ``Commit``)."""
    r = c.repo
    a = f"{view.api}/repos/{r.full_name}"
    email = (
        f"{c.author.id}+{c.author.login}@users.noreply.github.com"
        if c.author is not None
        else "someone@example.com"
    )
    person = {"name": c.author_name, "email": email, "date": ts(c.committed_at)}
    tree = sha("tree", c.sha)
    return {
        "sha": c.sha,
        "node_id": node_id("C", r.id, int(c.sha[:12], 16)),
        "commit": {
            "author": dict(person),
            "committer": dict(person),
            "message": c.message,
            "tree": {"sha": tree, "url": f"{a}/git/trees/{tree}"},
            "url": f"{a}/git/commits/{c.sha}",
            "comment_count": 0,
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "signature": None,
                "payload": None,
                "verified_at": None,
            },
        },
        "url": f"{a}/commits/{c.sha}",
        "html_url": f"{view.html}/{r.full_name}/commit/{c.sha}",
        "comments_url": f"{a}/commits/{c.sha}/comments",
        "author": None if c.author is None else user(view, c.author),
        "committer": None if c.author is None else user(view, c.author),
        "parents": [
            {
                "sha": p,
                "url": f"{a}/commits/{p}",
                "html_url": f"{view.html}/{r.full_name}/commit/{p}",
            }
            for p in c.parents
        ],
    }


def git_ref(view: View, r: Repo, ref: str, commit_sha: str) -> dict:
    a = f"{view.api}/repos/{r.full_name}"
    return {
        "ref": f"refs/heads/{ref}",
        "node_id": node_id("REF", r.id, int(sha("ref", ref)[:12], 16)),
        "url": f"{a}/git/refs/heads/{quote(ref, safe='/')}",
        "object": {
            "sha": commit_sha,
            "type": "commit",
            "url": f"{a}/git/commits/{commit_sha}",
        },
    }


def rate_limit_overview(resources: dict) -> dict:
    return {"resources": resources, "rate": resources["core"]}
