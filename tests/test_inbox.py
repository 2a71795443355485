"""The inbox core (CONTRACT section 18): many rounds in one check, one wait, one confirm.

Scripts run as subprocesses against the fake GitHub, as an agent runs them; every request count
comes from the fake's log. The rounds are the ones the single-round tests drive (section 5's
and 12's); these tests check what the inbox adds: one document over them, --max-total, errors
per round or for the host, the inbox file and its confirm.
"""

from __future__ import annotations

import json

import pytest

from tests.support import NAME, OWNER, Agent, run_script, script_env, state_dir

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


def inbox(fake, root, *args, env=None):
    """check_issue_updates.py over rounds (the fake's log cleared first)."""
    fake.clear_log()
    return run_script("check_issue_updates.py", "--root", root, *args,
                      env=env or script_env(fake))


def latest(fake, root, *args, env=None):
    fake.clear_log()
    return run_script("get_latest_comments.py", "--root", root, *args,
                      env=env or script_env(fake))


def follow_all(keys=KEYS_I + KEYS_P):
    out = []
    for k in keys:
        out += ["--follow", k]
    return out


def ids(items):
    return [x["id"] for x in items]


def by_key(doc):
    return {c["key"]: c for c in doc["conversations"]}


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
