"""A pull request's review rounds (CONTRACT section 12): `--pr N` on the monitor's scripts.

check_issue_updates.py --pr and get_latest_comments.py --pr, driven as an agent drives them:
real subprocesses against the fake GitHub. A round returns the conversation comments, the
submitted reviews and their inline comments that arrived since the last confirmed round. Reviews
get their ids (and their comments' ids and created_at) when they are started and become visible
only when submitted, so the review cursor must never skip a review submitted late. Request counts
come from the fake's log, never from timings.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.support import OWNER, REPOSITORY, run_script, script_env

NAME = "hello"
PR = 7
OTHER_PR = 8
PLAIN_ISSUE = 9
TOKEN_OWNER = "octocat"  # the login script_env's token belongs to
ISSUE_NOT_PR = "an issue, not a pull request: use --issue"
# the lists an implementation may read a review's inline comments from
REVIEW_COMMENT_LISTS = r"/pulls/\d+/(?:comments|reviews/\d+/comments)$"
REVIEW_LIST = r"/pulls/\d+/reviews$"

ROUND_KEYS = {
    "repository", "pull_request", "retrieved_at", "has_updates", "new_comments",
    "new_comment_count", "new_reviews", "new_review_count", "new_review_comments",
    "new_review_comment_count", "more_available", "more_available_by_kind", "truncated",
    "latest_comment", "previous_checkpoint", "recommended_checkpoint", "pages_scanned",
    "requests", "snapshot_id", "updates_file", "state_updated", "warnings",
}
REVIEW_KEYS = {
    "id", "node_id", "state", "submitted_at", "commit_id", "url", "author", "author_type",
    "author_association", "body", "body_truncated", "body_chars", "hidden_characters",
    "comment_count",
}
REVIEW_COMMENT_KEYS = {
    "id", "node_id", "review_id", "in_reply_to_id", "thread_root_id", "path", "subject_type",
    "line", "start_line", "side", "original_line", "commit_id", "outdated", "author",
    "author_type", "author_association", "created_at", "updated_at", "edited", "url", "body",
    "body_truncated", "body_chars", "hidden_characters",
}


# -- fixtures and helpers ------------------------------------------------------------------------

@pytest.fixture
def pr(fake):
    """octo/hello with open PR #7, nothing on it yet; reviews listed by id (the default)."""
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser")
    fake.review_order = "id"
    return fake


@pytest.fixture
def env(fake):
    return script_env(fake)


@pytest.fixture
def root(tmp_path):
    return tmp_path


def run(name, env, root, *args, fake=None):
    if fake is not None:
        fake.clear_log()
    return run_script(name, "--repo", REPOSITORY, "--root", root, *args, env=env)


def check(env, root, *args, fake=None, number=PR):
    return run("check_issue_updates.py", env, root, "--pr", number, *args, fake=fake)


def latest(env, root, *args, fake=None, number=PR):
    return run("get_latest_comments.py", env, root, "--pr", number, *args, fake=fake)


def confirm(env, root, snapshot, *args):
    return latest(env, root, "--confirm-updates", "--snapshot-id", snapshot, *args)


def look_and_confirm(env, root, *args):
    """A check of the PR round and the confirm of its snapshot; returns the check's doc."""
    r = check(env, root, *args)
    assert r.code == 0, r
    c = confirm(env, root, r.json["snapshot_id"])
    assert c.code == 0, c
    return r.json


def ids(items):
    return [x["id"] for x in items]


def state_dir(root):
    return root / ".tmp" / "runs" / "default" / "gh-issue-comment-monitor"


def pr_checkpoint(root):
    return state_dir(root) / "octo-hello-7-pr.json"


def pr_updates(root):
    return state_dir(root) / "octo-hello-7-pr-updates.json"


def pr_hints(root):
    return state_dir(root) / "octo-hello-7-pr-hints.json"


def issue_checkpoint(root):
    return state_dir(root) / "octo-hello-7.json"


def state_files(root):
    """Every state file under ROOT/.tmp (locks and other hidden files aside) with its bytes."""
    base = root / ".tmp"
    if not base.exists():
        return {}
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


def threads(n, prefix="note"):
    """n new review threads, one comment each."""
    return [{"path": f"src/mod{i % 7}.py", "line": 10 + i, "body": f"{prefix} {i}"}
            for i in range(n)]


def review(fake, comments=0, user="bob", state="COMMENTED", body="Please see the notes.",
           number=PR):
    """A review started (ids given now) and submitted a minute later; (review id, comment ids)."""
    started = fake.start_review(OWNER, NAME, number, user, body=body, comments=threads(comments))
    fake.advance(60)
    fake.submit_review(started["id"], state=state)
    fake.advance(60)
    return started["id"], list(started["comment_ids"])


def reply(fake, comment_id, user="carol", body="I agree."):
    """A reply outside a pending review: its own bodiless COMMENTED review, submitted now."""
    made = fake.reply_to_review_comment(comment_id, user, body)
    fake.advance(60)
    return made


def conversation(fake, body="A remark in the conversation.", user="carol"):
    made = fake.add_comment(OWNER, NAME, PR, body, user=user)
    fake.advance(60)
    return made


def many_reviews(fake, n):
    """n submitted reviews; every third one a bodiless reply wrapper. Their ids, in order."""
    made = []
    first_comment = None
    for i in range(n):
        if i % 3 == 2 and first_comment is not None:
            made.append(reply(fake, first_comment)["review_id"])
        else:
            rid, cids = review(fake, comments=1 if i % 3 == 0 else 0,
                               state="COMMENTED" if i % 3 == 0 else "APPROVED")
            first_comment = first_comment or (cids[0] if cids else None)
            made.append(rid)
    return made


def assert_error(run_, code, exit_code):
    assert run_.code == exit_code, run_
    doc = run_.json
    assert set(doc) == {"error"} and set(doc["error"]) == {"code", "message", "status",
                                                         "retry_after_seconds"}, run_
    assert doc["error"]["code"] == code, run_
    assert f"error ({code})" in run_.stderr, run_
    return doc["error"]


def per_page(entry):
    return int(entry.query.get("per_page", 30))


def statuses(fake):
    return [q.status for q in fake.requests]


def rest(fake):
    """The REST requests in the fake's log: section 12's bounds count these; the round's
    GraphQL read of thread state (section 15) comes on top."""
    return [q for q in fake.requests if q.path != "/graphql"]


def graphql(fake):
    return [q for q in fake.requests if q.path == "/graphql"]


def resolution_note(doc):
    """Whether the round carries the thread-state note: since turn 6's amendment only where
    inline comments are returned without thread state (here `threads` is read)."""
    return any("get_pr_comments.py" in w for w in doc["warnings"])


# -- what a round holds ---------------------------------------------------------------------------

