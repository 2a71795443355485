"""Typed errors and the contract's exit codes (CONTRACT section 10).

Every failure the bundle reports is one of these; `cli.run` turns it into the error JSON on
stdout, one line on stderr and the exit code. An error carries facts only: escaping server text
and scrubbing tokens happen at the output edge (cli.emit_error, output.encode_json), so this
module imports neither the normaliser nor the token rules.
"""

from __future__ import annotations

import json
import math
import re
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Mapping, Optional


class BundleError(Exception):
    """Base of every reported error: a code, an exit status, a message."""

    code = "internal"
    exit_code = 1

    def __init__(self, message: str, *, status: Optional[int] = None,
                 retry_after_seconds: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after_seconds = retry_after_seconds

    def to_json(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, "status": self.status,
                          "retry_after_seconds": self.retry_after_seconds}}


class UsageError(BundleError):
    code, exit_code = "usage", 2


class DependencyError(BundleError):
    """`requests` is missing where a request needs it (CONTRACT section 16)."""

    code, exit_code = "dependency", 2


def requests_missing(executable: str) -> str:
    """What to tell a user whose Python has no `requests`: the three ways to get it."""
    return (f"the Python package requests is not installed for {executable}: install it "
            f"with `{executable} -m pip install requests` (or `pip install -r "
            "requirements.txt`), or the distribution's python3-requests (`apt install "
            "python3-requests`), or run the script with `uv run` in place of `python3` (uv "
            "installs requests from the script's PEP 723 block)")


class AuthError(BundleError):
    code, exit_code = "auth", 3


class NotFoundError(BundleError):
    code, exit_code = "not_found", 4


class RateLimitedError(BundleError):
    code, exit_code = "rate_limited", 5


class NetworkError(BundleError):
    """No answer: `kind` is the transport's word for why ("connect": DNS, refused, TLS, reset;
    "timeout"; "incomplete"), which tells a host that cannot be reached from one slow read."""

    code, exit_code = "network", 6
    kind: Optional[str] = None


class ServerError(BundleError):
    code, exit_code = "server", 6


class MovedError(ServerError):
    """A read answered with a redirect while the round follows none (`--include-events`,
    CONTRACT section 21: a transferred issue answers 301): `location` is where it went."""

    def __init__(self, message: str, location: str, *, status: Optional[int] = None) -> None:
        super().__init__(message, status=status)
        self.location = location


class StateError(BundleError):
    code, exit_code = "state", 7


# GitHub's advice when a secondary limit gives no header: wait at least a minute.
SECONDARY_LIMIT_DEFAULT_WAIT = 60


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    return headers.get(name.lower())


