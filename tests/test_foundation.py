"""The shared helper's seams, through real processes and real HTTP: auth and token discovery,
URLs, errors and exit codes, retries, links and redirects, the state store, the gh transport,
the writer's no-retry rule and the preflight."""

from __future__ import annotations

import fcntl
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakegithub import FakeGitHub
from tests.support import OWNER, REPO, REPOSITORY, SCRIPTS, TOKEN, clean_env, run_script, script_env

sys.path.insert(0, str(SCRIPTS))

from ghcomments.net import config  # noqa: E402

ISSUE = 5


@pytest.fixture
def issue(fake):
    fake.add_repo(OWNER, "hello")
    fake.add_issue(OWNER, "hello", ISSUE)
    fake.add_comments(OWNER, "hello", ISSUE, 30)
    return fake


def check(env, root, *args):
    return run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                      "--root", root, *args, env=env)


def auth_headers(fake):
    return [r.headers.get("authorization") for r in fake.requests]


def all_files_text(root: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


# -- URLs and hosts (pure functions) ------------------------------------------------------------

@pytest.mark.parametrize("api, graphql, host", [
    ("https://api.github.com", "https://api.github.com/graphql", "github.com"),
    ("https://ghe.example.com/api/v3", "https://ghe.example.com/api/graphql", "ghe.example.com"),
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080/graphql", "127.0.0.1:8080"),
])
def test_graphql_url_and_host_derivation(api, graphql, host):
    assert config.graphql_url_for(api, {}) == graphql
    assert config.host_for(api) == host
    assert config.graphql_url_for(api, {"GITHUB_GRAPHQL_URL": "https://x/gql"}) == "https://x/gql"


@pytest.mark.parametrize("url, parsed", [
    ("https://github.com/octo/hello.git", ("github.com", "octo", "hello")),
    ("https://github.com/octo/hello", ("github.com", "octo", "hello")),
    ("git@github.com:octo/hello.git", ("github.com", "octo", "hello")),
    ("ssh://git@ghe.example.com:2222/team/tool.git", ("ghe.example.com", "team", "tool")),
    ("https://ghe.example.com/team/tool.git", ("ghe.example.com", "team", "tool")),
])
def test_remote_urls_parse(url, parsed):
    assert config.parse_remote_url(url) == parsed


def test_ghes_checkout_never_uses_api_github_com(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin",
                    "git@ghe.example.com:team/tool.git"], check=True)
    # A known GitHub host (GH_HOST here; or one gh is logged in to) derives its REST base;
    # an unknown one is a usage error asking for --api-url (CONTRACT section 17), never
    # api.github.com and never a guessed enterprise URL.
    target = config.resolve_target(None, None, None, {"GH_HOST": "ghe.example.com"},
                                   cwd=str(tmp_path))
    assert target.api_url == "https://ghe.example.com/api/v3"
    with pytest.raises(config.UsageError, match="--api-url"):
        config.resolve_target(None, None, None, {"PATH": "/nonexistent"}, cwd=str(tmp_path))
    assert config.resolve_target(None, None, None, {"GITHUB_API_URL": "https://x.y/api/v3"},
                                 cwd=str(tmp_path)).api_url == "https://x.y/api/v3"


# -- tokens: discovery order, never to another host, never printed or written ------------------

def test_enterprise_token_wins_for_another_host(issue, tmp_path):
    issue.add_token("ent-token")
    env = clean_env(GH_ENTERPRISE_TOKEN="ent-token", GH_TOKEN="other", GITHUB_API_URL=issue.url)
    issue.add_token("other")
    assert check(env, tmp_path).code == 0
    assert set(auth_headers(issue)) == {"Bearer ent-token"}


def test_gh_token_goes_only_to_the_api_url_of_github_api_url(issue, tmp_path):
    issue.add_token(TOKEN)
    env = clean_env(GH_TOKEN=TOKEN, GITHUB_API_URL="https://api.github.com")
    r = check(env, tmp_path, "--api-url", issue.url)  # a typed URL is not GITHUB_API_URL
    assert r.code == 0, r
    assert set(auth_headers(issue)) == {None}
    assert "no token" in r.stderr
    issue.clear_log()
    env["GITHUB_API_URL"] = issue.url
    assert check(env, tmp_path).code == 0
    assert set(auth_headers(issue)) == {f"Bearer {TOKEN}"}


