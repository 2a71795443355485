"""Hostile input, issue 24: where gh carries the token, and the other holes an attack on
e318b64 found (CONTRACT sections 2, 7, 10, 11, 15, 17 and 20), each closed and kept closed here.

Every test runs the scripts as agents run them (subprocesses), against the fake or a hostile
server of the test's own on loopback addresses only (127.0.0.1 and 127.0.0.2); the gh paths
run the real gh and jq.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests import test_hostile as _shared
from tests.support import (
    NAME,
    OWNER,
    REPOSITORY,
    SCRIPT_PYTHON,
    SCRIPTS,
    TOKEN,
    Run,
    clean_env,
    run_script,
    script_env,
)
from tests.test_hostile import ISSUE, PR, need_tools

hostile, issue, pull, sh_env = _shared.hostile, _shared.issue, _shared.pull, _shared.sh_env

OTHER_HOST = "127.0.0.2"  # loopback, but not 127.0.0.1: another origin

LAUNCHER = ("import os, subprocess, sys\n"
            "p = subprocess.Popen(sys.argv[1:])\n"
            "_, status, usage = os.wait4(p.pid, 0)\n"
            "sys.stderr.write('MAXRSS_KIB=%d\\n' % usage.ru_maxrss)\n"
            "sys.exit(os.waitstatus_to_exitcode(status))\n")


def no_traceback(r: Run) -> None:
    assert "Traceback" not in r.stderr, r
    assert '"internal"' not in r.stdout, r


# --------------------------------------------------------------------------- 13. gzip bomb

_BOMB = {}


def bomb(mib: int = 768) -> bytes:
    if mib not in _BOMB:
        import zlib

        comp = zlib.compressobj(9, zlib.DEFLATED, 31)
        out = [comp.compress(b"[")]
        block = b" " * (1024 * 1024)
        out += [comp.compress(block) for _ in range(mib)]
        out.append(comp.compress(b"]"))
        out.append(comp.flush())
        _BOMB[mib] = b"".join(out)
    return _BOMB[mib]


def _answer_bomb(h) -> bool:
    """768 MiB of JSON, gzipped twice (`Content-Encoding: gzip, gzip`): about 3 KiB on the
    wire. urllib3 1.26 (Debian's; the Python 3.9 pass of .ci/run) undoes such a chain in one
    go: e318b64 held 1.5 GiB there before refusing."""
    data = gzip.compress(bomb(), 9)
    h.send_response(200)
    h.send_header("Content-Type", "application/json; charset=utf-8")
    h.send_header("Content-Encoding", "gzip, gzip")
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    h.wfile.write(data)
    return True


def _peak_run(env, *args):
    proc = subprocess.run([SCRIPT_PYTHON, "-c", LAUNCHER, SCRIPT_PYTHON, *map(str, args)],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    peak = int(re.search(r"MAXRSS_KIB=(\d+)", proc.stderr).group(1))
    return proc, peak


def test_a_gzip_bomb_is_refused_holding_at_most_the_cap(hostile, tmp_path):
    """A few KiB of gzip inflating to 768 MiB: exit 6 at the 64 MiB cap, the peak resident size
    bounded near the cap (e318b64 held 1.5 GiB before refusing)."""
    server = hostile(_answer_bomb)
    env = clean_env(GITHUB_API_URL=server.url, GH_TOKEN=TOKEN)
    proc, peak = _peak_run(env, SCRIPTS / "get_latest_comments.py", "--repo", REPOSITORY,
                           "--issue", ISSUE, "--all", "--root", tmp_path, "--max-wait", "0")
    assert proc.returncode == 6, (proc.stdout[:500], proc.stderr[-500:])
    assert "64 MiB" in json.loads(proc.stdout)["error"]["message"], proc.stdout
    assert peak < 200 * 1024, f"{peak} KiB resident for a 768 MiB bomb (cap 64 MiB)"


def _gzipped_proxy(h) -> bool:
    """The fake's answer, gzipped (as GitHub answers a client that asks for it)."""
    import http.client
    from urllib.parse import urlsplit

    up = urlsplit(h.server.upstream_url)
    conn = http.client.HTTPConnection(up.hostname, up.port, timeout=30)
    conn.request("GET", h.path, headers=dict(h.headers.items()))
    resp = conn.getresponse()
    data = gzip.compress(resp.read())
    h.send_response(resp.status)
    for name, value in resp.getheaders():
        if name.lower() not in ("content-length", "transfer-encoding", "connection", "date",
                                "server", "content-encoding"):
            h.send_header(name, value)
    h.send_header("Content-Encoding", "gzip")
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    h.wfile.write(data)
    conn.close()
    return True


def test_a_gzipped_answer_is_still_read_on_both_paths(issue, hostile, tmp_path):
    """The bounded inflation reads what GitHub sends gzipped, on requests and on the 304 fast
    path (a poll's conditional GET answered 200 with a new comment)."""
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    server = hostile(_gzipped_proxy)
    server.server.upstream_url = issue.url
    env = script_env(issue, GITHUB_API_URL=server.url)
    first = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                       "--root", tmp_path, "--update-state", env=env)
    assert first.code == 0 and len(first.json["comments"]) == 3, first
    issue.add_comments(OWNER, NAME, ISSUE, 1)
    poll = run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                      "--root", tmp_path, env=env)
    assert poll.code == 0 and len(poll.json["new_comments"]) == 1, poll
