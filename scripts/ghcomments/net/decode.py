"""Content decoding: the body's Content-Encoding (gzip, deflate, chains of them) undone on the
raw bytes in bounded steps, and a body shorter than its Content-Length refused. Used by both
HTTP paths (requests and the stdlib fast path); gh inflates its answers itself. And what
parsing a body may build is bounded (`json_values_over`), for every transport; the body as
strict JSON (`json_of`), a REST item's types checked on the way in."""

from __future__ import annotations

from ..base.errors import ServerError, strict_loads
from ..text.normalize import check_comment
from .transport import MAX_RESPONSE_BYTES, TransportError, too_large_error

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Mapping

    from .transport import Response


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
                raise too_large_error()
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


# Bytes are capped above; what parsing them builds is bounded here. 60 MiB of `[{},{},…]` (61 KB
# of gzip) is 21 million objects, 1.6 GiB in Python before the first type check (issue 31).
# The largest page this bundle asks for is the review threads' (100 threads of 100 comments of
# 13 fields: about 140,000 values); a page of 100 REST comments is about 10,000. Past
# MAX_JSON_VALUES no real answer is possible, and at most this many values cost a few tens of
# MiB in memory whatever they are (docs/reference.md, "What parsing an answer may build").
MAX_JSON_VALUES = 250_000
_TOKENS = None


def json_values_over(body: bytes, limit: int = MAX_JSON_VALUES) -> bool:
    """Whether the JSON in `body` holds more than `limit` values, counted without parsing it:
    one per comma and opening bracket outside strings (every item or member after a
    container's first follows a comma; every container opens with a bracket: at least the
    values less one, at most twice them). The bytes' own
    counts come first (an upper bound: strings' commas included, C speed); the scan past the
    strings runs only when they pass the limit, and stops at it."""
    if body.count(b",") + body.count(b"[") + body.count(b"{") <= limit:
        return False
    global _TOKENS
    if _TOKENS is None:
        import re

        _TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[,\[{]', re.S)
    count = 0
    for match in _TOKENS.finditer(body):
        if match.end() - match.start() == 1:  # a string is two bytes at least
            count += 1
            if count > limit:
                return True
    return False


# -- JSON: the body as strict JSON, bounded before it is parsed ------------------------------

def text_of(resp: Response) -> str:
    """The body as text, the bytes let go first: a 60 MiB answer is then held twice while
    it is parsed (text and values), not three times (CONTRACT section 22). The body is
    read once; nothing reads it after its JSON."""
    raw, resp.body = resp.body, b""
    return raw.decode("utf-8")

# An error body that is not JSON is kept to this many bytes: enough to see past an HTML page's
# head and styles to its words (base.errors.plain_excerpt shows at most 200 characters).
ERROR_PAGE_BYTES = 8192


def maybe_json(resp: Response) -> Any:
    if json_values_over(resp.body):  # an error's body: its start is all that is shown
        return resp.body[:ERROR_PAGE_BYTES].decode("utf-8", "replace")
    start = resp.body[:ERROR_PAGE_BYTES]
    try:
        return strict_loads(text_of(resp)) if resp.body else None
    except (ValueError, UnicodeDecodeError, RecursionError):
        return start.decode("utf-8", "replace")

def json_of(resp: Response, what: str, comments: bool = True) -> Any:
    """The body as strict JSON, its REST items' types checked on the way in: a comment,
    review or pull request (an object with an `id`, or a list of them) whose id, times,
    logins or line numbers are of the wrong type is a malformed answer (exit 6) before
    anything — a checkpoint above all — is built from it (CONTRACT section 17). A body
    holding more JSON values than any GitHub page is refused before it is parsed."""
    if json_values_over(resp.body):
        raise ServerError(f"{what}: the response holds more than {MAX_JSON_VALUES:,} JSON "
                          f"values (HTTP {resp.status}, {len(resp.body)} bytes), more than "
                          "any GitHub page holds; refused without parsing it",
                          status=resp.status)
    size = len(resp.body)
    try:
        data = strict_loads(text_of(resp))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ServerError(f"{what}: malformed JSON in the response "
                          f"(HTTP {resp.status}, {size} bytes): {exc}",
                          status=resp.status)
    if not comments:  # another kind of item (commits): its reader checks it
        return data
    if isinstance(data, list):
        for item in data:
            check_comment(item, what)
    elif isinstance(data, dict) and "id" in data:
        check_comment(data, what)
    return data
