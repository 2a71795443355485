"""Issue 31, items 4, 7, 8, 9, 10 and 12 (CONTRACT section 22, with 10 and 17): a followed
comment URL is read before it is followed; huge numbers, times outside 1970-9999 and URLs with
an unclosed IPv6 bracket in any answer are exit 6, never exit 1 (a write's answer: "may have
been applied"); a NaN or a year-1 time in a state file is exit 7 before anything is renamed;
a password in an API URL or an origin remote is shown as ***.

Each test runs the scripts as an agent does (subprocesses) against the fake GitHub, or through
a proxy of the test's own on 127.0.0.1 that rewrites the fake's answers as a hostile server
would; the shell fallback runs the real gh and jq.
"""

from __future__ import annotations

import http.client
import json
import re
import subprocess
from pathlib import Path
from typing import Callable, Optional
from urllib.parse import urlsplit

import pytest

from tests import test_hostile as _shared
from tests.support import (
    NAME,
    OWNER,
    REPOSITORY,
    Run,
    clean_env,
    inbox,
    latest,
    run_script,
    script_env,
    state_dir,
)
from tests.test_hostile import need_tools

hostile = _shared.hostile
ISSUE, OTHER, PR = 5, 9, 7
HUGE = "9" * 5000


def no_crash(r: Run) -> None:
    assert "Traceback" not in r.stderr, r
    assert '"internal"' not in r.stdout, r


