"""The inbox core (CONTRACT section 18): many rounds in one check, one wait, one confirm.

Scripts run as subprocesses against the fake GitHub, as an agent runs them; every request count
comes from the fake's log. The rounds are the ones the single-round tests drive (section 5's
and 12's); these tests check what the inbox adds: one document over them, --max-total, errors
per round or for the host, the inbox file and its confirm.
"""

from __future__ import annotations

import json

import pytest

from tests.support import (
    NAME,
    OWNER,
    Agent,
    by_key,
    follow_args,
    inbox,
    latest,
    run_script,
    script_env,
    state_dir,
)

ISSUES = (5, 9, 11)
PRS = (7, 8)
KEYS_I = [f"{OWNER}/{NAME}/issues/{n}" for n in ISSUES]
KEYS_P = [f"{OWNER}/{NAME}/pull/{n}" for n in PRS]


@pytest.fixture
def gh(fake):
    fake.add_repo(OWNER, NAME)
    for n in ISSUES:
        fake.add_issue(OWNER, NAME, n)
        fake.add_comments(OWNER, NAME, n, 3)
    for n in PRS:
        fake.add_pull(OWNER, NAME, n, title=f"PR {n}")
        fake.add_comments(OWNER, NAME, n, 2)
    fake.review_order = "id"
    return fake


def follow_all(keys=KEYS_I + KEYS_P):
    return follow_args(keys)


def ids(items):
    return [x["id"] for x in items]


def confirm_each(fake, root, doc):
    """Each round confirmed alone, from its own snapshot (a single round's confirm)."""
    for c in doc["conversations"]:
        kind, number = c["key"].split("/")[2:]
        flag = "--pr" if kind == "pull" else "--issue"
        r = latest(fake, root, "--repo", f"{OWNER}/{NAME}", flag, number, "--confirm-updates",
                   "--snapshot-id", c["snapshot_id"])
        assert r.code == 0, r


def settle(fake, root, keys=KEYS_I + KEYS_P):
    """Follow every round and confirm the inbox snapshot (twice: the second read leaves the
    poll hints of a quiet round)."""
    for _ in range(2):
        r = inbox(fake, root, *follow_all(keys))
        assert r.code == 0, r
        c = latest(fake, root, "--followed", "--confirm-updates", "--snapshot-id",
                   r.json["snapshot_id"])
        assert c.code == 0, c
    return r.json


# --------------------------------------------------------------------------- the document

def test_one_document_over_issue_and_pull_request_rounds(gh, tmp_path):
    r = inbox(gh, tmp_path, *follow_all())
    assert r.code == 0, r
    doc = r.json
    # rounds in order: owner, repository, kind, number (as an integer)
    assert [c["key"] for c in doc["conversations"]] == KEYS_I + KEYS_P
    assert doc["quiet"] == [] and doc["errors"] == [] and doc["more_in"] == []
    assert doc["followed"] == 5 and doc["has_updates"] is True
    for c in doc["conversations"]:
        # each its own round's document, unchanged (plus key), its updates file as a check's
        own = json.loads(open(c["updates_file"]).read())
        assert own["snapshot_id"] == c["snapshot_id"]
        assert own["new_comments"] == c["new_comments"]
        assert "key" not in own
    assert [len(by_key(doc)[k]["new_comments"]) for k in KEYS_I] == [3, 3, 3]
    assert doc["requests"] == sum(c["requests"] for c in doc["conversations"])
    assert doc["requests"] == len(gh.requests)
    inbox_file = json.loads((state_dir(tmp_path) / "inbox-updates.json").read_text())
    snap = inbox_file["snapshots"][0]
    assert snap["snapshot_id"] == doc["snapshot_id"] == doc["snapshot_id"]
    assert doc["updates_file"] == str(state_dir(tmp_path) / "inbox-updates.json")
    assert [e["key"] for e in snap["rounds"]] == KEYS_I + KEYS_P
    assert all(e["had_checkpoint"] is False and e["previous_sha256"] is None
               for e in snap["rounds"])
    assert "body" not in json.dumps(inbox_file)  # cursors only


def test_an_inbox_confirm_then_an_idle_poll_is_all_304_within_the_formula(gh, tmp_path):
    settle(gh, tmp_path)
    r = inbox(gh, tmp_path, *follow_all())
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is False and doc["conversations"] == []
    assert doc["quiet"] == KEYS_I + KEYS_P
    # I*(1+e) + P*(2+2e) + r + d, e = r = d = 0: 3 + 4
    assert len(gh.requests) <= 3 * 1 + 2 * 2
    assert all(q.status == 304 for q in gh.requests), [(q.path, q.status) for q in gh.requests]
    assert not [q for q in gh.requests if q.path == "/graphql"]


