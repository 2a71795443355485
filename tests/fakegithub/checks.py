"""CI checks and mergeability in the fake (contract section 23): check runs, their
annotations, commit statuses, and what ``GET /pulls/N`` says about merging.

- Routes (GitHub's paths, also under ``/repositories/ID`` and ``/api/v3``):
  ``GET /repos/O/R/commits/REF/check-runs`` (REF a sha, 7+ hex of one, or a branch;
  ``filter=latest|all``, ``check_name``, ``status``, ``app_id``; paged; ``{total_count,
  check_runs}``), ``GET /repos/O/R/check-runs/ID``, ``GET /repos/O/R/check-runs/ID/annotations``
  (paged), ``GET /repos/O/R/commits/REF/status`` (combined; paged over the contexts),
  ``GET /repos/O/R/commits/REF/statuses`` and its older path ``GET /repos/O/R/statuses/REF``
  (every status, newest first; paged). Every answer has an ETag; a matching If-None-Match is
  a 304 (``server.py`` does it for every GET 200 marked ``etag``).
- ``filter=latest`` (the default) keeps the newest run (highest id) of each (check suite,
  name); ``status`` applies after it. Runs are listed newest first (by id), so a run that
  changes state changes only the page it is on.
- The combined status holds the newest status of each context, ordered by that status's id
  (a context that gets a new status moves to the end: the worst form); ``state`` is failure
  when any is error or failure, pending when there is none or any is pending, else success
  (as documented); ``total_count`` counts every context, not the page.
- Mergeability: ``Pull.read_mergeability`` (a read of ``GET /pulls/N``) and
  ``shapes.mergeability`` (what it shows).
- The test API is the ``ChecksMixin`` methods on ``FakeGitHub``.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import quote, unquote

from . import rest, shapes
from .model import (
    ANNOTATION_LEVELS,
    CHECK_CONCLUSIONS,
    CHECK_STATUSES,
    STATUS_STATES,
    App,
    CheckAnnotation,
    CheckRun,
    CommitStatus,
    node_id,
    ts,
    utc,
)
from .model import sha as sha_of

DOC_RUNS_FOR_REF = "https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference"
DOC_RUN = "https://docs.github.com/rest/checks/runs#get-a-check-run"
DOC_ANNOTATIONS = "https://docs.github.com/rest/checks/runs#list-check-run-annotations"
DOC_COMBINED = (
    "https://docs.github.com/rest/commits/statuses#get-the-combined-status-for-a-specific-reference"
)
DOC_STATUSES = (
    "https://docs.github.com/rest/commits/statuses#list-commit-statuses-for-a-reference"
)
NOT_ACCESSIBLE = "Resource not accessible by integration"
KINDS = ("check_runs", "statuses")

# Apps GitHub has: id, name, owner login (others get an id of their own)
KNOWN_APPS = {
    "github-actions": (15368, "GitHub Actions", "github"),
    "dependabot": (29110, "Dependabot", "github"),
}


# --------------------------------------------------------------------------- shapes


def app(view: shapes.View, a: App) -> dict:
    return {
        "id": a.id,
        "slug": a.slug,
        "node_id": a.node_id,
        "client_id": f"Iv1.{sha_of('client', a.id)[:16]}",
        "owner": shapes.user(view, a.owner),
        "name": a.name,
        "description": "",
        "external_url": f"{view.html}/apps/{a.slug}",
        "html_url": f"{view.html}/apps/{a.slug}",
        "created_at": ts(a.created_at),
        "updated_at": ts(a.created_at),
        "permissions": {"checks": "write", "metadata": "read", "statuses": "write"},
        "events": ["check_run", "check_suite", "pull_request", "push"],
    }


def check_run(view: shapes.View, r: CheckRun) -> dict:
    a = f"{view.api}/repos/{r.repo.full_name}/check-runs/{r.id}"
    return {
        "id": r.id,
        "name": r.name,
        "node_id": r.node_id,
        "head_sha": r.head_sha,
        "external_id": r.external_id,
        "url": a,
        "html_url": f"{view.html}/{r.repo.full_name}/runs/{r.id}",
        "details_url": r.details_url,
        "status": r.status,
        "conclusion": r.conclusion,
        "started_at": ts(r.started_at),
        "completed_at": ts(r.completed_at),
        "output": {
            "title": r.title,
            "summary": r.summary,
            "text": r.text,
            "annotations_count": len(r.annotations),
            "annotations_url": f"{a}/annotations",
        },
        "check_suite": {"id": r.suite_id},
        "app": app(view, r.app),
        # GitHub fills this for pull requests of the same repository whose head is the
        # run's commit; the fake never does (a fork's pull request gets [] on GitHub too)
        "pull_requests": [],
    }


def annotation(view: shapes.View, r: CheckRun, x: CheckAnnotation) -> dict:
    return {
        "path": x.path,
        "blob_href": f"{view.html}/{r.repo.full_name}/blob/{r.head_sha}/{quote(x.path)}",
        "start_line": x.start_line,
        "end_line": x.end_line,
        "start_column": x.start_column,
        "end_column": x.end_column,
        "annotation_level": x.annotation_level,
        "title": x.title,
        "message": x.message,
        "raw_details": x.raw_details,
    }


def _status_common(view: shapes.View, s: CommitStatus) -> dict:
    return {
        "url": f"{view.api}/repos/{s.repo.full_name}/statuses/{s.sha}",
        "avatar_url": shapes.user(view, s.creator)["avatar_url"],
        "id": s.id,
        "node_id": s.node_id,
        "state": s.state,
        "description": s.description,
        "target_url": s.target_url,
        "context": s.context,
        "created_at": ts(s.created_at),
        "updated_at": ts(s.updated_at),
    }


def status(view: shapes.View, s: CommitStatus) -> dict:
    """A status as ``GET /commits/REF/statuses`` lists it (GitHub's ``Status``)."""
    return {**_status_common(view, s), "creator": shapes.user(view, s.creator)}


def simple_status(view: shapes.View, s: CommitStatus) -> dict:
    """A status inside the combined status (GitHub's ``SimpleCommitStatus``: no creator)."""
    return _status_common(view, s)


def combined_state(latest: list) -> str:
    states = {s.state for s in latest}
    if states & {"error", "failure"}:
        return "failure"
    if not latest or "pending" in states:
        return "pending"
    return "success"


# --------------------------------------------------------------------------- routes


def _denied(req: rest.Req, kind: str, doc: str):
    if req.fake.checks_denied(kind, req.token):
        return rest.error(403, NOT_ACCESSIBLE, doc)
    return None


def _commit(req: rest.Req, g, doc: str, kind: str):
    """(repo, commit) for the REF of the path, or an error Resp."""
    repo = rest.visible_repo(req, g, doc)
    if repo is None:
        return rest.not_found(doc)
    denied = _denied(req, kind, doc)
    if denied:
        return denied
    ref = unquote(g["ref"])
    c = rest._commit_for(req, repo, ref)
    if c is None:
        return rest.error(422, f"No commit found for SHA: {ref}", doc)
    return repo, c


def _invalid(doc: str, name: str, value: str) -> rest.Resp:
    return rest.validation_failed(doc, [
        {"resource": "CheckRun", "field": name, "code": "invalid", "value": value}])


def list_check_runs_for_ref(req: rest.Req, g) -> rest.Resp:
    found = _commit(req, g, DOC_RUNS_FOR_REF, "check_runs")
    if isinstance(found, rest.Resp):
        return found
    repo, c = found
    wanted = req.query.get("filter", "latest")
    if wanted not in ("latest", "all"):
        return _invalid(DOC_RUNS_FOR_REF, "filter", wanted)
    state = req.query.get("status")
    if state is not None and state not in ("queued", "in_progress", "completed"):
        return _invalid(DOC_RUNS_FOR_REF, "status", state)
    runs = [r for r in req.store.check_runs.values()
            if r.repo is repo and r.head_sha == c.sha]
    name = req.query.get("check_name")
    if name is not None:
        runs = [r for r in runs if r.name == name]
    app_id = req.query.get("app_id")
    if app_id is not None:
        runs = [r for r in runs if str(r.app.id) == app_id]
    if wanted == "latest":
        newest: dict = {}
        for r in runs:
            key = (r.suite_id, r.name)
            if key not in newest or r.id > newest[key].id:
                newest[key] = r
        runs = list(newest.values())
    if state is not None:
        runs = [r for r in runs if r.status == state]
    runs.sort(key=lambda r: r.id, reverse=True)
    ref = quote(unquote(g["ref"]), safe="")
    chunk, headers = rest.paginate(
        req, runs, f"/repositories/{repo.id}/commits/{ref}/check-runs",
        ("check_name", "status", "filter", "app_id"))
    data = {"total_count": len(runs),
            "check_runs": [check_run(req.view, r) for r in chunk]}
    return rest.Resp(200, data, headers, etag=True)


def _run(req: rest.Req, g, doc: str):
    repo = rest.visible_repo(req, g, doc)
    if repo is None:
        return rest.not_found(doc)
    denied = _denied(req, "check_runs", doc)
    if denied:
        return denied
    r = req.store.check_runs.get(int(g["run_id"]))
    if r is None or r.repo is not repo:
        return rest.not_found(doc)
    return r


def get_check_run(req: rest.Req, g) -> rest.Resp:
    r = _run(req, g, DOC_RUN)
    if isinstance(r, rest.Resp):
        return r
    return rest.Resp(200, check_run(req.view, r), etag=True)


def list_annotations(req: rest.Req, g) -> rest.Resp:
    r = _run(req, g, DOC_ANNOTATIONS)
    if isinstance(r, rest.Resp):
        return r
    chunk, headers = rest.paginate(
        req, r.annotations, f"/repositories/{r.repo.id}/check-runs/{r.id}/annotations")
    return rest.Resp(200, [annotation(req.view, r, x) for x in chunk], headers, etag=True)


def _statuses_of(req: rest.Req, repo, commit_sha: str) -> list:
    return [s for s in req.store.statuses if s.repo is repo and s.sha == commit_sha]


def get_combined_status(req: rest.Req, g) -> rest.Resp:
    found = _commit(req, g, DOC_COMBINED, "statuses")
    if isinstance(found, rest.Resp):
        return found
    repo, c = found
    latest: dict = {}
    for s in _statuses_of(req, repo, c.sha):  # ascending id: the last one of a context wins
        latest[s.context] = s
    items = sorted(latest.values(), key=lambda s: s.id)
    ref = quote(unquote(g["ref"]), safe="")
    chunk, headers = rest.paginate(req, items, f"/repositories/{repo.id}/commits/{ref}/status")
    a = f"{req.view.api}/repos/{repo.full_name}"
    data = {
        "state": combined_state(items),
        "statuses": [simple_status(req.view, s) for s in chunk],
        "sha": c.sha,
        "total_count": len(items),
        "repository": shapes.repository(req.view, repo),
        "commit_url": f"{a}/commits/{c.sha}",
        "url": f"{a}/commits/{c.sha}/status",
    }
    return rest.Resp(200, data, headers, etag=True)


def list_statuses(req: rest.Req, g) -> rest.Resp:
    found = _commit(req, g, DOC_STATUSES, "statuses")
    if isinstance(found, rest.Resp):
        return found
    repo, c = found
    items = sorted(_statuses_of(req, repo, c.sha), key=lambda s: s.id, reverse=True)
    ref = quote(unquote(g["ref"]), safe="")
    chunk, headers = rest.paginate(
        req, items, f"/repositories/{repo.id}/commits/{ref}/statuses")
    return rest.Resp(200, [status(req.view, s) for s in chunk], headers, etag=True)


ROUTES = [
    ("GET", r"/commits/(?P<ref>[^/]+)/check-runs$", list_check_runs_for_ref),
    ("GET", r"/check-runs/(?P<run_id>\d+)$", get_check_run),
    ("GET", r"/check-runs/(?P<run_id>\d+)/annotations$", list_annotations),
    ("GET", r"/commits/(?P<ref>[^/]+)/status$", get_combined_status),
    ("GET", r"/commits/(?P<ref>[^/]+)/statuses$", list_statuses),
    ("GET", r"/statuses/(?P<ref>[^/]+)$", list_statuses),
]


# --------------------------------------------------------------------------- test API


class ChecksMixin:
    """The fake's CI checks and mergeability, for tests (mixed into ``FakeGitHub``)."""

    _checks_denied: set

    def checks_denied(self, kind: str, token: str | None) -> bool:
        denied = getattr(self, "_checks_denied", set())
        return (kind, None) in denied or (token is not None and (kind, token) in denied)

    def forbid_checks(self, kinds=KINDS, token: str | None = None) -> None:
        """From now on ``kinds`` ("check_runs": the check-runs routes; "statuses": the
        status routes) answer 403 "Resource not accessible by integration" — for ``token``
        only (a token without "Checks" or "Commit statuses" read), or for every request."""
        kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
        for kind in kinds:
            if kind not in KINDS:
                raise ValueError(f"kinds must be among {KINDS}, not {kind!r}")
        with self._lock:
            self._checks_denied.update((k, token) for k in kinds)

    def allow_checks(self, kinds=KINDS, token: str | None = None) -> None:
        kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
        with self._lock:
            self._checks_denied.difference_update((k, token) for k in kinds)

    def pull_head(self, owner: str, name: str, number: int) -> str:
        """The pull request's head sha now."""
        with self._lock:
            return self._pull_or_raise(owner, name, number).head_sha

    def _app(self, slug: str) -> App:
        found = self.store.apps.get(slug)
        if found is None:
            known = KNOWN_APPS.get(slug)
            if known:
                aid, title, owner = known
            else:
                aid, title, owner = self.store.next_id("app"), slug, "octocat"
            found = App(id=aid, slug=slug, name=title, node_id=node_id("A", aid),
                        owner=self.store.user(owner, "Organization" if owner == "github"
                                              else "User"),
                        created_at=utc("2018-07-30T09:30:17Z"))
            self.store.apps[slug] = found
        return found

    def _when(self, at) -> dt.datetime:
        return self._clock if at is None else utc(at)

    def _check_run(self, run_id: int) -> CheckRun:
        r = self.store.check_runs.get(int(run_id))
        if r is None:
            raise KeyError(f"no check run {run_id}")
        return r

    def _run_out(self, r: CheckRun) -> dict:
        return check_run(self._view(), r)

    @staticmethod
    def _annotations(items) -> list:
        out = []
        for x in items or ():
            x = dict(x)
            level = x.pop("annotation_level", x.pop("level", "failure"))
            if level not in ANNOTATION_LEVELS:
                raise ValueError(f"annotation_level must be one of {ANNOTATION_LEVELS}")
            start = int(x.pop("start_line", 1))
            out.append(CheckAnnotation(path=x.pop("path"), start_line=start,
                                       end_line=int(x.pop("end_line", start)),
                                       annotation_level=level,
                                       message=x.pop("message", ""), **x))
        return out

    def add_check_run(self, owner: str, name: str, sha: str, check_name: str,
                      app: str = "github-actions", suite=None, status: str = "queued",
                      conclusion: str | None = None, title: str | None = None,
                      summary: str | None = None, text: str | None = None,
                      annotations=None, details_url: str | None = None,
                      external_id: str | None = None, at=None) -> dict:
        """A check run of ``app`` (a slug) on commit ``sha`` of the repository, in the check
        suite ``suite`` (any key: one suite per (commit, app, key); None: the app's default
        suite on that commit). ``status`` as GitHub's; a ``conclusion`` completes it.
        ``annotations``: dicts with path, start_line, end_line, annotation_level (notice,
        warning, failure), message, title, raw_details, start_column, end_column.
        Returns the run as ``GET /check-runs/ID`` shows it."""
        if status not in CHECK_STATUSES:
            raise ValueError(f"status must be one of {CHECK_STATUSES}")
        if conclusion is not None and conclusion not in CHECK_CONCLUSIONS:
            raise ValueError(f"conclusion must be one of {CHECK_CONCLUSIONS}")
        with self._lock:
            repo = self.store.repo_or_raise(owner, name)
            c = self.store.commits.get(sha)
            if c is None or c.repo is not repo:
                raise KeyError(f"no commit {sha} in {owner}/{name} (a PR's head: pull_head)")
            a = self._app(app)
            key = (repo.id, sha, a.slug, "default" if suite is None else suite)
            suite_id = self.store.suites.get(key)
            if suite_id is None:
                suite_id = self.store.suites[key] = self.store.next_id("check_suite")
            when = self._when(at)
            rid = self.store.next_id("check_run")
            r = CheckRun(id=rid, node_id=node_id("CR", repo.id, rid), repo=repo,
                         head_sha=sha, name=check_name, app=a, suite_id=suite_id,
                         status=status, started_at=when,
                         external_id=external_id if external_id is not None else "",
                         details_url=details_url or f"{self.html_base}/{repo.full_name}"
                         f"/runs/{rid}", title=title, summary=summary, text=text,
                         annotations=self._annotations(annotations))
            self.store.check_runs[rid] = r
            if conclusion is not None:
                r.status, r.conclusion, r.completed_at = "completed", conclusion, when
            return self._run_out(r)

    def start_check_run(self, run_id: int, at=None) -> dict:
        """queued (or waiting, requested, pending) → in_progress; ``started_at`` now."""
        with self._lock:
            r = self._check_run(run_id)
            if r.status == "completed":
                raise ValueError(f"check run {run_id} is completed (rerun_check_run)")
            r.status, r.started_at = "in_progress", self._when(at)
            return self._run_out(r)

    def set_check_run_status(self, run_id: int, status: str) -> dict:
        """A status before completion: queued, in_progress, waiting, requested, pending."""
        if status not in CHECK_STATUSES or status == "completed":
            raise ValueError("status must be a non-completed one (complete_check_run)")
        with self._lock:
            r = self._check_run(run_id)
            r.status = status
            return self._run_out(r)

    def complete_check_run(self, run_id: int, conclusion: str, title: str | None = None,
                           summary: str | None = None, text: str | None = None,
                           annotations=None, at=None) -> dict:
        """→ completed with ``conclusion``, ``completed_at`` now; the output's fields that
        are given replace the run's; ``annotations`` are added to its own."""
        if conclusion not in CHECK_CONCLUSIONS:
            raise ValueError(f"conclusion must be one of {CHECK_CONCLUSIONS}")
        with self._lock:
            r = self._check_run(run_id)
            r.status, r.conclusion, r.completed_at = "completed", conclusion, self._when(at)
            if r.started_at is None:
                r.started_at = r.completed_at
            for field_name, value in (("title", title), ("summary", summary), ("text", text)):
                if value is not None:
                    setattr(r, field_name, value)
            r.annotations.extend(self._annotations(annotations))
            return self._run_out(r)

    def rerun_check_run(self, run_id: int, at=None) -> dict:
        """A re-run: a new queued run (a new id) with the same commit, app, suite and name
        (``filter=latest`` then lists it instead of the earlier one)."""
        with self._lock:
            old = self._check_run(run_id)
            rid = self.store.next_id("check_run")
            r = CheckRun(id=rid, node_id=node_id("CR", old.repo.id, rid), repo=old.repo,
                         head_sha=old.head_sha, name=old.name, app=old.app,
                         suite_id=old.suite_id, status="queued", started_at=self._when(at),
                         external_id=old.external_id,
                         details_url=f"{self.html_base}/{old.repo.full_name}/runs/{rid}")
            self.store.check_runs[rid] = r
            return self._run_out(r)

    def check_run_ids(self, owner: str, name: str, sha: str) -> list[int]:
        """Every run's id on ``sha`` (ascending), re-runs included."""
        with self._lock:
            repo = self.store.repo_or_raise(owner, name)
            return sorted(r.id for r in self.store.check_runs.values()
                          if r.repo is repo and r.head_sha == sha)

    def get_check_run(self, run_id: int) -> dict:
        with self._lock:
            return self._run_out(self._check_run(run_id))

    def set_commit_status(self, owner: str, name: str, sha: str, context: str, state: str,
                          description: str | None = None, target_url: str | None = None,
                          creator: str = "octocat", at=None) -> dict:
        """A new status on ``sha`` (what ``POST /statuses/SHA`` does): the combined status
        then shows it as its context's; the list keeps every one, newest first."""
        if state not in STATUS_STATES:
            raise ValueError(f"state must be one of {STATUS_STATES}")
        with self._lock:
            repo = self.store.repo_or_raise(owner, name)
            c = self.store.commits.get(sha)
            if c is None or c.repo is not repo:
                raise KeyError(f"no commit {sha} in {owner}/{name} (a PR's head: pull_head)")
            when = self._when(at)
            sid = self.store.next_id("status")
            s = CommitStatus(id=sid, node_id=node_id("SC", repo.id, sid), repo=repo,
                             sha=sha, context=context, state=state,
                             description=description, target_url=target_url,
                             creator=self._who(creator), created_at=when, updated_at=when)
            self.store.statuses.append(s)
            return status(self._view(), s)

    def set_mergeability(self, owner: str, name: str, number: int, mergeable: bool,
                         state: str | None = None, after_reads: int | None = 1) -> None:
        """What GitHub's mergeability job yields for the pull request: ``mergeable`` (False:
        conflicts) and ``state`` (``mergeable_state``: clean, dirty, blocked, unstable,
        behind, unknown, draft, has_hooks; None: dirty when not mergeable, else draft or
        clean). ``after_reads``: how many reads of ``GET /pulls/N`` show ``mergeable: null``
        (``mergeable_state: unknown``) first — 1: the first read starts the job, the next
        shows the result; 0: at once; None: null until the next call."""
        if after_reads is not None and after_reads < 0:
            raise ValueError("after_reads must be None or at least 0")
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            pull.merge_truth = (bool(mergeable), state)
            if after_reads == 0:
                pull.merge_shown, pull.merge_reads_left = pull.merge_truth, 0
            else:
                pull.merge_shown, pull.merge_reads_left = None, after_reads

    def recompute_mergeability(self, owner: str, name: str, number: int,
                               after_reads: int | None = 1) -> None:
        """GitHub recomputes (a push to the base or the head): the same result as before,
        shown after ``after_reads`` reads with ``mergeable: null``."""
        with self._lock:
            pull = self._pull_or_raise(owner, name, number)
            self._recompute(pull, after_reads)

    @staticmethod
    def _recompute(pull, after_reads: int | None = 1) -> None:
        if after_reads == 0:
            pull.merge_shown, pull.merge_reads_left = pull.merge_truth, 0
        elif pull.merge_shown is not None or pull.merge_reads_left is not None:
            pull.merge_shown, pull.merge_reads_left = None, after_reads
