"""Normalisation: GitHub's JSON -> the contract's comment shapes; hidden-character handling.

Bodies stay GitHub's text unchanged (seed 000). What can hide text from a person while an agent
reads it is counted (`hidden_characters`) and, on request or in summaries, written as visible
`<U+XXXX>` escapes.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Dict, Optional


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace(
        "+00:00", "Z")

# C0 controls but tab and newline (a CR directly before a newline is part of a CRLF line end,
# which GitHub's web editor writes; a lone CR can overwrite a terminal line and counts), DEL,
# C1, bidi controls, zero-width and other invisible format characters, Unicode tags.
HIDDEN_RE = re.compile(
    "\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, isolates
    "\u200b-\u200d\u2060-\u2064\ufeff\u180e"        # zero-width and invisible operators
    "\U000e0000-\U000e007f]"                         # Unicode tag characters
)


def count_hidden(text: Optional[str]) -> int:
    return len(HIDDEN_RE.findall(text)) if text else 0


def reveal(text: Optional[str]) -> Optional[str]:
    """Write every hidden character as a visible escape such as `<U+E0041>`."""
    if not text:
        return text
    return HIDDEN_RE.sub(lambda m: f"<U+{ord(m.group(0)):04X}>", text)


def cut_body(body: Optional[str], max_chars: Optional[int],
             reveal_hidden: bool) -> Dict[str, Any]:
    """The body fields of a comment: body, body_truncated, body_chars, hidden_characters."""
    full = body if isinstance(body, str) else None
    chars = len(full) if full is not None else None
    shown = full
    truncated = False
    if full is not None and max_chars is not None and len(full) > max_chars:
        shown = full[:max_chars]
        truncated = True
    if reveal_hidden:
        shown = reveal(shown)
    return {"body": shown, "body_truncated": truncated, "body_chars": chars,
            "hidden_characters": count_hidden(full)}


def _login(user: Any) -> Optional[str]:
    return user.get("login") if isinstance(user, dict) else None


def issue_comment(raw: Dict[str, Any], max_body_chars: Optional[int] = None,
                  reveal_hidden: bool = False) -> Dict[str, Any]:
    """A REST issue comment in the contract's shape (section 4)."""
    user = raw.get("user")
    created, updated = raw.get("created_at"), raw.get("updated_at")
    out = {
        "id": raw.get("id"),
        "node_id": raw.get("node_id"),
        "author": _login(user),
        "author_type": user.get("type") if isinstance(user, dict) else None,
        "author_association": raw.get("author_association"),
        "created_at": created,
        "updated_at": updated,
        "edited": (created is not None and updated is not None and created != updated),
        "url": raw.get("html_url"),
    }
    out.update(cut_body(raw.get("body"), max_body_chars, reveal_hidden))
    return out


def brief(comment: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The short form used for `latest_comment`."""
    if not comment:
        return None
    return {"id": comment.get("id"), "author": comment.get("author"),
            "created_at": comment.get("created_at"), "url": comment.get("url")}


TRUSTED_ASSOCIATIONS = ("OWNER", "MEMBER", "COLLABORATOR")


def is_trusted(association: Optional[str]) -> bool:
    return (association or "").upper() in TRUSTED_ASSOCIATIONS


def pull_number(url: Any) -> Optional[int]:
    """The PR number at the end of a `pull_request_url`."""
    m = re.search(r"/pulls/(\d+)$", str(url or ""))
    return int(m.group(1)) if m else None


def author_of(raw: Dict[str, Any]) -> Dict[str, Any]:
    """The author fields of any item (what the author filters decide on)."""
    user = raw.get("user")
    return {"author": _login(user),
            "author_type": user.get("type") if isinstance(user, dict) else None,
            "author_association": raw.get("author_association")}


def review(raw: Dict[str, Any], comment_count: int, max_body_chars: Optional[int] = None,
           reveal_hidden: bool = False) -> Dict[str, Any]:
    """A REST pull-request review in the contract's shape (section 12)."""
    out = {"id": raw.get("id"), "node_id": raw.get("node_id"), "state": raw.get("state"),
           "submitted_at": raw.get("submitted_at"), "commit_id": raw.get("commit_id"),
           "url": raw.get("html_url")}
    out.update(author_of(raw))
    out.update(cut_body(raw.get("body"), max_body_chars, reveal_hidden))
    out["comment_count"] = comment_count
    return out


def review_comment(raw: Dict[str, Any], max_body_chars: Optional[int] = None,
                   reveal_hidden: bool = False) -> Dict[str, Any]:
    """A REST review (inline) comment in the contract's shape (section 12). REST has no
    `outdated`: a line comment whose `line` is gone (null) is outdated."""
    subject = raw.get("subject_type")
    if subject is None:  # older answers lack it: a file comment has no line at all
        subject = "file" if raw.get("line") is None and raw.get("original_line") is None \
            else "line"
    reply_to = raw.get("in_reply_to_id")
    created, updated = raw.get("created_at"), raw.get("updated_at")
    out = {"id": raw.get("id"), "node_id": raw.get("node_id"),
           "review_id": raw.get("pull_request_review_id"), "in_reply_to_id": reply_to,
           "thread_root_id": reply_to if reply_to is not None else raw.get("id"),
           "path": raw.get("path"), "subject_type": subject, "line": raw.get("line"),
           "start_line": raw.get("start_line"), "side": raw.get("side"),
           "original_line": raw.get("original_line"), "commit_id": raw.get("commit_id"),
           "outdated": subject == "line" and raw.get("line") is None}
    out.update(author_of(raw))
    out.update({"created_at": created, "updated_at": updated,
                "edited": (created is not None and updated is not None and created != updated),
                "url": raw.get("html_url")})
    out.update(cut_body(raw.get("body"), max_body_chars, reveal_hidden))
    return out
