"""`--include-edits` through the inbox (CONTRACT sections 18 and 19), run as an agent runs it:
subprocesses against the fake GitHub, request counts from the fake's log.

What the inbox adds to a round's edits: edited items are `--max-total` units (a cut that drops
one keeps W and records only what was returned, so the edit comes back exactly once); the inbox
file holds each round's whole watermark (its confirm writes it, and is "already applied" only at
the same watermark or past it); stdout shows watermarks as `{through, seen_count}`; an idle poll
with the flag stays within I*(1+e) + P*(2+2e) + r + d, all 304.
"""

from __future__ import annotations

import hashlib
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
    state_dir,
)

FLAG = "--include-edits"
ISSUES = (5, 9, 11)
PRS = (7, 8)
KEYS_I = [f"{OWNER}/{NAME}/issues/{n}" for n in ISSUES]
KEYS_P = [f"{OWNER}/{NAME}/pull/{n}" for n in PRS]


@pytest.fixture
def gh(fake):
    fake.add_repo(OWNER, NAME)
    made = {}
    for n in ISSUES:
        fake.add_issue(OWNER, NAME, n)
        made[n] = fake.add_comments(OWNER, NAME, n, 3)
    for n in PRS:
        fake.add_pull(OWNER, NAME, n, title=f"PR {n}")
        made[n] = fake.add_comments(OWNER, NAME, n, 2)
    fake.review_order = "id"
    fake.made = made
    return fake


def sha(body):
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def ids(items):
    return [x["id"] for x in items]


def inbox_round(root, snapshot_id, key):
    data = json.loads((state_dir(root) / "inbox-updates.json").read_text())
    snap = [s for s in data["snapshots"] if s["snapshot_id"] == snapshot_id][0]
    return [e for e in snap["rounds"] if e["key"] == key][0]


def stored_edits(fake, root, number, part=None):
    a = Agent(fake, root, "--pr" if number in PRS else "--issue", number)
    cp = json.loads(a.file().read_text())
    return (cp[part] if part else cp).get("edits")


def settle(fake, root, keys, *args):
    """Follow the rounds with the flag and confirm until a check is quiet (the first flagged
    check establishes each watermark; the next leaves the poll hints)."""
    for _ in range(4):
        r = inbox(fake, root, *follow_args(keys), FLAG, *args)
        assert r.code == 0, r
        if not r.json["conversations"] and not r.json["errors"]:
            return r.json
        c = latest(fake, root, "--followed", "--confirm-updates", "--snapshot-id",
                   r.json["snapshot_id"])
        assert c.code == 0, c
    raise AssertionError("the inbox did not settle")


def watermark_shapes_on_stdout(doc):
    for c in doc["conversations"]:
        for cp in (c["previous_checkpoint"], c["recommended_checkpoint"]):
            for part in ([cp] if "last_comment_id" in (cp or {}) else
                         [v for v in (cp or {}).values() if isinstance(v, dict)]):
                if part.get("edits") is not None:
                    assert set(part["edits"]) == {"through", "seen_count"}, part


# --------------------------------------------------------------------------- one check


def test_an_edit_in_one_round_and_new_comments_in_another(gh, tmp_path):
    keys = KEYS_I
    settle(gh, tmp_path, keys)
    gh.advance(60)
    edited = gh.made[5][0]
    gh.edit_comment(edited, "LGTM, but rename this")
    new = gh.add_comments(OWNER, NAME, 9, 2)
    r = inbox(gh, tmp_path, *follow_args(keys), FLAG)
    assert r.code == 0, r
    doc = r.json
    rounds = by_key(doc)
    assert set(rounds) == {KEYS_I[0], KEYS_I[1]} and doc["quiet"] == [KEYS_I[2]]
    one, two = rounds[KEYS_I[0]], rounds[KEYS_I[1]]
    assert ids(one["edited_comments"]) == [edited] and one["new_comments"] == []
    assert one["edited_comments"][0]["body"] == "LGTM, but rename this"
    assert one["edited_comment_count"] == 1 and one["has_updates"] is True
    assert ids(two["new_comments"]) == new and two["edited_comments"] == []
    assert doc["has_updates"] is True
    watermark_shapes_on_stdout(doc)
    # the files hold the whole watermark: the inbox file's recommendation, its round's own
    # updates file, and the stored checkpoint its confirm writes
    entry = inbox_round(tmp_path, doc["snapshot_id"], KEYS_I[0])
    whole = entry["recommended_checkpoint"]["edits"]
    assert set(whole) == {"through", "seen", "moved_at"}  # turn 5: moved_at = read_at
    assert edited in [e[0] for e in whole["seen"]]
    assert one["recommended_checkpoint"]["edits"] == {"through": whole["through"],
                                                      "seen_count": len(whole["seen"])}
    own = json.loads(open(one["updates_file"]).read())
    assert own["recommended_checkpoint"]["edits"] == whole
    assert entry["previous_sha256"] is not None
    # requests: per issue the conversation probe and the `since` probe; the changed ones read
    assert doc["requests"] == len(gh.requests) <= 3 * 2 + 2
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               doc["snapshot_id"])
    assert c.code == 0, c
    assert sorted(c.json["confirmed"]) == sorted([KEYS_I[0], KEYS_I[1]])
    assert stored_edits(gh, tmp_path, 5) == whole
    # returned once: the next check has nothing, all 304
    again = inbox(gh, tmp_path, *follow_args(keys), FLAG)
    assert again.code == 0, again
    assert again.json["conversations"] == [] and again.json["has_updates"] is False
    assert all(q.status == 304 for q in gh.requests), [(q.path, q.status) for q in gh.requests]


