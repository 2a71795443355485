"""Hostile input, continued (CONTRACT sections 15 and 17): the holes an adversarial review of
issue 19 found, each closed and kept closed here.

URLs parsers read differently (a backslash before an '@') get no token and no request; the
writer type-checks GraphQL answers and refuses in a dry run what the real run refuses; every
token (the gh login's too) is scrubbed in every spelling by both paths; nested JSON, negative
chunk sizes and endless gh output are bounded; a token too short to be GitHub's never mangles a
state file. Subprocesses against the fake (or a listener of the test's own), bounded in time.

The `ear` fixture listens on another loopback address than the fake's (OTHER_HOST, port 80) to
catch a request that should never be sent: a host the URL parsers disagree on is another host
as far as the token is concerned, and loopback keeps every byte on this machine. Where it
cannot be bound (no root) the tests that need it are skipped before anything runs.
"""

from __future__ import annotations

import errno
import json
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import List

import pytest

from tests import test_hostile as _shared
from tests.support import (
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
from tests.test_hostile import ISSUE, NAME, PR, need_tools

# test_hostile.py's fixtures (the fake with an issue or a pull request, a hostile server, the
# shell fallback's environment), shared by name.
hostile, issue, pull, sh_env = _shared.hostile, _shared.issue, _shared.pull, _shared.sh_env

OTHER_HOST = "127.0.0.2"  # loopback, but not the fake's 127.0.0.1: another origin


def no_traceback(r: Run) -> None:
    assert "Traceback" not in r.stderr, r
    assert '"internal"' not in r.stdout, r


# --------------------------------------------------------------------------- a non-loopback ear

class Ear:
    """A listener on a NON-loopback address, port 80: records every request's head."""

    def __init__(self, host: str = OTHER_HOST, port: int = 80) -> None:
        self.heads: List[str] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind((host, port))
        except OSError:
            self.sock.close()
            raise
        self.sock.listen(5)
        self.sock.settimeout(0.5)
        self.stop_at = time.monotonic() + 60
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while time.monotonic() < self.stop_at:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            conn.settimeout(3)
            data = b""
            try:
                while b"\r\n\r\n" not in data and len(data) < 65536:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                self.heads.append(data.decode("latin-1"))
                conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n"
                             b"Connection: close\r\n\r\n{}")
            except OSError:
                pass
            finally:
                conn.close()

    def close(self) -> None:
        self.stop_at = 0
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def ear():
    # One port 80 for every xdist worker and every suite running at once: a busy port is
    # waited for (its holder is a test of seconds), never a skip; any other refusal skips.
    deadline = time.monotonic() + 180
    while True:
        try:
            e = Ear()
            break
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE and time.monotonic() < deadline:
                time.sleep(0.2)
                continue
            pytest.skip(f"cannot listen on {OTHER_HOST}:80: {exc}")
    yield e
    e.close()


# --------------------------------------------------------------------------- 1. URL differential
# urlsplit (the origin check) and urllib3 (what requests connects to) disagree on a backslash:
# urlsplit takes `http://A\@B:P/` as host B port P, urllib3 as host A, port 80.

def test_a_next_link_with_a_backslash_is_refused_and_gets_no_token(pull, ear):
    link = (f'<http://{OTHER_HOST}\\@127.0.0.1:{pull.url.rsplit(":", 1)[1]}'
            f'/repos/octo/hello/pulls/7/reviews?page=2>; rel="next"')
    pull.inject("GET", r"/pulls/7/reviews$", status=200, times=None, body=[],
                headers={"Link": link})
    r = run_script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", PR, "--format", "json",
                   env=script_env(pull), timeout=90)
    leaked = [h for h in ear.heads if TOKEN in h]
    assert not leaked, f"the token went in clear to {OTHER_HOST}:80: {leaked[:1]!r} / {r!r}"
    assert ear.heads == [], f"a request went to {OTHER_HOST}:80: {ear.heads[:1]!r}"