def test_a_quiet_round_keeps_its_updates_file_and_snapshot(gh, tmp_path):
    settle(gh, tmp_path)
    a = Agent(gh, tmp_path, "--issue", ISSUES[0])
    before = a.file("updates").read_bytes()
    r = inbox(gh, tmp_path, *follow_all())
    assert r.code == 0, r
    assert a.file("updates").read_bytes() == before


def test_followed_takes_every_round_with_a_checkpoint(gh, tmp_path):
    settle(gh, tmp_path, KEYS_I[:2])
    gh.add_comment(OWNER, NAME, ISSUES[1], "a reply", user="dave")
    r = inbox(gh, tmp_path, "--followed")
    assert r.code == 0, r
    assert [c["key"] for c in r.json["conversations"]] == [KEYS_I[1]]
    assert r.json["quiet"] == [KEYS_I[0]] and r.json["followed"] == 2


def test_no_round_followed_is_exit_0_and_with_wait_exit_2(gh, tmp_path):
    r = inbox(gh, tmp_path, "--followed")
    assert r.code == 0, r
    assert r.json["followed"] == 0 and r.json["conversations"] == []
    assert len(gh.requests) == 0
    r = inbox(gh, tmp_path, "--followed", "--wait", 5)
    assert r.code == 2, r


@pytest.mark.parametrize("flag", [["--issue", "5"], ["--pr", "7"], ["--repo", "o/r"],
                                  ["--after-comment-id", "12"]])
def test_one_round_flags_do_not_go_with_follow(gh, tmp_path, flag):
    r = inbox(gh, tmp_path, "--follow", KEYS_I[0], *flag)
    assert r.code == 2, r
    assert r.json["error"]["code"] == "usage"
    assert len(gh.requests) == 0


# --------------------------------------------------------------------------- one wait

def scaled(fake, scale="0.02"):
    return script_env(fake, GH_MONITOR_TEST_TIME_SCALE=scale)


def test_a_wait_wakes_on_a_person_while_a_bot_comments_elsewhere(gh, tmp_path):
    from tests.test_wait import OnPoll

    settle(gh, tmp_path)
    bot = lambda: gh.add_comment(OWNER, NAME, ISSUES[0], "CI passed", user="ci-helper[bot]",
                                 user_type="Bot", association="NONE")["id"]
    person = lambda: gh.add_comment(OWNER, NAME, PRS[1], "Looks good, one question",
                                    user="maintainer", association="MEMBER")["id"]
    # one poll: 3 issue probes + 2 x 2 PR probes = 7 conditional requests
    hooks = OnPoll(gh, {2: bot, 7 * 2 + 5: person})
    r = inbox(gh, tmp_path, *follow_all(), "--humans-only", "--wait", 3600,
              "--poll-interval", 5, env=scaled(gh))
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is True
    got = by_key(doc)
    assert ids(got[KEYS_P[1]]["new_comments"]) == [hooks.results[7 * 2 + 5]]
    assert got.get(KEYS_I[0], {}).get("new_comments", []) == []  # the bot: left out, counted
    assert doc["polls"] >= 3
    # the bot's round moved past its comment (counted) and is confirmed with the others
    snap = json.loads((state_dir(tmp_path) / "inbox-updates.json").read_text())["snapshots"][0]
    rec = {e["key"]: e["recommended_checkpoint"] for e in snap["rounds"]}
    assert rec[KEYS_I[0]]["last_comment_id"] == hooks.results[2]
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               doc["snapshot_id"])
    assert c.code == 0, c
    assert KEYS_I[0] in c.json["confirmed"] and KEYS_P[1] in c.json["confirmed"]


def test_an_idle_wait_is_all_304_and_costs_no_points(gh, tmp_path):
    from tests.test_wait import core_used

    settle(gh, tmp_path)
    used = core_used(gh)
    r = inbox(gh, tmp_path, *follow_all(), "--wait", 60, "--poll-interval", 5,
              env=scaled(gh, "0.05"))
    assert r.code == 0, r
    assert r.json["has_updates"] is False and r.json["polls"] >= 2
    assert r.json["waited_seconds"] <= 60 + 3 * 30
    reqs = [q for q in gh.requests if q.path != "/rate_limit"]
    assert all(q.status == 304 for q in reqs), [(q.path, q.status) for q in reqs]
    assert len(reqs) <= r.json["polls"] * 7
    assert core_used(gh) == used


