"""The issue-comment monitor: check, fetch with selectors, confirm (CONTRACT sections 5, 6, 11).

Who writes what: only `check` writes the updates file; only `fetch(update_state=True)` and
`confirm` write the checkpoint, and the checkpoint only moves forward.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from typing import Any, Dict, List, Optional

from . import normalize
from .errors import NotFoundError, ServerError, StateError, UsageError
from .scan import CommentList, Page, Scanner, ScanResult, Window
from .state import SCHEMA_VERSION, StateStore

DEFAULT_LIMIT = 20
DEFAULT_MAX_PAGES = 10


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace(
        "+00:00", "Z")


class Options:
    """What shapes the comments shown: body cut, escapes, trust filter."""

    def __init__(self, max_body_chars: Optional[int] = None, reveal_hidden: bool = False,
                 trusted_only: bool = False) -> None:
        self.max_body_chars = max_body_chars
        self.reveal_hidden = reveal_hidden
        self.trusted_only = trusted_only


class Monitor:
    def __init__(self, client: Any, owner: str, repo: str, issue: int,
                 store: StateStore, options: Options, max_pages: int) -> None:
        self.client = client
        self.owner, self.repo, self.issue = owner, repo, issue
        self.repository = f"{owner}/{repo}"
        self.store = store
        self.options = options
        self.max_pages = max_pages
        self.warnings: List[str] = []
        self.comments = CommentList(client, owner, repo, issue, max_pages)

    # -- shared pieces -------------------------------------------------------------------------
    def _normalise(self, raws: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        out = [normalize.issue_comment(r, self.options.max_body_chars, self.options.reveal_hidden)
               for r in raws]
        if self.options.trusted_only:
            kept = [c for c in out if normalize.is_trusted(c["author_association"])]
            if len(kept) != len(out):
                self.warnings.append(f"--trusted-only left out {len(out) - len(kept)} comment(s) "
                                     "by authors who are not OWNER, MEMBER or COLLABORATOR")
            out = kept
        hidden = sum(1 for c in out if c["hidden_characters"])
        if hidden:
            self.warnings.append(f"{hidden} comment(s) contain invisible or control characters "
                                 "(see hidden_characters; --reveal-hidden or --format summary "
                                 "shows them as <U+XXXX>)")
        return out

    @staticmethod
    def _checkpoint_of(raw: Optional[Dict[str, Any]], with_seen: bool = True
                       ) -> Optional[Dict[str, Any]]:
        if raw is None:
            return None
        cp = {"last_comment_id": raw["id"], "last_comment_created_at": raw.get("created_at")}
        if with_seen:
            cp["last_seen_comment_updated_at"] = raw.get("updated_at")
        return cp

    @staticmethod
    def _stored_cursor(cp: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
        if not cp:
            return None
        return {"last_comment_id": cp["last_comment_id"],
                "last_comment_created_at": cp.get("last_comment_created_at")}

    def _hint_for(self, result: ScanResult, comment_id: int) -> Optional[Dict[str, Any]]:
        """The poll hint to keep with a checkpoint at `comment_id`, from the scan that saw it."""
        offset = result.offsets.get(comment_id)
        if offset is None:
            return None
        hint: Dict[str, Any] = {"comment_id": comment_id, "offset": offset, "page": None,
                                "per_page": None, "etag": None, "latest": None}
        front: Optional[Page] = result.front
        newest = result.newest
        if (front is not None and front.items and front.last_id == comment_id
                and not front.full and not front.has_next and front.etag
                and newest is not None and newest["id"] == comment_id):
            hint.update(page=front.window.page, per_page=front.window.per_page, etag=front.etag,
                        latest=normalize.brief(normalize.issue_comment(newest, 0)))
        return hint

    def _scan_after(self, cursor: int, limit: Optional[int],
                    hint: Optional[Dict[str, Any]], sharpen: bool = False) -> ScanResult:
        scanner = Scanner(self.comments)
        probe = etag = offset = None
        if hint and hint.get("comment_id") == cursor:
            if hint.get("etag") and hint.get("page") and hint.get("per_page"):
                probe, etag = Window(int(hint["page"]), int(hint["per_page"])), hint["etag"]
            if isinstance(hint.get("offset"), int):
                offset = hint["offset"]
        result = scanner.after(cursor, limit, probe=probe, etag=etag, offset=offset,
                               sharpen=sharpen)
        if not result.cursor_found:
            self.warnings.append(f"--max-pages {self.max_pages} was reached before the "
                                 f"comment {cursor} was located; nothing was returned. Run "
                                 "again with a larger --max-pages")
        elif result.truncated:
            self.warnings.append(f"--max-pages {self.max_pages} stopped the scan"
                                 + ("" if result.more_available is not None else
                                    "; whether more comments follow is unknown"))
        return result

    def _tail(self, want: int) -> ScanResult:
        result = Scanner(self.comments).tail(want)
        if result.older_not_returned:
            self.warnings.append(f"no checkpoint: only the newest {len(result.returned)} "
                                 f"comment(s) were read; {result.older_not_returned} older "
                                 "comment(s) were not (the history before them was not read)")
        if result.truncated:
            self.warnings.append(f"--max-pages {self.max_pages} stopped the scan")
        return result

    def _base(self) -> Dict[str, Any]:
        return {"repository": self.repository, "issue": self.issue, "retrieved_at": now_iso()}

    # -- check_issue_updates.py ------------------------------------------------------------------
    def check(self, limit: int, after_comment_id: Optional[int]) -> Dict[str, Any]:
        cp = self.store.read_checkpoint()
        hint = cp.get("poll_hint") if cp else None
        if after_comment_id is not None:
            previous = {"last_comment_id": after_comment_id,
                        "last_comment_created_at": (cp.get("last_comment_created_at")
                                                    if cp and cp["last_comment_id"]
                                                    == after_comment_id else None)}
            if not (cp and cp["last_comment_id"] == after_comment_id):
                hint = None
        else:
            previous = self._stored_cursor(cp)
        doc = self._base()
        snapshot_hint: Optional[Dict[str, Any]] = None
        older = None
        if previous is None:
            result = self._tail(limit)
            older = result.older_not_returned
        else:
            result = self._scan_after(previous["last_comment_id"], limit, hint, sharpen=True)
        raws = result.returned
        if result.not_modified:
            latest = hint.get("latest") if hint else None
            recommended = dict(previous or {}, last_seen_comment_updated_at=None)
            snapshot_hint = hint
        else:
            newest = result.newest
            latest = normalize.brief(normalize.issue_comment(newest, 0)) if newest else None
            if raws:
                recommended = self._checkpoint_of(raws[-1])
            elif previous is not None:
                seen = result.seen.get(previous["last_comment_id"])
                recommended = dict(previous, last_seen_comment_updated_at=(
                    seen.get("updated_at") if seen else None))
            else:
                recommended = None
            if recommended is not None:
                snapshot_hint = self._hint_for(result, recommended["last_comment_id"])
        comments = self._normalise(raws)
        has_updates = bool(raws) or (not result.cursor_found and bool(result.more_available))
        doc.update({
            "has_updates": has_updates,
            "new_comments": comments,
            "new_comment_count": len(comments),
            "more_available": result.more_available,
            "truncated": result.truncated,
            "latest_comment": latest,
            "previous_checkpoint": previous,
            "recommended_checkpoint": recommended,
        })
        if previous is None:
            doc["older_not_returned"] = older
        doc.update({
            "pages_scanned": self.comments.pages,
            "requests": self.client.requests,
            "snapshot_id": os.urandom(16).hex(),
            "updates_file": self.store.paths.updates,
            "state_updated": False,
            "warnings": self.warnings,
        })
        private = dict(doc, poll_hint=snapshot_hint,
                       schema_version=SCHEMA_VERSION)
        with self.store.locked():
            self.store.write_updates(private)
        return doc

    # -- get_latest_comments.py ------------------------------------------------------------------
    def fetch(self, selector: str, value: Optional[int], limit: Optional[int],
              update_state: bool, force: bool) -> Dict[str, Any]:
        cp = self.store.read_checkpoint()
        previous = self._stored_cursor(cp)
        doc = self._base()
        result: Optional[ScanResult] = None
        raws: List[Dict[str, Any]] = []
        if selector == "comment_id":
            raws = [self._one_comment(int(value or 0))]
        elif selector == "since_comment_id":
            result = self._scan_after(int(value or 0), limit, cp.get("poll_hint") if cp else None,
                                      sharpen=update_state)
        elif selector == "last_n":
            result = self._tail(int(value or 0))
            self.warnings[:] = [w for w in self.warnings if not w.startswith("no checkpoint")]
        elif selector == "all":
            result = Scanner(self.comments).after(0, None, offset=0)
            if result.truncated:
                self.warnings.append(f"--max-pages {self.max_pages} stopped the scan; "
                                     "the conversation continues after the last comment shown")
        elif previous is not None:
            result = self._scan_after(previous["last_comment_id"], limit,
                                      cp.get("poll_hint") if cp else None, sharpen=update_state)
        else:
            selector = "tail"
            result = self._tail(limit or DEFAULT_LIMIT)
        if result is not None:
            raws = result.returned
        next_cp = None
        if selector in ("checkpoint", "tail", "since_comment_id"):
            next_cp = self._checkpoint_of(raws[-1]) if raws else previous
        state_updated = False
        if update_state and raws and result is not None:
            state_updated = self._advance(raws[-1], result, force)
            if state_updated:
                next_cp = self._checkpoint_of(raws[-1], with_seen=False)
        doc.update({
            "selector": {"type": selector, "value": value},
            "comments": self._normalise(raws),
            "comment_count": 0,
            "previous_checkpoint": previous,
            "next_checkpoint": next_cp,
            "state_updated": state_updated,
            "more_available": result.more_available if result else False,
            "truncated": result.truncated if result else False,
        })
        doc["comment_count"] = len(doc["comments"])
        if result is not None and result.older_not_returned is not None:
            doc["older_not_returned"] = result.older_not_returned
        doc.update({"pages_scanned": self.comments.pages, "requests": self.client.requests,
                    "warnings": self.warnings})
        return doc

    def _one_comment(self, comment_id: int) -> Dict[str, Any]:
        what = f"comment {comment_id} in {self.repository}"
        try:
            raw, _ = self.client.get_json(
                f"repos/{self.owner}/{self.repo}/issues/comments/{comment_id}", what=what)
        except NotFoundError as exc:
            raise NotFoundError(f"comment {comment_id} not found in {self.repository} "
                                f"(deleted, or not an issue comment): {exc.message}",
                                status=exc.status)
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), int):
            raise ServerError(f"{what}: unexpected response")
        m = re.search(r"/issues/(\d+)$", str(raw.get("issue_url") or ""))
        if m and int(m.group(1)) != self.issue:
            raise NotFoundError(f"comment {comment_id} belongs to issue #{m.group(1)} of "
                                f"{self.repository}, not #{self.issue}", status=None)
        return raw

    def _advance(self, raw: Dict[str, Any], result: ScanResult, force: bool) -> bool:
        """--update-state: write the checkpoint at `raw` now (forward only)."""
        with self.store.locked():
            cp = self.store.read_checkpoint()
            stored = cp["last_comment_id"] if cp else None
            if stored == raw["id"]:
                return False
            if stored is not None and raw["id"] < stored and not force:
                raise StateError(f"refusing to move the checkpoint backwards from {stored} to "
                                 f"{raw['id']} (pass --force to do it anyway)")
            self.store.write_checkpoint(self._checkpoint_doc(
                raw["id"], raw.get("created_at"), self._hint_for(result, raw["id"])))
        return True

    def _checkpoint_doc(self, comment_id: int, created_at: Optional[str],
                        hint: Optional[Dict[str, Any]]) -> Dict[str, Any]:
        doc = {"schema_version": SCHEMA_VERSION, "repository": self.repository,
               "issue": self.issue, "last_comment_id": comment_id,
               "last_comment_created_at": created_at, "saved_at": now_iso()}
        if hint:
            doc["poll_hint"] = hint
        return doc

    # -- get_latest_comments.py --confirm-updates ------------------------------------------------
    @staticmethod
    def _confirm_target(upd: Dict[str, Any], through: Optional[int]
                        ) -> Optional[Dict[str, Any]]:
        """What the confirm would write: the snapshot's recommendation, or --through ID."""
        if through is None:
            return upd.get("recommended_checkpoint")
        match = [c for c in upd["new_comments"] if c.get("id") == through]
        if not match:
            raise UsageError(f"--through {through} is not a comment of snapshot "
                             f"{upd['snapshot_id']}")
        return {"last_comment_id": through,
                "last_comment_created_at": match[0].get("created_at")}

    @staticmethod
    def _check_confirmable(upd: Dict[str, Any], snapshot_id: Optional[str],
                           stored: Optional[int]) -> None:
        """Refuse a snapshot that is not the one read, or that was read after another
        checkpoint than the stored one (compare-and-swap on last_comment_id)."""
        if snapshot_id is not None and upd.get("snapshot_id") != snapshot_id:
            raise StateError(f"the updates file now holds snapshot {upd.get('snapshot_id')}, "
                             f"not {snapshot_id}: a later check replaced the one you read. "
                             "Process that check's comments, then confirm its snapshot")
        snap_prev = (upd.get("previous_checkpoint") or {}).get("last_comment_id")
        if stored != snap_prev:
            def name(cid: Optional[int]) -> str:
                return f"checkpoint {cid}" if cid is not None else "no checkpoint"
            raise StateError(
                f"refusing to confirm snapshot {upd['snapshot_id']}: it was read with "
                f"{name(snap_prev)}, but there is now {name(stored)}. Run "
                "check_issue_updates.py again")

    def confirm(self, snapshot_id: Optional[str], through: Optional[int],
                force: bool) -> Dict[str, Any]:
        doc = self._base()
        with self.store.locked():
            upd = self.store.read_updates()
            if upd is None:
                raise StateError(f"no updates file at {self.store.paths.updates}: run "
                                 "check_issue_updates.py first, then confirm what it returned")
            cp = self.store.read_checkpoint()
            stored = cp["last_comment_id"] if cp else None
            previous = self._stored_cursor(cp)
            # Already applied comes first: a confirm that would change nothing succeeds (also a
            # retried --through whose comment is no longer in a newer snapshot).
            target = None if through is not None and through == stored else \
                self._confirm_target(upd, through)
            already = target is None or stored == target["last_comment_id"]
            written = False
            if not already:
                self._check_confirmable(upd, snapshot_id, stored)
                new_id = int(target["last_comment_id"])
                if stored is not None and new_id < stored and not force:
                    raise StateError(f"refusing to move the checkpoint backwards from {stored} "
                                     f"to {new_id} (pass --force to do it anyway)")
                hint = upd.get("poll_hint")  # kept only for its own comment: a partial
                if hint and hint.get("comment_id") != new_id:  # confirm drops it
                    hint = None
                self.store.write_checkpoint(self._checkpoint_doc(
                    new_id, target.get("last_comment_created_at"), hint))
                written = True
            after = self.store.read_checkpoint()
        doc.update({
            "selector": {"type": "confirm_updates", "snapshot_id": upd["snapshot_id"],
                         "through": through},
            "comments": [],
            "comment_count": 0,
            "previous_checkpoint": previous,
            "next_checkpoint": self._stored_cursor(after),
            "state_updated": written,
            "already_applied": already,
            "more_available": (bool(upd.get("more_available")) or any(
                c.get("id", 0) > (through or 0) for c in upd["new_comments"])
                if through is not None else bool(upd.get("more_available"))),
            "truncated": False,
            "checkpoint_file": self.store.paths.checkpoint,
            "requests": 0,
            "warnings": self.warnings,
        })
        return doc
