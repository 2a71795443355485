"""Answering review feedback (CONTRACT section 15): replies in threads, reviews, resolution and
inline-comment edits, run as an agent runs them, against the fake GitHub.

Each write is one request in the fake's log, never retried; its hand-off reads back exactly
what was written; --dry-run sends nothing; refusals come before anything is sent where the
contract says so, and GitHub's own refusals keep GitHub's reasons.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from tests.support import OWNER, REPO, REPOSITORY, Run, clean_env, run_script, script_env

PR = 7
OTHER_PR = 8
AUTHOR = "alice"  # the pull request's author
ME = "octocat"  # the token's user in script_env


@pytest.fixture
def pull(fake):
    """PR 7 by alice, with a thread (bob's root, alice's reply) and a lone thread; PR 8 with a
    thread of its own."""
    fake.add_repo(OWNER, "hello")
    fake.add_pull(OWNER, "hello", PR, user=AUTHOR)
    fake.add_pull(OWNER, "hello", OTHER_PR, user=AUTHOR)
    first = fake.add_review_thread(OWNER, "hello", PR, "src/app.py", line=12, comments=[
        {"user": "bob", "body": "Please handle None here."},
        {"user": AUTHOR, "body": "Which None?", "association": "OWNER"}])
    second = fake.add_review_thread(OWNER, "hello", PR, "src/db.py", line=40, comments=[
        {"user": "bob", "body": "Close the cursor."}])
    other = fake.add_review_thread(OWNER, "hello", OTHER_PR, "README.md", line=1)
    fake.threads = {"first": first, "second": second, "other": other}
    return fake


def write(env, *args, body: bytes = b"Fixed in 3f2c1aa.") -> Run:
    """The writer with its body on stdin (`--body-file -` added for the actions that need a
    body, unless the arguments name one)."""
    args = tuple(str(a) for a in args)
    action = args[args.index("--action") + 1] if "--action" in args else None
    if action in ("reply", "update", "create") and "--body-file" not in args:
        args += ("--body-file", "-")
    return run_script("manage_issue_comment.py", "--repo", REPOSITORY, *args, env=env,
                      stdin=body)


def run_command(command: str, env) -> Run:
    """A command the writer handed back (`handoff.fetch`), run as given from the bundle root."""
    argv = shlex.split(command)
    assert argv[0] == "python3"
    proc = subprocess.run([sys.executable] + argv[1:], cwd=REPO, env=env, capture_output=True,
                          check=False)
    return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def writes(fake):
    return [q for q in fake.requests if q.method in ("POST", "PATCH", "PUT", "DELETE")]


def no_token_env(fake, tmp_path):
    return clean_env(GITHUB_API_URL=fake.url, HOME=str(tmp_path), PATH="/usr/bin:/bin",
                     GH_CONFIG_DIR=str(tmp_path))


def comments_file(tmp_path, entries) -> str:
    path = tmp_path / "inline.json"
    path.write_text(entries if isinstance(entries, str) else json.dumps(entries))
    return str(path)


def wait_of(fake, **kind) -> str:
    if "pr" in kind:
        return (f"python3 scripts/check_issue_updates.py --repo {REPOSITORY} --pr {kind['pr']} "
                f"--ignore-author @me --wait 540 --api-url {fake.url}")
    return (f"python3 scripts/check_issue_updates.py --repo {REPOSITORY} --issue "
            f"{kind['issue']} --after-comment-id {kind['after']} --ignore-author @me "
            f"--humans-only --wait 540 --api-url {fake.url}")


# --------------------------------------------------------------------------- reply


def test_reply_goes_to_the_thread_and_hands_back_its_id_and_the_wait(pull):
    env = script_env(pull)
    root = pull.threads["second"]["comment_ids"][0]
    r = write(env, "--action", "reply", "--pr", PR, "--review-comment-id", root)
    assert r.code == 0, r
    doc = r.json
    cid = doc["commentId"]
    assert isinstance(cid, str) and doc["inReplyToId"] == str(root)
    stored = pull.store.review_comments[int(cid)]
    assert stored.body == "Fixed in 3f2c1aa." and stored.in_reply_to.id == root
    assert doc["message"] == f"Successfully replied in the thread of review comment {root} on #7"
    assert doc["url"] == f"https://github.com/{REPOSITORY}/pull/7#discussion_r{cid}"
    assert doc["author"] == ME and doc["pullRequest"] == PR
    assert (doc["path"], doc["line"], doc["threadId"]) == ("src/db.py", 40, None)
    assert doc["createdAt"] and doc["updatedAt"] == doc["createdAt"]
    assert doc["handoff"] == {
        "repository": REPOSITORY, "number": PR, "commentId": cid,
        "fetch": f"python3 scripts/get_latest_comments.py --repo {REPOSITORY} --pr 7 "
                 f"--review-comment-id {cid} --api-url {pull.url}"}
    assert doc["wait"] == wait_of(pull, pr=PR)
    # the read that proves the comment is on PR 7, then one write
    assert [(q.method, q.path) for q in pull.requests] == [
        ("GET", f"/repos/{REPOSITORY}/pulls/comments/{root}"),
        ("POST", f"/repos/{REPOSITORY}/pulls/7/comments/{root}/replies")]
    assert pull.requests[1].json() == {"body": "Fixed in 3f2c1aa."}
    assert doc["requests"] == 2
    pull.clear_log()
    got = run_command(doc["handoff"]["fetch"], env)
    assert got.code == 0, got
    assert [c["id"] for c in got.json["review_comments"]] == [int(cid)]
    assert got.json["review_comments"][0]["body"] == "Fixed in 3f2c1aa."
    assert got.json["review_comments"][0]["thread_root_id"] == root
    assert len(pull.requests) == 1 and pull.requests[0].method == "GET"


def test_reply_given_a_replys_id_goes_to_the_threads_root(pull):
    root, reply_id = pull.threads["first"]["comment_ids"]
    r = write(script_env(pull), "--action", "reply", "--pr", PR, "--review-comment-id",
              reply_id)
    assert r.code == 0, r
    assert r.json["inReplyToId"] == str(root)
    assert [q.path for q in writes(pull)] == [
        f"/repos/{REPOSITORY}/pulls/7/comments/{root}/replies"]
    assert f"{reply_id} is a reply" in r.json["warnings"][0] and str(root) in r.json["warnings"][0]
    assert "warning:" not in r.stderr  # a JSON document holds its warnings (turn 6)


def test_the_fake_refuses_a_reply_to_a_reply_as_the_worst_case_of_githubs_note(pull):
    """Why the writer reads first: the replies endpoint takes only a thread's first comment."""
    import requests

    pull.add_token("t", login=ME)
    reply_id = pull.threads["first"]["comment_ids"][1]
    resp = requests.post(f"{pull.url}/repos/{REPOSITORY}/pulls/7/comments/{reply_id}/replies",
                         json={"body": "x"}, headers={"Authorization": "token t",
                                                      "User-Agent": "t"}, timeout=10)
    assert resp.status_code == 422
    assert "replies to replies are not supported" in resp.text


