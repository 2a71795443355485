"""Adversarial review 2 of the inbox with pull-request rounds and `--include-edits`
(CONTRACT sections 14, 18, 19 as amended in turn 5, and 22). Each test proves one defect and
fails on main at the commit it was written against; scripts run as subprocesses against the
fake GitHub, request counts from the fake's log."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.support import NAME, OWNER, Agent, by_key, follow_args, inbox, latest

FLAG = "--include-edits"
ISSUE, PR = 5, 7
KEY_I = f"{OWNER}/{NAME}/issues/{ISSUE}"
KEY_P = f"{OWNER}/{NAME}/pull/{PR}"


def now():
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def ids(items):
    return [x["id"] for x in items]


def graphql(fake):
    return [q for q in fake.requests if q.path == "/graphql"]


def statuses(fake):
    return [(q.method, q.path, q.status) for q in fake.requests if q.path != "/rate_limit"]


@pytest.fixture
def gh(fake):
    fake.clock = now()
    fake.date_follows_clock = True
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    fake.made_i = fake.add_comments(OWNER, NAME, ISSUE, 3)
    fake.add_pull(OWNER, NAME, PR, title="PR", user="octocat")
    fake.made_p = fake.add_comments(OWNER, NAME, PR, 2)
    fake.review_order = "id"
    return fake


def check(fake, root, keys, *flags):
    r = inbox(fake, root, *follow_args(keys), *flags)
    assert r.code == 0, r
    return r.json


def confirm(fake, root, snapshot, *flags):
    c = latest(fake, root, "--followed", "--confirm-updates", "--snapshot-id", snapshot, *flags)
    assert c.code == 0, c
    return c.json


def settle(fake, root, keys, *flags):
    for _ in range(5):
        doc = check(fake, root, keys, *flags)
        c = confirm(fake, root, doc["snapshot_id"])
        if not doc["conversations"] and c["confirmed"] == []:
            return doc
    raise AssertionError("did not settle")


def assert_idle(fake, root, keys, *flags):
    doc = check(fake, root, keys, *flags)
    assert doc["has_updates"] is False and doc["conversations"] == [], doc
    assert {s for _m, _p, s in statuses(fake)} == {304}, statuses(fake)
    assert graphql(fake) == []
    return doc



def carol(fake, n=2, submitted_at=None, submit=True):
    comments = [{"path": f"src/m{i}.py", "line": 10 + i, "body": f"note {i}"} for i in range(n)]
    started = fake.start_review(OWNER, NAME, PR, "carol", body="see notes", comments=comments)
    if submit:
        fake.advance(30)
        fake.submit_review(started["id"], state="COMMENTED", submitted_at=submitted_at)
    return started


@pytest.mark.parametrize("kind", ["issue", "pr"])
@pytest.mark.parametrize("replaced_by", ["inbox_max_total", "round_limit"])
def test_a_round_confirm_of_a_snapshot_a_later_cut_check_replaced_answers_already_applied(
        gh, tmp_path, kind, replaced_by):
    """Section 6: a confirm with `--snapshot-id S` is refused (exit 7) when the updates file
    now holds another snapshot, and "already applied" only when the stored checkpoint equals
    what S would write. The agent reads S (five new comments), a later cut check (the inbox's
    `--max-total 1`, or the round's own `--limit 1`) replaces the round's updates file and is
    confirmed; the confirm of S then answers `already_applied: true`, exit 0 — it compared the
    stored checkpoint with the *file's* snapshot, not S. The agent, told its five comments are
    confirmed, is handed four of them again by the next check (returned twice)."""
    flag, number, key = (("--issue", ISSUE, KEY_I) if kind == "issue"
                         else ("--pr", PR, KEY_P))
    settle(gh, tmp_path, [key])
    gh.advance(60)
    new = gh.add_comments(OWNER, NAME, number, 5)
    agent = Agent(gh, tmp_path, flag, number)
    r = agent.check()
    assert r.code == 0 and ids(r.json["new_comments"]) == new, r
    s_r = r.json["snapshot_id"]
    if replaced_by == "inbox_max_total":
        doc = check(gh, tmp_path, [key], "--max-total", "1")
        assert ids(by_key(doc)[key]["new_comments"]) == new[:1], doc
        confirm(gh, tmp_path, doc["snapshot_id"])
    else:
        r2 = agent.check("--limit", "1")
        assert r2.code == 0 and ids(r2.json["new_comments"]) == new[:1], r2
        assert agent.confirm(r2.json["snapshot_id"]).code == 0
    c = agent.confirm(s_r)
    after = agent.check()
    assert after.code == 0, after
    # either S is refused (exit 7: the file holds another snapshot), or it was really applied
    assert c.code == 7 or after.json["new_comments"] == [], (
        f"confirm of {s_r}: exit {c.code}, already_applied={c.json.get('already_applied')}; "
        f"then returned again: {ids(after.json['new_comments'])}")
    assert c.code == 7, c


@pytest.mark.parametrize("then", ["round_unflagged", "inbox_unflagged"])
def test_a_round_confirm_of_an_edits_snapshot_after_a_quiet_unflagged_check_is_already_applied(
        gh, tmp_path, then):
    """The same wrong "already applied", reached without any cut or other confirm: a flagged
    check S returns an edit (carol's inline note); a check without the flag (the round's own,
    or the inbox's) finds the round quiet and rewrites its updates file with a snapshot that
    recommends the stored checkpoint. The agent handles the edit and confirms S: exit 0,
    `already_applied: true`, nothing written — and the next flagged check hands it the same
    edit again (a confirmed item comes back). Section 6: S is refused (exit 7) once the file
    holds another snapshot, unless the stored checkpoint already equals what S writes."""
    agent = Agent(gh, tmp_path, "--pr", PR)
    rv = carol(gh)
    gh.advance(60)
    settle(gh, tmp_path, [KEY_P], FLAG)
    gh.advance(120)
    gh.edit_review_comment(rv["comment_ids"][0], "note 0, but rename this")
    gh.advance(60)
    r = agent.check(FLAG)
    assert r.code == 0, r
    assert ids(r.json["edited_review_comments"]) == [rv["comment_ids"][0]], r
    s = r.json["snapshot_id"]
    if then == "round_unflagged":
        q = agent.check()
        assert q.code == 0 and q.json["has_updates"] is False, q
    else:
        doc = check(gh, tmp_path, [KEY_P])
        assert doc["has_updates"] is False, doc
    c = agent.confirm(s)
    again = agent.check(FLAG)
    assert again.code == 0, again
    assert c.code == 7 or again.json["edited_review_comments"] == [], (
        f"confirm of {s}: exit {c.code}, already_applied={c.json.get('already_applied')}; "
        f"the edit returned again: {ids(again.json['edited_review_comments'])}")
    assert c.code == 7, c


def _edit_when_since_read_arrives(fake, path, edit):
    """Run `edit` once, when the first `since` read of `path` reaches the fake (after the
    check's id read gave the agent the older body), before it is answered."""
    state = {"done": False}

    def hook(entry):
        if state["done"] or entry.method != "GET" or entry.path != path:
            return
        if "since" not in entry.query:
            return
        state["done"] = True
        fake.advance(1)
        edit()
    fake.on_request(hook)
    return state


@pytest.mark.parametrize("via", ["inbox", "round"])
@pytest.mark.parametrize("kind", ["issue", "pr"])
def test_an_edit_between_the_id_read_and_the_since_read_of_one_check_is_lost(
        gh, tmp_path, via, kind):
    """Section 19: where the id read and the `since` read of one check disagree, the agent was
    given the older pair, and the newer one is an edit to report later. A new comment arrives;
    a flagged check's id read returns it as new ("v1"); it is edited before the same check's
    `since` read of that list, which sees "v2". The check and its confirm record the `since`
    read's probe as settled, so every later flagged check gets 304 on that probe and "v2" is
    never reported: an edit lost (the agent acts on "v1" forever)."""
    number, key, flag = ((ISSUE, KEY_I, "--issue") if kind == "issue" else (PR, KEY_P, "--pr"))
    agent = Agent(gh, tmp_path, flag, number)
    settle(gh, tmp_path, [key], FLAG)
    gh.advance(60)
    new = gh.add_comment(OWNER, NAME, number, "v1", user="bob")["id"]
    gh.advance(60)
    state = _edit_when_since_read_arrives(
        gh, f"/repos/{OWNER}/{NAME}/issues/{number}/comments",
        lambda: gh.edit_comment(new, "v2"))

    def look():
        if via == "inbox":
            doc = check(gh, tmp_path, [key], FLAG)
            confirm(gh, tmp_path, doc["snapshot_id"])
            return by_key(doc).get(key) or {"new_comments": [], "edited_comments": []}
        r = agent.check(FLAG)
        assert r.code == 0, r
        assert agent.confirm(r.json["snapshot_id"]).code == 0
        return r.json

    first = look()
    gh.clear_hooks()
    assert state["done"]
    assert [(x["id"], x["body"]) for x in first["new_comments"]] == [(new, "v1")], first
    later = []
    for _ in range(3):
        doc = look()
        later += [(x["id"], x["body"], x["previous_body"]) for x in doc["edited_comments"]]
    assert later == [(new, "v2", "v1")], later


@pytest.mark.parametrize("via", ["inbox", "round"])
def test_previous_body_is_a_revision_the_agent_was_never_given_after_an_edit_in_the_read_second(
        gh, tmp_path, via):
    """Section 19 (turn 5): `previous_body` is the revision the agent handled. bob's comment
    is given to the agent as "v1" (a check without the flag; its confirm leaves W). A flagged
    check then moves W (a new comment), so `moved_at` is that read's `Date`, M; bob edits to
    "v2" in the same second, just after the read (GitHub's times are whole seconds), and the
    agent confirms what it read. bob edits again ("v3"). The next flagged check reports the
    edit with `previous_body` "v2", source "as_of" — a text the agent was never given (it
    handled "v1"; "v2" was never returned). Where the second cannot tell which revision was
    in force, the honest answer is null with a reason, as the code already does when the
    pick would be the current text."""
    agent = Agent(gh, tmp_path, "--issue", ISSUE)

    def look(*flags):
        if via == "inbox":
            doc = check(gh, tmp_path, [KEY_I], *flags)
            return (by_key(doc).get(KEY_I) or {"new_comments": [], "edited_comments": []},
                    lambda: confirm(gh, tmp_path, doc["snapshot_id"]))
        r = agent.check(*flags)
        assert r.code == 0, r
        return r.json, lambda: agent.confirm(r.json["snapshot_id"])

    settle(gh, tmp_path, [KEY_I], FLAG)
    gh.advance(60)
    bobs = gh.add_comment(OWNER, NAME, ISSUE, "v1", user="bob")["id"]
    gh.advance(60)
    doc, ok = look()  # without the flag: bob's comment given as "v1"
    assert [(x["id"], x["body"]) for x in doc["new_comments"]] == [(bobs, "v1")], doc
    ok()
    gh.advance(60)
    other = gh.add_comment(OWNER, NAME, ISSUE, "something else", user="dave")["id"]
    gh.advance(60)
    doc, ok = look(FLAG)  # moves W: moved_at = this read's Date
    assert ids(doc["new_comments"]) == [other] and doc["edited_comments"] == [], doc
    gh.edit_comment(bobs, "v2")  # the read's second (the data clock did not move)
    ok()
    gh.advance(60)
    gh.edit_comment(bobs, "v3")
    gh.advance(60)
    doc, ok = look(FLAG)
    got = [(x["id"], x["body"], x["previous_body"], x["previous_body_source"])
           for x in doc["edited_comments"]]
    assert len(got) == 1 and got[0][:2] == (bobs, "v3"), got
    # the agent was given "v1" and nothing else: previous_body is "v1", or null with a reason
    assert got[0][2] in ("v1", None), got


def test_an_edit_between_the_id_read_and_the_since_read_of_a_wait_s_waking_poll_is_lost(
        gh, tmp_path):
    """The same loss in an inbox `--wait --include-edits`: bob's comment arrives during the
    wait; the waking poll's id read returns it ("v1"), bob edits it before that poll's `since`
    read; the wait returns "v1", and no later flagged check reports "v2"."""
    from tests.support import script_env

    settle(gh, tmp_path, [KEY_I], FLAG)
    gh.advance(60)
    st = {"n": 0, "new": None, "edited": False}
    path = f"/repos/{OWNER}/{NAME}/issues/{ISSUE}/comments"

    def hook(entry):
        if entry.method != "GET" or entry.path != path:
            return
        st["n"] += 1
        if st["n"] == 5 and st["new"] is None:  # the third poll's id probe
            gh.advance(1)
            st["new"] = gh.add_comment(OWNER, NAME, ISSUE, "v1", user="bob")["id"]
        elif st["new"] is not None and not st["edited"] and "since" in entry.query:
            st["edited"] = True
            gh.advance(1)
            gh.edit_comment(st["new"], "v2")
    gh.on_request(hook)
    r = inbox(gh, tmp_path, "--follow", KEY_I, FLAG, "--wait", 600, "--poll-interval", 5,
              env=script_env(gh, GH_MONITOR_TEST_TIME_SCALE="0.02"))
    gh.clear_hooks()
    assert r.code == 0, r
    assert st["edited"], st
    given = [(x["id"], x["body"]) for x in by_key(r.json)[KEY_I]["new_comments"]]
    confirm(gh, tmp_path, r.json["snapshot_id"])
    later = []
    for _ in range(2):
        doc = check(gh, tmp_path, [KEY_I], FLAG)
        later += [(x["id"], x["body"]) for c in doc["conversations"]
                  for x in c["edited_comments"]]
        confirm(gh, tmp_path, doc["snapshot_id"])
    assert given == [(st["new"], "v2")] or later == [(st["new"], "v2")], (given, later)
