"""The issue-comment monitor, driven as an agent drives it: subprocesses against the fake.

check_issue_updates.py and get_latest_comments.py on issues of up to 3,000 comments; request
counts come from the fake's log, never from timings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support import OWNER, REPOSITORY, SCRIPTS, run_script, script_env

ISSUE = 5


@pytest.fixture
def issue(fake):
    fake.add_repo(OWNER, "hello")
    fake.add_issue(OWNER, "hello", ISSUE)
    return fake


@pytest.fixture
def env(fake):
    return script_env(fake)


@pytest.fixture
def root(tmp_path):
    return tmp_path


def check(env, root, *args, fake=None):
    if fake is not None:
        fake.clear_log()
    return run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                      "--root", root, *args, env=env)


def latest(env, root, *args, fake=None):
    if fake is not None:
        fake.clear_log()
    return run_script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
                      "--root", root, *args, env=env)


def confirm(env, root, snapshot, *args):
    return latest(env, root, "--confirm-updates", "--snapshot-id", snapshot, *args)


def ids(comments):
    return [c["id"] for c in comments]


def state_dir(root):
    return root / ".tmp" / "runs" / "default" / "gh-issue-comment-monitor"


def checkpoint_file(root):
    return state_dir(root) / "octo-hello-5.json"


def read_checkpoint(root):
    return json.loads(checkpoint_file(root).read_text())


def look_and_confirm(env, root, fake=None, *args):
    """A first look (or a check) and the confirm of its snapshot; returns the check's doc."""
    r = check(env, root, *args, fake=fake)
    assert r.code == 0, r
    c = confirm(env, root, r.json["snapshot_id"])
    assert c.code == 0, c
    return r.json


# -- the request table (issue 3) on an issue of 3,000 comments ---------------------------------

def test_first_look_reads_the_newest_20_in_two_requests(issue, env, root):
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 3000)
    r = check(env, root, "--limit", 20, fake=issue)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_comments"]) == all_ids[-20:]
    assert doc["previous_checkpoint"] is None
    assert doc["older_not_returned"] == 2980
    assert doc["more_available"] is False and doc["truncated"] is False
    assert doc["recommended_checkpoint"]["last_comment_id"] == all_ids[-1]
    assert doc["latest_comment"]["id"] == all_ids[-1]
    assert any("older" in w for w in doc["warnings"])
    assert len(issue.requests) == doc["requests"] == 2
    assert os.path.isabs(doc["updates_file"])


def test_no_change_poll_is_one_conditional_request_answered_304(issue, env, root):
    issue.add_comments(OWNER, "hello", ISSUE, 3000)
    first = look_and_confirm(env, root)
    r = check(env, root, fake=issue)
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is False and doc["new_comments"] == []
    assert doc["recommended_checkpoint"]["last_comment_id"] == \
        first["recommended_checkpoint"]["last_comment_id"]
    assert doc["latest_comment"]["id"] == first["latest_comment"]["id"]
    assert len(issue.requests) == 1 and doc["requests"] == 1
    req = issue.requests[0]
    assert req.status == 304 and req.headers.get("if-none-match")
    # a 304 costs no rate-limit points
    assert req.response_headers.get("x-ratelimit-used") is not None


def test_no_change_poll_after_update_state_is_304(issue, env, root):
    issue.add_comments(OWNER, "hello", ISSUE, 3000)
    r = latest(env, root, "--update-state")
    assert r.code == 0 and r.json["state_updated"] is True, r
    r = check(env, root, fake=issue)
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert [q.status for q in issue.requests] == [304]


