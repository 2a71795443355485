"""Where a token may go (CONTRACT section 17): checked on the way in, scrubbed on the way out.

One registry of the tokens this process knows (every environment token variable and every
token discovered), one check that refuses a token no HTTP header can carry, and one scrubber
that every output goes through: stdout, stderr and the state files. The scrubber works on
values — it walks a JSON document and scrubs its strings — so scrubbing a short token never
turns `"issue": 1` into something that is not JSON. Every spelling counts: raw, backslash- or
`\\u`-escaped, percent-encoded in either case and in any mix (`encoded_pattern`). A "token"
too short to be GitHub's (SHORTEST_REAL_TOKEN) is scrubbed from the values of stdout and stderr
only: never from keys, never from state files.
"""

from __future__ import annotations

import json
import re

from ..base.errors import AuthError

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Iterable, List, Mapping, Set, Tuple

# The environment variables that may hold a token (CONTRACT section 2).
TOKEN_VARIABLES = ("GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN")
MASK = "***"
# Printable ASCII but space: what a token is. Anything else (a newline from two tokens pasted
# together, a tab, a control or non-ASCII character) cannot go into a header and is refused.
TOKEN_RE = re.compile(r"[\x21-\x7e]+")

# GitHub's tokens are 40 characters at the shortest (40 hex digits, or a ghp_/gho_/ghu_/ghs_/ghr_
# prefix and 36 characters; fine-grained github_pat_ ones are longer). A known "token" shorter
# than this cannot be one of them (GH_TOKEN=0 in a test): it is still scrubbed from every
# string value of stdout and stderr, but not from JSON keys (the bundle's own names) nor from
# the state files, whose times, ETags and URLs would be corrupted by it (CONTRACT section 17;
# docs/reference.md).
SHORTEST_REAL_TOKEN = 16

_TOKENS: Set[str] = set()
# (length, forms, pattern, long enough to be GitHub's) per token, the longest token first: a
# short token scrubbed first would break the spellings of a longer one that holds it. The
# pattern is a _Lazy: compiled the first time a text could hold an encoded spelling (a few ms
# a token, which a poll printing no '%' and no backslash never spends; CONTRACT section 20).
_ENTRIES: List[Tuple[int, List[str], Any, bool]] = []


class _Lazy:
    """encoded_pattern(token), compiled on first use."""

    def __init__(self, token: str) -> None:
        self._token: Any = token
        self._pattern: Any = None

    def _compiled(self) -> Any:
        if self._pattern is None:
            self._pattern = encoded_pattern(self._token)
            self._token = None
        return self._pattern

    def sub(self, repl: str, text: str) -> str:
        return self._compiled().sub(repl, text)

    def search(self, text: str) -> Any:
        return self._compiled().search(text)


def validate_token(value: str, source: str) -> str:
    """The token, or exit 3 naming where it came from (never the value)."""
    if not TOKEN_RE.fullmatch(value):
        register(value)  # never printed even if something quotes it later
        raise AuthError(f"the token in {source} holds whitespace, control or non-ASCII "
                        "characters (two tokens pasted together?); set it to one token")
    return value


def forms_of(token: str) -> Set[str]:
    """Every printable spelling of `token`: raw, backslash-escaped (JSON, repr), percent-encoded."""
    from urllib.parse import quote, quote_plus

    forms = {token, json.dumps(token)[1:-1], json.dumps(token, ensure_ascii=False)[1:-1],
             repr(token)[1:-1], repr(token.encode("utf-8", "backslashreplace"))[2:-1],
             quote(token, safe=""), quote(token), quote_plus(token)}
    return {f for f in forms if f}


def encoded_pattern(token: str) -> Any:
    """A regex matching `token` with any of its characters written raw, percent-encoded (in
    either case: RFC 3986 says `%2f` is `%2F`), or as a JSON `\\uXXXX` escape, in any mix."""
    parts = []
    for ch in token:
        alts = [re.escape(ch)]
        encoded = ch.encode("utf-8")
        alts.append("(?i:" + "".join(f"%{b:02x}" for b in encoded) + ")")
        if ord(ch) < 0x10000:
            alts.append("(?i:" + re.escape(f"\\u{ord(ch):04x}") + ")")
        if ch == "/":
            alts.append(re.escape("\\/"))
        parts.append("(?:" + "|".join(alts) + ")")
    return re.compile("".join(parts))


def register(token: str) -> None:
    """Remember a token so that no output ever shows it."""
    if not token or token in _TOKENS:
        return
    _TOKENS.add(token)
    for each in {token, token.strip()}:
        if each:
            forms = sorted(forms_of(each), key=len, reverse=True)
            _ENTRIES.append((len(each), forms, _Lazy(each),
                             len(each) >= SHORTEST_REAL_TOKEN))
    _ENTRIES.sort(key=lambda entry: entry[0], reverse=True)


def register_env(env: Mapping[str, str]) -> None:
    """Every token variable of the environment, used or not."""
    for name in TOKEN_VARIABLES:
        value = env.get(name) or ""
        if value:
            register(value)
            register(value.strip())


def known() -> Iterable[str]:
    return tuple(_TOKENS)


def scrub_text(text: str, short: bool = True) -> str:
    """Text with every form of every known token replaced by ***. `short=False`: only the
    tokens long enough to be GitHub's (SHORTEST_REAL_TOKEN), for keys and state files."""
    encoded = "%" in text or "\\" in text  # a spelling in lower case, or mixed
    for _, forms, pattern, long in _ENTRIES:
        if not (long or short):
            continue
        for form in forms:
            if form in text:
                text = text.replace(form, MASK)
        if encoded:
            text = pattern.sub(MASK, text)
    return text


def scrub_value(value: Any, files: bool = False) -> Any:
    """A JSON value with the token scrubbed from its strings, nothing else. Keys are scrubbed
    only of tokens long enough to be GitHub's: a short one (GH_TOKEN=error) never renames the
    bundle's own keys. `files`: a state file, scrubbed of those long tokens only."""
    if not any(long or not files for _, _, _, long in _ENTRIES):
        return value
    if isinstance(value, str):
        return scrub_text(value, short=not files)
    if isinstance(value, dict):
        return {scrub_text(k, short=False) if isinstance(k, str) else k: scrub_value(v, files)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_value(v, files) for v in value]
    return value


def contains_token(text: str) -> bool:
    """Whether `text` holds a known token in any printable form."""
    return any(any(form in text for form in forms) or pattern.search(text)
               for _, forms, pattern, _ in _ENTRIES)