def test_a_redirect_with_a_backslash_is_refused_and_gets_no_token(issue, ear, tmp_path):
    port = issue.url.rsplit(":", 1)[1]
    issue.add_comments(OWNER, NAME, ISSUE, 1)
    issue.inject("GET", r"/issues/5/comments$", status=302, times=None, body={},
                 headers={"Location": f"http://{OTHER_HOST}\\@127.0.0.1:{port}"
                                      "/repos/octo/hello/issues/5/comments?page=1"})
    r = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--last-n", 1, "--root", tmp_path, "--max-wait", "0",
                   env=script_env(issue), timeout=90)
    leaked = [h for h in ear.heads if TOKEN in h]
    assert not leaked, f"the token went in clear to {OTHER_HOST}:80: {leaked[:1]!r} / {r!r}"
    assert ear.heads == [], f"a request went to {OTHER_HOST}:80: {ear.heads[:1]!r}"


def test_a_backslash_in_a_dot_localhost_api_url_is_refused(issue, ear, tmp_path):
    """`http://127.0.0.2\\.localhost` ends with `.localhost` for urlsplit (it was accepted as
    loopback) while requests connects to 127.0.0.2:80: a host that is not a plain host name is
    exit 2, before anything is sent."""
    api = f"http://{OTHER_HOST}\\.localhost"
    env = script_env(issue, GITHUB_API_URL=api)
    r = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--last-n", 1, "--root", tmp_path, "--max-wait", "0", env=env, timeout=90)
    leaked = [h for h in ear.heads if TOKEN in h]
    assert not leaked, f"GH_TOKEN went over plain http to {OTHER_HOST}:80: {leaked[:1]!r}"
    assert r.code == 2 and r.json["error"]["code"] == "usage", r


# --------------------------------------------------------------------------- 2. writer: GraphQL answers

@pytest.mark.parametrize("answer", [
    {"data": {"resolveReviewThread": {"thread": {"id": "PRRT_x", "isResolved": True,
                                                 "resolvedBy": "mallory"}}}},
    {"data": {"resolveReviewThread": "not an object"}},
    {"errors": 5},
    {"errors": [{"message": "x", "extensions": "not an object"}]},
])
def test_a_resolve_answer_of_the_wrong_type_is_exit_6(pull, answer):
    pull.inject("POST", r"/graphql$", status=200, times=None, body=answer)
    r = run_script("manage_issue_comment.py", "--action", "resolve", "--repo", REPOSITORY,
                   "--thread-id", "PRRT_kwDOAbc123", env=script_env(pull))
    no_traceback(r)
    assert r.code == 6, r


def test_a_resolve_answer_with_a_non_string_thread_id_is_never_passed_on(pull):
    pull.inject("POST", r"/graphql$", status=200, times=None,
                body={"data": {"resolveReviewThread": {"thread": {
                    "id": {"evil": ["nested"]}, "isResolved": "yes", "resolvedBy": None}}}})
    r = run_script("manage_issue_comment.py", "--action", "resolve", "--repo", REPOSITORY,
                   "--thread-id", "PRRT_kwDOAbc123", env=script_env(pull))
    if r.code == 0:  # section 15: ids in the output are strings
        assert isinstance(r.json["threadId"], str), r
        assert isinstance(r.json["isResolved"], bool), r


# --------------------------------------------------------------------------- 3. writer: local input

def test_a_deeply_nested_comments_file_is_a_usage_error_not_internal(pull, tmp_path):
    f = tmp_path / "inline.json"
    f.write_text("[" * 200000 + "]" * 200000)
    body = tmp_path / "body.md"
    body.write_text("see inline")
    r = run_script("manage_issue_comment.py", "--action", "review", "--repo", REPOSITORY,
                   "--pr", PR, "--event", "COMMENT", "--body-file", body, "--comments-file", f,
                   "--dry-run", env=script_env(pull))
    no_traceback(r)
    assert r.code == 2, r