def test_an_edit_on_a_pull_request_round_through_the_inbox(gh, tmp_path):
    keys = KEYS_P[:1]
    settle(gh, tmp_path, keys)
    gh.advance(60)
    gh.edit_comment(gh.made[7][1], "edited on the pull request")
    r = inbox(gh, tmp_path, *follow_args(keys), FLAG)
    assert r.code == 0, r
    pr = by_key(r.json)[KEYS_P[0]]
    assert ids(pr["edited_comments"]) == [gh.made[7][1]]
    assert pr["edited_review_comments"] == []
    watermark_shapes_on_stdout(r.json)
    text = inbox(gh, tmp_path, *follow_args(keys), FLAG, "--format", "summary")
    assert text.code == 0, text
    assert "edited since handled: 1 comment(s), 0 inline comment(s)" in text.stdout
    assert "edited on the pull request" in text.stdout


# --------------------------------------------------------------------------- --max-total


def test_a_max_total_cut_drops_an_edit_that_comes_back_exactly_once(gh, tmp_path):
    keys = KEYS_I
    settle(gh, tmp_path, keys)
    gh.advance(60)
    old = gh.made[5]
    for i, cid in enumerate(old):
        gh.edit_comment(cid, f"edit {i}")
    gh.advance(60)
    new = gh.add_comments(OWNER, NAME, 5, 2)
    before = stored_edits(gh, tmp_path, 5)
    seen, docs = [], 0
    while True:
        r = inbox(gh, tmp_path, *follow_args(keys), FLAG, "--max-total", 3)
        assert r.code == 0, r
        doc = r.json
        docs += 1
        if not doc["has_updates"]:
            assert doc["more_in"] == []
            break
        assert [c["key"] for c in doc["conversations"]] == [KEYS_I[0]]
        one = doc["conversations"][0]
        n = len(one["new_comments"]) + len(one["edited_comments"])
        assert n <= 3
        seen += [("new", x["id"]) for x in one["new_comments"]]
        seen += [("edited", x["id"], x["body"]) for x in one["edited_comments"]]
        entry = inbox_round(tmp_path, doc["snapshot_id"], KEYS_I[0])
        if docs == 1:
            # the first batch: new, edited, new (round-robin over the round's kinds); the
            # other two edits dropped: W stays, `seen` holds only what was returned
            assert doc["more_in"] == [KEYS_I[0]] and one["more_available"] is True
            assert ids(one["new_comments"]) == new and ids(one["edited_comments"]) == [old[0]]
            rec = entry["recommended_checkpoint"]["edits"]
            assert rec["through"] == before["through"]
            got = {e[0]: e for e in rec["seen"]}
            was = {e[0]: e for e in before["seen"]}
            assert got[old[0]][2] == sha("edit 0")  # returned: its pair given
            for k, cid in enumerate(old[1:], 1):  # dropped: the entry held before stays
                assert got.get(cid) == was.get(cid)
                assert cid not in got or got[cid][2] != sha(f"edit {k}")
            assert set(got) - set(was) <= {old[0]} | set(new)
        c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   doc["snapshot_id"])
        assert c.code == 0, c
        assert docs < 6
    assert docs == 3  # two batches and the quiet check
    assert len(seen) == len(set(seen)) == 5, seen
    assert sorted(s for s in seen if s[0] == "edited") == [
        ("edited", cid, f"edit {i}") for i, cid in enumerate(old)]
    assert {s[1] for s in seen if s[0] == "new"} == set(new)
    # W moved once the whole window was returned
    after = stored_edits(gh, tmp_path, 5)
    assert after["through"] > before["through"]


# --------------------------------------------------------------------------- the confirm


