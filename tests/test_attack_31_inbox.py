"""Issue 31's attacks on the inbox (CONTRACT section 22, "The inbox keeps the engine's
promises"; sections 14 and 18): items 1, 2, 3, 4a and 13.

Scripts run as subprocesses against the fake GitHub, as an agent runs them; every request count
comes from the fake's log.
"""

from __future__ import annotations

import json

import pytest

from tests.support import NAME, OWNER, Agent, follow_args, inbox, latest

PR = 7
ISSUE = 5
KEY_P = f"{OWNER}/{NAME}/pull/{PR}"
KEY_I = f"{OWNER}/{NAME}/issues/{ISSUE}"


def statuses(fake):
    return [(q.method, q.path, q.status) for q in fake.requests]


def inbox_round(fake, root, keys, *flags):
    """check -> confirm of the inbox over `keys`; the check's document."""
    r = inbox(fake, root, *follow_args(keys), *flags)
    assert r.code == 0, r
    if r.json["snapshot_id"]:
        c = latest(fake, root, "--followed", "--confirm-updates", "--snapshot-id",
                   r.json["snapshot_id"])
        assert c.code == 0, c
    return r.json


def idle_inbox(fake, root, keys, *flags):
    """One inbox check; its requests (the fake's log)."""
    r = inbox(fake, root, *follow_args(keys), *flags)
    assert r.code == 0, r
    return r.json, list(fake.requests)


@pytest.fixture
def gh(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    fake.add_comments(OWNER, NAME, ISSUE, 3)
    fake.add_pull(OWNER, NAME, PR, title="PR")
    fake.add_comments(OWNER, NAME, PR, 2)
    fake.review_order = "id"
    return fake


# --------------------------------------------------------------------------- item 1

def _event(fake, name, review_id=None, comment_id=None):
    if name == "dismiss":
        fake.dismiss_review(review_id, "stale")
    elif name == "pending":  # the token owner starts a review
        fake.start_review(OWNER, NAME, PR, "octocat", body="draft")
    elif name == "delete":
        fake.delete_comment(comment_id)
    else:
        raise AssertionError(name)


@pytest.mark.parametrize("event", ["dismiss", "pending", "delete"])
def test_item1_a_quiet_inbox_round_settles_as_the_same_round_alone(gh, tmp_path, event):
    """After an event that changes a quiet round's probe, the inbox settles at its second
    poll (all 304), exactly as the same round checked alone: the kept updates file carries the
    new hint, never the stale one the confirm would reinstall."""
    review = gh.add_review(OWNER, NAME, PR, "alice", "APPROVED", body="ok")
    last = gh.add_comment(OWNER, NAME, PR, "bob", "last word")
    alone, through_inbox = tmp_path / "alone", tmp_path / "inbox"
    alone.mkdir()
    through_inbox.mkdir()
    agent = Agent(gh, alone, "--pr", PR)
    for _ in range(2):
        agent.look_and_confirm()
        inbox_round(gh, through_inbox, [KEY_P])
    agent.check()
    assert {s for _m, _p, s in statuses(gh)} == {304}, statuses(gh)
    _doc, before = idle_inbox(gh, through_inbox, [KEY_P])
    assert {q.status for q in before} == {304}, statuses(gh)

    _event(gh, event, review_id=review["id"], comment_id=last["id"])
    # the round alone: check -> confirm -> check: the second check is all 304
    agent.look_and_confirm()
    agent.check()
    alone_second = statuses(gh)
    assert {s for _m, _p, s in alone_second} == {304}, alone_second
    # the same round through the inbox: check -> confirm -> check, twice more (idle polls)
    inbox_round(gh, through_inbox, [KEY_P])
    for _ in range(2):
        _doc, reqs = idle_inbox(gh, through_inbox, [KEY_P])
        assert [(q.method, q.path, q.status) for q in reqs] == alone_second
        c = latest(gh, through_inbox, "--followed", "--confirm-updates", "--snapshot-id",
                   _doc["snapshot_id"])
        assert c.code == 0, c


# --------------------------------------------------------------------------- item 2

@pytest.mark.parametrize("late", ["same_second", "earlier"])
def test_item2_a_late_review_is_returned_once_and_confirmed(gh, tmp_path, late):
    """A review drafted before the checkpoint's review (a smaller id) and submitted in its
    second, or late with an earlier `submitted_at`: the inbox returns it once, its confirm
    writes it (not "already applied"), and the next check is quiet."""
    import datetime as dt

    draft = gh.start_review(OWNER, NAME, PR, "bob", body="drafted early")
    gh.advance(5)
    gh.add_review(OWNER, NAME, PR, "alice", "COMMENTED", body="the checkpoint's review")
    when = gh.clock
    for _ in range(2):
        inbox_round(gh, tmp_path, [KEY_P])
    at = when if late == "same_second" else when - dt.timedelta(seconds=60)
    gh.submit_review(draft["id"], body="drafted early, submitted late", submitted_at=at)
    r = inbox(gh, tmp_path, *follow_args([KEY_P]))
    assert r.code == 0, r
    (conv,) = r.json["conversations"]
    assert [x["id"] for x in conv["new_reviews"]] == [draft["id"]]
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0, c
    assert c.json["confirmed"] == [KEY_P] and c.json["already_applied"] == []
    for _ in range(2):
        r = inbox(gh, tmp_path, *follow_args([KEY_P]))
        assert r.code == 0, r
        assert r.json["has_updates"] is False and r.json["quiet"] == [KEY_P], r
        c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   r.json["snapshot_id"])
        assert c.code == 0 and c.json["confirmed"] + c.json["already_applied"] == [KEY_P]


