"""Naming a round: `--follow REF` and `--unfollow REF` (CONTRACT section 18).

A REF names one issue round or one pull-request round, in any of these forms:

  https://WEBHOST/O/R/issues/N[#issuecomment-ID]     web URL of an issue (or of a comment)
  https://WEBHOST/O/R/pull/N[/files|/commits]         web URL of a pull request (also /pulls/N)
  https://APIHOST/…/repos/O/R/issues/N  or …/pulls/N  API URL (… is the API URL's own path)
  O/R/issues/N  or  O/R/pull/N                        a key, as the inbox prints it
  O/R#N                                               an issue round

A web URL takes a query and a fragment; `#issuecomment-ID` on an issue URL is the round's
starting cursor when it has no checkpoint (the caller decides: it knows the checkpoint). A URL
is taken only on this command's hosts: its API's, or the web host that API serves. Names pass
the same checks as --repo and --issue; anything else is a usage error (exit 2) naming the REF,
escaped, never a traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Tuple

from ..base.errors import UsageError
from ..base.urls import split_url, try_split
from ..net import config
from ..text.normalize import escape_field
from .state import validate_comment_id, validate_issue_number

ISSUE, PULL = "issues", "pull"
MAX_REF_CHARS = 2048
SHOWN_CHARS = 200
FORMS = "a web or API URL of an issue or pull request, O/R/issues/N, O/R/pull/N or O/R#N"
_KEY_RE = re.compile(r"([^/#]+)/([^/#]+)/(issues|pull)/([^/#]+)")
_SHORT_RE = re.compile(r"([^/#]+)/([^/#]+)#([^/#]+)")
_COMMENT_FRAGMENT = "issuecomment-"


@dataclass(frozen=True)
class RoundRef:
    """One round, as a REF named it. `owner` and `repo` keep the REF's spelling (GitHub's
    names ignore case); the key lowercases them. `form`: "web", "api", "key" or "short"."""

    kind: str
    owner: str
    repo: str
    number: int
    start_comment_id: Optional[int] = None
    warnings: Tuple[str, ...] = field(default=(), compare=False)
    form: str = field(default="key", compare=False)

    @property
    def key(self) -> str:
        return f"{self.owner.lower()}/{self.repo.lower()}/{self.kind}/{self.number}"

    @property
    def repository(self) -> str:
        return f"{self.owner}/{self.repo}"

    @property
    def is_pull(self) -> bool:
        return self.kind == PULL


def sort_key(ref: RoundRef) -> Tuple[str, str, str, int]:
    """The inbox's round order: owner, repository, kind, then number as an integer."""
    return ref.owner.lower(), ref.repo.lower(), ref.kind, ref.number


def api_host_of(api_url: str) -> str:
    """Section 2's HOST (api.github.com -> github.com; https://H/api/v3 -> H; else host:port):
    what a checkpoint stores as `api_host`."""
    return config.host_for(api_url)


def _netloc(scheme: str, host: str, port: int) -> str:
    default = {"http": 80, "https": 443}[scheme]
    return host if port == default else f"{host}:{port}"


def web_host_of(api_url: str) -> str:
    """The web host an API serves (CONTRACT section 18): X for https://api.X (github.com,
    SUB.ghe.com), H for https://H/api/v3, else the API URL's own host and port."""
    plain = config.plain_url(api_url)
    if plain is None:  # not a URL normalise_api_url would pass
        raise UsageError(f"invalid API URL {_shown(api_url)!r}")
    scheme, host, port = plain
    path = split_url(api_url, "API URL", UsageError).path.rstrip("/")
    if not path and host.startswith("api.") and len(host) > len("api."):
        host = host[len("api."):]
    return _netloc(scheme, host, port)


def _shown(text: str) -> str:
    """A REF as it may appear in a message: no userinfo, every control escaped, bounded."""
    shown = escape_field(config.without_userinfo(text) if "://" in text else text)
    return shown if len(shown) <= SHOWN_CHARS else shown[:SHOWN_CHARS] + "…"


def _bad(text: str, why: str) -> UsageError:
    return UsageError(f"malformed REF {_shown(text)!r}: {why} (a REF is {FORMS})")


def _names(text: str, owner: str, repo: str, number: str) -> Tuple[str, str, int]:
    """Owner, repository and number checked with --repo's and --issue's own rules."""
    try:
        config.validate_owner(owner)
        config.validate_repo_name(repo)
        return owner, repo, validate_issue_number(number, "number")
    except UsageError as exc:
        raise _bad(text, exc.message)


def parse_ref(text: str, api_url: str) -> RoundRef:
    """The round `text` names, on the API `api_url` (already normalised); UsageError else."""
    if not isinstance(text, str) or not text:
        raise UsageError(f"malformed REF: empty (a REF is {FORMS})")
    if len(text) > MAX_REF_CHARS:
        raise _bad(text, f"longer than {MAX_REF_CHARS} characters")
    if any(ch.isspace() or not ch.isprintable() for ch in text):
        raise _bad(text, "it holds whitespace or control characters")
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", text):
        return _parse_url(text, api_url)
    m = _KEY_RE.fullmatch(text)
    if m:
        owner, repo, number = _names(text, m.group(1), m.group(2), m.group(4))
        return RoundRef(m.group(3), owner, repo, number, form="key")
    m = _SHORT_RE.fullmatch(text)
    if m:
        owner, repo, number = _names(text, m.group(1), m.group(2), m.group(3))
        return RoundRef(ISSUE, owner, repo, number, form="short")
    raise _bad(text, "not a form this command knows")