# --------------------------------------------------------------------------- confirms

def test_an_inbox_confirm_applies_although_a_single_check_replaced_an_updates_file(gh, tmp_path):
    r = inbox(gh, tmp_path, *follow_all())
    assert r.code == 0, r
    snap = r.json["snapshot_id"]
    a = Agent(gh, tmp_path, "--issue", ISSUES[1])
    single = a.check()  # replaces that round's updates file with its own snapshot
    assert single.code == 0 and single.json["snapshot_id"] != by_key(r.json)[KEYS_I[1]][
        "snapshot_id"]
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id", snap)
    assert c.code == 0, c
    assert c.json["confirmed"] == KEYS_I + KEYS_P and c.json["refused"] == []
    assert len(gh.requests) == 0  # no network
    cp = json.loads(a.file().read_text())
    assert cp["last_comment_id"] == by_key(r.json)[KEYS_I[1]]["new_comments"][-1]["id"]
    # the single check's snapshot (read after no checkpoint) is now refused alone
    assert a.confirm(single.json["snapshot_id"]).code in (0, 7)


def test_an_inbox_confirm_refuses_a_round_confirmed_alone_in_between(gh, tmp_path):
    settle(gh, tmp_path)
    for n in ISSUES:
        gh.add_comments(OWNER, NAME, n, 4)
    r = inbox(gh, tmp_path, *follow_all())
    assert r.code == 0, r
    a = Agent(gh, tmp_path, "--issue", ISSUES[2])
    partial = a.check("--limit", 2)  # confirmed alone to a point between the recorded cursors
    assert a.confirm(partial.json["snapshot_id"]).code == 0
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 7, c
    assert [x["key"] for x in c.json["refused"]] == [KEYS_I[2]]
    assert c.json["error"]["code"] == "state" and KEYS_I[2] in c.json["error"]["message"]
    assert c.json["confirmed"] == KEYS_I[:2]
    assert set(c.json["already_applied"]) == set(KEYS_P)
    assert json.loads(a.file().read_text())["last_comment_id"] == ids(
        partial.json["new_comments"])[-1]
    # confirmed again: already applied where it went through, still refused where it did not
    c2 = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                r.json["snapshot_id"])
    assert c2.code == 7 and set(c2.json["already_applied"]) == set(KEYS_I[:2] + KEYS_P)


def test_an_unknown_inbox_snapshot_is_exit_7_and_changes_nothing(gh, tmp_path):
    settle(gh, tmp_path)
    before = {p.name: p.read_bytes() for p in state_dir(tmp_path).iterdir()}
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id", "f" * 32)
    assert c.code == 7, c
    assert {p.name: p.read_bytes() for p in state_dir(tmp_path).iterdir()} == before
    c = latest(gh, tmp_path, "--followed", "--confirm-updates")
    assert c.code == 2, c


def test_follow_picks_rounds_of_the_snapshot_and_a_stranger_is_exit_2(gh, tmp_path):
    r = inbox(gh, tmp_path, *follow_all(KEYS_I))
    snap = r.json["snapshot_id"]
    c = latest(gh, tmp_path, "--follow", KEYS_P[0], "--confirm-updates", "--snapshot-id", snap)
    assert c.code == 2, c
    assert not Agent(gh, tmp_path, "--issue", ISSUES[0]).file().exists()
    c = latest(gh, tmp_path, "--follow", f"{OWNER}/{NAME}#{ISSUES[1]}", "--confirm-updates",
               "--snapshot-id", snap)
    assert c.code == 0, c
    assert c.json["confirmed"] == [KEYS_I[1]]
    assert not Agent(gh, tmp_path, "--issue", ISSUES[0]).file().exists()


def test_an_unfollowed_round_is_skipped_by_the_confirm_and_never_recreated(gh, tmp_path):
    r = inbox(gh, tmp_path, *follow_all())
    u = latest(gh, tmp_path, "--unfollow", KEYS_I[0])
    assert u.code == 0, u
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0, c
    assert c.json["unfollowed"] == [KEYS_I[0]]
    assert KEYS_I[0] not in c.json["confirmed"]
    assert not Agent(gh, tmp_path, "--issue", ISSUES[0]).file().exists()


@pytest.fixture
def web_urls(gh):
    """The fake's html_url on its own origin: its web host is the API's (section 18)."""
    before = gh.html_base
    gh.html_base = gh.url
    yield gh
    gh.html_base = before


