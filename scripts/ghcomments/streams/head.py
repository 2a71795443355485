"""A pull request's pushes (CONTRACT section 21, `--include-events`): the commits added since
the round's head.

The probe is the head branch's ref (`GET /repos/HO/HR/git/ref/heads/REF`, from the PR's `head`
read once when the cursor is set): its answer changes exactly when the head moves, so an idle
poll is one conditional request answered 304. When the head moved, the new commits come from
the compare API (`GET /repos/O/R/compare/OLD...NEW`, 100 a page, oldest first; the base
repository holds every head commit of its pull requests): status `ahead` is a push of those
commits; `diverged`, `behind`, or a 404 for an OLD GitHub no longer has is a force push,
reported with the newest --limit commits of the pull request. Never the PR's commits list for
what is new: GitHub sorts it by commit date and stops at 250, so a fast-forward of an
older-dated commit sorts before the recorded head.

The cursor is `{sha, seen_at}` (`seen_at`: the `Date` of the read that saw the head); the hint
`{sha, repo, ref, etag}` names the ref probed. A head repository that cannot be read (a deleted
fork, no access) falls back to `GET /pulls/N`'s `head.sha`, with a warning.
"""

from __future__ import annotations

from ..base.errors import AuthError, BundleError, MovedError, NotFoundError, ServerError
from ..store import edits, records
from ..text import events as ev
from ..text.normalize import check_text, date_header
from .events import Subject
from .stream import Batch, Stream

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional, Tuple

PER_PAGE = 100
COMMITS_CAP = 250  # GitHub's cap on a pull request's commits list


def github_time(header: Optional[str]) -> Optional[str]:
    """A `Date` header in GitHub's form (`2026-04-23T10:03:00Z`), else None."""
    when = date_header(header)
    return edits.format_time(when) if when is not None else None


def _sha(value: Any, what: str) -> str:
    """A commit's object name (40 or 64 lowercase hex digits), else exit 6: it goes into a
    compare URL and the checkpoint."""
    check_text(value, what, "sha")
    if not records.SHA_RE.fullmatch(value or ""):
        raise ServerError(f"{what}: malformed response: the sha is not a commit's object name")
    return value


def _commit(raw: Any, what: str) -> Dict[str, Any]:
    """A pushed commit checked (section 17), its sha a commit's object name: it becomes the
    head cursor when --max-pages cuts a compare."""
    ev.check_commit(raw, what)
    _sha(raw.get("sha"), what)
    return raw


