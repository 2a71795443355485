"""What CI says about a pull request's head (CONTRACT section 23): the reads, for checks.py.

The head probe is `GET /pulls/N`, conditional (it carries `head.sha`, `mergeable` and
`mergeable_state`). The head's check runs (`GET /repos/O/R/commits/SHA/check-runs`, GitHub's
`filter=latest`) and its combined status (`GET /repos/O/R/commits/SHA/status`, whose
`statuses[]` hold the newest status of each context) are read 100 a page; on a poll every
page is probed with its ETag (a run completing on page 2 changes neither page 1 nor
`total_count`), and a list whose pages all answer 304 is unchanged. A 403 on a list is a token
without "Checks" or "Commit statuses" read: the list is unavailable, never an error.

The unit is the newest run per (check suite, name) and the newest status per context, never
merged across suites or across the two kinds; each is checked on the way in (exit 6).
"""

from __future__ import annotations

from ..base.errors import AuthError, ServerError
from ..text.normalize import check_id, check_text, check_time
from .pushes import github_time, sha_of
from .stream import Stream
from .subject import Subject

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional, Tuple

PER_PAGE = 100
RUNS, STATUSES = "check_runs", "statuses"  # the two lists (and `checks_unavailable`'s names)
PERMISSION = {RUNS: '"Checks" read (in Actions: checks: read)',
              STATUSES: '"Commit statuses" read (in Actions: statuses: read)'}

PASSED = frozenset(("success", "neutral", "skipped"))
FAILED = frozenset(("failure", "timed_out", "startup_failure", "error"))
ATTENTION = frozenset(("cancelled", "stale", "action_required"))


def verdict(conclusion: Optional[str]) -> str:
    """passed, failed or attention for a completed check (a conclusion GitHub adds later, or
    none at all, needs a look: attention)."""
    if conclusion in PASSED:
        return "passed"
    if conclusion in FAILED:
        return "failed"
    return "attention"


def _obj(value: Any, what: str, field: str) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise ServerError(f"{what}: malformed response: {field} is not an object")
    return value


def run_unit(raw: Any, what: str) -> Dict[str, Any]:
    """A check run as the kind keeps it (its text raw: escaped when shown)."""
    raw = _obj(raw, what, "a check run")
    rid = check_id(raw.get("id"), what)
    suite = check_id(_obj(raw.get("check_suite"), what, "check_suite").get("id"), what,
                     "check_suite.id")
    name = check_text(raw.get("name"), what, "name")
    status = check_text(raw.get("status"), what, "status")
    conclusion = check_text(raw.get("conclusion"), what, "conclusion")
    if name is None or status is None:
        raise ServerError(f"{what}: malformed response: a check run without name or status")
    app = raw.get("app")
    slug = check_text(_obj(app, what, "app").get("slug"), what, "app.slug") \
        if app is not None else None
    output = raw.get("output")
    output = _obj(output, what, "output") if output is not None else {}
    completed = status == "completed"
    return {"kind": "check_run", "id": rid, "suite": suite, "name": name, "app": slug,
            "pending": not completed,
            "verdict": verdict(conclusion) if completed else "pending",
            "conclusion": conclusion,
            "started_at": check_time(raw.get("started_at"), what, "started_at"),
            "completed_at": check_time(raw.get("completed_at"), what, "completed_at"),
            "url": check_text(raw.get("html_url"), what, "html_url"),
            "title": check_text(output.get("title"), what, "output.title"),
            "summary": check_text(output.get("summary"), what, "output.summary")}


STATUS_STATES = ("error", "failure", "pending", "success")


def status_unit(raw: Any, what: str) -> Dict[str, Any]:
    """A context's newest status (a status has no app, no start: its description is its
    title)."""
    raw = _obj(raw, what, "a status")
    sid = check_id(raw.get("id"), what)
    context = check_text(raw.get("context"), what, "context")
    state = raw.get("state")
    if context is None or state not in STATUS_STATES:
        raise ServerError(f"{what}: malformed response: a status without context or with an "
                          "unknown state")
    check_time(raw.get("created_at"), what, "created_at")
    pending = state == "pending"
    return {"kind": "status", "id": sid, "suite": None, "name": context, "app": None,
            "pending": pending,
            "verdict": "pending" if pending else ("passed" if state == "success" else "failed"),
            "conclusion": state, "started_at": None,
            "since": raw.get("created_at"),
            "completed_at": None if pending else check_time(
                raw.get("updated_at"), what, "updated_at") or raw.get("created_at"),
            "url": check_text(raw.get("target_url"), what, "target_url"),
            "title": check_text(raw.get("description"), what, "description"),
            "summary": None}