# --------------------------------------------------------------------------- 4. gh's own token

STORED = "gho_storedLoginToken0000000000000000000"


def _gh_config(tmp_path: Path, hosts=("github.com", "github.localhost")) -> Path:
    d = tmp_path / "ghconf"
    d.mkdir(exist_ok=True)
    (d / "hosts.yml").write_text("".join(
        f"{h}:\n    oauth_token: {STORED}\n    user: octocat\n    git_protocol: https\n"
        for h in hosts))
    return d


def test_dry_run_never_prints_the_token_of_the_gh_login(tmp_path):
    """No token variable; gh is logged in (its stored token). The real run refuses the body
    (the token in use); --dry-run asks `gh auth token` (no request) and never prints it."""
    need_tools("gh")
    env = clean_env(GH_CONFIG_DIR=str(_gh_config(tmp_path)), HOME=str(tmp_path))
    body = f"the key is {STORED}\n".encode()
    real = run_script("manage_issue_comment.py", "--action", "create", "--repo", REPOSITORY,
                      "--issue", ISSUE, "--body-file", "-", env=env, stdin=body, timeout=60)
    assert real.code == 2 and STORED not in real.stdout + real.stderr, real  # holds
    dry = run_script("manage_issue_comment.py", "--action", "create", "--repo", REPOSITORY,
                     "--issue", ISSUE, "--body-file", "-", "--dry-run", env=env, stdin=body,
                     timeout=60)
    assert STORED not in dry.stdout + dry.stderr, dry


def test_the_shell_fallback_scrubs_the_token_of_the_gh_login(fake, tmp_path):
    """gh logged in through its hosts file (no GH_TOKEN): a 401 that echoes the token. Both
    paths learn gh's token (`gh auth token`) and scrub it."""
    need_tools("gh", "jq")
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="x")
    fake.inject("GET", r"/pulls/7$", status=401, times=None,
                body={"message": f"Bad credentials for token {STORED}"})
    env = clean_env(GH_CONFIG_DIR=str(_gh_config(tmp_path)), HOME=str(tmp_path),
                    GH_HOST="github.localhost", HTTP_PROXY=fake.url, HTTPS_PROXY=fake.url,
                    http_proxy=fake.url, https_proxy=fake.url, NO_PROXY="", no_proxy="",
                    GH_NO_UPDATE_NOTIFIER="1", GH_PROMPT_DISABLED="1",
                    TMPDIR=str(tmp_path))
    py = run_script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", PR, "--transport",
                    "gh", "--format", "json", env=env, timeout=60)
    assert py.code == 3 and STORED not in py.stdout + py.stderr, py  # the Python path holds
    sh = run_script("get-pr-comments.sh", "--repo", REPOSITORY, "--pr", PR, "--format",
                    "json", env=env, timeout=60)
    assert sh.code == 3, sh
    assert STORED not in sh.stdout + sh.stderr, sh


def test_the_shell_fallback_scrubs_a_percent_encoded_token(fake, tmp_path):
    """Section 17: every printable form (raw, backslash-escaped, percent-encoded), in the shell
    fallback as in the Python scrubber."""
    need_tools("gh", "jq")
    token = "tok/en+with=odd:chars"
    from urllib.parse import quote
    fake.add_token(token, login="octocat")
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="x")
    fake.inject("GET", r"/pulls/7$", status=404, times=None,
                body={"message": f"Not Found: /x?token={quote(token, safe='')}"})
    env = clean_env(GH_CONFIG_DIR=str(tmp_path / "empty"), HOME=str(tmp_path),
                    GH_TOKEN=token, GH_HOST="github.localhost", HTTP_PROXY=fake.url,
                    HTTPS_PROXY=fake.url, http_proxy=fake.url, https_proxy=fake.url,
                    NO_PROXY="", no_proxy="", GH_NO_UPDATE_NOTIFIER="1",
                    GH_PROMPT_DISABLED="1", TMPDIR=str(tmp_path))
    # (the Python scrubber has this upper-case form: tokens.forms_of uses urllib's quote)
    sh = run_script("get-pr-comments.sh", "--repo", REPOSITORY, "--pr", PR, "--format",
                    "json", env=env, timeout=60)
    assert sh.code == 4, sh
    assert quote(token, safe="") not in sh.stdout + sh.stderr, sh


