"""Where a token may go (CONTRACT section 17): checked on the way in, scrubbed on the way out.

One registry of the tokens this process knows (every environment token variable and every
token discovered), one check that refuses a token no HTTP header can carry, and one scrubber
that every output goes through: stdout, stderr and the state files. The scrubber works on
values — it walks a JSON document and scrubs its strings — so scrubbing a short token never
turns `"issue": 1` into something that is not JSON.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, List, Mapping, Set

from .errors import AuthError

# The environment variables that may hold a token (CONTRACT section 2).
TOKEN_VARIABLES = ("GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN")
MASK = "***"
# Printable ASCII but space: what a token is. Anything else (a newline from two tokens pasted
# together, a tab, a control or non-ASCII character) cannot go into a header and is refused.
TOKEN_RE = re.compile(r"[\x21-\x7e]+")

_TOKENS: Set[str] = set()
_FORMS: List[str] = []


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


def register(token: str) -> None:
    """Remember a token so that no output ever shows it."""
    global _FORMS
    if not token or token in _TOKENS:
        return
    _TOKENS.add(token)
    forms = set(_FORMS)
    forms |= forms_of(token)
    forms |= forms_of(token.strip())
    _FORMS = sorted((f for f in forms if f), key=len, reverse=True)


def register_env(env: Mapping[str, str]) -> None:
    """Every token variable of the environment, used or not."""
    for name in TOKEN_VARIABLES:
        value = env.get(name) or ""
        if value:
            register(value)
            register(value.strip())


def known() -> Iterable[str]:
    return tuple(_TOKENS)


def scrub_text(text: str) -> str:
    """Text with every form of every known token replaced by ***."""
    for form in _FORMS:
        if form in text:
            text = text.replace(form, MASK)
    return text


def scrub_value(value: Any) -> Any:
    """A JSON value with the token scrubbed from its strings (keys included), nothing else."""
    if not _FORMS:
        return value
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, dict):
        return {scrub_text(k) if isinstance(k, str) else k: scrub_value(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_value(v) for v in value]
    return value


def contains_token(text: str) -> bool:
    """Whether `text` holds a known token in any printable form."""
    return any(form in text for form in _FORMS)