def test_reply_to_a_comment_of_another_pr_is_exit_4_naming_its_pr(pull):
    other = pull.threads["other"]["comment_ids"][0]
    r = write(script_env(pull), "--action", "reply", "--pr", PR, "--review-comment-id", other)
    assert r.code == 4 and r.json["error"]["code"] == "not_found", r
    assert "pull request #8" in r.json["error"]["message"] and "--pr 8" in r.stdout
    assert writes(pull) == []


def test_reply_to_an_unknown_comment_is_exit_4_and_sends_no_write(pull):
    r = write(script_env(pull), "--action", "reply", "--pr", PR, "--review-comment-id",
              "2699999999")
    assert r.code == 4, r
    assert writes(pull) == []


def test_update_of_an_inline_comment_is_one_patch_with_reply_fields(pull):
    env = script_env(pull)
    root = pull.threads["second"]["comment_ids"][0]
    posted = write(env, "--action", "reply", "--pr", PR, "--review-comment-id", root).json
    pull.advance(60)
    pull.clear_log()
    r = write(env, "--action", "update", "--review-comment-id", posted["commentId"],
              body=b"Fixed in 9b8e7d6 (amended).")
    assert r.code == 0, r
    doc = r.json
    assert doc["commentId"] == posted["commentId"] and doc["inReplyToId"] == str(root)
    assert doc["updatedAt"] != doc["createdAt"] and doc["pullRequest"] == PR
    assert doc["handoff"]["fetch"] == posted["handoff"]["fetch"] and "wait" not in doc
    assert [(q.method, q.path) for q in pull.requests] == [
        ("PATCH", f"/repos/{REPOSITORY}/pulls/comments/{posted['commentId']}")]
    assert pull.store.review_comments[int(doc["commentId"])].body == "Fixed in 9b8e7d6 (amended)."


