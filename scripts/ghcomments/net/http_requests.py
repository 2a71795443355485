"""The requests transport: a `requests.Session` (imported on first use) with explicit timeouts,
no redirects followed, the token only on the API's origin, every body read under the size cap
and the whole-request deadline. A poll's conditional GET goes first through the stdlib 304
path (`plain_http`)."""

from __future__ import annotations

import sys

from ..base.errors import DependencyError, requests_missing
from .decode import decoded
from .plain_http import send_stdlib
from .transport import (
    READ_CHUNK,
    STANDARD_HEADERS,
    Response,
    TransportError,
    bounded_response_class,
    ca_bundle,
    origin_of,
    read_capped,
    short,
    token_fingerprint,
    within_deadline,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, Mapping, Optional


def _urllib3_origin(url: str) -> Optional[str]:
    """The origin urllib3 (under requests) would connect to: checked against the token's
    origin before the header is attached, so no parser differential can carry it elsewhere."""
    try:
        from urllib3.util import parse_url

        parts = parse_url(url)
    except Exception:  # any parse failure: no origin, no token
        return None
    scheme = (parts.scheme or "").lower()
    port = parts.port or {"http": 80, "https": 443}.get(scheme)
    if not parts.host or parts.auth:
        return None
    return f"{scheme}://{parts.host.lower()}:{port}"


def import_requests() -> Any:
    """The requests module, or the `dependency` error naming the ways to install it."""
    try:
        import requests
    except ImportError:
        raise DependencyError(requests_missing(sys.executable))
    return requests


class RequestsTransport:
    name = "requests"

    def __init__(self, token: Optional[str], timeout: float,
                 fallback: Optional[Callable[[], Any]] = None) -> None:
        self._token = token
        self.timeout = timeout
        self.authenticated = bool(token)
        self._fingerprint: Any = False  # not computed yet (see `fingerprint`)
        self._session: Any = None
        self._fallback = fallback  # --transport auto: a gh transport when requests is missing
        self._delegate: Any = None

    @property
    def fingerprint(self) -> Optional[str]:
        """The token's SHA-256, computed when first asked: only `@me` asks, and hashlib (with
        OpenSSL) costs a poll that never needs it about 2 ms (CONTRACT section 20)."""
        if self._fingerprint is False:
            self._fingerprint = token_fingerprint(self._token)
        return self._fingerprint

    def _open(self) -> Any:
        if self._session is None:
            requests = import_requests()  # on first use: a 304 poll never pays for it
            self._requests = requests
            session = requests.Session()
            session.trust_env = False  # no ~/.netrc credentials, no proxies from the env
            session.verify = ca_bundle() or True
            session.headers.clear()
            session.headers.update(STANDARD_HEADERS)
            # requests' Session.send, even with allow_redirects=False, asks resolve_redirects
            # for the next request, which reads the redirect's body past our cap and leaves
            # none to read (a 301 was "cut short"): no redirect is ever resolved here
            session.resolve_redirects = lambda *_a, **_k: iter(())
            _bound_urllib3_reads()
            self._session = session
        return self._session

    def _without_requests(self, error: DependencyError) -> Any:
        """The fallback transport when there is one (built once), else the error again."""
        if self._delegate is None and self._fallback is not None:
            self._delegate = self._fallback()
            self._fallback = None
        if self._delegate is None:
            raise error
        return self._delegate

    def send(self, method: str, url: str, headers: Mapping[str, str],
             body: Optional[bytes] = None, token_origin: Optional[str] = None) -> Response:
        req_headers = dict(headers)
        # The token goes only to the API's own origin (token_origin), never to a link elsewhere.
        if self._token and token_origin and origin_of(url) == token_origin:
            req_headers["Authorization"] = f"Bearer {self._token}"
        if self._delegate is not None:
            return self._delegate.send(method, url, headers, body, token_origin)
        if self._session is None and method == "GET" and "If-None-Match" in req_headers:
            fast = send_stdlib(url, req_headers, self.timeout)
            if fast is not None:
                return fast
        try:
            session = self._open()
        except DependencyError as exc:
            return self._without_requests(exc).send(method, url, headers, body, token_origin)
        if "Authorization" in req_headers and _urllib3_origin(url) != token_origin:
            del req_headers["Authorization"]  # urllib3 reads the URL otherwise: no token
        rq = self._requests
        try:
            resp, content = within_deadline(
                lambda box: _requests_exchange(session, method, url, req_headers, body,
                                               self.timeout, box), self.timeout)
        except rq.exceptions.ConnectTimeout as exc:
            raise TransportError("timeout", f"connection timed out: {short(exc)}", sent=False)
        except rq.exceptions.ReadTimeout as exc:
            raise TransportError("timeout", f"read timed out after {self.timeout} s: "
                                 f"{short(exc)}", sent=True)
        except (rq.exceptions.ChunkedEncodingError, rq.exceptions.ContentDecodingError) as exc:
            raise TransportError("incomplete", f"response cut short: {short(exc)}", sent=True)
        except rq.exceptions.ConnectionError as exc:
            text = short(exc)
            refused = any(s in text for s in ("NewConnectionError", "Connection refused",
                                              "Name or service not known", "Failed to resolve"))
            raise TransportError("connect", f"connection failed: {text}", sent=not refused)
        except rq.exceptions.RequestException as exc:
            raise TransportError("connect", f"request failed: {short(exc)}", sent=True)
        return Response(status=resp.status_code,
                        headers={k.lower(): v for k, v in resp.headers.items()},
                        body=content, url=url)


def _bound_urllib3_reads() -> None:
    """urllib3's connections (under requests) make their responses with the bounded class."""
    try:
        import urllib3.connection
    except ImportError:
        return
    urllib3.connection.HTTPConnection.response_class = bounded_response_class()


def _requests_exchange(session: Any, method: str, url: str, headers: Mapping[str, str],
                       body: Optional[bytes], timeout: float, box: Dict[str, Any]) -> Any:
    """One request through requests, its body read in chunks under the size cap."""
    resp = session.request(method, url, headers=headers, data=body, timeout=timeout,
                           allow_redirects=False, stream=True)
    box["resp"] = resp
    try:
        headers = {k.lower(): v for k, v in resp.headers.items()}
        bodiless = method == "HEAD" or resp.status_code in (204, 304)
        content = read_capped(decoded(_raw_chunks(resp), headers, bodiless))
    finally:
        resp.close()
    return resp, content


def _raw_chunks(resp: Any) -> Any:
    """The body as sent (Content-Encoding not undone: `decoded` does it, bounded), urllib3's
    failures as TransportError, as requests' iter_content would report them."""
    from urllib3 import exceptions as u3

    try:
        yield from resp.raw.stream(READ_CHUNK, decode_content=False)
    except u3.ReadTimeoutError as exc:
        raise TransportError("timeout", f"read timed out: {short(exc)}", sent=True)
    except (u3.ProtocolError, u3.DecodeError, u3.SSLError) as exc:
        raise TransportError("incomplete", f"response cut short: {short(exc)}", sent=True)
