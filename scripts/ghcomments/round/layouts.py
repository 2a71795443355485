"""The kinds of news each round reads, registered here once (CONTRACT sections 5, 12 and 21).

An issue's round (`Monitor`) reads its conversation and, with `--include-events`, its events;
a pull request's round (`PullRequestRound`, `--pr N`) reads its reviews, each with its inline
comments, its conversation, and with `--include-events` its events and pushes (head). Each
kind is one module under streams/ (a `Stream` subclass: what it is, how its cursor compares,
what it shows); a layout only lists its kinds, in the order they are read, and where each
cursor stands in checkpoint files and documents (layout.py's `Part`). A new kind is its
module and one line here (and its flag at the face).
"""

from __future__ import annotations

from ..base.errors import StateError, UsageError
from ..store import edits
from ..streams.stream import checkpoint_of, with_edits
from .engine import Round
from .layout import Part, Spelling

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Optional

    from .reading import Cursors, Reading

# -- the registry: one line a kind, in the order a round reads them ----------------------------
ISSUE_PARTS = (
    Part("conversation", "ConversationStream", (), more_key="comments"),
    Part("events", "EventsStream", ("events",)),
)
PULL_REQUEST_PARTS = (
    Part("review_stream", "ReviewStream", ("reviews",)),
    Part("conversation", "ConversationStream", ("conversation",),
         zero_when_empty=True),  # a round's cursor starts at 0 on an empty list
    Part("events", "EventsStream", ("conversation", "events")),
    Part("head", "HeadStream", ("head",)),
    Part("checks", "ChecksStream", ("checks",)),
)


_SPELLINGS: Dict[bool, Spelling] = {}


def spelling_for(pull: bool) -> Spelling:
    """How a pull request's (`pull`) or an issue's checkpoint is spelled: for the state
    store's checks and the followed listing (store/following.py), no round needed."""
    if pull not in _SPELLINGS:
        _SPELLINGS[pull] = Spelling(PULL_REQUEST_PARTS if pull else ISSUE_PARTS)
    return _SPELLINGS[pull]


def require_flags(options: Any, pull: bool) -> None:
    """A kind's flag given to one round whose layout lacks that kind: exit 2 naming the
    layout that has it (in the inbox it applies to the rounds whose layout has the kind)."""
    mine = {kind.flag for _part, kind in spelling_for(pull).placement}
    given = {name for name, value in vars(options).items()  # the kinds' flags given
             if name.startswith("include_") and value is True} - {"include_edits",
                                                                   "include_system"}
    if not given - mine:
        return  # the other layout's kinds are not even loaded (a poll imports what it runs)
    for _part, kind in spelling_for(not pull).placement:
        if kind.flag is not None and kind.flag not in mine and getattr(options, kind.flag,
                                                                        False):
            flag = "--" + kind.flag.replace("_", "-")
            raise UsageError(f"{flag} needs {'--issue' if pull else '--pr'}")


class Monitor(Round):
    """An issue's round: its conversation comments (also a PR's, with --issue)."""

    label = "issue"
    parts = ISSUE_PARTS

    @property
    def issue(self) -> int:
        return self.number

    def next_public(self, previous: Cursors, reading: Reading) -> Any:
        """get_latest_comments.py's next checkpoint: the last comment read (the other parts
        as they were)."""
        raws = reading.batches[self.primary.kind].items
        if not raws:
            return self.public(previous)
        return self.public(dict(previous or {}, **{self.primary.kind: checkpoint_of(raws[-1])}))

    def confirm_target(self, upd: Dict[str, Any], through: Optional[int],
                       stored: Cursors) -> Cursors:
        """The snapshot's recommendation, or --through ID (a comment of that snapshot)."""
        kind = self.primary.kind
        conv = (stored or {}).get(kind) or {}
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
        record = edits.partial(edits.of(conv), edits.of(upd.get("recommended_checkpoint")),
                               passed)
        return {kind: with_edits(target, record)}


class PullRequestRound(Round):
    """A pull request's round: reviews with their inline comments, and the conversation."""

    label = "pull_request"
    parts = PULL_REQUEST_PARTS

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