def test_a_lower_case_percent_encoded_token_is_scrubbed(issue, tmp_path):
    """`%2f` is as much a percent-encoding of `/` as `%2F` (RFC 3986: case-insensitive): the
    scrubber matches each character raw or percent-encoded in either case."""
    token = "tok/en+with=odd:chars"
    encoded = "tok%2fen%2bwith%3dodd%3achars"
    issue.inject("GET", r"/issues/5/comments$", status=404, times=None,
                 body={"message": f"Not Found: /x?access_token={encoded}"})
    r = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--last-n", 1, "--root", tmp_path, env=script_env(issue, token=token))
    assert r.code == 4, r
    assert encoded not in (r.stdout + r.stderr).lower(), r


# --------------------------------------------------------------------------- state files

def test_a_deeply_nested_checkpoint_is_exit_7_not_internal(issue, tmp_path):
    issue.add_comments(OWNER, NAME, ISSUE, 2)
    env = script_env(issue)
    first = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                       "--root", tmp_path, "--update-state", env=env)
    assert first.code == 0, first
    folder = tmp_path / ".tmp" / "runs" / "default" / "gh-issue-comment-monitor"
    [checkpoint] = [p for p in folder.glob("*.json") if p.name.endswith(f"-{ISSUE}.json")]
    checkpoint.write_text("[" * 100000 + "]" * 100000)
    r = run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--root", tmp_path, env=env)
    no_traceback(r)
    assert r.code == 7 and r.json["error"]["code"] == "state", r


# --------------------------------------------------------------------------- 5. preflight

@pytest.mark.parametrize("body", [[], {"resources": "x"}, {"rate": 5},
                                  {"resources": {"core": ["a"]}}])
def test_the_preflight_network_check_survives_a_malformed_rate_limit(fake, body, tmp_path):
    fake.inject("GET", r"/rate_limit$", status=200, times=None, body=body)
    proc = subprocess.run([SCRIPT_PYTHON, str(SCRIPTS.parent / "verify_dependencies.py"),
                           "--check-network"], env=script_env(fake), capture_output=True,
                          timeout=60, check=False)
    out = proc.stdout.decode()
    assert "internal" not in out and "Traceback" not in proc.stderr.decode(), out
    doc = json.loads(out)
    assert "checks" in doc, doc


# --------------------------------------------------------------------------- 6. gh transport size

def test_the_gh_transport_caps_an_answer_at_64_mib(fake, gh_env, tmp_path):
    """64 MiB decoded is the cap (section 17); through --transport gh an 80 MiB answer is exit
    6 too (gh's output is read in bounded chunks, gh killed past the cap)."""
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    [cid] = fake.add_comments(OWNER, NAME, ISSUE, 1)
    raw = {"id": cid, "node_id": "IC_1", "user": {"login": "alice", "type": "User"},
           "author_association": "MEMBER", "created_at": "2026-01-02T03:04:05Z",
           "updated_at": "2026-01-02T03:04:05Z", "body": "x" * (80 * 1024 * 1024),
           "html_url": f"https://github.com/octo/hello/issues/5#issuecomment-{cid}",
           "issue_url": "https://api.github.com/repos/octo/hello/issues/5"}
    fake.inject("GET", rf"/issues/comments/{cid}$", status=200, times=None, body=raw)
    r = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--comment-id", cid, "--transport", "gh", "--max-body-chars", "10",
                   "--root", tmp_path, env=gh_env, timeout=120)
    assert r.code == 6, Run(r.code, r.stdout[:500], r.stderr[:500])