def test_update_of_someone_elses_inline_comment_is_exit_3(pull):
    bobs = pull.threads["second"]["comment_ids"][0]
    r = write(script_env(pull), "--action", "update", "--review-comment-id", bobs)
    assert r.code == 3 and r.json["error"]["status"] == 403, r
    assert pull.store.review_comments[bobs].body == "Close the cursor."


# --------------------------------------------------------------------------- review


INLINE = [{"path": "src/app.py", "line": 12, "body": "Handle None."},
          {"path": "src/db.py", "line": 44, "start_line": 40, "side": "RIGHT",
           "start_side": "RIGHT", "body": "Close the cursor in a finally."}]


def test_review_with_inline_comments_is_one_post_and_hands_over_its_id(pull, tmp_path):
    env = script_env(pull)
    r = run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--action", "review",
                   "--pr", PR, "--event", "REQUEST_CHANGES", "--body-file", "-",
                   "--comments-file", comments_file(tmp_path, INLINE), env=env,
                   stdin=b"Two things before this can go in.")
    assert r.code == 0, r
    doc = r.json
    rid = doc["reviewId"]
    stored = pull.get_review(int(rid))
    assert doc["state"] == stored["state"] == "CHANGES_REQUESTED"
    assert doc["url"] == f"https://github.com/{REPOSITORY}/pull/7#pullrequestreview-{rid}"
    assert doc["submittedAt"] == stored["submitted_at"] and doc["author"] == ME
    ids = [c.id for c in pull.store.review_comments.values() if c.review.id == int(rid)]
    assert doc["commentIds"] == [str(i) for i in sorted(ids)] and len(ids) == 2
    assert doc["handoff"] == {
        "repository": REPOSITORY, "number": PR, "reviewId": rid,
        "fetch": f"python3 scripts/get_latest_comments.py --repo {REPOSITORY} --pr 7 "
                 f"--review-id {rid} --api-url {pull.url}"}
    assert doc["wait"] == wait_of(pull, pr=PR) and doc["warnings"] == []
    assert [(q.method, q.path) for q in pull.requests] == [
        ("POST", f"/repos/{REPOSITORY}/pulls/7/reviews"),
        ("GET", f"/repos/{REPOSITORY}/pulls/7/reviews/{rid}/comments")]
    assert pull.requests[0].json() == {"event": "REQUEST_CHANGES",
                                       "body": "Two things before this can go in.",
                                       "comments": INLINE}
    multi = pull.store.review_comments[ids[1]].thread
    assert (multi.start_line, multi.line) == (40, 44)
    pull.clear_log()
    got = run_command(doc["handoff"]["fetch"], env)
    assert got.code == 0, got
    assert [x["id"] for x in got.json["reviews"]] == [int(rid)]
    assert [c["id"] for c in got.json["review_comments"]] == sorted(ids)
    assert [c["body"] for c in got.json["review_comments"]] == [e["body"] for e in INLINE]
    assert len(pull.requests) <= 2


def test_comment_review_with_inline_comments_needs_no_body(pull, tmp_path):
    r = write(script_env(pull), "--action", "review", "--pr", PR, "--event", "COMMENT",
              "--comments-file", comments_file(tmp_path, INLINE[:1]))
    assert r.code == 0 and r.json["state"] == "COMMENTED", r
    assert "body" not in writes(pull)[0].json()


