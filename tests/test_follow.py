"""Following several conversations, the periphery (CONTRACT section 18): the host a checkpoint
belongs to (`api_host`), the followed list (`get_latest_comments.py --followed`, no request),
and `--unfollow`. Scripts run as subprocesses against the fake GitHub, as an agent runs them;
request counts come from the fake's log."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from tests.support import (
    NAME,
    OWNER,
    REPOSITORY,
    SCRIPT_PYTHON,
    SCRIPTS,
    Agent,
    latest,
    run_script,
    script_env,
    state_dir,
)

ISSUE, PR, OTHER_ISSUE = 5, 7, 9


@pytest.fixture
def gh(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    fake.add_issue(OWNER, NAME, OTHER_ISSUE)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser")
    fake.add_comments(OWNER, NAME, ISSUE, 3)
    fake.add_comments(OWNER, NAME, OTHER_ISSUE, 2)
    fake.add_comments(OWNER, NAME, PR, 2)
    return fake


@pytest.fixture
def web_urls(fake):
    """The fake's html_url fields on its own origin, so that its web host is the API's (as
    section 18 derives it for an API at http://127.0.0.1:PORT)."""
    before = fake.html_base
    fake.html_base = fake.url
    yield fake
    fake.html_base = before


def host(fake) -> str:
    return fake.url.split("://", 1)[1]


def files(root):
    folder = state_dir(root)
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def snapshot(root):
    """Every state file's bytes, to prove that nothing changed (lock files are empty, and
    taking a lock may create one)."""
    folder = state_dir(root)
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())
            if not p.name.endswith(".lock")} if folder.exists() else {}


# --------------------------------------------------------------------------- api_host

def test_every_file_a_round_writes_stores_the_api_host(gh, tmp_path):
    for flag, number in (("--issue", ISSUE), ("--pr", PR)):
        a = Agent(gh, tmp_path, flag, number)
        a.look_and_confirm()
        for kind in ("", "updates", "hints"):
            doc = json.loads(a.file(kind).read_text())
            assert doc["api_host"] == host(gh), (kind, doc)
            keys = list(doc)
            assert keys.index("api_host") == keys.index("repository") + 2  # after the identity


def test_another_hosts_checkpoint_at_the_same_path_is_exit_7_and_left_as_it_is(gh, tmp_path):
    """The same fake reached as localhost:PORT is another API host (section 2's HOST)."""
    other_url = gh.url.replace("127.0.0.1", "localhost")
    other = Agent(gh, tmp_path, "--issue", ISSUE, env=script_env(gh, GITHUB_API_URL=other_url))
    other.look_and_confirm()
    assert json.loads(other.file().read_text())["api_host"] == f"localhost:{gh.port}"
    before = snapshot(tmp_path)
    a = Agent(gh, tmp_path, "--issue", ISSUE)
    for run in (a.check(), a.latest("--update-state"), a.latest("--last-n", "1"),
                a.confirm("any"), latest(gh, tmp_path, "--unfollow", f"{REPOSITORY}#{ISSUE}")):
        assert run.code == 7, run
        assert f"localhost:{gh.port}" in run.json["error"]["message"], run
    assert snapshot(tmp_path) == before
    # the other host's own commands still work on it
    assert other.check().code == 0


def test_a_checkpoint_without_api_host_is_this_hosts_and_gains_it_on_the_next_write(gh, tmp_path):
    a = Agent(gh, tmp_path, "--issue", ISSUE)
    first = a.look_and_confirm()
    cp = json.loads(a.file().read_text())
    del cp["api_host"]
    a.file().write_text(json.dumps(cp))
    listed = latest(gh, tmp_path, "--followed")
    assert listed.code == 0 and [r["key"] for r in listed.json["rounds"]] == [
        f"{OWNER}/{NAME}/issues/{ISSUE}"]
    assert any("no api_host" in w for w in listed.json["warnings"]), listed
    gh.add_comment(OWNER, NAME, ISSUE, "one more")
    r = a.check()
    assert r.code == 0 and len(r.json["new_comments"]) == 1, r
    assert r.json["previous_checkpoint"]["last_comment_id"] == \
        first["recommended_checkpoint"]["last_comment_id"]
    assert a.confirm(r.json["snapshot_id"]).code == 0
    assert json.loads(a.file().read_text())["api_host"] == host(gh)
    assert not any("no api_host" in w for w in latest(gh, tmp_path, "--followed").json["warnings"])


