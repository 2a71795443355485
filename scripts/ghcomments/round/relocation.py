"""A moved repository or issue (CONTRACT amendments, turn 6): a read without
`--include-events` that GitHub answers with a redirect follows it once (net/client.py learns
where the round's own path went), says so, and the round's later reads go straight there.

Where it went is kept beside the poll hints (the hints file's `moved`, a cache like them: lost,
the next read follows the redirect once more), so idle polls settle to one 304 each again. The
round's scope is its subject's path: a pull request's whole repository (a pull request is
never transferred, so only a renamed or transferred repository moves it), an issue's own path
(an issue may be transferred alone, to a number of its own)."""

from __future__ import annotations

import re

from ..base.errors import BundleError
from ..net.client import RELOCATION

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Optional

FULL_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}/"
                       r"(?!\.\.?$)[A-Za-z0-9._-]{1,100}")


def scope_of(rnd: Any) -> str:
    """The round's own path under the API, lowercased."""
    own = f"repos/{rnd.owner}/{rnd.repo}"
    if rnd.label != "pull_request":
        own += f"/issues/{rnd.number}"
    return own.lower()


def install(rnd: Any) -> None:
    """The round's scope registered with its client, and a stored relocation of it used."""
    scope = scope_of(rnd)
    if scope not in rnd.client.scopes:
        rnd.client.scopes.append(scope)
    stored = valid(rnd.store.moved, scope)
    rnd.relocation = stored
    if stored is not None:
        rnd.client.relocations[scope] = stored["to"]


def valid(doc: Any, scope: str) -> Optional[Dict[str, Any]]:
    """A stored relocation of `scope`, or None (a cache: anything else is ignored)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("from"), str):
        return None
    to, name, number = doc.get("to"), doc.get("repository"), doc.get("number")
    if (doc["from"].lower() != scope or not isinstance(to, str) or not RELOCATION.fullmatch(to)
            or not (name is None or (isinstance(name, str) and FULL_NAME.fullmatch(name)))
            or not (number is None or (type(number) is int and 0 < number < 10**20))):
        return None
    return {"from": scope, "to": to, "repository": name, "number": number}


def after_read(rnd: Any) -> None:
    """After a read: a newly followed redirect is recorded (for the hints file) with the
    repository's name there (one read of `/repositories/ID` when the redirect named only
    the id); either way the round's warning says where it is read now."""
    scope = scope_of(rnd)
    to = rnd.client.relocations.get(scope)
    if to is None:
        return
    known = rnd.relocation
    if known is None or known["to"] != to:
        known = {"from": scope, "to": to, **_named(rnd, to)}
        rnd.relocation = known
        rnd.hints.moved = known
    _warn(rnd, known)


def _named(rnd: Any, to: str) -> Dict[str, Any]:
    """The repository's name and the number at the new place (None where unknown)."""
    parts = to.split("/")
    number = int(parts[3]) if len(parts) == 4 else (
        None if rnd.label != "pull_request" else rnd.number)
    if parts[0] == "repos":
        return {"repository": f"{parts[1]}/{parts[2]}", "number": number}
    try:
        data, _resp = rnd.client.get_json(f"repositories/{parts[1]}",
                                          what=f"the repository {rnd.repository} moved to")
    except BundleError:
        return {"repository": None, "number": number}
    name = data.get("full_name") if isinstance(data, dict) else None
    if not (isinstance(name, str) and FULL_NAME.fullmatch(name)):
        name = None
    return {"repository": name, "number": number}


def _warn(rnd: Any, known: Dict[str, Any]) -> None:
    where = f"{rnd.client.base}/{known['to']}"
    name, number = known.get("repository"), known.get("number")
    if name:
        flag = "--pr" if rnd.label == "pull_request" else "--issue"
        use = (f"; use --repo {name} {flag} {number} (REF {name}#{number}) from now on"
               if number else f"; use --repo {name} from now on")
    else:
        use = "; its new name is unknown (read it at that location)"
    text = (f"{rnd.repository}#{rnd.number} has moved: GitHub redirected its reads to "
            f"{where}, where it is read from now on (the checkpoint stays valid){use}")
    if text not in rnd.warnings:
        rnd.warnings.append(text)
