"""Readable summaries. Every body is shown with hidden characters escaped, and every other
field (logins, associations, times, paths, URLs, states …) through `escape_field`: no raw
control, bidi or tag character reaches the terminal, and nothing outside a body starts a line
(CONTRACT section 17)."""

from __future__ import annotations

from .normalize import body_lines, escape_field

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List


def _f(value: Any) -> str:
    """A field for a summary line; an absent one (null, as GitHub's older answers leave
    html_url, author_association, user.type … out) is "(none)", never a literal None."""
    if value is None:
        return "(none)"
    return escape_field(value if isinstance(value, str) else str(value))


def _url_line(item: Dict[str, Any]) -> str:
    url = item.get("url")
    return f"    {_f(url)}" if url else "    (no URL in GitHub's answer)"


def _association(item: Dict[str, Any]) -> str:
    value = item.get("author_association")
    return f"({_f(value)})" if value else "(association not given)"


def _comment_lines(c: Dict[str, Any]) -> List[str]:
    flags = []
    if c.get("edited"):
        flags.append("edited")
    if c.get("body_truncated"):
        flags.append(f"cut from {_f(c.get('body_chars'))} chars")
    if c.get("hidden_characters"):
        flags.append(f"{_f(c['hidden_characters'])} hidden chars shown as <U+…>")
    head = (f"--- comment {_f(c.get('id'))} by {_f(c.get('author') or 'unknown')}"
            f" {_association(c)} at {_f(c.get('created_at'))}")
    if flags:
        head += " [" + ", ".join(flags) + "]"
    lines = [head, _url_line(c)]
    lines += ["    " + line for line in body_lines(c.get("body"))]
    return lines


def _review_lines(r: Dict[str, Any]) -> List[str]:
    head = (f"--- review {_f(r.get('id'))} {_f(r.get('state'))} by "
            f"{_f(r.get('author') or 'unknown')} {_association(r)} "
            f"at {_f(r.get('submitted_at'))}, {_f(r.get('comment_count'))} inline comment(s)")
    lines = [head, _url_line(r)]
    if r.get("body"):
        lines += ["    " + line for line in body_lines(r.get("body"))]
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
    lines += _happened_lines(doc)
    lines += _ci_lines(doc)
    for w in doc.get("warnings") or []:
        lines.append(f"note: {_f(w)}")
    return "\n".join(lines) + "\n"


def _minutes(since: Any, now: Any) -> str:
    from .normalize import parse_time

    a, b = parse_time(since), parse_time(now)
    if a is None or b is None:
        return ""
    return f", {max(0, int((b - a).total_seconds() // 60))} min"


def _ci_lines(doc: Dict[str, Any]) -> List[str]:
    """--include-checks (section 23): one line on CI, then each check returned — every name
    and text escaped (strangers' text)."""
    s = doc.get("checks_summary")
    if not isinstance(s, dict):
        return []
    returned = [c for c in doc.get("checks") or [] if isinstance(c, dict)]
    failed = [_f(c.get("name")) for c in returned if c.get("verdict") == "failed"]
    parts = []
    for key, names in (("failed", failed), ("attention", [
            _f(c.get("name")) for c in returned if c.get("verdict") == "attention"])):
        if s.get(key):
            what = "need attention" if key == "attention" else key
            parts.append(f"{_f(s[key])} {what}" + (f" ({', '.join(names)})" if names else ""))
    parts.append(f"{_f(s.get('passed'))} passed")
    pending = [p for p in s.get("pending_names") or [] if isinstance(p, dict)]
    if s.get("pending"):
        shown = ", ".join(f"{_f(p.get('name'))}"
                          f"{_minutes(p.get('pending_since'), doc.get('retrieved_at'))}"
                          for p in pending)
        parts.append(f"{_f(s['pending'])} pending" + (f" ({shown})" if shown else ""))
    line = f"CI on {_f(str(s.get('head_sha'))[:7])}: " + (
        "no checks" if not s.get("total") else ", ".join(parts))
    m = doc.get("mergeable")
    if isinstance(m, dict):
        value = m.get("mergeable")
        line += "; " + ("mergeable" if value is True else "mergeability being computed"
                        if value is None else f"not mergeable ({_f(m.get('mergeable_state'))})")
    if s.get("partial"):
        line += f"; partial: {_f(', '.join(doc.get('checks_unavailable') or []))} unreadable"
    lines = [line]
    if s.get("previous_head"):
        lines.append(f"the head moved from {_f(str(s['previous_head'])[:7])}: CI starts over")
    for c in returned:
        lines.append(f"[{_f(c.get('kind'))} {_f(c.get('id'))}] {_f(c.get('name'))} "
                     f"{_f(c.get('verdict'))} ({_f(c.get('conclusion'))})"
                     + (f": {_f(c.get('title'))}" if c.get("title") else "")
                     + (f" {_f(c.get('url'))}" if c.get("url") else ""))
    settled = doc.get("checks_settled")
    if isinstance(settled, dict):
        lines.append(f"CI settled on {_f(str(settled.get('head_sha'))[:7])}: "
                     f"{_f(settled.get('state'))}")
    return lines