def test_a_hints_file_of_another_host_is_ignored_and_replaced(gh, tmp_path):
    a = Agent(gh, tmp_path, "--issue", ISSUE)
    a.look_and_confirm()
    hints = json.loads(a.file("hints").read_text())
    hints["api_host"] = "ghe.example.com"
    a.file("hints").write_text(json.dumps(hints))
    r = a.check()
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert any("hints file" in w for w in r.json["warnings"]), r
    assert 200 in a.statuses()  # the probe of another host's ETag is not trusted
    assert a.confirm(r.json["snapshot_id"]).code == 0
    assert json.loads(a.file("hints").read_text())["api_host"] == host(gh)
    a.check()
    assert set(a.statuses()) == {304}


# --------------------------------------------------------------------------- --followed

def test_followed_lists_this_hosts_rounds_in_order_without_a_request(gh, tmp_path):
    for flag, number in (("--pr", PR), ("--issue", OTHER_ISSUE), ("--issue", ISSUE)):
        Agent(gh, tmp_path, flag, number).look_and_confirm()
    Agent(gh, tmp_path, "--issue", 11).file("updates").write_text("{}")  # no checkpoint
    folder = state_dir(tmp_path)
    (folder / "octo-broken-3.json").write_text("{not json")        # splits one way: octo/broken
    (folder / "a-b-c-4-pr.json").write_text("[]")                  # a/b-c or a-b/c: by file name
    (folder / "octo-other-6.json").write_text(json.dumps({         # stores another round
        "schema_version": 1, "repository": "octo/else", "issue": 6, "last_comment_id": 1,
        "last_comment_created_at": None}))
    (folder / "octo-far-2.json").write_text(json.dumps({           # another host's
        "schema_version": 1, "repository": "octo/far", "issue": 2, "api_host": "github.com",
        "last_comment_id": 1, "last_comment_created_at": None, "saved_at": "x"}))
    (folder / "notes.json").write_text("{}")                       # not a round
    r = latest(gh, tmp_path, "--followed")
    assert r.code == 0, r
    assert gh.requests == []
    doc = r.json
    assert [x["key"] for x in doc["rounds"]] == [f"{OWNER}/{NAME}/issues/{ISSUE}",
                                                 f"{OWNER}/{NAME}/issues/{OTHER_ISSUE}",
                                                 f"{OWNER}/{NAME}/pull/{PR}"]
    first = doc["rounds"][0]
    stored = json.loads(Agent(gh, tmp_path, "--issue", ISSUE).file().read_text())
    assert first["checkpoint"] == {"last_comment_id": stored["last_comment_id"],
                                   "last_comment_created_at": stored["last_comment_created_at"]}
    assert first["saved_at"] == stored["saved_at"]
    assert set(doc["rounds"][2]["checkpoint"]) == {"conversation", "reviews"}
    assert {e["key"]: e["error"]["code"] for e in doc["errors"]} == {
        "octo/broken/issues/3": "state", "a-b-c-4-pr.json": "state",
        "octo/other/issues/6": "state"}
    assert doc["skipped"] == [{"key": "octo/far/issues/2", "api_host": "github.com",
                               "checkpoint_file": str(folder / "octo-far-2.json")}]
    assert doc["followed"] == 6 and doc["requests"] == 0
    assert doc["api_host"] == host(gh) and doc["folder"] == str(folder)


def test_followed_reads_the_work_folder_it_is_given(gh, tmp_path):
    Agent(gh, tmp_path, "--issue", ISSUE).look_and_confirm()
    a = Agent(gh, tmp_path, "--issue", OTHER_ISSUE)
    r = a.check("--retained", "triage")
    assert a.latest("--confirm-updates", "--snapshot-id", r.json["snapshot_id"],
                    "--retained", "triage").code == 0
    keys = [x["key"] for x in latest(gh, tmp_path, "--followed", "--retained",
                                     "triage").json["rounds"]]
    assert keys == [f"{OWNER}/{NAME}/issues/{OTHER_ISSUE}"]
    assert latest(gh, tmp_path, "--followed", "--run-id", "nothing-here").json["followed"] == 0


