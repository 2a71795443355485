"""The two layouts of a round (engine.py): which streams it reads and how their cursors and
counts are spelled in files and documents. An issue's round (`Monitor`) reads its conversation;
a pull request's round (`PullRequestRound`, `--pr N`) reads its reviews, each with its inline
comments, and its conversation (CONTRACT sections 5 and 12)."""

from __future__ import annotations

from ..base.errors import StateError, UsageError
from ..store import edits, records
from ..streams.conversation import ConversationStream
from ..streams.events import EventsStream
from ..streams.stream import Stream, checkpoint_of, cursor_part, with_edits
from . import happenings
from .engine import Round
from .reading import Cursors, Reading

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Optional, Tuple


def _name(cid: Optional[int]) -> str:
    return f"checkpoint {cid}" if cid is not None else "no checkpoint"


def _with_events(conv: Optional[Dict[str, Any]], events: Any) -> Optional[Dict[str, Any]]:
    """A conversation cursor as files and documents spell it: with its event cursor
    (section 21) when the round has one."""
    if conv is None:
        return None
    out = dict(conv)
    out.pop("events", None)
    if events is not None:
        out["events"] = events
    return out


def _checked(value: Any, name: str, check: Any, where: str) -> Any:
    if value is not None and not check(value):
        raise StateError(f"{where} holds a checkpoint of an unexpected shape ({name}); left "
                         "as it is")
    return value


class Monitor(Round):
    """An issue's round: its conversation comments (also a PR's, with --issue)."""

    label = "issue"

    @property
    def issue(self) -> int:
        return self.number

    def streams_for(self) -> Dict[str, Stream]:
        return {"conversation": ConversationStream(*self.stream_args(), **self.filters()),
                "events": EventsStream(*self.stream_args())}

    def cursors_of(self, cp: Optional[Dict[str, Any]]) -> Cursors:
        return {"conversation": cursor_part(cp), "events": cp.get("events")} if cp else None

    def public(self, cursors: Cursors) -> Any:
        return _with_events((cursors or {}).get("conversation"), (cursors or {}).get("events"))

    def from_public(self, value: Any) -> Cursors:
        if value is None:
            return None
        where = f"updates file {self.store.paths.updates}"
        if not records.conversation_cursor(value):
            raise StateError(f"{where} holds a checkpoint of an unexpected shape; left as it is")
        return {"conversation": cursor_part(value),
                "events": _checked(value.get("events"), "events", records.events_cursor, where)}

    def checkpoint_fields(self, cursors: Dict[str, Any]) -> Dict[str, Any]:
        conv = cursor_part(cursors["conversation"]) or {}
        out = {"last_comment_id": conv.get("last_comment_id"),
               "last_comment_created_at": conv.get("last_comment_created_at")}
        if conv.get("edits") is not None:
            out["edits"] = conv["edits"]
        if cursors.get("events") is not None:
            out["events"] = cursors["events"]
        return out

    def describe(self, cursors: Cursors) -> str:
        return _name(((cursors or {}).get("conversation") or {}).get("last_comment_id"))

    def public_filtered(self, filtered: Dict[str, Dict[str, int]]) -> Dict[str, Any]:
        out: Dict[str, Any] = dict(filtered.get("conversation") or {})
        if filtered.get("events"):  # section 21
            out["events"] = dict(filtered["events"])
        if filtered.get("edited_conversation"):  # left-out edits (section 19)
            out["edited_conversation"] = dict(filtered["edited_conversation"])
        if filtered.get("edited_no_change"):  # an updated_at bump, not an edit (turn 5)
            out["edited_no_change"] = filtered["edited_no_change"]["count"]
        return out

    def writable(self, target: Dict[str, Any]) -> bool:
        return target.get("conversation") is not None

    def extra_fields(self, reading: Reading, previous: Cursors) -> Dict[str, Any]:
        if not happenings.active(self):
            return {}
        return {"more_available_by_kind": {  # section 21: an issue round's two kinds
            "comments": reading.batches["conversation"].more_available,
            "events": reading.batches["events"].more_available}}

    def next_public(self, previous: Cursors, reading: Reading) -> Any:
        raws = reading.batches["conversation"].items
        return (_with_events(checkpoint_of(raws[-1]), (previous or {}).get("events"))
                if raws else self.public(previous))

    def confirm_target(self, upd: Dict[str, Any], through: Optional[int],
                       stored: Cursors) -> Cursors:
        """The snapshot's recommendation, or --through ID (a comment of that snapshot)."""
        conv = (stored or {}).get("conversation") or {}
        if through is None:
            return self.from_public(upd.get("recommended_checkpoint"))
        if through == conv.get("last_comment_id"):
            return None  # already there
        match = [c for c in upd["new_comments"] if isinstance(c, dict) and c.get("id") == through]
        if not match:
            raise UsageError(f"--through {through} is not a comment of snapshot "
                             f"{upd['snapshot_id']}")
        target = {"last_comment_id": through,
                  "last_comment_created_at": match[0].get("created_at")}
        passed = [c["id"] for c in upd["new_comments"] if isinstance(c, dict)
                  and isinstance(c.get("id"), int) and c["id"] <= through]
        record = edits.partial(conv.get("edits"), ((upd.get("recommended_checkpoint") or {})
                                                   .get("edits")), passed)
        return {"conversation": with_edits(target, record)}