@pytest.mark.parametrize("k", [1, 5, 100])
def test_poll_after_k_new_comments_takes_two_requests(issue, env, root, k):
    issue.add_comments(OWNER, "hello", ISSUE, 3000)
    look_and_confirm(env, root)
    new = issue.add_comments(OWNER, "hello", ISSUE, k)
    r = check(env, root, "--limit", 100, fake=issue)
    assert r.code == 0, r
    assert ids(r.json["new_comments"]) == new
    assert r.json["more_available"] is False
    assert len(issue.requests) <= 2
    assert issue.requests[0].headers.get("if-none-match")
    # and the round after that is a 304 again
    look = confirm(env, root, r.json["snapshot_id"])
    assert look.code == 0, look
    r = check(env, root, fake=issue)
    assert r.json["has_updates"] is False and [q.status for q in issue.requests] == [304]


def test_comment_id_is_one_request(issue, env, root):
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 3000)
    r = latest(env, root, "--comment-id", all_ids[1234], fake=issue)
    assert r.code == 0, r
    assert ids(r.json["comments"]) == [all_ids[1234]]
    assert r.json["comments"][0]["body"] == "comment 1234"
    assert len(issue.requests) == 1


def test_last_n_100_takes_at_most_three_requests(issue, env, root):
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 3000)
    r = latest(env, root, "--last-n", 100, fake=issue)
    assert r.code == 0, r
    assert ids(r.json["comments"]) == all_ids[-100:]
    assert r.json["older_not_returned"] == 2900
    assert len(issue.requests) <= 3


@pytest.mark.parametrize("new", [5, 250])
def test_since_comment_id_recent_costs_three_plus_new_pages(issue, env, root, new):
    old = issue.add_comments(OWNER, "hello", ISSUE, 3000)
    fresh = issue.add_comments(OWNER, "hello", ISSUE, new)
    r = latest(env, root, "--since-comment-id", old[-1], fake=issue)
    assert r.code == 0, r
    assert ids(r.json["comments"]) == fresh
    assert r.json["more_available"] is False
    assert len(issue.requests) <= 3 + -(-new // 100)


def test_after_comment_id_recent_costs_three_plus_new_pages(issue, env, root):
    old = issue.add_comments(OWNER, "hello", ISSUE, 3000)
    fresh = issue.add_comments(OWNER, "hello", ISSUE, 7)
    r = check(env, root, "--after-comment-id", old[-1], fake=issue)
    assert r.code == 0, r
    assert ids(r.json["new_comments"]) == fresh
    assert r.json["previous_checkpoint"]["last_comment_id"] == old[-1]
    assert len(issue.requests) <= 4
    assert not checkpoint_file(root).exists()  # read-only


# -- batches: the oldest N after the checkpoint, nothing skipped --------------------------------

def test_batch_walk_over_250_new_comments(issue, env, root):
    issue.add_comments(OWNER, "hello", ISSUE, 3000)
    look_and_confirm(env, root)
    new = issue.add_comments(OWNER, "hello", ISSUE, 250)
    seen, rounds, total_requests = [], 0, 0
    while True:
        r = check(env, root, "--limit", 100, fake=issue)
        assert r.code == 0, r
        total_requests += len(issue.requests)
        doc = r.json
        seen += ids(doc["new_comments"])
        rounds += 1
        if doc["new_comments"]:
            assert doc["recommended_checkpoint"]["last_comment_id"] == seen[-1]
            assert confirm(env, root, doc["snapshot_id"]).code == 0
        assert doc["more_available"] is (len(seen) < 250)
        if not doc["more_available"]:
            break
    assert seen == new
    assert rounds == 3
    assert total_requests <= 8


def test_edited_comment_is_not_new(issue, env, root):
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 300)
    look_and_confirm(env, root)
    issue.edit_comment(all_ids[-1], "changed after it was processed")
    issue.edit_comment(all_ids[10], "an old one changed")
    r = check(env, root)
    assert r.code == 0 and r.json["new_comments"] == [] and r.json["has_updates"] is False, r


# -- soundness when others write ------------------------------------------------------------------

