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


# --------------------------------------------------------------------------- shell: bodies

def _gz_answer(match, status, payload, extra=None):
    data = gzip.compress(payload, 9)

    def answer(h) -> bool:
        if match not in h.path:
            return False
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Encoding", "gzip")
        for name, value in (extra or {}).items():
            h.send_header(name, value)
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
        return True

    return answer, data


def _empty_objects(mib: int) -> bytes:
    return b"[" + b",".join([b"{}"] * (mib * MIB // 3)) + b"]"


def test_shell_values_bomb_in_an_error_answer_is_parsed_whole(pull, sh_env, hostile):
    """The per-page value count runs only on answers gh exited 0 for: a 500 whose body is 16
    MiB of `[{},{},…]` in an error object (a few KiB of gzip) goes straight to classify_failure's `jq -rs`, which
    builds it whole to look for `.message` (section 22: the shell fallback refuses a page of
    more than 200,000 values before jq parses it; peak under 256 MiB)."""
    need_tools("gh", "jq")
    answer, data = _gz_answer("/pulls/7/comments", 500,
                              b'{"message": "boom", "documentation_url": '
                              + _empty_objects(16) + b"}")
    assert len(data) < 64 * 1024
    proxy = hostile(answer, upstream=pull.url)
    proc, peak = _sh_peak(_through(sh_env, proxy))
    assert proc.returncode == 6, (proc.stdout[:300], proc.stderr[-300:])
    assert peak < 256 * 1024, f"{peak} KiB resident for a 16 MiB error answer"


def test_shell_newline_padded_page_takes_minutes(pull, sh_env, hostile):
    """split_response reads gh's output line by line in bash, appending each line to two
    files: a valid page of `[` + 4 Mi newlines + `]` (4 KiB of gzip, far under the 64 MiB
    cap and with no values at all) keeps the fallback busy for minutes; 64 MiB of newlines
    (64 KiB of gzip) for far longer. GH_CALL_TIMEOUT bounds gh, nothing bounds this loop."""
    need_tools("gh", "jq")
    answer, data = _gz_answer("/pulls/7/comments", 200, b"[" + b"\n" * (4 * MIB) + b"]")
    assert len(data) < 8 * 1024
    proxy = hostile(answer, upstream=pull.url)
    start = time.monotonic()
    try:
        r = _sh(_through(sh_env, proxy), timeout=60)
    except subprocess.TimeoutExpired:
        r = None
    took = time.monotonic() - start
    assert r is not None and took < 60, f"still running after {took:.0f} s"


def test_shell_hidden_characters_in_one_body_take_minutes(pull, sh_env):
    """One issue comment whose body is 150,000 zero-width spaces (450 KB, one JSON value, far
    under the 1 Mi-character text bound of the Python paths): hidden_count's
    `[match(hidden_re; "g") | .length]` in jq 1.6 is quadratic (50,000 took 12 s of jq alone,
    600,000 ran past pytest's 300 s timeout; 150,000 is about 110 s, past the 60 s bound here):
    one stranger's comment hangs the fallback."""
    need_tools("gh", "jq")
    pull.add_comment(_shared.OWNER, _shared.NAME, PR, "\u200b" * 150_000, user="mallory")
    start = time.monotonic()
    try:
        r = _sh(sh_env, timeout=60)
    except subprocess.TimeoutExpired:
        r = None
    took = time.monotonic() - start
    assert r is not None and took < 60, f"still running after {took:.0f} s"
    assert r.code == 0, r


def _nested_groups(mib: int, depth: int = 250) -> bytes:
    group = b"[" * depth + b"]" * depth
    return b"[" + b",".join([group] * (mib * MIB // len(group))) + b"]"


def test_shell_value_count_misses_nested_containers(pull, sh_env, hostile):
    """count_values counts only the leaves jq --stream emits (`select(length == 2)`): 16 MiB of
    `[[[…]]],[[[…]]],…` groups 250 deep (under jq 1.6's depth limit) holds 8.4 million arrays
    but 33,000 leaves, so it passes the 200,000 bound and `jq -s` then builds it whole (2.3 GiB
    measured for jq alone on 16 MiB; 8 MiB here). The Python paths count every opening bracket; the shell does not."""
    need_tools("gh", "jq")
    answer, data = _gz_answer("/pulls/7/comments", 200, _nested_groups(8))
    assert len(data) < 256 * 1024
    proxy = hostile(answer, upstream=pull.url)
    proc, peak = _sh_peak(_through(sh_env, proxy))
    assert proc.returncode == 6, (proc.stdout[:300], proc.stderr[-300:])
    assert peak < 256 * 1024, f"{peak} KiB resident for 8 MiB of nested arrays"


# --------------------------------------------------------------------------- Python: --follow

def test_followed_comment_of_another_issue_without_issue_url_is_followed(hostile, fake,
                                                                         tmp_path):
    """`--follow …/issues/5#issuecomment-ID` where ID is a comment of issue 9: one_comment
    compares `issue_url`'s number only when it can read one (normalize.number_at_end returns
    None for a missing or odd issue_url), so an answer without it is taken as issue 5's and the
    round follows from another issue's comment (section 22: a comment of another issue is exit
    2 naming the REF, nothing followed; an answer that cannot show its issue is malformed)."""
    from tests.support import NAME, OWNER, inbox, latest
    from tests.test_attack_31_data import env_for, proxy

    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, 5)
    fake.add_issue(OWNER, NAME, 9)
    fake.add_comments(OWNER, NAME, 5, 3)
    other = fake.add_comment(OWNER, NAME, 9, "elsewhere")["id"]

    def rewrite(method, path, headers, data):
        if path.endswith(f"/issues/comments/{other}"):
            d = json.loads(data)
            d.pop("issue_url", None)
            return headers, json.dumps(d).encode()
        return None

    server = proxy(hostile, fake, rewrite)
    env = env_for(fake, server)
    url = f"{server.url}/{OWNER}/{NAME}/issues/5#issuecomment-{other}"
    r = inbox(fake, tmp_path, "--follow", url, env=env)
    assert r.code in (2, 6), r
    r = latest(fake, tmp_path, "--followed", env=env)
    assert r.json.get("rounds", r.json.get("conversations", [])) == [], r


def test_shell_huge_error_message_is_held_many_times(pull, sh_env, hostile):
    """A 403 whose `message` is one 24 MiB string (24 KiB of gzip; 40 MiB in the report, whose
    576 MiB peak scales to 345 MiB here, past the 256 MiB bound below; the script keeps 64 KiB
    of an error body): classify_failure takes it
    whole into bash, die/scrub/json_string/err copy it again and again and hand it to jq's
    `esc`, and the error JSON on stdout carried all of it. Nothing bounded an error message in
    the shell (the Python paths show an error body's start)."""
    need_tools("gh", "jq")
    answer, data = _gz_answer("/pulls/7", 403,
                              b'{"message": "' + b"A" * (24 * MIB) + b'"}')
    assert len(data) < 64 * 1024
    proxy = hostile(answer, upstream=pull.url)
    env = _through(sh_env, proxy)
    proc, peak = _sh_peak(env)
    assert proc.returncode == 3, (proc.stdout[:300], proc.stderr[-300:])
    assert len(proc.stdout) < 64 * 1024, f"{len(proc.stdout)} bytes of error JSON"
    # gh itself parses an error answer to print its message: about 7 times the message in Go
    # (277 MiB for 40 MiB with GOMEMLIMIT, which the script sets; 399 without), beyond what the
    # bundle can bound (docs/reference.md). The script's own processes (bash, jq) add nothing
    # to it: its peak is gh's, or under 256 MiB.
    alone = subprocess.run([SCRIPT_PYTHON, "-c", LAUNCHER, "gh", "api", "-i", "--hostname",
                            env["GH_HOST"], "repos/octo/hello/pulls/7"],
                           env={**env, "GOMEMLIMIT": "64MiB"}, capture_output=True,
                           text=True, timeout=300, check=False)
    gh_peak = int(re.search(r"MAXRSS_KIB=(\d+)", alone.stderr).group(1))
    assert peak < max(256 * 1024, gh_peak * 1.1), \
        f"{peak} KiB resident for a 24 MiB error message (gh alone: {gh_peak} KiB)"
