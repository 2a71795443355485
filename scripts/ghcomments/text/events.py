"""Normalisation of what happened (CONTRACT section 21): GitHub's issue events and a push's
commits -> the contract's shapes.

Titles, label and milestone names, team names, dismissal messages and commit messages are
strangers' text outside a body: each is escaped as section 17 escapes such fields (every
newline, control, bidi or other hidden character written as `<U+XXXX>`, U+2028 and U+2029
included), cut at --max-body-chars, and counted in `hidden_characters` / `text_truncated`.
"""

from __future__ import annotations

from .normalize import (
    FIELD_RE,
    check_id,
    check_text,
    check_time,
    check_user,
    escape_field,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Optional

# The kinds a round returns; every other kind (subscribed, mentioned, referenced, pinned, ...)
# is counted in filtered_out as `other_kind`, never returned.
RETURNED = frozenset((
    "closed", "reopened", "merged", "locked", "unlocked", "renamed", "transferred",
    "converted_to_discussion", "marked_as_duplicate", "unmarked_as_duplicate", "labeled",
    "unlabeled", "assigned", "unassigned", "milestoned", "demilestoned", "review_requested",
    "review_request_removed", "review_dismissed", "ready_for_review", "convert_to_draft",
    "head_ref_force_pushed", "head_ref_deleted", "head_ref_restored", "base_ref_changed"))

# The end of a conversation: returned and waking a wait whoever did it (only --ignore-author
# suppresses them).
ENDINGS = frozenset(("closed", "merged", "reopened", "transferred", "converted_to_discussion"))

MESSAGE_CHARS = 200  # a commit message: its first line, cut to this many code points


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _obj(raw: Dict[str, Any], name: str, what: str) -> Dict[str, Any]:
    value = raw.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        from ..base.errors import ServerError

        raise ServerError(f"{what}: malformed response: {name} is {_kind(value)}, not an "
                          "object")
    return value


def _login(user: Any) -> Optional[str]:
    return user.get("login") if isinstance(user, dict) else None


def check_event(raw: Any, what: str) -> Dict[str, Any]:
    """The fields of a REST issue event that outputs and cursors rely on, else exit 6."""
    if not isinstance(raw, dict):
        from ..base.errors import ServerError

        raise ServerError(f"{what}: malformed response: an event is {_kind(raw)}, not an "
                          "object")
    check_id(raw.get("id"), what)
    if not isinstance(raw.get("event"), str):
        from ..base.errors import ServerError

        raise ServerError(f"{what}: malformed response: event is {_kind(raw.get('event'))}, "
                          "not a string")
    check_text(raw.get("event"), what, "event")
    check_time(raw.get("created_at"), what, "created_at", required=True)  # cursors compare it
    check_text(raw.get("commit_id"), what, "commit_id")
    check_text(raw.get("lock_reason"), what, "lock_reason")
    for name in ("actor", "assignee", "requested_reviewer", "review_requester"):
        check_user(raw.get(name), what)
    for name, fields in (("label", ("name",)), ("milestone", ("title",)),
                         ("rename", ("from", "to")), ("requested_team", ("name", "slug")),
                         ("dismissed_review", ("state", "dismissal_message",
                                               "dismissal_commit_id"))):
        obj = _obj(raw, name, what)
        for field in fields:
            check_text(obj.get(field), what, f"{name}.{field}")
    review = _obj(raw, "dismissed_review", what)
    if review.get("review_id") is not None:
        check_id(review.get("review_id"), what, "dismissed_review.review_id")
    return raw


def actor_of(raw: Dict[str, Any]) -> Dict[str, Any]:
    """The author fields of an event (the actor): what the author filters decide on. Events
    carry no association (--trusted-only does not apply to them)."""
    actor = raw.get("actor")
    return {"author": _login(actor),
            "author_type": actor.get("type") if isinstance(actor, dict) else None,
            "author_association": None}


class _Texts:
    """The strangers' text of one item: escaped, cut, counted."""

    def __init__(self, max_chars: Optional[int]) -> None:
        self.max_chars = max_chars
        self.hidden = 0
        self.truncated = False

    def __call__(self, value: Any) -> Optional[str]:
        if value is None:
            return None
        text = value if isinstance(value, str) else str(value)
        self.hidden += sum(len(m.group(0)) for m in FIELD_RE.finditer(text))
        if self.max_chars is not None and len(text) > self.max_chars:
            text, self.truncated = text[:self.max_chars], True
        return escape_field(text)


def issue_event(raw: Dict[str, Any], max_chars: Optional[int] = None) -> Dict[str, Any]:
    """A REST issue event in the contract's shape (section 21): `{id, event, actor,
    actor_type, created_at, commit_id}` plus the kind's own fields in GitHub's nesting."""
    check_event(raw, "issue event")
    text = _Texts(max_chars)
    actor = raw.get("actor")
    out: Dict[str, Any] = {
        "id": raw["id"], "event": raw["event"], "actor": _login(actor),
        "actor_type": actor.get("type") if isinstance(actor, dict) else None,
        "created_at": raw.get("created_at"), "commit_id": raw.get("commit_id")}
    kind = raw["event"]
    if kind in ("labeled", "unlabeled"):
        out["label"] = {"name": text(_obj(raw, "label", "").get("name"))}
    elif kind in ("assigned", "unassigned"):
        out["assignee"] = _login(raw.get("assignee"))
    elif kind in ("milestoned", "demilestoned"):
        out["milestone"] = {"title": text(_obj(raw, "milestone", "").get("title"))}
    elif kind == "renamed":
        rename = _obj(raw, "rename", "")
        out["rename"] = {"from": text(rename.get("from")), "to": text(rename.get("to"))}
    elif kind in ("review_requested", "review_request_removed"):
        team = _obj(raw, "requested_team", "")
        if team:
            out["requested_team"] = {"slug": text(team.get("slug")),
                                     "name": text(team.get("name"))}
        else:
            out["requested_reviewer"] = _login(raw.get("requested_reviewer"))
    elif kind == "review_dismissed":
        review = _obj(raw, "dismissed_review", "")
        out["dismissed_review"] = {"review_id": review.get("review_id"),
                                   "state": review.get("state"),
                                   "dismissal_message": text(review.get("dismissal_message"))}
    elif kind == "locked":
        out["lock_reason"] = text(raw.get("lock_reason"))
    if text.hidden or text.truncated or kind in TEXT_KINDS:
        out["hidden_characters"] = text.hidden
        out["text_truncated"] = text.truncated
    return out


# The kinds that carry strangers' text: their events always say hidden_characters and
# text_truncated.
TEXT_KINDS = frozenset(("labeled", "unlabeled", "milestoned", "demilestoned", "renamed",
                        "review_requested", "review_request_removed", "review_dismissed",
                        "locked"))


def check_commit(raw: Any, what: str) -> Dict[str, Any]:
    if not isinstance(raw, dict):
        from ..base.errors import ServerError

        raise ServerError(f"{what}: malformed response: a commit is {_kind(raw)}, not an "
                          "object")
    sha = raw.get("sha")
    if not isinstance(sha, str) or not sha:
        from ..base.errors import ServerError

        raise ServerError(f"{what}: malformed response: sha is {_kind(sha)}, not a string")
    check_text(sha, what, "sha")
    check_user(raw.get("author"), what)
    commit = _obj(raw, "commit", what)
    check_text(commit.get("message"), what, "commit.message")
    for who in ("committer", "author"):
        check_time(_obj(commit, who, what).get("date"), what, f"commit.{who}.date")
    return raw


def push_commit(raw: Dict[str, Any]) -> Dict[str, Any]:
    """One commit of a push: `{sha, author, author_type, committed_at, message}` (the
    message's first line, cut to 200 code points, escaped)."""
    check_commit(raw, "commit")
    commit = _obj(raw, "commit", "commit")
    author = raw.get("author")
    message = commit.get("message") or ""
    first = message.split("\n", 1)[0].rstrip("\r")[:MESSAGE_CHARS]
    return {"sha": raw["sha"], "author": _login(author),
            "author_type": author.get("type") if isinstance(author, dict) else None,
            "committed_at": (_obj(commit, "committer", "commit").get("date")
                             or _obj(commit, "author", "commit").get("date")),
            "message": escape_field(first)}


def commit_author(raw: Dict[str, Any]) -> Dict[str, Any]:
    """The author fields the filters decide on for a pushed commit."""
    author = raw.get("author")
    return {"author": _login(author),
            "author_type": author.get("type") if isinstance(author, dict) else None,
            "author_association": None}
