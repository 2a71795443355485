"""Running the bundle's scripts exactly as an agent does: subprocesses, real HTTP, the fake."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts"
SHARED = REPO.parent / "shared"
TOKEN = "ghp_scriptTestToken0000000000000000000000"
# The interpreter the scripts run under; CI also runs them under the oldest supported Python.
SCRIPT_PYTHON = os.environ.get("GH_MONITOR_TEST_PYTHON") or sys.executable
OWNER, NAME = "octo", "hello"
REPOSITORY = f"{OWNER}/{NAME}"


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)

    def __repr__(self) -> str:  # shown by pytest when an assertion fails
        return f"Run(code={self.code}, stdout={self.stdout[:2000]!r}, stderr={self.stderr[:2000]!r})"


def clean_env(**extra: str) -> Dict[str, str]:
    """The caller's environment minus anything GitHub-related (no real token can leak in)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GH_", "GITHUB_")) and k not in ("HTTP_PROXY", "HTTPS_PROXY",
                                                                 "http_proxy", "https_proxy")}
    env.update(extra)
    return env


def script_env(fake, token: Optional[str] = TOKEN, login: str = "octocat",
               **extra: str) -> Dict[str, str]:
    """Environment for a script talking to `fake` (GITHUB_API_URL + GH_TOKEN, as Actions sets
    them), with HOME in a temp folder so no real gh login is found."""
    env = clean_env(GITHUB_API_URL=fake.url, GH_CONFIG_DIR=str(Path(fake_home(fake)) / "gh"))
    if token:
        fake.add_token(token, login=login)
        env["GH_TOKEN"] = token
    env.update(extra)
    return env


_HOMES: Dict[int, str] = {}


def fake_home(fake) -> str:
    import tempfile

    key = id(fake)
    if key not in _HOMES:
        _HOMES[key] = tempfile.mkdtemp(prefix="ghmon-home-")
    return _HOMES[key]


def run_script(name: str, *args: Any, env: Optional[Dict[str, str]] = None,
               cwd: Optional[os.PathLike] = None, stdin: Optional[bytes] = None,
               timeout: float = 120) -> Run:
    """`python3 scripts/NAME args…` as a subprocess; stdout, stderr and exit code."""
    path = SCRIPTS / name
    cmd = ([SCRIPT_PYTHON, str(path)] if name.endswith(".py") else ["bash", str(path)])
    proc = subprocess.run(cmd + [str(a) for a in args], env=env, cwd=cwd, input=stdin,
                          capture_output=True, timeout=timeout, check=False)
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"),
               proc.stderr.decode("utf-8", "replace"))


def comment_requests(fake, method: str = "GET"):
    """The fake's log entries for issue-comment list reads (the monitor's requests)."""
    return [r for r in fake.requests if r.method == method and r.path.endswith("/comments")
            and "/issues/" in r.path]
