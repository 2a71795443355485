"""Transports: send one HTTP request, return (status, headers, body). Nothing else.

Two back ends behind one interface, chosen by `--transport`, each in its own module:

- `http_requests.RequestsTransport`: a `requests.Session` with explicit timeouts. Redirects are
  not followed here; the client follows same-origin ones itself, so a token never goes to
  another origin. One fast path (`plain_http`): a conditional GET sent before anything else (a
  poll's probe) goes through the standard library's http.client, so a poll answered 304 never
  imports requests (its import is about two thirds of such a run). Anything unusual there (TLS
  trouble) falls back to requests before a byte of HTTP was sent. Both paths verify TLS against
  one CA bundle (`ca_bundle`: SSL_CERT_FILE, else REQUESTS_CA_BUNDLE, else their defaults), and
  requests is imported only where a request needs it (`http_requests.import_requests`): without
  it a 304 poll still works, anything else is the `dependency` error or, for `--transport
  auto`, a logged-in gh.
- `gh.GhTransport`: `gh api --include` as a subprocess. gh finds the host's token itself; the
  bundle never puts a token on a command line.

Content-Encoding is undone in bounded steps by `decode`. This module holds what they share: the
`Response`, `TransportError`, the standard headers, origins, the CA bundle, the size cap and the
whole-request deadline.

Failures below HTTP become `TransportError` with `sent` telling whether the request may have
reached the server (a POST that may have been sent must not be retried or assumed lost).
"""

from __future__ import annotations

import os

from .. import __version__
from ..base.errors import UsageError
from ..base.plain import plain
from .config import plain_url

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Mapping, Optional

USER_AGENT = f"gh-issue-comment-monitor/{__version__}"
STANDARD_HEADERS = {
    "Accept": "application/vnd.github+json",
    "X-GitHub-Api-Version": "2022-11-28",
    "User-Agent": USER_AGENT,
}


@plain
class Response:
    status: int
    headers: Dict[str, str]  # lower-case names
    body: bytes
    url: str
    redirected: bool = False  # gh followed a redirect itself (url: where it ended)


class TransportError(Exception):
    """No HTTP response: kind is connect, timeout, incomplete, too_large or gh; sent: may have
    arrived."""

    def __init__(self, kind: str, message: str, sent: bool) -> None:
        super().__init__(message)
        self.kind = kind
        self.sent = sent


def token_fingerprint(token: Optional[str]) -> Optional[str]:
    """A SHA-256 of the token: tells tokens apart in caches without ever storing one."""
    if not token:
        return None
    import hashlib

    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def origin_of(url: str) -> Optional[str]:
    """scheme://host:port of a URL; None when it is not a URL every parser reads alike (a
    backslash, userinfo, whitespace or controls, a bad port or host: config.plain_url), which
    matches no origin — such a URL is refused, never followed (CONTRACT section 17)."""
    parts = plain_url(url)
    if parts is None:
        return None
    scheme, host, port = parts
    return f"{scheme}://{host}:{port}"


# -- the one CA bundle (CONTRACT section 16) ----------------------------------------------------

CA_BUNDLE_ENV = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")


def ca_bundle(env: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The CA file both HTTP paths verify against: SSL_CERT_FILE, else REQUESTS_CA_BUNDLE;
    None for each path's default (the system's store, then certifi's for requests)."""
    env = os.environ if env is None else env
    for name in CA_BUNDLE_ENV:
        path = (env.get(name) or "").strip()
        if path:
            if not os.path.isfile(path):
                raise UsageError(f"{name} names {path!r}, which is not a file: point it at a "
                                 "PEM file of CA certificates, or unset it")
            return path
    return None


# ------------------------------------------------------------------------------ bounded reads
# `--timeout S` bounds a request whole — connect, headers and body — not each read: a server
# that drips a byte now and then never trips a per-read timeout. And no answer may be larger
# than MAX_RESPONSE_BYTES decoded (a gzip bomb: 510 KB on the wire, 1 GB in memory). Both
# paths (requests and the http.client fast path) go through these (CONTRACT section 17).

MAX_RESPONSE_BYTES = 64 * 1024 * 1024
READ_CHUNK = 16 * 1024  # small: urllib3 1.x inflates a whole chunk at once


def bounded_response_class() -> Any:
    """http.client's response, refusing a read of a negative or over-cap length. A chunk size
    of -1 (`Transfer-Encoding: chunked`) makes http.client and urllib3 call `_safe_read(-1)`:
    read to the end of the stream in one call, before the cap sees a byte. Both read through
    this class (urllib3's connections build their http.client responses from it too)."""
    import http.client

    global _BOUNDED
    if _BOUNDED is None:
        class BoundedHTTPResponse(http.client.HTTPResponse):
            def _read_next_chunk_size(self) -> int:
                size = super()._read_next_chunk_size()
                if size < 0:
                    raise ValueError(f"negative chunk size {size}")
                return size

            def _safe_read(self, amt: int) -> bytes:  # type: ignore[override]
                if amt is None or amt < 0 or amt > MAX_RESPONSE_BYTES:
                    self._close_conn()  # type: ignore[attr-defined]
                    raise http.client.IncompleteRead(b"", None)
                return super()._safe_read(amt)

        _BOUNDED = BoundedHTTPResponse
    return _BOUNDED


_BOUNDED: Any = None


def too_large_error() -> TransportError:
    return TransportError("too_large", f"the response is larger than "
                          f"{MAX_RESPONSE_BYTES // (1024 * 1024)} MiB decoded; refused",
                          sent=True)


def read_capped(chunks: Any) -> bytes:
    """Join the chunks of a body, refusing it once it passes MAX_RESPONSE_BYTES."""
    parts = []
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > MAX_RESPONSE_BYTES:
            raise too_large_error()
        parts.append(chunk)
    return b"".join(parts)


def within_deadline(work: Any, seconds: float) -> Any:
    """`work(box)` in a worker thread, given `seconds` in all. On time, its result (or its
    exception); else the socket it left in `box["sock"]`/`box["resp"]` is shut down (so the
    worker stops) and a timeout is raised. The worker is a daemon: it never keeps the process.
    """
    import threading

    box: Dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = work(box)
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="ghcomments-request", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        _abandon(box)
        raise TransportError("timeout", f"timed out: no complete response within {seconds:g} s "
                             "(--timeout bounds the whole request)", sent=True)
    if "error" in box:
        raise box["error"]
    return box["result"]


def _abandon(box: Dict[str, Any]) -> None:
    """Shut down the socket of a request past its deadline (best effort)."""
    import socket

    sock = box.get("sock")
    resp = box.get("resp")
    if sock is None and resp is not None:
        raw = getattr(resp, "raw", None)
        conn = getattr(raw, "_connection", None) or getattr(raw, "connection", None)
        sock = getattr(conn, "sock", None)
    try:
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300]

