"""Readable summaries. Every body is shown with hidden characters escaped: no raw control,
bidi or tag character reaches the terminal."""

from __future__ import annotations

from typing import Any, Dict, List

from .normalize import reveal


def _comment_lines(c: Dict[str, Any]) -> List[str]:
    flags = []
    if c.get("edited"):
        flags.append("edited")
    if c.get("body_truncated"):
        flags.append(f"cut from {c.get('body_chars')} chars")
    if c.get("hidden_characters"):
        flags.append(f"{c['hidden_characters']} hidden chars shown as <U+…>")
    head = (f"--- comment {c.get('id')} by {c.get('author') or 'unknown'}"
            f" ({c.get('author_association') or '?'}) at {c.get('created_at')}")
    if flags:
        head += " [" + ", ".join(flags) + "]"
    lines = [head, f"    {c.get('url')}"]
    body = reveal(c.get("body") or "") or ""
    lines += ["    " + line for line in body.replace("\r\n", "\n").split("\n")]
    return lines


def monitor_summary(doc: Dict[str, Any]) -> str:
    """check_issue_updates.py / get_latest_comments.py output as text."""
    comments = doc.get("new_comments", doc.get("comments", [])) or []
    lines = [f"{doc.get('repository')}#{doc.get('issue')} — {len(comments)} comment(s)"
             f" (retrieved {doc.get('retrieved_at')})"]
    prev = doc.get("previous_checkpoint")
    lines.append(f"checkpoint: {prev.get('last_comment_id') if prev else 'none'}")
    rec = doc.get("recommended_checkpoint", doc.get("next_checkpoint"))
    if rec:
        lines.append(f"next checkpoint: {rec.get('last_comment_id')}")
    if doc.get("more_available"):
        lines.append("more comments are available after these")
    if doc.get("truncated"):
        lines.append("the scan was cut short by --max-pages")
    if doc.get("snapshot_id"):
        lines.append(f"snapshot: {doc['snapshot_id']}")
    for c in comments:
        lines += _comment_lines(c)
    for w in doc.get("warnings") or []:
        lines.append(f"note: {w}")
    return "\n".join(lines) + "\n"