def test_deletion_before_checkpoint_neither_hides_nor_repeats(issue, env, root):
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 3000)
    look_and_confirm(env, root)
    for cid in all_ids[100:103] + all_ids[-30:-27]:
        issue.delete_comment(cid)
    r = check(env, root, fake=issue)
    assert r.code == 0 and r.json["new_comments"] == [], r
    confirm(env, root, r.json["snapshot_id"])
    new = issue.add_comments(OWNER, "hello", ISSUE, 3)
    r = check(env, root)
    assert ids(r.json["new_comments"]) == new


def test_deleted_checkpoint_comment_loses_nothing(issue, env, root):
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 500)
    look_and_confirm(env, root)
    issue.delete_comment(all_ids[-1])
    new = issue.add_comments(OWNER, "hello", ISSUE, 4)
    r = check(env, root)
    assert r.code == 0, r
    assert ids(r.json["new_comments"]) == new


@pytest.mark.parametrize("count", [100, 200, 3000])
def test_checkpoint_at_the_last_slot_of_a_full_page(issue, env, root, count):
    issue.add_comments(OWNER, "hello", ISSUE, count)
    look_and_confirm(env, root)
    r = check(env, root, fake=issue)
    assert [q.status for q in issue.requests] == [304]
    new = issue.add_comments(OWNER, "hello", ISSUE, 1)
    r = check(env, root, fake=issue)
    assert ids(r.json["new_comments"]) == new


def on_nth_list_request(fake, n, action):
    """Run `action` once, just before the n-th issue-comment list request is served."""
    seen = []

    def hook(entry):
        if entry.method == "GET" and entry.path.endswith("/comments"):
            seen.append(entry)
            if len(seen) == n:
                action()

    fake.on_request(hook)


def test_comments_arriving_between_requests_of_one_scan(issue, env, root):
    old = issue.add_comments(OWNER, "hello", ISSUE, 3000)
    look_and_confirm(env, root)
    first = issue.add_comments(OWNER, "hello", ISSUE, 150)
    arrived = []
    on_nth_list_request(issue, 2, lambda: arrived.extend(
        issue.add_comments(OWNER, "hello", ISSUE, 30)))
    r = check(env, root, "--limit", 500)
    issue.clear_hooks()
    assert r.code == 0, r
    assert arrived
    got = ids(r.json["new_comments"])
    assert got[: len(first)] == first  # nothing skipped, in order
    assert set(got) <= set(first + arrived) and len(got) == len(set(got))
    assert old[-1] not in got


def test_deletion_between_requests_of_one_scan_skips_nothing(issue, env, root):
    old = issue.add_comments(OWNER, "hello", ISSUE, 3000)
    look_and_confirm(env, root)
    new = issue.add_comments(OWNER, "hello", ISSUE, 250)
    deleted = []
    # just before the second list request, delete a comment far before the checkpoint:
    # every later comment moves one place left
    on_nth_list_request(issue, 2, lambda: (issue.delete_comment(old[10]),
                                           deleted.append(old[10])))
    r = check(env, root, "--limit", 1000, "--max-pages", 20)
    issue.clear_hooks()
    assert r.code == 0, r
    assert deleted
    assert ids(r.json["new_comments"]) == new


def test_deletion_of_a_new_comment_during_the_scan(issue, env, root):
    issue.add_comments(OWNER, "hello", ISSUE, 1000)
    look_and_confirm(env, root)
    new = issue.add_comments(OWNER, "hello", ISSUE, 250)
    gone = []
    on_nth_list_request(issue, 2, lambda: (issue.delete_comment(new[3]), gone.append(new[3])))
    r = check(env, root, "--limit", 1000, "--max-pages", 20)
    issue.clear_hooks()
    assert gone
    got = ids(r.json["new_comments"])
    assert [i for i in got if i not in gone] == [i for i in new if i not in gone]


# -- the checkpoint contract: compare-and-swap, snapshots, forward only ---------------------------

