"""Issue 31, item 6 (CONTRACT section 22): the shell fallback's memory follows the values jq
parses, not the bytes. A few KiB of gzip inflating to 16 MiB of `[{},{},…]` made jq take
2.2 GiB and 33 s; now each page's values are counted in constant memory first, and a page or a
run past the bounds is exit 6. Run with the real gh and jq, the peak resident size read from
the kernel's accounting of the script and everything it waited for."""

from __future__ import annotations

import gzip
import json
import re
import subprocess

from tests import test_hostile as _shared
from tests.support import NAME, OWNER, REPOSITORY, SCRIPT_PYTHON, SCRIPTS
from tests.test_hostile import PR, need_tools
from tests.test_hostile_24 import LAUNCHER, _through

hostile, pull, sh_env = _shared.hostile, _shared.pull, _shared.sh_env
SH = SCRIPTS / "get-pr-comments.sh"
_BODIES = {}


def _values_bomb(decoded_mib: int) -> bytes:
    if decoded_mib not in _BODIES:
        n = decoded_mib * 1024 * 1024 // 3
        _BODIES[decoded_mib] = gzip.compress(b"[" + b",".join([b"{}"] * n) + b"]", 9)
    return _BODIES[decoded_mib]


def _bomb_on(hostile, fake, match: str, decoded_mib: int):
    """A proxy in front of the fake answering paths holding `match` with the bomb, gzipped
    (gh asks for gzip and inflates it itself)."""
    data = _values_bomb(decoded_mib)

    def answer(h) -> bool:
        if match not in h.path:
            return False
        h.send_response(200)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
        return True

    return hostile(answer, upstream=fake.url)


def _peak(env, *args):
    proc = subprocess.run([SCRIPT_PYTHON, "-c", LAUNCHER, "bash", str(SH), *map(str, args)],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    peak = int(re.search(r"MAXRSS_KIB=(\d+)", proc.stderr).group(1))
    return proc, peak


def test_a_values_bomb_is_exit_6_within_256_mib(pull, sh_env, hostile):
    need_tools("gh", "jq")
    proxy = _bomb_on(hostile, pull, "/pulls/7/comments", 16)
    assert len(_values_bomb(16)) < 64 * 1024
    proc, peak = _peak(_through(sh_env, proxy), "--repo", REPOSITORY, "--pr", PR,
                       "--format", "json")
    assert peak < 256 * 1024, f"{peak} KiB resident for 16 MiB of empty objects"
    assert proc.returncode == 6, (proc.stdout[:500], proc.stderr[-500:])
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "server" and "200000 JSON values" in error["message"], error


def test_a_long_real_read_still_passes_the_count(pull, sh_env):
    """Three pages of real comments are far below the bounds: read whole, as before."""
    need_tools("gh", "jq")
    for i in range(250):
        pull.add_comment(OWNER, NAME, PR, f"note {i}, with [brackets] and {{braces}}",
                         user="alice")
    proc, peak = _peak(sh_env, "--repo", REPOSITORY, "--pr", PR, "--format", "json")
    assert proc.returncode == 0, proc.stderr[-800:]
    notes = [c for c in json.loads(proc.stdout)["timelineComments"]
             if c["commentType"] == "issue_comment"]
    assert len(notes) == 251
    assert peak < 256 * 1024, peak
