"""Running the bundle's scripts exactly as an agent does: subprocesses, real HTTP, the fake."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional
from urllib.parse import parse_qs, urlsplit

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts"
# The shared reference data beside the repository (GH_MONITOR_SHARED names it elsewhere, e.g.
# from a git worktree whose parent holds no shared/ folder).
SHARED = Path(os.environ.get("GH_MONITOR_SHARED") or REPO.parent / "shared")
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


def inbox(fake, root, *args: Any, env: Optional[Dict[str, str]] = None) -> Run:
    """`check_issue_updates.py --root ROOT args…` over rounds (`--follow`, `--followed`), the
    fake's log cleared first, so `fake.requests` afterwards holds exactly its requests."""
    fake.clear_log()
    return run_script("check_issue_updates.py", "--root", root, *args,
                      env=env or script_env(fake))


def latest(fake, root, *args: Any, env: Optional[Dict[str, str]] = None) -> Run:
    """`get_latest_comments.py --root ROOT args…` (confirm, `--followed`, `--unfollow`), the
    fake's log cleared first."""
    fake.clear_log()
    return run_script("get_latest_comments.py", "--root", root, *args,
                      env=env or script_env(fake))


def follow_args(keys) -> list:
    """`--follow K` for each key, in order."""
    return [arg for k in keys for arg in ("--follow", k)]


def by_key(doc) -> Dict[str, Any]:
    """An inbox document's conversations by key."""
    return {c["key"]: c for c in doc["conversations"]}


def comment_requests(fake, method: str = "GET"):
    """The fake's log entries for issue-comment list reads (the monitor's requests)."""
    return [r for r in fake.requests if r.method == method and r.path.endswith("/comments")
            and "/issues/" in r.path]


def state_dir(root) -> Path:
    return Path(root) / ".tmp" / "runs" / "default" / "gh-issue-comment-monitor"


class Agent:
    """An agent's monitor commands on one issue (`--issue N`) or pull request (`--pr N`),
    run as subprocesses against `fake`; `check` and `latest` clear the fake's log first, so
    `fake.requests` afterwards holds exactly that command's requests."""

    def __init__(self, fake, root, flag: str, number: int, env: Optional[Dict[str, str]] = None,
                 name: str = NAME) -> None:
        self.fake, self.root, self.flag, self.number = fake, Path(root), flag, number
        self.env = env if env is not None else script_env(fake)
        self.name = name

    @property
    def stem(self) -> str:
        return f"{OWNER}-{self.name}-{self.number}" + ("-pr" if self.flag == "--pr" else "")

    def file(self, kind: str = "") -> Path:
        """The checkpoint (""), "updates" or "hints" file."""
        return state_dir(self.root) / (self.stem + (f"-{kind}" if kind else "") + ".json")

    def run(self, script: str, *args: Any, env: Optional[Dict[str, str]] = None) -> Run:
        self.fake.clear_log()
        return run_script(script, "--repo", f"{OWNER}/{self.name}", self.flag, self.number,
                          "--root", self.root, *args, env=env or self.env)

    def check(self, *args: Any, **kw: Any) -> Run:
        return self.run("check_issue_updates.py", *args, **kw)

    def latest(self, *args: Any, **kw: Any) -> Run:
        return self.run("get_latest_comments.py", *args, **kw)

    def confirm(self, snapshot: str, *args: Any) -> Run:
        return self.latest("--confirm-updates", "--snapshot-id", snapshot, *args)

    def look_and_confirm(self, *args: Any) -> Dict[str, Any]:
        r = self.check(*args)
        assert r.code == 0, r
        c = self.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        return r.json

    def statuses(self):
        return [q.status for q in self.fake.requests]


def links(response) -> Dict[str, str]:
    """A `requests` response's `Link` header as {rel: url} (the fake's tests)."""
    out = {}
    for part in response.headers.get("Link", "").split(", "):
        if part:
            url, rel = part.split("; ")
            out[rel[len('rel="'):-1]] = url[1:-1]
    return out


def query_of(url: str) -> Dict[str, str]:
    """A URL's query as {name: first value}."""
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
