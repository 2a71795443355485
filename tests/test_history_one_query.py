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

from tests.support import OWNER, Agent, by_key, follow_args, inbox, latest, script_env

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


# --------------------------------------------------------------------------- the inbox


def three_rounds(gh):
    """Two issues and a pull request, each with comments (the PR: inline ones too)."""
    gh.add_issue(OWNER, NAME, 5, title="Bug")
    gh.add_issue(OWNER, NAME, 9, title="Other")
    gh.add_pull(OWNER, NAME, PR, title="Add the parser", user="octocat")
    made = {5: gh.add_comments(OWNER, NAME, 5, 2, user="carol"),
            9: gh.add_comments(OWNER, NAME, 9, 2, user="dave"),
            PR: gh.add_comments(OWNER, NAME, PR, 1, user="bob")}
    inline = inline_comments(gh, PR, 2)
    keys = [f"{OWNER}/{NAME}/issues/5", f"{OWNER}/{NAME}/issues/9",
            f"{OWNER}/{NAME}/pull/{PR}"]
    return made, inline, keys


def test_an_inbox_of_three_rounds_with_edits_sends_one_history_query(gh, tmp_path):
    made, inline, keys = three_rounds(gh)
    settle_inbox(gh, tmp_path, keys)  # handled and confirmed without the flag
    handled = {i: gh.get_comment(i)["body"] for i in (made[5][0], made[9][1], made[PR][0])}

    gh.clock = now() + dt.timedelta(minutes=10)
    gh.edit_comment(made[5][0], "carol changed her mind")
    gh.edit_comment(made[9][1], "dave changed his", editor="octo")
    gh.edit_comment(made[PR][0], "bob too")
    gh.edit_review_comment(inline[0], "inline changed")
    gh.touch_comment(inline[1])  # no body edit
    r = inbox(gh, tmp_path, "--followed", FLAG)
    assert r.code == 0, r
    rounds = by_key(r.json)
    assert sorted(rounds) == sorted(keys)
    expect = {keys[0]: (made[5][0], "carol changed her mind", "carol"),
              keys[1]: (made[9][1], "dave changed his", "octo"),
              keys[2]: (made[PR][0], "bob too", "bob")}
    for key, (cid, body, by) in expect.items():
        [item] = rounds[key]["edited_comments"]
        assert item["id"] == cid and item["body"] == body and item["edited_by"] == by
        assert item["previous_body"] == handled[cid]
        assert item["previous_body_source"] == "as_of"
    [line] = rounds[keys[2]]["edited_review_comments"]
    assert line["id"] == inline[0] and line["previous_body"] == "note 0"
    assert line["previous_body_source"] == "as_of"
    assert rounds[keys[2]]["filtered_out"]["edited_no_change"] == 1
    [ids_asked] = asked(gh)  # one query for the candidates of the three rounds
    assert sorted(ids_asked) == sorted(
        [gh.get_comment(i)["node_id"] for i in (made[5][0], made[9][1], made[PR][0])]
        + [gh.get_review_comment(i)["node_id"] for i in inline])
    # the query's request is counted once, in the first round that asked
    assert r.json["requests"] == len([q for q in gh.requests if q.path != "/rate_limit"])
    assert sum(c["requests"] for c in r.json["conversations"]) == r.json["requests"]


def test_the_inbox_asks_one_query_per_100_candidates_of_all_its_rounds(gh, tmp_path):
    gh.add_issue(OWNER, NAME, 5, title="Bug")
    gh.add_issue(OWNER, NAME, 9, title="Other")
    made = {n: gh.add_comments(OWNER, NAME, n, 60, user="carol", step_seconds=1)
            for n in (5, 9)}
    keys = [f"{OWNER}/{NAME}/issues/{n}" for n in (5, 9)]
    for _ in range(4):
        r = inbox(gh, tmp_path, *follow_args(keys), "--limit", 100, "--max-total", 500)
        assert r.code == 0, r
        if not r.json["conversations"]:
            break
        latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    gh.clock = now() + dt.timedelta(minutes=10)
    for n in (5, 9):
        for i in made[n]:
            gh.edit_comment(i, f"{i} edited")
    r = inbox(gh, tmp_path, "--followed", FLAG, "--limit", 100, "--max-total", 500)
    assert r.code == 0, r
    rounds = by_key(r.json)
    for n, key in zip((5, 9), keys):
        assert ids(rounds[key]["edited_comments"]) == made[n]
        assert all(c["previous_body_source"] == "as_of"
                   for c in rounds[key]["edited_comments"])
    assert [len(a) for a in asked(gh)] == [100, 20]


def test_an_inbox_graphql_failure_is_said_by_each_round_that_asked(gh, tmp_path):
    made, _inline, keys = three_rounds(gh)
    settle_inbox(gh, tmp_path, keys)
    gh.clock = now() + dt.timedelta(minutes=10)
    gh.edit_comment(made[5][0], "changed")
    gh.edit_comment(made[9][0], "changed too")
    gh.inject("POST", r"/graphql$", times=None, status=502)
    r = inbox(gh, tmp_path, "--followed", FLAG)
    assert r.code == 0, r
    rounds = by_key(r.json)
    assert sorted(rounds) == keys[:2] and r.json["quiet"] == [keys[2]]
    for key in keys[:2]:
        [item] = rounds[key]["edited_comments"]
        assert item["previous_body"] is None
        assert item["previous_body_source"] == "graphql_unavailable"
        assert len([w for w in rounds[key]["warnings"]
                    if "could not be read over GraphQL" in w]) == 1
    # one query (sent three times: the retries of a 502) for both rounds' candidates
    both = sorted(gh.get_comment(i)["node_id"] for i in (made[5][0], made[9][0]))
    assert [sorted(a) for a in asked(gh)] == [both] * 3