def test_first_round_returns_conversation_reviews_and_their_inline_comments(pr, env, root):
    remark = conversation(pr)
    rid, cids = review(pr, comments=2, body="Two notes.", state="CHANGES_REQUESTED")
    answer = reply(pr, cids[0], user="dave", body="I agree with this note")
    r = check(env, root)
    assert r.code == 0, r
    doc = r.json
    assert ROUND_KEYS <= set(doc) and "issue" not in doc
    assert doc["repository"] == REPOSITORY and doc["pull_request"] == PR
    assert doc["has_updates"] is True and doc["previous_checkpoint"] is None
    assert ids(doc["new_comments"]) == [remark["id"]] and doc["new_comment_count"] == 1
    # the reply's wrapper is a bodiless COMMENTED review: not listed, its comment is
    assert ids(doc["new_reviews"]) == [rid] and doc["new_review_count"] == 1
    assert ids(doc["new_review_comments"]) == cids + [answer["id"]]
    assert doc["new_review_comment_count"] == 3
    assert doc["more_available"] is False
    assert doc["more_available_by_kind"] == {"conversation": False, "reviews": False}
    assert doc["truncated"] is False

    rv = doc["new_reviews"][0]
    assert REVIEW_KEYS <= set(rv)
    assert rv["state"] == "CHANGES_REQUESTED" and rv["body"] == "Two notes."
    assert rv["author"] == "bob" and rv["comment_count"] == 2 and rv["submitted_at"]
    assert rv["url"].endswith(f"/{REPOSITORY}/pull/{PR}#pullrequestreview-{rid}")

    first, second, answered = doc["new_review_comments"]
    for c in doc["new_review_comments"]:
        assert REVIEW_COMMENT_KEYS <= set(c), c
    assert first["review_id"] == rid and second["review_id"] == rid
    assert first["in_reply_to_id"] is None and first["thread_root_id"] == first["id"]
    assert first["path"] == "src/mod0.py" and first["line"] == 10 and first["body"] == "note 0"
    assert first["subject_type"] == "line" and first["outdated"] is False
    assert first["url"].endswith(f"#discussion_r{first['id']}")
    assert answered["review_id"] == answer["review_id"] != rid
    assert answered["in_reply_to_id"] == cids[0] and answered["thread_root_id"] == cids[0]
    assert answered["author"] == "dave" and answered["body"] == "I agree with this note"

    rec = doc["recommended_checkpoint"]
    assert rec["conversation"]["last_comment_id"] == remark["id"]
    assert rec["reviews"]["last_review_id"] == answer["review_id"]
    assert doc["threads"] and not resolution_note(doc)
    assert doc["updates_file"] == str(pr_updates(root))
    stored = json.loads(pr_updates(root).read_text())
    assert stored["pull_request"] == PR and stored["repository"] == REPOSITORY
    assert stored["snapshot_id"] == doc["snapshot_id"]
    assert ids(stored["new_reviews"]) == [rid]
    assert not pr_checkpoint(root).exists()  # a check never writes the checkpoint


def test_confirmed_round_is_stored_in_the_pr_checkpoint_and_nothing_is_new_after(pr, env,
                                                                                  root):
    conversation(pr, body="secret conversation body")
    review(pr, comments=2, body="secret review body")
    doc = check(env, root).json
    c = confirm(env, root, doc["snapshot_id"])
    assert c.code == 0 and c.json["state_updated"] is True, c
    assert c.json["pull_request"] == PR and c.json["selector"]["type"] == "confirm_updates"
    assert c.json["checkpoint_file"] == str(pr_checkpoint(root))
    nxt, rec = c.json["next_checkpoint"], doc["recommended_checkpoint"]
    for key in ("last_comment_id", "last_comment_created_at"):
        assert nxt["conversation"][key] == rec["conversation"][key]
    assert "last_seen_comment_updated_at" not in nxt["conversation"]
    assert nxt["reviews"] == rec["reviews"]
    text = pr_checkpoint(root).read_text()
    stored = json.loads(text)
    assert stored["repository"] == REPOSITORY and stored["pull_request"] == PR
    assert "secret" not in text  # never bodies
    assert not issue_checkpoint(root).exists()
    r = check(env, root)
    assert r.code == 0, r
    after = r.json
    assert after["has_updates"] is False
    assert after["new_comments"] == after["new_reviews"] == after["new_review_comments"] == []
    assert after["previous_checkpoint"]["reviews"]["last_review_id"] == \
        doc["recommended_checkpoint"]["reviews"]["last_review_id"]
    assert after["previous_checkpoint"]["conversation"]["last_comment_id"] == \
        doc["recommended_checkpoint"]["conversation"]["last_comment_id"]


def test_empty_pull_request_round(pr, env, root):
    r = check(env, root)
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is False and doc["latest_comment"] is None
    assert doc["new_comments"] == doc["new_reviews"] == doc["new_review_comments"] == []
    assert doc["new_comment_count"] == doc["new_review_count"] == \
        doc["new_review_comment_count"] == 0
    c = confirm(env, root, doc["snapshot_id"])
    assert c.code == 0, c
    later = review(pr, comments=1)
    r = check(env, root)
    assert ids(r.json["new_reviews"]) == [later[0]], r
    assert ids(r.json["new_review_comments"]) == later[1]


@pytest.mark.parametrize("order", ["id", "submitted"])
def test_reviews_come_in_submission_order_each_followed_by_its_comments(pr, env, root, order):
    pr.review_order = order
    early = pr.start_review(OWNER, NAME, PR, "bob", body="Drafted first", comments=threads(3))
    pr.advance(60)
    quick, quick_cids = review(pr, comments=2, user="carol", body="Quick look")
    pr.advance(600)
    pr.submit_review(early["id"], state="APPROVED")
    pr.advance(60)
    assert early["id"] < quick and max(early["comment_ids"]) < min(quick_cids)
    r = check(env, root)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_reviews"]) == [quick, early["id"]]
    assert ids(doc["new_review_comments"]) == quick_cids + early["comment_ids"]
    assert [x["comment_count"] for x in doc["new_reviews"]] == [2, 3]
    assert doc["recommended_checkpoint"]["reviews"]["last_review_id"] == early["id"]


# -- cursors under pending reviews ----------------------------------------------------------------

@pytest.mark.parametrize("order", ["id", "submitted"])
def test_review_started_before_confirmed_ones_and_submitted_later_is_returned(pr, env, root,
                                                                              order):
    pr.review_order = order
    early = pr.start_review(OWNER, NAME, PR, "bob", body="Drafted first", comments=threads(3))
    pr.advance(60)
    later, later_cids = review(pr, comments=2, user="carol", body="Quick look")
    remark = conversation(pr)
    doc = look_and_confirm(env, root)
    assert ids(doc["new_reviews"]) == [later] and ids(doc["new_review_comments"]) == later_cids
    assert ids(doc["new_comments"]) == [remark["id"]]
    more, more_cids = review(pr, comments=1, user="carol", body="Another look")
    doc = look_and_confirm(env, root)
    assert ids(doc["new_reviews"]) == [more] and ids(doc["new_review_comments"]) == more_cids
    # days later the first reviewer submits: ids and created_at older than everything confirmed
    pr.advance(3 * 86400)
    pr.submit_review(early["id"], state="CHANGES_REQUESTED")
    pr.advance(60)
    assert early["id"] < later < more
    r = check(env, root)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_reviews"]) == [early["id"]]
    assert ids(doc["new_review_comments"]) == early["comment_ids"]
    assert doc["new_reviews"][0]["state"] == "CHANGES_REQUESTED"
    created = [c["created_at"] for c in doc["new_review_comments"]]
    assert all(c < doc["new_reviews"][0]["submitted_at"] for c in created)
    assert doc["new_comments"] == []
    assert confirm(env, root, doc["snapshot_id"]).code == 0
    r = check(env, root)
    assert r.code == 0 and r.json["has_updates"] is False, r


