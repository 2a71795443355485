"""Transports: send one HTTP request, return (status, headers, body). Nothing else.

Two back ends behind one interface, chosen by `--transport`:

- `RequestsTransport`: a `requests.Session` with explicit timeouts. Redirects are not followed
  here; the client follows same-origin ones itself, so a token never goes to another origin.
  One fast path: a conditional GET sent before anything else (a poll's probe) goes through the
  standard library's http.client, so a poll answered 304 never imports requests (its import
  is about two thirds of such a run). Anything unusual there (TLS trouble) falls back to
  requests before a byte of HTTP was sent. Both paths verify TLS against one CA bundle
  (`ca_bundle`: SSL_CERT_FILE, else REQUESTS_CA_BUNDLE, else their defaults), and requests is
  imported only where a request needs it (`import_requests`): without it a 304 poll still
  works, anything else is the `dependency` error or, for `--transport auto`, a logged-in gh.
- `GhTransport`: `gh api --include` as a subprocess. gh finds the host's token itself; the bundle
  never puts a token on a command line.

Failures below HTTP become `TransportError` with `sent` telling whether the request may have
reached the server (a POST that may have been sent must not be retried or assumed lost).
"""

from __future__ import annotations

import os
import sys
from urllib.parse import urlsplit

from .. import __version__
from ..base.errors import DependencyError, UsageError, requests_missing
from ..base.plain import plain
from .config import plain_url

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, Mapping, Optional

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


# -- requests on first use, and the one CA bundle (CONTRACT section 16) -------------------------

CA_BUNDLE_ENV = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")


def import_requests() -> Any:
    """The requests module, or the `dependency` error naming the ways to install it."""
    try:
        import requests
    except ImportError:
        raise DependencyError(requests_missing(sys.executable))
    return requests


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
            fast = _send_stdlib(url, req_headers, self.timeout)
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
            resp, content = _within_deadline(
                lambda box: _requests_exchange(session, method, url, req_headers, body,
                                               self.timeout, box), self.timeout)
        except rq.exceptions.ConnectTimeout as exc:
            raise TransportError("timeout", f"connection timed out: {_short(exc)}", sent=False)
        except rq.exceptions.ReadTimeout as exc:
            raise TransportError("timeout", f"read timed out after {self.timeout} s: "
                                 f"{_short(exc)}", sent=True)
        except (rq.exceptions.ChunkedEncodingError, rq.exceptions.ContentDecodingError) as exc:
            raise TransportError("incomplete", f"response cut short: {_short(exc)}", sent=True)
        except rq.exceptions.ConnectionError as exc:
            text = _short(exc)
            refused = any(s in text for s in ("NewConnectionError", "Connection refused",
                                              "Name or service not known", "Failed to resolve"))
            raise TransportError("connect", f"connection failed: {text}", sent=not refused)
        except rq.exceptions.RequestException as exc:
            raise TransportError("connect", f"request failed: {_short(exc)}", sent=True)
        return Response(status=resp.status_code,
                        headers={k.lower(): v for k, v in resp.headers.items()},
                        body=content, url=url)


# --------------------------------------------------------------------------- bounded requests
# `--timeout S` bounds a request whole — connect, headers and body — not each read: a server
# that drips a byte now and then never trips a per-read timeout. And no answer may be larger
# than MAX_RESPONSE_BYTES decoded (a gzip bomb: 510 KB on the wire, 1 GB in memory). Both
# paths (requests and the http.client fast path) go through these (CONTRACT section 17).

MAX_RESPONSE_BYTES = 64 * 1024 * 1024
READ_CHUNK = 16 * 1024  # small: urllib3 1.x inflates a whole chunk at once


def _bounded_response_class() -> Any:
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


def _bound_urllib3_reads() -> None:
    """urllib3's connections (under requests) make their responses with the bounded class."""
    try:
        import urllib3.connection
    except ImportError:
        return
    urllib3.connection.HTTPConnection.response_class = _bounded_response_class()


def _too_large() -> TransportError:
    return TransportError("too_large", f"the response is larger than "
                          f"{MAX_RESPONSE_BYTES // (1024 * 1024)} MiB decoded; refused",
                          sent=True)