def is_key(text: object) -> bool:
    """Whether `text` is a round's key exactly as the inbox writes it (O/R/issues/N or
    O/R/pull/N, lowercased, checked as --repo and --issue): what a state file may name."""
    if not isinstance(text, str) or len(text) > MAX_REF_CHARS:
        return False
    m = _KEY_RE.fullmatch(text)
    if not m:
        return False
    try:
        owner, repo, number = _names(text, m.group(1), m.group(2), m.group(4))
    except UsageError:
        return False
    return RoundRef(m.group(3), owner, repo, number).key == text


def _parse_url(text: str, api_url: str) -> RoundRef:
    scheme = text.split("://", 1)[0].lower()
    if scheme not in ("http", "https"):
        raise _bad(text, f"a {escape_field(scheme)}:// URL (only https://, or http:// to the "
                   "API's own loopback host)")
    if "@" in text.split("://", 1)[1].split("/", 1)[0]:
        raise _bad(text, "it holds a user name or password (userinfo)")
    plain = config.plain_url(text)
    if plain is None:
        raise _bad(text, "not a plain http(s) URL (a host name or IP address, an optional "
                   "port, printable ASCII without a backslash)")
    parts = split_url(text, "REF", UsageError)
    segments = parts.path.split("/")[1:] if parts.path else []
    if segments and segments[-1] == "":
        segments.pop()  # one trailing slash
    api = config.plain_url(api_url)
    api_path = [s for s in split_url(api_url, "API URL", UsageError).path.split("/") if s]
    on_api = api is not None and plain == api
    if on_api and segments[:len(api_path)] == api_path:
        ref = _api_form(text, segments[len(api_path):], parts.fragment)
        if ref is not None:
            return ref
    web = web_host_of(api_url)
    here = _netloc(*plain)
    if here == web:
        if scheme == "http" and api is not None and api[0] != "http":
            raise _bad(text, "plain http:// while the API is https://")
        return _web_form(text, segments, parts.fragment)
    if on_api:
        raise _bad(text, "an API URL whose path is not "
                   f"{escape_field(split_url(api_url).path.rstrip('/'))}/repos/OWNER/REPO/issues/N "
                   "or …/pulls/N")
    raise UsageError(f"REF {_shown(text)!r} is on {escape_field(here)}, not on this command's "
                     f"host {escape_field(web)} (API {escape_field(api_url)}): follow it in a "
                     "command of its own with --api-url for its API")


def _api_form(text: str, seg: list, fragment: str) -> Optional[RoundRef]:
    """…/repos/O/R/issues/N or …/repos/O/R/pulls/N after the API's own path, else None."""
    if len(seg) != 5 or seg[0] != "repos" or seg[3] not in ("issues", "pulls"):
        return None
    owner, repo, number = _names(text, seg[1], seg[2], seg[4])
    warnings = ((f"REF {_shown(text)}: the fragment #{escape_field(fragment)} of an API URL "
                 "is ignored",) if fragment else ())
    return RoundRef(ISSUE if seg[3] == "issues" else PULL, owner, repo, number,
                    warnings=warnings, form="api")


def _web_form(text: str, seg: list, fragment: str) -> RoundRef:
    """/O/R/issues/N, /O/R/pull/N or /O/R/pulls/N (a pull request: then /files or /commits)."""
    kinds = {"issues": ISSUE, "pull": PULL, "pulls": PULL}
    if len(seg) < 4 or seg[2] not in kinds:
        raise _bad(text, "a URL whose path is not /OWNER/REPO/issues/N or /OWNER/REPO/pull/N")
    kind = kinds[seg[2]]
    tail = seg[4:]
    if tail and not (kind == PULL and len(tail) == 1 and tail[0] in ("files", "commits")):
        raise _bad(text, f"unexpected /{escape_field('/'.join(tail))} after the number (only "
                   "/files or /commits, on a pull request)")
    owner, repo, number = _names(text, seg[0], seg[1], seg[3])
    start, warnings = None, ()
    if fragment and kind == ISSUE and fragment.startswith(_COMMENT_FRAGMENT):
        try:
            start = validate_comment_id(fragment[len(_COMMENT_FRAGMENT):], "#issuecomment-ID")
        except UsageError as exc:
            raise _bad(text, exc.message)
    elif fragment:
        what = ("a pull-request round starts from its checkpoint, or as a first look"
                if kind == PULL else "only #issuecomment-ID starts an issue round")
        warnings = (f"REF {_shown(text)}: the fragment #{escape_field(fragment)} is ignored "
                    f"({what})",)
    return RoundRef(kind, owner, repo, number, start, warnings, form="web")


def pull_request_warning(ref: RoundRef, latest_url: object) -> Optional[str]:
    """A warning for `O/R#N` when N turns out to be a pull request (its newest comment's URL
    is GitHub's /O/R/pull/N#issuecomment-ID): the issue round holds the conversation only, the
    pull-request round `O/R/pull/N` also its reviews (CONTRACT section 18). No request: the
    round's document already carries that URL; a conversation without comments says nothing."""
    if ref.form != "short" or ref.kind != ISSUE or not isinstance(latest_url, str):
        return None
    parts = try_split(latest_url)
    if parts is None:  # an answer's URL no parser reads: no hint from it (section 22)
        return None
    segments = parts.path.rstrip("/").split("/")
    if segments[-2:] != [PULL, str(ref.number)]:
        return None
    pull = f"{ref.owner.lower()}/{ref.repo.lower()}/{PULL}/{ref.number}"
    return (f"{ref.key} is a pull request: this round holds its conversation comments only; "
            f"follow {pull} for its reviews and inline comments too")