@pytest.mark.parametrize("order", ["id", "submitted"])
def test_pending_review_of_another_user_is_invisible_until_submitted(pr, env, root, order):
    pr.review_order = order
    base, _ = review(pr, comments=1)
    look_and_confirm(env, root)
    pending = pr.start_review(OWNER, NAME, PR, "carol", body="not yet", comments=threads(2))
    discarded = pr.start_review(OWNER, NAME, PR, "dave", body="never", comments=threads(1))
    pr.advance(60)
    r = check(env, root)
    assert r.code == 0, r
    assert r.json["has_updates"] is False and r.json["new_review_comments"] == [], r
    assert confirm(env, root, r.json["snapshot_id"]).code == 0
    pr.delete_pending_review(discarded["id"])
    after, after_cids = review(pr, comments=1, user="erin")
    pr.submit_review(pending["id"], state="COMMENTED")
    pr.advance(60)
    r = check(env, root)
    assert r.code == 0, r
    assert ids(r.json["new_reviews"]) == [after, pending["id"]]
    assert ids(r.json["new_review_comments"]) == after_cids + pending["comment_ids"]
    returned = set(ids(r.json["new_reviews"]) + ids(r.json["new_review_comments"]))
    assert not returned & {discarded["id"], *discarded["comment_ids"]}


@pytest.mark.parametrize("order", ["id", "submitted"])
def test_own_pending_review_is_never_returned_and_never_moves_a_cursor(pr, env, root, order):
    """GitHub lists the token owner's own pending review to it, state PENDING, no submitted_at."""
    pr.review_order = order
    review(pr, comments=1)
    first = look_and_confirm(env, root)
    mine = pr.start_review(OWNER, NAME, PR, TOKEN_OWNER, body="my draft", comments=threads(2))
    pr.advance(60)
    r = check(env, root)
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is False
    assert doc["new_reviews"] == [] and doc["new_review_comments"] == []
    assert doc["recommended_checkpoint"]["reviews"] == doc["previous_checkpoint"]["reviews"]
    assert doc["recommended_checkpoint"]["reviews"]["last_review_id"] == \
        first["recommended_checkpoint"]["reviews"]["last_review_id"]
    assert confirm(env, root, doc["snapshot_id"]).code == 0
    # with --include-system too: a pending review is not a system event, it is not there yet
    r = check(env, root, "--include-system")
    assert r.code == 0 and r.json["new_reviews"] == [], r
    assert confirm(env, root, r.json["snapshot_id"]).code == 0
    theirs, theirs_cids = review(pr, comments=1, user="carol")
    doc = look_and_confirm(env, root)
    assert ids(doc["new_reviews"]) == [theirs] and ids(doc["new_review_comments"]) == theirs_cids
    assert mine["id"] < theirs
    pr.submit_review(mine["id"], state="COMMENTED")
    pr.advance(60)
    r = check(env, root)
    assert r.code == 0, r
    assert ids(r.json["new_reviews"]) == [mine["id"]]
    assert ids(r.json["new_review_comments"]) == mine["comment_ids"]
    assert r.json["new_reviews"][0]["author"] == TOKEN_OWNER


def test_review_with_comments_added_while_pending_brings_them_all(pr, env, root):
    look_and_confirm(env, root)
    started = pr.start_review(OWNER, NAME, PR, "bob", body="Long review", comments=threads(1))
    confirmed_meanwhile, _ = review(pr, comments=1, user="carol")
    look_and_confirm(env, root)
    extra = pr.add_pending_comment(started["id"], "one more thing", path="src/x.py", line=3)
    pr.advance(60)
    pr.submit_review(started["id"], state="COMMENTED")
    pr.advance(60)
    r = check(env, root)
    assert r.code == 0, r
    assert ids(r.json["new_reviews"]) == [started["id"]]
    assert ids(r.json["new_review_comments"]) == started["comment_ids"] + [extra["id"]]
    assert r.json["new_reviews"][0]["comment_count"] == 2
    assert started["id"] < confirmed_meanwhile


def test_a_comment_posted_outside_a_review_is_its_own_bodiless_commented_review(pr, env, root):
    rid, cids = review(pr, comments=1)
    look_and_confirm(env, root)
    answer = reply(pr, cids[0], user="carol", body="Done in the next push")
    r = check(env, root)
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is True
    assert doc["new_reviews"] == []  # a bodiless COMMENTED wrapper is a system event
    assert ids(doc["new_review_comments"]) == [answer["id"]]
    c = doc["new_review_comments"][0]
    assert c["review_id"] == answer["review_id"] != rid
    assert c["in_reply_to_id"] == cids[0] and c["thread_root_id"] == cids[0]
    assert doc["recommended_checkpoint"]["reviews"]["last_review_id"] == answer["review_id"]
    r = check(env, root, "--include-system")
    assert r.code == 0, r
    (wrapper,) = r.json["new_reviews"]
    assert wrapper["id"] == answer["review_id"] and wrapper["state"] == "COMMENTED"
    assert wrapper["body"] == "" and wrapper["comment_count"] == 1
    assert ids(r.json["new_review_comments"]) == [answer["id"]]


def test_bodiless_commented_reviews_are_listed_only_with_include_system(pr, env, root):
    rid, cids = review(pr, comments=1, body="Main review")
    wrapper = reply(pr, cids[0], user="carol", body="answer")
    approval, _ = review(pr, comments=0, state="APPROVED", body="", user="dave")
    silent, silent_cids = review(pr, comments=2, state="COMMENTED", body="", user="erin")
    r = check(env, root)
    assert r.code == 0, r
    doc = r.json
    # a bodiless APPROVED review is feedback (its state); bodiless COMMENTED ones are wrappers
    assert ids(doc["new_reviews"]) == [rid, approval]
    assert ids(doc["new_review_comments"]) == cids + [wrapper["id"]] + silent_cids
    assert doc["new_review_count"] == 2 and doc["new_review_comment_count"] == 4
    assert doc["threads"] and not resolution_note(doc)
    r = check(env, root, "--include-system")
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_reviews"]) == [rid, wrapper["review_id"], approval, silent]
    assert [x["comment_count"] for x in doc["new_reviews"]] == [1, 1, 0, 2]
    assert ids(doc["new_review_comments"]) == cids + [wrapper["id"]] + silent_cids
    assert doc["threads"] and not resolution_note(doc)


