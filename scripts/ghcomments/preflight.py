"""verify_dependencies.py: what this machine has for the bundle (CONTRACT section 9).

`requests` is imported lazily, so a missing one is reported rather than crashing the check.
A token is reported by its source name only, never its value; the report is scrubbed like
every script's output (a 401 body echoing the header shows ***).
"""

from __future__ import annotations

import shutil
import subprocess
import sys

from .base.child import child_env
from .base.errors import AuthError, requests_missing
from .net import config
from .text import tokens

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Mapping, Optional


def _version(cmd: List[str]) -> Optional[str]:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=15, check=False,
                             stdin=subprocess.DEVNULL, env=child_env())
    except (OSError, subprocess.SubprocessError):
        return None
    text = (out.stdout or out.stderr).strip().splitlines()
    return text[0] if text else ""


def _check(name: str, ok: bool, required: bool, detail: str) -> Dict[str, Any]:
    return {"name": name, "ok": ok, "required": required, "detail": detail}


def run_checks(api_url: str, env: Mapping[str, str], check_network: bool,
               timeout: float) -> Dict[str, Any]:
    checks = []
    py_ok = sys.version_info >= (3, 9)
    checks.append(_check("python", py_ok, True,
                         f"Python {sys.version.split()[0]} at {sys.executable} (3.9 or newer "
                         "needed)"))
    try:
        import requests

        checks.append(_check("requests", True, True,
                             f"requests {requests.__version__} (for {sys.executable})"))
        have_requests = True
    except ImportError:
        checks.append(_check("requests", False, True, requests_missing(sys.executable)))
        have_requests = False
    host = config.host_for(api_url)
    tokens.register_env(env)  # scrubbed from the report, like every script's output
    try:
        token, source = config.discover_token(api_url, env)
        refused = None
    except AuthError as exc:  # a token no header can carry: say which variable, not its value
        token, source, refused = None, None, exc.message
    if token:
        checks.append(_check("credentials", True, True, f"token for {host} from {source}"))
    elif refused:
        checks.append(_check("credentials", False, True, refused))
    else:
        checks.append(_check("credentials", False, True,
                             f"no token for {host}: set GH_TOKEN (GH_ENTERPRISE_TOKEN for "
                             "another host) or run `gh auth login`; public repositories can "
                             "still be read without one (60 requests an hour)"))
    tools = {"gh": ["gh", "--version"], "jq": ["jq", "--version"], "git": ["git", "--version"],
             "bash": ["bash", "--version"]}
    for name, cmd in tools.items():
        path = shutil.which(name, path=env.get("PATH"))
        version = _version([path] + cmd[1:]) if path else None
        used_by = {"gh": "the gh transport and the shell fallback",
                   "jq": "the shell fallback", "git": "--active and repository detection",
                   "bash": "the shell fallback"}[name]
        checks.append(_check(name, bool(path), False,
                             f"{version} ({used_by})" if path else f"not found ({used_by})"))
    if check_network:
        checks.append(_network_check(api_url, token, timeout) if have_requests else
                      _check("network", False, True, "needs requests"))
    return {"ok": all(c["ok"] for c in checks if c["required"]), "api_url": api_url,
            "checks": checks}


def _network_check(api_url: str, token: Optional[str], timeout: float) -> Dict[str, Any]:
    """GET /rate_limit: free of rate-limit cost; reports the remaining core budget."""
    from .base.errors import BundleError
    from .net.client import GitHubClient
    from .net.http_requests import RequestsTransport

    client = GitHubClient(api_url, RequestsTransport(token, timeout), max_wait=0)
    try:
        data, _ = client.get_json("rate_limit", what="GET /rate_limit")
    except BundleError as exc:
        return _check("network", False, True, f"{api_url}: {exc.message}")
    core = _core_limit(data)
    if core is None:  # a malformed answer is a failed check, never a crash (CONTRACT 17)
        return _check("network", False, True,
                      f"{api_url}: GET /rate_limit answered with a malformed document (not "
                      "{resources: {core: {limit, remaining}}})")
    return _check("network", True, True,
                  f"{api_url} reachable; core rate limit {core['remaining']} of "
                  f"{core['limit']} remaining")


def _core_limit(data: Any) -> Optional[Dict[str, int]]:
    """{limit, remaining} of the core budget in a /rate_limit answer, types checked; None when
    the answer is malformed."""
    if not isinstance(data, dict):
        return None
    resources = data.get("resources")
    core = resources.get("core") if isinstance(resources, dict) else None
    if core is None and "resources" not in data:
        core = data.get("rate")
    if not isinstance(core, dict):
        return None
    numbers = {k: core.get(k) for k in ("limit", "remaining")}
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in numbers.values()):
        return None
    return numbers  # type: ignore[return-value]