# --------------------------------------------------------------------------- item 3

@pytest.mark.parametrize("edits", [False, True])
@pytest.mark.parametrize("size", [99, 100, 101, 150, 250])
def test_item3_after_the_checkpoint_comment_is_deleted_the_second_check_is_all_304(
        fake, tmp_path, size, edits):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    fake.add_comments(OWNER, NAME, ISSUE, size)
    flags = ["--include-edits"] if edits else []
    agent = Agent(fake, tmp_path, "--issue", ISSUE)
    for _ in range(2):
        agent.look_and_confirm(*flags)
    agent.check(*flags)
    assert set(agent.statuses()) == {304}, statuses(fake)
    fake.delete_comment(fake.comment_ids(OWNER, NAME, ISSUE)[-1])
    first = agent.look_and_confirm(*flags)
    assert first["has_updates"] is False
    r = agent.check(*flags)
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert set(agent.statuses()) == {304}, statuses(fake)
    # and through the inbox, the same
    root = tmp_path / "inbox"
    root.mkdir()
    for _ in range(2):
        inbox_round(fake, root, [KEY_I], *flags)
    fake.delete_comment(fake.comment_ids(OWNER, NAME, ISSUE)[-1])
    inbox_round(fake, root, [KEY_I], *flags)
    _doc, reqs = idle_inbox(fake, root, [KEY_I], *flags)
    assert {q.status for q in reqs} == {304}, statuses(fake)


# --------------------------------------------------------------------------- item 13

def _etag_of(fake, path, **params):
    import urllib.parse
    import urllib.request

    from tests.support import TOKEN

    url = f"{fake.url}/{path}?{urllib.parse.urlencode(params)}"
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {TOKEN}",
                                               "Accept": "application/vnd.github+json"})
    with urllib.request.urlopen(req) as resp:  # noqa: S310 (the fake, on 127.0.0.1)
        return resp.headers["ETag"]


