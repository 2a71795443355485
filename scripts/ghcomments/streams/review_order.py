"""Which of a pull request's reviews is new under a review cursor (CONTRACT section 12).

A review and its inline comments get their ids and `created_at` when the review is started,
and become visible only when it is submitted, possibly long after reviews with larger ids.
GitHub lists reviews "chronologically" (by id or by submission: it does not say). So the review
stream reads the whole review list every time something changed (it is short: one request per
100 reviews), orders the submitted ones by (`submitted_at`, id), and its cursor remembers which
recent ones were handled:

    {"last_review_id": I, "last_submitted_at": T, "recent_review_ids": [...]}

(T, I) is the newest handled review; `recent_review_ids` are the handled reviews submitted at or
after T - GRACE_SECONDS. A review is new exactly when it was submitted at or after T - GRACE and
is not among them. Reviews submitted before T - GRACE were all visible, and handled, when the
cursor was made: a submission becomes visible at once (assumed, with an hour of margin for
replication lag or a review submitted in the same second as the newest handled one). The owner's
own pending review (state PENDING, no `submitted_at`) is never new and never moves the cursor.
"""

from __future__ import annotations

import datetime as _dt

from ..text import normalize

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional, Tuple

GRACE_SECONDS = 3600
ZERO_REVIEWS = {"last_review_id": 0, "last_submitted_at": None, "recent_review_ids": []}


def _when(text: Optional[str]) -> Optional[_dt.datetime]:
    if not isinstance(text, str) or not normalize.looks_like_time(text):
        return None
    if not normalize.in_range(text):  # the answers' check refuses these first (section 22)
        return None
    return _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def is_dated(raw: Dict[str, Any]) -> bool:
    return _when(raw.get("submitted_at")) is not None


def review_key(raw: Dict[str, Any]) -> Tuple[str, int]:
    """The order of submitted reviews: (submitted_at, id); one without a submission time
    sorts first (it is read as soon as it is seen, and remembered by id)."""
    return (str(raw.get("submitted_at") or "") if is_dated(raw) else "", int(raw["id"]))


def is_submitted(raw: Dict[str, Any]) -> bool:
    """Not a draft. GitHub shows its owner a draft as PENDING with no `submitted_at`; any
    other review counts as submitted, with or without a submission time."""
    return raw.get("state") != "PENDING"


def cursor_key(cursor: Optional[Dict[str, Any]]) -> Tuple[str, int]:
    if not cursor:
        return ("", -1)
    return (str(cursor.get("last_submitted_at") or ""), int(cursor.get("last_review_id") or 0))


def is_new_review(raw: Dict[str, Any], cursor: Dict[str, Any]) -> bool:
    """Not handled under `cursor` (see the module docstring)."""
    if not is_submitted(raw):
        return False
    if not is_dated(raw):  # no submission time to order it by: remembered by id
        return raw["id"] not in set(cursor.get("undated_review_ids") or ())
    last = _when(cursor.get("last_submitted_at"))
    if last is None:  # the zero cursor: nothing handled yet
        return True
    if raw["id"] in set(cursor.get("recent_review_ids") or ()):
        return False
    submitted = _when(raw.get("submitted_at"))
    return submitted is not None and submitted >= last - _dt.timedelta(seconds=GRACE_SECONDS)


def review_cursor(handled: List[Dict[str, Any]], previous: Optional[Dict[str, Any]],
                  carry_recent: bool = False) -> Dict[str, Any]:
    """The cursor after `handled` (every visible submitted review now handled). It never
    moves back, and a handled review that sorts before the cursor still joins its recent ids
    (the cursor's own review may have left the list), so it is never returned again.
    `carry_recent`: `handled` holds only the reviews just read, the earlier ones being
    unchanged: the previous recent ids all stay (a superset; the next full read prunes it)."""
    dated = [r for r in handled if is_dated(r)]
    newest = max(dated, key=review_key, default=None)
    if newest is not None and review_key(newest) >= cursor_key(previous):
        last_id, last_at = newest["id"], newest["submitted_at"]
        keep_old = False
    elif previous and previous.get("last_submitted_at"):
        last_id, last_at = previous["last_review_id"], previous["last_submitted_at"]
        keep_old = True
    else:
        last_id, last_at, keep_old = 0, None, False
    cursor: Dict[str, Any] = {"last_review_id": last_id, "last_submitted_at": last_at,
                              "recent_review_ids": []}
    last = _when(last_at)
    if last is not None:
        since = last - _dt.timedelta(seconds=GRACE_SECONDS)
        recent = {r["id"] for r in dated if (_when(r["submitted_at"]) or since) >= since}
        if keep_old or carry_recent:
            recent |= set((previous or {}).get("recent_review_ids") or ())
        cursor["recent_review_ids"] = sorted(recent)
    undated = set((previous or {}).get("undated_review_ids") or ()) | {
        r["id"] for r in handled if not is_dated(r)}
    if undated:
        cursor["undated_review_ids"] = sorted(undated)
    return cursor


def handled_under(target: Optional[Dict[str, Any]], stored: Optional[Dict[str, Any]]) -> bool:
    """Every review handled under cursor `target` is handled under cursor `stored` ("already
    applied" for the review part, CONTRACT sections 21 and 22): (T, I) at or past, the
    undated ids by inclusion, and the recent ids by inclusion, except when the whole of the
    target's window lies before the stored cursor's (T_target < T_stored - GRACE: those reviews
    are all submitted before the stored window, handled by time)."""
    if not target:
        return True
    if not stored or cursor_key(stored) < cursor_key(target):
        return False
    if not set(target.get("undated_review_ids") or ()) <= set(
            stored.get("undated_review_ids") or ()):
        return False
    missing = set(target.get("recent_review_ids") or ()) - set(
        stored.get("recent_review_ids") or ())
    if not missing:
        return True
    t_at, s_at = _when(target.get("last_submitted_at")), _when(stored.get("last_submitted_at"))
    return (t_at is not None and s_at is not None
            and t_at < s_at - _dt.timedelta(seconds=GRACE_SECONDS))