@pytest.mark.parametrize("extra", [["--repo", REPOSITORY], ["--issue", "5"], ["--pr", "7"],
                                   ["--last-n", "2"], ["--update-state"], ["--all"]])
def test_followed_alone_takes_no_round_flags(gh, tmp_path, extra):
    r = latest(gh, tmp_path, "--followed", *extra)
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    assert gh.requests == []


def test_followed_as_a_summary_escapes_what_it_shows(gh, tmp_path):
    Agent(gh, tmp_path, "--issue", ISSUE).look_and_confirm()
    (state_dir(tmp_path) / "octo-x-3.json").write_text(json.dumps({
        "schema_version": 1, "repository": "octo/x", "issue": 3, "api_host": "h\x1b[2Jx",
        "last_comment_id": 1, "last_comment_created_at": None}))
    r = latest(gh, tmp_path, "--followed", "--format", "summary")
    assert r.code == 0, r
    assert f"{OWNER}/{NAME}/issues/{ISSUE}  checkpoint" in r.stdout
    assert "\x1b" not in r.stdout and "octo/x/issues/3  error:" in r.stdout


# --------------------------------------------------------------------------- --unfollow

def test_unfollow_by_the_writers_url_removes_that_rounds_files_only(gh, web_urls, tmp_path):
    body = tmp_path / "body.md"
    body.write_text("Filed: please answer here.")
    posted = run_script("manage_issue_comment.py", "--action", "create", "--repo", REPOSITORY,
                        "--issue", ISSUE, "--body-file", body, env=script_env(gh))
    assert posted.code == 0, posted
    url = posted.json["url"]
    assert url.startswith(gh.url) and "#issuecomment-" in url
    for flag, number in (("--issue", ISSUE), ("--pr", PR), ("--issue", OTHER_ISSUE)):
        Agent(gh, tmp_path, flag, number).look_and_confirm()
    a = Agent(gh, tmp_path, "--issue", ISSUE)
    stored = json.loads(a.file().read_text())
    r = latest(gh, tmp_path, "--unfollow", url)
    assert r.code == 0, r
    assert gh.requests == []
    assert r.json["unfollowed"] == f"{OWNER}/{NAME}/issues/{ISSUE}"
    assert r.json["removed"] == [str(a.file()), str(a.file("updates")), str(a.file("hints"))]
    assert r.json["checkpoint"]["last_comment_id"] == stored["last_comment_id"]
    left = files(tmp_path)
    assert not any(n.startswith(f"{OWNER}-{NAME}-{ISSUE}") for n in left), left
    assert f"{OWNER}-{NAME}-{OTHER_ISSUE}.json" in left and f"{OWNER}-{NAME}-{PR}-pr.json" in left
    keys = [x["key"] for x in latest(gh, tmp_path, "--followed").json["rounds"]]
    assert keys == [f"{OWNER}/{NAME}/issues/{OTHER_ISSUE}", f"{OWNER}/{NAME}/pull/{PR}"]
    again = latest(gh, tmp_path, "--unfollow", url)
    assert again.code == 0 and again.json["removed"] == [], again
    assert "nothing was removed" in again.json["warnings"][-1]


def test_unfollow_with_repo_and_pr_leaves_the_issue_round_of_the_same_number(gh, tmp_path):
    pr_agent, issue_agent = Agent(gh, tmp_path, "--pr", PR), Agent(gh, tmp_path, "--issue", PR)
    pr_agent.look_and_confirm()
    issue_agent.look_and_confirm()
    r = pr_agent.latest("--unfollow")
    assert r.code == 0 and r.json["unfollowed"] == f"{OWNER}/{NAME}/pull/{PR}", r
    assert r.json["pull_request"] == PR and len(r.json["removed"]) == 3
    assert not pr_agent.file().exists() and issue_agent.file().exists()
    assert set(r.json["checkpoint"]) == {"conversation", "reviews"}


@pytest.mark.parametrize("ref", ["octo/hello/issues/5", "Octo/Hello#5", "{api}/repos/octo/hello/issues/5",
                                 "{web}/octo/hello/issues/5?x=1"])
def test_unfollow_takes_every_ref_form(gh, web_urls, tmp_path, ref):
    a = Agent(gh, tmp_path, "--issue", ISSUE)
    a.look_and_confirm()
    r = latest(gh, tmp_path, "--unfollow", ref.format(api=gh.url, web=gh.url))
    assert r.code == 0 and len(r.json["removed"]) == 3, r
    assert not a.file().exists()