@pytest.fixture
def gh(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    fake.add_issue(OWNER, NAME, OTHER)
    fake.add_comments(OWNER, NAME, ISSUE, 3)
    fake.add_comments(OWNER, NAME, OTHER, 2)
    return fake


def proxy(hostile, fake, rewrite: Callable[[str, str, dict, bytes], Optional[tuple]]):
    """A server on 127.0.0.1 that forwards each request to the fake (no compression asked)
    and lets `rewrite(method, path, headers, body)` return (headers, body) to change the
    answer, or None to pass it on as it is."""
    up = urlsplit(fake.url)

    def answer(h) -> bool:
        length = int(h.headers.get("content-length") or 0)
        body = h.rfile.read(length) if length else None
        headers = {k: v for k, v in h.headers.items() if k.lower() != "accept-encoding"}
        conn = http.client.HTTPConnection(up.hostname, up.port, timeout=30)
        conn.request(h.command, h.path, body=body, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        out = {k: v for k, v in resp.getheaders()
               if k.lower() not in ("content-length", "transfer-encoding", "connection",
                                    "date", "server", "content-encoding")}
        changed = rewrite(h.command, h.path.split("?")[0], out, data) if \
            200 <= resp.status < 300 else None
        if changed is not None:
            out, data = changed
        h.send_response(resp.status)
        for k, v in out.items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
        conn.close()
        return True

    return hostile(answer)


def env_for(fake, server, **extra):
    return dict(script_env(fake), GITHUB_API_URL=server.url, **extra)


def comment_url(fake, number: int, cid) -> str:
    return f"{fake.url}/{OWNER}/{NAME}/issues/{number}#issuecomment-{cid}"  # web host = API's


# --------------------------------------------------------------------------- 4. followed URL

def test_a_followed_comment_url_reads_that_comment_first(gh, tmp_path):
    ids = [c["id"] for c in gh.list_comments(OWNER, NAME, ISSUE)] \
        if hasattr(gh, "list_comments") else None
    r = latest(gh, tmp_path, "--repo", REPOSITORY, "--issue", ISSUE, "--all")
    assert r.code == 0, r
    ids = ids or [c["id"] for c in r.json["comments"]]
    first = ids[0]
    url = comment_url(gh, ISSUE, first)
    r = inbox(gh, tmp_path, "--follow", url)
    assert r.code == 0, r
    reads = [q for q in gh.requests if q.method == "GET"
             and q.path == f"/repos/{OWNER}/{NAME}/issues/comments/{first}"]
    assert len(reads) == 1, gh.requests
    conv = r.json["conversations"][0]
    assert [c["id"] for c in conv["new_comments"]] == ids[1:], conv


@pytest.mark.parametrize("which", ["unknown", "other-issue"])
def test_a_followed_comment_url_github_does_not_know_is_exit_2_naming_the_ref(
        gh, tmp_path, which):
    other = gh.add_comment(OWNER, NAME, OTHER, "elsewhere")["id"]
    cid = 9223372036854775807 if which == "unknown" else other
    url = comment_url(gh, ISSUE, cid)
    r = inbox(gh, tmp_path, "--follow", url)
    no_crash(r)
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    assert str(cid) in r.json["error"]["message"], r
    assert f"{OWNER}/{NAME}" in r.json["error"]["message"], r
    # nothing followed: no list read, no state file
    assert not [q for q in gh.requests if q.path.endswith(f"/issues/{ISSUE}/comments")]
    folder = state_dir(tmp_path)
    assert not folder.exists() or not [p for p in folder.iterdir()
                                       if p.name.endswith(".json")], list(folder.iterdir())
    r = latest(gh, tmp_path, "--followed")
    assert r.code == 0 and r.json.get("rounds", r.json.get("conversations", [])) == [], r


# --------------------------------------------------------------------------- 7. huge numbers

def _huge_issue_url(method, path, headers, body):
    if method in ("POST", "PATCH") and b"issue_url" in body:
        doc = json.loads(body)
        doc["issue_url"] = re.sub(r"/issues/\d+$", "/issues/" + HUGE, doc["issue_url"])
        return headers, json.dumps(doc).encode()
    return None


def _huge_number_field(method, path, headers, body):
    if method in ("POST", "PATCH") and body.startswith(b"{"):
        return headers, body[:-1] + b', "reactions_count": ' + HUGE.encode() + b"}"
    return None


@pytest.mark.parametrize("rewrite", [_huge_issue_url, _huge_number_field])
def test_a_huge_number_in_a_writes_answer_says_it_may_have_been_applied(
        gh, hostile, tmp_path, rewrite):
    server = proxy(hostile, gh, rewrite)
    r = run_script("manage_issue_comment.py", "--action", "create", "--repo", REPOSITORY,
                   "--issue", ISSUE, "--body-file", "-", env=env_for(gh, server),
                   stdin=b"hello")
    no_crash(r)
    assert r.code == 6 and r.json["error"]["code"] == "server", r
    assert "may have been applied" in r.json["error"]["message"], r
    assert HUGE[:100] not in r.stdout + r.stderr
    assert [q for q in gh.requests if q.method == "POST"], "the write was sent"


@pytest.mark.parametrize("rewrite", ["issue_url", "number"])
def test_a_huge_number_in_a_comment_read_by_id_is_exit_6(gh, hostile, tmp_path, rewrite):
    r = latest(gh, tmp_path, "--repo", REPOSITORY, "--issue", ISSUE, "--last-n", 1)
    cid = r.json["comments"][0]["id"]

    def change(method, path, headers, body):
        if not path.endswith(f"/issues/comments/{cid}"):
            return None
        if rewrite == "number":
            return headers, body[:-1] + b', "reactions_count": ' + HUGE.encode() + b"}"
        doc = json.loads(body)
        doc["issue_url"] = re.sub(r"/issues/\d+$", "/issues/" + HUGE, doc["issue_url"])
        return headers, json.dumps(doc).encode()

    server = proxy(hostile, gh, change)
    r = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--comment-id", cid, "--root", tmp_path, env=env_for(gh, server))
    no_crash(r)
    assert r.code == 6 and r.json["error"]["code"] == "server", r
    assert HUGE[:100] not in r.stdout + r.stderr


# --------------------------------------------------------------------------- 8. times

def _set_time(field: str, value: str, where: str):
    def change(method, path, headers, body):
        if method != "GET" or not re.search(where, path):
            return None
        doc = json.loads(body)
        items = doc if isinstance(doc, list) else [doc]
        for item in items[-1:]:
            if isinstance(item, dict):
                item[field] = value
        return headers, json.dumps(doc).encode()
    return change


@pytest.mark.parametrize("field,value,args", [
    ("created_at", "0001-01-01T00:00:00+05:00", ()),
    ("created_at", "0001-01-01T00:00:00Z", ()),
    ("updated_at", "9999-12-31T23:59:59-05:00", ("--include-edits",)),
    ("created_at", "1969-12-31T23:59:59Z", ()),
])
def test_a_time_outside_1970_9999_on_a_check_is_exit_6(gh, hostile, tmp_path, field, value,
                                                        args):
    server = proxy(hostile, gh, _set_time(field, value, rf"/issues/{ISSUE}/comments$"))
    env = env_for(gh, server)
    (tmp_path / "one").mkdir()
    (tmp_path / "inbox").mkdir()
    for run in (
        lambda: run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                           "--root", tmp_path / "one", *args, env=env),
        lambda: run_script("check_issue_updates.py", "--follow", f"{REPOSITORY}#{ISSUE}",
                           "--root", tmp_path / "inbox", *args, env=env),
    ):
        r = run()
        no_crash(r)
        if r.code == 0:  # the inbox: the round's own error
            conv = r.json["conversations"][0]
            assert conv["error"]["code"] == "server", conv
        else:
            assert r.code == 6 and r.json["error"]["code"] == "server", r


def test_a_review_submitted_in_year_1_on_a_pr_is_exit_6(fake, hostile, tmp_path):
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser")
    fake.add_review(OWNER, NAME, PR, "erin", "CHANGES_REQUESTED", "Needs tests")
    server = proxy(hostile, fake, _set_time("submitted_at", "0001-01-01T00:00:00+05:00",
                                            rf"/pulls/{PR}/reviews$"))
    r = run_script("check_issue_updates.py", "--repo", REPOSITORY, "--pr", PR,
                   "--root", tmp_path, env=env_for(fake, server))
    no_crash(r)
    assert r.code == 6 and r.json["error"]["code"] == "server", r


# --------------------------------------------------------------------------- 9. IPv6 brackets

def test_a_link_with_an_unclosed_ipv6_bracket_is_exit_6(gh, hostile, tmp_path):
    def change(method, path, headers, body):
        if path.endswith(f"/issues/{ISSUE}/comments"):
            headers = dict(headers, Link='<http://[::1/x?page=2>; rel="last", '
                                         '<http://[::1/x?page=2>; rel="next"')
            return headers, body
        return None

    server = proxy(hostile, gh, change)
    r = run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--root", tmp_path, env=env_for(gh, server))
    no_crash(r)
    assert r.code == 6 and r.json["error"]["code"] == "server", r


def test_an_html_url_with_an_unclosed_ipv6_bracket_is_never_exit_1(gh, hostile, tmp_path):
    server = proxy(hostile, gh, _set_time("html_url", "https://[::1/octo/hello/issues/5",
                                          rf"/issues/{ISSUE}/comments$"))
    r = run_script("check_issue_updates.py", "--follow", f"{REPOSITORY}#{ISSUE}",
                   "--root", tmp_path, env=env_for(gh, server))
    no_crash(r)
    assert r.code in (0, 6), r
    if r.code == 0:
        conv = r.json["conversations"][0]
        assert conv.get("error") is None or conv["error"]["code"] == "server", conv


# --------------------------------------------------------------------------- 10. state files

def _files(root) -> dict:
    folder = state_dir(root)
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def _two_rounds_looked_at(gh, root):
    gh.add_issue(OWNER, NAME, 11)
    gh.add_comments(OWNER, NAME, 11, 2)
    keys = [f"{REPOSITORY}#{ISSUE}", f"{REPOSITORY}#11"]
    r = inbox(gh, root, "--follow", keys[0], "--follow", keys[1])
    assert r.code == 0, r
    r = latest(gh, root, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert r.code == 0, r
    gh.add_comment(OWNER, NAME, ISSUE, "new one")
    gh.add_comment(OWNER, NAME, 11, "new two")
    r = inbox(gh, root, "--followed")
    assert r.code == 0, r
    return r


def test_a_nan_in_the_inbox_file_is_exit_7_before_anything_is_renamed(gh, tmp_path):
    _two_rounds_looked_at(gh, tmp_path)
    folder = state_dir(tmp_path)
    inbox_files = [p for p in folder.iterdir() if "inbox" in p.name and p.suffix == ".json"]
    assert inbox_files, sorted(p.name for p in folder.iterdir())
    for p in inbox_files:
        p.write_text(re.sub(r'(:\s*)(\d+)', r"\1NaN", p.read_text(), count=1))
    before = _files(tmp_path)
    gh.add_comment(OWNER, NAME, ISSUE, "newer")
    r = inbox(gh, tmp_path, "--followed")
    no_crash(r)
    assert r.code == 7 and r.json["error"]["code"] == "state", r
    assert any(p.name in r.json["error"]["message"] for p in inbox_files), r
    assert _files(tmp_path) == before, "nothing renamed or written"


def test_a_nan_in_the_hints_cache_is_ignored(gh, tmp_path):
    _two_rounds_looked_at(gh, tmp_path)
    folder = state_dir(tmp_path)
    hints = [p for p in folder.iterdir() if "hint" in p.name]
    assert hints, sorted(p.name for p in folder.iterdir())
    for p in hints:
        p.write_text(re.sub(r'(:\s*)(\d+)', r"\1NaN", p.read_text(), count=1))
    r = inbox(gh, tmp_path, "--followed")
    no_crash(r)
    assert r.code == 0, r
    r = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    no_crash(r)
    assert r.code == 0, r
    for p in folder.iterdir():
        if p.is_file() and p.suffix == ".json":
            if p not in hints:  # every file written is strict JSON (a warning may say "NaN")
                _shared.strict_json(p.read_text())


def test_a_year_1_edit_watermark_in_a_checkpoint_is_exit_7(gh, tmp_path):
    r = run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--root", tmp_path, "--include-edits", env=script_env(gh))
    assert r.code == 0, r
    r = run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                   "--root", tmp_path, "--confirm-updates", "--snapshot-id",
                   r.json["snapshot_id"], env=script_env(gh))
    assert r.code == 0, r
    folder = state_dir(tmp_path)
    cps = [p for p in folder.iterdir() if p.suffix == ".json" and "updates" not in p.name
           and "hint" not in p.name and "lock" not in p.name]
    text = cps[0].read_text()
    changed = re.sub(r'"(\d{4})-(\d\d-\d\dT[^"]*)"', r'"0001-\2"', text)
    assert changed != text, text
    cps[0].write_text(changed)
    for args in (("--include-edits",), ()):
        r = run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                       "--root", tmp_path, *args, env=script_env(gh))
        no_crash(r)
        assert r.code == 7 and r.json["error"]["code"] == "state", r


