"""The stdlib 304 path: a poll's conditional GET through http.client, so a no-change poll never
imports requests, and on plain HTTP never ssl (CONTRACT section 20). None from `send_stdlib`
when TLS could not be set up: the requests transport then sends the request itself."""

from __future__ import annotations

from urllib.parse import urlsplit

from .config import plain_url
from .decode import decoded
from .transport import (
    READ_CHUNK,
    Response,
    TransportError,
    bounded_response_class,
    ca_bundle,
    read_capped,
    short,
    within_deadline,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Mapping, Optional


def send_stdlib(url: str, headers: Mapping[str, str], timeout: float) -> Optional[Response]:
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
        conn.response_class = bounded_response_class()
    except OSError:  # ssl.SSLError is an OSError
        return None
    started = time.monotonic()
    try:
        try:
            conn.connect()
        except tls_error as exc:
            if bundle:  # requests would verify against the same file: say why here
                raise TransportError("connect", f"TLS failed (CA bundle {bundle}): "
                                     f"{short(exc)}", sent=False)
            return None  # nothing was sent; requests has its own CA bundle (certifi)
        except socket.timeout as exc:
            raise TransportError("timeout", f"connection timed out: {exc}", sent=False)
        except OSError as exc:
            raise TransportError("connect", f"connection failed: {short(exc)}", sent=False)
        try:
            resp, content = within_deadline(
                lambda box: _stdlib_exchange(conn, target, headers, box),
                max(0.0, started + timeout - time.monotonic()))
        except socket.timeout as exc:
            raise TransportError("timeout", f"read timed out after {timeout} s: {exc}",
                                 sent=True)
        except http.IncompleteRead as exc:
            raise TransportError("incomplete", f"response cut short: {short(exc)}", sent=True)
        except (http.HTTPException, OSError) as exc:
            raise TransportError("connect", f"connection failed: {short(exc)}", sent=True)
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
    content = read_capped(decoded(iter(lambda: resp.read(READ_CHUNK), b""), headers,
                                   resp.status in (204, 304)))
    return resp, content