def test_a_round_followed_from_the_writers_url_starts_at_that_comment(web_urls, tmp_path):
    gh = web_urls
    env = script_env(gh)
    mine = run_script("manage_issue_comment.py", "--action", "create", "--repo",
                      f"{OWNER}/{NAME}", "--issue", ISSUES[0], "--body-file", "-",
                      stdin=b"My question", env=env)
    assert mine.code == 0, mine
    url, my_id = mine.json["url"], int(mine.json["commentId"])
    reply = gh.add_comment(OWNER, NAME, ISSUES[0], "An answer", user="dave")["id"]
    r = inbox(gh, tmp_path, "--follow", url, env=env)
    assert r.code == 0, r
    (conv,) = r.json["conversations"]
    assert conv["previous_checkpoint"]["last_comment_id"] == my_id
    assert ids(conv["new_comments"]) == [reply]
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0 and c.json["confirmed"] == [KEYS_I[0]], c
    a = Agent(gh, tmp_path, "--issue", ISSUES[0])
    assert json.loads(a.file().read_text())["last_comment_id"] == reply
    # a single round's confirm after --after-comment-id on a round without checkpoint, too
    b = Agent(gh, tmp_path, "--issue", ISSUES[1])
    first = gh.add_comment(OWNER, NAME, ISSUES[1], "mine", user="octocat")["id"]
    later = gh.add_comment(OWNER, NAME, ISSUES[1], "theirs", user="dave")["id"]
    s = b.check("--after-comment-id", first)
    assert ids(s.json["new_comments"]) == [later]
    assert b.confirm(s.json["snapshot_id"]).code == 0
    assert json.loads(b.file().read_text())["last_comment_id"] == later


# --------------------------------------------------------------------------- errors

def tree(root):
    folder = state_dir(root)
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.exists() else {}


def test_errors_stay_with_their_round_beside_rounds_read_normally(gh, tmp_path):
    import fcntl
    import os

    settle(gh, tmp_path)
    for n in ISSUES:
        gh.add_comment(OWNER, NAME, n, "news", user="dave")
    corrupt = Agent(gh, tmp_path, "--issue", ISSUES[1])
    corrupt.file().write_text("{not json")
    locked = Agent(gh, tmp_path, "--pr", PRS[0])
    fd = os.open(state_dir(tmp_path) / f".{locked.stem}.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    locked_before = locked.file("updates").read_bytes()
    try:
        r = inbox(gh, tmp_path, *follow_all(), "--follow", f"{OWNER}/{NAME}/issues/404")
    finally:
        os.close(fd)
    assert r.code == 0, r
    doc = r.json
    errors = {e["key"]: e["error"]["code"] for e in doc["errors"]}
    assert errors == {KEYS_I[1]: "state", f"{OWNER}/{NAME}/issues/404": "not_found",
                      KEYS_P[0]: "state"}
    assert [c["key"] for c in doc["conversations"]] == [KEYS_I[0], KEYS_I[2]]
    assert corrupt.file().read_text() == "{not json"  # left as it is
    assert locked.file("updates").read_bytes() == locked_before
    snap = json.loads((state_dir(tmp_path) / "inbox-updates.json").read_text())["snapshots"][0]
    assert {e["key"] for e in snap["rounds"]} == {KEYS_I[0], KEYS_I[2], KEYS_P[1]}


def test_no_round_readable_is_the_inbox_document_with_the_first_error(gh, tmp_path):
    r = inbox(gh, tmp_path, "--follow", f"{OWNER}/{NAME}/issues/404",
              "--follow", f"{OWNER}/{NAME}/pull/405")
    assert r.code == 4, r
    assert r.json["error"]["code"] == "not_found"
    assert [e["key"] for e in r.json["errors"]] == [f"{OWNER}/{NAME}/issues/404",
                                                     f"{OWNER}/{NAME}/pull/405"]
    assert r.json["snapshot_id"] is None
    assert not (state_dir(tmp_path) / "inbox-updates.json").exists()


def test_a_rate_limit_ends_the_whole_command_and_changes_no_file(gh, tmp_path):
    settle(gh, tmp_path)
    for n in ISSUES:
        gh.add_comment(OWNER, NAME, n, "news", user="dave")
    before = tree(tmp_path)
    gh.inject(path=f"/issues/{ISSUES[1]}/comments", status=403, times=None,
              headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "9999999999"},
              body={"message": "API rate limit exceeded"})
    r = inbox(gh, tmp_path, *follow_all())
    assert r.code == 5, r
    assert r.json["error"]["code"] == "rate_limited" and "conversations" not in r.json
    after = {k: v for k, v in tree(tmp_path).items() if not k.startswith(".")}
    assert after == {k: v for k, v in before.items() if not k.startswith(".")}


