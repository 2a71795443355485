"""Section 19, one query per command (CONTRACT amendments, turn 6): the edit-history GraphQL
query covers every candidate of the command — a pull request's conversation and inline
comments, and in the inbox every round's — in one query per 100. Run as an agent runs it:
subprocesses against the fake GitHub, the queries counted in the fake's log. The decisions stay
exact: an `updated_at` bump that is no body edit is still left out (`edited_no_change`) and
does not count against --limit, and a GraphQL failure is reported by each round that asked.
"""

from __future__ import annotations

import datetime as dt

import pytest

from tests.support import OWNER, Agent, follow_args, inbox, latest

NAME = "hello"
PR = 12
FLAG = "--include-edits"


def ids(items):
    return [x["id"] for x in items]


def now():
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def history_queries(fake):
    return [q for q in fake.requests if q.path == "/graphql"
            and "EditHistory" in (q.json() or {}).get("query", "")]


def asked(fake):
    """The node ids of every history query, in order of the queries."""
    return [q.json()["variables"]["ids"] for q in history_queries(fake)]


def settle(agent, *args):
    """Check and confirm until a confirm is already applied (handled, without the flag)."""
    for _ in range(5):
        r = agent.check(*args)
        assert r.code == 0, r
        c = agent.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        if not r.json["has_updates"] and not r.json["more_available"] and \
                c.json["already_applied"]:
            return r.json
    raise AssertionError("the round did not settle")


def settle_inbox(fake, root, keys):
    for _ in range(5):
        r = inbox(fake, root, *follow_args(keys))
        assert r.code == 0, r
        if not r.json["conversations"]:
            return
        c = latest(fake, root, "--followed", "--confirm-updates", "--snapshot-id",
                   r.json["snapshot_id"])
        assert c.code == 0, c
    raise AssertionError("the inbox did not settle")


@pytest.fixture
def gh(fake):
    fake.clock = now() - dt.timedelta(hours=1)  # the rounds' data: before GitHub's Date
    fake.add_repo(OWNER, NAME)
    return fake


def inline_comments(fake, number, n, user="carol"):
    comments = [{"path": f"src/mod{i}.py", "line": 10 + i, "body": f"note {i}"}
                for i in range(n)]
    started = fake.start_review(OWNER, NAME, number, user, body="see notes",
                                comments=comments)
    fake.advance(60)
    fake.submit_review(started["id"], state="COMMENTED")
    fake.advance(60)
    return list(started["comment_ids"])


# --------------------------------------------------------------------------- one round


def test_a_pull_requests_conversation_and_inline_edits_share_one_history_query(gh, tmp_path):
    gh.add_pull(OWNER, NAME, PR, title="Add the parser", user="octocat")
    agent = Agent(gh, tmp_path, "--pr", PR)
    inline = inline_comments(gh, PR, 2)
    talk = gh.add_comments(OWNER, NAME, PR, 2, user="bob")
    handled = {"talk": gh.get_comment(talk[0])["body"]}
    settle(agent)  # handled and confirmed without the flag

    gh.clock = now() + dt.timedelta(minutes=10)  # the edits: after the round was read
    gh.edit_comment(talk[0], "bob changed his mind")
    gh.advance(10)
    gh.edit_review_comment(inline[1], "note 1, but rename this")
    gh.advance(10)
    gh.touch_comment(inline[0])  # an updated_at bump, not a body edit
    r = agent.check(FLAG)
    assert r.code == 0, r
    doc = r.json
    [conv] = doc["edited_comments"]
    [line] = doc["edited_review_comments"]
    assert conv["id"] == talk[0] and conv["body"] == "bob changed his mind"
    assert conv["previous_body"] == handled["talk"] and conv["edited_by"] == "bob"
    assert conv["previous_body_source"] == "as_of"
    assert line["id"] == inline[1] and line["body"] == "note 1, but rename this"
    assert line["previous_body"] == "note 1" and line["edited_by"] == "carol"
    assert line["previous_body_source"] == "as_of"
    assert doc["filtered_out"]["edited_no_change"] == 1
    # one query for the candidates of both lists (before turn 6: one per list)
    [ids_asked] = asked(gh)
    assert sorted(ids_asked) == sorted([gh.get_comment(talk[0])["node_id"]]
                                       + [gh.get_review_comment(i)["node_id"] for i in inline])
    assert not [w for w in doc["warnings"] if "GraphQL" in w]


def test_limit_counts_what_the_shared_history_leaves(gh, tmp_path):
    """The shared query keeps each list's decision exact: a bump that is no body edit is left
    out before --limit counts, in each list."""
    gh.add_pull(OWNER, NAME, PR, title="Add the parser", user="octocat")
    agent = Agent(gh, tmp_path, "--pr", PR)
    inline = inline_comments(gh, PR, 3)
    talk = gh.add_comments(OWNER, NAME, PR, 3, user="bob")
    settle(agent, "--limit", 10)
    gh.clock = now() + dt.timedelta(minutes=10)
    gh.touch_comment(inline[0])  # bumps: the lowest ids, no body edit
    gh.touch_comment(talk[0])
    gh.advance(10)
    gh.edit_review_comment(inline[1], "inline edited")
    gh.edit_comment(talk[1], "talk edited")
    r = agent.check(FLAG, "--limit", 1)
    assert r.code == 0, r
    doc = r.json
    assert ids(doc["edited_comments"]) == [talk[1]]
    assert ids(doc["edited_review_comments"]) == [inline[1]]
    assert doc["edited_comments"][0]["previous_body_source"] == "as_of"
    assert doc["filtered_out"]["edited_no_change"] == 2
    assert len(history_queries(gh)) == 1


def test_a_graphql_failure_is_reported_by_the_lists_that_asked(gh, tmp_path):
    gh.add_pull(OWNER, NAME, PR, title="Add the parser", user="octocat")
    agent = Agent(gh, tmp_path, "--pr", PR)
    inline = inline_comments(gh, PR, 1)
    talk = gh.add_comments(OWNER, NAME, PR, 1, user="bob")
    settle(agent)
    gh.clock = now() + dt.timedelta(minutes=10)
    gh.edit_comment(talk[0], "changed")
    gh.edit_review_comment(inline[0], "changed too")
    gh.inject("POST", r"/graphql$", times=None, status=502)
    r = agent.check(FLAG)
    assert r.code == 0, r
    doc = r.json
    for item in doc["edited_comments"] + doc["edited_review_comments"]:
        assert item["previous_body"] is None
        assert item["previous_body_source"] == "graphql_unavailable"
    assert ids(doc["edited_comments"]) == talk and ids(doc["edited_review_comments"]) == inline
    assert len([w for w in doc["warnings"] if "could not be read over GraphQL" in w]) == 1
