"""What the machines said (CONTRACT section 23, `--include-checks`): CI checks on a pull
request's head and its mergeability, a kind of news like any other.

The cursor is `{head_sha, head_seen_at, done, settled, mergeable}`: `done` the `[kind, id]` of
every completed check of that head that was read, `settled` whether `checks_settled` was
returned for it, `mergeable` the last non-null value. It moves only when something is
returned (a check that did not pass, `checks_settled`, mergeability turning false) or at a
first ask; a read that sees only passes, or a new head with nothing to say yet, leaves the
cursor and records what it saw in the poll hint (measured for that cursor): the pull request's
ETag, each list page's ETag, the completed checks seen on that head, the summary, and since
when nothing was pending. So a lone pass wakes nothing and the next idle poll is all 304.

The reads are check_list.py's; what a check shows is escaped (section 17) and cut at
`--max-body-chars`.
"""

from __future__ import annotations

from ..base.errors import AuthError, NotFoundError, ServerError
from ..base.plain import replace
from ..store import records
from ..text.events import _Texts
from ..text.normalize import check_number, check_text, escape_field, parse_time
from .check_list import PERMISSION, RUNS, STATUSES, CheckLists, run_unit
from .stream import PAST, SAME, Batch

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional, Set, Tuple

SETTLED, NEWS = "checks_settled", "mergeable_news"  # reading.shown keys beside the checks list
PLAIN_SECONDS = 30  # a plain check: the stored read and this one at least this far apart
KINDS = ("check_run", "status")
MAX_DONE = 20000


def _keys(done: Any) -> Set[Tuple[str, int]]:
    return {(k, i) for k, i in done or []}


def _pairs(keys: Any) -> List[List[Any]]:
    return [[k, i] for k, i in sorted(keys)]


def _seen(cursor: Any) -> float:
    when = parse_time((cursor or {}).get("head_seen_at"))
    return when.timestamp() if when is not None else -1.0


def _done_ok(value: Any) -> bool:
    return isinstance(value, list) and len(value) <= MAX_DONE and all(
        isinstance(p, list) and len(p) == 2 and p[0] in KINDS and records._int(p[1], 1)
        for p in value)


def state_of(c: Dict[str, int]) -> str:
    if not c["total"]:
        return "none"
    for name, key in (("failure", "failed"), ("attention", "attention"),
                      ("pending", "pending")):
        if c[key]:
            return name
    return "success"


def summarize(units: List[Dict[str, Any]], sha: str, partial: bool) -> Dict[str, Any]:
    """`checks_summary` without `previous_head` (which depends on the cursor)."""
    c = {v: sum(1 for u in units if u["verdict"] == v)
         for v in ("pending", "passed", "failed", "attention")}
    c["total"] = len(units)
    pending = [u for u in units if u["pending"]]
    return {"head_sha": sha, "total": c["total"], "pending": c["pending"],
            "passed": c["passed"], "failed": c["failed"], "attention": c["attention"],
            "state": state_of(c),
            "pending_names": [{"name": escape_field(u["name"]),
                               "pending_since": u["started_at"] or u.get("since")}
                              for u in pending[:5]],
            "passed_names": [escape_field(u["name"]) for u in units
                             if u["verdict"] == "passed"][:20],
            "partial": partial}


