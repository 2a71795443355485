"""A pull request's head and the commits pushed onto it (CONTRACT section 21): the reads.

Where the head is (the ref probe, or the pull request itself), and what a move of it brought
(compare OLD...NEW; a force push's newest commits). The kind (its cursor, hooks and document)
is head.py's `HeadStream`, which extends `PushReader`.
"""

from __future__ import annotations

from ..base.errors import AuthError, BundleError, MovedError, NotFoundError, ServerError
from ..store import edits, records
from ..text import events as ev
from ..text.normalize import check_text, date_header
from .stream import Stream
from .subject import Subject

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional, Tuple

PER_PAGE = 100
VIA_PULL = "pull"  # a head hint whose ETag is the pull request's (`via_subject`)
COMMITS_CAP = 250  # GitHub's cap on a pull request's commits list


def github_time(header: Optional[str]) -> Optional[str]:
    """A `Date` header in GitHub's form (`2026-04-23T10:03:00Z`), else None."""
    when = date_header(header)
    return edits.format_time(when) if when is not None else None


def sha_of(value: Any, what: str) -> str:
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
    sha_of(raw.get("sha"), what)
    return raw


class PushReader(Stream):
    """Where a pull request's head is and what a move of it pushed (no kind of its own:
    head.py's `HeadStream` is the kind)."""

    subject: Optional[Subject] = None
    via_subject = False  # the pull request is read on every poll by another kind: the probe
    force_event: Optional[Dict[str, Any]] = None
    _said: Optional[str] = None  # the last warning on where the head is read from

    # -- the head ----------------------------------------------------------------------------
    def _where(self) -> Tuple[Optional[str], Optional[str], str]:
        """(head repository, ref, sha) from the pull request (its one read of this read)."""
        raw = self.subject.get() or {}  # type: ignore[union-attr]
        what = f"pull request {self.label}"
        head = Subject.head_of(raw)
        if head is None:
            raise ServerError(f"{what}: malformed response: no head")
        sha = sha_of(head.get("sha"), what)
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
        return sha_of(obj.get("sha"), what), resp

    def _head_now(self, hint: Optional[Dict[str, Any]]
                  ) -> Tuple[Optional[str], Optional[Dict[str, Any]], Optional[str], bool]:
        """(sha now or None when unchanged, the hint for it, the `Date` that saw it,
        unchanged) — through the ref probe when the hint names one, or the pull request's
        answer when another kind reads it on every poll anyway (`via_subject`)."""
        if self.via_subject:
            return self._head_by_subject(hint)
        if hint is not None and hint.get("via") == VIA_PULL and hint.get("repo"):
            hint = None  # the pull request was the probe (CI read it): its ETag is no ref's
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

    def _head_by_subject(self, hint: Optional[Dict[str, Any]]
                         ) -> Tuple[Optional[str], Optional[Dict[str, Any]], Optional[str], bool]:
        """The head from the pull request another kind reads on every poll (one conditional
        request for both; section 23: with --include-events it replaces the ref probe). A
        200 with the same head is no push (its ETag moves with comments and mergeability)."""
        pull_etag = hint is not None and (hint.get("via") == VIA_PULL or not hint.get("repo"))
        raw = self.subject.get(hint.get("etag") if pull_etag else None)  # type: ignore
        self.pages += 1 if self.subject.sent else 0  # type: ignore[union-attr]
        if raw is None:  # 304: the head the hint (measured for the cursor) recorded
            return None, hint, None, True
        repo, ref, sha = self._where()
        new_hint = {"sha": sha, "repo": repo, "ref": ref,
                    "etag": self.subject.etag or None, "via": VIA_PULL}  # type: ignore
        return sha, new_hint, github_time(self.subject.date), False  # type: ignore

    def outdated(self) -> Optional[List[Dict[str, Any]]]:
        """The unresolved review threads outdated now (one GraphQL query per 100 threads);
        None when GraphQL cannot be read (a warning says why)."""
        from .threads import outdated_threads

        if not getattr(self.client.transport, "authenticated", True):
            self.warnings.append("outdated_threads is null: GitHub's GraphQL API needs a token")
            return None
        try:
            threads, limitations = outdated_threads(self.client, self.owner, self.repo,
                                                    self.number)
        except BundleError as err:
            self.warnings.append(f"outdated_threads is null: the review threads could not be "
                                 f"read ({err.code}: {err.message})")
            return None
        self.warnings.extend(limitations)
        return threads

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
                "force_actor": actor, "force_at": (self.force_event or {}).get("created_at")}