SYSTEM_NOTE = ("REST has no thread resolution state: run get_pr_comments.py for which review "
               "threads are resolved")
KINDS = ("conversation", "reviews")


class PullRequestRound(Round):
    """A pull request's round: reviews with their inline comments, and the conversation."""

    label = "pull_request"
    shown_keys = ("new_comments", "new_reviews", "new_review_comments")
    edit_keys = ("edited_comments", "edited_review_comments")

    def streams_for(self) -> Dict[str, Stream]:
        from ..streams.review_stream import ReviewStream  # an issue's round never loads it

        conversation = ConversationStream(*self.stream_args(), **self.filters())
        conversation.zero_when_empty = True  # a round's cursor starts at 0 on an empty one
        from ..streams.head import HeadStream

        return {"reviews": ReviewStream(*self.stream_args(), **self.filters()),
                "conversation": conversation,
                "events": EventsStream(*self.stream_args()),
                "head": HeadStream(*self.stream_args())}

    def cursors_of(self, cp: Optional[Dict[str, Any]]) -> Cursors:
        if not cp:
            return None
        conv = cp.get("conversation")
        return {"conversation": cursor_part(conv), "reviews": cp.get("reviews"),
                "events": conv.get("events") if isinstance(conv, dict) else None,
                "head": cp.get("head")}

    def public(self, cursors: Cursors) -> Any:
        if cursors is None:
            return None
        out = {k: cursors.get(k) for k in KINDS}
        out["conversation"] = _with_events(out["conversation"], cursors.get("events"))
        if cursors.get("head") is not None:
            out["head"] = cursors["head"]
        return out

    def from_public(self, value: Any) -> Cursors:
        if value is None:
            return None
        conv = value.get("conversation") if isinstance(value, dict) else None
        rev = value.get("reviews") if isinstance(value, dict) else None
        where = f"updates file {self.store.paths.updates}"
        if (not isinstance(value, dict)
                or (conv is not None and not records.conversation_cursor(conv))
                or (rev is not None and not records.review_cursor(rev))):
            raise StateError(f"{where} holds a checkpoint of an unexpected shape; left as it is")
        _checked((conv or {}).get("events"), "events", records.events_cursor, where)
        _checked(value.get("head"), "head", records.head_cursor, where)
        return self.cursors_of(value)

    def checkpoint_fields(self, cursors: Dict[str, Any]) -> Dict[str, Any]:
        out = {"conversation": _with_events(cursor_part(cursors.get("conversation")),
                                            cursors.get("events")),
               "reviews": cursors.get("reviews")}
        if cursors.get("head") is not None:
            out["head"] = cursors["head"]
        return out

    def describe(self, cursors: Cursors) -> str:
        if not cursors:
            return "no checkpoint"
        conv = (cursors.get("conversation") or {}).get("last_comment_id")
        rev = (cursors.get("reviews") or {}).get("last_review_id")
        return f"checkpoint (conversation {conv}, reviews {rev})"

    def public_filtered(self, filtered: Dict[str, Dict[str, int]]) -> Dict[str, Any]:
        out: Dict[str, Any] = {k: dict(v) for k, v in filtered.items()
                               if v and k != "edited_no_change"}
        if filtered.get("edited_no_change"):  # an updated_at bump, not an edit (turn 5)
            out["edited_no_change"] = filtered["edited_no_change"]["count"]
        return out

    def public_older(self, reading: Reading) -> Any:
        return {k: reading.batches[k].older_not_returned for k in KINDS}

    def extra_fields(self, reading: Reading, previous: Cursors) -> Dict[str, Any]:
        out = {"more_available_by_kind": {k: reading.batches[k].more_available
                                          for k in KINDS},
               "threads": self.threads_of(reading)}
        if happenings.active(self):  # section 21
            out["more_available_by_kind"]["events"] = reading.batches["events"].more_available
            read = self._outdated
            out["outdated_threads"] = (read[1] if read is not None and read[0] is reading
                                       else [])
        return out

    # -- thread state (CONTRACT section 15): read only for a round that returns inline comments
    _thread_read: Optional[Tuple[Reading, Optional[List[Dict[str, Any]]]]] = None

    _outdated: Optional[Tuple[Reading, Optional[List[Dict[str, Any]]]]] = None

    def on_items(self, reading: Reading) -> None:
        if happenings.pushed_commits(reading):  # section 21: only when commits were pushed
            self._outdated = (reading, happenings.outdated(self))
        comments = ((reading.shown.get("new_review_comments") or [])
                    + (reading.shown.get("edited_review_comments") or []))
        if comments:
            from ..streams.threads import attach  # loaded (with pr.py) only by such a round

            self._thread_read = (reading, attach(self.client, self.owner, self.repo,
                                                 self.number, comments, self.warnings))

    def threads_of(self, reading: Reading) -> Optional[List[Dict[str, Any]]]:
        """The round's `threads`: [] when it returns no inline comment, null when GraphQL
        could not be read."""
        read = self._thread_read
        return read[1] if read is not None and read[0] is reading else []

    def notes(self, by_id: Optional[Dict[str, List[Dict[str, Any]]]] = None) -> None:
        """SYSTEM_NOTE only where inline comments are returned without thread state: the
        thread query failed, or (a read by id) was not sent (CONTRACT amendments, turn 6)."""
        if by_id is not None:
            bare = bool(by_id.get("new_review_comments"))
        else:
            read = self._thread_read
            bare = read is not None and read[1] is None
        if bare and SYSTEM_NOTE not in self.warnings:
            self.warnings.append(SYSTEM_NOTE)

    def fetch_fields(self, reading: Optional[Reading]) -> Dict[str, Any]:
        """A round read (not a read by id: those carry no thread data) returns `threads`."""
        return {"threads": [] if reading is None else self.threads_of(reading)}

    def no_cursor_message(self) -> str:
        return ("--wait with --pr needs a stored checkpoint: run check_issue_updates.py --pr N, "
                "confirm it, then wait (--after-comment-id does not go with --pr)")

    def confirm_target(self, upd: Dict[str, Any], through: Optional[int],
                       stored: Cursors) -> Cursors:
        target = upd.get("recommended_checkpoint")
        if not isinstance(target, dict):
            raise StateError(f"updates file {self.store.paths.updates} holds no "
                             "recommended checkpoint; left as it is")
        return self.from_public(target)