# --------------------------------------------------------------------------- userinfo with '@'
# A password may hold '@' (git takes the last '@' as the end of the userinfo, as urlsplit does):
# both `without_userinfo` helpers cut at the last one, so no part of the password is printed.

PASSWORD = "hunter2@tail-secret"


def test_the_api_url_refusal_never_prints_a_password_holding_an_at(tmp_path):
    url = f"https://bob:{PASSWORD}@ghe.example.com/api/v3"
    r = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--last-n", 1, "--api-url", url, "--root", tmp_path,
                   env=clean_env(HOME=str(tmp_path)))
    assert r.code == 2, r
    assert "tail-secret" not in r.stdout + r.stderr, r


def test_the_shell_fallback_never_prints_a_password_holding_an_at(tmp_path):
    need_tools("git", "gh", "jq")
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "remote", "add", "origin",
                    f"https://bob:{PASSWORD}@ghe.example.com/octo/hello.git"], check=True)
    r = run_script("get-pr-comments.sh", "--pr", PR, cwd=work,
                   env=clean_env(HOME=str(tmp_path), GH_CONFIG_DIR=str(tmp_path / "gh"),
                                 TMPDIR=str(tmp_path)), timeout=60)
    assert r.code == 2, r
    assert "tail-secret" not in r.stdout + r.stderr, r


# --------------------------------------------------------------------------- token checks

def test_a_token_with_a_trailing_newline_is_refused_by_both_paths_alike(pull, sh_env):
    """Section 17: a token holding whitespace is exit 3 naming the variable. Both paths refuse
    GH_TOKEN=$'tok\\n' (the Python scripts no longer strip it silently)."""
    env = dict(sh_env, GH_TOKEN=sh_env["GH_TOKEN"] + "\n")
    sh = run_script("get-pr-comments.sh", "--repo", REPOSITORY, "--pr", PR, "--format",
                    "json", env=env, timeout=60)
    assert sh.code == 3 and "GH_TOKEN" in sh.json["error"]["message"], sh
    pull.add_token(TOKEN)
    py = run_script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", PR, "--format",
                    "json", env=script_env(pull, token=None, GH_TOKEN=TOKEN + "\n"))
    assert py.code == 3 and "GH_TOKEN" in py.json["error"]["message"], py


# --------------------------------------------------------------------------- writer dry run

def test_dry_run_refuses_a_comments_file_holding_the_token_as_the_real_run(pull, tmp_path):
    """A comments-file body holding the token: the real run is exit 2 (nothing sent), and so
    is the dry run (nothing printed), not 'Would submit' with the body shown as ***."""
    f = tmp_path / "inline.json"
    f.write_text(json.dumps([{"path": "src/parser.py", "line": 3, "body": f"key {TOKEN}"}]))
    env = script_env(pull)
    args = ["--action", "review", "--repo", REPOSITORY, "--pr", PR, "--event", "COMMENT",
            "--comments-file", f]
    real = run_script("manage_issue_comment.py", *args, env=env)
    assert real.code == 2 and TOKEN not in real.stdout + real.stderr, real  # holds
    dry = run_script("manage_issue_comment.py", *args, "--dry-run", env=env)
    assert TOKEN not in dry.stdout + dry.stderr, dry  # holds
    assert dry.code == real.code, dry


# --------------------------------------------------------------------------- a short token