def _read_capped(chunks: Any) -> bytes:
    """Join the chunks of a body, refusing it once it passes MAX_RESPONSE_BYTES."""
    parts = []
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > MAX_RESPONSE_BYTES:
            raise _too_large()
        parts.append(chunk)
    return b"".join(parts)


# Content-Encoding is undone here, on the raw bytes, in bounded steps — never by urllib3,
# whose older versions (1.26, Debian's) inflate a whole read at once and a chain of encodings
# ("gzip, gzip") without bound: 764 KiB on the wire held 1.5 GiB before the cap saw a byte.
# Every stage yields at most INFLATE_STEP bytes per call and stops at the cap (CONTRACT
# section 17), so memory stays near the cap whatever the ratio.
INFLATE_STEP = 256 * 1024
ENCODINGS = ("gzip", "x-gzip", "deflate", "identity")


def content_encodings(headers: Mapping[str, str]) -> Any:
    """The response's encodings in the order to undo them, or a TransportError for one this
    bundle does not undo (br, zstd, compress: never asked for)."""
    names = [n.strip().lower() for n in (headers.get("content-encoding") or "").split(",")]
    names = [n for n in names if n and n != "identity"]
    for name in names:
        if name not in ENCODINGS:
            raise TransportError("incomplete", f"the response has Content-Encoding "
                                 f"{name[:40]!r}, which was not asked for; refused", sent=True)
    return list(reversed(names))


def _inflate(chunks: Any, encoding: str) -> Any:
    """Undo one gzip or deflate layer of `chunks`, in steps of at most INFLATE_STEP bytes,
    refusing past MAX_RESPONSE_BYTES (gzip members one after another are read alike)."""
    import zlib

    wbits = 31 if encoding in ("gzip", "x-gzip") else 15
    raw_fallback = wbits == 15  # "deflate" is sometimes sent without its zlib header
    d = zlib.decompressobj(wbits)
    total = 0
    started = False
    for chunk in chunks:
        data = chunk
        while data:
            try:
                out = d.decompress(data, INFLATE_STEP)
            except zlib.error as exc:
                if raw_fallback and not started:
                    raw_fallback = False
                    d = zlib.decompressobj(-15)
                    continue
                raise TransportError("incomplete", f"the response's {encoding} data is "
                                     f"corrupt: {exc}", sent=True)
            started = True
            total += len(out)
            if total > MAX_RESPONSE_BYTES:
                raise _too_large()
            if out:
                yield out
            if d.unconsumed_tail:
                data = d.unconsumed_tail
            elif d.eof and d.unused_data:  # another gzip member follows
                data = d.unused_data
                d = zlib.decompressobj(wbits)
            else:
                data = b""


def _whole(chunks: Any, headers: Mapping[str, str], bodiless: bool) -> Any:
    """The raw chunks, and an `incomplete` error when fewer bytes came than Content-Length
    announced (urllib3 1.26 does not enforce it on a streamed read; http.client's read(n)
    returns short at the end of the stream without a word). `bodiless`: a 304, 204 or an
    answer to HEAD, whose Content-Length names a representation not sent."""
    length = (headers.get("content-length") or "").strip()
    expected = int(length) if length.isdigit() and len(length) < 19 and not bodiless and \
        "chunked" not in (headers.get("transfer-encoding") or "").lower() else None
    got = 0
    for chunk in chunks:
        got += len(chunk)
        yield chunk
    if expected is not None and got < expected:
        raise TransportError("incomplete", f"response cut short: {got} of {expected} bytes",
                             sent=True)


def decoded(chunks: Any, headers: Mapping[str, str], bodiless: bool = False) -> Any:
    """The body's chunks, whole (as long as announced), with every Content-Encoding undone,
    each stage bounded."""
    chunks = _whole(chunks, headers, bodiless)
    for encoding in content_encodings(headers):
        chunks = _inflate(chunks, encoding)
    return chunks


def _within_deadline(work: Any, seconds: float) -> Any:
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


