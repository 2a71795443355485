"""The REST/GraphQL client: retries, rate limits, redirects, Link pages, request counting.

Above the transport and below every command. It never builds a page URL it was not given,
except the positioned windows (`window`) on the canonical comments URL that the monitor's
algorithms need for random access (CONTRACT section 11, "Page URLs").
"""

from __future__ import annotations

import json
import re
import time
from urllib.parse import urlencode, urljoin

from ..base.errors import (
    BundleError,
    MovedError,
    NetworkError,
    RateLimitedError,
    ServerError,
    UsageError,
    error_from_response,
    rate_limit_wait,
)
from ..base.urls import split_url
from ..text import tokens
from ..text.normalize import escape_field
from .config import plain_url
from .decode import json_of, maybe_json
from .transport import STANDARD_HEADERS, Response, TransportError, origin_of
from .writes import Writes

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, List, Optional, Tuple

MAX_ATTEMPTS = 3
# where a moved repository or issue is read from now on: a path GitHub writes (turn 6)
RELOCATION = re.compile(r"(?:repositories/[0-9]{1,20}|repos/[A-Za-z0-9-]{1,39}/"
                        r"(?!\.\.?/|\.\.?$)[A-Za-z0-9._-]{1,100})(?:/issues/[0-9]{1,20})?")
RETRY_STATUSES = (502, 503, 504)
BACKOFF = (0.5, 1.0)


def parse_links(header: Optional[str]) -> Dict[str, str]:
    """rel -> URL from a `Link` header, with requests' own parser."""
    if not header:
        return {}
    try:
        links = parse_header_links(header)
    except (ValueError, IndexError, AttributeError):
        raise ServerError(f"malformed Link header: {escape_field(header[:120])}")
    out = {link["rel"]: link["url"] for link in links if "rel" in link and "url" in link}
    for url in out.values():
        # an unclosed IPv6 bracket is exit 6 (section 22); a bad port is refused on follow
        split_url(url, "Link header", port=False)
    return out


def parse_header_links(value: str) -> List[Dict[str, str]]:
    """requests.utils.parse_header_links, step for step, without importing requests: pages
    are followed with --transport gh on a Python that has none (CONTRACT section 16)."""
    links: List[Dict[str, str]] = []
    strip = " '\""
    value = value.strip(strip)
    if not value:
        return links
    for val in re.split(", *<", value):
        try:
            url, params = val.split(";", 1)
        except ValueError:
            url, params = val, ""
        link = {"url": url.strip("<> '\"")}
        for param in params.split(";"):
            try:
                key, val2 = param.split("=")
            except ValueError:
                break
            link[key.strip(strip)] = val2.strip(strip)
        links.append(link)
    return links