_EVENT_DETAIL = {
    "labeled": lambda e: f"label {_f((e.get('label') or {}).get('name'))}",
    "unlabeled": lambda e: f"label {_f((e.get('label') or {}).get('name'))}",
    "assigned": lambda e: f"assignee {_f(e.get('assignee'))}",
    "unassigned": lambda e: f"assignee {_f(e.get('assignee'))}",
    "milestoned": lambda e: f"milestone {_f((e.get('milestone') or {}).get('title'))}",
    "demilestoned": lambda e: f"milestone {_f((e.get('milestone') or {}).get('title'))}",
    "renamed": lambda e: (f"from {_f((e.get('rename') or {}).get('from'))} to "
                          f"{_f((e.get('rename') or {}).get('to'))}"),
    "review_requested": lambda e: f"reviewer {_reviewer(e)}",
    "review_request_removed": lambda e: f"reviewer {_reviewer(e)}",
    "review_dismissed": lambda e: (
        f"review {_f((e.get('dismissed_review') or {}).get('review_id'))}: "
        f"{_f((e.get('dismissed_review') or {}).get('dismissal_message'))}"),
    "locked": lambda e: f"reason {_f(e.get('lock_reason'))}",
}


def _reviewer(e: Dict[str, Any]) -> str:
    team = e.get("requested_team")
    if isinstance(team, dict):
        return f"team {_f(team.get('slug'))}"
    return _f(e.get("requested_reviewer"))


def _happened_lines(doc: Dict[str, Any]) -> List[str]:
    """--include-events (section 21): the state, each event, the push and the threads it
    outdated — every field escaped (titles, names, messages are strangers' text)."""
    if "events" not in doc:
        return []
    lines: List[str] = []
    state = doc.get("state")
    if isinstance(state, dict):
        flags = [k for k in ("merged", "draft", "locked") if state.get(k)]
        where = f", moved to {_f(state['moved_to'])}" if state.get("moved_to") else ""
        lines.append(f"state: {_f(state.get('state'))}"
                     + (f" ({', '.join(flags)})" if flags else "") + where)
    events = doc.get("events")
    if events is None:
        lines.append("events: not readable with this token")
    for e in events or []:
        if not isinstance(e, dict):
            continue
        detail = _EVENT_DETAIL.get(e.get("event"))  # type: ignore[arg-type]
        lines.append(f"[event {_f(e.get('id'))}] {_f(e.get('event'))} by {_f(e.get('actor'))} "
                     f"at {_f(e.get('created_at'))}" + (f" — {detail(e)}" if detail else ""))
    push = doc.get("pushes")
    if isinstance(push, dict):
        commits = push.get("commits") or []
        outdated = doc.get("outdated_threads")
        what = "force-pushed" if push.get("force_pushed") else "pushed"
        line = (f"{len(commits)} commit(s) {what}; head {_f(push.get('head_sha'))}")
        if isinstance(outdated, list):
            line += f"; {len(outdated)} thread(s) now outdated"
        lines.append(line)
        for c in commits:
            if isinstance(c, dict):
                lines.append(f"  {_f(str(c.get('sha'))[:12])} {_f(c.get('author'))}: "
                             f"{_f(c.get('message'))}")
        for t in outdated or []:
            if isinstance(t, dict):
                lines.append(f"  outdated: {_f(t.get('path'))} (was line "
                             f"{_f(t.get('original_line'))}) {_f(t.get('url'))}")
    return lines