def test_deleted_comments_are_not_returned_and_nothing_else_is_lost(pr, env, root):
    old = pr.add_comments(OWNER, NAME, PR, 5)
    rid0, cids0 = review(pr, comments=3)
    look_and_confirm(env, root)
    rid, cids = review(pr, comments=3)
    first = conversation(pr, body="first")
    second = conversation(pr, body="second")
    pr.delete_review_comment(cids[1])
    pr.delete_comment(first["id"])
    pr.delete_review_comment(cids0[2])  # an already confirmed one
    pr.delete_comment(old[-1])  # the confirmed conversation checkpoint itself
    r = check(env, root)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_comments"]) == [second["id"]]
    assert ids(doc["new_reviews"]) == [rid]
    assert ids(doc["new_review_comments"]) == [cids[0], cids[2]]
    assert doc["new_reviews"][0]["comment_count"] == 2
    assert rid0 not in ids(doc["new_reviews"])


def test_edits_and_dismissals_of_confirmed_feedback_are_not_new(pr, env, root):
    convs = pr.add_comments(OWNER, NAME, PR, 3)
    rid, cids = review(pr, comments=2, state="CHANGES_REQUESTED")
    look_and_confirm(env, root)
    pr.edit_review_comment(cids[0], "edited after it was processed")
    pr.edit_comment(convs[-1], "edited too")
    pr.dismiss_review(rid, message="addressed")
    pr.advance(60)
    r = check(env, root)
    assert r.code == 0, r
    assert r.json["has_updates"] is False, r
    assert r.json["new_comments"] == r.json["new_reviews"] == r.json["new_review_comments"] == []


# -- batches: --limit counts reviews, a review brings all its comments ----------------------------

def test_first_look_reads_the_newest_limit_of_each_kind(pr, env, root):
    convs = pr.add_comments(OWNER, NAME, PR, 30)
    made = [review(pr, comments=1)[0] for _ in range(25)]
    r = check(env, root, "--limit", 10)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_comments"]) == convs[-10:]
    assert ids(doc["new_reviews"]) == made[-10:]
    assert doc["older_not_returned"] == {"conversation": 20, "reviews": 15}
    assert doc["more_available"] is False
    assert doc["recommended_checkpoint"]["conversation"]["last_comment_id"] == convs[-1]
    assert doc["recommended_checkpoint"]["reviews"]["last_review_id"] == made[-1]


def test_limit_batches_walk_reviews_oldest_first_and_never_split_one(pr, env, root):
    review(pr, comments=1)
    look_and_confirm(env, root)
    made = [review(pr, comments=5 + 7 * i) for i in range(7)]
    seen_reviews, seen_comments, rounds = [], [], 0
    while True:
        r = check(env, root, "--limit", 3)
        assert r.code == 0, r
        doc = r.json
        rounds += 1
        batch = ids(doc["new_reviews"])
        assert len(batch) <= 3
        expected = [cid for rid, cids in made if rid in batch for cid in cids]
        assert ids(doc["new_review_comments"]) == expected  # every comment of each review
        assert [x["comment_count"] for x in doc["new_reviews"]] == \
            [len(cids) for rid, cids in made if rid in batch]
        seen_reviews += batch
        seen_comments += expected
        more = len(seen_reviews) < len(made)
        assert doc["more_available"] is more
        assert doc["more_available_by_kind"]["reviews"] is more
        assert doc["more_available_by_kind"]["conversation"] is False
        if batch:
            assert doc["recommended_checkpoint"]["reviews"]["last_review_id"] == batch[-1]
            assert confirm(env, root, doc["snapshot_id"]).code == 0
        if not more:
            break
        assert rounds < 5
    assert seen_reviews == [rid for rid, _ in made]
    assert seen_comments == [c for _, cids in made for c in cids]
    assert rounds == 3


def test_limit_counts_unlisted_bodiless_reviews_too(pr, env, root):
    rid0, cids0 = review(pr, comments=1)
    look_and_confirm(env, root)
    wrapper = reply(pr, cids0[0])
    second, second_cids = review(pr, comments=2)
    third, third_cids = review(pr, comments=1)
    r = check(env, root, "--limit", 2)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_reviews"]) == [second]
    assert ids(doc["new_review_comments"]) == [wrapper["id"]] + second_cids
    assert doc["more_available"] is True and doc["more_available_by_kind"]["reviews"] is True
    assert confirm(env, root, doc["snapshot_id"]).code == 0
    r = check(env, root, "--limit", 2)
    assert ids(r.json["new_reviews"]) == [third], r
    assert ids(r.json["new_review_comments"]) == third_cids
    assert r.json["more_available"] is False


def test_limit_one_returns_a_review_with_all_its_150_comments(pr, env, root):
    look_and_confirm(env, root)
    big, big_cids = review(pr, comments=150)
    small, _ = review(pr, comments=1)
    r = check(env, root, "--limit", 1)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_reviews"]) == [big]
    assert ids(doc["new_review_comments"]) == big_cids
    assert doc["new_reviews"][0]["comment_count"] == 150
    assert doc["truncated"] is False and doc["more_available"] is True
    assert confirm(env, root, doc["snapshot_id"]).code == 0
    r = check(env, root, "--limit", 1)
    assert ids(r.json["new_reviews"]) == [small], r


def test_conversation_batches_are_bounded_separately(pr, env, root):
    look_and_confirm(env, root)
    convs = pr.add_comments(OWNER, NAME, PR, 7)
    rid, cids = review(pr, comments=2)
    r = check(env, root, "--limit", 5)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_comments"]) == convs[:5] and ids(doc["new_reviews"]) == [rid]
    assert doc["more_available"] is True
    assert doc["more_available_by_kind"] == {"conversation": True, "reviews": False}
    assert confirm(env, root, doc["snapshot_id"]).code == 0
    r = check(env, root, "--limit", 5)
    assert ids(r.json["new_comments"]) == convs[5:] and r.json["new_reviews"] == [], r
    assert r.json["more_available"] is False


# -- the request floor -----------------------------------------------------------------------------

@pytest.mark.parametrize("count", [1, 99, 150])
def test_no_change_poll_is_at_most_two_requests_all_answered_304(pr, env, root, count):
    pr.add_comments(OWNER, NAME, PR, 120)
    many_reviews(pr, count)
    look_and_confirm(env, root)
    r = check(env, root, fake=pr)
    assert r.code == 0, r
    assert r.json["has_updates"] is False
    bound = 2 + count // 100  # one more conditional request per further 100 reviews
    assert len(pr.requests) <= bound, pr.requests
    assert set(statuses(pr)) == {304}, pr.requests
    assert all(q.headers.get("if-none-match") for q in pr.requests)
    assert r.json["requests"] == len(pr.requests)


def test_no_change_poll_after_update_state_is_all_304(pr, env, root):
    pr.add_comments(OWNER, NAME, PR, 30)
    many_reviews(pr, 40)
    r = latest(env, root, "--update-state")
    assert r.code == 0 and r.json["state_updated"] is True, r
    r = check(env, root, fake=pr)
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert len(pr.requests) <= 2 and set(statuses(pr)) == {304}, pr.requests