def test_the_same_5xx_on_two_rounds_in_a_row_ends_the_command(gh, tmp_path):
    settle(gh, tmp_path)
    for n in ISSUES:
        gh.add_comment(OWNER, NAME, n, "news", user="dave")
    gh.inject(path=r"/issues/(5|9)/comments", status=502, times=None)
    r = inbox(gh, tmp_path, *follow_all(), "--max-wait", 0)
    assert r.code == 6, r
    assert r.json["error"]["code"] == "server"


def test_one_5xx_round_is_that_rounds_error(gh, tmp_path):
    settle(gh, tmp_path)
    gh.inject(path=r"/issues/9/comments", status=502, times=None)
    r = inbox(gh, tmp_path, *follow_all(), "--max-wait", 0)
    assert r.code == 0, r
    assert [(e["key"], e["error"]["code"]) for e in r.json["errors"]] == [(KEYS_I[1], "server")]
    assert r.json["quiet"] == [KEYS_I[0], KEYS_I[2]] + KEYS_P


# --------------------------------------------------------------------------- --max-total

def review(fake, pr, comments, user="bob"):
    notes = [{"path": f"src/m{i}.py", "line": 10 + i, "body": f"note {i}"}
             for i in range(comments)]
    started = fake.start_review(OWNER, NAME, pr, user, body="See the notes.", comments=notes)
    fake.advance(60)
    fake.submit_review(started["id"], state="COMMENTED")
    fake.advance(60)
    return started["id"], list(started["comment_ids"])


def items_of(doc):
    n = 0
    for c in doc["conversations"]:
        n += len(c["new_comments"]) + len(c.get("new_reviews", [])) + len(
            c.get("new_review_comments", []))
    return n


def test_max_total_batches_return_every_item_exactly_once(gh, tmp_path):
    settle(gh, tmp_path)
    expect = set()
    for n in ISSUES:
        expect |= {("c", i) for i in gh.add_comments(OWNER, NAME, n, 7)}
    for _ in range(2):
        rid, cids = review(gh, PRS[0], 2)
        expect |= {("r", rid)} | {("rc", i) for i in cids}
    rid, cids = review(gh, PRS[1], 6)  # larger than the bound: comes whole, alone
    expect |= {("r", rid)} | {("rc", i) for i in cids}
    expect |= {("c", i) for i in gh.add_comments(OWNER, NAME, PRS[1], 3)}
    seen, docs = [], 0
    while True:
        r = inbox(gh, tmp_path, *follow_all(), "--max-total", 5)
        assert r.code == 0, r
        doc = r.json
        docs += 1
        if not doc["has_updates"]:
            assert doc["more_in"] == []
            break
        n = items_of(doc)
        assert n <= 5 or (n == 7 and len(doc["conversations"]) == 1), doc
        for c in doc["conversations"]:
            seen += [("c", x["id"]) for x in c["new_comments"]]
            seen += [("r", x["id"]) for x in c.get("new_reviews", [])]
            seen += [("rc", x["id"]) for x in c.get("new_review_comments", [])]
            if c["key"] in doc["more_in"]:
                assert c["more_available"] is True
        c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   doc["snapshot_id"])
        assert c.code == 0, c
        assert docs < 20
    assert len(seen) == len(set(seen)), "an item returned twice"
    assert set(seen) == expect
    assert docs >= len(expect) // 5


def test_max_total_gives_every_round_without_a_checkpoint_its_newest_item(gh, tmp_path):
    r = inbox(gh, tmp_path, *follow_all(KEYS_I), "--max-total", 1)
    assert r.code == 0, r
    got = by_key(r.json)
    assert list(got) == KEYS_I
    for c in got.values():
        assert len(c["new_comments"]) == 1
        assert c["new_comments"][0]["id"] == c["latest_comment"]["id"]  # its newest
        assert c["older_not_returned"] == 2


def test_max_total_goes_with_the_inbox_only(gh, tmp_path):
    r = run_script("check_issue_updates.py", "--repo", f"{OWNER}/{NAME}", "--issue", 5,
                   "--root", tmp_path, "--max-total", 3, env=script_env(gh))
    assert r.code == 2, r