def test_confirm_refuses_when_state_moved(issue, env, root):
    issue.add_comments(OWNER, "hello", ISSUE, 50)
    look_and_confirm(env, root)
    issue.add_comments(OWNER, "hello", ISSUE, 3)
    snap = check(env, root).json
    assert latest(env, root, "--update-state").code == 0  # the checkpoint moves meanwhile
    issue.add_comments(OWNER, "hello", ISSUE, 2)
    assert latest(env, root, "--update-state").code == 0
    before = checkpoint_file(root).read_bytes()
    r = confirm(env, root, snap["snapshot_id"])
    assert r.code == 7 and r.json["error"]["code"] == "state", r
    assert checkpoint_file(root).read_bytes() == before


def test_confirm_refuses_a_snapshot_a_later_check_replaced(issue, env, root):
    issue.add_comments(OWNER, "hello", ISSUE, 50)
    first = check(env, root).json
    issue.add_comments(OWNER, "hello", ISSUE, 5)
    second = check(env, root).json
    r = confirm(env, root, first["snapshot_id"])
    assert r.code == 7 and "snapshot" in r.json["error"]["message"], r
    assert not checkpoint_file(root).exists()
    r = confirm(env, root, second["snapshot_id"])
    assert r.code == 0 and r.json["state_updated"] is True


def test_confirm_is_idempotent(issue, env, root):
    issue.add_comments(OWNER, "hello", ISSUE, 30)
    doc = look_and_confirm(env, root)
    before = checkpoint_file(root).read_bytes()
    r = confirm(env, root, doc["snapshot_id"])
    assert r.code == 0 and r.json["already_applied"] is True and r.json["state_updated"] is False
    assert checkpoint_file(root).read_bytes() == before


def test_already_applied_comes_before_the_snapshot_test(issue, env, root):
    issue.add_comments(OWNER, "hello", ISSUE, 30)
    first = look_and_confirm(env, root)
    assert check(env, root).json["has_updates"] is False  # a later check replaces the file
    before = checkpoint_file(root).read_bytes()
    r = confirm(env, root, first["snapshot_id"])  # a retried confirm of the first snapshot
    assert r.code == 0 and r.json["already_applied"] is True, r
    assert checkpoint_file(root).read_bytes() == before


def test_confirm_through_a_returned_comment(issue, env, root):
    issue.add_comments(OWNER, "hello", ISSUE, 30)
    look_and_confirm(env, root)
    new = issue.add_comments(OWNER, "hello", ISSUE, 6)
    snap = check(env, root).json
    r = confirm(env, root, snap["snapshot_id"], "--through", new[2])
    assert r.code == 0 and r.json["next_checkpoint"]["last_comment_id"] == new[2], r
    assert "poll_hint" not in read_checkpoint(root)
    r = check(env, root)
    assert ids(r.json["new_comments"]) == new[3:]
    r = confirm(env, root, r.json["snapshot_id"], "--through", new[2])  # a retry: applied
    assert r.code == 0 and r.json["already_applied"] is True, r


def test_confirm_through_an_id_not_in_the_snapshot_is_a_usage_error(issue, env, root):
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 30)
    snap = check(env, root).json
    r = confirm(env, root, snap["snapshot_id"], "--through", all_ids[0])
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    assert not checkpoint_file(root).exists()


def test_confirm_without_updates_file_is_a_state_error(issue, env, root):
    r = latest(env, root, "--confirm-updates")
    assert r.code == 7 and r.json["error"]["code"] == "state", r


def test_confirm_makes_no_request(issue, env, root):
    issue.add_comments(OWNER, "hello", ISSUE, 30)
    snap = check(env, root).json
    issue.clear_log()
    # Under another API host the snapshot is another host's (section 18's api_host): refused,
    # still without a request, and nothing written.
    other = latest(env, root, "--confirm-updates", "--snapshot-id", snap["snapshot_id"],
                   "--api-url", "http://127.0.0.1:9")
    assert other.code == 7 and "not on 127.0.0.1:9 (" in other.json["error"]["message"], other
    assert not checkpoint_file(root).exists()
    r = latest(env, root, "--confirm-updates", "--snapshot-id", snap["snapshot_id"])
    assert r.code == 0, r
    assert issue.requests == [] and r.json["requests"] == 0