def test_gh_auth_token_is_the_last_source(issue, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    gh = bin_dir / "gh"
    gh.write_text(f"#!/bin/sh\necho \"$@\" >> {calls}\n"
                  "[ \"$1 $2\" = 'auth token' ] && echo gh-config-token && exit 0\nexit 1\n")
    gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
    issue.add_token("gh-config-token")
    env = clean_env(PATH=f"{bin_dir}:{os.environ['PATH']}")
    work = tmp_path / "work"
    work.mkdir()
    r = check(env, work, "--api-url", issue.url)
    assert r.code == 0, r
    host = issue.url.split("://")[1]
    assert calls.read_text().split() == ["auth", "token", "--hostname", host]
    assert set(auth_headers(issue)) == {"Bearer gh-config-token"}


def test_token_is_never_printed_nor_written(issue, tmp_path):
    secret = "ghp_SECRETsecretSECRETsecret0000000000"
    env = clean_env(GH_TOKEN=secret, GITHUB_API_URL=issue.url)
    bad = check(env, tmp_path)  # unknown token: 401
    assert bad.code == 3 and bad.json["error"]["code"] == "auth", bad
    issue.add_token(secret)
    good = check(env, tmp_path, "--format", "summary")
    confirm = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                         "--root", tmp_path, "--confirm-updates", env=env)
    writer = run_script("manage_issue_comment.py", "--action", "create", "--repo", REPOSITORY,
                        "--issue", ISSUE, "--body-file", "-", "--dry-run", env=env,
                        stdin=b"hello")
    for r in (bad, good, confirm, writer):
        assert secret not in r.stdout and secret not in r.stderr
    assert good.code == 0 and confirm.code == 0 and writer.code == 0
    assert secret not in all_files_text(tmp_path)


def test_link_to_another_origin_is_refused_and_gets_no_token(fake, tmp_path):
    other = FakeGitHub(host="127.0.0.2").start()
    try:
        other.add_repo(OWNER, "hello")
        fake.add_repo(OWNER, "hello")
        fake.add_pull(OWNER, "hello", 7)
        env = script_env(fake)
        evil = f"{other.url}/repositories/1/issues/7/comments?page=2"
        fake.inject("GET", r"/issues/7/comments$", status=200, body=[],
                    headers={"Link": f'<{evil}>; rel="next"'})
        sys.path.insert(0, str(SCRIPTS))
        from ghcomments.base.errors import ServerError
        from ghcomments.net.client import GitHubClient
        from ghcomments.net.http_requests import RequestsTransport

        client = GitHubClient(fake.url, RequestsTransport(TOKEN, 10))
        with pytest.raises(ServerError) as err:
            client.paginate(f"repos/{OWNER}/hello/issues/7/comments", {"per_page": 100})
        assert "127.0.0.2" in err.value.message
        assert other.requests == []
        assert env  # the same origin rule serves every script through this client
    finally:
        other.stop()


def test_redirect_to_another_origin_is_not_followed(issue, tmp_path):
    issue.inject("GET", r"/comments$", status=302,
                 headers={"Location": "http://127.0.0.2:9/steal"}, body="")
    r = check(script_env(issue), tmp_path)
    assert r.code == 6 and "another origin" in r.json["error"]["message"], r


def test_pagination_follows_link_as_given(fake):
    fake.add_repo(OWNER, "hello")
    fake.add_issue(OWNER, "hello", ISSUE)
    ids = fake.add_comments(OWNER, "hello", ISSUE, 250)
    fake.add_token(TOKEN)
    from ghcomments.net.client import GitHubClient
    from ghcomments.net.http_requests import RequestsTransport

    client = GitHubClient(fake.url, RequestsTransport(TOKEN, 10))
    items, pages, truncated = client.paginate(f"repos/{OWNER}/hello/issues/{ISSUE}/comments",
                                              {"per_page": 100})
    assert [c["id"] for c in items] == ids and pages == 3 and truncated is False
    paths = [r.path for r in fake.requests]
    assert paths[0] == f"/repos/{OWNER}/hello/issues/{ISSUE}/comments"
    assert all(re.fullmatch(rf"/repositories/\d+/issues/{ISSUE}/comments", p)
               for p in paths[1:]) and len(paths) == 3