class CheckLists(Stream):
    """The reads of the checks kind (no kind of its own: checks.py's `ChecksStream`)."""

    subject: Any = None  # the round's pull request, read at most once per read

    def wire(self, rnd: Any) -> None:
        self.subject = rnd.subject

    def pull(self, etag: Optional[str]
             ) -> Tuple[Optional[Dict[str, Any]], Optional[str], Optional[str]]:
        """(head or None on a 304, the answer's `Date`, its ETag) of `GET /pulls/N`: the
        round's subject, so the head kind probing through it (with --include-events) sends
        nothing more. The head is `{sha, mergeable, mergeable_state}`."""
        subject = self.subject
        if subject is None:  # a read by id outside a round
            subject = self.subject = Subject(self.client, self.owner, self.repo, self.number,
                                             pull=True)
        raw = subject.get(etag)
        self.pages += 1 if subject.sent else 0
        if raw is None:
            return None, github_time(subject.date), None
        what = f"pull request {self.label}"
        head = Subject.head_of(raw)
        if head is None:
            raise ServerError(f"{what}: malformed response: head is not an object")
        mergeable = raw.get("mergeable")
        if mergeable is not None and not isinstance(mergeable, bool):
            raise ServerError(f"{what}: malformed response: mergeable is not a boolean")
        return {"sha": sha_of(head.get("sha"), what), "mergeable": mergeable,
                "mergeable_state": check_text(raw.get("mergeable_state"), what,
                                              "mergeable_state")}, github_time(subject.date), \
            subject.etag

    def _path(self, which: str, sha: str) -> str:
        end = "check-runs" if which == RUNS else "status"
        return f"repos/{self.owner}/{self.repo}/commits/{sha}/{end}"

    def _page(self, which: str, sha: str, page: int, etag: Optional[str]) -> Any:
        what = f"{'check runs' if which == RUNS else 'commit statuses'} of {sha[:12]}"
        resp = self.client.request("GET", self._path(which, sha),
                                   params={"per_page": PER_PAGE, "page": page}, etag=etag,
                                   what=what)
        self.pages += 1
        return resp, what

    def read_list(self, which: str, sha: str, etags: Optional[List[str]]
                  ) -> Tuple[str, List[Dict[str, Any]], Optional[List[str]]]:
        """(how: same | new | denied, the units when new, the ETag of each page). With
        `etags` every page is probed; on the first one that changed, the list is read
        again from page 1."""
        try:
            if etags:
                for i, etag in enumerate(etags):
                    resp, what = self._page(which, sha, i + 1, etag)
                    if resp.status != 304:  # page 1 changed: it is the read's first page
                        return self._full(which, sha, (resp, what) if i == 0 else None)
                return "same", [], list(etags)
            return self._full(which, sha)
        except AuthError as exc:
            if exc.status != 403:
                raise
            return "denied", [], None

    def _full(self, which: str, sha: str, first: Any = None
              ) -> Tuple[str, List[Dict[str, Any]], Optional[List[str]]]:
        units: List[Dict[str, Any]] = []
        etags: List[str] = []
        page = 1
        while True:
            resp, what = first or self._page(which, sha, page, None)
            first = None
            data = _obj(self.client.json_of(resp, what), what, "the answer")
            items = data.get(which)
            if not isinstance(items, list):
                raise ServerError(f"{what}: malformed response: no {which} list")
            make = run_unit if which == RUNS else status_unit
            units.extend(make(raw, what) for raw in items)
            etag = resp.headers.get("etag")
            etags.append(etag or "")
            if "next" not in self.client.links(resp) or not items:
                break
            if page >= self.max_pages:
                self.warnings.append(f"{what}: more than {page} page(s) (--max-pages): the "
                                     "rest is not read")
                break
            page += 1
        return "new", newest(units), (etags if all(etags) else None)


def newest(units: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The newest (highest id) unit per (check suite, name) for runs, per context for
    statuses, in the order given."""
    best: Dict[Tuple[Any, ...], Dict[str, Any]] = {}
    for u in units:
        key = (u["kind"], u["suite"], u["name"])
        if key not in best or u["id"] > best[key]["id"]:
            best[key] = u
    keep = {id(u) for u in best.values()}
    return [u for u in units if id(u) in keep]
