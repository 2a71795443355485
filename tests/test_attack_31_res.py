"""Issue 31, items 5 and 14: memory that follows what is parsed, and no core file with a token.

5. 61 KB of gzip that inflates to 60 MiB of `[{},{},…]` (under the 64 MiB byte cap) held
   1.6 GiB in Python before the first item's type check refused it, under both transports. The
   answer is refused (exit 6, code server) before it is parsed, and the script's peak memory —
   its own and its children's (gh), as the kernel counts them for the launcher's wait4 — stays
   under 256 MiB.
14. A SIGQUIT to `gh api` under GOTRACEBACK=crash with core dumps on wrote a core holding the
   token. Every child the scripts spawn runs with RLIMIT_CORE 0 and GOTRACEBACK=none, the shell
   fallback's too.

Scripts run as an agent runs them (subprocesses) against a hostile server of the test's own on
127.0.0.1 (the fake is never this hostile) or, for the gh environment, the fake.
"""

from __future__ import annotations

import json
import os
import re
import resource
import stat
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.support import (
    REPOSITORY,
    SCRIPT_PYTHON,
    SCRIPTS,
    TOKEN,
    clean_env,
    run_script,
    script_env,
)
from tests.test_hostile import ISSUE, NAME, OWNER, PR, hostile, need_tools, sh_env  # noqa: F401

PEAK_LIMIT_KIB = 256 * 1024

# The script is started by a small launcher that reports its peak memory: a child forked
# straight from pytest would count pytest's own pages until its exec. wait4's usage of the
# script holds the largest of its own and its waited-for children's (gh) peaks.
LAUNCHER = ("import os, subprocess, sys\n"
            "p = subprocess.Popen(sys.argv[1:])\n"
            "_, status, usage = os.wait4(p.pid, 0)\n"
            "sys.stderr.write('MAXRSS_KIB=%d\\n' % usage.ru_maxrss)\n"
            "sys.exit(os.waitstatus_to_exitcode(status))\n")