class HeadStream(Stream):
    """A pull request's head after the round's recorded one (section 21)."""

    kind = "head"
    has_edits = False
    active = False
    subject: Optional[Subject] = None
    push_reason: Optional[Callable[[Dict[str, Any]], Optional[str]]] = None
    force_event: Optional[Dict[str, Any]] = None  # a head_ref_force_pushed this read returned
    skip = False  # the events list answered 403: pushes are null too (section 21)
    _said: Optional[str] = None  # the last warning on where the head is read from

    # -- cursors and hints -------------------------------------------------------------------
    @staticmethod
    def same(a: Optional[Dict[str, Any]], b: Optional[Dict[str, Any]]) -> bool:
        return (a or {}).get("sha") == (b or {}).get("sha") and (
            (a or {}).get("seen_at") == (b or {}).get("seen_at"))

    @staticmethod
    def key(cursor: Optional[Dict[str, Any]]) -> Tuple[Any, ...]:
        """No order for forward-only: a head is where the branch is, and `seen_at` is GitHub's
        `Date`, which a clock step could put behind (or a server far ahead) — a head never
        blocks a confirm. "Already applied" compares `seen_at` (confirm.py)."""
        return ()

    @staticmethod
    def seen(cursor: Optional[Dict[str, Any]]) -> float:
        from ..text.normalize import parse_time

        when = parse_time((cursor or {}).get("seen_at"))
        return when.timestamp() if when is not None else -1.0

    @staticmethod
    def valid_hint(hint: Any) -> bool:
        return records.head_hint(hint)

    @staticmethod
    def hint_matches(hint: Dict[str, Any], cursor: Optional[Dict[str, Any]]) -> bool:
        return cursor is not None and hint.get("sha") == cursor.get("sha")

    # -- the head ----------------------------------------------------------------------------
    def _where(self) -> Tuple[Optional[str], Optional[str], str]:
        """(head repository, ref, sha) from the pull request (read once per command)."""
        raw = self.subject.get() or {}  # type: ignore[union-attr]
        what = f"pull request {self.label}"
        head = raw.get("head")
        if not isinstance(head, dict):
            raise ServerError(f"{what}: malformed response: no head")
        sha = _sha(head.get("sha"), what)
        ref = check_text(head.get("ref"), what, "head.ref")
        repo = head.get("repo")
        full = check_text(repo.get("full_name"), what, "head.repo.full_name") \
            if isinstance(repo, dict) else None
        if full is not None and not records.head_repo(full):
            raise ServerError(f"{what}: malformed response: head.repo.full_name is not a "
                              "repository's name")
        if ref is not None and not records.head_ref(ref):
            raise ServerError(f"{what}: malformed response: head.ref is not a branch name")
        return full, ref, sha

    def _ref(self, repo: str, ref: str, etag: Optional[str]) -> Tuple[Optional[str], Any]:
        """(sha, response) of the head ref; (None, response) on a 304."""
        what = f"head ref {ref} of {repo}"
        from urllib.parse import quote

        resp = self.client.request("GET", f"repos/{repo}/git/ref/heads/{quote(ref, safe='/')}",
                                   etag=etag, what=what)
        self.pages += 1
        if resp.status == 304:
            return None, resp
        data = self.client.json_of(resp, what)
        obj = data.get("object") if isinstance(data, dict) else None
        if not isinstance(obj, dict):
            raise ServerError(f"{what}: malformed response: no object")
        return _sha(obj.get("sha"), what), resp

    def _head_now(self, hint: Optional[Dict[str, Any]]
                  ) -> Tuple[Optional[str], Optional[Dict[str, Any]], Optional[str], bool]:
        """(sha now or None when unchanged, the hint for it, the `Date` that saw it,
        unchanged) — through the ref probe when the hint names one."""
        if hint is not None and hint.get("etag") and hint.get("repo") and hint.get("ref"):
            try:
                sha, resp = self._ref(hint["repo"], hint["ref"], hint["etag"])
            except (NotFoundError, AuthError, MovedError) as exc:  # a renamed fork: 301
                self._note(f"the head branch of {self.label} cannot be read ({exc.message}); "
                           "its head is read from the pull request (GET /pulls/N)")
            else:
                if sha is None:
                    return None, hint, None, True
                return sha, dict(hint, sha=sha, etag=resp.headers.get("etag")), \
                    github_time(resp.headers.get("date")), False
        elif hint is not None and hint.get("etag") and not hint.get("repo"):
            # the branch cannot be read (deleted, a deleted fork): the pull request itself is
            # the probe, conditional, so an idle poll stays one 304
            if self.subject.get(hint["etag"]) is None:  # type: ignore[union-attr]
                self.pages += 1
                return None, hint, None, True
            self.pages += 1
        repo, ref, sha = self._where()
        date = github_time(self.subject.date)  # type: ignore[union-attr]
        new_hint: Dict[str, Any] = {"sha": sha, "repo": repo, "ref": ref, "etag": None}
        if repo is not None and ref:
            try:
                ref_sha, resp = self._ref(repo, ref, None)
            except (NotFoundError, AuthError, MovedError) as exc:
                self._note(f"the head branch of {self.label} cannot be read ({exc.message}); "
                           "its head is read from the pull request (GET /pulls/N)")
            else:
                if ref_sha == sha:
                    new_hint["etag"] = resp.headers.get("etag")
                    date = github_time(resp.headers.get("date")) or date
                return sha, new_hint, date, False
        else:
            self._note(f"the head repository of {self.label} cannot be read (a deleted "
                       "fork?): its head is read from the pull request")
        etag = self.subject.etag  # type: ignore[union-attr]
        new_hint = {"sha": sha, "repo": None, "ref": None, "etag": etag or None}
        return sha, new_hint, date, False

    def _note(self, text: str) -> None:
        """One warning per read for why the head comes from the pull request: the fallback's
        own finding (a deleted fork) replaces the probe's, the same one is never said twice
        (a deleted branch failed both the probe and the fallback's read)."""
        said = self._said
        if said is not None and said in self.warnings:
            self.warnings[self.warnings.index(said)] = text
        elif text not in self.warnings:
            self.warnings.append(text)
        self._said = text

    # -- the read ----------------------------------------------------------------------------
    def read(self, previous: Optional[Dict[str, Any]], hint: Optional[Dict[str, Any]],
             limit: int, *, sharpen: bool = True) -> Batch:
        if not self.active or self.skip:  # no flag, no access to events (a 403), or closed
            return Batch(self.kind, cursor=previous, hint=hint, more_available=False)
        if hint is not None and not (self.valid_hint(hint) and self.hint_matches(hint,
                                                                                 previous)):
            hint = None
        sha, new_hint, date, unchanged = self._head_now(hint if previous is not None
                                                       else None)
        if unchanged:
            return Batch(self.kind, cursor=previous, hint=hint, not_modified=True,
                         more_available=False)
        sha = sha or ""
        if previous is None:  # the cursor is set: no record of the head before it
            cursor = {"sha": sha, "seen_at": date}
            items = []
            if self.force_event is not None:  # ... unless a force push is returned now
                items = [self._force_push(None, sha, limit)]
            return Batch(self.kind, items=items, cursor=cursor, hint=new_hint,
                         more_available=False)
        if sha == previous.get("sha"):
            return Batch(self.kind, cursor=previous, hint=new_hint, more_available=False)
        push = self._push(previous["sha"], sha, limit)
        if push is None:  # the new head cannot be compared yet: the next read tries again
            return Batch(self.kind, cursor=previous, hint=None, more_available=False)
        if push["truncated"] and not push["force_pushed"] and push["commits"]:
            # --max-pages cut the compare: the cursor stops at the last commit returned (an
            # ancestor of the head), the rest come next time
            last = push["commits"][-1]["sha"]
            return Batch(self.kind, items=[push], cursor={"sha": last, "seen_at": date},
                         hint=None, more_available=True, truncated=True)
        return Batch(self.kind, items=[push], cursor={"sha": sha, "seen_at": date},
                     hint=new_hint, more_available=False, truncated=push["truncated"])

    def _push(self, old: str, new: str, limit: int) -> Optional[Dict[str, Any]]:
        what = f"commits of {self.label} since {old[:12]}"
        commits: List[Dict[str, Any]] = []
        page, total = 1, None
        truncated = False
        while True:
            try:
                resp = self.client.request(
                    "GET", f"repos/{self.owner}/{self.repo}/compare/{old}...{new}",
                    params={"per_page": PER_PAGE, "page": page}, what=what)
            except NotFoundError:
                if self._exists(old):  # NEW is not there yet (the ref moved first): later
                    return None
                return self._force_push(old, new, limit)  # OLD is gone: history rewritten
            self.pages += 1
            data = self.client.json_of(resp, what, comments=False)
            if not isinstance(data, dict):
                raise ServerError(f"{what}: malformed response: not an object")
            status = data.get("status")
            if status in ("diverged", "behind"):
                return self._force_push(old, new, limit)
            if status not in ("ahead", "identical"):
                raise ServerError(f"{what}: malformed response: status {status!r}")
            got = data.get("commits")
            if not isinstance(got, list):
                raise ServerError(f"{what}: malformed response: commits is not a list")
            if len(got) > PER_PAGE:  # asked for PER_PAGE: GitHub never sends more
                raise ServerError(f"{what}: malformed response: {len(got)} commits on a page "
                                  f"of {PER_PAGE}")
            commits += [_commit(c, what) for c in got]
            count = data.get("total_commits")
            total = count if isinstance(count, int) and not isinstance(count, bool) else None
            if (not got or total is None or len(commits) >= total
                    or not self.client.links(resp).get("next")):
                break
            if page >= self.max_pages:
                truncated = True
                self.warnings.append(f"--max-pages {self.max_pages} stopped the read of the "
                                     f"commits pushed to {self.label}")
                break
            page += 1
        return {"commits": commits, "head_sha": new, "previous_head_sha": old,
                "force_pushed": False, "more_available": truncated,
                "truncated": truncated, "force_actor": None}

    def _exists(self, sha: str) -> bool:
        """Whether the base repository still has commit `sha` (one request, only after a
        compare answered 404)."""
        try:
            resp = self.client.request("GET", f"repos/{self.owner}/{self.repo}/commits/{sha}",
                                       what=f"commit {sha[:12]} of {self.label}")
        except BundleError as exc:  # GitHub answers 422 "No commit found" (or 404)
            if exc.status in (404, 422):
                return False
            raise
        finally:
            self.pages += 1
        return 200 <= resp.status < 300

    def _force_push(self, old: Optional[str], new: str, limit: int) -> Dict[str, Any]:
        """History rewritten: the newest `limit` commits of the pull request (its commits
        list, sorted by date and capped at 250 by GitHub: said in `truncated`)."""
        what = f"commits of {self.label}"
        commits: List[Dict[str, Any]] = []
        truncated = False
        for page in range(1, COMMITS_CAP // PER_PAGE + 2):
            if page > self.max_pages:
                truncated = True
                break
            resp = self.client.request(
                "GET", f"repos/{self.owner}/{self.repo}/pulls/{self.number}/commits",
                params={"per_page": PER_PAGE, "page": page}, what=what)
            self.pages += 1
            data = self.client.json_of(resp, what, comments=False)
            if not isinstance(data, list):
                raise ServerError(f"{what}: malformed response: not a list")
            if len(data) > PER_PAGE:
                raise ServerError(f"{what}: malformed response: {len(data)} commits on a page "
                                  f"of {PER_PAGE}")
            commits += [_commit(c, what) for c in data]
            if not data or not self.client.links(resp).get("next"):
                break
        newest = commits[-limit:] if limit else []
        actor = (self.force_event or {}).get("actor")
        return {"commits": newest, "head_sha": new, "previous_head_sha": old,
                "force_pushed": True, "more_available": len(commits) > len(newest),
                "truncated": truncated or len(commits) >= COMMITS_CAP,
                "force_actor": actor}

    # -- what a read shows ---------------------------------------------------------------------
    def reason_of(self, push: Dict[str, Any]) -> Optional[str]:
        """A push is left out only when the filters leave out its force-pusher, or, without
        one, every new commit's author."""
        if self.push_reason is None:
            return None
        if push.get("force_actor") is not None:
            return self.push_reason(ev.actor_of({"actor": push["force_actor"]}))
        reasons = [self.push_reason(ev.commit_author(c)) for c in push["commits"]]
        if reasons and all(r is not None for r in reasons):
            return reasons[0]
        return None

    def present(self, batch: Batch, max_body_chars: Optional[int], reveal_hidden: bool,
                include_system: bool) -> Tuple[Dict[str, List[Dict[str, Any]]],
                                               Dict[str, Dict[str, int]]]:
        if not self.active:
            return {}, {}
        shown, counts = [], {}  # type: ignore[var-annotated]
        for push in batch.items:
            why = self.reason_of(push)
            if why is not None:
                self._count(counts, why)
                continue
            shown.append({"commits": [ev.push_commit(c) for c in push["commits"]],
                          "head_sha": push["head_sha"],
                          "previous_head_sha": push["previous_head_sha"],
                          "force_pushed": push["force_pushed"],
                          "more_available": push["more_available"],
                          "truncated": push["truncated"]})
        return {"pushes": shown}, {"pushes": counts}

    def cursor_after(self, items: List[Any], previous: Optional[Dict[str, Any]]
                     ) -> Optional[Dict[str, Any]]:
        return previous  # a push cut by --max-total comes next time