def test_nothing_new_in_tail_mode_confirm_is_a_noop(issue, env, root):
    snap = check(env, root).json  # an issue without comments
    assert snap["recommended_checkpoint"] is None and snap["new_comments"] == []
    r = confirm(env, root, snap["snapshot_id"])
    assert r.code == 0 and r.json["state_updated"] is False
    assert not checkpoint_file(root).exists()


def test_update_state_never_moves_backwards(issue, env, root):
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 40)
    assert latest(env, root, "--update-state").code == 0
    before = checkpoint_file(root).read_bytes()
    r = latest(env, root, "--since-comment-id", all_ids[5], "--limit", 3, "--update-state")
    assert r.code == 7 and r.json["error"]["code"] == "state", r
    assert checkpoint_file(root).read_bytes() == before
    r = latest(env, root, "--since-comment-id", all_ids[5], "--limit", 3, "--update-state",
               "--force")
    assert r.code == 0 and read_checkpoint(root)["last_comment_id"] == all_ids[8], r


@pytest.mark.parametrize("selector", [["--comment-id", "4300000001"], ["--last-n", "3"],
                                      ["--all"]])
def test_update_state_with_reading_selectors_is_refused(issue, env, root, selector):
    r = latest(env, root, *selector, "--update-state", fake=issue)
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    assert issue.requests == [] and not (root / ".tmp").exists()


def test_update_state_with_nothing_returned_writes_nothing(issue, env, root):
    r = latest(env, root, "--update-state")
    assert r.code == 0 and r.json["state_updated"] is False and r.json["comments"] == []
    assert not checkpoint_file(root).exists()


def test_stored_updated_at_cursor_is_dropped_on_next_write(issue, env, root):
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 20)
    state_dir(root).mkdir(parents=True)
    checkpoint_file(root).write_text(json.dumps({
        "schema_version": 1, "repository": REPOSITORY, "issue": ISSUE,
        "last_comment_id": all_ids[9], "last_comment_created_at": None,
        "last_seen_comment_updated_at": "2099-01-01T00:00:00Z", "saved_at": "x"}))
    issue.edit_comment(all_ids[3], "edited late")
    r = check(env, root)
    assert ids(r.json["new_comments"]) == all_ids[10:]  # ids decide, not the time cursor
    confirm(env, root, r.json["snapshot_id"])
    assert "last_seen_comment_updated_at" not in read_checkpoint(root)


# -- state files: corrupt, mismatched, paths ------------------------------------------------------

@pytest.mark.parametrize("content", [b"{not json", b"[]", b'{"schema_version": 1}',
                                     b'{"schema_version": 1, "repository": "octo/hello", '
                                     b'"issue": 5, "last_comment_id": "x"}'])
def test_corrupt_checkpoint_is_reported_and_left_alone(issue, env, root, content):
    issue.add_comments(OWNER, "hello", ISSUE, 5)
    state_dir(root).mkdir(parents=True)
    checkpoint_file(root).write_bytes(content)
    for r in (check(env, root), latest(env, root, "--update-state")):
        assert r.code == 7 and r.json["error"]["code"] == "state", r
    assert checkpoint_file(root).read_bytes() == content


def test_ambiguous_owner_repo_names_are_told_apart(fake, env, root):
    # a-b/c and a/b-c share the file name a-b-c-5.json
    for owner, name in (("a-b", "c"), ("a", "b-c")):
        fake.add_repo(owner, name)
        fake.add_issue(owner, name, ISSUE)
        fake.add_comments(owner, name, ISSUE, 3)
    r = run_script("get_latest_comments.py", "--repo", "a-b/c", "--issue", ISSUE, "--root", root,
                   "--update-state", env=env)
    assert r.code == 0, r
    path = state_dir(root) / "a-b-c-5.json"
    before = path.read_bytes()
    r = run_script("check_issue_updates.py", "--repo", "a/b-c", "--issue", ISSUE, "--root", root,
                   env=env)
    assert r.code == 7 and "a-b/c" in r.json["error"]["message"], r
    assert path.read_bytes() == before