def _requests_exchange(session: Any, method: str, url: str, headers: Mapping[str, str],
                       body: Optional[bytes], timeout: float, box: Dict[str, Any]) -> Any:
    """One request through requests, its body read in chunks under the size cap."""
    resp = session.request(method, url, headers=headers, data=body, timeout=timeout,
                           allow_redirects=False, stream=True)
    box["resp"] = resp
    try:
        headers = {k.lower(): v for k, v in resp.headers.items()}
        bodiless = method == "HEAD" or resp.status_code in (204, 304)
        content = _read_capped(decoded(_raw_chunks(resp), headers, bodiless))
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
        raise TransportError("timeout", f"read timed out: {_short(exc)}", sent=True)
    except (u3.ProtocolError, u3.DecodeError, u3.SSLError) as exc:
        raise TransportError("incomplete", f"response cut short: {_short(exc)}", sent=True)


def _send_stdlib(url: str, headers: Mapping[str, str], timeout: float) -> Optional[Response]:
    """One GET through http.client; None when TLS could not be set up (requests will try).
    ssl is imported for an https URL only: a plain-HTTP poll never loads it (section 20)."""
    import socket
    import time

    plain = plain_url(url)
    if plain is None:  # never sent: the client refuses such a URL before it gets here
        raise TransportError("connect", "refusing a URL parsers may read differently",
                             sent=False)
    scheme, host, port = plain
    host = host.strip("[]")  # the one parse that decided the origin decides the connection
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    bundle = ca_bundle() if scheme == "https" else None
    http = _http_client(tls=scheme == "https")
    tls_error: Any = ()  # no TLS error can happen on plain HTTP
    try:
        if scheme == "https":
            import ssl

            tls_error = ssl.SSLError
            context = ssl.create_default_context(cafile=bundle)
            conn: Any = http.HTTPSConnection(host, port, timeout=timeout, context=context)
        else:
            conn = http.HTTPConnection(host, port, timeout=timeout)
        conn.response_class = _bounded_response_class()
    except OSError:  # ssl.SSLError is an OSError
        return None
    started = time.monotonic()
    try:
        try:
            conn.connect()
        except tls_error as exc:
            if bundle:  # requests would verify against the same file: say why here
                raise TransportError("connect", f"TLS failed (CA bundle {bundle}): "
                                     f"{_short(exc)}", sent=False)
            return None  # nothing was sent; requests has its own CA bundle (certifi)
        except socket.timeout as exc:
            raise TransportError("timeout", f"connection timed out: {exc}", sent=False)
        except OSError as exc:
            raise TransportError("connect", f"connection failed: {_short(exc)}", sent=False)
        try:
            resp, content = _within_deadline(
                lambda box: _stdlib_exchange(conn, target, headers, box),
                max(0.0, started + timeout - time.monotonic()))
        except socket.timeout as exc:
            raise TransportError("timeout", f"read timed out after {timeout} s: {exc}",
                                 sent=True)
        except http.IncompleteRead as exc:
            raise TransportError("incomplete", f"response cut short: {_short(exc)}", sent=True)
        except (http.HTTPException, OSError) as exc:
            raise TransportError("connect", f"connection failed: {_short(exc)}", sent=True)
        merged: Dict[str, str] = {}
        for name, value in resp.getheaders():
            key = name.lower()
            merged[key] = f"{merged[key]}, {value}" if key in merged else value
        return Response(status=resp.status, headers=merged, body=content, url=url)
    finally:
        conn.close()


def _http_client(tls: bool) -> Any:
    """The http.client module; for a plain-HTTP request imported without ssl. http.client
    imports ssl only to define HTTPSConnection, about 6 ms a plain-HTTP poll never uses
    (CONTRACT section 20); an https request later in the same process gets it back."""
    import sys

    module = sys.modules.get("http.client")
    if tls:
        import ssl  # noqa: F401  (before http.client: its HTTPSConnection needs it)

        if module is not None and not hasattr(module, "HTTPSConnection"):
            import importlib

            return importlib.reload(module)
        import http.client

        return http.client
    if module is not None:
        return module
    blocked = "ssl" not in sys.modules
    if blocked:
        sys.modules["ssl"] = None  # type: ignore[assignment]  (`import ssl` raises ImportError)
    try:
        import http.client
    finally:
        if blocked and sys.modules.get("ssl", 0) is None:
            del sys.modules["ssl"]
    return http.client


