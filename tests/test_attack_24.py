"""A fresh attack on issue 24's change (the gh transport, the shell fallback, the writer):
each test proved a defect on 484491d and keeps it closed. Scripts run as agents run them
(subprocesses), with the real gh and jq, against the fake or a hostile server of the test's own
on loopback addresses only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests import test_hostile as _shared
from tests.support import NAME, OWNER, REPOSITORY, SCRIPT_PYTHON, SCRIPTS
from tests.test_hostile import ISSUE, PR, need_tools

hostile, issue, pull, sh_env = _shared.hostile, _shared.issue, _shared.pull, _shared.sh_env


def _stalling_proxy(hostile, fake, match: str, seconds: float = 30.0):
    """A proxy in front of the fake that holds requests whose path holds `match` for up to
    `seconds` (released early by `release`), then forwards them."""
    gate = threading.Event()

    def answer(h) -> bool:
        if match in h.path:
            h.server.entered.set()
            gate.wait(seconds)
        return False

    proxy = hostile(answer, upstream=fake.url)
    proxy.server.entered = threading.Event()
    proxy.release = gate.set
    return proxy


def _through(env, proxy):
    return {**env, "HTTP_PROXY": proxy.url, "HTTPS_PROXY": proxy.url, "http_proxy": proxy.url,
            "https_proxy": proxy.url}


def _token_files(folder: Path, token: str):
    """Files under `folder` whose bytes hold `token`."""
    found = []
    for path in folder.rglob("*"):
        try:
            if path.is_file() and not path.is_symlink() and token.encode() in path.read_bytes():
                found.append(str(path))
        except OSError:
            pass
    return found


# --------------------------------------------------------------------------- a signal while gh runs

SIGNAL_CASES = [
    ("get_pr_comments.py", ["--pr", PR, "--format", "json"], "/graphql", signal.SIGTERM),
    ("manage_issue_comment.py", ["--action", "create", "--issue", ISSUE, "--body-file", "-"],
     "/issues/5/comments", signal.SIGTERM),
    ("get_latest_comments.py", ["--issue", ISSUE, "--last-n", 1, "--root", "."],
     "/issues/5/comments", signal.SIGHUP),
]


@pytest.mark.parametrize("script,args,match,sig", SIGNAL_CASES,
                         ids=[f"{c[0]}-{c[3].name}" for c in SIGNAL_CASES])
def test_a_signal_while_gh_runs_leaves_no_token_on_disk(pull, gh_env, hostile, tmp_path,
                                                        script, args, match, sig):
    """484491d wrote GH_TOKEN into a temporary GH_CONFIG_DIR for each `gh api`; a SIGTERM (the
    writer, get_pr_comments.py: default handlers) or a SIGHUP (every script) while gh ran
    killed Python before the folder was removed: the token stayed in TMPDIR's hosts.yml."""
    need_tools("gh")
    pull.add_issue(OWNER, NAME, ISSUE)
    proxy = _stalling_proxy(hostile, pull, match)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**_through(gh_env, proxy), "TMPDIR": str(tmpdir)}
    proc = subprocess.Popen([SCRIPT_PYTHON, str(SCRIPTS / script), "--repo", REPOSITORY,
                             *map(str, args), "--transport", "gh"],
                            env=env, cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        proc.stdin.write(b"hello\n")
        proc.stdin.close()
        assert proxy.server.entered.wait(60), "gh never reached the server"
        proc.send_signal(sig)
        proc.wait(60)
    finally:
        proxy.release()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    time.sleep(0.2)
    assert _token_files(tmpdir, gh_env["GH_TOKEN"]) == []
