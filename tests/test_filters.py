"""Whose comments count (CONTRACT section 13): --ignore-author, @me, --humans-only,
--trusted-only and filtered_out on every monitor read but reads by id; the writer's `author`.

Driven as an agent drives it: the real scripts as subprocesses against the fake.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakegithub import FakeGitHub
from tests.support import OWNER, REPOSITORY, TOKEN, run_script, script_env

ISSUE = 5
PR = 7
STATE = Path(".tmp") / "runs" / "default" / "gh-issue-comment-monitor"


@pytest.fixture
def issue(fake):
    fake.add_repo(OWNER, "hello")
    fake.add_issue(OWNER, "hello", ISSUE)
    return fake


@pytest.fixture
def env(fake):
    return script_env(fake)  # token TOKEN, login octocat


@pytest.fixture
def root(tmp_path):
    return tmp_path


def check(env, root, *args, number=("--issue", ISSUE)):
    return run_script("check_issue_updates.py", "--repo", REPOSITORY, *number, "--root", root,
                      *args, env=env)


def latest(env, root, *args, number=("--issue", ISSUE)):
    return run_script("get_latest_comments.py", "--repo", REPOSITORY, *number, "--root", root,
                      *args, env=env)


def ids(items):
    return [c["id"] for c in items]


def nonzero(counts):
    """filtered_out without zero counts or empty kinds (only non-zero reasons need appear)."""
    if isinstance(counts, dict):
        out = {k: nonzero(v) for k, v in counts.items()}
        return {k: v for k, v in out.items() if v}
    return counts


def user_requests(fake):
    return [r for r in fake.requests if r.path == "/user"]


def files_under(root):
    return [p for p in root.rglob("*") if p.is_file()]


def say(fake, user, body=None, user_type="User", association="NONE", number=ISSUE):
    return fake.add_comment(OWNER, "hello", number, body or f"from {user}", user=user,
                            user_type=user_type, association=association)["id"]


# -- matching rules ------------------------------------------------------------------------------

@pytest.fixture
def crowd(issue):
    """One issue, many authors; names -> comment ids, in posting (= id) order."""
    c = {}
    c["alice"] = say(issue, "alice")
    c["dependabot[bot]"] = say(issue, "dependabot[bot]", user_type="Bot")
    c["dependabot"] = say(issue, "dependabot")  # a user holding the bot's bare name
    c["bob"] = say(issue, "bob", association="MEMBER")
    c["renovate[bot]"] = say(issue, "renovate[bot]", user_type="Bot")
    c["deploy-bot"] = say(issue, "deploy-bot", association="MEMBER")  # a machine user: a User
    c["octocat"] = say(issue, "octocat", association="OWNER")  # the token's own login
    c["carol"] = say(issue, "carol", association="COLLABORATOR")
    return c


MATCHING = {
    "name[bot] matches only that bot": (["--ignore-author", "dependabot[bot]"],
                                        {"dependabot[bot]"}, "ignore_author"),
    "name[bot] in any case": (["--ignore-author", "DependaBot[bot]"], {"dependabot[bot]"},
                              "ignore_author"),
    "the [bot] suffix in any case": (["--ignore-author", "dependabot[BOT]"],
                                     {"dependabot[bot]"}, "ignore_author"),
    "bare name matches the user and its bot": (["--ignore-author", "dependabot"],
                                               {"dependabot", "dependabot[bot]"},
                                               "ignore_author"),
    "bare name in any case": (["--ignore-author", "DEPENDABOT"],
                              {"dependabot", "dependabot[bot]"}, "ignore_author"),
    "bare name of a bot without a user": (["--ignore-author", "Renovate"], {"renovate[bot]"},
                                          "ignore_author"),
    "repeatable": (["--ignore-author", "dependabot[bot]", "--ignore-author", "Carol"],
                   {"dependabot[bot]", "carol"}, "ignore_author"),
    "no prefix match": (["--ignore-author", "depend", "--ignore-author", "bot"], set(),
                        "ignore_author"),
    "@me is the token's login": (["--ignore-author", "@me"], {"octocat"}, "ignore_author"),
    "humans-only leaves out bots, not machine users": (["--humans-only"],
                                                        {"dependabot[bot]", "renovate[bot]"},
                                                        "humans_only"),
    "trusted-only": (["--trusted-only"], {"alice", "dependabot[bot]", "dependabot",
                                          "renovate[bot]"}, "trusted_only"),
}


@pytest.mark.parametrize("flags, left_out, reason", MATCHING.values(), ids=list(MATCHING))
def test_filters_leave_out_exactly_the_matching_authors(crowd, env, root, flags, left_out,
                                                         reason):
    r = check(env, root, *flags)
    assert r.code == 0, r
    doc = r.json
    kept = [cid for name, cid in crowd.items() if name not in left_out]
    assert ids(doc["new_comments"]) == kept
    assert doc["new_comment_count"] == len(kept)
    assert nonzero(doc.get("filtered_out") or {}) == ({reason: len(left_out)} if left_out
                                                       else {})
    assert doc["has_updates"] is True
    assert doc["recommended_checkpoint"]["last_comment_id"] == crowd["carol"]


def test_each_left_out_comment_is_counted_once_under_its_first_reason(issue, env, root):
    """Reasons in order: trusted_only, ignore_author, humans_only."""
    say(issue, "stranger[bot]", user_type="Bot")                            # trusted_only
    say(issue, "dependabot", association="NONE")                           # trusted_only
    say(issue, "dependabot[bot]", user_type="Bot", association="MEMBER")   # ignore_author
    say(issue, "github-actions[bot]", user_type="Bot", association="MEMBER")  # humans_only
    kept = say(issue, "bob", association="MEMBER")
    r = check(env, root, "--humans-only", "--ignore-author", "dependabot", "--trusted-only")
    assert r.code == 0, r
    assert ids(r.json["new_comments"]) == [kept]
    assert nonzero(r.json["filtered_out"]) == {"trusted_only": 2, "ignore_author": 1,
                                               "humans_only": 1}


# -- has_updates, filtered_out and the checkpoint ------------------------------------------------

def test_nothing_left_means_no_updates_yet_the_checkpoint_moves_past_the_left_out(issue, env,
                                                                                  root):
    history = issue.add_comments(OWNER, "hello", ISSUE, 10, association="MEMBER")
    assert latest(env, root, "--update-state").code == 0
    strangers = issue.add_comments(OWNER, "hello", ISSUE, 3, user="mallory")
    r = check(env, root, "--trusted-only")
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is False and doc["new_comments"] == []
    assert doc["new_comment_count"] == 0
    assert nonzero(doc["filtered_out"]) == {"trusted_only": 3}
    assert doc["previous_checkpoint"]["last_comment_id"] == history[-1]
    assert doc["recommended_checkpoint"]["last_comment_id"] == strangers[-1]
    assert doc["recommended_checkpoint"] != doc["previous_checkpoint"]
    c = latest(env, root, "--confirm-updates", "--snapshot-id", doc["snapshot_id"])
    assert c.code == 0 and c.json["state_updated"] is True, c
    assert c.json["next_checkpoint"]["last_comment_id"] == strangers[-1]
    r = check(env, root, "--trusted-only")
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert nonzero(r.json.get("filtered_out") or {}) == {}  # not counted again
    member = say(issue, "bob", association="MEMBER")
    r = check(env, root, "--trusted-only")
    assert ids(r.json["new_comments"]) == [member] and r.json["has_updates"] is True


def test_without_checkpoint_only_left_out_comments_still_give_a_checkpoint(issue, env, root):
    bots = [say(issue, "ci[bot]", user_type="Bot") for _ in range(3)]
    r = check(env, root, "--humans-only")
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is False and doc["new_comments"] == []
    assert doc["previous_checkpoint"] is None
    assert nonzero(doc["filtered_out"]) == {"humans_only": 3}
    assert doc["recommended_checkpoint"]["last_comment_id"] == bots[-1]
    c = latest(env, root, "--confirm-updates", "--snapshot-id", doc["snapshot_id"])
    assert c.code == 0 and c.json["next_checkpoint"]["last_comment_id"] == bots[-1], c


def test_a_filter_that_leaves_out_nothing_changes_nothing(issue, env, root):
    all_ids = issue.add_comments(OWNER, "hello", ISSUE, 7)
    plain = check(env, root).json
    r = check(env, root, "--humans-only", "--ignore-author", "nobody-here")
    assert r.code == 0, r
    assert ids(r.json["new_comments"]) == ids(plain["new_comments"]) == all_ids
    assert nonzero(r.json.get("filtered_out") or {}) == {}


# -- get_latest_comments.py selectors -------------------------------------------------------------

@pytest.fixture
def conversation(issue, env, root):
    """A checkpoint at the first comment, then bots and humans in turn."""
    c = {"first": say(issue, "alice")}
    r = latest(env, root, "--update-state")
    assert r.code == 0 and r.json["state_updated"] is True, r
    c["ci"] = say(issue, "ci[bot]", user_type="Bot")
    c["bob"] = say(issue, "bob")
    c["dependabot"] = say(issue, "dependabot[bot]", user_type="Bot")
    c["carol"] = say(issue, "carol")
    issue.clear_log()
    return c


SELECTORS = {
    "checkpoint": (lambda c: [], ["bob", "carol"]),
    "since-comment-id": (lambda c: ["--since-comment-id", c["first"]], ["bob", "carol"]),
    "last-n": (lambda c: ["--last-n", 50], ["first", "bob", "carol"]),
    "all": (lambda c: ["--all"], ["first", "bob", "carol"]),
}
BOT_FILTERS = {
    "humans-only": (["--humans-only"], "humans_only"),
    "ignore-author": (["--ignore-author", "CI", "--ignore-author", "dependabot"],
                      "ignore_author"),
}


@pytest.mark.parametrize("flags, reason", BOT_FILTERS.values(), ids=list(BOT_FILTERS))
@pytest.mark.parametrize("selector, expected", SELECTORS.values(), ids=list(SELECTORS))
def test_filters_apply_to_every_selector_of_get_latest_comments(conversation, env, root,
                                                                 selector, expected, flags,
                                                                 reason):
    r = latest(env, root, *selector(conversation), *flags)
    assert r.code == 0, r
    assert ids(r.json["comments"]) == [conversation[k] for k in expected]
    assert nonzero(r.json["filtered_out"]) == {reason: 2}


def test_a_read_by_id_ignores_the_filters(conversation, env, root, fake):
    for cid in (conversation["ci"], conversation["dependabot"]):
        r = latest(env, root, "--comment-id", cid, "--humans-only", "--ignore-author", "ci",
                   "--ignore-author", "dependabot", "--trusted-only")
        assert r.code == 0, r
        assert ids(r.json["comments"]) == [cid]
        assert nonzero(r.json.get("filtered_out") or {}) == {}
    assert user_requests(fake) == []


# -- @me ---------------------------------------------------------------------------------------

def whoami_files(root):
    return sorted((root / STATE).glob(".whoami-*.json"))


def test_at_me_asks_get_user_once_then_uses_the_cache(issue, env, root):
    mine = say(issue, "octocat", association="OWNER")
    theirs = say(issue, "bob")
    r = check(env, root, "--ignore-author", "@me")
    assert r.code == 0 and ids(r.json["new_comments"]) == [theirs], r
    assert nonzero(r.json["filtered_out"]) == {"ignore_author": 1}
    assert len(user_requests(issue)) == 1
    assert [p.name for p in whoami_files(root)] == [f".whoami-127.0.0.1-{issue.port}.json"]
    issue.clear_log()
    r = check(env, root, "--ignore-author", "@me")
    assert r.code == 0 and ids(r.json["new_comments"]) == [theirs], r
    r = latest(env, root, "--all", "--ignore-author", "@me")
    assert r.code == 0 and ids(r.json["comments"]) == [theirs], r
    assert user_requests(issue) == []  # cached for the host and token
    r = latest(env, root, "--comment-id", mine, "--ignore-author", "@me")
    assert r.code == 0 and ids(r.json["comments"]) == [mine], r


def test_the_whoami_cache_never_holds_the_token(issue, env, root):
    say(issue, "octocat")
    r = check(env, root, "--ignore-author", "@me")
    assert r.code == 0, r
    assert whoami_files(root)
    secret = TOKEN.encode()
    for path in files_under(root):
        assert secret not in path.read_bytes(), path
        assert TOKEN not in path.name
    assert TOKEN not in r.stdout + r.stderr


def test_at_me_with_another_token_asks_again(issue, env, root):
    mine = say(issue, "octocat")
    hubots = say(issue, "hubot")
    r = check(env, root, "--ignore-author", "@me")
    assert r.code == 0 and ids(r.json["new_comments"]) == [hubots], r
    issue.clear_log()
    other = "ghp_anotherTokenForHubot000000000000000000"
    env2 = script_env(issue, token=other, login="hubot")
    r = check(env2, root, "--ignore-author", "@me")
    assert r.code == 0, r
    assert ids(r.json["new_comments"]) == [mine]  # hubot is @me now
    assert len(user_requests(issue)) == 1
    assert user_requests(issue)[0].headers["authorization"].endswith(other)
    for path in files_under(root):
        data = path.read_bytes()
        assert TOKEN.encode() not in data and other.encode() not in data, path


def test_at_me_on_another_api_host_asks_again(issue, env, root):
    say(issue, "octocat")
    hubots = say(issue, "hubot")
    r = check(env, root, "--ignore-author", "@me")
    assert r.code == 0 and ids(r.json["new_comments"]) == [hubots], r
    other = FakeGitHub(host="127.0.0.2").start()
    try:
        other.add_token(TOKEN, login="hubot")  # the same token, another host, another login
        other.add_repo(OWNER, "hello")
        other.add_issue(OWNER, "hello", ISSUE)
        octocats = say(other, "octocat")
        say(other, "hubot")
        env2 = dict(env, GITHUB_API_URL=other.url)
        r = check(env2, root, "--ignore-author", "@me")
        assert r.code == 0, r
        assert ids(r.json["new_comments"]) == [octocats]
        assert len(user_requests(other)) == 1
        assert len(whoami_files(root)) == 2
        for path in files_under(root):
            assert TOKEN.encode() not in path.read_bytes(), path
    finally:
        other.stop()


def test_at_me_with_an_integration_token_is_a_usage_error_naming_the_login(issue, root):
    say(issue, "github-actions[bot]", user_type="Bot")
    token = "ghs_installationTokenOfActions0000000000"
    env = script_env(issue, token=None)
    issue.add_token(token, login="github-actions[bot]", integration=True)
    env["GH_TOKEN"] = token
    r = check(env, root, "--ignore-author", "@me")
    assert r.code == 2 and r.json["error"]["code"] == "usage", r
    assert "--ignore-author github-actions[bot]" in r.json["error"]["message"]
    assert [q.path for q in issue.requests] == ["/user"]
    assert list(root.iterdir()) == []  # no cache, no updates file
    # the way out works with the same token
    r = check(env, root, "--ignore-author", "github-actions[bot]")
    assert r.code == 0 and r.json["new_comments"] == [], r
    assert nonzero(r.json["filtered_out"]) == {"ignore_author": 1}


# -- pull-request rounds --------------------------------------------------------------------------

@pytest.fixture
def pull(fake):
    fake.add_repo(OWNER, "hello")
    fake.add_pull(OWNER, "hello", PR)
    p = {"bob": say(fake, "bob", number=PR),
         "ci": say(fake, "ci[bot]", user_type="Bot", number=PR)}
    p["approval"] = fake.add_review(OWNER, "hello", PR, "carol", "APPROVED", body="ok")["id"]
    p["bot_review"] = fake.add_review(OWNER, "hello", PR, "coderabbitai[bot]", "COMMENTED",
                                      body="Summary of the changes", user_type="Bot")["id"]
    p["bot_inline"] = fake.add_review_thread(
        OWNER, "hello", PR, "src/a.py", line=4,
        comments=[{"user": "coderabbitai[bot]", "user_type": "Bot", "body": "nit: a name",
                   "review_id": p["bot_review"]}])["comment_ids"][0]
    p["human_inline"] = fake.add_review_thread(
        OWNER, "hello", PR, "src/b.py", line=9,
        comments=[{"user": "dave", "body": "why this?"}])["comment_ids"][0]
    return p


PR_FILTERS = {
    "humans-only": (["--humans-only"], "humans_only"),
    "ignore-author": (["--ignore-author", "coderabbitai", "--ignore-author", "CI[bot]"],
                      "ignore_author"),
}


@pytest.mark.parametrize("flags, reason", PR_FILTERS.values(), ids=list(PR_FILTERS))
def test_filters_apply_to_every_kind_of_a_pr_round(pull, env, root, flags, reason):
    r = check(env, root, *flags, number=("--pr", PR))
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["new_comments"]) == [pull["bob"]]
    assert ids(doc["new_reviews"]) == [pull["approval"]]
    assert ids(doc["new_review_comments"]) == [pull["human_inline"]]
    assert doc["has_updates"] is True
    assert nonzero(doc["filtered_out"]) == {"conversation": {reason: 1},
                                            "reviews": {reason: 1},
                                            "review_comments": {reason: 1}}
    assert doc["recommended_checkpoint"]["conversation"]["last_comment_id"] == pull["ci"]
    # the round can be confirmed past the left-out ones
    c = latest(env, root, "--confirm-updates", "--snapshot-id", doc["snapshot_id"],
               number=("--pr", PR))
    assert c.code == 0 and c.json["state_updated"] is True, c
    r = check(env, root, *flags, number=("--pr", PR))
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert nonzero(r.json.get("filtered_out") or {}) == {}


def test_a_pr_round_with_only_left_out_feedback_has_no_updates(fake, env, root):
    fake.add_repo(OWNER, "hello")
    fake.add_pull(OWNER, "hello", PR)
    say(fake, "ci[bot]", user_type="Bot", number=PR)
    review = fake.add_review(OWNER, "hello", PR, "coderabbitai[bot]", "COMMENTED",
                             body="Summary", user_type="Bot")["id"]
    r = check(env, root, "--humans-only", number=("--pr", PR))
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is False
    assert doc["new_comments"] == doc["new_reviews"] == doc["new_review_comments"] == []
    assert nonzero(doc["filtered_out"]) == {"conversation": {"humans_only": 1},
                                            "reviews": {"humans_only": 1}}
    assert doc["recommended_checkpoint"]["reviews"]["last_review_id"] == review


def test_pr_reads_by_id_ignore_the_filters(pull, env, root):
    flags = ["--humans-only", "--ignore-author", "coderabbitai", "--ignore-author", "ci"]
    r = latest(env, root, "--review-id", pull["bot_review"], *flags, number=("--pr", PR))
    assert r.code == 0, r
    assert ids(r.json["reviews"]) == [pull["bot_review"]]
    assert ids(r.json["review_comments"]) == [pull["bot_inline"]]
    r = latest(env, root, "--review-comment-id", pull["bot_inline"], *flags,
               number=("--pr", PR))
    assert r.code == 0 and ids(r.json["review_comments"]) == [pull["bot_inline"]], r
    r = latest(env, root, "--comment-id", pull["ci"], *flags, number=("--pr", PR))
    assert r.code == 0 and ids(r.json["comments"]) == [pull["ci"]], r


# -- the writer tells whom to ignore ------------------------------------------------------------

def write(env, *args, body=b"hello"):
    return run_script("manage_issue_comment.py", "--repo", REPOSITORY, "--body-file", "-",
                      *args, env=env, stdin=body)


def test_the_writer_returns_the_login_that_posted(issue):
    env = script_env(issue, token="ghp_writerTokenOfHubot0000000000000000000", login="hubot")
    r = write(env, "--action", "create", "--issue", ISSUE)
    assert r.code == 0, r
    assert r.json["author"] == "hubot"
    assert issue.get_comment(int(r.json["commentId"]))["user"]["login"] == "hubot"
    r = write(env, "--action", "update", "--comment-id", r.json["commentId"], body=b"edited")
    assert r.code == 0 and r.json["author"] == "hubot", r


def test_the_writer_dry_run_has_a_null_author(issue):
    r = write(script_env(issue), "--action", "create", "--issue", ISSUE, "--dry-run")
    assert r.code == 0, r
    assert "author" in r.json and r.json["author"] is None
    assert issue.requests == []


def test_the_author_of_a_posted_comment_is_what_ignore_author_takes(issue, env, root):
    posted = write(env, "--action", "create", "--issue", ISSUE, body=b"my question")
    assert posted.code == 0, posted
    reply = say(issue, "reporter")
    r = check(env, root, "--ignore-author", posted.json["author"])
    assert r.code == 0 and ids(r.json["new_comments"]) == [reply], r
    stored = json.loads(Path(r.json["updates_file"]).read_text())
    assert ids(stored["new_comments"]) == [reply]