def _stdlib_exchange(conn: Any, target: str, headers: Mapping[str, str],
                     box: Dict[str, Any]) -> Any:
    """The request and its whole answer on a connected http.client connection, capped."""
    box["sock"] = conn.sock
    conn.request("GET", target, headers=dict(headers))
    resp = conn.getresponse()
    headers = {k.lower(): v for k, v in resp.getheaders()}
    content = _read_capped(decoded(iter(lambda: resp.read(READ_CHUNK), b""), headers,
                                   resp.status in (204, 304)))
    return resp, content


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300]


class GhTransport:
    """`gh api --include`: status and headers parsed from its output. gh carries the token,
    and only where it cannot hand it to another origin (docs/dependencies.md, "Where gh carries
    the token"): gh runs with the token variables removed from its environment and with a
    temporary configuration holding the token it would send for the API's host (a variable's
    or its own login's) for that one host and nothing else (`gh_config`). gh
    follows redirects itself; its request trace (GH_DEBUG=1: one `* Request to URL` line per
    request, no headers or bodies) tells which origins it asked, and an answer after a request
    to another origin, or a write that was redirected at all, is refused (exit 6)."""

    name = "gh"

    def __init__(self, hostname: str, timeout: float, env: Optional[Mapping[str, str]] = None,
                 fingerprint: Optional[str] = None, token: Optional[str] = None):
        import shutil

        self.gh = shutil.which("gh", path=(env or os.environ).get("PATH"))
        self.hostname = hostname
        self.timeout = timeout
        self.env = dict(env or os.environ)
        self.authenticated = True
        self.fingerprint = fingerprint  # of the token gh reported for the host
        # Always confined: gh's own configuration may name other hosts, and a redirect to one
        # of them would carry that host's token (issue 24's second attack).
        self._token = token

    def api_base(self) -> str:
        """The REST base gh uses for the host (Link URLs must stay on it)."""
        if self.hostname == "github.com":
            return "https://api.github.com"
        if self.hostname == "github.localhost":
            return "http://api.github.localhost"
        return f"https://{self.hostname}/api/v3"

    def send(self, method: str, url: str, headers: Mapping[str, str],
             body: Optional[bytes] = None, token_origin: Optional[str] = None) -> Response:
        if not self.gh:
            raise TransportError("gh", "the gh CLI is not installed", sent=False)
        base = self.api_base()
        if not url.startswith(base + "/") and url != base:
            raise TransportError("gh", f"gh transport cannot reach {url}", sent=False)
        argv = [self.gh, "api", "--hostname", self.hostname, "--include", "--method", method]
        for k, v in headers.items():
            if k.lower() in ("user-agent",):
                continue
            argv += ["-H", f"{k}: {v}"]
        if body is not None:
            argv += ["--input", "-"]
        # The whole URL, as checked: gh takes an endpoint holding `://` for a whole URL, so the
        # part after the base of `BASE/http://HOST:PORT/…` (a next link on the API's origin)
        # would send gh to another origin. `graphql` alone is gh's name for the host's GraphQL
        # endpoint (`https://HOST/api/graphql` on GHES, not under the REST base).
        argv.append("graphql" if url == base + "/graphql" else url)
        with gh_config(self.hostname, self._token) as config_dir:
            env = gh_api_env(self.env, config_dir)
            out, err, code = _run_gh_capped(argv, body, self.timeout + 5, env)
        visited, err = gh_trace(err)
        check_gh_origins(visited, origin_of(base), method, code)
        return _parse_gh_output(out, err, code, url)


