"""The one JSON printer for stdout and the state files: strict JSON, every token scrubbed
(CONTRACT section 17). At the output edge, so the error type never imports the token rules."""

from __future__ import annotations

import json

from ..base.plain import plain
from .normalize import escape_field
from .tokens import scrub_text, scrub_value

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Optional


def encode_json(doc: Any, files: bool = False) -> bytes:
    """The one JSON encoder for stdout and files: UTF-8, keys in the order built, strict
    JSON (no NaN or Infinity), every known token scrubbed from its strings (`files`, a state
    file: every token long enough to be GitHub's; see tokens.SHORTEST_REAL_TOKEN).

    Text GitHub sent with lone surrogates cannot be UTF-8: then the document is written with
    ASCII escapes instead, still valid JSON with the same content.
    """
    doc = scrub_value(doc, files)  # no token in any output, file or stdout (CONTRACT section 17)
    # allow_nan=False: NaN and Infinity are not JSON; strict parsing keeps them from arriving.
    text = json.dumps(doc, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(doc, ensure_ascii=True, indent=2, allow_nan=False)
                + "\n").encode("ascii")


def scrub(text: str) -> str:
    """Defence in depth: no token ever reaches stdout or stderr, even inside a message (the
    one scrubber: text/tokens.py; JSON documents are scrubbed value by value)."""
    return scrub_text(text)


def stderr_line(text: str) -> str:
    """A line for stderr: scrubbed, and server text in it unable to start a line or rewrite
    the terminal (CONTRACT section 17)."""
    return escape_field(scrub(text))


@plain(frozen=True)
class Output:
    """What to print (a command's output flags): --format json|summary, --max-body-chars N,
    --reveal-hidden and --trusted-only (whose comments are shown at all)."""

    format: str = "json"
    max_body_chars: Optional[int] = None
    reveal_hidden: bool = False
    trusted_only: bool = False
