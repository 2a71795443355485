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


def _review_lines(r: Dict[str, Any]) -> List[str]:
    head = (f"--- review {r.get('id')} {r.get('state')} by {r.get('author') or 'unknown'}"
            f" ({r.get('author_association') or '?'}) at {r.get('submitted_at')}"
            f", {r.get('comment_count')} inline comment(s)")
    lines = [head, f"    {r.get('url')}"]
    body = reveal(r.get("body") or "") or ""
    lines += ["    " + line for line in body.replace("\r\n", "\n").split("\n") if body]
    return lines


def _inline_lines(c: Dict[str, Any], threads: Dict[Any, Dict[str, Any]]) -> List[str]:
    where = f"{c.get('path')}" + (f":{c.get('line')}" if c.get("line") is not None else "")
    if c.get("outdated"):
        where += " (outdated)"
    lines = _comment_lines(c)
    thread = f"thread {c.get('thread_root_id')}"
    state = threads.get(c.get("thread_id"))
    if state is not None:  # the round's thread state (CONTRACT section 15)
        thread += f" {state.get('id')}, " + ("resolved" if state.get("is_resolved")
                                             else "unresolved")
    lines[0] = lines[0].replace("--- comment", "--- inline comment", 1) + \
        f" on {reveal(where)} (review {c.get('review_id')}, {thread})"
    return lines


def _cursor(cp: Any) -> str:
    if not cp:
        return "none"
    if "conversation" in cp or "reviews" in cp:
        conv = (cp.get("conversation") or {}).get("last_comment_id")
        rev = (cp.get("reviews") or {}).get("last_review_id")
        return f"conversation {conv}, reviews {rev}"
    return str(cp.get("last_comment_id"))


def monitor_summary(doc: Dict[str, Any]) -> str:
    """check_issue_updates.py / get_latest_comments.py output as text (issue or PR round)."""
    comments = doc.get("new_comments", doc.get("comments", [])) or []
    reviews = doc.get("new_reviews", doc.get("reviews", [])) or []
    inline = doc.get("new_review_comments", doc.get("review_comments", [])) or []
    number = doc.get("issue", doc.get("pull_request"))
    counts = f"{len(comments)} comment(s)"
    if "pull_request" in doc:
        counts += f", {len(reviews)} review(s), {len(inline)} inline comment(s)"
    lines = [f"{doc.get('repository')}#{number} — {counts} (retrieved {doc.get('retrieved_at')})"]
    lines.append(f"checkpoint: {_cursor(doc.get('previous_checkpoint'))}")
    rec = doc.get("recommended_checkpoint", doc.get("next_checkpoint"))
    if rec:
        lines.append(f"next checkpoint: {_cursor(rec)}")
    if doc.get("more_available"):
        lines.append("more comments are available after these")
    if doc.get("truncated"):
        lines.append("the scan was cut short by --max-pages")
    if doc.get("snapshot_id"):
        lines.append(f"snapshot: {doc['snapshot_id']}")
    for c in comments:
        lines += _comment_lines(c)
    for r in reviews:
        lines += _review_lines(r)
    threads = {t.get("id"): t for t in doc.get("threads") or [] if isinstance(t, dict)}
    for c in inline:
        lines += _inline_lines(c, threads)
    for w in doc.get("warnings") or []:
        lines.append(f"note: {w}")
    return "\n".join(lines) + "\n"