def test_a_short_token_does_not_corrupt_the_checkpoint(issue, tmp_path):
    """With GH_TOKEN=0 (shorter than any GitHub token) the state files are not scrubbed of it:
    no '0' in a stored time, URL or snapshot id becomes '***' (tokens.SHORTEST_REAL_TOKEN)."""
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    env = script_env(issue, token="0")
    first = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                       "--root", tmp_path, "--update-state", env=env)
    assert first.code == 0, first
    folder = tmp_path / ".tmp" / "runs" / "default" / "gh-issue-comment-monitor"
    stored = "".join(p.read_text() for p in folder.glob("*.json"))
    corrupt = "***" in stored
    new = issue.add_comments(OWNER, NAME, ISSUE, 1)
    r = run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--root", tmp_path, env=env)
    assert r.code == 0 and [c["id"] for c in r.json["new_comments"]] == new, r
    assert not corrupt, stored[:1500]


def test_a_short_token_keeps_the_no_change_poll_at_304(issue, tmp_path):
    """The stored ETag is kept as GitHub sent it (a scrubbed '0' -> '***' would send a wrong
    If-None-Match and pay a full 200 instead of the free 304 of section 11's poll)."""
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    results = {}
    for token in ("ghp_longEnoughTokenNoDigitsHereAtAllXYZ", "0"):
        root = tmp_path / f"t{len(token)}"
        root.mkdir()
        env = script_env(issue, token=token)
        for _ in range(2):
            r = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                           "--root", root, "--update-state", env=env)
            assert r.code == 0, r
        issue.clear_log()
        r = run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                       "--root", root, env=env)
        assert r.code == 0 and r.json["has_updates"] is False, r
        results[token] = [q.status for q in issue.requests]
    assert results["0"] == results["ghp_longEnoughTokenNoDigitsHereAtAllXYZ"], results


# --------------------------------------------------------------------------- a negative chunk size
# `Transfer-Encoding: chunked` with a chunk size of -1: http.client (and urllib3 above it) would
# read "-1 bytes", i.e. to the end of the stream, in one call, before `_read_capped` sees a
# byte. Both paths read through a response class that refuses such a read.

LAUNCHER = ("import os, subprocess, sys\n"
            "p = subprocess.Popen(sys.argv[1:])\n"
            "_, status, usage = os.wait4(p.pid, 0)\n"
            "sys.stderr.write('MAXRSS_KIB=%d\\n' % usage.ru_maxrss)\n"
            "sys.exit(os.waitstatus_to_exitcode(status))\n")


def _negative_chunk(h, mib: int = 300) -> bool:
    h.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n-1\r\n")
    block = b" " * (1024 * 1024)
    for _ in range(mib):
        h.wfile.write(block)
    h.wfile.flush()
    h.close_connection = True
    return True