def test_an_unfollow_during_a_wait_drops_the_round(gh, tmp_path):
    from tests.test_wait import OnPoll

    settle(gh, tmp_path)
    env = scaled(gh)
    gone = Agent(gh, tmp_path, "--issue", ISSUES[1])

    def unfollow():
        u = run_script("get_latest_comments.py", "--root", tmp_path, "--unfollow", KEYS_I[1],
                       env=env)
        assert u.code == 0, u
        return u

    person = lambda: gh.add_comment(OWNER, NAME, ISSUES[0], "Here you go",
                                    user="maintainer")["id"]
    OnPoll(gh, {3: unfollow, 7 * 2 + 1: person})
    r = inbox(gh, tmp_path, *follow_all(), "--wait", 3600, "--poll-interval", 5, env=env)
    assert r.code == 0, r
    assert r.json["unfollowed"] == [KEYS_I[1]]
    assert KEYS_I[1] not in r.json["quiet"] + [c["key"] for c in r.json["conversations"]]
    assert not gone.file().exists() and not gone.file("updates").exists()
    snap = json.loads((state_dir(tmp_path) / "inbox-updates.json").read_text())["snapshots"][0]
    assert KEYS_I[1] not in [e["key"] for e in snap["rounds"]]
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0 and KEYS_I[0] in c.json["confirmed"], c
    assert not gone.file().exists()


def test_an_idle_wait_over_100_rounds_costs_no_points_and_keeps_300_a_minute(fake, tmp_path):
    from tests.test_wait import core_used

    fake.add_repo(OWNER, NAME)
    keys = []
    for n in range(1, 101):
        fake.add_issue(OWNER, NAME, n)
        fake.add_comments(OWNER, NAME, n, 1)
        keys.append(f"{OWNER}/{NAME}/issues/{n}")
    settle(fake, tmp_path, keys)
    used = core_used(fake)
    scale = 0.02  # a minute lasts 1.2 s
    r = inbox(fake, tmp_path, "--followed", "--wait", 240, "--poll-interval", 5,
              env=scaled(fake, str(scale)))
    assert r.code == 0, r
    doc = r.json
    assert doc["has_updates"] is False and len(doc["quiet"]) == 100 and doc["polls"] >= 2
    reqs = [q for q in fake.requests if q.path != "/rate_limit"]
    assert reqs and all(q.status == 304 for q in reqs)
    assert len(reqs) <= doc["polls"] * 100  # one conditional request per round per poll
    assert core_used(fake) == used
    # at most 300 requests in any minute (scaled), from the fake's own clock of arrival
    times = sorted(q.time for q in reqs)
    window = 60 * scale
    worst = max(sum(1 for t in times[i:] if t < start + window)
                for i, start in enumerate(times))
    assert worst <= 300, worst
    # 4 minutes at 300 a minute (a poll of 100 every 5 s would be 1,200 a minute)
    assert len(reqs) <= 4 * 300 + 100


# --------------------------------------------------------------------------- signals