@pytest.mark.parametrize("existing", [3, 98])
@pytest.mark.parametrize("comments", [1, 100])
def test_one_new_review_costs_at_most_three_requests(pr, env, root, existing, comments):
    pr.add_comments(OWNER, NAME, PR, 50)
    many_reviews(pr, existing)
    look_and_confirm(env, root)
    rid, cids = review(pr, comments=comments, user="carol")
    r = check(env, root, fake=pr)
    assert r.code == 0, r
    doc = r.json
    assert doc["new_comments"] == [] and ids(doc["new_reviews"]) == [rid]
    assert ids(doc["new_review_comments"]) == cids
    assert len(rest(pr)) <= 3 and len(graphql(pr)) == 1, pr.requests
    assert doc["requests"] == len(pr.requests)
    assert confirm(env, root, doc["snapshot_id"]).code == 0
    r = check(env, root, fake=pr)
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert len(pr.requests) <= 2 and set(statuses(pr)) == {304}, pr.requests


@pytest.mark.parametrize("new", [2, 6])
def test_r_new_reviews_cost_at_most_two_plus_r_requests(pr, env, root, new):
    pr.add_comments(OWNER, NAME, PR, 10)
    base = many_reviews(pr, 10)
    look_and_confirm(env, root)
    made = []
    for i in range(new):
        if i % 2:
            made.append(review(pr, comments=i, user="carol"))
        else:
            answer = reply(pr, pr.review_comment_ids(OWNER, NAME, PR)[0])
            made.append((answer["review_id"], [answer["id"]]))
    r = check(env, root, "--include-system", fake=pr)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_reviews"]) == [rid for rid, _ in made]
    assert ids(doc["new_review_comments"]) == [c for _, cids in made for c in cids]
    assert len(rest(pr)) <= 2 + new and len(graphql(pr)) == 1, pr.requests
    assert doc["requests"] == len(pr.requests)
    assert base[-1] not in ids(doc["new_reviews"])


def test_own_pending_review_appearing_is_read_and_never_returned(pr, env, root):
    pr.add_comments(OWNER, NAME, PR, 10)
    many_reviews(pr, 12)
    look_and_confirm(env, root)
    mine = pr.start_review(OWNER, NAME, PR, TOKEN_OWNER, body="draft", comments=threads(3))
    pr.advance(60)
    r = check(env, root, fake=pr)
    assert r.code == 0, r
    assert r.json["has_updates"] is False and r.json["new_review_comments"] == []
    assert r.json["recommended_checkpoint"]["reviews"] == r.json["previous_checkpoint"]["reviews"]
    assert "my draft" not in r.stdout
    theirs, theirs_cids = review(pr, comments=1, user="carol")
    r = check(env, root)
    assert r.code == 0, r
    assert ids(r.json["new_reviews"]) == [theirs] and ids(r.json["new_review_comments"]) == theirs_cids
    assert mine["id"] < theirs


# -- large pages (--max-wait 0: the retries do not sleep) -------------------------------------

def new_non_retry_warnings(doc, baseline):
    return [w for w in doc["warnings"] if w not in baseline["warnings"] and "retrying" not in w]


def test_failing_large_review_comment_page_is_read_again_as_two_half_windows(pr, env, tmp_path):
    rid, cids = review(pr, comments=120)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    baseline = check(env, tmp_path / "a", "--limit", 100)
    assert baseline.code == 0 and ids(baseline.json["new_review_comments"]) == cids, baseline
    pr.fail_large_pages(path=REVIEW_COMMENT_LISTS, at_least=100, status=502)
    r = check(env, tmp_path / "b", "--limit", 100, "--max-wait", 0, fake=pr)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_reviews"]) == [rid] and ids(doc["new_review_comments"]) == cids
    on_path = [q for q in pr.requests if re.search(REVIEW_COMMENT_LISTS, q.path)]
    failed = [q for q in on_path if q.status == 502]
    assert failed, "the large page was never asked for"
    assert all(per_page(q) >= 100 for q in failed)
    assert any(per_page(q) == 50 and q.status == 200 for q in on_path)
    assert not any(per_page(q) >= 100 and q.status == 200 for q in on_path)
    assert doc["requests"] == len(pr.requests)
    assert new_non_retry_warnings(doc, baseline.json), doc["warnings"]


def test_failing_large_review_list_page_is_read_again_as_two_half_windows(pr, env, tmp_path):
    made = [review(pr, comments=1)[0] for _ in range(30)]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    baseline = check(env, tmp_path / "a", "--limit", 100)
    assert baseline.code == 0 and ids(baseline.json["new_reviews"]) == made, baseline
    pr.fail_large_pages(path=REVIEW_LIST, at_least=100, status=502)
    r = check(env, tmp_path / "b", "--limit", 100, "--max-wait", 0, fake=pr)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_reviews"]) == made
    on_path = [q for q in pr.requests if re.search(REVIEW_LIST, q.path)]
    assert any(q.status == 502 and per_page(q) >= 100 for q in on_path), on_path
    assert any(per_page(q) == 50 and q.status == 200 for q in on_path), on_path
    assert doc["requests"] == len(pr.requests)
    assert new_non_retry_warnings(doc, baseline.json), doc["warnings"]


def test_review_comment_page_still_failing_at_25_is_a_server_error(pr, env, root):
    review(pr, comments=60)
    pr.fail_large_pages(path=REVIEW_COMMENT_LISTS, at_least=25, status=502)
    r = check(env, root, "--limit", 100, "--max-wait", 0, fake=pr)
    assert_error(r, "server", 6)
    sizes = {per_page(q) for q in pr.requests if re.search(REVIEW_COMMENT_LISTS, q.path)}
    assert {100, 50, 25} <= sizes and min(sizes) == 25, sizes  # halved at most twice
    assert not pr_updates(root).exists() and not pr_checkpoint(root).exists()


def test_large_page_faults_cleared_reads_normally_again(pr, env, root):
    rid, cids = review(pr, comments=60)
    pr.fail_large_pages(path=REVIEW_COMMENT_LISTS, at_least=25, status=502)
    assert check(env, root, "--limit", 100, "--max-wait", 0).code == 6
    pr.clear_faults()
    r = check(env, root, "--limit", 100)
    assert r.code == 0 and ids(r.json["new_review_comments"]) == cids, r


# -- reading by id ----------------------------------------------------------------------------------

def test_review_comment_id_reads_one_inline_comment_in_one_request(pr, env, root):
    rid, cids = review(pr, comments=5)
    r = latest(env, root, "--review-comment-id", cids[3], fake=pr)
    assert r.code == 0, r
    doc = r.json
    assert doc["selector"] == {"type": "review_comment_id", "value": cids[3]}
    assert doc["comments"] == [] and doc["reviews"] == []
    assert ids(doc["review_comments"]) == [cids[3]]
    c = doc["review_comments"][0]
    assert REVIEW_COMMENT_KEYS <= set(c) and c["review_id"] == rid and c["body"] == "note 3"
    assert len(pr.requests) == 1 and doc["requests"] == 1
    assert not pr_checkpoint(root).exists() and not pr_updates(root).exists()


def test_review_comment_id_of_another_pull_request_names_it(pr, env, root):
    pr.add_pull(OWNER, NAME, OTHER_PR)
    _, other_cids = review(pr, comments=1, number=OTHER_PR)
    r = latest(env, root, "--review-comment-id", other_cids[0])
    err = assert_error(r, "not_found", 4)
    assert f"#{OTHER_PR}" in err["message"], r