class ChecksStream(CheckLists):
    """A pull request's CI checks and mergeability after a checks cursor (section 23)."""

    kind = "checks"
    flag = "include_checks"
    has_edits = False
    takes_filters = False  # apps are bots: the author filters never hide CI
    counted = True
    shown = ("checks",)
    by_id = ("check_run_id",)  # get_latest_comments.py --pr N --check-run-id ID
    active = False
    reads_subject = True  # the pull request on every poll: with --include-events, the head
    # kind's probe too (section 23)
    cleared = {SETTLED: None, "mergeable": None}

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.view: Optional[Dict[str, Any]] = None  # the last read: summary, mergeable, ...
        self.ctx: Dict[str, Any] = {}  # the last read's base, for cursor_after
        self.quiet_head: Optional[str] = None  # a read of this command saw it settle

    # -- cursors and hints -------------------------------------------------------------------
    @staticmethod
    def same(a: Optional[Dict[str, Any]], b: Optional[Dict[str, Any]]) -> bool:
        if a is None or b is None:
            return a is None and b is None
        return (a.get("head_sha") == b.get("head_sha")
                and a.get("head_seen_at") == b.get("head_seen_at")
                and _keys(a.get("done")) == _keys(b.get("done"))
                and a.get("settled") == b.get("settled")
                and a.get("mergeable") == b.get("mergeable"))

    @staticmethod
    def key(cursor: Optional[Dict[str, Any]]) -> Tuple[Any, ...]:
        """No order of its own: "already applied" compares heads and `done` (`applied`)."""
        return ()

    @staticmethod
    def valid_cursor(c: Any) -> bool:
        return (isinstance(c, dict) and records._sha(c.get("head_sha"))
                and records._time(c.get("head_seen_at")) and _done_ok(c.get("done"))
                and isinstance(c.get("settled"), bool)
                and (c.get("mergeable") is None or isinstance(c.get("mergeable"), bool)))

    @staticmethod
    def applied(stored: Any, target: Any) -> Optional[str]:
        """The same head with `done` a superset (and `settled` not going back, and no
        `mergeable: false` the stored lacks: that news is confirmed by writing it), or a head
        seen later: PAST."""
        if target is None:
            return SAME if stored is None else PAST
        if stored is None:
            return None
        if ChecksStream.same(stored, target):
            return SAME
        if stored["head_sha"] == target["head_sha"]:
            ok = (_keys(stored["done"]) >= _keys(target["done"])
                  and (stored["settled"] or not target["settled"])
                  and (target.get("mergeable") is not False
                       or stored.get("mergeable") is False))
            return PAST if ok else None
        return PAST if _seen(stored) > _seen(target) else None

    @staticmethod
    def valid_hint(hint: Any) -> bool:
        if not isinstance(hint, dict):
            return False
        lists_ok = all(hint.get(w) is None or (
            isinstance(hint[w], list) and 0 < len(hint[w]) <= 100
            and all(isinstance(e, str) and e for e in hint[w])) for w in (RUNS, STATUSES))
        return (lists_ok and (hint.get("cursor") is None
                              or ChecksStream.valid_cursor(hint["cursor"]))
                and records._sha(hint.get("head_sha"))
                and records._time(hint.get("head_seen_at"))
                and isinstance(hint.get("pull"), str) and bool(hint["pull"])
                and _done_ok(hint.get("seen")) and isinstance(hint.get("summary"), dict)
                and isinstance(hint.get("unavailable"), list)
                and set(hint["unavailable"]) <= {RUNS, STATUSES}
                and records._time(hint.get("quiet_since"))
                and all(hint.get(k) is None or isinstance(hint[k], bool)
                        for k in ("mergeable", "mergeable_now"))
                and records._opt_str(hint.get("mergeable_state")))

    @staticmethod
    def hint_matches(hint: Dict[str, Any], cursor: Optional[Dict[str, Any]]) -> bool:
        return ChecksStream.same(hint.get("cursor"), cursor)

    # -- the round's hooks -------------------------------------------------------------------
    def fields(self, rnd: Any, reading: Any) -> Dict[str, Any]:
        """`checks_summary`, `checks_unavailable`, `mergeable` and (when returned)
        `checks_settled`, with the flag."""
        if not self.active:
            return {}
        view = self.view or {}
        news = reading.shown.get(NEWS) or []
        out: Dict[str, Any] = {
            "checks_summary": view.get("summary"),
            "checks_unavailable": list(view.get("unavailable") or []),
            "mergeable": None if not view else {
                "mergeable": view["mergeable"],
                "mergeable_state": None if view["mergeable_state"] is None
                else escape_field(view["mergeable_state"]),
                "changed": bool(news)}}
        settled = reading.shown.get(SETTLED) or []
        if settled:
            out[SETTLED] = settled[0]
        return out

    # -- the read ----------------------------------------------------------------------------
    def read(self, previous: Optional[Dict[str, Any]], hint: Optional[Dict[str, Any]],
             limit: int, *, sharpen: bool = True) -> Batch:
        if not self.active:  # without the flag: the stored cursor and hint, no request
            return Batch(self.kind, cursor=previous, hint=hint, more_available=False)
        if hint is not None and not (self.valid_hint(hint) and self.hint_matches(hint,
                                                                                 previous)):
            hint = None
        head, now, etag = self.pull(hint["pull"] if hint else None)
        pull_etag = etag or (hint or {}).get("pull")
        if head is None:  # 304: what the hint's read saw
            head = {"sha": hint["head_sha"], "mergeable": hint["mergeable_now"],  # type: ignore
                    "mergeable_state": hint["mergeable_state"]}  # type: ignore[index]
        sha = head["sha"]
        known = hint if hint is not None and hint["head_sha"] == sha else None
        lists = {w: self.read_list(w, sha, known.get(w) if known else None)
                 for w in (RUNS, STATUSES)}
        denied = [w for w in (RUNS, STATUSES) if lists[w][0] == "denied"]
        for w in denied:
            self._warn(f"{'check runs' if w == RUNS else 'commit statuses'} of {self.label} "
                       f"cannot be read: the token needs {PERMISSION[w]} "
                       "(checks_unavailable; checks_summary.partial)")
        unchanged = known is not None and set(denied) == set(known["unavailable"]) and all(
            how in ("same", "denied") for how, _u, _e in lists.values())
        on_head = previous is not None and previous["head_sha"] == sha
        base = _keys(previous["done"]) if on_head else set()  # type: ignore[index]
        settled_before = bool(on_head and previous["settled"])  # type: ignore[index]
        m_stored = hint["mergeable"] if hint is not None else (previous or {}).get("mergeable")
        if unchanged:
            summary = dict(known["summary"])  # type: ignore[index]
            completed = _keys(known["seen"])  # type: ignore[index]
            fails: List[Dict[str, Any]] = []
        else:
            units: List[Dict[str, Any]] = []
            for w in (RUNS, STATUSES):
                how, got, etags = lists[w]
                if how == "same":  # the other list changed: this one is read again
                    how, got, etags = lists[w] = self._full(w, sha)
                units.extend(got)
            summary = summarize(units, sha, bool(denied))
            done_units = [u for u in units if not u["pending"]]
            completed = {(u["kind"], u["id"]) for u in done_units}
            fails = [u for u in done_units if u["verdict"] != "passed"
                     and (u["kind"], u["id"]) not in base]
            fails.sort(key=lambda u: (u["completed_at"] or "", u["id"]))
        quiet = not summary["pending"] and summary["total"] > 0 and not summary["partial"]
        since = (known or {}).get("quiet_since")
        waited = (since is not None and now is not None
                  and _ts(now) - _ts(since) >= PLAIN_SECONDS)
        settle = quiet and not settled_before and (waited or self.quiet_head == sha)
        self.quiet_head = sha if quiet else None
        mergeable = head["mergeable"]
        m_last = mergeable if mergeable is not None else m_stored
        items: List[Dict[str, Any]] = []
        if mergeable is False and m_stored is not False:
            items.append({"type": NEWS, "value": {"mergeable": False}})
        cut = len(fails) > limit
        items.extend({"type": "check", "unit": u} for u in fails[:limit])
        if settle and not cut:
            items.append({"type": SETTLED, "value": {
                "head_sha": sha, "state": summary["state"], "passed": summary["passed"],
                "failed": summary["failed"], "attention": summary["attention"]}})
        seen_at = (previous["head_seen_at"] if on_head  # type: ignore[index]
                   else (known or {}).get("head_seen_at") or now)
        self.ctx = {"sha": sha, "base": base | (_keys(known["seen"]) if known else set()),
                    "completed": completed, "fails": {(u["kind"], u["id"]) for u in fails},
                    "settled": settled_before, "m_last": m_last, "m_stored": m_stored,
                    "seen_at": seen_at}
        self.view = {"summary": dict(summary, previous_head=previous["head_sha"]
                                     if previous is not None and not on_head else None),
                     "unavailable": denied, "mergeable": mergeable,
                     "mergeable_state": head["mergeable_state"]}
        if items or previous is None:  # something to return, or a first ask: the cursor moves
            cursor = self.cursor_after(items, previous) if items else self._cursor(
                set(), False, m_last)
        else:
            cursor = previous
        new_hint = None
        if pull_etag and not cut:
            new_hint = {"cursor": cursor, "head_sha": sha, "head_seen_at": seen_at,
                        "pull": pull_etag, RUNS: lists[RUNS][2], STATUSES: lists[STATUSES][2],
                        "seen": _pairs(completed), "summary": summary, "unavailable": denied,
                        "quiet_since": (since or now) if quiet else None,
                        "mergeable": m_last if cursor is previous else (cursor or {}).get(
                            "mergeable"), "mergeable_now": mergeable,
                        "mergeable_state": head["mergeable_state"]}
        return Batch(self.kind, items=items, cursor=cursor, hint=new_hint, more_available=cut,
                     not_modified=unchanged)

    def _warn(self, text: str) -> None:
        if text not in self.warnings:
            self.warnings.append(text)

    def _cursor(self, returned: Set[Tuple[str, int]], settled: bool, mergeable: Any
                ) -> Dict[str, Any]:
        """The cursor on this read's head: every completed check read but the failures not
        returned."""
        ctx = self.ctx
        done = ctx["base"] | (ctx["completed"] - (ctx["fails"] - returned))
        return {"head_sha": ctx["sha"], "head_seen_at": ctx["seen_at"], "done": _pairs(done),
                "settled": settled, "mergeable": mergeable}

    def cursor_after(self, items: List[Any], previous: Optional[Dict[str, Any]]
                     ) -> Optional[Dict[str, Any]]:
        if not items:
            return previous
        ctx = self.ctx
        returned = {(i["unit"]["kind"], i["unit"]["id"]) for i in items if i["type"] == "check"}
        settled = ctx["settled"] or any(i["type"] == SETTLED for i in items)
        news = any(i["type"] == NEWS for i in items)
        mergeable = ctx["m_last"] if (ctx["m_last"] is not False or news) else ctx["m_stored"]
        return self._cursor(returned, settled, mergeable)

    def cut(self, batch: Batch, previous: Optional[Dict[str, Any]], keep: int, tail: bool,
            keep_edits: Optional[int] = None) -> Batch:
        """--max-total: the first `keep` items (mergeability, then the checks, then
        `checks_settled`)."""
        if keep >= len(batch.items):
            return batch
        items = batch.items[:keep]
        return replace(batch, items=items, cursor=self.cursor_after(items, previous),
                       hint=None, more_available=True)

    # -- a read by id (section 23, "Reading a check") ------------------------------------------
    def read_one(self, selector: str, value: int, max_body_chars: Optional[int],
                 reveal_hidden: bool) -> Dict[str, List[Dict[str, Any]]]:
        """One check run with its output and at most 50 annotations, and whether it is of
        the pull request's head: at most 3 requests."""
        base = f"repos/{self.owner}/{self.repo}/check-runs/{value}"
        what = f"check run {value} of {self.owner}/{self.repo}"
        try:
            raw, _ = self.client.get_json(base, what=what)
            unit = run_unit(raw, what)
            resp = self.client.request("GET", f"{base}/annotations", params={"per_page": 50},
                                       what=f"annotations of {what}")
            notes = self.client.json_of(resp, f"annotations of {what}", comments=False)
        except NotFoundError as exc:
            raise NotFoundError(f"{what} not found: {exc.message}", status=exc.status)
        except AuthError as exc:
            if exc.status != 403:
                raise
            raise NotFoundError(f"{what} cannot be read: the token needs "
                                f"{PERMISSION[RUNS]} ({exc.message})", status=403)
        if not isinstance(notes, list):
            raise ServerError(f"annotations of {what}: malformed response: not a list")
        head, _d, _e = self.pull(None)
        output = raw.get("output") if isinstance(raw.get("output"), dict) else {}
        count = check_number(output.get("annotations_count"), what, "annotations_count")
        text = _Texts(max_body_chars)
        shown = shown_check(unit, max_body_chars)
        body = text(check_text(output.get("text"), what, "output.text"))
        listed = [annotation(a, what, text) for a in notes[:50]]
        shown.update({"text": body, "annotations": listed,
                      "annotation_count": count if count is not None else len(listed),
                      "more_available": (count or 0) > len(listed),
                      "head_sha": escape_field(raw.get("head_sha")),
                      "current_head": raw.get("head_sha") == head["sha"]})  # type: ignore
        shown["hidden_characters"] += text.hidden
        shown["text_truncated"] = shown["text_truncated"] or text.truncated
        return {"check_runs": [shown]}

    # -- what a read shows -------------------------------------------------------------------
    def present(self, batch: Batch, max_body_chars: Optional[int], reveal_hidden: bool,
                include_system: bool) -> Tuple[Dict[str, List[Dict[str, Any]]],
                                               Dict[str, Dict[str, int]]]:
        if not self.active:
            return {}, {}
        out: Dict[str, List[Dict[str, Any]]] = {self.kind: [], SETTLED: [], NEWS: []}
        for item in batch.items:
            if item["type"] == "check":
                out[self.kind].append(shown_check(item["unit"], max_body_chars))
            else:
                out[item["type"]].append(item["value"])
        return out, {}


