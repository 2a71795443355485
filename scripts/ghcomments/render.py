"""Readable summaries. Every body is shown with hidden characters escaped, and every other
field (logins, associations, times, paths, URLs, states …) through `escape_field`: no raw
control, bidi or tag character reaches the terminal, and nothing outside a body starts a line
(CONTRACT section 17)."""

from __future__ import annotations

from typing import Any, Dict, List

from .normalize import escape_field, reveal


def _f(value: Any) -> str:
    """A field for a summary line (None is written "None", as before)."""
    return escape_field(value if isinstance(value, str) else str(value))


def _comment_lines(c: Dict[str, Any]) -> List[str]:
    flags = []
    if c.get("edited"):
        flags.append("edited")
    if c.get("body_truncated"):
        flags.append(f"cut from {_f(c.get('body_chars'))} chars")
    if c.get("hidden_characters"):
        flags.append(f"{_f(c['hidden_characters'])} hidden chars shown as <U+…>")
    head = (f"--- comment {_f(c.get('id'))} by {_f(c.get('author') or 'unknown')}"
            f" ({_f(c.get('author_association') or '?')}) at {_f(c.get('created_at'))}")
    if flags:
        head += " [" + ", ".join(flags) + "]"
    lines = [head, f"    {_f(c.get('url'))}"]
    body = reveal(c.get("body") or "") or ""
    lines += ["    " + line for line in body.replace("\r\n", "\n").split("\n")]
    return lines


def _review_lines(r: Dict[str, Any]) -> List[str]:
    head = (f"--- review {_f(r.get('id'))} {_f(r.get('state'))} by "
            f"{_f(r.get('author') or 'unknown')} ({_f(r.get('author_association') or '?')}) "
            f"at {_f(r.get('submitted_at'))}, {_f(r.get('comment_count'))} inline comment(s)")
    lines = [head, f"    {_f(r.get('url'))}"]
    body = reveal(r.get("body") or "") or ""
    lines += ["    " + line for line in body.replace("\r\n", "\n").split("\n") if body]
    return lines


def _inline_lines(c: Dict[str, Any], threads: Dict[Any, Dict[str, Any]]) -> List[str]:
    where = f"{c.get('path')}" + (f":{c.get('line')}" if c.get("line") is not None else "")
    if c.get("outdated"):
        where += " (outdated)"
    lines = _comment_lines(c)
    thread = f"thread {_f(c.get('thread_root_id'))}"
    state = threads.get(c.get("thread_id"))
    if state is not None:  # the round's thread state (CONTRACT section 15)
        thread += f" {_f(state.get('id'))}, " + ("resolved" if state.get("is_resolved")
                                                 else "unresolved")
    lines[0] = lines[0].replace("--- comment", "--- inline comment", 1) + \
        f" on {_f(where)} (review {_f(c.get('review_id'))}, {thread})"
    return lines


def _cursor(cp: Any) -> str:
    if not cp:
        return "none"
    if "conversation" in cp or "reviews" in cp:
        conv = (cp.get("conversation") or {}).get("last_comment_id")
        rev = (cp.get("reviews") or {}).get("last_review_id")
        return f"conversation {_f(conv)}, reviews {_f(rev)}"
    return _f(cp.get("last_comment_id"))


def monitor_summary(doc: Dict[str, Any]) -> str:
    """check_issue_updates.py / get_latest_comments.py output as text (issue or PR round)."""
    comments = doc.get("new_comments", doc.get("comments", [])) or []
    reviews = doc.get("new_reviews", doc.get("reviews", [])) or []
    inline = doc.get("new_review_comments", doc.get("review_comments", [])) or []
    number = doc.get("issue", doc.get("pull_request"))
    counts = f"{len(comments)} comment(s)"
    if "pull_request" in doc:
        counts += f", {len(reviews)} review(s), {len(inline)} inline comment(s)"
    lines = [f"{_f(doc.get('repository'))}#{_f(number)} — {counts} "
             f"(retrieved {_f(doc.get('retrieved_at'))})"]
    lines.append(f"checkpoint: {_cursor(doc.get('previous_checkpoint'))}")
    rec = doc.get("recommended_checkpoint", doc.get("next_checkpoint"))
    if rec:
        lines.append(f"next checkpoint: {_cursor(rec)}")
    if doc.get("more_available"):
        lines.append("more comments are available after these")
    if doc.get("truncated"):
        lines.append("the scan was cut short by --max-pages")
    if doc.get("snapshot_id"):
        lines.append(f"snapshot: {_f(doc['snapshot_id'])}")
    for c in comments:
        lines += _comment_lines(c)
    for r in reviews:
        lines += _review_lines(r)
    threads = {t.get("id"): t for t in doc.get("threads") or [] if isinstance(t, dict)}
    for c in inline:
        lines += _inline_lines(c, threads)
    edited = doc.get("edited_comments") or []
    edited_inline = doc.get("edited_review_comments") or []
    if edited or edited_inline:  # --include-edits: handled before, edited since
        lines.append(f"edited since handled: {len(edited)} comment(s)"
                     + (f", {len(edited_inline)} inline comment(s)" if "pull_request" in doc
                        else ""))
    for c in edited:
        lines += _comment_lines(c)
    for c in edited_inline:
        lines += _inline_lines(c, threads)
    for w in doc.get("warnings") or []:
        lines.append(f"note: {_f(w)}")
    return "\n".join(lines) + "\n"