def _empty_objects_bomb(decoded_mib: int = 60) -> bytes:
    """gzip of `[{},{},…,{}]`, `decoded_mib` MiB decoded (under the 64 MiB cap)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"{}," * (1024 * 1024 // 3)
    size = decoded_mib * 1024 * 1024 - 2
    parts = [comp.compress(b"[")]
    written = 0
    while written + len(block) < size:
        parts.append(comp.compress(block))
        written += len(block)
    parts.append(comp.compress(b"{}," * ((size - written - 2) // 3) + b"{}]"))
    parts.append(comp.flush())
    return b"".join(parts)


BOMB = _empty_objects_bomb()


def _answer_bomb(h) -> bool:
    h.send_response(200)
    h.send_header("Content-Type", "application/json; charset=utf-8")
    h.send_header("Content-Encoding", "gzip")
    h.send_header("Content-Length", str(len(BOMB)))
    h.end_headers()
    h.wfile.write(BOMB)
    return True


def _measured(argv, env, timeout=180):
    proc = subprocess.run([SCRIPT_PYTHON, "-c", LAUNCHER, SCRIPT_PYTHON, *map(str, argv)],
                          env=env, capture_output=True, text=True, timeout=timeout,
                          check=False)
    peak = int(re.search(r"MAXRSS_KIB=(\d+)", proc.stderr).group(1))  # Linux: KiB
    return proc, peak


def _gh_env_for(server_url: str, tmp_path: Path) -> dict:
    """The real gh talking to `server_url` as github.localhost (through it as a proxy)."""
    config = tmp_path / "gh-config"
    config.mkdir(exist_ok=True)
    return clean_env(GH_HOST="github.localhost", GH_TOKEN=TOKEN, HTTP_PROXY=server_url,
                     HTTPS_PROXY=server_url, http_proxy=server_url, https_proxy=server_url,
                     NO_PROXY="", no_proxy="", GH_CONFIG_DIR=str(config),
                     GH_NO_UPDATE_NOTIFIER="1", GH_PROMPT_DISABLED="1")


def test_the_bomb_is_what_the_issue_says():
    assert len(BOMB) < 80 * 1024
    decoded = zlib.decompress(BOMB, 31)
    assert 60 * 1024 * 1024 - 4 < len(decoded) <= 60 * 1024 * 1024 and decoded.startswith(b"[{},{}")
    assert decoded.endswith(b",{}]") and json.loads(decoded[:1000].rsplit(b",", 1)[0] + b"]")


@pytest.mark.parametrize("script,args", [
    ("check_issue_updates.py", ("--issue", ISSUE)),
    ("get_latest_comments.py", ("--issue", ISSUE, "--last-n", "1")),
    ("get_pr_comments.py", ("--pr", PR, "--format", "json")),
])
def test_a_page_of_millions_of_empty_objects_is_refused_in_bounded_memory(
        hostile, tmp_path, script, args):  # noqa: F811
    server = hostile(_answer_bomb)
    env = clean_env(GITHUB_API_URL=server.url, GH_TOKEN=TOKEN)
    root = () if script == "get_pr_comments.py" else ("--root", tmp_path)
    proc, peak = _measured([SCRIPTS / script, "--repo", REPOSITORY, *args, *root,
                            "--max-wait", "0"], env)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 6 and doc["error"]["code"] == "server", (proc.stdout[:500],
                                                                        proc.stderr[-500:])
    print(f"{script}: peak {peak} KiB")
    assert "JSON values" in doc["error"]["message"], doc
    assert len(server.seen) == 1  # the same answer again would be as large: not retried
    assert peak < PEAK_LIMIT_KIB, f"{peak} KiB resident (the answer is 60 MiB decoded)"


def test_the_bomb_through_the_gh_transport_is_refused_in_bounded_memory(hostile, tmp_path):  # noqa: F811
    need_tools("gh")
    server = hostile(_answer_bomb)
    env = _gh_env_for(server.url, tmp_path)
    proc, peak = _measured([SCRIPTS / "check_issue_updates.py", "--repo", REPOSITORY,
                            "--issue", ISSUE, "--root", tmp_path, "--transport", "gh",
                            "--max-wait", "0"], env)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 6 and doc["error"]["code"] == "server", (proc.stdout[:500],
                                                                        proc.stderr[-500:])
    print(f"gh: peak {peak} KiB")
    assert "JSON values" in doc["error"]["message"], doc  # gh inflated it: the parse refused
    assert peak < PEAK_LIMIT_KIB, f"{peak} KiB resident, gh's included (60 MiB decoded)"


def test_a_real_page_of_100_large_comments_still_parses(fake, tmp_path):
    """The value bound refuses no real page: 100 comments whose bodies are full of commas and
    brackets (values only outside strings count) read as before."""
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    fake.add_comments(OWNER, NAME, ISSUE, 100, body=lambda i: "[{},{}]," * 8000)
    r = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--last-n", "100", "--root", tmp_path, "--max-body-chars", "10",
                   env=script_env(fake), timeout=120)
    assert r.code == 0, (r.stdout[:500], r.stderr[-500:])
    doc = json.loads(r.stdout)
    assert len(doc["comments"]) == 100, sorted(doc)


# --------------------------------------------------------------------------- 14: no core

def _recording(tmp_path: Path, tool: str) -> Path:
    """A `tool` first on PATH that records its core limit and GOTRACEBACK, then runs the real
    one."""
    real = subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True, text=True)
    if real.returncode != 0:
        need_tools(tool)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    wrapper = bin_dir / tool
    log = tmp_path / "limits.log"
    wrapper.write_text("#!/bin/sh\n"
                       f"echo \"{tool} $1 core=$(ulimit -c) GOTRACEBACK=${{GOTRACEBACK-unset}}\""
                       f" >> {log}\n"
                       f"exec {real.stdout.strip()} \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return bin_dir


def _cores_on() -> None:
    """As the attack had it: core dumps on (the soft limit raised to the hard one)."""
    _, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))


def _run_with_cores(argv, env, cwd=None):
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120,
                          check=False, preexec_fn=_cores_on, cwd=cwd)


def _assert_no_core(log: Path, tools: tuple) -> None:
    lines = log.read_text().splitlines()
    assert {line.split()[0] for line in lines} >= set(tools), lines
    for line in lines:
        assert line.endswith(" core=0 GOTRACEBACK=none"), lines


def test_gh_runs_without_core_dumps_under_the_python_scripts(fake, gh_env, tmp_path):
    if resource.getrlimit(resource.RLIMIT_CORE)[1] == 0:
        pytest.skip("the hard core limit is 0 here: no core can be asked for")
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    fake.add_comments(OWNER, NAME, ISSUE, 2)
    bin_dir = _recording(tmp_path, "gh")
    env = dict(gh_env, PATH=f"{bin_dir}:{os.environ['PATH']}", GOTRACEBACK="crash")
    proc = _run_with_cores([SCRIPT_PYTHON, str(SCRIPTS / "check_issue_updates.py"), "--repo",
                            REPOSITORY, "--issue", str(ISSUE), "--root", str(tmp_path),
                            "--transport", "gh"], env)
    assert proc.returncode == 0, (proc.stdout[:500], proc.stderr[-500:])
    log = tmp_path / "limits.log"
    assert any(" api " in f" {line} " for line in log.read_text().splitlines())
    _assert_no_core(log, ("gh",))


def test_git_runs_without_core_dumps_too(fake, tmp_path):
    """The repository read from the origin remote: git is a child as gh is."""
    if resource.getrlimit(resource.RLIMIT_CORE)[1] == 0:
        pytest.skip("the hard core limit is 0 here: no core can be asked for")
    need_tools("git")
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    work = tmp_path / "checkout"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "remote", "add", "origin",
                    f"https://github.com/{REPOSITORY}.git"], check=True)
    bin_dir = _recording(tmp_path, "git")
    env = script_env(fake, PATH=f"{bin_dir}:{os.environ['PATH']}", GOTRACEBACK="crash")
    proc = _run_with_cores([SCRIPT_PYTHON, str(SCRIPTS / "check_issue_updates.py"),
                            "--issue", str(ISSUE), "--root", str(tmp_path)], env, cwd=work)
    assert proc.returncode == 0, (proc.stdout[:500], proc.stderr[-500:])
    _assert_no_core(tmp_path / "limits.log", ("git",))


def test_the_shell_fallback_runs_gh_without_core_dumps(fake, sh_env, tmp_path):  # noqa: F811
    if resource.getrlimit(resource.RLIMIT_CORE)[1] == 0:
        pytest.skip("the hard core limit is 0 here: no core can be asked for")
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="x")
    fake.add_comments(OWNER, NAME, PR, 2)
    bin_dir = _recording(tmp_path, "gh")
    env = dict(sh_env, PATH=f"{bin_dir}:{os.environ['PATH']}", GOTRACEBACK="crash")
    proc = _run_with_cores([str(SCRIPTS / "get-pr-comments.sh"), "--repo", REPOSITORY,
                            "--pr", str(PR), "--format", "json"], env)
    assert proc.returncode == 0, (proc.stdout[:500], proc.stderr[-500:])
    log = tmp_path / "limits.log"
    assert any(" api " in f" {line} " for line in log.read_text().splitlines())
    _assert_no_core(log, ("gh",))


def _one_long_string_answer(decoded_mib: int = 62) -> bytes:
    """gzip of a list of one well-formed comment whose body is `decoded_mib` MiB of text:
    few values, so the value count lets it through; within the 64 MiB byte cap."""
    head = json.dumps([{
        "id": 4242, "node_id": "IC_kwDOlong", "author_association": "NONE",
        "user": {"login": "mallory", "id": 66, "type": "User"},
        "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-01T10:00:00Z",
        "html_url": f"https://github.com/{REPOSITORY}/issues/{ISSUE}#issuecomment-4242",
        "issue_url": f"https://api.github.com/repos/{REPOSITORY}/issues/{ISSUE}",
        "body": "@@BODY@@"}]).encode()
    before, after = head.split(b"@@BODY@@")
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"a" * (1024 * 1024)
    parts = [comp.compress(before)]
    parts += [comp.compress(block) for _ in range(decoded_mib)]
    parts += [comp.compress(after), comp.flush()]
    return b"".join(parts)


LONG = _one_long_string_answer()


def _answer_long(h) -> bool:
    h.send_response(200)
    h.send_header("Content-Type", "application/json; charset=utf-8")
    h.send_header("Content-Encoding", "gzip")
    h.send_header("Content-Length", str(len(LONG)))
    h.end_headers()
    h.wfile.write(LONG)
    return True


@pytest.mark.parametrize("script,args", [
    ("check_issue_updates.py", ("--issue", ISSUE)),
    ("get_latest_comments.py", ("--issue", ISSUE, "--last-n", "1")),
])
def test_one_string_of_62_mib_is_refused_in_bounded_memory(  # noqa: F811
        hostile, tmp_path, script, args):  # noqa: F811
    """Few values, one huge body: held as bytes, text and value it took 277 MiB on a first
    look (two answers kept). No GitHub field is that long: exit 6, the bytes let go before
    the parse."""
    server = hostile(_answer_long)
    env = clean_env(GITHUB_API_URL=server.url, GH_TOKEN=TOKEN)
    proc, peak = _measured([SCRIPTS / script, "--repo", REPOSITORY, *args, "--root", tmp_path,
                            "--max-wait", "0"], env)
    print(f"{script}: peak {peak} KiB")
    assert peak < PEAK_LIMIT_KIB, f"{peak} KiB resident (one 62 MiB string)"
    doc = json.loads(proc.stdout)
    assert proc.returncode == 6 and doc["error"]["code"] == "server", (proc.stdout[:500],
                                                                        proc.stderr[-500:])
    assert "longer than any GitHub field" in doc["error"]["message"], doc


def test_one_string_of_62_mib_through_gh_is_refused_in_bounded_memory(hostile, tmp_path):  # noqa: F811
    need_tools("gh")
    server = hostile(_answer_long)
    proc, peak = _measured([SCRIPTS / "get_latest_comments.py", "--repo", REPOSITORY,
                            "--issue", ISSUE, "--last-n", "1", "--root", tmp_path,
                            "--transport", "gh", "--max-wait", "0"],
                           _gh_env_for(server.url, tmp_path))
    print(f"gh: peak {peak} KiB")
    assert peak < PEAK_LIMIT_KIB, f"{peak} KiB resident, gh's included (one 62 MiB string)"
    doc = json.loads(proc.stdout)
    assert proc.returncode == 6 and "longer than any GitHub field" in doc["error"]["message"], \
        (proc.stdout[:500], proc.stderr[-500:])