def test_approve_without_body_or_comments_reads_nothing_more(pull):
    r = write(script_env(pull), "--action", "review", "--pr", PR, "--event", "APPROVE")
    assert r.code == 0 and r.json["state"] == "APPROVED", r
    assert r.json["commentIds"] == [] and len(pull.requests) == 1
    assert pull.requests[0].json() == {"event": "APPROVE"}


def test_a_failed_read_of_the_comment_ids_is_exit_0_with_null_and_a_warning(pull, tmp_path):
    pull.inject("GET", r"/reviews/\d+/comments$", status=502, times=None)
    r = write(script_env(pull), "--action", "review", "--pr", PR, "--event", "COMMENT",
              "--comments-file", comments_file(tmp_path, INLINE))
    assert r.code == 0, r
    assert r.json["commentIds"] is None and r.json["reviewId"]
    assert "could not be read" in r.json["warnings"][0] and "--review-id" in r.json["warnings"][0]
    assert len(writes(pull)) == 1


@pytest.mark.parametrize("entries, why", [
    ("not json", "not JSON"),
    ({"path": "a.py", "line": 1, "body": "x"}, "JSON list"),
    ([{"path": "a.py", "subject_type": "file", "body": "whole file"}], "entry 0 (a.py) has subject_type"),
    ([INLINE[0], {"path": "b.py", "body": "no line"}], "entry 1 (b.py) has no line"),
    ([{"path": "a.py", "line": 0, "body": "x"}], "has line 0"),
    ([{"path": "a.py", "line": 3, "body": ""}], "has no body"),
    ([{"path": "a.py", "line": 3, "body": "x", "side": "middle"}], "side 'middle'"),
    ([{"path": "a.py", "line": 3, "start_line": 5, "body": "x"}], "start_line 5"),
    ([{"path": "a.py", "line": 3, "position": 2, "body": "x"}], "'position'"),
    ([{"line": 3, "body": "x"}], "has no path"),
    (["just text"], "entry 0 is not an object"),
])
def test_bad_comments_files_are_exit_2_before_anything_is_sent(pull, tmp_path, entries, why):
    r = write(script_env(pull), "--action", "review", "--pr", PR, "--event", "COMMENT",
              "--comments-file", comments_file(tmp_path, entries))
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    assert why in r.json["error"]["message"]
    assert pull.requests == []


@pytest.mark.parametrize("args, why", [
    (["--event", "REQUEST_CHANGES"], "REQUEST_CHANGES needs --body-file"),
    (["--event", "COMMENT"], "COMMENT needs --body-file or --comments-file"),
    (["--event", "LGTM"], "invalid choice"),
    (["--event", "approve"], "invalid choice"),
    ([], "needs --event"),
])
def test_missing_body_or_unknown_event_is_exit_2_nothing_sent(pull, args, why):
    r = run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--action", "review",
                   "--pr", PR, *args, env=script_env(pull))
    assert r.code == 2, r
    assert why in r.json["error"]["message"]
    assert pull.requests == []


def test_comment_with_an_empty_comments_list_and_no_body_is_exit_2(pull, tmp_path):
    r = write(script_env(pull), "--action", "review", "--pr", PR, "--event", "COMMENT",
              "--comments-file", comments_file(tmp_path, []))
    assert r.code == 2 and "COMMENT needs" in r.json["error"]["message"], r
    assert pull.requests == []


@pytest.mark.parametrize("event, reason", [
    ("APPROVE", "Can not approve your own pull request"),
    ("REQUEST_CHANGES", "Can not request changes on your own pull request"),
])
def test_a_verdict_on_ones_own_pr_is_exit_2_with_githubs_reason(pull, event, reason):
    env = script_env(pull, token="author-token", login=AUTHOR)
    before = pull.review_ids(OWNER, "hello", PR, include_pending=True)
    r = write(env, "--action", "review", "--pr", PR, "--event", event, "--body-file", "-")
    assert r.code == 2 and r.json["error"]["status"] == 422, r
    assert reason in r.json["error"]["message"]
    assert len(writes(pull)) == 1
    assert pull.review_ids(OWNER, "hello", PR, include_pending=True) == before
    # COMMENT is how the author answers on their own PR
    r = write(env, "--action", "review", "--pr", PR, "--event", "COMMENT", "--body-file", "-")
    assert r.code == 0 and r.json["state"] == "COMMENTED", r