def test_a_negative_chunk_size_is_exit_6_without_holding_the_answer(hostile, tmp_path):
    import re

    server = hostile(_negative_chunk)
    env = clean_env(GITHUB_API_URL=server.url, GH_TOKEN=TOKEN)
    proc = subprocess.run([SCRIPT_PYTHON, "-c", LAUNCHER, SCRIPT_PYTHON,
                           str(SCRIPTS / "get_latest_comments.py"), "--repo", REPOSITORY,
                           "--issue", str(ISSUE), "--last-n", "1", "--root", str(tmp_path),
                           "--max-wait", "0"],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    peak = int(re.search(r"MAXRSS_KIB=(\d+)", proc.stderr).group(1))
    assert proc.returncode == 6, (proc.stdout[:500], proc.stderr[:500])
    assert peak < 200 * 1024, (f"{peak} KiB resident for a 300 MiB answer (cap 64 MiB)",
                               proc.stdout[:300])



FAST_PATH = ("import sys\n"
             "sys.path.insert(0, sys.argv[1])\n"
             "from ghcomments.net.plain_http import send_stdlib\n"
             "from ghcomments.net.transport import TransportError\n"
             "try:\n"
             "    send_stdlib(sys.argv[2], {'If-None-Match': 'W/\"x\"'}, 60)\n"
             "except TransportError as exc:\n"
             "    print(exc.kind)\n"
             "    sys.exit(6)\n")


def test_a_negative_chunk_size_on_the_304_fast_path_is_refused_without_holding_it(hostile):
    """The poll's conditional GET goes through http.client directly (no requests): the same
    bounded response class refuses the read of -1 bytes there too."""
    import re

    server = hostile(_negative_chunk)
    proc = subprocess.run([SCRIPT_PYTHON, "-c", LAUNCHER, SCRIPT_PYTHON, "-c", FAST_PATH,
                           str(SCRIPTS), f"{server.url}/repos/octo/hello/issues/5/comments"],
                          env=clean_env(), capture_output=True, text=True, timeout=120,
                          check=False)
    peak = int(re.search(r"MAXRSS_KIB=(\d+)", proc.stderr).group(1))
    assert proc.returncode == 6 and proc.stdout.strip() == "incomplete", (proc.stdout,
                                                                          proc.stderr[-500:])
    assert peak < 200 * 1024, f"{peak} KiB resident for a 300 MiB answer (cap 64 MiB)"


def test_a_short_token_never_renames_a_key(issue, tmp_path):
    """GH_TOKEN=error: the value strings are scrubbed of it, the keys (the bundle's own names)
    are not — the error document keeps its `error` key."""
    issue.inject("GET", r"/issues/5/comments$", status=404, times=None,
                 body={"message": "Not Found"})
    r = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--last-n", 1, "--root", tmp_path, env=script_env(issue, token="error"))
    assert r.code == 4 and r.json["error"]["code"] == "not_found", r


def test_the_shell_fallback_refuses_an_origin_that_is_not_a_host_name(tmp_path):
    """A host gh --hostname (or a URL parser) might read otherwise is never handed on."""
    need_tools("git", "gh", "jq")
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "remote", "add", "origin",
                    "https://ghe_evil.example.com/octo/hello.git"], check=True)
    r = run_script("get-pr-comments.sh", "--pr", PR, cwd=work,
                   env=clean_env(HOME=str(tmp_path), GH_CONFIG_DIR=str(tmp_path / "gh"),
                                 TMPDIR=str(tmp_path)), timeout=60)
    assert r.code == 2 and "no plain host name" in r.json["error"]["message"], r


@pytest.mark.parametrize("url", [
    "http://127.0.0.2\\@127.0.0.1:8080/repos/octo/hello/issues/5/comments?page=2",
    "http://x@127.0.0.1:8080/repos/octo/hello/issues/5/comments?page=2",
    "http://127.0.0.1:8080/repos/octo/hello/issues/5/comments?page=2&a=b c",
    "http://127.0.0.1:8080\\repos",
])
def test_a_url_parsers_may_read_differently_is_refused_naming_its_origin(url):
    """One parse decides the origin check and the connection: a backslash, userinfo or
    whitespace in a followed URL is exit 6 (code server) naming the origin it would reach."""
    import sys

    sys.path.insert(0, str(SCRIPTS))
    from ghcomments.base.errors import ServerError
    from ghcomments.net.client import GitHubClient
    from ghcomments.net.http_requests import RequestsTransport

    client = GitHubClient("http://127.0.0.1:8080", RequestsTransport(TOKEN, 5))
    with pytest.raises(ServerError) as caught:
        client._check_origin(url, "GET comments (next page)")
    message = caught.value.message
    assert "never followed" in message and "refusing to follow" in message, message
    assert caught.value.exit_code == 6


def test_a_token_with_a_trailing_newline_is_refused_through_the_gh_transport_too(pull, sh_env):
    """gh picks among the token variables itself (and would trim the newline): the gh
    transport refuses a bad one as the shell fallback does, exit 3 naming it."""
    env = dict(sh_env, GH_TOKEN=sh_env["GH_TOKEN"] + "\n")
    py = run_script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", PR, "--transport", "gh",
                    "--format", "json", env=env, timeout=60)
    assert py.code == 3 and "GH_TOKEN" in py.json["error"]["message"], py