# --------------------------------------------------------------------------- 12. passwords

SECRET = "pa#ss?w/rd-tail"


@pytest.mark.parametrize("how", ["env", "flag"])
def test_an_api_url_password_is_shown_as_stars(tmp_path, how):
    url = f"https://bob:{SECRET}@ghe.example.com/api/v3"
    args = ["--repo", REPOSITORY, "--issue", ISSUE, "--last-n", 1, "--root", tmp_path]
    env = clean_env(HOME=str(tmp_path))
    if how == "env":
        env["GITHUB_API_URL"] = url
    else:
        args += ["--api-url", url]
    r = run_script("get_latest_comments.py", *args, env=env)
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    for part in ("pa#ss", "w/rd-tail", "rd-tail", "bob:"):
        assert part not in r.stdout + r.stderr, (part, r)
    assert "***" in r.json["error"]["message"], r


@pytest.mark.parametrize("remote", [
    f"https://bob:{SECRET}@ghe.example.com/octo/hello/extra/x.git",
    f"bob:{SECRET}@ghe.example.com:octo/hello/x/y",
    f"ssh://bob:{SECRET}@ghe.example.com/octo",
])
def test_the_shell_fallback_shows_an_origin_password_as_stars(tmp_path, remote):
    need_tools("git", "gh", "jq")
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "remote", "add", "origin", remote], check=True)
    r = run_script("get-pr-comments.sh", "--pr", PR, cwd=work,
                   env=clean_env(HOME=str(tmp_path), GH_CONFIG_DIR=str(tmp_path / "gh"),
                                 TMPDIR=str(tmp_path)), timeout=60)
    assert r.code == 2, r
    for part in ("pa#ss", "w/rd-tail", "rd-tail"):
        assert part not in r.stdout + r.stderr, (part, r)
    assert "***" in r.stdout + r.stderr, r


_ = Path