class GitHubClient(Writes):
    def __init__(self, api_url: str, transport: Any, *, max_wait: float = 10.0,
                 sleep: Callable[[float], None] = time.sleep,
                 warn: Optional[Callable[[str], None]] = None) -> None:
        self.api_url = api_url.rstrip("/")
        self.transport = transport
        base = transport.api_base() if hasattr(transport, "api_base") else self.api_url
        self.base = base.rstrip("/")
        self.origin = origin_of(self.base)
        self.max_wait = max_wait
        self.sleep = sleep
        self.warnings: List[str] = []
        self._warn = warn
        self.requests = 0
        self.waited = 0.0
        self.rate: Dict[str, str] = {}
        self.first_date: Optional[str] = None  # `Date` of a read's first answer (section 19)
        # --include-events (section 21): no read of a round follows a redirect (a transferred
        # issue's 301 is reported as `moved_to`)
        self.follow_redirects = True
        # a moved repository or issue (turn 6): a round's own path (`scopes`, set by each
        # round) that GitHub redirected, and where to: later reads go straight there
        self.scopes: List[str] = []
        self.relocations: Dict[str, str] = {}

    # -- helpers ---------------------------------------------------------------------------
    def warn(self, message: str) -> None:
        self.warnings.append(message)
        if self._warn:
            self._warn(message)

    def url(self, path: str, params: Optional[Dict[str, Any]] = None) -> str:
        if "://" not in path and self.relocations and self.follow_redirects:
            path = self.relocated(path)
        url = path if "://" in path else f"{self.base}/{path.lstrip('/')}"
        if params:
            url += ("&" if "?" in url else "?") + urlencode(params)
        return url

    def relocated(self, path: str) -> str:
        """`path` under the longest relocated scope it lies in, moved to its new place."""
        bare = path.lstrip("/")
        low = bare.lower()
        for scope in sorted(self.relocations, key=len, reverse=True):
            if low == scope or low.startswith(scope + "/") or low.startswith(scope + "?"):
                return self.relocations[scope] + bare[len(scope):]
        return path

    def _learn(self, asked: str, answered: str) -> None:
        """A redirect followed from `asked` to `answered` (both on the API's origin): when
        `asked` lies under a round's scope and `answered` ends with the same rest of the path,
        the scope's new place is recorded."""
        prefix = self.base + "/"
        if not (asked.startswith(prefix) and answered.startswith(prefix)):
            return
        old = split_url(asked).path[len(split_url(prefix).path):]
        new = split_url(answered).path[len(split_url(prefix).path):]
        for scope in sorted(self.scopes, key=len, reverse=True):
            if old.lower() == scope or old.lower().startswith(scope + "/"):
                rest = old[len(scope):]
                if rest and not new.endswith(rest):
                    return
                target = new[:len(new) - len(rest)] if rest else new
                if RELOCATION.fullmatch(target):
                    self.relocations[scope] = target
                return

    def _check_origin(self, url: str, what: str) -> None:
        # origin_of is None for a URL that does not parse (a bad port or host): refused too.
        # One parse (config.plain_url) decides the origin here and the connection below: a
        # URL parsers could read differently (a backslash, userinfo, spaces) is refused.
        if origin_of(url) != self.origin or self.origin is None:
            scheme, _, rest = url.partition("://")
            authority = re.split(r"[/?#]", rest, maxsplit=1)[0].rpartition("@")[2]
            shown = escape_field(f"{scheme}://{authority}"[:120])
            odd = ("" if plain_url(url) else "; a URL holding a backslash, userinfo, "
                   "whitespace or control characters is never followed")
            raise ServerError(f"{what}: refusing to follow a URL to another origin "
                              f"({shown}) than the API ({self.base}){odd}")

    # -- one request -----------------------------------------------------------------------
    def request(self, method: str, path: str, *, params: Optional[Dict[str, Any]] = None,
                json_body: Any = None, etag: Optional[str] = None,
                what: Optional[str] = None, retry: Optional[bool] = None) -> Response:
        """Send with retries (reads only), rate-limit waits and same-origin redirects.

        `retry` defaults to true for GET/HEAD; a write (POST/PATCH) is never sent twice.
        """
        url = self.url(path, params)
        what = what or f"{method} {split_url(url).path}"
        self._check_origin(url, what)
        headers = dict(STANDARD_HEADERS)
        if etag:
            headers["If-None-Match"] = etag
        body = None
        if json_body is not None:
            text = json.dumps(json_body, ensure_ascii=False, allow_nan=False)
            writes = not (method in ("GET", "HEAD") if retry is None else retry)
            if writes and tokens.contains_token(text):  # a token goes in a header, not a body
                raise UsageError(f"{what}: the text to send contains the token in use; "
                                 "nothing was sent")
            body = text.encode("utf-8")
            headers["Content-Type"] = "application/json; charset=utf-8"
        idempotent = method in ("GET", "HEAD") if retry is None else retry
        asked = url
        attempt = 0
        rate_waited = False
        redirects = 0
        while True:
            attempt += 1
            try:
                resp = self.transport.send(method, url, headers, body, token_origin=self.origin)
            except TransportError as exc:
                if exc.sent:
                    self.requests += 1
                if exc.kind in ("too_large", "redirect"):  # the same again, or refused
                    raise ServerError(f"{what}: {exc}")
                if idempotent and attempt < MAX_ATTEMPTS:
                    self._backoff(attempt, f"{what}: {exc}")
                    continue
                raise self._network_error(idempotent, what, exc, attempt)
            self.requests += 1
            self._note_rate(resp)
            if resp.status in (301, 302, 307, 308) and method == "GET" and redirects < 3:
                location = resp.headers.get("location")
                if location and not self.follow_redirects:
                    raise self._moved(what, url, location, resp.status)
                if location:
                    try:
                        url = urljoin(url, location)
                    except ValueError:
                        raise ServerError(f"{what}: malformed redirect Location")
                    self._check_origin(url, f"{what} (redirect)")
                    redirects += 1
                    attempt -= 1
                    continue
            if 200 <= resp.status < 300 or resp.status == 304:
                if resp.redirected and not self.follow_redirects:  # gh followed it itself
                    raise self._moved(what, url, resp.url, 301)
                if (redirects or resp.redirected) and self.scopes:
                    self._learn(asked, resp.url if resp.redirected else url)
                return resp
            data = self._maybe_json(resp)
            wait = rate_limit_wait(resp.status, resp.headers, data)
            if (wait is not None and idempotent and not rate_waited
                    and wait <= self.max_wait - self.waited):
                self.warn(f"{what}: rate limited (HTTP {resp.status}); waiting {wait} s once")
                self.waited += wait
                self.sleep(wait)
                rate_waited = True
                attempt -= 1
                continue
            if resp.status in RETRY_STATUSES and idempotent and attempt < MAX_ATTEMPTS:
                self._backoff(attempt, f"{what}: HTTP {resp.status}")
                continue
            err = error_from_response(resp.status, resp.headers, data, what)
            if isinstance(err, RateLimitedError) and wait is not None and wait > self.max_wait:
                err.message += f"; longer than --max-wait {self.max_wait:g} s"
            if resp.status in RETRY_STATUSES and attempt > 1:
                err.message += f" after {attempt} attempts"
            raise err

    def _moved(self, what: str, url: str, location: str, status: int) -> BundleError:
        """A redirect not followed (section 21): where the answer says the item went."""
        try:
            target = urljoin(url, location)
        except ValueError:
            return ServerError(f"{what}: malformed redirect Location")
        self._check_origin(target, f"{what} (redirect)")
        if len(target) > 2000:  # no GitHub URL is this long; it would be stored in state
            return ServerError(f"{what}: malformed redirect Location ({len(target):,} "
                               "characters)")
        return MovedError(f"{what}: moved (HTTP {status}) to {target}", target, status=status)

    def _backoff(self, attempt: int, reason: str) -> None:
        delay = BACKOFF[min(attempt - 1, len(BACKOFF) - 1)]
        delay = max(0.0, min(delay, self.max_wait - self.waited))
        self.warn(f"{reason}; retrying (attempt {attempt + 1} of {MAX_ATTEMPTS}) "
                  f"after {delay:g} s")
        self.waited += delay
        if delay:
            self.sleep(delay)

    def _network_error(self, idempotent: bool, what: str, exc: TransportError,
                       attempts: int) -> BundleError:
        message = f"{what}: {exc}"
        if not idempotent and exc.sent:  # a write; a read by POST (GraphQL) writes nothing
            message += (" — the request may have reached GitHub, so the comment may or may "
                        "not have been written")
        elif attempts > 1:
            message += f" (after {attempts} attempts)"
        err = NetworkError(message)
        err.kind = exc.kind
        return err

    def _note_rate(self, resp: Response) -> None:
        for key in ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-used",
                    "x-ratelimit-reset", "x-ratelimit-resource", "x-poll-interval", "date"):
            if key in resp.headers:
                self.rate[key] = resp.headers[key]
        if self.first_date is None and "date" in resp.headers:
            self.first_date = resp.headers["date"]

    # -- JSON (decode.py): strict, bounded, REST items' types checked on the way in ----------
    json_of = staticmethod(json_of)
    _maybe_json = staticmethod(maybe_json)

    def get_json(self, path: str, params: Optional[Dict[str, Any]] = None,
                 what: Optional[str] = None) -> Tuple[Any, Response]:
        resp = self.request("GET", path, params=params, what=what)
        return self.json_of(resp, what or path), resp

    def links(self, resp: Response) -> Dict[str, str]:
        return parse_links(resp.headers.get("link"))

    def paginate(self, path: str, params: Optional[Dict[str, Any]] = None, *,
                 max_pages: int = 100, what: Optional[str] = None
                 ) -> Tuple[List[Any], int, bool]:
        """All items of a list endpoint, following `rel="next"` as given (same origin only).

        Returns (items, pages read, truncated by max_pages).
        """
        url: Optional[str] = self.url(path, params)
        items: List[Any] = []
        pages = 0
        while url:
            if pages >= max_pages:
                return items, pages, True
            resp = self.request("GET", url, what=what)
            data = self.json_of(resp, what or path)
            if not isinstance(data, list):
                raise ServerError(f"{what or path}: expected a JSON array, got "
                                  f"{type(data).__name__}")
            items.extend(data)
            pages += 1
            url = self.links(resp).get("next")
            if url:
                self._check_origin(url, f"{what or path} (next page)")
        return items, pages, False

    def graphql(self, graphql_url: str, query: str, variables: Dict[str, Any],
                what: str = "GraphQL") -> Tuple[Any, List[dict]]:
        """POST a query (a read, so retried like a GET); returns (data, errors)."""
        resp = self.request("POST", graphql_url, json_body={"query": query,
                                                            "variables": variables},
                            what=what, retry=True)
        doc = self.json_of(resp, what)
        if not isinstance(doc, dict):
            raise ServerError(f"{what}: malformed GraphQL response")
        errors = doc.get("errors") or []
        if not isinstance(errors, list):
            raise ServerError(f"{what}: malformed GraphQL response: errors is "
                              f"{type(errors).__name__}, not a list")
        return doc.get("data"), errors