def test_an_open_ui_draft_blocks_a_review_with_githubs_reason(pull):
    draft = pull.start_review(OWNER, "hello", PR, ME, comments=[
        {"path": "src/app.py", "line": 3, "body": "half-written"}])
    before = pull.review_ids(OWNER, "hello", PR, include_pending=True)
    r = write(script_env(pull), "--action", "review", "--pr", PR, "--event", "APPROVE")
    assert r.code == 2, r
    assert "one pending review per pull request" in r.json["error"]["message"]
    assert pull.review_ids(OWNER, "hello", PR, include_pending=True) == before
    assert pull.get_review(draft["id"])["state"] == "PENDING"


def test_an_open_ui_draft_blocks_a_reply_too_with_githubs_reason(pull):
    pull.start_review(OWNER, "hello", PR, ME)
    root = pull.threads["second"]["comment_ids"][0]
    r = write(script_env(pull), "--action", "reply", "--pr", PR, "--review-comment-id", root)
    assert r.code == 2 and r.json["error"]["status"] == 422, r
    assert ("PullRequestReview.user_id: user_id can only have one pending review per pull "
            "request") in r.json["error"]["message"]
    assert len(writes(pull)) == 1


def test_422_reasons_given_as_objects_reach_the_message(pull, tmp_path):
    pull.inject("POST", r"/reviews$", status=422, body={
        "message": "Validation Failed", "documentation_url": "https://docs.github.com/rest",
        "errors": [{"resource": "PullRequestReviewComment", "code": "custom", "field": "line",
                    "message": "line must be part of the diff"},
                   {"resource": "PullRequestReview", "code": "invalid", "field": "commit_id"}]})
    r = write(script_env(pull), "--action", "review", "--pr", PR, "--event", "COMMENT",
              "--comments-file", comments_file(tmp_path, INLINE[:1]))
    assert r.code == 2 and r.json["error"]["status"] == 422, r
    message = r.json["error"]["message"]
    assert "PullRequestReviewComment.line: line must be part of the diff" in message
    assert "PullRequestReview.commit_id invalid" in message
    assert len(writes(pull)) == 1


def test_an_unknown_pr_is_exit_4(pull):
    r = write(script_env(pull), "--action", "review", "--pr", 99, "--event", "APPROVE")
    assert r.code == 4, r


# --------------------------------------------------------------------------- resolve


def test_resolve_and_unresolve_are_one_mutation_each(pull):
    env = script_env(pull)
    thread = pull.threads["second"]["id"]
    r = write(env, "--action", "resolve", "--thread-id", thread)
    assert r.code == 0, r
    assert r.json == {"message": f"Resolved review thread {thread}", "threadId": thread,
                      "isResolved": True, "resolvedBy": ME, "requests": 1}
    assert [(q.method, q.path) for q in pull.requests] == [("POST", "/graphql")]
    sent = pull.requests[0].json()
    assert "resolveReviewThread" in sent["query"] and sent["variables"] == {"threadId": thread}
    assert pull.store.nodes[thread].is_resolved
    again = write(env, "--action", "resolve", "--thread-id", thread)  # idempotent
    assert again.code == 0 and again.json["isResolved"] is True, again
    pull.clear_log()
    r = write(env, "--action", "unresolve", "--thread-id", thread)
    assert r.code == 0, r
    assert r.json["isResolved"] is False and r.json["resolvedBy"] is None
    assert "unresolveReviewThread" in pull.requests[0].json()["query"]
    assert len(pull.requests) == 1 and not pull.store.nodes[thread].is_resolved


@pytest.mark.parametrize("thread_id", ["2600000002", "PRRC_kwDOAAAB", "prrt_kwDOAAAB",
                                       "PRRT_", "PRRT_a b"])