@pytest.mark.parametrize("wait", [False, True])
def test_item13_a_tampered_hint_never_hides_comments(fake, tmp_path, wait):
    """A hint naming the real cursor but probing page 1 with that page's real ETag: it is
    ignored (its window does not hold the place after the cursor); the new comments come."""
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    fake.add_comments(OWNER, NAME, ISSUE, 50)
    agent = Agent(fake, tmp_path, "--issue", ISSUE)
    for _ in range(2):
        agent.look_and_confirm()
    hints = json.loads(agent.file("hints").read_text())
    hint = hints["hints"]["conversation"][0]
    assert hint["comment_id"] == fake.comment_ids(OWNER, NAME, ISSUE)[-1] and hint["etag"]
    etag = _etag_of(fake, f"repos/{OWNER}/{NAME}/issues/{ISSUE}/comments", per_page=10, page=1)
    hint.update(page=1, per_page=10, etag=etag)
    agent.file("hints").write_text(json.dumps(hints))
    new = fake.add_comments(OWNER, NAME, ISSUE, 4)
    args = ["--wait", "30"] if wait else []
    r = agent.check(*args)
    assert r.code == 0, r
    assert [c["id"] for c in r.json["new_comments"]] == [c["id"] if isinstance(c, dict) else c
                                                        for c in new]


# --------------------------------------------------------------------------- item 4a

def test_item4a_a_first_look_over_100_rounds_in_one_command_drains_then_settles(fake, tmp_path):
    """100 followed rounds (50 issues, 50 pull requests) first looked at in one command, where
    --max-total 100 cuts: each round returns at least its newest item (section 18; a pull
    request its newest review, its conversation left unread and listed in `more_in`, as issue
    22's test holds). What was left is not idle: each next wait returns it at its first poll
    (the 200s the report counted are those deliveries, with the stale hints of item 1), every
    item once; once drained, a wait is all 304 within the formula, as when the same rounds are
    first looked at in four commands of 25."""
    from tests.support import run_script, script_env

    fake.add_repo(OWNER, NAME)
    keys, expected = [], set()
    for n in range(1, 101):
        if n % 2:
            fake.add_issue(OWNER, NAME, n)
            # the first look's one unit is the newest; the older one is `older_not_returned`
            expected.add(("c", fake.add_comments(OWNER, NAME, n, 2)[-1]))
            keys.append(f"{OWNER}/{NAME}/issues/{n}")
        else:
            fake.add_pull(OWNER, NAME, n)
            expected |= {("c", i) for i in fake.add_comments(OWNER, NAME, n, 1)}
            expected.add(("r", fake.add_review(OWNER, NAME, n, "alice", "COMMENTED",
                                               body="r")["id"]))
            keys.append(f"{OWNER}/{NAME}/pull/{n}")
    fake.review_order = "id"
    seen = []

    def note(doc):
        for c in doc["conversations"]:
            seen.extend(("c", x["id"]) for x in c["new_comments"])
            seen.extend(("r", x["id"]) for x in c.get("new_reviews", []))

    first = inbox_round(fake, tmp_path, keys)
    note(first)
    assert len(first["conversations"]) == 100 and first["more_in"], first["more_in"]
    # 300 s scaled to 6 s: a poll of 100 rounds fits in it (the deadline is real time)
    env = script_env(fake, GH_MONITOR_TEST_TIME_SCALE="0.02")
    cycles = 0
    while cycles < 6:
        fake.clear_log()
        r = run_script("check_issue_updates.py", "--root", tmp_path, "--followed", "--wait",
                       "300", env=env)
        assert r.code == 0, r
        doc = r.json
        if not doc["has_updates"]:
            break
        assert doc["polls"] == 1, doc["polls"]  # what was left is returned at once
        note(doc)
        c = latest(fake, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   doc["snapshot_id"])
        assert c.code == 0, c
        cycles += 1
    assert not doc["has_updates"], "six waits did not drain what the first look left"
    assert cycles <= 2, cycles
    assert len(seen) == len(set(seen)), "an item returned twice"
    assert set(seen) == expected, sorted(expected - set(seen))[:10]
    # drained: an idle wait, every poll all 304, I·1 + P·2 requests a poll
    assert doc["polls"] >= 2
    assert {q.status for q in fake.requests} == {304}, sorted({q.status for q in fake.requests})
    assert len(fake.requests) <= doc["polls"] * (50 + 2 * 50)


