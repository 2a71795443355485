"""Section 22's last bullet (issue 39): after the checkpoint's own comment is deleted, the second
check is all 304 at every issue size — alone, with --include-edits and through the inbox, also
when the round's probe was the window holding only the newest comment (a round handled with
`--limit 100`: the deletion empties it, and the read that follows ends on a full window, which
is no sound probe). Run as an agent runs it: subprocesses against the fake GitHub."""

from __future__ import annotations

import pytest

from tests.support import OWNER, Agent, follow_args, inbox, latest

NAME = "hello"
ISSUE, OTHER = 5, 9
KEYS = [f"{OWNER}/{NAME}/issues/{ISSUE}", f"{OWNER}/{NAME}/issues/{OTHER}"]


def windows(fake):
    return [(q.query.get("per_page"), q.query.get("page"), q.status) for q in fake.requests]


@pytest.mark.parametrize("size", [101, 150, 250])
@pytest.mark.parametrize("flags", [(), ("--include-edits",)])
def test_the_second_check_after_the_checkpoint_comment_is_deleted_is_all_304(
        fake, tmp_path, size, flags):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    made = fake.add_comments(OWNER, NAME, ISSUE, size)
    agent = Agent(fake, tmp_path, "--issue", ISSUE)
    for _ in range(6):
        r = agent.check(*flags, "--limit", 100)
        assert r.code == 0 and agent.confirm(r.json["snapshot_id"]).code == 0
        if not r.json["has_updates"] and not r.json["more_available"]:
            break
    fake.delete_comment(made[-1])
    gone = agent.check(*flags)
    assert gone.code == 0 and gone.json["has_updates"] is False, gone
    assert agent.confirm(gone.json["snapshot_id"]).code == 0
    second = agent.check(*flags)
    assert second.code == 0 and second.json["has_updates"] is False
    assert {s for _p, _n, s in windows(fake)} == {304}, windows(fake)
    new = fake.add_comments(OWNER, NAME, ISSUE, 1)  # nothing lost after it
    doc = agent.check(*flags).json
    assert [c["id"] for c in doc["new_comments"]] == new


@pytest.mark.parametrize("size", [101, 250])
@pytest.mark.parametrize("flags", [(), ("--include-edits",)])
def test_through_the_inbox_too(fake, tmp_path, size, flags):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    fake.add_issue(OWNER, NAME, OTHER, title="Other")
    made = fake.add_comments(OWNER, NAME, ISSUE, size)
    fake.add_comments(OWNER, NAME, OTHER, 3)

    def check(*args):
        r = inbox(fake, tmp_path, *args, *flags, "--limit", 100, "--max-total", 500)
        assert r.code == 0, r
        r.windows = windows(fake)  # the confirm's log replaces the check's
        if r.json["snapshot_id"]:
            c = latest(fake, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                       r.json["snapshot_id"])
            assert c.code == 0, c
        return r

    check(*follow_args(KEYS))
    for _ in range(5):
        if not check("--followed").json["conversations"]:
            break
    fake.delete_comment(made[-1])
    check("--followed")
    second = check("--followed")
    assert second.json["conversations"] == []
    assert {s for _p, _n, s in second.windows} == {304}, second.windows