@pytest.mark.parametrize("ref, said", [
    ("octo/hello#5\n", "whitespace or control"),
    ("octo/hello#5\x1b[2J", "whitespace or control"),
    ("https://github.com/octo/hello/issues/5", "not on this command's host"),
    ("https://me:hunter2@github.com/octo/hello/issues/5", "userinfo"),
    ("octo/hello/pulls/5", "not a form"),
    ("octo/hello#-5", "invalid number"),
    ("../../etc#5", "not a form"),
    ("../etc#5", "invalid repository owner"),
])
def test_a_hostile_ref_is_exit_2_naming_it_and_nothing_changes(gh, tmp_path, ref, said):
    Agent(gh, tmp_path, "--issue", ISSUE).look_and_confirm()
    before = snapshot(tmp_path)
    gh.clear_log()
    for r in (latest(gh, tmp_path, "--unfollow", ref),
              run_script("check_issue_updates.py", "--follow", f"{REPOSITORY}#{OTHER_ISSUE}",
                         "--follow", ref, "--root", tmp_path, env=script_env(gh))):
        assert r.code == 2 and r.json["error"]["code"] == "usage", r
        assert said in r.json["error"]["message"]
        assert "hunter2" not in r.stdout + r.stderr and "\x1b" not in r.stdout + r.stderr
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert snapshot(tmp_path) == before and gh.requests == []


@pytest.mark.parametrize("extra", [["--repo", REPOSITORY], ["--issue", "5"], ["--followed"],
                                   ["--confirm-updates"], ["--comment-id", "3"]])
def test_unfollow_ref_takes_no_other_round_flags(gh, tmp_path, extra):
    r = latest(gh, tmp_path, "--unfollow", "octo/hello#5", *extra)
    assert r.code == 2 and r.json["error"]["code"] == "usage", r


def test_unfollow_without_a_ref_or_a_number_is_exit_2(gh, tmp_path):
    r = latest(gh, tmp_path, "--unfollow", "--repo", REPOSITORY)
    assert r.code == 2 and "--unfollow needs a REF" in r.json["error"]["message"], r


@pytest.mark.parametrize("which, content", [
    ("", b"{not json"),
    ("", json.dumps({"schema_version": 1, "repository": "octo/other", "issue": ISSUE,
                     "last_comment_id": 1, "last_comment_created_at": None}).encode()),
    ("updates", b"[1, 2]"),
])
def test_unfollow_refuses_a_corrupt_or_foreign_file_and_removes_nothing(gh, tmp_path, which,
                                                                        content):
    a = Agent(gh, tmp_path, "--issue", ISSUE)
    a.look_and_confirm()
    a.file(which).write_bytes(content)
    before = snapshot(tmp_path)
    r = latest(gh, tmp_path, "--unfollow", f"{REPOSITORY}#{ISSUE}")
    assert r.code == 7 and str(a.file(which)) in r.json["error"]["message"], r
    assert snapshot(tmp_path) == before


def test_unfollow_removes_an_unusable_hints_file_but_not_another_rounds(gh, tmp_path):
    a = Agent(gh, tmp_path, "--issue", ISSUE)
    a.look_and_confirm()
    a.file("hints").write_text("{corrupt")
    r = latest(gh, tmp_path, "--unfollow", f"{REPOSITORY}#{ISSUE}")
    assert r.code == 0 and str(a.file("hints")) in r.json["removed"], r
    a.look_and_confirm()
    a.file("hints").write_text(json.dumps({"schema_version": 1, "repository": "octo/x",
                                           "issue": ISSUE, "hints": {}}))
    r = latest(gh, tmp_path, "--unfollow", f"{REPOSITORY}#{ISSUE}")
    assert r.code == 0 and str(a.file("hints")) not in r.json["removed"], r
    assert a.file("hints").exists() and not a.file().exists()


