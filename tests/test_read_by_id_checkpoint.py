"""A read by id tells the truth about the checkpoint (CONTRACT sections 6 and 12).

`get_latest_comments.py --comment-id`, `--review-comment-id` and `--review-id` never move the
checkpoint, and their `previous_checkpoint` is the stored one (read from the state folder: no
request of its own), `null` only when none is stored — whatever the state layout (the default
run, `--run-id`, `--retained`), on an issue and on a pull request. Scripts run as subprocesses
against the fake; the state files are compared byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import OWNER, Agent

NAME = "hello"
PR = 7
ISSUE = 5
ME = "octocat"
LAYOUTS = {"default": (), "run-id": ("--run-id", "r42"), "retained": ("--retained", "watch")}


def files(root):
    tmp = Path(root) / ".tmp"
    return {str(p.relative_to(tmp)): p.read_bytes() for p in sorted(tmp.rglob("*"))
            if p.is_file()} if tmp.exists() else {}


@pytest.fixture
def world(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="A bug")
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user=ME)
    said = fake.add_comment(OWNER, NAME, ISSUE, "On the issue.", user="bob")
    remark = fake.add_comment(OWNER, NAME, PR, "On the pull request.", user="bob")
    fake.advance(60)
    started = fake.start_review(OWNER, NAME, PR, "carol", body="See the notes.",
                                comments=[{"path": "src/a.py", "line": 3, "body": "note"}])
    fake.advance(60)
    fake.submit_review(started["id"], state="COMMENTED")
    fake.advance(60)
    return {"issue_comment": said["id"], "pr_comment": remark["id"],
            "review_id": started["id"], "review_comment_id": started["comment_ids"][0]}


def reads(world, target):
    if target == "--issue":
        return [("--comment-id", world["issue_comment"])]
    return [("--comment-id", world["pr_comment"]),
            ("--review-comment-id", world["review_comment_id"]),
            ("--review-id", world["review_id"])]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("target", ["--issue", "--pr"])
def test_a_read_by_id_reports_the_stored_checkpoint(fake, world, tmp_path, target, layout):
    agent = Agent(fake, tmp_path, target, ISSUE if target == "--issue" else PR)
    where = LAYOUTS[layout]
    for flag, value in reads(world, target):  # no checkpoint yet: null, and nothing written
        r = agent.latest(flag, value, *where)
        assert r.code == 0, r
        assert r.json["previous_checkpoint"] is None, r.json
        assert files(tmp_path) == {}
    seen = agent.check(*where)
    assert seen.code == 0, seen
    assert agent.confirm(seen.json["snapshot_id"], *where).code == 0
    plain = agent.latest(*where)  # the checkpoint-mode read: what is stored, in public shape
    assert plain.code == 0 and plain.json["previous_checkpoint"] is not None, plain
    stored = plain.json["previous_checkpoint"]
    before = files(tmp_path)
    for flag, value in reads(world, target):
        r = agent.latest(flag, value, *where)
        assert r.code == 0, r
        assert r.json["previous_checkpoint"] == stored, (flag, r.json["previous_checkpoint"])
        assert r.json["state_updated"] is False
        assert r.json["requests"] == len(fake.requests)
        assert all(str(value) in q.path for q in fake.requests), fake.requests  # no extra read
        assert files(tmp_path) == before