# -- errors -> exit codes and the error JSON ---------------------------------------------------

@pytest.mark.parametrize("status, headers, body, code, exit_code", [
    (401, {}, {"message": "Bad credentials"}, "auth", 3),
    (403, {}, {"message": "Resource not accessible by integration"}, "auth", 3),
    (404, {}, {"message": "Not Found"}, "not_found", 4),
    (429, {}, {"message": "Too many requests"}, "rate_limited", 5),
    (403, {"retry-after": "120"}, {"message": "You have exceeded a secondary rate limit."},
     "rate_limited", 5),
    (500, {}, {"message": "boom"}, "server", 6),
    (422, {}, {"message": "Validation Failed"}, "usage", 2),
])
def test_http_errors_map_to_exit_codes(issue, tmp_path, status, headers, body, code, exit_code):
    issue.inject("GET", r"/comments$", status=status, headers=headers, body=body, times=None)
    r = check(script_env(issue), tmp_path)
    assert r.code == exit_code, r
    err = r.json["error"]
    assert err["code"] == code and err["status"] == status and err["message"]
    assert set(err) == {"code", "message", "status", "retry_after_seconds"}
    assert r.stderr.startswith(f"error ({code}):")
    if code == "rate_limited":
        assert err["retry_after_seconds"] == (120 if "retry-after" in headers else 60)
        assert len(issue.requests) == 1  # a limit longer than --max-wait is not waited out
    assert not (tmp_path / ".tmp").exists() or not list((tmp_path / ".tmp").rglob("*.json"))


def test_primary_rate_limit_reports_reset(issue, tmp_path):
    reset = int(time.time()) + 600
    issue.rate_limit(remaining=0, reset=reset)
    r = check(script_env(issue), tmp_path)
    assert r.code == 5, r
    assert 590 <= r.json["error"]["retry_after_seconds"] <= 600
    assert len(issue.requests) == 1


def test_short_rate_limit_is_waited_out_once(issue, tmp_path):
    issue.secondary_rate_limit(retry_after=1, times=1, path=r"/comments$")
    r = check(script_env(issue), tmp_path)
    assert r.code == 0, r
    assert "waiting 1 s" in r.stderr
    assert len(issue.requests) == 3  # limited, then the count and the window


@pytest.mark.parametrize("mode", ["malformed", "truncate", "close"])
def test_broken_responses_are_network_or_server_errors(issue, tmp_path, mode):
    issue.inject("GET", r"/comments$", mode=mode, times=None)
    r = check(script_env(issue), tmp_path)
    assert r.code == 6 and r.json["error"]["code"] in ("server", "network"), r
    attempts = len(issue.requests)
    assert attempts == (1 if mode == "malformed" else 3)  # bad JSON is not retried


def test_5xx_is_retried_three_times_at_most(issue, tmp_path):
    issue.inject("GET", r"/comments$", status=503, times=None)
    started = time.monotonic()
    r = check(script_env(issue), tmp_path)
    assert r.code == 6 and "after 3 attempts" in r.json["error"]["message"], r
    assert len(issue.requests) == 3
    assert time.monotonic() - started < 15


def test_a_burst_of_5xx_is_ridden_out(issue, tmp_path):
    issue.inject("GET", r"/comments$", status=502, times=2)
    r = check(script_env(issue), tmp_path)
    assert r.code == 0 and r.json["requests"] == len(issue.requests) == 4, r
    assert "retrying" in r.stderr


def test_connection_refused_is_a_network_error(tmp_path):
    env = clean_env(GITHUB_API_URL="http://127.0.0.1:9", GH_TOKEN=TOKEN)
    r = check(env, tmp_path)
    assert r.code == 6 and r.json["error"]["code"] == "network", r


