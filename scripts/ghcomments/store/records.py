"""The private records a round stores, validated whenever they are loaded.

Cursors live in the checkpoint (a corrupt one is exit 7: state.py); poll hints and review-list
skeletons live in the hints file and the updates file, and are a cache: a record that fails
these checks is ignored and rebuilt, never trusted and never an error (CONTRACT section 14).

  conversation cursor  {"last_comment_id": int >= 0, "last_comment_created_at": str | null,
                        "edits": <watermark> (optional)}
  review cursor        {"last_review_id": int >= 0, "last_submitted_at": str | null,
                        "recent_review_ids": [int], "undated_review_ids": [int] (optional),
                        "edits": <watermark> (optional)}
  watermark            {"through": time, "seen": [[id, updated_at, sha256], ...]} (edits.py)
  conversation hint    {"comment_id": int, "offset": int | null, "page": int | null,
                        "per_page": 1..100 | null, "etag": str | null, "latest": {...} | null}
  review hint          {"cursor": <review cursor>, "probes": [{"page", "per_page", "etag",
                        "held": [[id, state], ...] (the first: the window with room)}],
                        "pages": [<skeleton page>] (optional)}
  skeleton page        {"page": 1.., "per_page": 100, "etag": str,
                        "items": [[id, submitted_at | null, state | null], ...]}
"""

from __future__ import annotations

import re

from ..text import normalize
from . import edits

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any

PER_PAGE_MAX = 100