def gh_api_env(env: Mapping[str, str], config_dir: Optional[str]) -> Dict[str, str]:
    """gh's environment for `gh api`: no token variables (gh uses a per-host login), the
    one-host configuration when there is one, the request trace on, nothing interactive."""
    from ..text.tokens import TOKEN_VARIABLES

    out = {k: v for k, v in env.items() if k not in TOKEN_VARIABLES
           and k not in ("GH_DEBUG", "DEBUG", "GH_FORCE_TTY", "GH_PAGER", "CLICOLOR_FORCE")}
    out.update(GH_DEBUG="1", GH_PROMPT_DISABLED="1", GH_NO_UPDATE_NOTIFIER="1", NO_COLOR="1")
    if config_dir is not None:
        out["GH_CONFIG_DIR"] = config_dir
    return out


class gh_config:  # noqa: N801  (a context manager, named as one)
    """A temporary GH_CONFIG_DIR whose hosts.yml holds `token` for `hostname` and nothing else
    (0700 folder); None when there is no token to confine.

    hosts.yml is a FIFO, not a file: a thread hands the token to gh through it when gh opens it,
    so the token never rests on disk — a run killed by any signal (SIGKILL included) while gh
    runs leaves at most an empty pipe in its folder, never the token. gh 2.23 reads its
    configuration once per run."""

    def __init__(self, hostname: str, token: Optional[str]) -> None:
        self.hostname = hostname
        self.token = token
        self.path: Optional[str] = None
        self._feeder: Optional[Any] = None

    def __enter__(self) -> Optional[str]:
        if self.token is None:
            return None
        import json
        import tempfile
        import threading

        self.path = tempfile.mkdtemp(prefix="ghcomments-gh-")
        # gh 2.40+ migrates a configuration without `version: "1"` to its multi-account
        # shape at start-up: a GraphQL query of its own (an extra request, which would make a
        # write look redirected) and a write of hosts.yml (which would block on the pipe).
        fd = os.open(os.path.join(self.path, "config.yml"),
                     os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write('version: "1"\n')
        fifo = os.path.join(self.path, "hosts.yml")
        os.mkfifo(fifo, 0o600)
        # JSON strings are YAML double-quoted scalars: no character of either is special.
        data = f"{json.dumps(self.hostname)}:\n    oauth_token: {json.dumps(self.token)}\n"

        def feed() -> None:
            try:
                fd = os.open(fifo, os.O_WRONLY)  # blocks until a reader opens the pipe
                try:
                    os.write(fd, data.encode("ascii"))
                finally:
                    os.close(fd)
            except OSError:  # the reader left early: nothing to hand over
                pass

        self._feeder = threading.Thread(target=feed, daemon=True)
        self._feeder.start()
        return self.path

    def __exit__(self, *exc: Any) -> None:
        if self.path is None:
            return
        import shutil

        if self._feeder is not None and self._feeder.is_alive():
            # gh never opened the pipe: open it ourselves so the feeder's open returns, then
            # drop what it writes.
            try:
                fd = os.open(os.path.join(self.path, "hosts.yml"), os.O_RDONLY | os.O_NONBLOCK)
            except OSError:
                fd = None
            self._feeder.join(5)
            if fd is not None:
                os.close(fd)
        shutil.rmtree(self.path, ignore_errors=True)


TRACE_PREFIX = "* Request to "


def gh_trace(err: bytes) -> Any:
    """(the URLs gh asked, per its GH_DEBUG=1 trace; its stderr without the trace lines)."""
    visited = []
    kept = []
    for line in err.decode("utf-8", "replace").splitlines():
        if line.startswith(TRACE_PREFIX):
            visited.append(line[len(TRACE_PREFIX):].strip())
        elif not (line.startswith("* Request at ") or line.startswith("* Request took ")):
            kept.append(line)
    return visited, "\n".join(kept).encode("utf-8")


def check_gh_origins(visited: Any, api_origin: Optional[str], method: str, code: int) -> None:
    """Refuse gh's answer unless every request it made went to the API's origin, and a write
    was made once, not redirected. No trace at all is refused too when gh answered (a gh that
    prints none cannot show where it went)."""
    from ..text.normalize import escape_field

    if not visited:
        if code == 0:
            raise TransportError("redirect", "gh printed no request trace (GH_DEBUG), so the "
                                 "origin of its answer is unknown; refused — use --transport "
                                 "requests", sent=True)
        return
    others = [u for u in visited if origin_of(u) != api_origin or api_origin is None]
    if others:
        shown = escape_field(others[0][:120])
        raise TransportError("redirect", f"gh followed a redirect to another origin ({shown}) "
                             f"than the API's ({api_origin}); its answer is refused (a token "
                             "goes only to the API's origin)", sent=True)
    if method not in ("GET", "HEAD") and len(visited) > 1:
        raise TransportError("redirect", f"the {method} was answered with a redirect, which gh "
                             "followed; refused (a write follows no redirect)", sent=True)


# gh's output: the response's headers, then its body (gh inflates gzip itself). Read in bounded
# chunks, gh killed once it passes the cap, as the HTTP paths are (CONTRACT section 17).
GH_HEADER_ALLOWANCE = 1024 * 1024


def _run_gh_capped(argv: Any, body: Optional[bytes], timeout: float,
                   env: Mapping[str, str]) -> Any:
    """(stdout, stderr, exit status) of gh; too_large past the cap, timeout past `timeout`."""
    import subprocess
    import tempfile
    import threading

    with tempfile.TemporaryFile() as errfile:
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=errfile, env=dict(env),
                                    preexec_fn=_die_with_parent())
        except OSError as exc:
            raise TransportError("gh", f"could not run gh: {exc}", sent=False)
        fired = []

        def expire() -> None:
            fired.append(True)
            proc.kill()

        timer = threading.Timer(timeout, expire)
        timer.daemon = True
        timer.start()
        parts = []
        total = 0
        too_large = False
        try:
            stdin, stdout = proc.stdin, proc.stdout
            try:
                if stdin is not None:
                    stdin.write(body if body is not None else b"")
                    stdin.close()
            except OSError:  # gh left early; its exit status says why
                pass
            while stdout is not None:
                chunk = stdout.read(READ_CHUNK * 4)
                if not chunk:
                    break
                total += len(chunk)
                if total > MAX_RESPONSE_BYTES + GH_HEADER_ALLOWANCE:
                    too_large = True
                    proc.kill()
                    break
                parts.append(chunk)
            if stdout is not None:
                stdout.close()
            code = proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if too_large:
            raise _too_large()
        if fired:
            raise TransportError("timeout", f"gh api timed out after {timeout - 5:g} s",
                                 sent=True)
        errfile.seek(0)
        err = errfile.read(1024 * 1024)
    return b"".join(parts), err, code