@pytest.mark.parametrize("comments", [0, 3, 100])
def test_review_id_reads_a_review_with_its_comments_in_at_most_two_requests(pr, env, root,
                                                                            comments):
    review(pr, comments=2, user="carol")
    rid, cids = review(pr, comments=comments, state="CHANGES_REQUESTED", body="Fix these")
    review(pr, comments=2, user="dave")
    r = latest(env, root, "--review-id", rid, fake=pr)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["reviews"]) == [rid] and doc["comments"] == []
    assert doc["reviews"][0]["state"] == "CHANGES_REQUESTED"
    assert doc["reviews"][0]["body"] == "Fix these"
    assert doc["reviews"][0]["comment_count"] == comments
    assert ids(doc["review_comments"]) == cids
    assert len(pr.requests) <= 2 and doc["requests"] == len(pr.requests)
    assert not pr_checkpoint(root).exists()


def test_review_id_reads_a_bodiless_wrapper_too(pr, env, root):
    _, cids = review(pr, comments=1)
    answer = reply(pr, cids[0])
    r = latest(env, root, "--review-id", answer["review_id"])
    assert r.code == 0, r
    assert ids(r.json["reviews"]) == [answer["review_id"]]
    assert ids(r.json["review_comments"]) == [answer["id"]]


def test_review_id_of_another_pull_request_is_not_found(pr, env, root):
    pr.add_pull(OWNER, NAME, OTHER_PR)
    other, _ = review(pr, comments=1, number=OTHER_PR)
    r = latest(env, root, "--review-id", other)
    assert_error(r, "not_found", 4)


@pytest.mark.parametrize("author", ["carol", TOKEN_OWNER])
def test_review_id_of_a_pending_review_is_not_found(pr, env, root, author):
    pending = pr.start_review(OWNER, NAME, PR, author, body="draft", comments=threads(2))
    r = latest(env, root, "--review-id", pending["id"])
    assert_error(r, "not_found", 4)
    assert "draft" not in r.stdout and "note 0" not in r.stdout


def test_comment_id_with_pr_reads_the_conversation_comment(pr, env, root):
    pr.add_comments(OWNER, NAME, PR, 5)
    remark = conversation(pr, body="the one")
    review(pr, comments=1)
    r = latest(env, root, "--comment-id", remark["id"], fake=pr)
    assert r.code == 0, r
    assert ids(r.json["comments"]) == [remark["id"]]
    assert r.json["comments"][0]["body"] == "the one"
    assert r.json.get("reviews", []) == [] and r.json.get("review_comments", []) == []
    assert len(pr.requests) == 1


def test_by_id_precedence_comment_then_review_comment_then_review(pr, env, root):
    remark = conversation(pr)
    rid, cids = review(pr, comments=3)
    r = latest(env, root, "--comment-id", remark["id"], "--review-comment-id", cids[1],
               "--review-id", rid)
    assert r.code == 0, r
    assert r.json["selector"]["type"] == "comment_id"
    assert ids(r.json["comments"]) == [remark["id"]]
    assert r.json.get("reviews", []) == [] and r.json.get("review_comments", []) == []
    r = latest(env, root, "--review-comment-id", cids[1], "--review-id", rid, fake=pr)
    assert r.code == 0, r
    assert r.json["selector"] == {"type": "review_comment_id", "value": cids[1]}
    assert ids(r.json["review_comments"]) == [cids[1]] and r.json["reviews"] == []
    assert len(pr.requests) == 1
    r = latest(env, root, "--review-id", rid)
    assert r.code == 0, r
    assert ids(r.json["reviews"]) == [rid] and ids(r.json["review_comments"]) == cids
    # a by-id read comes before the checkpoint and never moves it
    look_and_confirm(env, root)
    before = pr_checkpoint(root).read_bytes()
    later, _ = review(pr, comments=1)
    r = latest(env, root, "--review-id", rid)
    assert r.code == 0 and ids(r.json["reviews"]) == [rid], r
    assert pr_checkpoint(root).read_bytes() == before
    r = check(env, root)
    assert ids(r.json["new_reviews"]) == [later], r


# -- --issue on a pull request keeps its meaning ---------------------------------------------------

def test_issue_flag_on_a_pull_request_reads_conversation_only_with_its_own_files(pr, env, root):
    convs = pr.add_comments(OWNER, NAME, PR, 3)
    rid, cids = review(pr, comments=2)
    ri = run("check_issue_updates.py", env, root, "--issue", PR)
    assert ri.code == 0, ri
    doc = ri.json
    assert doc["issue"] == PR and "pull_request" not in doc and "new_reviews" not in doc
    assert ids(doc["new_comments"]) == convs
    assert doc["updates_file"] == str(state_dir(root) / "octo-hello-7-updates.json")
    c = run("get_latest_comments.py", env, root, "--issue", PR, "--confirm-updates",
            "--snapshot-id", doc["snapshot_id"])
    assert c.code == 0 and c.json["state_updated"] is True, c
    assert issue_checkpoint(root).exists()
    assert not pr_checkpoint(root).exists() and not pr_updates(root).exists()
    issue_cp = issue_checkpoint(root).read_bytes()
    # the PR round has its own cursor: the confirmed conversation comments are still new to it
    rp = check(env, root)
    assert rp.code == 0, rp
    assert ids(rp.json["new_comments"]) == convs and ids(rp.json["new_reviews"]) == [rid]
    assert confirm(env, root, rp.json["snapshot_id"]).code == 0
    assert issue_checkpoint(root).read_bytes() == issue_cp
    assert json.loads(pr_checkpoint(root).read_text())["pull_request"] == PR
    assert json.loads(issue_checkpoint(root).read_text())["issue"] == PR
    new = conversation(pr)
    later, _ = review(pr, comments=1)
    ri = run("check_issue_updates.py", env, root, "--issue", PR)
    assert ids(ri.json["new_comments"]) == [new["id"]], ri
    rp = check(env, root)
    assert ids(rp.json["new_comments"]) == [new["id"]] and ids(rp.json["new_reviews"]) == [later]
    # confirming the PR round leaves the issue's files alone, and the other way round
    pr_cp = pr_checkpoint(root).read_bytes()
    assert run("get_latest_comments.py", env, root, "--issue", PR, "--confirm-updates",
               "--snapshot-id", ri.json["snapshot_id"]).code == 0
    assert pr_checkpoint(root).read_bytes() == pr_cp
    assert confirm(env, root, rp.json["snapshot_id"]).code == 0
    assert json.loads(issue_checkpoint(root).read_text())["last_comment_id"] == new["id"]


@pytest.mark.parametrize("content", [
    {"schema_version": 1, "repository": REPOSITORY, "pull_request": OTHER_PR,
     "conversation": None, "reviews": None, "saved_at": "x"},
    {"schema_version": 1, "repository": "octo/other", "pull_request": PR,
     "conversation": None, "reviews": None, "saved_at": "x"},
])
def test_pr_checkpoint_of_another_identity_is_a_state_error(pr, env, root, content):
    review(pr, comments=1)
    state_dir(root).mkdir(parents=True)
    raw = json.dumps(content).encode()
    pr_checkpoint(root).write_bytes(raw)
    r = check(env, root)
    assert_error(r, "state", 7)
    r = latest(env, root, "--update-state")
    assert_error(r, "state", 7)
    assert pr_checkpoint(root).read_bytes() == raw