def test_unfollow_waits_for_the_rounds_lock_then_is_exit_7(gh, tmp_path):
    a = Agent(gh, tmp_path, "--issue", ISSUE)
    a.look_and_confirm()
    lock = state_dir(tmp_path) / f".{OWNER}-{NAME}-{ISSUE}.lock"
    holder = subprocess.Popen(
        [SCRIPT_PYTHON, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'a'); "
         "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)", str(lock)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        r = latest(gh, tmp_path, "--unfollow", f"{REPOSITORY}#{ISSUE}")
        assert r.code == 7 and "locked" in r.json["error"]["message"], r
        assert time.monotonic() - started >= 4.5
        assert a.file().exists()
    finally:
        holder.kill()
        holder.wait()
    assert latest(gh, tmp_path, "--unfollow", f"{REPOSITORY}#{ISSUE}").code == 0
    assert not a.file().exists()


def test_unfollow_of_a_round_never_followed_creates_no_folder(gh, tmp_path):
    r = latest(gh, tmp_path, "--unfollow", f"{REPOSITORY}#{ISSUE}")
    assert r.code == 0 and r.json["removed"] == [], r
    assert not (tmp_path / ".tmp").exists()
    assert os.listdir(tmp_path) == []


# --------------------------------------------------------------------------- the inbox summary

def test_the_inbox_summary_shows_each_conversations_items_and_escapes_every_field(gh, tmp_path):
    """The render over an inbox document whose conversations are real rounds' documents."""
    import sys

    sys.path.insert(0, str(SCRIPTS))
    from ghcomments.text.render import inbox_summary

    gh.add_comment(OWNER, NAME, ISSUE, "line one\nline two \x1b[31mred\u202e", user="ev\u202eil")
    conversations = []
    for flag, number, key in (("--issue", ISSUE, f"{OWNER}/{NAME}/issues/{ISSUE}"),
                              ("--pr", PR, f"{OWNER}/{NAME}/pull/{PR}")):
        r = Agent(gh, tmp_path, flag, number).check()
        assert r.code == 0, r
        conversations.append(dict(r.json, key=key))
    doc = {"retrieved_at": "2026-12-02T03:00:00Z", "has_updates": True,
           "conversations": conversations, "quiet": ["octo/hello/issues/9"],
           "errors": [{"key": "octo/x\n/issues/1", "error": {"code": "not_found",
                                                             "message": "gone\x1b[2J"}}],
           "skipped": [{"key": "octo/far/issues/2", "api_host": "github.com"}],
           "unfollowed": ["octo/y/pull/3"], "more_in": ["octo/z/issues/4"], "followed": 7,
           "requests": 9, "snapshot_id": "S1", "warnings": ["w\x07arn"],
           "waited_seconds": 12.5, "polls": 2}
    text = inbox_summary(doc)
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    lines = text.splitlines()
    for conv in conversations:
        assert f"=== {conv['key']} ===" in lines
        for c in conv["new_comments"]:
            assert any(line.startswith(f"--- comment {c['id']} by ") for line in lines), c
    assert "    line one" in lines  # a body keeps its lines, each indented
    assert "octo/x<U+000A>/issues/1" in text and "gone<U+001B>[2J" in text
    assert "quiet: octo/hello/issues/9" in lines and "unfollowed: octo/y/pull/3" in lines
    assert "skipped octo/far/issues/2 (API host github.com)" in lines
    assert any(line.startswith("more in") and "octo/z/issues/4" in line for line in lines)
    assert "snapshot: S1" in lines and "waited 12.5 s, 2 poll(s)" in lines
    # the inbox's snapshot is the one to confirm; each round's own is named as such
    assert [line for line in lines if line.startswith("snapshot: ")] == ["snapshot: S1"]
    assert sum(line.startswith("round snapshot: ") for line in lines) == 2
    assert lines[0].startswith("inbox: 2 conversation(s) of 7 followed")


# --------------------------------------------------------------------------- unfollow and the inbox

def _inbox(root):
    import sys

    sys.path.insert(0, str(SCRIPTS))
    from ghcomments.store.inbox_file import InboxFile

    folder = state_dir(root)
    return InboxFile(str(root), str(folder))


def test_unfollow_marks_the_key_in_every_kept_inbox_snapshot_and_nothing_else(gh, tmp_path):
    import sys

    sys.path.insert(0, str(SCRIPTS))
    from ghcomments.store.inbox_file import round_entry

    a, b = Agent(gh, tmp_path, "--issue", ISSUE), Agent(gh, tmp_path, "--pr", PR)
    ra, rb = a.look_and_confirm(), b.look_and_confirm()
    key_a, key_b = f"{OWNER}/{NAME}/issues/{ISSUE}", f"{OWNER}/{NAME}/pull/{PR}"
    inbox = _inbox(tmp_path)
    with inbox.locked():
        for n in range(3):
            inbox.add({"snapshot_id": f"S{n}", "retrieved_at": "2026-12-02T03:00:00Z",
                       "rounds": [round_entry(key_a, ra["snapshot_id"], None,
                                              ra["recommended_checkpoint"]),
                                  round_entry(key_b, rb["snapshot_id"], None,
                                              rb["recommended_checkpoint"])]})
    r = latest(gh, tmp_path, "--unfollow", f"{OWNER}/{NAME}#{ISSUE}")
    assert r.code == 0 and r.json["inbox_snapshots_marked"] == 3, r
    snaps = inbox.read()
    assert [[e["unfollowed"] for e in s["rounds"]] for s in snaps] == [[True, False]] * 3
    again = latest(gh, tmp_path, "--unfollow", f"{OWNER}/{NAME}#{ISSUE}")
    assert again.code == 0 and again.json["inbox_snapshots_marked"] == 0  # already marked


def test_unfollow_refuses_when_the_inbox_file_is_corrupt_and_removes_nothing(gh, tmp_path):
    a = Agent(gh, tmp_path, "--issue", ISSUE)
    a.look_and_confirm()
    (state_dir(tmp_path) / "inbox-updates.json").write_text('{"snapshots": 3}')
    before = snapshot(tmp_path)
    r = latest(gh, tmp_path, "--unfollow", f"{OWNER}/{NAME}#{ISSUE}")
    assert r.code == 7 and "inbox file" in r.json["error"]["message"], r
    assert snapshot(tmp_path) == before


# --------------------------------------------------------------------------- with the inbox

def follow_and_confirm(fake, root, *refs):
    args = [a for ref in refs for a in ("--follow", ref)]
    r = run_script("check_issue_updates.py", *args, "--root", root, env=script_env(fake))
    assert r.code == 0, r
    c = latest(fake, root, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0 and len(c.json["confirmed"]) == len(refs), c
    return r.json


def test_the_inbox_summary_names_the_snapshot_to_confirm(gh, tmp_path):
    follow_and_confirm(gh, tmp_path, f"{REPOSITORY}#{ISSUE}", f"{REPOSITORY}/pull/{PR}")
    gh.add_comment(OWNER, NAME, ISSUE, "ready for review\x1b[2J", user="ev\u202eil")
    gh.add_comment(OWNER, NAME, PR, "and here")
    r = run_script("check_issue_updates.py", "--followed", "--root", tmp_path, "--format",
                   "summary", env=script_env(gh))
    assert r.code == 0, r
    lines = r.stdout.splitlines()
    assert "\x1b" not in r.stdout and "\u202e" not in r.stdout
    assert f"=== {OWNER}/{NAME}/issues/{ISSUE} ===" in lines
    assert f"=== {OWNER}/{NAME}/pull/{PR} ===" in lines
    assert any("ev<U+202E>il" in line for line in lines)
    snap = [line.split(": ", 1)[1] for line in lines if line.startswith("snapshot: ")]
    assert len(snap) == 1
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id", snap[0])
    assert c.code == 0 and len(c.json["confirmed"]) == 2, c


def test_an_unfollow_during_a_wait_is_never_recreated(gh, tmp_path):
    a_key = f"{OWNER}/{NAME}/issues/{ISSUE}"
    b_key = f"{OWNER}/{NAME}/issues/{OTHER_ISSUE}"
    follow_and_confirm(gh, tmp_path, a_key, b_key)
    a = Agent(gh, tmp_path, "--issue", ISSUE)
    gh.clear_log()
    env = script_env(gh, GH_MONITOR_TEST_TIME_SCALE="0.1")
    waiting = subprocess.Popen(
        [SCRIPT_PYTHON, str(SCRIPTS / "check_issue_updates.py"), "--followed", "--root",
         str(tmp_path), "--wait", "120", "--poll-interval", "5"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while len(gh.requests) < 2 and time.monotonic() < deadline:  # its first poll is done
            time.sleep(0.05)
        assert len(gh.requests) >= 2, gh.requests
        r = run_script("get_latest_comments.py", "--unfollow", a_key, "--root", tmp_path,
                       env=script_env(gh))
        assert r.code == 0 and len(r.json["removed"]) == 3, r
        gh.add_comment(OWNER, NAME, ISSUE, "a reply nobody follows any more")
        gh.add_comment(OWNER, NAME, OTHER_ISSUE, "the reply awaited", user="bob")
        out, err = waiting.communicate(timeout=120)
    finally:
        if waiting.poll() is None:
            waiting.kill()
            waiting.wait()
    assert waiting.returncode == 0, err
    doc = json.loads(out)
    assert doc["has_updates"] is True, doc
    assert [c["key"] for c in doc["conversations"]] == [b_key]
    assert doc["unfollowed"] == [a_key]
    for kind in ("", "updates", "hints"):
        assert not a.file(kind).exists(), kind  # nothing of the unfollowed round is written
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               doc["snapshot_id"])
    assert c.code == 0 and c.json["confirmed"] == [b_key], c
    assert not a.file().exists()
    keys = [x["key"] for x in latest(gh, tmp_path, "--followed").json["rounds"]]
    assert keys == [b_key]


def test_an_issue_ref_of_a_pull_request_is_warned_to_follow_the_pull_round(gh, tmp_path):
    """`O/R#N` is an issue round; when N is a pull request (its comments' URLs say /pull/N),
    a warning names O/R/pull/N, the round that also holds its reviews. No extra request."""
    gh.clear_log()
    r = run_script("check_issue_updates.py", "--follow", f"{REPOSITORY}#{PR}", "--follow",
                   f"{REPOSITORY}#{ISSUE}", "--root", tmp_path, env=script_env(gh))
    assert r.code == 0, r
    by_key = {c["key"]: c for c in r.json["conversations"]}
    warned = [w for w in by_key[f"{OWNER}/{NAME}/issues/{PR}"]["warnings"]
              if f"{OWNER}/{NAME}/pull/{PR}" in w]
    assert len(warned) == 1, by_key
    assert not any("pull" in w for w in by_key[f"{OWNER}/{NAME}/issues/{ISSUE}"]["warnings"])
    assert r.json["requests"] == len(gh.requests)
    keyed = run_script("check_issue_updates.py", "--follow", f"{OWNER}/{NAME}/issues/{PR}",
                       "--root", tmp_path, env=script_env(gh))  # named as an issue round
    assert keyed.code == 0, keyed
    for conv in keyed.json["conversations"]:
        assert not any(f"/pull/{PR}" in w for w in conv["warnings"]), conv


@pytest.mark.parametrize("pause, code", [("write:30", 143), ("renamed:3", 0)])
def test_a_signal_at_an_unfollows_commit_point(gh, tmp_path, pause, code):
    """Before the inbox file's rename (the first change): nothing removed or marked, exit 143.
    After it: the removal completes and the normal document is printed."""
    import signal

    key = f"{OWNER}/{NAME}/issues/{ISSUE}"
    follow_and_confirm(gh, tmp_path, key)
    a = Agent(gh, tmp_path, "--issue", ISSUE)
    before = snapshot(tmp_path)
    proc = subprocess.Popen(
        [SCRIPT_PYTHON, str(SCRIPTS / "get_latest_comments.py"), "--unfollow", key, "--root",
         str(tmp_path)], env=script_env(gh, GH_MONITOR_TEST_WRITE_PAUSE=pause),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    inbox = state_dir(tmp_path) / "inbox-updates.json"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if pause.startswith("write") and any(
                    p.name.startswith(".inbox-updates.json.tmp-")
                    for p in state_dir(tmp_path).iterdir()):
                break
            if pause.startswith("renamed") and inbox.read_bytes() != before[inbox.name]:
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, (out, err)
    doc = json.loads(out)
    if code == 143:
        assert doc["interrupted"] is True, doc
        assert snapshot(tmp_path) == before and a.file().exists()
    else:
        assert doc["unfollowed"] == key and len(doc["removed"]) == 3, doc
        assert not a.file().exists()
        assert json.loads(inbox.read_text())["snapshots"][0]["rounds"][0]["unfollowed"] is True
    assert not [p for p in state_dir(tmp_path).iterdir() if ".tmp-" in p.name]
