"""A moved repository or issue (CONTRACT amendments, turn 6; issue 39): GitHub's recorded 301
for a renamed repository, replayed through the fake. Without `--include-events` a read answered
with a redirect follows it once, says so, and the round's later reads go straight to the new
location (idle polls one 304 each, never a 301 per poll); with the flag a stored `moved_to`
sends nothing on idle polls."""

from __future__ import annotations

import json
import re

import pytest
import requests

from tests.events_support import FLAG, ISSUE, NAME, PR, paths, settle, statuses
from tests.realshapes import exchange, needs
from tests.support import OWNER, TOKEN, Agent, by_key, inbox, latest

RECORDED = "pygithub/Repository.testGetRepositoryWith301Redirect.txt"
NEW = "hello-renamed"


@pytest.fixture
def issue(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    fake.add_comments(OWNER, NAME, ISSUE, 3)
    return fake


@pytest.fixture
def agent(issue, tmp_path):
    return Agent(issue, tmp_path, "--issue", ISSUE)


@pytest.fixture
def pr(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    fake.add_comments(OWNER, NAME, PR, 2)
    return fake


@pytest.fixture
def pagent(pr, tmp_path):
    return Agent(pr, tmp_path, "--pr", PR)


def moved_warnings(doc):
    return [w for w in doc["warnings"] if "moved" in w]


# ------------------------------------------------------------ the fake answers as GitHub did


@needs(RECORDED)
def test_the_fakes_rename_answers_as_github_recorded(fake):
    fake.add_token(TOKEN, login="octocat")
    fake.add_repo(OWNER, NAME)
    rid = fake.rename_repo(OWNER, NAME, NEW)
    real = exchange(RECORDED, "/repos/protoncoin/protoncoin")
    got = requests.get(f"{fake.url}/repos/{OWNER}/{NAME}", allow_redirects=False,
                       headers={"Authorization": f"token {TOKEN}"}, timeout=10)
    assert got.status_code == real.status == 301
    assert set(got.json()) == set(real.json)
    assert got.json()["message"] == real.json["message"]
    assert re.fullmatch(r"https://api\.github\.com/repositories/\d+", real.headers["location"])
    assert got.headers["location"] == f"{fake.url}/repositories/{rid}"
    assert got.json()["url"] == got.headers["location"]
    # the redirect target answers with the new name, as the recording's second exchange
    after = exchange(RECORDED, "/repositories/112116543").json
    there = requests.get(got.headers["location"], timeout=10,
                         headers={"Authorization": f"token {TOKEN}"}).json()
    assert there["full_name"] == f"{OWNER}/{NEW}" and set(after) >= {"id", "full_name"}
    # below the repository, the path and the query are kept (assumed)
    sub = requests.get(f"{fake.url}/repos/{OWNER}/{NAME}/issues/5/comments?per_page=7&page=2",
                       allow_redirects=False, timeout=10,
                       headers={"Authorization": f"token {TOKEN}"})
    assert sub.status_code == 301
    assert sub.headers["location"] == (f"{fake.url}/repositories/{rid}/issues/5/comments"
                                       "?per_page=7&page=2")


# ------------------------------------------------------------ 1. without --include-events


def test_a_renamed_repository_is_followed_once_then_read_at_its_new_place(issue, agent):
    settle(agent)
    r = agent.check()
    assert statuses(issue) == [304], list(zip(paths(issue), statuses(issue)))  # idle: 1
    rid = issue.rename_repo(OWNER, NAME, NEW)
    r = agent.check()
    assert r.code == 0 and r.json["has_updates"] is False, r
    # followed once: the page's body names the new repository (its urls), so a 200
    assert statuses(issue)[0] == 301 and statuses(issue).count(301) == 1, (
        list(zip(paths(issue), statuses(issue))))
    said = moved_warnings(r.json)
    assert len(said) == 1, r.json["warnings"]
    assert f"/repositories/{rid}" in said[0] and f"--repo {OWNER}/{NEW}" in said[0], said
    for _ in range(2):  # every later idle poll: one 304 at the new place, 0 points
        r = agent.check()
        assert r.code == 0 and r.json["has_updates"] is False, r
        assert statuses(issue) == [304], list(zip(paths(issue), statuses(issue)))
        assert paths(issue)[0].startswith(f"/repositories/{rid}/"), paths(issue)
        assert r.json["requests"] == 1
        assert moved_warnings(r.json), r.json["warnings"]  # still says where it went
    # a new comment is read there, and the checkpoint stays valid
    issue.add_comment(OWNER, NEW, ISSUE, "after the rename", user="alice")
    r = agent.check()
    assert r.code == 0 and [c["body"] for c in r.json["new_comments"]] == ["after the rename"]
    assert all(p.startswith(f"/repositories/{rid}/") for p in paths(issue)), paths(issue)
    assert agent.confirm(r.json["snapshot_id"]).code == 0
    r = agent.check()
    assert statuses(issue) == [304], list(zip(paths(issue), statuses(issue)))


def test_a_renamed_repository_pull_request_round_settles_to_two_304(pr, pagent):
    settle(pagent)
    pagent.check()
    assert statuses(pr) == [304, 304]
    rid = pr.rename_repo(OWNER, NAME, NEW)
    r = pagent.check()
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert statuses(pr).count(301) == 1, list(zip(paths(pr), statuses(pr)))
    assert f"--repo {OWNER}/{NEW}" in " ".join(moved_warnings(r.json)), r.json["warnings"]
    r = pagent.check()
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert statuses(pr) == [304, 304], list(zip(paths(pr), statuses(pr)))
    assert all(p.startswith(f"/repositories/{rid}/") for p in paths(pr)), paths(pr)


def test_a_transferred_issue_without_the_flag_is_followed_once(issue, agent):
    issue.add_repo(OWNER, "elsewhere")
    settle(agent)
    number = issue.transfer_issue(OWNER, NAME, ISSUE, OWNER, "elsewhere")
    r = agent.check()
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert f"{OWNER}/elsewhere#{number}" in " ".join(moved_warnings(r.json)), r.json["warnings"]
    r = agent.check()
    assert statuses(issue) == [304], list(zip(paths(issue), statuses(issue)))


def test_the_inbox_settles_after_a_rename(fake, tmp_path):
    fake.add_repo(OWNER, NAME)
    fake.add_repo(OWNER, "other")
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    fake.add_comments(OWNER, NAME, ISSUE, 2)
    fake.add_pull(OWNER, "other", PR, title="x", user="alice")
    refs = ["--follow", f"{OWNER}/{NAME}#{ISSUE}", "--follow", f"{OWNER}/other/pull/{PR}"]

    def check_and_confirm():
        r = inbox(fake, tmp_path, *refs)
        assert r.code == 0 and r.json["errors"] == [], r
        doc = dict(r.json, sent=list(zip(paths(fake), statuses(fake))))
        c = latest(fake, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   r.json["snapshot_id"])
        assert c.code == 0, c
        return doc
    for _ in range(2):
        doc = check_and_confirm()
    assert [s for _p, s in doc["sent"]] == [304, 304, 304], doc["sent"]
    rid = fake.rename_repo(OWNER, NAME, NEW)
    doc = check_and_confirm()
    assert [s for _p, s in doc["sent"]].count(301) == 1, doc["sent"]
    conv = by_key(doc)[f"{OWNER}/{NAME}/issues/{ISSUE}"]
    assert f"--repo {OWNER}/{NEW}" in " ".join(moved_warnings(conv)), conv["warnings"]
    for _ in range(2):
        doc = check_and_confirm()
        assert [s for _p, s in doc["sent"]] == [304, 304, 304], doc["sent"]
        assert sum(p.startswith(f"/repositories/{rid}/") for p, _s in doc["sent"]) == 1


def test_a_stored_relocation_never_leaves_the_api(issue, agent):
    """The relocation is kept in the hints file (a cache): one naming a URL, another
    repository's path or odd text is ignored, and the round reads its own path."""
    settle(agent)
    issue.rename_repo(OWNER, NAME, NEW)
    agent.check()
    hints = agent.file("hints")
    doc = json.loads(hints.read_text())
    assert doc.get("moved"), doc
    for bad in ("https://evil.example/repositories/1", "repositories/1/../../x",
                "//evil.example/repositories/1", "repos/a/../../b", 7):
        doc["moved"]["to"] = bad
        hints.write_text(json.dumps(doc))
        r = agent.check()
        assert r.code == 0, r
        assert paths(issue)[0].startswith(f"/repos/{OWNER}/{NAME}/"), paths(issue)
        doc = json.loads(hints.read_text())


# ------------------------------------------------------------ 2. with --include-events


def test_a_round_that_stored_moved_to_sends_nothing_on_idle_polls(issue, agent):
    settle(agent, FLAG)
    issue.add_repo(OWNER, "elsewhere")
    issue.transfer_issue(OWNER, NAME, ISSUE, OWNER, "elsewhere")
    r = agent.check(FLAG)
    assert r.code == 0 and r.json["has_updates"] is True and r.json["state"]["moved_to"], r
    moved_to = r.json["state"]["moved_to"]
    assert agent.confirm(r.json["snapshot_id"]).code == 0
    for _ in range(2):
        r = agent.check(FLAG)
        assert r.code == 0 and r.json["has_updates"] is False, r
        assert r.json["state"]["moved_to"] == moved_to
        assert statuses(issue) == [] and r.json["requests"] == 0, paths(issue)
        assert moved_warnings(r.json), r.json["warnings"]
    r = agent.check(FLAG, "--wait", 1, "--poll-interval", 5)  # a wait costs nothing either
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert statuses(issue) == [] and r.json["state"]["moved_to"] == moved_to


def test_a_renamed_repository_with_the_flag_is_moved_to_and_then_quiet(pr, pagent):
    settle(pagent, FLAG)
    rid = pr.rename_repo(OWNER, NAME, NEW)
    r = pagent.check(FLAG)
    assert r.code == 0 and r.json["has_updates"] is True, r
    assert f"/repositories/{rid}/" in r.json["state"]["moved_to"], r.json["state"]
    assert pagent.confirm(r.json["snapshot_id"]).code == 0
    r = pagent.check(FLAG)
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert statuses(pr) == [], list(zip(paths(pr), statuses(pr)))


def test_the_inbox_sends_nothing_for_a_moved_round(fake, tmp_path):
    fake.add_repo(OWNER, NAME)
    fake.add_repo(OWNER, "elsewhere")
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    fake.add_issue(OWNER, NAME, 6, title="Other")
    refs = ["--follow", f"{OWNER}/{NAME}#{ISSUE}", "--follow", f"{OWNER}/{NAME}#6"]

    def check_and_confirm():
        r = inbox(fake, tmp_path, *refs, FLAG)
        assert r.code == 0 and r.json["errors"] == [], r
        doc = dict(r.json, sent=list(zip(paths(fake), statuses(fake))))
        c = latest(fake, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   r.json["snapshot_id"])
        assert c.code == 0, c
        return doc
    for _ in range(2):
        doc = check_and_confirm()
    assert [s for _p, s in doc["sent"]] == [304, 304, 304, 304], doc["sent"]
    fake.transfer_issue(OWNER, NAME, ISSUE, OWNER, "elsewhere")
    doc = check_and_confirm()
    assert by_key(doc)[f"{OWNER}/{NAME}/issues/{ISSUE}"]["state"]["moved_to"]
    for _ in range(2):
        doc = check_and_confirm()
        assert [s for _p, s in doc["sent"]] == [304, 304], doc["sent"]
        assert all(f"/issues/{ISSUE}/" not in p for p, _s in doc["sent"]), doc["sent"]
        assert by_key(doc)[f"{OWNER}/{NAME}/issues/{ISSUE}"]["state"]["moved_to"]
