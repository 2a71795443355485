"""Normalisation: GitHub's JSON -> the contract's comment shapes; hidden-character handling.

Bodies stay GitHub's text unchanged (seed 000). What can hide text from a person while an agent
reads it is counted (`hidden_characters`) and, on request or in summaries, written as visible
`<U+XXXX>` escapes.
"""

from __future__ import annotations

import datetime as _dt
import re

from ..base.errors import ServerError
from ..base.urls import try_split

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Optional


# One time parser for every answer and state file (CONTRACT section 22): a time GitHub could
# write lies in 1970..9999 UTC; one outside (year 1 with an offset, 9999-12-31 at -05:00) is
# not a time, so no comparison or arithmetic on it can overflow later.
_EARLIEST = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def parse_time(value: Any) -> Optional[_dt.datetime]:
    """An ISO 8601 time with an offset (`2026-04-23T10:03:00Z`) as an aware datetime in
    1970..9999 UTC, else None."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        when = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        if when.tzinfo is None or when.utcoffset() is None:
            return None
        utc = when.astimezone(_dt.timezone.utc)
    except (ValueError, OverflowError):
        return None
    return when if utc >= _EARLIEST else None


def looks_like_time(value: Any) -> bool:
    """A string Python reads as a time, whether or not in range."""
    if not isinstance(value, str) or len(value) > 40:
        return False
    try:
        _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def in_range(value: str) -> bool:
    """A time Python reads (a naive one taken as UTC) lies in 1970..9999 UTC."""
    try:
        when = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        if when.tzinfo is None:
            when = when.replace(tzinfo=_dt.timezone.utc)
        return when.astimezone(_dt.timezone.utc) >= _EARLIEST
    except (ValueError, OverflowError):
        return False


# A value shaped as a whole ISO timestamp (any number of year digits, a sign): it is a time, and
# one Python cannot read (year 0000, 10000, month 13) is outside 1970..9999 all the same. Other
# text in a time field of a comment stays text, escaped where it is shown (section 17).
_TIME_SHAPED = re.compile(r"[+-]?[0-9]+-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}"
                          r"(:[0-9]{2}(\.[0-9]+)?)?)?(Z|[+-][0-9]{2}:?[0-9]{2})?")


def check_time(value: Any, what: str, field: str, required: bool = False) -> Optional[str]:
    """A string or null (`required`: a time, never null or other text); a time outside
    1970..9999 — year 0000 and 10000 among them — is a malformed answer (exit 6)."""
    check_text(value, what, field)
    readable = looks_like_time(value)
    if ((readable and not in_range(value))
            or (not readable and isinstance(value, str) and _TIME_SHAPED.fullmatch(value))):
        raise ServerError(f"{what}: malformed response: {field} {str(value)[:40]!r} is not a "
                          "time in 1970..9999")
    if required and not readable:
        raise ServerError(f"{what}: malformed response: {field} {str(value)[:40]!r} is not a "
                          "time")
    return value


def date_header(header: Any) -> Optional[_dt.datetime]:
    """An HTTP `Date` header (GitHub's clock) as an aware datetime, else None."""
    if not isinstance(header, str) or not header:
        return None
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(header)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return when if when is not None and when.tzinfo is not None else None


def number_at_end(url: Any, segment: str, what: str) -> Optional[int]:
    """The number after `/segment/` at the end of a URL (an issue_url's), else None; more
    than 20 digits is a malformed answer (exit 6), never Python's digit-limit crash."""
    m = re.search(rf"/{segment}/([0-9]+)\Z", url) if isinstance(url, str) else None
    if not m:
        return None
    if len(m.group(1)) > 20:
        raise ServerError(f"{what}: malformed response: a {segment} number of "
                          f"{len(m.group(1))} digits")
    return int(m.group(1))


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace(
        "+00:00", "Z")

# The hidden set: what can hide text from a person while an agent reads it (CONTRACT section 17),
# defined once from Unicode's own properties — docs/reference.md, "Hidden characters":
# - Default_Ignorable_Code_Point, all of it. Python's unicodedata has no such property: its
#   ranges are DerivedCoreProperties.txt's (Unicode 15.1), assigned and reserved alike (the
#   reserved tag block from U+E0080 on included), listed in DEFAULT_IGNORABLE.
# - General_Category Cf (format), as of Unicode 15.1 in FORMAT (unicodedata's version depends on
#   the Python: 3.9 has 13.0; a test checks every Cf the running Python knows is listed).
# - Cc (C0, DEL, C1) but tab and newline; a CR directly before a newline is part of a CRLF line
#   end (GitHub's web editor writes them), a lone CR can overwrite a terminal line.
# - Zl and Zp (U+2028, U+2029): line breaks for str.splitlines() and many terminals, so a body
#   holding one could start a forged line in a summary.
# - the variation selectors: VS17-256 and the Mongolian ones always (they are DICP); VS1-16
#   (U+FE00-FE0F, also DICP) only as a run of two or more, the carrier of "variation selector
#   smuggling" — a single VS-16 after an emoji is not hidden text.
# Soft hyphen, the Hangul fillers, interlinear annotation and musical formatting are in by
# these properties (the contract's list is a subset).
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
FORMAT = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD),
    (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)