def _ts(when: str) -> float:
    parsed = parse_time(when)
    return parsed.timestamp() if parsed is not None else 0.0


def annotation(raw: Any, what: str, text: Any) -> Dict[str, Any]:
    if not isinstance(raw, dict):
        raise ServerError(f"annotations of {what}: malformed response: not an object")
    return {"path": text(check_text(raw.get("path"), what, "path")),
            "start_line": check_number(raw.get("start_line"), what, "start_line"),
            "end_line": check_number(raw.get("end_line"), what, "end_line"),
            "annotation_level": text(check_text(raw.get("annotation_level"), what,
                                                "annotation_level")),
            "title": text(check_text(raw.get("title"), what, "title")),
            "message": text(check_text(raw.get("message"), what, "message"))}


def shown_check(u: Dict[str, Any], max_chars: Optional[int]) -> Dict[str, Any]:
    """A check as documents show it: strangers' text escaped, cut and counted."""
    text = _Texts(max_chars)
    return {"kind": u["kind"], "id": u["id"], "name": text(u["name"]),
            "app": escape_field(u["app"]) if u["app"] is not None else None,
            "verdict": u["verdict"],
            "conclusion": escape_field(u["conclusion"]) if u["conclusion"] else None,
            "started_at": u["started_at"], "completed_at": u["completed_at"],
            "url": escape_field(u["url"]) if u["url"] is not None else None,
            "title": text(u["title"]), "summary": text(u["summary"]),
            "hidden_characters": text.hidden, "text_truncated": text.truncated}
