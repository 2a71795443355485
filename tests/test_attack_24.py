"""A fresh attack on issue 24's change (the gh transport, the shell fallback, the writer):
each test proved a defect on 484491d and keeps it closed. Scripts run as agents run them
(subprocesses), with the real gh and jq, against the fake or a hostile server of the test's own
on loopback addresses only.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests import test_hostile as _shared
from tests import test_hostile_24 as _h24
from tests.support import NAME, OWNER, REPOSITORY, SCRIPT_PYTHON, SCRIPTS, run_script
from tests.test_hostile import ISSUE, PR, need_tools

hostile, issue, pull, sh_env = _shared.hostile, _shared.issue, _shared.pull, _shared.sh_env
ear = _h24.ear


def _stalling_proxy(hostile, fake, match: str, seconds: float = 30.0):
    """A proxy in front of the fake that holds requests whose path holds `match` for up to
    `seconds` (released early by `release`), then answers them 504 itself (forwarded late,
    they would land in the fake's log during another test)."""
    gate = threading.Event()

    def answer(h) -> bool:
        if match not in h.path:
            return False
        h.server.entered.set()
        gate.wait(seconds)
        h.send_response(504)
        h.send_header("Content-Length", "0")
        h.end_headers()
        h.close_connection = True
        return True

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


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGKILL], ids=["SIGHUP", "SIGKILL"])
def test_a_killed_shell_fallback_leaves_no_token_on_disk(pull, sh_env, hostile, sig):
    """484491d's shell fallback wrote the GH_TOKEN it confines to one host into
    `$TMPDIR/get-pr-comments.*/gh-config/hosts.yml` for the whole run; its trap covers INT, TERM
    and EXIT only, so a SIGHUP, or a SIGKILL of its process group (an agent's harness timing
    out), left the token on disk."""
    need_tools("gh", "jq")
    proxy = _stalling_proxy(hostile, pull, "/pulls/7/comments")
    env = _through(sh_env, proxy)
    proc = subprocess.Popen(["bash", str(SCRIPTS / "get-pr-comments.sh"), "--repo", REPOSITORY,
                             "--pr", str(PR), "--format", "json"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        assert proxy.server.entered.wait(60), "gh never reached the server"
        os.killpg(proc.pid, sig)
        proc.wait(60)
    finally:
        proxy.release()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    time.sleep(0.2)
    assert _token_files(Path(sh_env["TMPDIR"]), sh_env["GH_TOKEN"]) == []


# --------------------------------------------------------------------------- gh's own login

OTHER_LOGIN = "gho_otherHostLoginToken222222222222222222"


def _two_host_login(folder: Path, api_host: str, api_token: str, other_host: str) -> Path:
    """A gh configuration logged in to the API's host and to another host."""
    folder.mkdir()
    (folder / "hosts.yml").write_text(f"{api_host}:\n    oauth_token: {api_token}\n"
                                      f"\"{other_host}\":\n    oauth_token: {OTHER_LOGIN}\n")
    return folder


def test_gh_own_login_gives_no_other_host_token_to_a_redirect(issue, gh_env, hostile, ear,
                                                              tmp_path):
    """No token variable: 484491d ran `gh api` on the user's own gh configuration, every host
    it is logged in to included. A redirect from the API to another host that login names
    (127.0.0.2 here; github.com from a GitHub Enterprise Server in life) carried that host's
    token before the answer was refused."""
    need_tools("gh")
    issue.add_comments(OWNER, NAME, ISSUE, 2)
    other = ear()
    conf = _two_host_login(tmp_path / "ghconf", "github.localhost", gh_env["GH_TOKEN"],
                           "127.0.0.2")
    proxy = _h24._redirecting_proxy(hostile, issue, "/issues/5/comments",
                                    f"{other.url}/stolen")
    env = {k: v for k, v in _through(gh_env, proxy).items() if k != "GH_TOKEN"}
    env["GH_CONFIG_DIR"] = str(conf)
    r = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--last-n", 1, "--transport", "gh", "--root", tmp_path, env=env, timeout=60)
    assert r.code == 6 and "another origin" in r.json["error"]["message"], r
    assert other.seen, "the redirect was not followed: the test proves nothing"
    assert all(auth is None for _, _, auth in other.seen), other.seen
    assert OTHER_LOGIN not in r.stdout + r.stderr


def test_the_shell_fallback_on_gh_own_login_gives_no_other_host_token_to_a_redirect(
        pull, sh_env, hostile, ear, tmp_path):
    """The same through the shell fallback: gh's own two-host login, a 302 on the pull
    request's read to the other host."""
    need_tools("gh", "jq")
    other = ear(b"{}")
    conf = _two_host_login(tmp_path / "ghconf", "github.localhost", sh_env["GH_TOKEN"],
                           "127.0.0.2")
    proxy = _h24._redirecting_proxy(hostile, pull, "/pulls/7", f"{other.url}/stolen")
    env = {k: v for k, v in _through(sh_env, proxy).items() if k != "GH_TOKEN"}
    env["GH_CONFIG_DIR"] = str(conf)
    r = run_script("get-pr-comments.sh", "--repo", REPOSITORY, "--pr", PR, "--format", "json",
                   env=env, timeout=120)
    assert r.code == 6, r
    assert other.seen, "the redirect was not followed: the test proves nothing"
    assert all(auth is None for _, _, auth in other.seen), other.seen
    assert OTHER_LOGIN not in r.stdout + r.stderr


# --------------------------------------------------------------------------- a Link gh reads otherwise

def _read_body(h) -> bytes:
    """A request's body, Content-Length or chunked (gh sends `--input -` chunked)."""
    if "chunked" in (h.headers.get("transfer-encoding") or "").lower():
        parts = []
        while True:
            size = int(h.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                h.rfile.readline()
                return b"".join(parts)
            parts.append(h.rfile.read(size))
            h.rfile.readline()
    length = int(h.headers.get("content-length") or 0)
    return h.rfile.read(length) if length else b""


def _relay(h, upstream: str, extra_headers=()) -> None:
    """Forward the request to `upstream` (the fake), its answer back, `extra_headers` added
    (a Link replaced)."""
    import http.client
    from urllib.parse import urlsplit

    body = _read_body(h)
    up = urlsplit(upstream)
    conn = http.client.HTTPConnection(up.hostname, up.port, timeout=30)
    headers = {k: v for k, v in h.headers.items() if k.lower() != "transfer-encoding"}
    headers["Content-Length"] = str(len(body))
    conn.request(h.command, h.path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    h.send_response(resp.status)
    replaced = {name.lower() for name, _ in extra_headers}
    for name, value in resp.getheaders():
        if name.lower() not in {"content-length", "transfer-encoding", "connection", "date",
                                "server"} | replaced:
            h.send_header(name, value)
    for name, value in extra_headers:
        h.send_header(name, value)
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    h.wfile.write(data)
    conn.close()


def test_the_gh_transport_follows_no_next_link_that_gh_reads_as_another_origin(
        pull, gh_env, hostile):
    """A next link on the API's origin whose path is itself a URL
    (`http://api.github.localhost/http://api.github.localhost:4444/page2`) passes the origin
    check; 484491d then gave gh the part after the base as its endpoint, and gh takes an
    endpoint holding `://` as a whole URL: it sent the token to port 4444 (another origin)
    before the trace check refused the answer."""
    need_tools("gh")
    link = "http://api.github.localhost/http://api.github.localhost:4444/page2"

    def answer(h) -> bool:
        extra = [("Link", f'<{link}>; rel="next"')] if "/issues/7/comments" in h.path else []
        _relay(h, pull.url, extra)
        return True

    proxy = hostile(answer)
    r = run_script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", PR, "--format", "json",
                   "--transport", "gh", env=_through(gh_env, proxy), timeout=60)
    _h24.no_traceback(r)
    stolen = [s for s in proxy.seen if s.get("host") != "api.github.localhost"]
    assert stolen == [], [(s["path"], s.get("authorization")) for s in stolen]
    followed = [s for s in proxy.seen if "/http://" in s["path"]]
    assert followed, "the next link was not followed as given: the test proves nothing"
    assert r.code == 0, r  # the link's page is a 404 on the API's origin: a timeline gap
    assert r.json["reviewThreads"], r


# --------------------------------------------------------------------------- a read is no write

def test_a_graphql_read_that_breaks_never_says_a_comment_may_have_been_written(pull, hostile):
    """The review-thread query is a POST but a read (retried as one): when its connection
    broke on every attempt, 484491d's error said "the comment may or may not have been
    written" — of a read that writes nothing (an agent told so goes looking for a comment)."""
    def answer(h) -> bool:
        if h.path.endswith("/graphql"):
            _read_body(h)
            h.close_connection = True
            return True  # nothing written: the connection closes
        return False

    proxy = hostile(answer, upstream=pull.url)
    env = {**_shared.script_env(pull), "GITHUB_API_URL": proxy.url}
    r = run_script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", PR, "--format", "json",
                   "--api-url", proxy.url, env=env, timeout=60)
    _h24.no_traceback(r)
    assert r.code == 6, r
    assert sum(1 for s in proxy.seen if s["path"].endswith("/graphql")) == 3, proxy.seen
    message = r.json["error"]["message"]
    assert "written" not in message and "may have been applied" not in message, message


# --------------------------------------------------------------------------- the shell's size cap

def test_the_shell_fallback_refuses_an_answer_past_the_cap_in_bounded_memory(pull, sh_env,
                                                                            hostile):
    """CONTRACT section 17: an answer larger than 64 MiB decoded is exit 6 without holding
    more than that. 484491d's shell fallback let gh inflate a gzip answer (100 KiB on the wire,
    100 MiB decoded) into its temp folder whole, then read it into bash and jq."""
    need_tools("gh", "jq")
    data = gzip.compress(b"[" + b" " * (100 * 1024 * 1024) + b"]", 9)

    def answer(h) -> bool:
        if not h.path.rstrip("/").endswith("/pulls/7"):
            return False
        h.send_response(200)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
        return True

    proxy = hostile(answer, upstream=pull.url)
    launcher = ("import os, subprocess, sys\n"
                "p = subprocess.Popen(sys.argv[1:])\n"
                "_, status, usage = os.wait4(p.pid, 0)\n"
                "sys.stderr.write('MAXRSS_KIB=%d\\n' % usage.ru_maxrss)\n"
                "sys.exit(os.waitstatus_to_exitcode(status))\n")
    proc = subprocess.run([SCRIPT_PYTHON, "-c", launcher, "bash",
                           str(SCRIPTS / "get-pr-comments.sh"), "--repo", REPOSITORY,
                           "--pr", str(PR), "--format", "json"],
                          env=_through(sh_env, proxy), capture_output=True, text=True,
                          timeout=300, check=False)
    peak = int(re.search(r"MAXRSS_KIB=(\d+)", proc.stderr).group(1))
    assert proc.returncode == 6, (proc.stdout[:500], proc.stderr[-500:])
    assert "64 MiB" in json.loads(proc.stdout)["error"]["message"], proc.stdout
    assert peak < 90 * 1024, f"{peak} KiB resident for a 100 MiB answer (cap 64 MiB)"


# --------------------------------------------------------------------------- a write answered 2xx

@pytest.mark.parametrize("answer_body", [b"{}", b'{"id": null}', b"[]"],
                         ids=["empty", "null-id", "list"])
def test_a_write_answered_2xx_without_an_id_says_it_may_have_been_applied(issue, hostile,
                                                                          tmp_path,
                                                                          answer_body):
    """GitHub answered the POST with 201: the comment exists. A body without an id made
    484491d's writer exit 6 with only "the response holds no comment id" — no word that the
    comment may exist, no read that checks — so an agent posts again (a duplicate)."""
    def answer(h) -> bool:
        if h.command != "POST":
            return False
        _read_body(h)
        h.send_response(201)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(answer_body)))
        h.end_headers()
        h.wfile.write(answer_body)
        return True

    proxy = hostile(answer, upstream=issue.url)
    env = {**_shared.script_env(issue), "GITHUB_API_URL": proxy.url}
    r = run_script("manage_issue_comment.py", "--action", "create", "--repo", REPOSITORY,
                   "--issue", ISSUE, "--body-file", "-", "--api-url", proxy.url, env=env,
                   stdin=b"hello\n", timeout=60)
    _h24.no_traceback(r)
    assert r.code == 6, r
    message = r.json["error"]["message"]
    assert "Successfully" not in r.stdout
    assert "may have been applied" in message and "--last-n 1" in message, message


