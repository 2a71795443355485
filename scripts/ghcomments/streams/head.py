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

from ..base.errors import BundleError, ServerError
from ..store import records
from ..text import events as ev
from ..text.normalize import check_text
from .events import EventsStream
from .pushes import PushReader, sha_of
from .stream import PAST, SAME, Batch

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional, Tuple


class HeadStream(PushReader):
    """A pull request's head after the round's recorded one (section 21)."""

    kind = "head"
    flag = EventsStream.flag  # pushes come with the events (section 21)
    has_edits = False
    takes_filters = False  # the filters apply to pushers and authors (`wire`)
    counted = False
    cleared = {"pushes": None, "outdated_threads": None}
    active = False
    push_reason: Optional[Callable[[Dict[str, Any]], Optional[str]]] = None
    force_event: Optional[Dict[str, Any]] = None  # a head_ref_force_pushed this read returned
    skip = False  # the events list answered 403: pushes are null too (section 21)

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

    valid_cursor = staticmethod(records.head_cursor)

    @staticmethod
    def applied(stored: Any, target: Any) -> Optional[str]:
        """By `seen_at`: the head a later read saw is past an earlier one."""
        if target is None:
            return SAME if stored is None else PAST
        if stored is None:
            return None
        if HeadStream.same(stored, target):
            return SAME
        return PAST if HeadStream.seen(stored) > HeadStream.seen(target) else None

    @staticmethod
    def valid_hint(hint: Any) -> bool:
        return records.head_hint(hint)

    # -- the round's hooks (section 21) -----------------------------------------------------
    _outdated: Optional[Tuple[Any, Optional[List[Dict[str, Any]]]]] = None

    def wire(self, rnd: Any) -> None:
        events = rnd.streams.get(EventsStream.kind)
        self.subject = getattr(events, "subject", None)  # read once per read, shared
        filt = rnd.options.filter
        if filt.active:
            self.push_reason = filt.event_reason

    def before_read(self, rnd: Any, previous: Any, batches: Dict[str, Batch]) -> None:
        """No pushes without events (a 403), before the event cursor is set (a first ask cut
        by --max-pages: its force push comes with it next time), or once the pull request
        was closed at the last read and still is (a merged branch may be reused); a force
        push the events returned."""
        events: Any = rnd.streams.get(EventsStream.kind)
        batch = batches.get(EventsStream.kind)
        before = ((previous or {}).get(EventsStream.kind) or {}).get("state") or {}
        after = ((batch.cursor if batch is not None else None) or {}).get("state") or {}
        self.skip = bool(getattr(events, "unavailable", False)
                         or (batch is not None and batch.cursor is None)
                         or (before.get("state") == "closed"
                             and after.get("state", "closed") == "closed"))
        self.force_event = getattr(events, "force_event", None)

    def on_items(self, rnd: Any, reading: Any) -> None:
        pushes = reading.shown.get("pushes") or []
        if pushes and pushes[0].get("commits"):  # only when commits were pushed
            self._outdated = (reading, self.outdated())

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

    def fields(self, rnd: Any, reading: Any) -> Dict[str, Any]:
        """`pushes` and `outdated_threads` with the flag."""
        if not self.active:
            return {}
        pushes = reading.shown.get("pushes") or []
        read = self._outdated
        return {"pushes": pushes[0] if pushes else None,
                "outdated_threads": read[1] if read is not None and read[0] is reading else []}

    @staticmethod
    def hint_matches(hint: Dict[str, Any], cursor: Optional[Dict[str, Any]]) -> bool:
        return cursor is not None and hint.get("sha") == cursor.get("sha")

    # -- the read ----------------------------------------------------------------------------
    # -- where the head is -----------------------------------------------------------------
    def _where(self) -> Tuple[Optional[str], Optional[str], str]:
        """(head repository, ref, sha) from the pull request (read once per command)."""
        raw = self.subject.get() or {}  # type: ignore[union-attr]
        what = f"pull request {self.label}"
        head = raw.get("head")
        if not isinstance(head, dict):
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