def test_a_thread_id_that_is_not_prrt_is_exit_2_nothing_sent(pull, thread_id):
    r = write(script_env(pull), "--action", "resolve", "--thread-id", thread_id)
    assert r.code == 2 and "PRRT_" in r.json["error"]["message"], r
    assert pull.requests == []


def test_an_unknown_thread_is_exit_4(pull):
    r = write(script_env(pull), "--action", "resolve", "--thread-id", "PRRT_kwDOdoesNotExist")
    assert r.code == 4 and r.json["error"]["code"] == "not_found", r
    assert "NOT_FOUND" in r.json["error"]["message"] and len(pull.requests) == 1


def test_a_thread_the_viewer_may_not_resolve_is_exit_3_with_githubs_message(pull):
    locked = pull.add_review_thread(OWNER, "hello", PR, "src/x.py", line=2,
                                    viewer_can_resolve=False)
    r = write(script_env(pull), "--action", "resolve", "--thread-id", locked["id"])
    assert r.code == 3 and r.json["error"]["code"] == "auth", r
    assert "does not have the correct permissions to execute `ResolveReviewThread`" in \
        r.json["error"]["message"]
    assert not pull.store.nodes[locked["id"]].is_resolved and len(pull.requests) == 1


def test_other_graphql_errors_are_exit_6(pull):
    pull.inject_graphql_error(type="INTERNAL", message="Something went wrong")
    r = write(script_env(pull), "--action", "resolve", "--thread-id",
              pull.threads["second"]["id"])
    assert r.code == 6, r
    assert "Something went wrong" in r.json["error"]["message"] and len(pull.requests) == 1


# --------------------------------------------------------------------------- every action


def _action(pull, tmp_path, name):
    """(arguments, write method, write path regex, the read the message must name)."""
    root = pull.threads["second"]["comment_ids"][0]
    check = f"get_pr_comments.py --repo {REPOSITORY} --pr 7 --author LOGIN --format json"
    return {
        "reply": (["--action", "reply", "--pr", PR, "--review-comment-id", root,
                   "--body-file", "-"], "POST", r"/replies$", check),
        "review": (["--action", "review", "--pr", PR, "--event", "COMMENT",
                    "--comments-file", comments_file(tmp_path, INLINE)], "POST",
                   r"/reviews$", check),
        "resolve": (["--action", "resolve", "--thread-id", pull.threads["second"]["id"]],
                    "POST", r"^/graphql$", "idempotent"),
        "unresolve": (["--action", "unresolve", "--thread-id", pull.threads["second"]["id"]],
                      "POST", r"^/graphql$", "idempotent"),
        "update": (["--action", "update", "--review-comment-id", root, "--body-file", "-"],
                   "PATCH", r"/pulls/comments/\d+$", "repeating the same update is safe"),
        "create": (["--action", "create", "--issue", PR, "--body-file", "-"], "POST",
                   r"/issues/7/comments$", "--last-n 1"),
    }[name]


ACTIONS = ["reply", "review", "resolve", "unresolve", "update", "create"]


@pytest.mark.parametrize("name", ACTIONS)
@pytest.mark.parametrize("fault", ["502", "cut"])
def test_an_unknown_outcome_is_exit_6_after_one_write_naming_the_read(pull, tmp_path, name,
                                                                       fault):
    args, method, path, check = _action(pull, tmp_path, name)
    env = script_env(pull, token="bob-token", login="bob") if name == "update" \
        else script_env(pull)
    if fault == "502":
        pull.inject(method, path, status=502, times=None)
    else:
        pull.inject(method, path, mode="close", times=None)
    r = write(env, *args)
    assert r.code == 6, r
    message = r.json["error"]["message"]
    assert "may have been applied" in message and check in message
    assert len(writes(pull)) == 1


