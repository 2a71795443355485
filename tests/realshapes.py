"""GitHub's recorded answers (``../shared/github/realshapes/``, README.md there), read for
replay against the fake: a test serves a recorded body with its recorded headers through
``fake.inject`` and runs the scripts on it.

The folder is outside the repository (data copied from public projects' snapshots stays in
``shared/``): a test that needs it is marked ``needs(NAME)`` and skips, saying where it looked,
when it is absent (a fresh clone). ``GH_MONITOR_SHARED`` names the shared folder when it is not
beside the repository (a git worktree)."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any, Dict, List

import pytest

from tests.support import SHARED

REALSHAPES = SHARED / "github" / "realshapes"

# Headers a replay never copies: they describe the recorded connection, not the answer (the fake
# writes its own content-length; `status` is the old HTTP/1 pseudo-header nginx sent).
_CONNECTION = {"status", "content-length", "connection", "transfer-encoding", "server",
               "content-encoding", "date"}


@dataclass
class Exchange:
    method: str
    path: str
    status: int
    headers: Dict[str, str]
    body: str

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def replay_headers(self) -> Dict[str, str]:
        return {k: v for k, v in self.headers.items() if k.lower() not in _CONNECTION}


def needs(*names: str):
    """Skip unless every named recording (``pygithub/X.txt``) is present."""
    missing = [n for n in names if not (REALSHAPES / n).is_file()]
    return pytest.mark.skipif(
        bool(missing),
        reason=f"GitHub's recorded answers not found at {REALSHAPES} ({', '.join(missing)}): "
        "the shared/ folder beside the repository, present in CI and on the developers' "
        "machines, not in a fresh clone (GH_MONITOR_SHARED names it from elsewhere)")


def exchanges(name: str) -> List[Exchange]:
    """A PyGithub ReplayData file's exchanges: blocks of ten lines separated by a blank line
    (protocol, method, host, port, path, request headers, request body, status, response
    headers as a list of pairs, body)."""
    lines = (REALSHAPES / name).read_text(encoding="utf-8").split("\n")
    out = []
    i = 0
    while i + 9 < len(lines):
        block = lines[i:i + 10]
        headers = {k.lower(): v for k, v in ast.literal_eval(block[8])}
        out.append(Exchange(block[1], block[4], int(block[7]), headers, block[9]))
        i += 11
    return out


def exchange(name: str, path_end: str = "") -> Exchange:
    """The first exchange of `name` whose path ends with `path_end`."""
    for ex in exchanges(name):
        if ex.path.split("?")[0].endswith(path_end):
            return ex
    raise LookupError(f"{name}: no exchange for a path ending {path_end!r}")