# --------------------------------------------------------------------------- the inbox's wait


def confirm_inbox(gh, root, r):
    c = latest(gh, root, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0, c
    return c


def test_an_inbox_wait_asks_the_history_once_a_poll(gh, tmp_path):
    """Each poll of an inbox wait reads every round up to its candidates, asks once for all of
    them, then finishes each (turn 6: one query per command, the wait's polls included)."""
    made, inline, keys = three_rounds(gh)
    settle_inbox(gh, tmp_path, keys)
    first = inbox(gh, tmp_path, "--followed", FLAG)  # the flag's first look: idle from then on
    assert first.code == 0 and first.json["conversations"] == [], first.json
    if first.json["snapshot_id"]:
        confirm_inbox(gh, tmp_path, first)
    handled = {i: gh.get_comment(i)["body"] for i in (made[5][0], made[PR][0])}
    hits = []

    def edit_at_the_second_poll(entry):  # before round 5's lists are read in poll 2
        if entry.method != "GET":
            return
        if entry.path.endswith(f"/issues/{PR}/comments"):  # the last round of a poll
            hits.append(entry.path)
        elif entry.path.endswith("/issues/5/comments") and hits and not done:
            done.append(True)
            gh.clock = now() + dt.timedelta(minutes=10)
            gh.edit_comment(made[5][0], "carol changed her mind")
            gh.edit_comment(made[PR][0], "bob too")
            gh.edit_review_comment(inline[1], "inline changed")

    done = []
    gh.on_request(edit_at_the_second_poll)
    env = dict(script_env(gh), GH_MONITOR_TEST_TIME_SCALE="0.01")
    try:
        r = inbox(gh, tmp_path, "--followed", FLAG, "--wait", 600, "--poll-interval", 5,
                  env=env)
    finally:
        gh.clear_hooks()
    assert r.code == 0, r
    assert r.json["polls"] == 2 and r.json["has_updates"] is True, r.json
    rounds = by_key(r.json)
    assert sorted(rounds) == [keys[0], keys[2]] and r.json["quiet"] == [keys[1]]
    [five] = rounds[keys[0]]["edited_comments"]
    [talk] = rounds[keys[2]]["edited_comments"]
    [line] = rounds[keys[2]]["edited_review_comments"]
    assert (five["id"], five["previous_body"]) == (made[5][0], handled[made[5][0]])
    assert (talk["id"], talk["previous_body"]) == (made[PR][0], handled[made[PR][0]])
    assert (line["id"], line["previous_body"]) == (inline[1], "note 1")
    [ids_asked] = asked(gh)  # one query in the poll that found them (before: one a round)
    assert sorted(ids_asked) == sorted(
        [gh.get_comment(i)["node_id"] for i in (made[5][0], made[PR][0])]
        + [gh.get_review_comment(inline[1])["node_id"]])
    assert r.json["requests"] == len([q for q in gh.requests if q.path != "/rate_limit"])
    confirm_inbox(gh, tmp_path, r)
    again = inbox(gh, tmp_path, "--followed", FLAG)
    assert again.code == 0 and again.json["conversations"] == [], again.json  # never twice


def test_an_inbox_wait_stopped_before_the_shared_query_loses_no_edit(gh, tmp_path):
    """The wait's end comes while its poll reads the rounds (a slow answer): the rounds read up
    to the shared query are put back to their last reading — nothing is returned half-way,
    no query is sent after the end — and the next check returns each edit once."""
    made, _inline, keys = three_rounds(gh)
    settle_inbox(gh, tmp_path, keys)
    gh.clock = now() + dt.timedelta(minutes=10)
    gh.edit_comment(made[5][0], "carol changed her mind")
    gh.inject("GET", r"/issues/9/comments$", times=1, mode="delay", delay=2.5)  # past S
    r = inbox(gh, tmp_path, "--followed", FLAG, "--wait", 1, "--poll-interval", 5)
    assert r.code == 0, r
    assert asked(gh) == []  # nothing asked after the end
    assert r.json["has_updates"] is False, r.json
    assert not [c for c in r.json["conversations"] if c.get("edited_comments")], r.json
    assert keys[0] in r.json["more_in"], r.json  # read again next time
    assert not [q for q in gh.requests if f"/pulls/{PR}" in q.path or f"/issues/{PR}/" in q.path]
    if r.json["snapshot_id"]:
        confirm_inbox(gh, tmp_path, r)
    after = inbox(gh, tmp_path, "--followed", FLAG)
    assert after.code == 0, after
    rounds = by_key(after.json)
    assert list(rounds) == [keys[0]], after.json
    [item] = rounds[keys[0]]["edited_comments"]
    assert item["id"] == made[5][0] and item["body"] == "carol changed her mind"
    assert len(asked(gh)) == 1
    confirm_inbox(gh, tmp_path, after)
    again = inbox(gh, tmp_path, "--followed", FLAG)
    assert again.code == 0 and again.json["conversations"] == [], again.json