def _message_of(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    return ""


# The longest wait ever reported: a header asking for more (or for infinity) is a limit all the
# same, reported with this bound rather than a number no caller can sleep (CONTRACT section 17).
MAX_REPORTED_WAIT = 86400


def seconds_of(text: Optional[str]) -> Optional[float]:
    """A finite, non-negative number of seconds in ASCII digits, else None (`inf`, `1e400`,
    `nan`, `-5` and the like are not)."""
    if text is None or not re.fullmatch(r"[0-9]{1,20}(\.[0-9]{1,9})?", text.strip()):
        return None
    return float(text.strip())


def server_now(headers: Mapping[str, str], now: Optional[float] = None) -> float:
    """GitHub's clock: the response's `Date` header, else this machine's clock. A reset time
    is GitHub's epoch, so a wait measured against a skewed local clock would be wrong."""
    date = _header(headers, "date")
    if date:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(date)
            if when.tzinfo is not None:
                return when.timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            pass
    return time.time() if now is None else now


def bounded_wait(seconds: float) -> int:
    return int(min(MAX_REPORTED_WAIT, max(0, math.ceil(seconds))))


def rate_limit_wait(status: int, headers: Mapping[str, str], body: Any,
                    now: Optional[float] = None) -> Optional[int]:
    """Seconds to wait when the response is a rate limit, else None.

    A primary limit is a 403/429 with `x-ratelimit-remaining: 0`; a secondary limit is a 403/429
    with `retry-after` or GitHub's "secondary rate limit" message; any 429 is a limit. The wait
    is `retry-after`, else `x-ratelimit-reset` minus the response's `Date`; a header that is
    not a number of seconds counts as absent.
    """
    if status not in (403, 429):
        return None
    message = _message_of(body).lower()
    retry_after = _header(headers, "retry-after")
    remaining = _header(headers, "x-ratelimit-remaining")
    is_limit = (status == 429 or retry_after is not None or remaining == "0"
                or "rate limit" in message)
    if not is_limit:
        return None
    after = seconds_of(retry_after)
    if after is not None:
        return bounded_wait(after)
    reset = seconds_of(_header(headers, "x-ratelimit-reset"))
    if remaining == "0" and reset is not None:
        return bounded_wait(reset - server_now(headers, now))
    return SECONDARY_LIMIT_DEFAULT_WAIT


# Markup in an error page that is not JSON (a proxy's or nginx's 5xx page, GitHub's "unicorn"):
# scripts and styles whole (an unclosed one to the end), comments, then every tag (a cut one too).
_MARKUP = re.compile(r"<(script|style)\b.*?(?:</\1\s*>|$)|<!--.*?(?:-->|$)|<[^>]*(?:>|$)",
                     re.IGNORECASE | re.DOTALL)
EXCERPT_CHARS = 200


def plain_excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A short plain-text excerpt of an error body that is not JSON: an HTML page's tags,
    scripts and styles left out, its entities read, whitespace folded, at most `limit`
    characters (then "..."). Escaping happens at the output edge, as for any server text."""
    if re.search(r"<[A-Za-z!/]", text):
        import html  # only for a page of markup: no import on any other path (section 20)

        text = html.unescape(_MARKUP.sub(" ", text))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rstrip() + "..."


def error_from_response(status: int, headers: Mapping[str, str], body: Any,
                        what: str) -> BundleError:
    """Build the typed error for a non-success response; `what` names the request."""
    message = _message_of(body)
    if not message and isinstance(body, str) and body.strip():
        # not JSON (an HTML page, whatever its content-type says): its words, plainly
        excerpt = plain_excerpt(body)
        message = f"(not JSON; the page says: {excerpt})" if excerpt else "(not JSON)"
    # Server text, as facts: the output edge (cli.emit_error) escapes and scrubs it.
    message = " ".join(str(message).split())[:300]
    detail = f"{what}: HTTP {status}" + (f" {message}" if message else "")
    wait = rate_limit_wait(status, headers, body)
    if wait is not None:
        return RateLimitedError(f"{detail} (rate limited; retry after {wait} s)", status=status,
                                retry_after_seconds=wait)
    if status in (401, 403):
        return AuthError(detail, status=status)
    if status in (404, 410, 451):  # 451: a repository blocked for legal reasons (a DMCA
        return NotFoundError(detail, status=status)  # notice): unavailable, as a gone one
    if status == 422 or 400 <= status < 500:
        return UsageError(detail, status=status)
    return ServerError(detail, status=status)


def validation_reasons(body: Any) -> str:
    """GitHub's reasons in a 422's `errors`: strings ("Can not approve your own pull request")
    or objects ({"resource", "field", "code", "message"}); both kinds are kept, in order."""
    items = body.get("errors") if isinstance(body, dict) else None
    if not isinstance(items, list):
        return ""
    out = []
    for item in items[:10]:
        if isinstance(item, str):
            text = item
        elif isinstance(item, dict):
            text = item.get("message") if isinstance(item.get("message"), str) else ""
            where = ".".join(str(item[k]) for k in ("resource", "field") if item.get(k))
            code = item.get("code") if isinstance(item.get("code"), str) else ""
            if not text:
                text = " ".join(p for p in (where, code.replace("_", " ")) if p)
            elif where:
                text = f"{where}: {text}"
        else:
            continue
        text = " ".join(str(text).split())[:300]
        if text:
            out.append(text)
    return "; ".join(out)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


MAX_DIGITS = 20  # an id or count of more than 20 digits is not GitHub's (CONTRACT section 22)


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:  # before int(): Python refuses 4,300 digits
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


def _finite_bounded(text: str) -> float:
    if len(text) > 400:
        raise ValueError(f"a number of {len(text)} characters")
    return _finite(text)


def strict_loads(data: Any) -> Any:
    """json.loads that refuses NaN, Infinity, numbers too large for a float (1e400) and whole
    numbers of more than 20 digits (section 22: data, never Python's digit-limit crash)."""
    return json.loads(data, parse_constant=_no_constant, parse_float=_finite_bounded,
                      parse_int=_whole)
