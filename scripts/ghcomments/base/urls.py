"""One safe URL split (CONTRACT section 22): urlsplit raises ValueError on an unclosed IPv6
bracket (`http://[::1/x`) or a bad port; a URL from an answer, a Link header or the user is
data, so every split goes through here and a bad one is the caller's error, never exit 1."""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit

from .errors import BundleError, ServerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Optional, Type


def try_split(url: str, port: bool = True) -> Optional[SplitResult]:
    """urlsplit (its port read too, unless `port` is false); None when it would raise."""
    try:
        parts = urlsplit(url)
        if port:
            parts.port  # noqa: B018  (raises ValueError on a bad port)
        return parts
    except (ValueError, TypeError):
        return None


def split_url(url: str, what: str = "URL", error: Type[BundleError] = ServerError,
              port: bool = True) -> SplitResult:
    """urlsplit, or `error` (exit 6 for an answer's URL) naming `what`."""
    parts = try_split(url, port)
    if parts is None:
        raise error(f"malformed {what}: not a URL a parser can read (an unclosed IPv6 "
                    "bracket or a bad port)")
    return parts
