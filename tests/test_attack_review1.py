"""Adversarial review of issue 31 / CONTRACT section 22 on main (helper `attack1`): each test
proves one defect and fails on main. The shell fallback runs with the real gh and jq against
the fake GitHub (or a hostile server of the test's own on 127.0.0.1); peaks are the child's own
peak RSS (os.wait4), as tests/test_attack_31_res.py measures them."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import time

from tests import test_hostile as _shared
from tests.support import REPOSITORY, SCRIPT_PYTHON, SCRIPTS, run_script
from tests.test_hostile import PR, need_tools
from tests.test_hostile_24 import LAUNCHER, _through

hostile, pull, sh_env = _shared.hostile, _shared.pull, _shared.sh_env
SH = "get-pr-comments.sh"
MIB = 1024 * 1024


def _sh(env, *args, timeout=120):
    return run_script(SH, "--repo", REPOSITORY, "--pr", PR, "--format", "json", *args,
                      env=env, timeout=timeout)


def _sh_peak(env, *args, timeout=300):
    proc = subprocess.run([SCRIPT_PYTHON, "-c", LAUNCHER, "bash", str(SCRIPTS / SH),
                           "--repo", REPOSITORY, "--pr", str(PR), "--format", "json",
                           *map(str, args)],
                          env=env, capture_output=True, text=True, timeout=timeout,
                          check=False)
    peak = int(re.search(r"MAXRSS_KIB=(\d+)", proc.stderr).group(1))
    return proc, peak


# --------------------------------------------------------------------------- shell: headers

def test_shell_rate_limit_reset_with_a_leading_zero_is_exit_1(pull, sh_env):
    """`x-ratelimit-reset: 0999999999` passes the shell's `^[0-9]{1,12}$` check, then bash's
    `$((reset > now ? …))` reads it as octal: "value too great for base", exit 1 with no
    error JSON (section 10: every error is a JSON object and a documented exit code)."""
    need_tools("gh", "jq")
    pull.inject("GET", r"/pulls/7$", status=403, times=None,
                headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "0999999999"},
                body={"message": "API rate limit exceeded"})
    r = _sh(sh_env)
    assert r.code == 5, r
    assert json.loads(r.stdout)["error"]["code"] == "rate_limited", r


def test_shell_retry_after_with_a_leading_zero_prints_invalid_error_json(pull, sh_env):
    """`Retry-After: 030` passes `^[0-9]{1,9}$` and is printed as is: the error object holds
    `"retry_after_seconds": 030`, which is not JSON, so an agent cannot read the error."""
    need_tools("gh", "jq")
    pull.inject("GET", r"/pulls/7$", status=429, times=None, headers={"retry-after": "030"},
                body={"message": "You have exceeded a secondary rate limit"})
    r = _sh(sh_env)
    assert r.code == 5, r
    error = json.loads(r.stdout)["error"]
    assert error["retry_after_seconds"] == 30, error