@pytest.mark.parametrize("name", ACTIONS)
def test_dry_run_needs_no_token_and_sends_nothing(pull, tmp_path, name):
    args, method, path, _ = _action(pull, tmp_path, name)
    r = write(no_token_env(pull, tmp_path), *args, "--dry-run")
    assert r.code == 0, r
    doc = r.json
    assert doc["dry_run"] is True and doc["author"] is None
    assert doc["request"]["method"] == method
    assert doc["request"]["headers"]["Authorization"] == "(token, not shown)"
    assert pull.requests == []
    if name in ("resolve", "unresolve"):
        assert doc["request"]["url"] == f"{pull.url}/graphql"
        assert doc["request"]["json"]["variables"] == {"threadId": pull.threads["second"]["id"]}
        assert f"{name}ReviewThread(input" in doc["request"]["json"]["query"]
    if name == "reply":
        assert "read_first" in doc and doc["read_first"]["method"] == "GET"


@pytest.mark.parametrize("name", ACTIONS)
def test_no_token_is_exit_3_before_any_request(pull, tmp_path, name):
    args, *_ = _action(pull, tmp_path, name)
    r = write(no_token_env(pull, tmp_path), *args)
    assert r.code == 3 and r.json["error"]["code"] == "auth", r
    assert pull.requests == []


@pytest.mark.parametrize("args, why", [
    (["--action", "reply", "--pr", PR, "--body-file", "-"], "needs --review-comment-id"),
    (["--action", "reply", "--review-comment-id", "2600000001", "--body-file", "-"],
     "needs --pr"),
    (["--action", "resolve", "--thread-id", "PRRT_x", "--body-file", "-"],
     "does not take --body-file"),
    (["--action", "review", "--pr", PR, "--event", "APPROVE", "--issue", "7"],
     "does not take --issue"),
    (["--action", "update", "--comment-id", "4300000001", "--review-comment-id", "2600000001",
      "--body-file", "-"], "one of them"),
    (["--action", "create", "--issue", "7", "--thread-id", "PRRT_x", "--body-file", "-"],
     "does not take --thread-id"),
])
def test_flags_of_another_action_are_exit_2(pull, args, why):
    r = write(script_env(pull), *args)
    assert r.code == 2 and why in r.json["error"]["message"], r
    assert pull.requests == []


def test_bodies_go_through_the_one_body_reader(pull):
    root = pull.threads["second"]["comment_ids"][0]
    r = write(script_env(pull), "--action", "reply", "--pr", PR, "--review-comment-id", root,
              body=b"nul \x00 inside")
    assert r.code == 2 and "NUL" in r.json["error"]["message"], r
    assert pull.requests == []


def test_issue_comment_create_hands_back_the_wait(pull):
    r = write(script_env(pull), "--action", "create", "--issue", PR, "--body-file", "-")
    assert r.code == 0, r
    assert r.json["wait"] == wait_of(pull, issue=PR, after=r.json["commentId"])


def test_resolve_through_the_gh_transport(pull, gh_env):
    thread = pull.threads["second"]["id"]
    r = run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--transport", "gh",
                   "--action", "resolve", "--thread-id", thread, env=gh_env)
    assert r.code == 0 and r.json["isResolved"] is True, r
    assert [q.method for q in pull.requests] == ["POST"]


def test_reply_and_review_through_the_gh_transport(pull, gh_env, tmp_path):
    root = pull.threads["second"]["comment_ids"][0]
    r = run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--transport", "gh",
                   "--action", "reply", "--pr", PR, "--review-comment-id", root,
                   "--body-file", "-", env=gh_env, stdin=b"Fixed in 3f2c1aa.")
    assert r.code == 0 and r.json["inReplyToId"] == str(root), r
    assert [q.method for q in pull.requests] == ["GET", "POST"]
    r = run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--transport", "gh",
                   "--action", "review", "--pr", PR, "--event", "APPROVE", env=gh_env)
    assert r.code == 0 and r.json["state"] == "APPROVED", r
    r = run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--transport", "gh",
                   "--action", "review", "--pr", PR, "--event", "APPROVE", env=gh_env)
    assert r.code == 0, r  # a second verdict is a second review, as on GitHub
    pull.start_review(OWNER, "hello", PR, ME)
    r = run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--transport", "gh",
                   "--action", "review", "--pr", PR, "--event", "APPROVE", env=gh_env)
    assert r.code == 2 and "one pending review" in r.json["error"]["message"], r