def test_post_is_never_retried(issue, tmp_path):
    issue.inject("POST", r"/comments$", status=502, times=None)
    r = run_script("manage_issue_comment.py", "--action", "create", "--repo", REPOSITORY,
                   "--issue", ISSUE, "--body-file", "-", env=script_env(issue), stdin=b"hi")
    assert r.code == 6, r
    assert [q.method for q in issue.requests] == ["POST"]


def test_post_cut_off_after_sending_says_the_comment_may_exist(issue, tmp_path):
    issue.inject("POST", r"/comments$", mode="close", times=None)
    r = run_script("manage_issue_comment.py", "--action", "create", "--repo", REPOSITORY,
                   "--issue", ISSUE, "--body-file", "-", env=script_env(issue), stdin=b"hi")
    assert r.code == 6, r
    msg = r.json["error"]["message"]
    assert "may" in msg and "--last-n 1" in msg
    assert [q.method for q in issue.requests] == ["POST"]


# -- the state store ------------------------------------------------------------------------------

def test_lock_held_elsewhere_is_a_state_error_after_five_seconds(issue, tmp_path):
    env = script_env(issue)
    assert check(env, tmp_path).code == 0
    folder = tmp_path / ".tmp" / "runs" / "default" / "gh-issue-comment-monitor"
    lock = folder / ".octo-hello-5.lock"
    updates = folder / "octo-hello-5-updates.json"
    before = updates.read_bytes()
    with open(lock, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        started = time.monotonic()
        r = check(env, tmp_path)
        waited = time.monotonic() - started
    assert r.code == 7 and "locked" in r.json["error"]["message"], r
    assert waited >= 5
    assert updates.read_bytes() == before


def test_writes_are_atomic_and_leave_no_temp_files(issue, tmp_path):
    env = script_env(issue)
    for _ in range(3):
        r = check(env, tmp_path)
        assert r.code == 0
        assert run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                          "--root", tmp_path, "--confirm-updates", env=env).code == 0
        issue.add_comments(OWNER, "hello", ISSUE, 2)
    folder = tmp_path / ".tmp" / "runs" / "default" / "gh-issue-comment-monitor"
    assert sorted(p.name for p in folder.iterdir()) == [".octo-hello-5.lock",
                                                       "octo-hello-5-hints.json",
                                                       "octo-hello-5-updates.json",
                                                       "octo-hello-5.json"]


def test_a_killed_writer_leaves_old_or_new_and_its_temp_file_is_cleaned(issue, tmp_path):
    env = script_env(issue)
    assert check(env, tmp_path).code == 0
    folder = tmp_path / ".tmp" / "runs" / "default" / "gh-issue-comment-monitor"
    updates = folder / "octo-hello-5-updates.json"
    old = updates.read_bytes()
    issue.add_comments(OWNER, "hello", ISSUE, 1)
    slow = dict(env, GH_MONITOR_TEST_WRITE_PAUSE="3")
    proc = subprocess.Popen([sys.executable, str(SCRIPTS / "check_issue_updates.py"), "--repo",
                             REPOSITORY, "--issue", str(ISSUE), "--root", str(tmp_path)],
                            env=slow, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not any(p.name.startswith(".octo-hello-5-updates.json.tmp-") for p in folder.iterdir()):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    assert updates.read_bytes() == old  # the old snapshot, whole
    assert check(env, tmp_path).code == 0  # the next writer cleans the leftover
    assert not [p for p in folder.iterdir() if ".tmp-" in p.name]


# -- the gh transport, with the real gh ----------------------------------------------------------

def test_gh_transport_polls_with_304(issue, gh_env, tmp_path):
    r = check(gh_env, tmp_path, "--transport", "gh")
    assert r.code == 0 and r.json["new_comment_count"] == 20, r
    assert run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                      "--root", tmp_path, "--confirm-updates", env=gh_env).code == 0
    issue.clear_log()
    r = check(gh_env, tmp_path, "--transport", "gh")
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert [q.status for q in issue.requests] == [304]
    assert issue.requests[0].target.startswith("http://api.github.localhost/")
    new = issue.add_comments(OWNER, "hello", ISSUE, 3)
    r = check(gh_env, tmp_path, "--transport", "gh")
    assert [c["id"] for c in r.json["new_comments"]] == new