def test_the_inbox_confirm_writes_a_snapshot_whose_only_change_is_an_edit(gh, tmp_path):
    keys = KEYS_I[:2]
    settle(gh, tmp_path, keys)
    gh.advance(60)
    gh.edit_comment(gh.made[5][2], "edited")
    r = inbox(gh, tmp_path, *follow_args(keys), FLAG)
    assert r.code == 0, r
    one = by_key(r.json)[KEYS_I[0]]
    assert ids(one["edited_comments"]) == [gh.made[5][2]]
    # same id cursor, another watermark: the confirm writes it (not "already applied")
    assert one["previous_checkpoint"]["last_comment_id"] == \
        one["recommended_checkpoint"]["last_comment_id"]
    entry = inbox_round(tmp_path, r.json["snapshot_id"], KEYS_I[0])
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0, c
    assert c.json["confirmed"] == [KEYS_I[0]]
    assert KEYS_I[1] in c.json["already_applied"]
    assert stored_edits(gh, tmp_path, 5) == entry["recommended_checkpoint"]["edits"]
    assert "seen\"" not in c.stdout  # no whole watermark on stdout
    # the same snapshot again: already applied, nothing written
    cp = Agent(gh, tmp_path, "--issue", 5).file().read_bytes()
    again = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   r.json["snapshot_id"])
    assert again.code == 0, again
    assert again.json["confirmed"] == [] and KEYS_I[0] in again.json["already_applied"]
    assert Agent(gh, tmp_path, "--issue", 5).file().read_bytes() == cp
    nothing = inbox(gh, tmp_path, *follow_args(keys), FLAG)
    assert nothing.json["conversations"] == []


def test_the_inbox_confirm_is_already_applied_past_a_later_watermark(gh, tmp_path):
    keys = KEYS_I[:2]
    settle(gh, tmp_path, keys)
    gh.advance(60)
    gh.edit_comment(gh.made[5][0], "first edit")
    gh.add_comments(OWNER, NAME, 9, 1)
    r = inbox(gh, tmp_path, *follow_args(keys), FLAG)
    assert r.code == 0, r
    recorded = inbox_round(tmp_path, r.json["snapshot_id"], KEYS_I[0])
    # the round moves alone, past the inbox snapshot: a later edit, a flagged check, its confirm
    gh.advance(60)
    gh.edit_comment(gh.made[5][1], "second edit")
    a = Agent(gh, tmp_path, "--issue", 5)
    single = a.check(FLAG)
    assert single.code == 0, single
    assert ids(single.json["edited_comments"]) == [gh.made[5][0], gh.made[5][1]]
    assert a.confirm(single.json["snapshot_id"]).code == 0
    stored = stored_edits(gh, tmp_path, 5)
    assert stored["through"] > recorded["recommended_checkpoint"]["edits"]["through"]
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0, c
    assert c.json["already_applied"] == [KEYS_I[0]] and c.json["confirmed"] == [KEYS_I[1]]
    assert c.json["refused"] == []
    assert stored_edits(gh, tmp_path, 5) == stored  # never moved back


def test_the_inbox_confirm_refuses_a_round_whose_watermark_moved_alone(gh, tmp_path):
    keys = KEYS_I[:1]
    settle(gh, tmp_path, keys)
    gh.advance(60)
    new = gh.add_comments(OWNER, NAME, 5, 1)
    r = inbox(gh, tmp_path, *follow_args(keys), FLAG)  # the id cursor and W move to the new one
    assert r.code == 0, r
    entry = inbox_round(tmp_path, r.json["snapshot_id"], KEYS_I[0])
    # meanwhile the round moves alone: its own flagged check, confirmed --through the new
    # comment (a partial confirm keeps W and records the pair): the same id cursor as the
    # inbox recorded, another watermark, neither the one the inbox read after nor past it
    a = Agent(gh, tmp_path, "--issue", 5)
    single = a.check(FLAG)
    assert single.code == 0 and ids(single.json["new_comments"]) == new
    assert a.confirm(single.json["snapshot_id"], "--through", new[0]).code == 0
    stored = stored_edits(gh, tmp_path, 5)
    recorded = entry["recommended_checkpoint"]
    assert recorded["last_comment_id"] == new[0]
    assert stored["through"] < recorded["edits"]["through"]
    before = a.file().read_bytes()
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 7, c
    assert [x["key"] for x in c.json["refused"]] == [KEYS_I[0]]
    assert c.json["confirmed"] == [] and c.json["already_applied"] == []
    assert a.file().read_bytes() == before


# --------------------------------------------------------------------------- idle