def _die_with_parent() -> Optional[Callable[[], None]]:
    """A preexec_fn that makes gh die with the script (Linux's PR_SET_PDEATHSIG): the timer
    that bounds gh lives in the script, so a script ended by a signal (the writer and
    get_pr_comments.py keep the standard handlers; SIGKILL for all) would leave gh running on
    its own, unbounded, with the token. None where there is no prctl (gh may then outlive a
    killed script)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        import signal

        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def child() -> None:
        prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the script died before prctl took effect
            os._exit(1)

    return child


def _parse_gh_output(out: bytes, err: bytes, code: int, url: str) -> Response:
    head, sep, body = out.partition(b"\r\n\r\n")
    if not sep:
        head, sep, body = out.partition(b"\n\n")
    lines = head.decode("latin-1").splitlines()
    if not sep and lines and lines[0].startswith("HTTP/"):
        body = b""  # headers only (a 304 or 204 with no body)
    elif not lines or not lines[0].startswith("HTTP/"):
        message = " ".join(err.decode("utf-8", "replace").split())[:300] or f"exit {code}"
        sent = not any(s in message for s in ("connection refused", "no such host",
                                              "could not resolve"))
        raise TransportError("connect", f"gh api failed: {message}", sent=sent)
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        raise TransportError("incomplete", f"gh api printed no status line: {lines[0][:80]!r}",
                             sent=True)
    headers: Dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            key = name.strip().lower()
            headers[key] = (headers[key] + ", " + value.strip()) if key in headers \
                else value.strip()
    return Response(status=status, headers=headers, body=body, url=url)