@pytest.mark.parametrize("args", [
    ["--repo", "../etc/passwd"], ["--repo", "octo/.."], ["--repo", "-octo/hello"],
    ["--repo", "oc--to/hello"], ["--repo", "octo/hel/lo"], ["--run-id", ".."],
    ["--run-id", "a/b"], ["--retained", "x" * 65], ["--retained", "ok", "--run-id", "ok"],
    ["--issue", "0"], ["--issue", "-3"], ["--issue", "abc"], ["--limit", "0"],
    ["--after-comment-id", "-1"], ["--repo", "ｏｃｔｏ/hello"],
])
def test_bad_input_is_a_usage_error_and_writes_nothing(issue, env, root, args):
    base = {"--repo": REPOSITORY, "--issue": str(ISSUE)}
    for flag in ("--repo", "--issue"):
        if flag in args:
            base.pop(flag)
    argv = [x for kv in base.items() for x in kv] + args
    r = run_script("check_issue_updates.py", "--root", root, *argv, env=env)
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    assert list(root.iterdir()) == []


def test_root_must_be_a_real_folder(issue, env, tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    afile = tmp_path / "file"
    afile.write_text("x")
    for bad in (link, afile, tmp_path / "missing"):
        r = check(env, bad)
        assert r.code == 2, r
    assert list(target.iterdir()) == []


def test_layout_retained_run_id_gitignore_and_lowercase(fake, tmp_path):
    fake.add_repo("Octo", "Hello")
    fake.add_issue("Octo", "Hello", ISSUE)
    fake.add_comments("Octo", "Hello", ISSUE, 3)
    env = script_env(fake, GH_MONITOR_RUN_ID="run-42")
    r = run_script("check_issue_updates.py", "--repo", "Octo/Hello", "--issue", ISSUE,
                   "--root", tmp_path, env=env)
    assert r.code == 0, r
    run_dir = tmp_path / ".tmp" / "runs" / "run-42" / "gh-issue-comment-monitor"
    assert (run_dir / "octo-hello-5-updates.json").exists()
    assert (tmp_path / ".tmp" / ".gitignore").read_text() == "*\n"
    r = run_script("check_issue_updates.py", "--repo", "Octo/Hello", "--issue", ISSUE,
                   "--root", tmp_path, "--retained", "triage", env=env)
    assert r.code == 0, r
    kept = tmp_path / ".tmp" / "retained" / "triage" / "gh-issue-comment-monitor"
    assert r.json["updates_file"] == str(kept / "octo-hello-5-updates.json")
    r = run_script("get_latest_comments.py", "--repo", "Octo/Hello", "--issue", ISSUE,
                   "--root", tmp_path, "--retained", "triage", "--confirm-updates",
                   "--snapshot-id", r.json["snapshot_id"], env=env)
    assert r.code == 0 and r.json["checkpoint_file"] == str(kept / "octo-hello-5.json"), r
    assert not (run_dir / "octo-hello-5.json").exists()  # the pair is never split


def test_repository_from_git_remote(issue, env, tmp_path):
    work = tmp_path / "checkout"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "remote", "add", "origin",
                    "git@github.com:octo/hello.git"], check=True)
    issue.add_comments(OWNER, "hello", ISSUE, 2)
    r = run_script("check_issue_updates.py", "--issue", ISSUE, env=env, cwd=work)
    assert r.code == 0 and r.json["repository"] == REPOSITORY, r
    assert (work / ".tmp" / "runs" / "default").is_dir()
    r = run_script("check_issue_updates.py", "--issue", ISSUE, env=env, cwd=tmp_path)
    assert r.code == 2 and "--repo" in r.json["error"]["message"], r