def test_item1_with_include_edits_an_old_edit_after_a_deletion_settles(gh, tmp_path):
    """--include-edits: the checkpoint comment deleted, then an old comment edited: the edit is
    returned once, and the idle inbox then settles (all 304), as the round alone does."""
    flags = ["--include-edits"]
    ids = gh.comment_ids(OWNER, NAME, ISSUE)
    for _ in range(3):
        inbox_round(gh, tmp_path, [KEY_I], *flags)
    gh.delete_comment(ids[-1])
    inbox_round(gh, tmp_path, [KEY_I], *flags)
    gh.advance(60)
    gh.edit_comment(ids[0], "edited after the deletion")
    doc = inbox_round(gh, tmp_path, [KEY_I], *flags)
    (conv,) = doc["conversations"]
    assert [c["id"] for c in conv["edited_comments"]] == [ids[0]]
    inbox_round(gh, tmp_path, [KEY_I], *flags)  # may pay: the check after the confirmed one
    for _ in range(2):
        doc, reqs = idle_inbox(gh, tmp_path, [KEY_I], *flags)
        assert doc["has_updates"] is False
        assert {q.status for q in reqs} == {304}, statuses(gh)
        c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   doc["snapshot_id"])
        assert c.code == 0, c


# --------------------------------------------------------------------------- item 10

def test_item10_a_folder_at_the_inbox_file_stops_the_check_before_any_rename(gh, tmp_path):
    """Section 22: an inbox check validates every file it will write before its first rename.
    A folder standing at the inbox file's path made the check rename both rounds' updates
    files, then fail writing the inbox file: half applied. Now exit 7 before any rename."""
    from tests.support import state_dir

    inbox_round(gh, tmp_path, [KEY_I, KEY_P])
    folder = state_dir(tmp_path)
    updates = sorted(p for p in folder.glob("*-updates.json") if p.name != "inbox-updates.json")
    assert len(updates) == 2
    before = {p.name: p.read_bytes() for p in updates}
    (folder / "inbox-updates.json").unlink()
    (folder / "inbox-updates.json").mkdir()
    gh.add_comments(OWNER, NAME, ISSUE, 2)
    r = inbox(gh, tmp_path, *follow_args([KEY_I, KEY_P]))
    assert r.code == 7 and "inbox-updates.json" in r.json["error"]["message"], r
    assert {p.name: p.read_bytes() for p in updates} == before  # nothing renamed


def test_item10_a_folder_at_one_rounds_updates_file_is_that_rounds_error(gh, tmp_path):
    """The same check for a round's own updates file: that round is in `errors` (its files
    untouched), the other is read and written, exit 0 (section 18)."""
    from tests.support import state_dir

    inbox_round(gh, tmp_path, [KEY_I, KEY_P])
    folder = state_dir(tmp_path)
    (pr_updates,) = folder.glob("*-pr-updates.json")
    pr_updates.unlink()
    pr_updates.mkdir()
    gh.add_comments(OWNER, NAME, ISSUE, 2)
    r = inbox(gh, tmp_path, *follow_args([KEY_I, KEY_P]))
    assert r.code == 0, r
    assert [e["key"] for e in r.json["errors"]] == [KEY_P], r.json["errors"]
    assert "updates file" in r.json["errors"][0]["error"]["message"]
    (conv,) = r.json["conversations"]
    assert conv["key"] == KEY_I and len(conv["new_comments"]) == 2
    snaps = json.loads((folder / "inbox-updates.json").read_text())["snapshots"]
    assert snaps[0]["snapshot_id"] == r.json["snapshot_id"]
