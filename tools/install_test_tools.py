#!/usr/bin/env python3
"""Install the real installers the install-channel tests drive, pinned, into a cache folder.

  python3 tools/install_test_tools.py                  (or: make test-tools; `make test` runs it)
  python3 tools/install_test_tools.py --dest /tmp/tools --only uv

Each tool lands in DEST/NAME (default env GH_MONITOR_TEST_TOOLS, else
~/.cache/gh-issue-comment-monitor/test-tools, kept between runs and clones): uv from PyPI
(`pip install --target`); the Claude Code, Copilot and Codex CLIs and vercel-labs' `skills`
from npm (`npm install --prefix`). A tool already there at its pinned version is left alone.
A tool that cannot be installed leaves DEST/NAME.unavailable holding why (the registry's
answer), so the tests that need it skip with that reason; this script still exits 0, so
`make test` goes on.
Standard library only. Exit codes: 0 done (some tools may be unavailable); 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

# Kept across clones (CI's fresh one included): env GH_MONITOR_TEST_TOOLS, else the user cache.
DEFAULT_DEST = Path(os.environ.get("GH_MONITOR_TEST_TOOLS") or Path(
    os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "gh-issue-comment-monitor" / "test-tools")
# Pinned to versions that run on this project's machines (Python 3.11, Node 20):
# claude-code 2.1.328 is a native binary that runs there (its package.json declares Node 22);
# skills 1.5.18 is the last release that declares (and runs on) Node 18+, later ones need 22.20;
# the Copilot CLI 1.0.102 and the Codex CLI 0.171.0 (native binaries too) run there.
TOOLS: Dict[str, Dict[str, str]] = {
    "uv": {"registry": "PyPI", "spec": "uv==0.13.9", "version": "0.13.9", "bin": "bin/uv"},
    "claude": {"registry": "npm", "spec": "@anthropic-ai/claude-code@2.1.328",
               "version": "2.1.328", "bin": "node_modules/.bin/claude"},
    "skills": {"registry": "npm", "spec": "skills@1.5.18", "version": "1.5.18",
               "bin": "node_modules/.bin/skills"},
    "copilot": {"registry": "npm", "spec": "@github/copilot@1.0.102", "version": "1.0.102",
                "bin": "node_modules/.bin/copilot"},
    "codex": {"registry": "npm", "spec": "@openai/codex@0.171.0", "version": "0.171.0",
              "bin": "node_modules/.bin/codex"},
}
# What a client prints when the registry could not be reached (as opposed to a refusal).
UNREACHABLE = ("ENOTFOUND", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EAI_AGAIN",
               "ENETUNREACH", "Network is unreachable", "Connection refused",
               "Temporary failure in name resolution", "Max retries exceeded", "timed out",
               "Failed to fetch", "error sending request", "tunnel error",
               "No matching distribution", "Could not find a version", "not installed")


def stamp(dest: Path, name: str) -> Path:
    return dest / name / ".installed.json"


def binary(name: str, dest: Path = DEFAULT_DEST) -> Optional[Path]:
    """The installed tool's executable at its pinned version, or None."""
    try:
        done = json.loads(stamp(dest, name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    path = dest / name / TOOLS[name]["bin"]
    return path if done.get("spec") == TOOLS[name]["spec"] and path.exists() else None


def unavailable(name: str, dest: Path = DEFAULT_DEST) -> Optional[str]:
    """Why the last install of the tool failed, or None."""
    try:
        return (dest / f"{name}.unavailable").read_text(encoding="utf-8").strip()
    except OSError:
        return None


def reachable_failure(reason: str) -> bool:
    """Whether a failed install reads as an unreachable registry (the tests then skip)."""
    return any(marker.lower() in reason.lower() for marker in UNREACHABLE)


def command(name: str, target: Path) -> List[str]:
    tool = TOOLS[name]
    if tool["registry"] == "PyPI":
        return [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                "--timeout", "60", "--retries", "2", "--no-deps", "--target", str(target),
                tool["spec"]]
    npm = shutil.which("npm")
    if npm is None:
        raise FileNotFoundError("npm is not installed (Node.js): apt-get install npm")
    return [npm, "install", "--silent", "--no-save", "--no-package-lock", "--no-audit",
            "--no-fund", "--fetch-retries=2", "--fetch-timeout=60000", "--prefix", str(target),
            tool["spec"]]


def install(name: str, dest: Path) -> Optional[str]:
    """Install one tool unless present; None on success, else the reason."""
    if binary(name, dest):
        return None
    tool = TOOLS[name]
    target = dest / name
    staging = dest / f".{name}.new-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    dest.mkdir(parents=True, exist_ok=True)
    print(f"test-tools: installing {tool['spec']} from {tool['registry']} into {target}",
          file=sys.stderr, flush=True)
    try:
        proc = subprocess.run(command(name, staging), capture_output=True, text=True,
                              timeout=600, check=False, stdin=subprocess.DEVNULL)
        reason = None if proc.returncode == 0 else " ".join(
            (proc.stderr or proc.stdout or f"exit {proc.returncode}").split())[-600:]
    except (OSError, subprocess.SubprocessError) as exc:
        reason = str(exc)
    if reason is None and not (staging / tool["bin"]).exists():
        reason = f"installed, but {tool['bin']} is missing"
    if reason is not None:
        shutil.rmtree(staging, ignore_errors=True)
        text = f"{tool['spec']} could not be installed from {tool['registry']}: {reason}"
        (dest / f"{name}.unavailable").write_text(text + "\n", encoding="utf-8")
        return text
    (staging / ".installed.json").write_text(json.dumps({"spec": tool["spec"]}) + "\n",
                                             encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    os.rename(staging, target)
    try:
        (dest / f"{name}.unavailable").unlink()
    except FileNotFoundError:
        pass
    return None


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="install_test_tools.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dest", default=str(DEFAULT_DEST), metavar="DIR")
    parser.add_argument("--only", action="append", choices=sorted(TOOLS), default=[])
    args = parser.parse_args(argv)
    dest = Path(os.path.abspath(args.dest))
    for name in args.only or list(TOOLS):
        reason = install(name, dest)
        if reason:
            print(f"test-tools: {reason} (the tests that need it will skip)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