def test_an_idle_inbox_poll_with_the_flag_is_within_the_bound_all_304(gh, tmp_path):
    keys = KEYS_I + KEYS_P
    settle(gh, tmp_path, keys)
    r = inbox(gh, tmp_path, *follow_args(keys), FLAG)
    assert r.code == 0, r
    assert r.json["conversations"] == [] and r.json["quiet"] == keys
    # I*(1+e) + P*(2+2e) + r + d with e = 1, r = d = 0: 3*2 + 2*4
    assert len(gh.requests) <= 3 * 2 + 2 * 4
    assert len(gh.requests) > 3 * 1 + 2 * 2  # the flag's probes are asked
    assert all(q.status == 304 for q in gh.requests), [(q.path, q.status) for q in gh.requests]
    assert r.json["requests"] == len(gh.requests)
    w = inbox(gh, tmp_path, "--followed", FLAG, "--wait", 1, "--poll-interval", 5)
    assert w.code == 0, w
    assert w.json["has_updates"] is False
    polls = w.json.get("polls") or 1
    assert len(gh.requests) <= polls * (3 * 2 + 2 * 4)
    assert all(q.status == 304 for q in gh.requests), [(q.path, q.status) for q in gh.requests]


def review(fake, pr, comments, user="bob"):
    notes = [{"path": f"src/m{i}.py", "line": 10 + i, "body": f"note {i}"}
             for i in range(comments)]
    started = fake.start_review(OWNER, NAME, pr, user, body="See the notes.", comments=notes)
    fake.advance(60)
    fake.submit_review(started["id"], state="COMMENTED")
    fake.advance(60)
    return started["id"], list(started["comment_ids"])


def test_edited_inline_comments_are_units_a_cut_returns_whole_later(gh, tmp_path):
    keys = KEYS_P[:1]
    _rid, inline = review(gh, PRS[0], 2)
    settle(gh, tmp_path, keys)
    gh.advance(60)
    for i, cid in enumerate(inline):
        gh.edit_review_comment(cid, f"inline edit {i}")
    gh.advance(60)
    rid2, inline2 = review(gh, PRS[0], 1)
    before = stored_edits(gh, tmp_path, PRS[0], "reviews")
    r = inbox(gh, tmp_path, *follow_args(keys), FLAG, "--max-total", 2)
    assert r.code == 0, r
    pr = by_key(r.json)[KEYS_P[0]]
    # the new review (2 items: itself and its comment) fills the bound: the edits wait
    assert ids(pr["new_reviews"]) == [rid2] and ids(pr["new_review_comments"]) == inline2
    assert pr["edited_review_comments"] == [] and r.json["more_in"] == [KEYS_P[0]]
    rec = inbox_round(tmp_path, r.json["snapshot_id"], KEYS_P[0])["recommended_checkpoint"]
    assert rec["reviews"]["edits"]["through"] == before["through"]
    c = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
               r.json["snapshot_id"])
    assert c.code == 0, c
    r2 = inbox(gh, tmp_path, *follow_args(keys), FLAG, "--max-total", 2)
    pr2 = by_key(r2.json)[KEYS_P[0]]
    assert ids(pr2["edited_review_comments"]) == inline
    assert [x["body"] for x in pr2["edited_review_comments"]] == ["inline edit 0",
                                                                  "inline edit 1"]
    assert pr2["new_reviews"] == [] and r2.json["more_in"] == []
    assert all(x.get("thread_id") for x in pr2["edited_review_comments"])
    c2 = latest(gh, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                r2.json["snapshot_id"])
    assert c2.code == 0, c2
    r3 = inbox(gh, tmp_path, *follow_args(keys), FLAG)
    assert r3.json["conversations"] == [], r3.json["conversations"]


def test_the_followed_listing_and_unfollow_show_watermarks_summarized(gh, tmp_path):
    keys = [KEYS_I[0], KEYS_P[0]]
    _rid, _inline = review(gh, PRS[0], 1)
    settle(gh, tmp_path, keys)
    listing = latest(gh, tmp_path, "--followed")
    assert listing.code == 0, listing
    assert len(gh.requests) == 0
    rounds = {x["key"]: x["checkpoint"] for x in listing.json["rounds"]}
    issue_cp, pr_cp = rounds[KEYS_I[0]], rounds[KEYS_P[0]]
    for part in (issue_cp, pr_cp["conversation"], pr_cp["reviews"]):
        assert set(part["edits"]) == {"through", "seen_count"}, part
    assert pr_cp["reviews"]["edits"]["seen_count"] >= 1
    gone = latest(gh, tmp_path, "--unfollow", KEYS_P[0])
    assert gone.code == 0, gone
    assert set(gone.json["checkpoint"]["reviews"]["edits"]) == {"through", "seen_count"}
    assert '"seen"' not in listing.stdout + gone.stdout