def test_gh_transport_errors_map_to_exit_codes(issue, gh_env, tmp_path):
    r = run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", 404, "--root",
                   tmp_path, "--transport", "gh", env=gh_env)
    assert r.code == 4 and r.json["error"]["status"] == 404, r
    r = check(dict(gh_env, GH_TOKEN=""), tmp_path, "--transport", "gh")
    assert r.code == 3, r


def test_preflight_without_requests_says_how_to_get_it_and_names_the_python(
        python_without_requests, tmp_path):
    env = clean_env(HOME=str(tmp_path), GH_TOKEN="tok-123")
    proc = subprocess.run([python_without_requests, str(REPO / "verify_dependencies.py")],
                          env=env, capture_output=True, text=True, check=False)
    doc = __import__("json").loads(proc.stdout)
    checks = {c["name"]: c for c in doc["checks"]}
    assert proc.returncode == 1 and doc["ok"] is False, proc
    assert checks["requests"]["ok"] is False and checks["requests"]["required"] is True
    for words in ("pip", "python3-requests", "uv run", python_without_requests):
        assert words in checks["requests"]["detail"], words
    assert python_without_requests in checks["python"]["detail"]
    assert checks["credentials"]["ok"] is True and "Traceback" not in proc.stderr
    proc = subprocess.run([python_without_requests, str(REPO / "verify_dependencies.py"),
                           "--check-network"], env=env, capture_output=True, text=True,
                          check=False)
    checks = {c["name"]: c for c in __import__("json").loads(proc.stdout)["checks"]}
    assert proc.returncode == 1 and checks["network"]["detail"] == "needs requests"
    proc = subprocess.run([sys.executable, str(REPO / "verify_dependencies.py")], env=env,
                          capture_output=True, text=True, check=False)
    checks = {c["name"]: c for c in __import__("json").loads(proc.stdout)["checks"]}
    assert checks["requests"]["ok"] is True and sys.executable in checks["requests"]["detail"]


# -- the writer -----------------------------------------------------------------------------------

def test_writer_dry_run_sends_nothing(issue, tmp_path):
    r = run_script("manage_issue_comment.py", "--action", "create", "--repo", REPOSITORY,
                   "--issue", ISSUE, "--body-file", "-", "--dry-run",
                   env=clean_env(GITHUB_API_URL=issue.url), stdin=b'say "hi"\n')
    assert r.code == 0, r
    assert r.json["request"]["json"] == {"body": 'say "hi"\n'}
    assert issue.requests == []


# -- the preflight --------------------------------------------------------------------------------

def test_preflight_with_and_without_token_and_gh(fake, tmp_path):
    def preflight(env, *args):
        proc = subprocess.run([sys.executable, str(REPO / "verify_dependencies.py"), *args],
                              env=env, capture_output=True, text=True, check=False)
        return proc.returncode, __import__("json").loads(proc.stdout)

    no_gh = clean_env(PATH=str(tmp_path), HOME=str(tmp_path))
    code, doc = preflight(no_gh)
    checks = {c["name"]: c for c in doc["checks"]}
    assert code == 1 and doc["ok"] is False and checks["credentials"]["ok"] is False
    assert checks["gh"]["ok"] is False and checks["gh"]["required"] is False
    code, doc = preflight(dict(no_gh, GH_TOKEN="tok-123"))
    checks = {c["name"]: c for c in doc["checks"]}
    assert code == 0 and doc["ok"] is True and "GH_TOKEN" in checks["credentials"]["detail"]
    assert "tok-123" not in str(doc)
    fake.add_token("tok-123")
    env = dict(no_gh, GH_TOKEN="tok-123", GITHUB_API_URL=fake.url)
    code, doc = preflight(env, "--check-network")
    checks = {c["name"]: c for c in doc["checks"]}
    assert code == 0 and checks["network"]["ok"] is True and "remaining" in \
        checks["network"]["detail"]
    code, doc = preflight(dict(env, GITHUB_API_URL="http://127.0.0.1:9"), "--check-network")
    assert code == 1 and doc["ok"] is False
    with_gh = clean_env(HOME=str(tmp_path))
    code, doc = preflight(with_gh)
    assert {c["name"]: c for c in doc["checks"]}["gh"]["ok"] is True