CONTROLS = ((0x00, 0x08), (0x0B, 0x0C), (0x0E, 0x1F), (0x7F, 0x9F))  # CR: see HIDDEN_RE
LINE_SEPARATORS = ((0x2028, 0x2029),)
RUN_ONLY = (0xFE00, 0xFE0F)  # hidden as a run of two or more


def hidden_ranges() -> list:
    """The hidden set (but CR and VS1-16, which depend on their neighbours) as sorted, merged
    (first, last) code point ranges: the one definition both the Python path and the shell
    fallback's class (a test compares them) come from."""
    points = []
    for first, last in DEFAULT_IGNORABLE + FORMAT + CONTROLS + LINE_SEPARATORS:
        points.append((first, last))
    merged: list = []
    for first, last in sorted(points):
        pieces = [(first, last)]
        if first <= RUN_ONLY[1] and last >= RUN_ONLY[0]:  # cut VS1-16 out
            pieces = [(f, t) for f, t in ((first, RUN_ONLY[0] - 1), (RUN_ONLY[1] + 1, last))
                      if f <= t]
        for f, t in pieces:
            if merged and f <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], t))
            else:
                merged.append((f, t))
    return merged


def _class_of(ranges: list) -> str:
    return "".join(re.escape(chr(f)) if f == t else f"{re.escape(chr(f))}-{re.escape(chr(t))}"
                   for f, t in ranges)


_HIDDEN_CLASS = _class_of(hidden_ranges())
HIDDEN_RE = re.compile("\r(?!\n)|[\ufe00-\ufe0f]{2,}|[" + _HIDDEN_CLASS + "]")
# Fields that are not bodies (logins, times, paths, titles, URLs …) may not start a line
# either: newlines, tabs and CR too.
FIELD_RE = re.compile("[\ufe00-\ufe0f]{2,}|[\t\n\r" + _HIDDEN_CLASS + "]")


def _escape(match: re.Match[str]) -> str:
    return "".join(f"<U+{ord(ch):04X}>" for ch in match.group(0))


def count_hidden(text: Optional[str]) -> int:
    return sum(len(m.group(0)) for m in HIDDEN_RE.finditer(text)) if text else 0


def reveal(text: Optional[str]) -> Optional[str]:
    """Write every hidden character as a visible escape such as `<U+E0041>`."""
    if not text:
        return text
    return HIDDEN_RE.sub(_escape, text)