def _spawn_inbox(fake, root, *args, pause, script="check_issue_updates.py"):
    import subprocess

    from tests.support import SCRIPT_PYTHON, SCRIPTS

    env = dict(script_env(fake), GH_MONITOR_TEST_WRITE_PAUSE=pause)
    cmd = [SCRIPT_PYTHON, str(SCRIPTS / script), "--root", str(root), *map(str, args)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _temp_files(root):
    return list(state_dir(root).glob(".*tmp-*"))


@pytest.mark.parametrize("script", ["check", "confirm"])
def test_a_signal_before_the_inbox_commit_point_changes_nothing(gh, tmp_path, script):
    import signal

    from tests.test_round_engine import _wait_for

    settle(gh, tmp_path, KEYS_I[:2])
    for n in ISSUES[:2]:
        gh.add_comment(OWNER, NAME, n, "news", user="dave")
    if script == "check":
        args = follow_all(KEYS_I[:2])
        proc = _spawn_inbox(gh, tmp_path, *args, pause="write:30")
    else:
        r = inbox(gh, tmp_path, *follow_all(KEYS_I[:2]))
        proc = _spawn_inbox(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                            r.json["snapshot_id"], pause="write:30",
                            script="get_latest_comments.py")
    before = {p.name: p.read_bytes() for p in state_dir(tmp_path).glob("*.json")}
    _wait_for(lambda: _temp_files(tmp_path), proc)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, (out, err)
    doc = json.loads(out)
    assert doc["interrupted"] is True and doc["snapshot_id"] is None, doc
    assert {p.name: p.read_bytes() for p in state_dir(tmp_path).glob("*.json")} == before
    assert _temp_files(tmp_path) == []


def test_a_signal_after_the_first_rename_finishes_every_write(gh, tmp_path):
    import signal

    from tests.test_round_engine import _wait_for

    settle(gh, tmp_path, KEYS_I[:2])
    for n in ISSUES[:2]:
        gh.add_comment(OWNER, NAME, n, "news", user="dave")
    first = Agent(gh, tmp_path, "--issue", ISSUES[0])
    old = first.file("updates").read_bytes()
    # 2 s after each rename (two updates files, then the inbox file): the signal lands after
    # the first rename with seconds to spare on a loaded machine; a signal sent to a process
    # already done would prove nothing
    proc = _spawn_inbox(gh, tmp_path, *follow_all(KEYS_I[:2]), pause="renamed:2")
    _wait_for(lambda: first.file("updates").read_bytes() != old, proc)
    assert proc.poll() is None, "the signal must reach the process before it ends"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, (out, err)
    doc = json.loads(out)
    assert "interrupted" not in doc and len(doc["conversations"]) == 2
    snap = json.loads((state_dir(tmp_path) / "inbox-updates.json").read_text())["snapshots"][0]
    assert snap["snapshot_id"] == doc["snapshot_id"]  # the inbox file, written last, too
    for c in doc["conversations"]:
        assert json.loads(open(c["updates_file"]).read())["snapshot_id"] == c["snapshot_id"]
    assert _temp_files(tmp_path) == []


def test_get_user_is_asked_once_per_command(gh, tmp_path):
    r = inbox(gh, tmp_path, *follow_all(), "--ignore-author", "@me")
    assert r.code == 0, r
    assert len([q for q in gh.requests if q.path == "/user"]) == 1


def test_the_summary_format_lists_the_conversations(gh, tmp_path):
    settle(gh, tmp_path)
    reply = gh.add_comment(OWNER, NAME, ISSUES[2], "A reply\x1b[2J", user="dave")["id"]
    r = inbox(gh, tmp_path, *follow_all(), "--format", "summary")
    assert r.code == 0, r
    assert f"=== {KEYS_I[2]} ===" in r.stdout and str(reply) in r.stdout
    assert "\x1b" not in r.stdout  # escaped: a comment cannot rewrite the terminal
    assert f"quiet: {KEYS_I[0]}" in r.stdout


def test_the_largest_x_poll_interval_spaces_the_inbox_polls(gh, tmp_path):
    settle(gh, tmp_path, KEYS_I)
    gh.poll_interval = 20
    try:
        r = inbox(gh, tmp_path, *follow_all(KEYS_I), "--wait", 60, "--poll-interval", 5,
                  env=scaled(gh, "0.05"))
    finally:
        gh.poll_interval = None
    assert r.code == 0, r
    # at 0, 20 and 40 (not 13 polls 5 s apart); none at 60: a poll must end by S
    assert 2 <= r.json["polls"] <= 3
    assert 39 <= r.json["waited_seconds"] <= 60
    assert [q.status for q in gh.requests] == [304] * 3 * r.json["polls"]


def test_a_signal_during_the_inbox_wait_prints_the_interrupted_document(gh, tmp_path):
    import signal
    import subprocess
    import time

    from tests.support import SCRIPT_PYTHON, SCRIPTS

    settle(gh, tmp_path, KEYS_I)
    before = tree(tmp_path)
    cmd = [SCRIPT_PYTHON, str(SCRIPTS / "check_issue_updates.py"), "--root", str(tmp_path),
           *follow_all(KEYS_I), "--wait", 600, "--poll-interval", 5]
    proc = subprocess.Popen([str(c) for c in cmd], env=scaled(gh, "0.05"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while len([q for q in gh.requests if q.status == 304]) < 6 and time.monotonic() < deadline:
        time.sleep(0.05)  # two polls answered
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    doc = json.loads(out)
    assert doc["interrupted"] is True and doc["snapshot_id"] is None
    assert doc["conversations"] == [] and doc["polls"] >= 2
    after = tree(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith(".")} == {
        k: v for k, v in before.items() if not k.startswith(".")}


# --------------------------------------------------------------------------- the allocation

def test_allocate_round_robin_properties():
    """budget.allocate in-process over random rounds: at most N items but for the two
    exceptions, every round filled in turn, nothing skipped inside a round."""
    import sys

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tests.support import SCRIPTS

    sys.path.insert(0, str(SCRIPTS))
    from ghcomments.round.budget import Units, allocate

    rounds_st = st.lists(st.tuples(st.lists(st.integers(0, 6), max_size=8), st.booleans()),
                         max_size=6)

    @settings(max_examples=300, deadline=None)
    @given(rounds_st, st.integers(1, 30))
    def check(rounds, total):
        units = [Units(sizes, tail) for sizes, tail in rounds]
        kept = allocate(units, total)
        used = [sum(u.sizes[:k]) for u, k in zip(units, kept)]
        forced = 0
        for u, k in zip(units, kept):
            assert 0 <= k <= len(u.sizes)
            if u.tail and any(u.sizes):
                first = next(i for i, s in enumerate(u.sizes) if s)
                assert k > first  # a round without a checkpoint returns its newest item
                forced += u.sizes[first]
        biggest = max((s for u in units for s in u.sizes), default=0)
        assert sum(used) <= total + forced + biggest
        if sum(used) <= total:
            # every round that stopped short stopped at a unit that did not fit
            for u, k in zip(units, kept):
                if k < len(u.sizes):
                    assert sum(used) + u.sizes[k] > total
        # nothing left over when everything fits
        if sum(sum(u.sizes) for u in units) <= total:
            assert kept == [len(u.sizes) for u in units]

    check()


def test_more_than_100_rounds_is_exit_2_before_any_request(gh, tmp_path):
    refs = []
    for n in range(1, 102):
        refs += ["--follow", f"{OWNER}/{NAME}#{n}"]
    r = inbox(gh, tmp_path, *refs)
    assert r.code == 2, r
    assert "100" in r.json["error"]["message"] and len(gh.requests) == 0
    assert not state_dir(tmp_path).exists()
    # duplicates merge: the same round named three ways is one round
    r = inbox(gh, tmp_path, "--follow", KEYS_I[0], "--follow", f"{OWNER}/{NAME}#{ISSUES[0]}",
              "--follow", f"{OWNER.upper()}/{NAME}/issues/{ISSUES[0]}")
    assert r.code == 0 and r.json["followed"] == 1, r


def test_a_starting_cursor_gets_its_comment_time_from_the_read(web_urls, tmp_path):
    gh = web_urls
    mine = gh.add_comment(OWNER, NAME, ISSUES[0], "my question", user="octocat")
    url = mine["html_url"]
    r = inbox(gh, tmp_path, "--follow", url)
    assert r.code == 0, r
    (quiet_key,) = r.json["quiet"]
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0 and c.json["confirmed"] == [quiet_key], c
    cp = json.loads(Agent(gh, tmp_path, "--issue", ISSUES[0]).file().read_text())
    assert cp["last_comment_id"] == mine["id"]
    assert cp["last_comment_created_at"] == mine["created_at"]


def test_each_round_of_an_inbox_check_can_be_confirmed_alone(gh, tmp_path):
    r = inbox(gh, tmp_path, *follow_all())
    assert r.code == 0, r
    confirm_each(gh, tmp_path, r.json)  # each conversation's own snapshot, as a single check's
    for c in r.json["conversations"]:
        kind, number = c["key"].split("/")[2:]
        a = Agent(gh, tmp_path, "--pr" if kind == "pull" else "--issue", int(number))
        assert a.file().exists()
    # the inbox snapshot afterwards: every round already applied
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0 and c.json["already_applied"] == KEYS_I + KEYS_P, c


def test_the_last_poll_of_an_inbox_wait_is_one_poll(gh, tmp_path):
    """--wait 60 --poll-interval 30: polls at 0, 30 and one last poll that ends by 60."""
    settle(gh, tmp_path, KEYS_I)
    for _ in range(3):
        r = inbox(gh, tmp_path, *follow_all(KEYS_I), "--wait", 60, "--poll-interval", 30,
                  env=scaled(gh, "0.05"))
        assert r.code == 0, r
        assert 2 <= r.json["polls"] <= 3, r.json["polls"]
        assert [q.status for q in gh.requests] == [304] * 3 * r.json["polls"]


def test_a_host_that_refuses_connections_ends_the_inbox_at_the_first_round(fake, tmp_path):
    """A connection the host refuses is the host's error, not one round's (section 18): the
    first round's three attempts end the command; the other rounds are never tried."""
    import socket

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = script_env(fake, GITHUB_API_URL=f"http://127.0.0.1:{port}",
                     GH_MONITOR_TEST_TIME_SCALE="0.01")
    r = inbox(fake, tmp_path, *follow_all(KEYS_I), env=env)
    assert r.code == 6, r
    assert json.loads(r.stdout)["error"]["code"] == "network", r.stdout
    tried = [line for line in r.stderr.splitlines() if "retrying" in line]
    assert len(tried) == 2, r.stderr  # attempts 2 and 3 of the first round, then the end
    assert all(f"#{ISSUES[0]}" in line or f"/{ISSUES[0]}/" in line for line in tried), r.stderr
    for n in ISSUES[1:]:
        assert f"#{n}" not in r.stderr and f"/{n}/" not in r.stderr, r.stderr