@pytest.mark.parametrize("content", [b"{not json", b"[]"])
def test_corrupt_pr_checkpoint_is_reported_and_left_alone(pr, env, root, content):
    review(pr, comments=1)
    state_dir(root).mkdir(parents=True)
    pr_checkpoint(root).write_bytes(content)
    for r in (check(env, root), latest(env, root, "--update-state")):
        assert_error(r, "state", 7)
    assert pr_checkpoint(root).read_bytes() == content


# -- bad input: the contract's error, and state untouched -------------------------------------------

@pytest.fixture
def busy(pr, env, root):
    """PR 7 with a confirmed round and an unconfirmed snapshot, its issue round confirmed,
    PR 8 with a review, plain issue 9, and pending reviews by carol and by the token's owner."""
    convs = pr.add_comments(OWNER, NAME, PR, 3)
    rid, cids = review(pr, comments=2)
    pr.add_pull(OWNER, NAME, OTHER_PR)
    other_rid, other_cids = review(pr, comments=1, number=OTHER_PR)
    pr.add_issue(OWNER, NAME, PLAIN_ISSUE)
    pr.add_comments(OWNER, NAME, PLAIN_ISSUE, 2)
    carol = pr.start_review(OWNER, NAME, PR, "carol", body="draft", comments=threads(1))
    mine = pr.start_review(OWNER, NAME, PR, TOKEN_OWNER, body="my draft", comments=threads(1))
    look_and_confirm(env, root)
    ri = run("check_issue_updates.py", env, root, "--issue", PR)
    assert run("get_latest_comments.py", env, root, "--issue", PR, "--confirm-updates",
               "--snapshot-id", ri.json["snapshot_id"]).code == 0
    new_rid, new_cids = review(pr, comments=2)
    snap = check(env, root)
    assert snap.code == 0 and ids(snap.json["new_reviews"]) == [new_rid], snap
    return {"convs": convs, "rid": rid, "cids": cids, "other_rid": other_rid,
            "other_cids": other_cids, "carol": carol, "mine": mine, "new_cids": new_cids,
            "snapshot": snap.json["snapshot_id"]}


CHECK, LATEST = "check_issue_updates.py", "get_latest_comments.py"
BAD_INPUT = [
    ("check-pr-and-issue", CHECK, lambda w: ["--pr", PR, "--issue", PR], 2, "usage", None),
    ("latest-pr-and-issue", LATEST, lambda w: ["--pr", PR, "--issue", PR, "--update-state"], 2,
     "usage", None),
    ("through", LATEST, lambda w: ["--pr", PR, "--confirm-updates", "--snapshot-id",
                                   w["snapshot"], "--through", w["new_cids"][0]], 2, "usage",
     None),
    ("last-n", LATEST, lambda w: ["--pr", PR, "--last-n", 3], 2, "usage", None),
    ("all", LATEST, lambda w: ["--pr", PR, "--all"], 2, "usage", None),
    ("since-comment-id", LATEST, lambda w: ["--pr", PR, "--since-comment-id", w["convs"][0]], 2,
     "usage", None),
    ("after-comment-id", CHECK, lambda w: ["--pr", PR, "--after-comment-id", w["convs"][0]], 2,
     "usage", None),
    ("unknown-pr-check", CHECK, lambda w: ["--pr", 999], 4, "not_found", None),
    ("unknown-pr-update-state", LATEST, lambda w: ["--pr", 999, "--update-state"], 4,
     "not_found", None),
    ("plain-issue-check", CHECK, lambda w: ["--pr", PLAIN_ISSUE], 4, "not_found", ISSUE_NOT_PR),
    ("plain-issue-update-state", LATEST, lambda w: ["--pr", PLAIN_ISSUE, "--update-state"], 4,
     "not_found", ISSUE_NOT_PR),
    ("review-comment-of-another-pr", LATEST,
     lambda w: ["--pr", PR, "--review-comment-id", w["other_cids"][0]], 4, "not_found",
     f"#{OTHER_PR}"),
    ("review-of-another-pr", LATEST, lambda w: ["--pr", PR, "--review-id", w["other_rid"]], 4,
     "not_found", None),
    ("pending-review-of-another-user", LATEST,
     lambda w: ["--pr", PR, "--review-id", w["carol"]["id"]], 4, "not_found", None),
    ("own-pending-review", LATEST, lambda w: ["--pr", PR, "--review-id", w["mine"]["id"]], 4,
     "not_found", None),
    ("pending-review-comment-of-another-user", LATEST,
     lambda w: ["--pr", PR, "--review-comment-id", w["carol"]["comment_ids"][0]], 4,
     "not_found", None),
]


@pytest.mark.parametrize("script,argv,exit_code,code,message",
                         [b[1:] for b in BAD_INPUT], ids=[b[0] for b in BAD_INPUT])
def test_bad_input_is_refused_with_the_contract_error_and_state_untouched(
        busy, pr, env, root, script, argv, exit_code, code, message):
    before = state_files(root)
    assert before  # the PR round's pair and the issue round's pair
    r = run(script, env, root, *argv(busy), fake=pr)
    err = assert_error(r, code, exit_code)
    if message is not None:
        assert message in err["message"], r
    if exit_code == 2:
        assert pr.requests == []
    assert state_files(root) == before
    # the snapshot the agent read can still be confirmed
    c = confirm(env, root, busy["snapshot"])
    assert c.code == 0 and c.json["state_updated"] is True, c


def test_update_state_with_a_by_id_read_is_refused(busy, pr, env, root):
    before = state_files(root)
    r = latest(env, root, "--comment-id", busy["convs"][0], "--update-state", fake=pr)
    assert_error(r, "usage", 2)
    assert pr.requests == []
    assert state_files(root) == before


# -- confirm on the whole object --------------------------------------------------------------------

def test_confirm_is_refused_when_the_stored_checkpoint_moved(pr, env, root):
    review(pr, comments=1)
    look_and_confirm(env, root)
    review(pr, comments=2)
    snap = check(env, root).json
    assert latest(env, root, "--update-state").code == 0  # the checkpoint moves meanwhile
    review(pr, comments=1)
    assert latest(env, root, "--update-state").code == 0
    before = pr_checkpoint(root).read_bytes()
    r = confirm(env, root, snap["snapshot_id"])
    assert_error(r, "state", 7)
    assert pr_checkpoint(root).read_bytes() == before


@pytest.mark.parametrize("moved", ["conversation", "reviews"])
def test_confirm_compares_both_parts_of_the_checkpoint(pr, env, root, moved):
    review(pr, comments=1)
    conversation(pr)
    look_and_confirm(env, root)
    # the snapshot holds news of one kind; meanwhile the other kind's cursor moves
    if moved == "conversation":
        review(pr, comments=1)
    else:
        conversation(pr)
    snap = check(env, root).json
    if moved == "conversation":
        conversation(pr)
    else:
        review(pr, comments=1)
    r = latest(env, root, "--update-state", "--limit", 100)
    assert r.code == 0 and r.json["state_updated"] is True, r
    before = pr_checkpoint(root).read_bytes()
    r = confirm(env, root, snap["snapshot_id"])
    assert_error(r, "state", 7)
    assert pr_checkpoint(root).read_bytes() == before