# Every line break str.splitlines() knows. After `reveal` only "\n" and "\r\n" are left in
# a body; a summary splits on all of them all the same, so no reader's split can start a line
# the summary did not indent.
LINE_BREAK_RE = re.compile("\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def body_lines(text: Optional[str]) -> list:
    """A body's lines for a summary: hidden characters revealed, split at every line break."""
    return LINE_BREAK_RE.split(reveal(text or "") or "")


def escape_field(value: Any) -> str:
    """Untrusted text outside a body, for a summary line or stderr: every newline, control,
    bidi, tag or other hidden character written as `<U+XXXX>`, so it can neither start a
    line nor rewrite a terminal. None is the empty string; other values their str()."""
    text = "" if value is None else value if isinstance(value, str) else str(value)
    return FIELD_RE.sub(_escape, text)


# --------------------------------------------------------------------------- types on the way in


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def check_id(value: Any, what: str, field: str = "id") -> int:
    """A GitHub id: a positive integer (not a bool, a float or a string), else exit 6."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise ServerError(f"{what}: malformed response: {field} is {_kind(value)}, not a "
                      "positive integer")


def check_optional_id(value: Any, what: str, field: str) -> Optional[int]:
    return None if value is None else check_id(value, what, field)


# No text field GitHub sends is near this long (a body is at most 65,536 characters): a longer
# one is a hostile answer, refused before it is copied into documents and files (each copy of
# a 60 MiB string is 60 MiB more resident; CONTRACT section 22).
MAX_TEXT_CHARS = 1024 * 1024


def check_text(value: Any, what: str, field: str) -> Optional[str]:
    """A string or null, else exit 6 (a time or login of another type never reaches a file);
    a string longer than MAX_TEXT_CHARS is exit 6 too."""
    if value is None:
        return value
    if isinstance(value, str):
        if len(value) > MAX_TEXT_CHARS:
            raise ServerError(f"{what}: malformed response: {field} is {len(value):,} "
                              f"characters, longer than any GitHub field ({MAX_TEXT_CHARS:,})")
        return value
    raise ServerError(f"{what}: malformed response: {field} is {_kind(value)}, not a string")


def check_number(value: Any, what: str, field: str) -> Optional[int]:
    """A whole number or null (line numbers), else exit 6."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ServerError(f"{what}: malformed response: {field} is {_kind(value)}, not a number")


def check_flag(value: Any, what: str, field: str) -> Optional[bool]:
    if value is None or isinstance(value, bool):
        return value
    raise ServerError(f"{what}: malformed response: {field} is {_kind(value)}, not a boolean")


def check_user(user: Any, what: str) -> None:
    if user is None:
        return
    if not isinstance(user, dict):
        raise ServerError(f"{what}: malformed response: user is {_kind(user)}, not an object")
    check_text(user.get("login"), what, "user.login")
    check_text(user.get("type"), what, "user.type")


def check_comment(raw: Any, what: str) -> Dict[str, Any]:
    """The fields of a REST comment or review that outputs and checkpoints rely on."""
    if not isinstance(raw, dict):
        raise ServerError(f"{what}: malformed response: an item is {_kind(raw)}, not an object")
    check_id(raw.get("id"), what)
    for name in ("node_id", "author_association", "html_url", "body", "state", "path",
                 "commit_id", "side", "subject_type"):
        check_text(raw.get(name), what, name)
    for name in ("html_url", "issue_url", "pull_request_url"):
        if isinstance(raw.get(name), str) and try_split(raw[name]) is None:
            raise ServerError(f"{what}: malformed response: {name} is not a URL a parser can "
                              "read (an unclosed IPv6 bracket or a bad port)")
    for name in ("created_at", "updated_at", "submitted_at"):
        check_time(raw.get(name), what, name)
    for name in ("issue_url", "pull_request_url"):
        number_at_end(raw.get(name), "issues" if name == "issue_url" else "pulls", what)
    for name in ("line", "start_line", "original_line", "original_start_line", "position"):
        check_number(raw.get(name), what, name)
    for name in ("pull_request_review_id", "in_reply_to_id"):
        check_optional_id(raw.get(name), what, name)
    check_user(raw.get("user"), what)
    return raw


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
    check_comment(raw, "issue comment")
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
    return number_at_end(url, "pulls", "pull request URL")


def author_of(raw: Dict[str, Any]) -> Dict[str, Any]:
    """The author fields of any item (what the author filters decide on)."""
    user = raw.get("user")
    return {"author": _login(user),
            "author_type": user.get("type") if isinstance(user, dict) else None,
            "author_association": raw.get("author_association")}


def review(raw: Dict[str, Any], comment_count: int, max_body_chars: Optional[int] = None,
           reveal_hidden: bool = False) -> Dict[str, Any]:
    """A REST pull-request review in the contract's shape (section 12)."""
    check_comment(raw, "pull-request review")
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
    check_comment(raw, "review comment")
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
