"""Edits since they were handled: one comment list's watermark (CONTRACT section 19).

The id cursor of a list never looks back, so an edit of a handled comment is not new. With
`--include-edits` a check also reads the list with `since` and reports the comments at or
before the cursor whose text changed since the agent was given them. What it needs to decide
that lives in the list's cursor, as `edits`:

    {"through": W, "seen": [[id, updated_at, body_sha256], ...]}

- W is a GitHub `updated_at` (from GitHub's data: never the local clock, never `Date`). Edits
  are read with `since = W - 1 hour`: GitHub's `since` is in whole seconds and may be inclusive
  or not, and a write may become visible after a later one; the hour of overlap covers both,
  and `seen` removes what the overlap reads again.
- `seen` holds, per comment id, the newest pair (id, updated_at) the agent was given (as a new
  or an edited comment; where one check's id read and `since` read disagree, the id read's, the
  older) with the SHA-256 of that body: never the body. Only pairs with updated_at >= W - 1 hour
  are kept (older ones cannot come back in a `since` read), at most SEEN_CAP entries.

An item is an edit when it is not older than the pair given (a stale read), and its body hashes
differently from the one given; with no entry, when its `updated_at` differs from its
`created_at`. So an `updated_at` bump with the same text (a reaction, a re-anchored line) is not
an edit, and a comment created and edited in one second (`updated_at` = `created_at`) is one
when it was given within the hour (returned items get an entry whether edited or not). The
author filters are the caller's.

This module is pure (no network, no files): the round reads, this decides.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping

from ..base.errors import ServerError
from ..text import normalize

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

    Entry = List[Any]  # [id, updated_at, body_sha256]

OVERLAP_SECONDS = 3600       # the `since` read starts this long before W
SEEN_CAP = 1000              # entries kept; over it, a flagged check re-establishes W
FUTURE_SLACK_SECONDS = 86400  # an updated_at later than Date + this is malformed
DATE_BOUND_SECONDS = 3600    # W (and an establishing anchor) at most Date + this; at most
                             # OVERLAP_SECONDS, so the next read starts no later than Date
# The cursor part this module owns: a comment list's cursor carries its edit watermark under
# this key (conversation and reviews alike); every other module names it through `PART`/`of`.
PART = "edits"
EPOCH = "1970-01-01T00:00:00Z"  # W of a list that was empty when it was established
CAP_WARNING = ("more than {cap} edited comments were remembered for {what}: the edit "
               "watermark was established again at {through}; edits before now were not checked")

_TIME_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})")
_SHA_RE = re.compile(r"[0-9a-f]{64}")


# --------------------------------------------------------------------------- times

def parse_time(value: Any) -> Optional[_dt.datetime]:
    """A GitHub time (`2026-04-23T10:03:00Z`, or with an offset) as an aware datetime, else
    None."""
    if not isinstance(value, str) or not _TIME_RE.fullmatch(value):
        return None
    return normalize.parse_time(value)  # the one parser: 1970..9999 UTC, else None


def format_time(when: _dt.datetime) -> str:
    return when.astimezone(_dt.timezone.utc).replace(microsecond=0).isoformat().replace(
        "+00:00", "Z")


def _t(value: str) -> _dt.datetime:
    when = parse_time(value)
    if when is None:  # callers validate first; a bug, not GitHub's
        raise ValueError(f"not a time: {value!r}")
    return when


def since_of(through: str) -> str:
    """The `since` of a read for watermark W: W - 1 hour, whole seconds (rounded down), not
    before 1970 (GitHub documents `since` from 1970-01-01 on)."""
    return format_time(max(_t(through) - _dt.timedelta(seconds=OVERLAP_SECONDS), _t(EPOCH)))


def newer(a: str, b: str) -> str:
    return a if _t(a) >= _t(b) else b


# --------------------------------------------------------------------------- the record

def body_sha256(body: Any) -> str:
    import hashlib  # only where a body is hashed: never on a no-change poll (section 20)

    return hashlib.sha256(("" if body is None else str(body)).encode("utf-8")).hexdigest()


def entry_of(raw: Mapping[str, Any]) -> Entry:
    """The `seen` entry of an item as GitHub sent it (its pair and the hash of its body). An
    `updated_at` that is not a time (null, a word: an item of an id read, which check_items
    did not see) makes the answer malformed (exit 6), never an entry or a traceback."""
    if parse_time(raw.get("updated_at")) is None:
        raise ServerError(f"malformed response: updated_at of comment {raw.get('id')} is not "
                          "a time")
    return [raw["id"], raw["updated_at"], body_sha256(raw.get("body"))]


def _entry_ok(e: Any) -> bool:
    return (isinstance(e, list) and len(e) == 3 and isinstance(e[0], int)
            and not isinstance(e[0], bool) and e[0] > 0 and parse_time(e[1]) is not None
            and isinstance(e[2], str) and bool(_SHA_RE.fullmatch(e[2])))


def valid(doc: Any) -> bool:
    """A watermark record of the right shape: a time (null until a flagged check sets it,
    section 19 turn 5), at most one entry per id, and optionally `moved_at` (a time)."""
    if not isinstance(doc, dict) or not {"through", "seen"} <= set(doc) <= {
            "through", "seen", "moved_at"}:
        return False
    if "moved_at" in doc and parse_time(doc["moved_at"]) is None:
        return False
    seen = doc["seen"]
    if (doc["through"] is not None and parse_time(doc["through"]) is None) or not isinstance(
            seen, list):
        return False
    if not all(_entry_ok(e) for e in seen):
        return False
    return len({e[0] for e in seen}) == len(seen)


def make(through: Optional[str], seen: Iterable[Entry], moved_at: Optional[str] = None
         ) -> Dict[str, Any]:
    """A record: `seen` pruned against `through`, ordered by id (a canonical form, so equal
    positions compare equal); `moved_at`: the `read_at` of the read that moved W. Without
    W (`through` null: no flagged check yet) nothing is pruned but the newest SEEN_CAP."""
    out = {"through": through, "seen": prune(seen, through)}
    if moved_at is not None:
        out["moved_at"] = moved_at
    return out


def prune(seen: Iterable[Entry], through: Optional[str]) -> List[Entry]:
    """The entries a `since` read from W - 1 hour can meet again, ordered by id."""
    if through is None:
        kept = sorted((list(e) for e in seen), key=lambda e: _t(e[1]))[-SEEN_CAP:]
        return sorted(kept, key=lambda e: e[0])
    floor = _t(through) - _dt.timedelta(seconds=OVERLAP_SECONDS)
    return sorted((list(e) for e in seen if _t(e[1]) >= floor), key=lambda e: e[0])


def merge(seen: Iterable[Entry], new: Iterable[Entry]) -> List[Entry]:
    """`seen` with `new` added: one entry per id, the newer pair (a stale pair never replaces
    a newer one; of two in one second, the one given later). The caller passes, for one
    check, the pair the agent was given."""
    by_id: Dict[int, Entry] = {}
    for e in list(seen) + list(new):
        old = by_id.get(e[0])
        if old is None or _t(e[1]) >= _t(old[1]):
            by_id[e[0]] = list(e)
    return sorted(by_id.values(), key=lambda e: e[0])


def given(id_read: Sequence[Mapping[str, Any]], since_read: Sequence[Mapping[str, Any]]
          ) -> List[Entry]:
    """The pairs one check gave the agent: of an item both reads returned, the older pair
    (the agent saw that body; a newer one is an edit to report later)."""
    by_id: Dict[int, Entry] = {}
    for raw in list(since_read) + list(id_read):
        e = entry_of(raw)
        old = by_id.get(e[0])
        if old is None or _t(e[1]) < _t(old[1]):
            by_id[e[0]] = e
    return sorted(by_id.values(), key=lambda e: e[0])


def edited_since_given(raw: Mapping[str, Any]) -> bool:
    """GitHub's own sign of an edit (section 4's `edited`)."""
    return raw.get("updated_at") != raw.get("created_at")


def public(doc: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    """How a watermark is shown on stdout: its time and how many entries it holds."""
    if not isinstance(doc, Mapping):
        return None
    seen = doc.get("seen")
    return {"through": doc.get("through"), "seen_count": len(seen) if isinstance(seen, list)
            else 0}


def same(a: Optional[Mapping[str, Any]], b: Optional[Mapping[str, Any]]) -> bool:
    """Two watermarks are the same position (both absent, or equal through and seen)."""
    if a is None or b is None:
        return a is None and b is None
    return a.get("through") == b.get("through") and sorted(
        map(tuple, a.get("seen") or [])) == sorted(map(tuple, b.get("seen") or []))


def at_or_past(stored: Optional[Mapping[str, Any]], target: Optional[Mapping[str, Any]]
               ) -> bool:
    """Watermark `stored` holds every edit `target` holds ("already applied", CONTRACT
    section 21): by time, and at the same time with `seen` a superset."""
    if target is None:
        return True
    if stored is None:
        return False
    if target.get("through") is None or stored.get("through") is None:
        # no W yet (section 19 turn 5): a stored W is past a target without one; else `seen`
        if target.get("through") is None and stored.get("through") is not None:
            return True
        if target.get("through") is not None:
            return False
        return set(map(tuple, target.get("seen") or [])) <= set(
            map(tuple, stored.get("seen") or []))
    s, t = _t(stored["through"]), _t(target["through"])
    if s != t:
        return s > t
    return set(map(tuple, target.get("seen") or [])) <= set(map(tuple, stored.get("seen") or []))


def behind(target: Optional[Mapping[str, Any]], stored: Optional[Mapping[str, Any]]) -> bool:
    """Writing `target` over `stored` would move the watermark backwards (or drop it)."""
    if stored is None:
        return False
    if target is None:
        return True
    if stored.get("through") is None:
        return False
    if target.get("through") is None:
        return True
    return _t(target["through"]) < _t(stored["through"])


# --------------------------------------------------------------------------- decisions

def is_edit(raw: Mapping[str, Any], seen: Mapping[int, Entry]) -> bool:
    """The edit test on an item as GitHub sent it (`seen` indexed by id: see `index`)."""
    old = seen.get(raw["id"])
    if old is None:
        return edited_since_given(raw)
    if _t(raw["updated_at"]) < _t(old[1]):
        return False  # a stale read of an older version than the one given
    # The pair given, or a bump with the same text, has the hash given. A second edit in
    # the second of the pair given has that pair but another hash: an edit all the same.
    return old[2] != body_sha256(raw.get("body"))


def index(seen: Iterable[Entry]) -> Dict[int, Entry]:
    return {e[0]: e for e in seen}


def newest_updated(items: Iterable[Mapping[str, Any]], floor: Optional[str],
                   bound: Optional[_dt.datetime] = None) -> Optional[str]:
    """The newest `updated_at` among items (and `floor`, a GitHub time already held), but
    none later than `bound` (the read's `Date` plus the hour of overlap): a later time is
    hostile (it passes check_items' day of slack), and as W it would leave every edit made
    after the read unread until the clock caught up (their updated_at < W - 1 hour). With W
    at most Date + 1 hour, the next read starts no later than the read's own Date, so an
    edit made after it is read; the hour also absorbs a data clock ahead of `Date` (the
    fake's is, and GitHub's need not agree). Such an item is recorded in `seen` like any
    other; it only does not move W. Date bounds W, never sets it."""
    best = floor
    for raw in items:
        t = raw.get("updated_at")
        if not isinstance(t, str) or (bound is not None and _t(t) > bound):
            continue
        if best is None or _t(t) > _t(best):
            best = t
    return best


def anchor_within(anchor: Optional[str], header: Optional[str]) -> Optional[str]:
    """The anchor A an establishing read starts an hour before (W is at least A), but no
    later than the last answer's `Date` plus the hour of overlap: a `created_at` after that
    is hostile, and as A it would hold W where every edit made after the read is unread (see
    newest_updated). Within the bound, A is GitHub's time unchanged."""
    when = parse_time(anchor)
    if when is None:
        return anchor
    bound = date_bound(header)
    return anchor if when <= bound else format_time(bound)


def date_bound(header: Optional[str]) -> _dt.datetime:
    """What bounds W: the response's `Date` (this machine's clock without one) plus the
    hour of overlap (see newest_updated)."""
    return _date_of(header) + _dt.timedelta(seconds=DATE_BOUND_SECONDS)


def check_items(items: Iterable[Mapping[str, Any]], date_header: Optional[str], what: str
                ) -> None:
    """Every item has a GitHub `created_at` and `updated_at`, neither later than the
    response's `Date` plus one day: else the answer is malformed (exit 6). `Date` bounds the
    data and never sets the watermark; without a `Date`, this machine's clock bounds it."""
    now = _date_of(date_header)
    limit = now + _dt.timedelta(seconds=FUTURE_SLACK_SECONDS)
    for raw in items:
        for key in ("created_at", "updated_at"):
            when = parse_time(raw.get(key))
            if when is None:
                raise ServerError(f"{what}: malformed response: {key} of item "
                                  f"{raw.get('id')} is not a time")
            if when > limit:
                raise ServerError(f"{what}: malformed response: {key} of item "
                                  f"{raw.get('id')} ({format_time(when)}) is more than a day "
                                  f"after the response's Date ({format_time(now)})")


def _date_of(header: Optional[str]) -> _dt.datetime:
    if header:
        try:
            from email.utils import parsedate_to_datetime  # email: only on a flagged read

            when = parsedate_to_datetime(header)
            if when is not None and when.tzinfo is not None:
                return when
        except (TypeError, ValueError, IndexError, OverflowError):
            pass
    return _dt.datetime.now(_dt.timezone.utc)


# --------------------------------------------------------------------------- one check

class Decision:
    """What one flagged check of one list decided (see `decide`)."""

    def __init__(self) -> None:
        self.edited: List[Mapping[str, Any]] = []    # edits to return (the filters keep)
        self.left_out: List[Tuple[Mapping[str, Any], str]] = []  # (edit, why) the filters left
        self.cut: List[Mapping[str, Any]] = []       # edits beyond --limit (reported later)
        self.record: Optional[Dict[str, Any]] = None  # the watermark the cursor carries
        self.established = False
        self.warnings: List[str] = []
        self.history: Dict[int, Dict[str, Any]] = {}  # id -> edit history (history.py)


def decide(previous: Optional[Mapping[str, Any]], since_items: Sequence[Mapping[str, Any]],
           whole: bool, at_or_before: Any, returned_new: Sequence[Mapping[str, Any]],
           limit: Optional[int], reason: Any, establish_from: Optional[str],
           what: str = "the comment list", bound: Optional[_dt.datetime] = None,
           floor: Optional[str] = None, lookup: Any = None, read_at: Optional[str] = None,
           defer: bool = False) -> Any:
    """One flagged check of one list: `begin`, then `lookup` asked for the candidates' edit
    history (when there is one), then `Pending.finish`.

    lookup        (candidates, seen by id, handled_at, no_change_before) -> {id: what GitHub's
                  edit history says} (streams/history.py); an item it says was not edited
                  since it was handled (`no_change`) is left out as `edited_no_change`
    defer         the `Pending` itself, to finish once the command asked the history of
                  every list's candidates (section 19, turn 6)
    """
    step = begin(previous, since_items, whole, at_or_before, returned_new, limit, reason,
                 establish_from, what, bound, floor, read_at)
    if defer:
        return step
    history = lookup(step.candidates, step.seen, step.handled_at, step.no_change_before) if (
        lookup and step.candidates) else {}
    return step.finish(history)


class Pending:
    """A list's decision up to its edit history (section 19, turn 6: one command asks the
    history of every list's `candidates` in one query per 100, then finishes each)."""

    def __init__(self, candidates: List[Mapping[str, Any]], seen: Mapping[int, Any],
                 handled_at: Optional[str], no_change_before: Optional[str],
                 finish: Any) -> None:
        self.candidates = candidates          # the edits of handled items, ascending id
        self.seen = seen                      # the stored `seen`, by id
        self.handled_at = handled_at
        self.no_change_before = no_change_before
        self._finish = finish

    def finish(self, history: Mapping[int, Dict[str, Any]]) -> Decision:
        """The decision, given what the edit history says of the candidates ({} when none
        was asked): `no_change` leaves one out, and --limit counts what remains."""
        return self._finish(history)


def begin(previous: Optional[Mapping[str, Any]], since_items: Sequence[Mapping[str, Any]],
          whole: bool, at_or_before: Any, returned_new: Sequence[Mapping[str, Any]],
          limit: Optional[int], reason: Any, establish_from: Optional[str],
          what: str = "the comment list", bound: Optional[_dt.datetime] = None,
          floor: Optional[str] = None, read_at: Optional[str] = None) -> Pending:
    """One flagged check of one list, up to the edit history of its candidates.

    previous      the stored watermark (None: establish it at this check)
    since_items   what the `since` read returned (ascending id); `whole`: nothing was cut
    at_or_before  a test on an item: handled under the previous id cursor (edits are of
                  handled comments; later ones are new). Asked only of edits, so a test
                  that costs a request (a pull request's review list) is rarely paid.
                  None: not known (that list cut by --max-pages): the edit is left for a
                  later check, like one beyond --limit, and W does not move
    returned_new  the new items this check returns (their pairs are given)
    limit         --limit for edited items (None: no bound)
    reason        why the filters leave an item out (None: kept)
    establish_from  the `since` the establishing read used (a GitHub time), if any: W when
                  that read met nothing, else EPOCH (an empty list)
    bound         the read's `Date` + 1 hour: W never moves past it (see newest_updated)
    floor         without W (a first ask): `tracked_since`, from when edits are reported
                  (None: a first look, the read is only the baseline)
    read_at       this read's `Date` (GitHub's clock): `moved_at` when W moves
    """
    d = Decision()
    since_by_id = {r["id"]: r for r in since_items}
    new_ids = {r["id"] for r in returned_new}
    new_pairs = given(returned_new, [since_by_id[i] for i in new_ids if i in since_by_id])
    first = previous is None or previous.get("through") is None
    prev_seen = list(previous["seen"]) if previous is not None else []
    if first and parse_time(floor) is None:
        # Establish: this read is the baseline; nothing is reported. Every pair it met is
        # taken as given, so an edit made before now is not reported next time.
        through = newest_updated(since_items, establish_from, bound) or EPOCH
        base = [entry_of(r) for r in since_items if r["id"] not in new_ids]
        d.record = make(through, merge(merge(prev_seen, base), new_pairs), read_at)
        d.established = True
        return Pending([], {}, None, None, lambda _history: d)
    seen = index(prev_seen)
    floor_t = _t(floor) if first else None  # type: ignore[arg-type]
    handled_at = floor if first else (previous.get("moved_at")  # type: ignore[union-attr]
                                      or previous["through"])  # type: ignore[index]
    passed: List[Entry] = []
    candidates = []
    new_ids_seen = {e[0] for e in new_pairs}
    undecided: List[Mapping[str, Any]] = []
    for raw in since_items:
        if floor_t is not None and _t(raw["updated_at"]) < floor_t:
            if raw["id"] not in new_ids_seen:  # before tracking began: the baseline
                passed.append(entry_of(raw))
            continue
        if is_edit(raw, seen):
            if raw["id"] in new_ids_seen:
                continue
            handled = at_or_before(raw)
            if handled is None:  # not known (a cut list): left for a later check
                undecided.append(raw)
            elif handled:
                candidates.append(raw)
        elif raw["id"] in seen:
            passed.append(entry_of(raw))  # a bump with the same text: keep its newer pair
    no_change_before = handled_at if first else format_time(
        _t(handled_at) - _dt.timedelta(seconds=OVERLAP_SECONDS))  # a write visible late
    return Pending(candidates, seen, handled_at, no_change_before,
                   lambda history: _finish(d, dict(history), candidates, undecided, passed,
                                           previous, prev_seen, new_pairs, since_items,
                                           whole, first, limit, reason, establish_from,
                                           bound, read_at, what))


def _finish(d: Decision, history: Dict[int, Dict[str, Any]],
            candidates: List[Mapping[str, Any]], undecided: List[Mapping[str, Any]],
            passed: List[Entry], previous: Optional[Mapping[str, Any]],
            prev_seen: List[Entry], new_pairs: List[Entry],
            since_items: Sequence[Mapping[str, Any]], whole: bool, first: bool,
            limit: Optional[int], reason: Any, establish_from: Optional[str],
            bound: Optional[_dt.datetime], read_at: Optional[str], what: str) -> Decision:
    """`begin`'s decision finished with the candidates' edit history."""
    d.history = history
    kept = 0
    for raw in candidates:
        why = reason(raw) if reason else None
        if (d.history.get(raw["id"]) or {}).get("no_change"):
            d.left_out.append((raw, "edited_no_change"))
            passed.append(entry_of(raw))
        elif why is not None:
            d.left_out.append((raw, why))
            passed.append(entry_of(raw))
        elif limit is not None and kept >= limit:
            d.cut.append(raw)
        else:
            kept += 1
            d.edited.append(raw)
            passed.append(entry_of(raw))
    d.cut.extend(undecided)  # like edits beyond --limit: reported by a later check
    moved = whole and not d.cut
    if first:
        through = (newest_updated(since_items, establish_from, bound) or EPOCH) if moved \
            else None
    else:
        through = newest_updated(since_items, previous["through"], bound) if moved else \
            previous["through"]  # type: ignore[index]
    # moved_at: the read whose confirm last moved W (kept while W stays: the record, and the
    # probe keyed by its digest, stay the same on an idle poll)
    old_through = (previous or {}).get("through")
    moved_at = read_at if (moved and through != old_through) else (previous or {}).get(
        "moved_at")
    merged = merge(merge(prev_seen, passed), new_pairs)
    record = make(through, merged, moved_at)
    d.established = first and moved
    if len(record["seen"]) > SEEN_CAP:
        # Re-establish: every pair this read met counts as given; keep the newest SEEN_CAP.
        through = newest_updated(since_items, through, bound) or through or EPOCH
        everything = [entry_of(r) for r in since_items]
        record = make(through, merge(merged, everything), read_at)
        if len(record["seen"]) > SEEN_CAP:
            record["seen"] = sorted(sorted(record["seen"], key=lambda e: _t(e[1]))[-SEEN_CAP:],
                                    key=lambda e: e[0])
        d.edited, d.cut = d.edited, []
        d.warnings.append(CAP_WARNING.format(cap=SEEN_CAP, what=what,
                                             through=record["through"]))
    d.record = record
    return d


def carry(previous: Optional[Mapping[str, Any]], returned: Sequence[Mapping[str, Any]]
          ) -> Optional[Dict[str, Any]]:
    """A write without the flag (a check without it, --update-state, --through): W kept, the
    returned items that were ever edited (`updated_at` != `created_at`) added to `seen`, so
    an item returned as new is not reported as edited later unless it changes again. Only
    those: `seen` grows with no cap while the flag is off (only a flagged check applies it).
    Without a stored record, one with `through` null holds them (section 19, turn 5: every
    write keeps `seen`, so a first flagged check does not report them); none when empty."""
    pairs = [entry_of(r) for r in returned if edited_since_given(r)]
    if previous is None:
        return make(None, pairs) if pairs else None
    return make(previous["through"], merge(previous["seen"], pairs), previous.get("moved_at"))


def after_cut(stored: Optional[Mapping[str, Any]], record: Optional[Mapping[str, Any]],
              dropped: Iterable[int], edits_dropped: bool) -> Optional[Dict[str, Any]]:
    """The watermark of a check that `--max-total` cut (section 18; the inbox): the dropped
    items' entries back to what `stored` held (they were not given), and W back to the stored
    one when an edit was dropped (the next flagged read meets it again: returned once).
    Dropping only new items keeps W: they come back by the id cursor, as new."""
    if record is None:
        return None
    ids = set(dropped)
    old = index(stored["seen"]) if valid(stored) else {}
    seen = [e for e in record["seen"] if e[0] not in ids] + [old[i] for i in ids if i in old]
    if edits_dropped and valid(stored):
        return make(stored["through"], merge(stored["seen"], seen),  # type: ignore[index]
                    stored.get("moved_at"))  # type: ignore[union-attr]
    if edits_dropped and record.get("through") is not None and stored is None:
        return make(None, seen) if seen else None  # a first ask cut: W not set yet
    return make(record["through"], seen, record.get("moved_at"))


def of(cursor: Any) -> Any:
    """A cursor's edit watermark (None: none, or no cursor)."""
    return cursor.get(PART) if isinstance(cursor, Mapping) else None


def summarize(doc: Any) -> Any:
    """A document for stdout: every watermark (a valid record under an `edits` key) shown
    as `{through, seen_count}`; the files hold it whole."""
    if isinstance(doc, list):
        return [summarize(v) for v in doc]
    if not isinstance(doc, dict):
        return doc
    return {k: (public(v) if k == PART and valid(v) else summarize(v))
            for k, v in doc.items()}


def partial(stored: Optional[Mapping[str, Any]], snapshot: Any, passed: Iterable[int]
            ) -> Optional[Dict[str, Any]]:
    """The watermark a partial confirm (`--through`) writes: W kept (a write without the
    flag), the snapshot's pairs of the comments it passes added. None without a stored one;
    a snapshot watermark of the wrong shape adds nothing."""
    ids = set(passed)
    pairs = [e for e in snapshot["seen"] if e[0] in ids] if valid(snapshot) else []
    if stored is None:
        return make(None, pairs) if pairs else None
    return make(stored["through"], merge(stored["seen"], pairs), stored.get("moved_at"))