def followed_summary(doc: Dict[str, Any]) -> str:
    """`get_latest_comments.py --followed` as text: one line per round."""
    lines = [f"{_f(doc.get('followed'))} round(s) followed on {_f(doc.get('api_host'))} in "
             f"{_f(doc.get('folder'))}"]
    for r in doc.get("rounds") or []:
        lines.append(f"{_f(r.get('key'))}  checkpoint {_cursor(r.get('checkpoint'))}  "
                     f"saved {_f(r.get('saved_at'))}")
    for e in doc.get("errors") or []:
        lines.append(f"{_f(e.get('key'))}  error: {_f((e.get('error') or {}).get('message'))}")
    for s in doc.get("skipped") or []:
        lines.append(f"{_f(s.get('key'))}  skipped: API host {_f(s.get('api_host'))}")
    lines += [f"note: {_f(w)}" for w in doc.get("warnings") or []]
    return "\n".join(lines) + "\n"


def unfollow_summary(doc: Dict[str, Any]) -> str:
    """`get_latest_comments.py --unfollow` as text: what was removed."""
    lines = [f"unfollowed {_f(doc.get('unfollowed'))} (checkpoint was "
             f"{_cursor(doc.get('checkpoint'))}); inbox entries marked: "
             f"{_f(doc.get('inbox_snapshots_marked'))}"]
    lines += [f"removed {_f(p)}" for p in doc.get("removed") or []]
    lines += [f"note: {_f(w)}" for w in doc.get("warnings") or []]
    return "\n".join(lines) + "\n"


def _key_list(items: Any) -> str:
    """Keys (strings, or objects with a `key`) as one escaped, comma-separated line."""
    keys = [i.get("key") if isinstance(i, dict) else i for i in items or []]
    return ", ".join(_f(k) for k in keys)


def inbox_summary(doc: Dict[str, Any]) -> str:
    """check_issue_updates.py --follow/--followed as text: every conversation that returned
    something as section 5's summary shows one round, then what the others were."""
    conversations = doc.get("conversations") or []
    lines = [f"inbox: {len(conversations)} conversation(s) of {_f(doc.get('followed'))} "
             f"followed (retrieved {_f(doc.get('retrieved_at'))}, "
             f"{_f(doc.get('requests'))} request(s))"]
    if "waited_seconds" in doc:
        lines.append(f"waited {_f(doc.get('waited_seconds'))} s, {_f(doc.get('polls'))} "
                     "poll(s)" + (" — interrupted" if doc.get("interrupted") else ""))
    if doc.get("snapshot_id"):  # the one to confirm: the rounds' own are "round snapshot"
        lines.append(f"snapshot: {_f(doc['snapshot_id'])}")
    error = doc.get("error")
    if isinstance(error, dict):
        lines.append(f"error ({_f(error.get('code'))}): {_f(error.get('message'))}")
    for title, field in (("quiet", "quiet"), ("more in (held back by --max-total: check again)",
                                              "more_in"), ("unfollowed", "unfollowed")):
        if doc.get(field):
            lines.append(f"{title}: {_key_list(doc[field])}")
    for e in doc.get("errors") or []:
        err = e.get("error") if isinstance(e, dict) else None
        err = err if isinstance(err, dict) else {}
        lines.append(f"error in {_f(e.get('key') if isinstance(e, dict) else e)} "
                     f"({_f(err.get('code'))}): {_f(err.get('message'))}")
    for s in doc.get("skipped") or []:
        where = f" (API host {_f(s.get('api_host'))})" if isinstance(s, dict) and \
            s.get("api_host") else ""
        lines.append(f"skipped {_f(s.get('key') if isinstance(s, dict) else s)}{where}")
    for w in doc.get("warnings") or []:
        lines.append(f"note: {_f(w)}")
    for conv in conversations:
        lines.append("")
        lines.append(f"=== {_f(conv.get('key'))} ===")
        lines += ["round " + line if line.startswith("snapshot: ") else line
                  for line in monitor_summary(conv).rstrip("\n").split("\n")]
    return "\n".join(lines) + "\n"