def _int(value: Any, low: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _opt_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _time(value: Any) -> bool:
    """null, or an ISO 8601 time (GitHub's `2026-04-23T10:03:00Z`)."""
    if value is None:
        return True
    if not isinstance(value, str) or len(value) > 40:
        return False
    # a time, in 1970..9999 UTC (section 22): year 1 is no watermark, it is exit 7
    return normalize.looks_like_time(value) and normalize.in_range(value)


def _ids(value: Any) -> bool:
    return isinstance(value, list) and all(_int(i) for i in value)


def _edits(doc: dict) -> bool:
    """A cursor's edit watermark (section 19): absent, or of the right shape."""
    return edits.PART not in doc or edits.valid(doc[edits.PART])


def conversation_cursor(doc: Any) -> bool:
    return (isinstance(doc, dict) and _int(doc.get("last_comment_id"))
            and _opt_str(doc.get("last_comment_created_at")) and _edits(doc))


def review_cursor(doc: Any) -> bool:
    return (isinstance(doc, dict) and _int(doc.get("last_review_id"))
            and _time(doc.get("last_submitted_at"))
            and _ids(doc.get("recent_review_ids"))
            and _ids(doc.get("undated_review_ids", [])) and _edits(doc))


def conversation_hint(doc: Any) -> bool:
    if not isinstance(doc, dict) or not _int(doc.get("comment_id")):
        return False
    page, per_page, etag = doc.get("page"), doc.get("per_page"), doc.get("etag")
    probe_ok = (page is None and per_page is None and etag is None) or (
        _int(page, 1) and _int(per_page, 1) and per_page <= PER_PAGE_MAX
        and isinstance(etag, str) and bool(etag))
    offset = doc.get("offset")
    latest = doc.get("latest")
    return (probe_ok and (offset is None or _int(offset))
            and (latest is None or isinstance(latest, dict)))


def probe(doc: Any) -> bool:
    held = doc.get("held", []) if isinstance(doc, dict) else None
    return (isinstance(doc, dict) and _int(doc.get("page"), 1) and _int(doc.get("per_page"), 1)
            and doc["per_page"] <= PER_PAGE_MAX and isinstance(doc.get("etag"), str)
            and bool(doc["etag"]) and isinstance(held, list)
            and all(isinstance(h, list) and len(h) == 2 and _int(h[0]) and _opt_str(h[1])
                    for h in held))


def skeleton(pages: Any) -> bool:
    """Earlier pages of a review list: pages 1..k of 100, each with its ETag and items."""
    def entry_ok(e: Any) -> bool:
        return (isinstance(e, dict) and _int(e.get("page"), 1)
                and e.get("per_page") == PER_PAGE_MAX and isinstance(e.get("etag"), str)
                and bool(e["etag"]) and isinstance(e.get("items"), list)
                and all(isinstance(i, list) and len(i) == 3 and _int(i[0])
                        and _opt_str(i[1]) and _opt_str(i[2]) for i in e["items"]))
    return (isinstance(pages, list) and bool(pages) and all(entry_ok(e) for e in pages)
            and [e["page"] for e in pages] == list(range(1, len(pages) + 1)))


def review_hint(doc: Any) -> bool:
    return (isinstance(doc, dict) and review_cursor(doc.get("cursor"))
            and isinstance(doc.get("probes"), list) and bool(doc["probes"])
            and all(probe(p) for p in doc["probes"])
            and ("pages" not in doc or skeleton(doc["pages"])))


# -- section 21 (--include-events) ------------------------------------------------------------
#   event cursor   {"last_event_id": int >= 0, "state": {"state": "open"|"closed"|null,
#                   "merged"?, "draft"?, "locked": bool|null, "moved_to": str|null}}
#   head cursor    {"sha": str, "seen_at": time | null}
#   event hint     {"event_id": int, "order": "asc"|"desc", "page": 1.., "per_page": 1..100,
#                   "etag": str}
#   head hint      {"sha": str, "repo": "owner/name" | null, "ref": str | null, "etag": str|null,
#                   "via": "pull" (optional: the ETag is the pull request's, section 23)}

SHA_RE = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256 object names


def _sha(value: Any) -> bool:
    return isinstance(value, str) and SHA_RE.fullmatch(value) is not None


# A head repository and branch as GitHub names them: no path step (`..`, `.`), no control or
# space; the ref is quoted into a URL path, never taken as one.
REPO_RE = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


def head_repo(value: Any) -> bool:
    return (isinstance(value, str) and len(value) <= 300 and REPO_RE.fullmatch(value) is not None
            and all(part not in (".", "..") for part in value.split("/")))


def head_ref(value: Any) -> bool:
    return (isinstance(value, str) and 0 < len(value) <= 1000
            and not any(ch <= " " or ch in "~^:?*[\\\x7f" for ch in value)
            and all(part not in ("", ".", "..") for part in value.split("/")))


def _flag(value: Any) -> bool:
    return value is None or isinstance(value, bool)


def conversation_state(doc: Any) -> bool:
    if not isinstance(doc, dict):
        return False
    moved = doc.get("moved_to")
    return (doc.get("state") in (None, "open", "closed") and _flag(doc.get("locked"))
            and _flag(doc.get("merged")) and _flag(doc.get("draft"))
            and (moved is None or (isinstance(moved, str) and len(moved) <= 2000)))


def events_cursor(doc: Any) -> bool:
    return (isinstance(doc, dict) and _int(doc.get("last_event_id"))
            and conversation_state(doc.get("state")))


HEAD_PASSED_MAX = 20  # the shas a head cursor names as passed (CONTRACT amendments, turn 6)
HANDLED_SOURCES = ("threads", "pull", "review")


def head_cursor(doc: Any) -> bool:
    """`{sha, seen_at}`, and optionally `passed`: the heads a compare to it included (an
    older checkpoint has none)."""
    if not (isinstance(doc, dict) and _sha(doc.get("sha")) and _time(doc.get("seen_at"))):
        return False
    passed = doc.get("passed")
    return passed is None or (isinstance(passed, list) and len(passed) <= HEAD_PASSED_MAX
                              and all(_sha(p) for p in passed))


def handled_head(doc: Any) -> bool:
    """A PR checkpoint's `handled_head`: `{sha, seen_at, source}`."""
    return (isinstance(doc, dict) and _sha(doc.get("sha")) and _time(doc.get("seen_at"))
            and doc.get("source") in HANDLED_SOURCES)


def events_hint(doc: Any) -> bool:
    return (isinstance(doc, dict) and _int(doc.get("event_id"))
            and doc.get("order") in ("asc", "desc") and _int(doc.get("page"), 1)
            and _int(doc.get("per_page"), 1) and doc["per_page"] <= PER_PAGE_MAX
            and isinstance(doc.get("etag"), str) and bool(doc["etag"]))


def head_hint(doc: Any) -> bool:
    if not isinstance(doc, dict) or not _sha(doc.get("sha")):
        return False
    repo, ref, etag = doc.get("repo"), doc.get("ref"), doc.get("etag")
    return ((repo is None or head_repo(repo)) and (ref is None or head_ref(ref))
            and (etag is None or (isinstance(etag, str) and bool(etag)))
            and doc.get("via") in (None, "pull"))  # "pull": the ETag is the pull request's