# --------------------------------------------------------------------------- shell: refuse first

@pytest.mark.parametrize("extra", [
    ["--format", "xml"], ["--pr", "0"], ["--pr", "99999999999999999999999"], ["--pr", "7\n"],
    ["--file", ""], ["--repo", "octo/hel\nlo"], ["--bogus"],
], ids=["format", "pr0", "prhuge", "prnewline", "fileempty", "reponl", "bogus"])
def test_the_shell_fallback_refuses_bad_arguments_before_any_request(pull, sh_env, extra):
    """Suspected and ruled out (held on 484491d): a bad argument is exit 2 before gh asks
    anything."""
    need_tools("gh", "jq")
    args = ["--repo", REPOSITORY, "--pr", str(PR), "--format", "json"]
    for i in range(0, len(extra)):
        if extra[i] in args and i + 1 < len(extra):
            at = args.index(extra[i])
            del args[at:at + 2]
    r = run_script("get-pr-comments.sh", *args, *extra, env=sh_env, timeout=60)
    assert r.code == 2, r
    assert pull.requests == [], [q.target for q in pull.requests]


# --------------------------------------------------------------------------- no gh left behind

def _gh_children_of(tmpdir: Path):
    """Live `gh` processes whose environment names `tmpdir` (started for this test's run)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.joinpath("comm").read_text().strip() != "gh":
                continue
            if str(tmpdir).encode() in entry.joinpath("environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def test_a_killed_script_leaves_no_gh_running(pull, gh_env, hostile, tmp_path):
    """get_pr_comments.py keeps the standard SIGTERM handler: on 484491d a SIGTERM while gh
    waited on a stalled server left that `gh api` running on its own (holding the token,
    bounded by nothing: the timer that stops it died with the script)."""
    need_tools("gh")
    proxy = _stalling_proxy(hostile, pull, "/graphql", seconds=40)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**_through(gh_env, proxy), "TMPDIR": str(tmpdir)}
    proc = subprocess.Popen([SCRIPT_PYTHON, str(SCRIPTS / "get_pr_comments.py"), "--repo",
                             REPOSITORY, "--pr", str(PR), "--format", "json", "--transport",
                             "gh"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        assert proxy.server.entered.wait(60), "gh never reached the server"
        assert _gh_children_of(tmpdir), "no gh found: the test proves nothing"
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
        deadline = time.monotonic() + 10
        while _gh_children_of(tmpdir) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = _gh_children_of(tmpdir)
    finally:
        proxy.release()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert left == [], f"gh still running after the script ended: {left}"
