"""Edits asked after the fact (issue 29; CONTRACT section 19 as amended, turn 5), run as an
agent runs it: subprocesses against the fake GitHub, request counts from the fake's log.

A round handled and confirmed without `--include-edits`; then comments are edited; the user
asks "what changed?". One flagged check answers: exactly the edited items, each with its
current body, `previous_body` (the text the agent handled, from GitHub's edit history),
`edited_by` and `last_edited_at`, from one GraphQL query; an `updated_at` bump that is no body
edit is left out (`filtered_out.edited_no_change`). Confirmed, the next flagged check reports
nothing and its idle poll is all 304 within section 19's bound, with no GraphQL. The same for
an issue round, through the inbox, and for a checkpoint written before this change (no
`read_at`: `saved_at` minus 10 minutes, with a warning).

The fake's data clock is set an hour behind its `Date` (GitHub's clock) while the round is
handled and ten minutes ahead of it for the edits, so "created before the round was read" and
"edited after it" hold on both clocks.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.support import OWNER, Agent, follow_args, inbox, latest, state_dir

NAME = "hello"
ISSUE, PR = 5, 12
FLAG = "--include-edits"


def ids(items):
    return [x["id"] for x in items]


def now():
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def iso(when):
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def history_queries(fake):
    return [q for q in fake.requests if q.path == "/graphql"
            and "EditHistory" in (q.json() or {}).get("query", "")]


def graphql(fake):
    return [q for q in fake.requests if q.path == "/graphql"]


def statuses(fake):
    return [q.status for q in fake.requests if q.path != "/rate_limit"]


def settle(agent, *args):
    """Check and confirm until a check returns nothing and the checkpoint does not move."""
    for _ in range(5):
        r = agent.check(*args)
        assert r.code == 0, r
        doc = r.json
        if not doc["has_updates"] and not doc["more_available"]:
            c = agent.confirm(doc["snapshot_id"])
            assert c.code == 0, c
            if c.json["already_applied"]:
                return doc
            continue
        c = agent.confirm(doc["snapshot_id"])
        assert c.code == 0, c
    raise AssertionError("the round did not settle")


def checkpoint(agent):
    return json.loads(agent.file().read_text())


def assert_edited(item, body, previous, by, fake_item):
    assert item["body"] == body
    assert item["previous_body"] == previous
    assert item["previous_body_source"] == "as_of"  # created before the round was read
    assert item["edited_by"] == by
    assert item["last_edited_at"] == fake_item["updated_at"]  # the last body edit
    assert item["previous_body_chars"] == len(previous)
    assert item["previous_hidden_characters"] == 0 and item["previous_body_truncated"] is False


# --------------------------------------------------------------------------- a pull request


@pytest.fixture
def pr(fake):
    fake.clock = now() - dt.timedelta(hours=1)  # the round's data: before GitHub's Date
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user="octocat")
    return fake


def carols_review(fake):
    comments = [{"path": f"src/mod{i}.py", "line": 10 + i, "body": f"note {i}"}
                for i in range(3)]
    started = fake.start_review(OWNER, NAME, PR, "carol", body="see notes", comments=comments)
    fake.advance(60)
    fake.submit_review(started["id"], state="COMMENTED")
    fake.advance(60)
    return list(started["comment_ids"])


def test_carols_edits_after_a_round_confirmed_without_the_flag(pr, tmp_path):
    agent = Agent(pr, tmp_path, "--pr", PR)
    inline = carols_review(pr)
    pr.add_comment(OWNER, NAME, PR, "a conversation comment", user="bob")
    settle(agent)  # handled and confirmed without --include-edits
    cp = checkpoint(agent)
    assert cp["read_at"] and cp["tracked_since"]  # GitHub's Date of the confirmed read
    assert "read_at" not in (cp.get("reviews") or {})  # top-level, never part of a cursor

    pr.clock = now() + dt.timedelta(minutes=10)  # the edits: after the round was read
    pr.edit_review_comment(inline[0], "note 0, but rename this")
    pr.advance(30)
    pr.edit_review_comment(inline[0], "note 0, but rename this and that")  # twice
    pr.advance(30)
    pr.edit_review_comment(inline[2], "never mind, it was correct")
    pr.advance(30)
    pr.touch_comment(inline[1])  # an updated_at bump, not a body edit

    r = agent.check(FLAG)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["edited_review_comments"]) == [inline[0], inline[2]]
    assert doc["edited_review_comment_count"] == 2 and doc["edited_comments"] == []
    assert doc["new_review_comments"] == [] and doc["new_reviews"] == []
    assert doc["has_updates"] is True
    first, third = doc["edited_review_comments"]
    assert_edited(first, "note 0, but rename this and that", "note 0", "carol",
                  pr.get_review_comment(inline[0]))
    assert_edited(third, "never mind, it was correct", "note 2", "carol",
                  pr.get_review_comment(inline[2]))
    assert doc["filtered_out"]["edited_no_change"] == 1
    assert len(history_queries(pr)) == 1  # one query for the three candidates
    assert sorted(history_queries(pr)[0].json()["variables"]["ids"]) == sorted(
        pr.get_review_comment(i)["node_id"] for i in inline)
    assert not [w for w in doc["warnings"] if "saved_at" in w]

    c = agent.confirm(doc["snapshot_id"])
    assert c.code == 0 and c.json["state_updated"] is True, c
    cp = checkpoint(agent)
    # W is set on both lists; tracked_since stays until the event cursor is set too (section
    # 21 answers the first ask of events from it: test_include_events.py)
    assert cp["tracked_since"] and cp["read_at"] and "events" not in cp["conversation"]
    assert cp["reviews"]["edits"]["through"] and cp["conversation"]["edits"]["through"]

    again = settle(agent, FLAG)
    assert again["edited_review_comments"] == [] and again["edited_comments"] == []
    r = agent.check(FLAG)  # the idle poll
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert statuses(pr) == [304] * 4  # section 19: at most one more per list, all 304
    assert graphql(pr) == []


# --------------------------------------------------------------------------- an issue


@pytest.fixture
def issue(fake):
    fake.clock = now() - dt.timedelta(hours=1)
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    return fake


def test_an_issue_rounds_edits_after_the_fact(issue, tmp_path):
    agent = Agent(issue, tmp_path, "--issue", ISSUE)
    made = issue.add_comments(OWNER, NAME, ISSUE, 3, user="carol")
    bodies = {i: issue.get_comment(i)["body"] for i in made}
    settle(agent)
    issue.clock = now() + dt.timedelta(minutes=10)
    issue.edit_comment(made[0], "LGTM, but rename this")
    issue.advance(5)
    issue.edit_comment(made[1], "edited by a maintainer", editor="octo")
    r = agent.check(FLAG)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["edited_comments"]) == made[:2] and doc["new_comments"] == []
    a, b = doc["edited_comments"]
    assert_edited(a, "LGTM, but rename this", bodies[made[0]], "carol",
                  issue.get_comment(made[0]))
    assert_edited(b, "edited by a maintainer", bodies[made[1]], "octo",
                  issue.get_comment(made[1]))
    assert len(history_queries(issue)) == 1
    c = agent.confirm(doc["snapshot_id"])
    assert c.code == 0 and c.json["state_updated"] is True, c
    assert settle(agent, FLAG)["edited_comments"] == []
    r = agent.check(FLAG)
    assert r.code == 0 and r.json["has_updates"] is False
    assert statuses(issue) == [304, 304] and graphql(issue) == []


def test_a_graphql_failure_reports_the_edits_without_their_history(issue, tmp_path):
    agent = Agent(issue, tmp_path, "--issue", ISSUE)
    made = issue.add_comments(OWNER, NAME, ISSUE, 2, user="carol")
    settle(agent)
    issue.clock = now() + dt.timedelta(minutes=10)
    issue.edit_comment(made[1], "changed")
    issue.inject("POST", r"/graphql$", times=None, status=502)
    r = agent.check(FLAG)
    assert r.code == 0, r
    [item] = r.json["edited_comments"]
    assert item["id"] == made[1] and item["body"] == "changed"
    assert item["previous_body"] is None and item["edited_by"] is None
    assert item["last_edited_at"] is None
    assert item["previous_body_source"] == "graphql_unavailable"
    assert [w for w in r.json["warnings"] if "GraphQL" in w]


def test_a_checkpoint_written_before_read_at_falls_back_to_saved_at(issue, tmp_path):
    agent = Agent(issue, tmp_path, "--issue", ISSUE)
    made = issue.add_comments(OWNER, NAME, ISSUE, 3, user="carol")
    settle(agent)
    cp = checkpoint(agent)
    for key in ("read_at", "tracked_since"):  # as an older version wrote it
        cp.pop(key)
    cp["saved_at"] = iso(now())
    agent.file().write_text(json.dumps(cp))
    issue.clock = now() + dt.timedelta(minutes=10)
    issue.edit_comment(made[2], "edited after the old checkpoint")
    r = agent.check(FLAG)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["edited_comments"]) == [made[2]]
    assert doc["edited_comments"][0]["body"] == "edited after the old checkpoint"
    assert [w for w in doc["warnings"] if "saved_at minus 10 minutes" in w]
    c = agent.confirm(doc["snapshot_id"])
    assert c.code == 0, c
    assert agent.check(FLAG).json["edited_comments"] == []


# --------------------------------------------------------------------------- the inbox


def test_edits_after_the_fact_through_the_inbox(issue, tmp_path):
    issue.add_issue(OWNER, NAME, 9, title="Other")
    made = issue.add_comments(OWNER, NAME, ISSUE, 2, user="carol")
    other = issue.add_comments(OWNER, NAME, 9, 2, user="dave")
    keys = [f"{OWNER}/{NAME}/issues/{n}" for n in (ISSUE, 9)]
    for _ in range(4):  # settle without the flag
        r = inbox(issue, tmp_path, *follow_args(keys))
        assert r.code == 0, r
        if not r.json["conversations"]:
            break
        c = latest(issue, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   r.json["snapshot_id"])
        assert c.code == 0, c
    data = json.loads((state_dir(tmp_path) / "inbox-updates.json").read_text())
    assert all(e.get("read_at") for s in data["snapshots"] for e in s["rounds"])
    handled = issue.get_comment(made[0])["body"]
    issue.clock = now() + dt.timedelta(minutes=10)
    issue.edit_comment(made[0], "carol changed her mind")
    r = inbox(issue, tmp_path, "--followed", FLAG)
    assert r.code == 0, r
    rounds = {c["key"]: c for c in r.json["conversations"]}
    assert list(rounds) == [keys[0]] and r.json["quiet"] == [keys[1]]
    [item] = rounds[keys[0]]["edited_comments"]
    assert item["id"] == made[0] and item["body"] == "carol changed her mind"
    assert item["previous_body"] == handled
    assert item["previous_body_source"] == "as_of" and item["edited_by"] == "carol"
    assert len(history_queries(issue)) == 1
    c = latest(issue, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0, c
    for _ in range(3):
        r = inbox(issue, tmp_path, "--followed", FLAG)
        assert r.code == 0, r
        assert all(not c.get("edited_comments") for c in r.json["conversations"])
        if not r.json["conversations"]:
            break
        latest(issue, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert graphql(issue) == [] and other


# --------------------------------------------------------------------------- get_pr_comments.py


def test_get_pr_comments_gives_updated_at_and_last_edited_at(pr, tmp_path):
    from tests.support import REPOSITORY, run_script, script_env

    inline = carols_review(pr)
    conv = pr.add_comment(OWNER, NAME, PR, "a conversation comment", user="bob")["id"]
    pr.advance(60)
    pr.edit_review_comment(inline[0], "note 0, edited")
    pr.advance(60)
    pr.touch_comment(inline[1])  # updated_at moves, no body edit
    pr.edit_comment(conv, "a conversation comment, edited")
    r = run_script("get_pr_comments.py", "--repo", REPOSITORY,
                   "--pr", PR, "--format", "json", env=script_env(pr))
    assert r.code == 0, r
    by_id = {c["id"]: c for t in r.json["reviewThreads"] for c in t["comments"]}
    by_id.update({c["id"]: c for c in r.json["timelineComments"]})
    edited, touched, plain = (by_id[i] for i in inline)
    fake_edited = pr.get_review_comment(inline[0])
    assert edited["updatedAt"] == fake_edited["updated_at"]
    assert edited["lastEditedAt"] == fake_edited["updated_at"]  # GraphQL: a body edit
    assert touched["updatedAt"] == pr.get_review_comment(inline[1])["updated_at"]
    assert touched["lastEditedAt"] is None and touched["updatedAt"] != touched["createdAt"]
    assert plain["lastEditedAt"] is None and plain["updatedAt"] == plain["createdAt"]
    # a conversation comment comes over REST: its updated_at, no lastEditedAt there
    assert by_id[conv]["updatedAt"] == pr.get_comment(conv)["updated_at"]
    assert by_id[conv]["lastEditedAt"] is None
    review = [c for c in r.json["timelineComments"] if c["commentType"] == "review"][0]
    assert review["updatedAt"] is None and review["lastEditedAt"] is None


# --------------------------------------------------------------------------- the sources


def test_the_hash_given_finds_the_handled_revision_and_a_deleted_one_is_said(issue, tmp_path):
    agent = Agent(issue, tmp_path, "--issue", ISSUE)
    made = issue.add_comments(OWNER, NAME, ISSUE, 3, user="carol")
    issue.edit_comment(made[0], "edited before the round was read")  # given edited: a hash
    issue.edit_comment(made[1], "also edited before the round was read")
    settle(agent)
    issue.clock = now() + dt.timedelta(minutes=10)
    issue.edit_comment(made[0], "edited again after")
    issue.edit_comment(made[1], "edited again after, too")
    issue.delete_revision(made[1], 1)  # the revision the agent was given
    r = agent.check(FLAG)
    assert r.code == 0, r
    a, b = r.json["edited_comments"]
    assert (a["id"], a["previous_body"], a["previous_body_source"]) == (
        made[0], "edited before the round was read", "seen")
    assert (b["id"], b["previous_body"], b["previous_body_source"]) == (
        made[1], None, "revision_deleted")
    assert b["body"] == "edited again after, too" and b["edited_by"] == "carol"


def test_one_history_query_per_100_candidates(issue, tmp_path):
    agent = Agent(issue, tmp_path, "--issue", ISSUE)
    made = issue.add_comments(OWNER, NAME, ISSUE, 150, user="carol", step_seconds=1)
    settle(agent, "--limit", 200)
    issue.clock = now() + dt.timedelta(minutes=10)
    for i in made:
        issue.edit_comment(i, f"{i} edited")
    r = agent.check(FLAG, "--limit", 200)
    assert r.code == 0, r
    assert ids(r.json["edited_comments"]) == made
    assert all(c["previous_body_source"] == "as_of" for c in r.json["edited_comments"])
    queries = history_queries(issue)
    assert [len(q.json()["variables"]["ids"]) for q in queries] == [100, 50]