def test_max_body_chars_cuts_bodies(issue, env, root):
    issue.add_comment(OWNER, "hello", ISSUE, "é" * 50 + "tail")
    r = check(env, root, "--max-body-chars", 10)
    c = r.json["new_comments"][0]
    assert c["body"] == "é" * 10 and c["body_truncated"] is True and c["body_chars"] == 54


def test_summary_format_is_text(issue, env, root):
    issue.add_comment(OWNER, "hello", ISSUE, "hi \x1b[2J there")
    r = check(env, root, "--format", "summary")
    assert r.code == 0 and "<U+001B>" in r.stdout and "\x1b" not in r.stdout, r


def test_missing_issue_is_not_found(issue, env, root):
    r = run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", 999,
                   "--root", root, env=env)
    assert r.code == 4 and r.json["error"]["code"] == "not_found", r


def test_comment_id_on_another_issue_names_it(issue, env, root):
    issue.add_issue(OWNER, "hello", 6)
    other = issue.add_comment(OWNER, "hello", 6, "elsewhere")
    r = latest(env, root, "--comment-id", other["id"])
    assert r.code == 4 and "#6" in r.json["error"]["message"], r


def test_without_selectors_the_checkpoint_contract_holds(issue, env, root):
    """Backward compatibility (seed 003): no selector means checkpoint mode, unchanged."""
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 45)
    r = latest(env, root)
    assert r.code == 0, r
    doc = r.json
    assert doc["selector"]["type"] == "tail" and ids(doc["comments"]) == all_ids[-20:]
    assert doc["state_updated"] is False and not checkpoint_file(root).exists()
    assert latest(env, root, "--update-state").code == 0
    new = issue.add_comments(OWNER, "hello", ISSUE, 25)
    doc = latest(env, root).json
    assert doc["selector"]["type"] == "checkpoint"
    assert ids(doc["comments"]) == new[:20] and doc["more_available"] is True
    assert doc["previous_checkpoint"]["last_comment_id"] == all_ids[-1]
    assert doc["next_checkpoint"]["last_comment_id"] == new[19]


def test_all_returns_the_whole_conversation(issue, env, root):
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 450)
    r = latest(env, root, "--all", fake=issue)
    assert r.code == 0 and ids(r.json["comments"]) == all_ids and r.json["truncated"] is False
    r = latest(env, root, "--all", "--max-pages", 2)
    assert r.json["truncated"] is True and r.json["more_available"] is True
    got = ids(r.json["comments"])
    assert got == all_ids[: len(got)]


def test_trusted_only_keeps_members(issue, env, root):
    issue.add_comment(OWNER, "hello", ISSUE, "from a stranger", user="mallory",
                      association="NONE")
    member = issue.add_comment(OWNER, "hello", ISSUE, "from a member", user="bob",
                               association="MEMBER")
    r = check(env, root, "--trusted-only")
    assert ids(r.json["new_comments"]) == [member["id"]]
    assert r.json["recommended_checkpoint"]["last_comment_id"] == member["id"]


def test_a_304_poll_never_imports_requests(issue, env, root):
    """The fast path (issue 8): `import requests` is most of a no-change poll's time."""
    issue.add_comments(OWNER, "hello", ISSUE, 300)
    look_and_confirm(env, root)
    proc = subprocess.run([sys.executable, "-X", "importtime", str(SCRIPTS /
                           "check_issue_updates.py"), "--repo", REPOSITORY, "--issue",
                           str(ISSUE), "--root", str(root)], env=env, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0 and json.loads(proc.stdout)["has_updates"] is False
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:")}
    assert "http.client" in imported
    assert not {m for m in imported if m == "requests" or m.startswith("urllib3")}
    new = issue.add_comments(OWNER, "hello", ISSUE, 2)  # with news, requests does the rest
    r = check(env, root)
    assert ids(r.json["new_comments"]) == new