def test_confirm_refuses_a_snapshot_a_later_check_replaced(pr, env, root):
    review(pr, comments=1)
    first = check(env, root).json
    review(pr, comments=1)
    second = check(env, root).json
    r = confirm(env, root, first["snapshot_id"])
    err = assert_error(r, "state", 7)
    assert "snapshot" in err["message"], r
    assert not pr_checkpoint(root).exists()
    r = confirm(env, root, second["snapshot_id"])
    assert r.code == 0 and r.json["state_updated"] is True, r


def test_confirm_is_idempotent_and_already_applied_comes_first(pr, env, root):
    review(pr, comments=2)
    conversation(pr)
    doc = look_and_confirm(env, root)
    before = pr_checkpoint(root).read_bytes()
    r = confirm(env, root, doc["snapshot_id"])
    assert r.code == 0 and r.json["already_applied"] is True, r
    assert r.json["state_updated"] is False
    assert pr_checkpoint(root).read_bytes() == before
    assert check(env, root).json["has_updates"] is False  # a later check replaces the file
    r = confirm(env, root, doc["snapshot_id"])  # a retried confirm of the first snapshot
    assert r.code == 0 and r.json["already_applied"] is True, r
    assert pr_checkpoint(root).read_bytes() == before


def test_confirm_without_updates_file_is_a_state_error(pr, env, root):
    r = latest(env, root, "--confirm-updates")
    assert_error(r, "state", 7)
    assert not pr_checkpoint(root).exists()


def test_confirm_makes_no_request(pr, env, root):
    review(pr, comments=2)
    snap = check(env, root).json
    pr.clear_log()
    # another API host's snapshot (section 18's api_host): refused, without a request
    other = latest(env, root, "--confirm-updates", "--snapshot-id", snap["snapshot_id"],
                   "--api-url", "http://127.0.0.1:9")
    assert other.code == 7 and "not on 127.0.0.1:9 (" in other.json["error"]["message"], other
    r = latest(env, root, "--confirm-updates", "--snapshot-id", snap["snapshot_id"])
    assert r.code == 0 and r.json["state_updated"] is True, r
    assert pr.requests == [] and r.json["requests"] == 0


def test_update_state_with_pr_reads_the_round_and_writes_the_checkpoint(pr, env, root):
    look_and_confirm(env, root)
    convs = pr.add_comments(OWNER, NAME, PR, 2)
    rid, cids = review(pr, comments=3)
    answer = reply(pr, cids[0])
    r = latest(env, root, "--update-state")
    assert r.code == 0, r
    doc = r.json
    assert doc["state_updated"] is True and doc["pull_request"] == PR
    assert ids(doc["comments"]) == convs
    assert ids(doc["reviews"]) == [rid]
    assert ids(doc["review_comments"]) == cids + [answer["id"]]
    assert doc["next_checkpoint"]["conversation"]["last_comment_id"] == convs[-1]
    assert doc["next_checkpoint"]["reviews"]["last_review_id"] == answer["review_id"]
    stored = json.loads(pr_checkpoint(root).read_text())
    assert stored["pull_request"] == PR and stored["repository"] == REPOSITORY
    assert not issue_checkpoint(root).exists()
    r = check(env, root)
    assert r.code == 0 and r.json["has_updates"] is False, r


def test_update_state_with_pr_walks_batches_without_splitting_a_review(pr, env, root):
    look_and_confirm(env, root)
    made = [review(pr, comments=3 + i) for i in range(5)]
    seen = []
    for _ in range(5):
        r = latest(env, root, "--update-state", "--limit", 2)
        assert r.code == 0, r
        batch = ids(r.json["reviews"])
        assert ids(r.json["review_comments"]) == [c for rid, cids in made if rid in batch
                                                  for c in cids]
        seen += batch
        if not r.json["more_available"]:
            break
    assert seen == [rid for rid, _ in made]


# --------------------------------------------------------------------------- beyond 99 reviews


def review_list_reads(fake):
    return [q for q in fake.requests if re.search(REVIEW_LIST, q.path)]


@pytest.mark.parametrize("order", ["id", "submitted"])
def test_a_new_review_on_a_pr_of_250_reviews_rereads_only_the_page_that_changed(pr, env, root,
                                                                               order):
    pr.review_order = order
    many_reviews(pr, 250)
    look_and_confirm(env, root)
    rid, cids = review(pr, comments=5)
    r = check(env, root, fake=pr)
    assert r.code == 0, r
    assert ids(r.json["new_reviews"]) == [rid] and ids(r.json["new_review_comments"]) == cids
    # the probe (page 3, answered 200 and used as that page), pages 1 and 2 again
    # conditionally (304), the review's comments, the conversation's probe (304)
    assert len(rest(pr)) <= 5 and len(graphql(pr)) == 1, pr.requests
    assert sum(1 for q in rest(pr) if q.status != 304) <= 2, pr.requests
    assert r.json["requests"] == len(pr.requests)
    c = confirm(env, root, r.json["snapshot_id"])
    assert c.code == 0 and c.json["state_updated"] is True, c
    r = check(env, root, fake=pr)
    assert r.json["has_updates"] is False and set(statuses(pr)) == {304}, pr.requests


def test_a_late_review_landing_in_an_earlier_page_is_read_whole_and_returned(pr, env, root):
    """Listed by id, a review started before the others and submitted now changes page 1:
    the stored skeleton no longer holds, the whole list is read, and nothing is missed."""
    late = pr.start_review(OWNER, NAME, PR, "dave", body="Started long ago.",
                           comments=threads(2, "late"))
    pr.advance(60)
    made = many_reviews(pr, 230)
    look_and_confirm(env, root)
    pr.submit_review(late["id"], state="CHANGES_REQUESTED")
    pr.advance(60)
    rid, cids = review(pr, comments=1)
    r = check(env, root, fake=pr)
    assert r.code == 0, r
    assert ids(r.json["new_reviews"]) == [late["id"], rid], r.json["new_reviews"]
    assert ids(r.json["new_review_comments"]) == list(late["comment_ids"]) + cids
    assert late["id"] < made[0]
    assert any(q.status == 200 and q.query.get("page") == "1" for q in review_list_reads(pr))
    confirm(env, root, r.json["snapshot_id"])
    r = check(env, root, fake=pr)
    assert r.json["has_updates"] is False and set(statuses(pr)) == {304}, pr.requests


def test_a_corrupt_stored_skeleton_is_not_trusted(pr, env, root):
    many_reviews(pr, 120)
    look_and_confirm(env, root)
    path = pr_hints(root)
    doc = json.loads(path.read_text())
    doc["hints"]["reviews"][0]["pages"][0]["items"] = "not a skeleton"
    path.write_text(json.dumps(doc))
    rid, _ = review(pr, comments=0, state="APPROVED")
    r = check(env, root, fake=pr)
    assert r.code == 0, r
    assert ids(r.json["new_reviews"]) == [rid]
