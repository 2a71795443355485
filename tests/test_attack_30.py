"""Attacks on CONTRACT section 21 (`--include-events`): each test proved a defect against the
fake (a fresh helper's attack on issue 30); fixed, each now guards its fix. Three remain
xfail(strict), known and written in docs/reference.md: a force push whose event GitHub has not
listed yet is judged by its commits' authors (the contract's rule when there is no event), a
first ask's force push cut by --max-total, and an arrival after exactly 100 events under
--max-pages 1."""

from __future__ import annotations

import json
import threading

import pytest

from tests.events_support import (
    FLAG,
    ISSUE,
    NAME,
    PR,
    checkpoint,
    kinds,
    paths,
    settle,
    statuses,
)
from tests.support import OWNER, TOKEN, Agent, inbox, latest, script_env

DOC_COMPARE = "https://docs.github.com/rest/commits/commits#compare-two-commits"


@pytest.fixture(params=["ascending", "descending"])
def issue(fake, request):
    fake.events_order = request.param
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    return fake


@pytest.fixture
def agent(issue, tmp_path):
    return Agent(issue, tmp_path, "--issue", ISSUE)


@pytest.fixture
def pr(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser", user="alice")
    return fake


@pytest.fixture
def pagent(pr, tmp_path):
    return Agent(pr, tmp_path, "--pr", PR)


def corrupt(agent, mutate):
    path = agent.file()
    doc = json.loads(path.read_text())
    mutate(doc)
    path.write_text(json.dumps(doc))
    return path.read_bytes()


# --------------------------------------------------------------------------- stored state


@pytest.mark.parametrize("events", [
    {"last_event_id": "12", "state": {"state": "open", "locked": False, "moved_to": None}},
    "garbage",
    {"last_event_id": 3, "state": "open"},
])
def test_a_wrong_type_in_the_stored_event_cursor_is_exit_7(issue, agent, events):
    settle(agent, FLAG)
    before = corrupt(agent, lambda doc: doc.__setitem__("events", events))
    issue.add_label(OWNER, NAME, ISSUE, "x", by="bob")
    r = agent.check(FLAG)
    assert r.code == 7, r
    assert agent.file().read_bytes() == before


@pytest.mark.parametrize("head", [{"sha": 5, "seen_at": None}, "garbage",
                                  {"sha": "abc", "seen_at": 12}])
def test_a_wrong_type_in_the_stored_head_is_exit_7(pr, pagent, head):
    settle(pagent, FLAG)
    before = corrupt(pagent, lambda doc: doc.__setitem__("head", head))
    pr.push(OWNER, NAME, PR, count=1, author="alice")
    r = pagent.check(FLAG)
    assert r.code == 7, r
    assert pagent.file().read_bytes() == before


# --------------------------------------------------------------------------- idle cost


@pytest.mark.parametrize("gone", ["branch", "fork"])
def test_idle_poll_after_a_merge_and_the_branch_deleted_is_four_304(pr, pagent, gone):
    settle(pagent, FLAG)
    pr.advance(5)
    pr.merge_pull(OWNER, NAME, PR, by="alice")
    if gone == "branch":
        pr.delete_head_ref(OWNER, NAME, PR, by="alice")
    else:
        pr.delete_head_repo(OWNER, NAME, PR)
    settle(pagent, FLAG)
    r = pagent.check(FLAG)
    assert r.code == 0 and r.json["has_updates"] is False, r
    # once merged (closed at the last read and still), the head is not probed: 3, all 304
    assert statuses(pr) == [304, 304, 304], list(zip(paths(pr), statuses(pr)))


# --------------------------------------------------------------------------- redirects


def test_a_transferred_issue_followed_without_the_flag_is_told_once(issue, agent):
    issue.add_repo(OWNER, "elsewhere")
    settle(agent)  # followed without the flag: no event cursor
    issue.advance(5)
    issue.transfer_issue(OWNER, NAME, ISSUE, OWNER, "elsewhere")
    r = agent.check(FLAG)
    assert r.code == 0 and r.json["has_updates"] is True, r
    assert agent.confirm(r.json["snapshot_id"]).code == 0
    r = agent.check(FLAG)
    assert r.code == 0, r
    assert r.json["has_updates"] is False, r  # told once


def test_a_renamed_head_fork_is_not_the_pull_request_moving(fake, tmp_path):
    """GitHub answers 301 under a renamed repository; the PR's fork renamed is not the PR
    moving: the base repository still answers every read of the round."""
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Fix", user="alice", head_owner="alice")
    pagent = Agent(fake, tmp_path, "--pr", PR)
    settle(pagent, FLAG)
    fake.inject(path=r"^/repos/alice/hello/git/ref/heads/", status=301, times=None,
                headers={"Location": f"{fake.url}/repositories/999/git/ref/heads/feature"},
                body={"message": "Moved Permanently"})
    r = pagent.check(FLAG)
    assert r.code == 0, r
    assert "/repos/alice/hello/git/ref/heads/feature" in paths(fake)
    assert r.json["state"]["moved_to"] is None, r.json["state"]
    assert r.json["has_updates"] is False, r


def test_a_long_location_is_a_malformed_redirect_not_an_unconfirmable_snapshot(issue, agent):
    """Found: moved_to was taken unbounded from Location, which the confirm then refused (exit
    7, for good). A Location longer than any GitHub URL is now a malformed answer: exit 6,
    nothing written; the longest kept as moved_to are confirmable."""
    settle(agent, FLAG)
    before = agent.file().read_bytes()
    issue.inject(path=r"/issues/5/comments$", status=301, times=None,
                 headers={"Location": f"{issue.url}/repositories/1/issues/9/" + "a" * 2100},
                 body={"message": "Moved Permanently"})
    r = agent.check(FLAG)
    assert r.code == 6 and "Location" in r.json["error"]["message"], r
    assert agent.file().read_bytes() == before


# --------------------------------------------------------------------------- pushes


@pytest.mark.xfail(strict=True, reason="known: a force push seen before its event is listed is judged by its commits' authors (section 21's rule without an event)")
def test_own_force_push_landing_between_probes_does_not_wake(pr, pagent):
    pr.push(OWNER, NAME, PR, count=2, author="alice")
    settle(pagent, FLAG)
    count = {"n": 0}
    lock = threading.Lock()

    def on_request(entry):
        if "/git/ref/heads/" in entry.path and entry.headers.get("if-none-match"):
            with lock:
                count["n"] += 1
                if count["n"] == 2:  # the agent rebases alice's commits and force-pushes
                    pr.advance(60)
                    pr.push(OWNER, NAME, PR, count=2, author="alice", by="octocat", force=True)
    pr.on_request(on_request)
    env = script_env(pr, GH_MONITOR_TEST_TIME_SCALE="0.02")
    r = pagent.check(FLAG, "--ignore-author", "@me", "--wait", 60, "--poll-interval", 5,
                     env=env)
    pr.clear_hooks()
    assert r.code == 0, r
    assert count["n"] >= 2
    assert r.json["has_updates"] is False, (r.json["pushes"], r.json["polls"])


@pytest.mark.xfail(strict=True, reason="--max-total cutting a first ask's force push leaves head None: the next read re-establishes it and the push is lost")
def test_max_total_cut_force_push_on_first_ask(pr, tmp_path):
    pr.date_follows_clock = True
    pr.add_comment(OWNER, NAME, PR, "hi", user="alice")
    pr.push(OWNER, NAME, PR, count=2, author="alice")
    refs = ["--follow", f"{OWNER}/{NAME}/pull/{PR}"]

    def confirm(doc):
        c = latest(pr, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   doc["snapshot_id"])
        assert c.code == 0, c

    for _ in range(2):
        r = inbox(pr, tmp_path, *refs)
        assert r.code == 0, r
        confirm(r.json)
    pr.advance(5)
    new = pr.push(OWNER, NAME, PR, count=2, author="alice", force=True)
    assert new
    got_push, got_events = [], []
    for _ in range(4):
        r = inbox(pr, tmp_path, *refs, FLAG, "--max-total", 1)
        assert r.code == 0, r
        for c in r.json["conversations"]:
            got_events += [e["event"] for e in c.get("events") or []]
            if c.get("pushes"):
                got_push.append(c["pushes"])
        confirm(r.json)
    assert got_events == ["head_ref_force_pushed"]
    assert len(got_push) == 1 and got_push[0]["force_pushed"] is True, got_push


def test_compare_cut_by_max_pages_comes_later(pr, pagent):
    settle(pagent, FLAG)
    pr.advance(5)
    shas = pr.push(OWNER, NAME, PR, count=250, author="alice")
    seen = []
    for _ in range(4):
        r = pagent.check(FLAG, "--max-pages", 2)
        assert r.code == 0, r
        if r.json["pushes"]:
            seen += [c["sha"] for c in r.json["pushes"]["commits"]]
        assert pagent.confirm(r.json["snapshot_id"]).code == 0
    assert seen == shas, (len(seen), len(shas))


def test_first_look_state_race(issue, agent):
    issue.add_comment(OWNER, NAME, ISSUE, "hi", user="alice")
    done = {"n": 0}

    def on_request(entry):
        if entry.path.endswith("/issues/5/events") and not done["n"]:
            done["n"] = 1
            issue.advance(1)
            issue.close_issue(OWNER, NAME, ISSUE, by="alice")
    issue.on_request(on_request)
    r = agent.check(FLAG)
    issue.clear_hooks()
    assert r.code == 0, r
    assert agent.confirm(r.json["snapshot_id"]).code == 0
    r = agent.check(FLAG)
    assert r.code == 0, r
    closed_reported = "closed" in kinds(r.json)
    assert r.json["state"]["state"] == "closed" or closed_reported, r.json["state"]


def test_limit_cuts_own_force_event(pr, pagent):
    pr.push(OWNER, NAME, PR, count=2, author="alice")
    settle(pagent, FLAG)
    pr.advance(5)
    pr.add_label(OWNER, NAME, PR, "needs-rebase", by="bob")
    pr.push(OWNER, NAME, PR, count=2, author="alice", by="octocat", force=True)
    r = pagent.check(FLAG, "--ignore-author", "@me", "--limit", 1)
    assert r.code == 0, r
    assert kinds(r.json) == ["labeled"]
    assert r.json["pushes"] is None, r.json["pushes"]


def test_truncated_first_ask_keeps_force_push(fake, tmp_path):
    fake.date_follows_clock = True
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="x", user="alice")
    pagent = Agent(fake, tmp_path, "--pr", PR)
    fake.push(OWNER, NAME, PR, count=2, author="alice")
    fake.add_comment(OWNER, NAME, PR, "hi", user="alice")
    settle(pagent)
    fake.advance(5)
    fake.push(OWNER, NAME, PR, count=2, author="alice", force=True)
    for i in range(150):
        fake.add_label(OWNER, NAME, PR, f"l{i}", by="bob")
    r = pagent.check(FLAG, "--max-pages", 1)
    assert r.code == 0, r
    assert r.json["truncated"] is True
    assert pagent.confirm(r.json["snapshot_id"]).code == 0
    r = pagent.check(FLAG, "--limit", 500)
    assert r.code == 0, r
    assert "head_ref_force_pushed" in kinds(r.json)
    assert r.json["pushes"] is not None and r.json["pushes"]["force_pushed"] is True


def test_future_date_poisons_head(pr, pagent):
    import datetime as dt
    settle(pagent, FLAG)
    now = pr.clock
    pr.date_follows_clock = True
    pr.clock = now + dt.timedelta(days=3650)
    pr.push(OWNER, NAME, PR, count=1, author="alice")
    r = pagent.check(FLAG)
    assert r.code == 0 and r.json["pushes"], r
    assert pagent.confirm(r.json["snapshot_id"]).code == 0
    pr.clock = now + dt.timedelta(seconds=30)
    pr.date_follows_clock = False
    pr.push(OWNER, NAME, PR, count=1, author="alice")
    r = pagent.check(FLAG)
    assert r.code == 0 and r.json["pushes"], r
    c = pagent.confirm(r.json["snapshot_id"])
    assert c.code == 0, c


def test_a_date_a_second_behind_on_the_ref(pr, pagent):
    """Two of GitHub's front ends a second or two apart: the read that sees the push carries a
    Date before the one that recorded the head."""
    import datetime as dt
    from email.utils import format_datetime
    settle(pagent, FLAG)
    seen = dt.datetime.strptime(checkpoint(pagent)["head"]["seen_at"], "%Y-%m-%dT%H:%M:%SZ")
    skewed = format_datetime(seen.replace(tzinfo=dt.timezone.utc) - dt.timedelta(seconds=2),
                             usegmt=True)
    new = pr.push(OWNER, NAME, PR, count=1, author="alice")[-1]
    pr.inject(path=r"/git/ref/heads/feature$", status=200, times=1,
              headers={"Date": skewed, "ETag": '"abc"'},
              body={"ref": "refs/heads/feature", "object": {"sha": new, "type": "commit"}})
    r = pagent.check(FLAG)
    assert r.code == 0 and r.json["pushes"], r
    assert [q.response_headers.get("date") for q in pr.requests if "/git/ref/" in q.path] == [skewed]
    c = pagent.confirm(r.json["snapshot_id"])
    assert c.code == 0, c


def test_string_booleans_in_the_pull(pr, pagent):
    import urllib.request

    script_env(pr)
    req = urllib.request.Request(f"{pr.url}/repos/octo/hello/pulls/7",
                                 headers={"Authorization": f"token {TOKEN}"})
    body = json.loads(urllib.request.urlopen(req).read())
    body.update(merged="false", draft="false", locked="false")
    pr.inject(path=r"/repos/octo/hello/pulls/7$", status=200, times=None, body=body)
    r = pagent.check(FLAG)
    assert r.code in (0, 6), r
    if r.code == 0:
        assert r.json["state"]["merged"] is False and r.json["state"]["draft"] is False, r.json["state"]


def test_branch_reused_after_merge(pr, pagent):
    pr.push(OWNER, NAME, PR, count=1, author="alice")
    settle(pagent, FLAG)
    pr.advance(5)
    pr.merge_pull(OWNER, NAME, PR, by="alice")
    settle(pagent, FLAG)
    pr.advance(5)
    pr.add_pull(OWNER, NAME, 8, title="Follow-up", user="alice", head_ref="feature")
    pr.push(OWNER, NAME, 8, count=2, author="alice")
    r = pagent.check(FLAG)
    assert r.code == 0, r
    assert r.json["pushes"] is None and r.json["has_updates"] is False, r.json["pushes"]


def test_compare_404_for_the_new_head_is_not_a_force_push(pr, pagent):
    pr.push(OWNER, NAME, PR, count=3, author="alice")
    settle(pagent, FLAG)
    pr.advance(5)
    new = pr.push(OWNER, NAME, PR, count=2, author="alice")
    pr.inject(path=r"/compare/", status=404, times=1,
              body={"message": f"No commit found for SHA: {new[-1]}",
                    "documentation_url": DOC_COMPARE})
    r = pagent.check(FLAG, "--limit", 1)
    assert r.code == 0, r
    push = r.json["pushes"]
    assert push is None or push["force_pushed"] is False, push


def test_inbox_corrupt_events_part_is_the_rounds_error(pr, tmp_path):
    pr.add_issue(OWNER, NAME, ISSUE, title="Bug")
    pr.add_comment(OWNER, NAME, ISSUE, "hi", user="alice")
    refs = ["--follow", f"{OWNER}/{NAME}#{ISSUE}", "--follow", f"{OWNER}/{NAME}/pull/{PR}"]

    def confirm(doc):
        c = latest(pr, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   doc["snapshot_id"])
        assert c.code == 0, c
    for _ in range(2):
        r = inbox(pr, tmp_path, *refs, FLAG)
        confirm(r.json)
    agent = Agent(pr, tmp_path, "--issue", ISSUE)
    path = agent.file()
    doc = json.loads(path.read_text())
    doc["events"] = "garbage"
    path.write_text(json.dumps(doc))
    before = path.read_bytes()
    pr.push(OWNER, NAME, PR, count=1, author="alice")
    r = inbox(pr, tmp_path, *refs, FLAG)
    assert r.code == 0, r
    assert [e["key"] for e in r.json["errors"]] == [f"{OWNER}/{NAME}/issues/{ISSUE}"]
    assert r.json["errors"][0]["error"]["code"] == "state"
    assert path.read_bytes() == before
    conv = {c["key"]: c for c in r.json["conversations"]}
    assert conv[f"{OWNER}/{NAME}/pull/{PR}"]["pushes"]


@pytest.mark.parametrize("sha", ["../../../../user", "x" * 100])
def test_a_ref_whose_sha_is_not_a_sha_is_exit_6(pr, pagent, sha):
    settle(pagent, FLAG)
    before = pagent.file().read_bytes()
    pr.push(OWNER, NAME, PR, count=1, author="alice")
    pr.inject(path=r"/git/ref/heads/feature$", status=200, times=1,
              body={"ref": "refs/heads/feature", "object": {"sha": sha, "type": "commit"}})
    r = pagent.check(FLAG)
    assert r.code == 6, (r.json.get("pushes"), [q.path for q in pr.requests])
    assert pagent.file().read_bytes() == before


def test_first_ask_with_a_late_recorded_event(issue, agent):
    import datetime as dt
    issue.date_follows_clock = True
    issue.add_comment(OWNER, NAME, ISSUE, "hi", user="alice")
    settle(agent)
    since = dt.datetime.strptime(checkpoint(agent)["tracked_since"], "%Y-%m-%dT%H:%M:%SZ")
    issue.advance(5)
    issue.add_label(OWNER, NAME, ISSUE, "after", by="bob")  # after tracking began
    # GitHub records some events a little late: the next id, an earlier created_at
    issue.add_label(OWNER, NAME, ISSUE, "late", by="bob", at=since - dt.timedelta(seconds=1))
    r = agent.check(FLAG)
    assert r.code == 0, r
    assert "after" in [e["label"]["name"] for e in r.json["events"]], r.json["events"]


@pytest.mark.xfail(strict=True, reason="at exactly 100 events the probe is the empty page 2; an arrival there walks back to page 1 (one more page): with --max-pages 1 it is never returned")
def test_an_arrival_after_exactly_100_events_costs_one_page(fake, tmp_path):
    fake.events_order = "ascending"
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    fake.add_comment(OWNER, NAME, ISSUE, "hi", user="alice")
    for i in range(100):  # the list holds exactly 100 events: a full page 1
        fake.add_label(OWNER, NAME, ISSUE, f"l{i}", by="bob")
    agent = Agent(fake, tmp_path, "--issue", ISSUE)
    settle(agent, FLAG)
    assert len(fake.event_ids(OWNER, NAME, ISSUE)) == 100
    for _ in range(2):
        r = agent.check(FLAG, "--max-pages", 1)
        assert r.code == 0 and statuses(fake) == [304, 304], r
    fake.add_label(OWNER, NAME, ISSUE, "new", by="bob")
    r = agent.check(FLAG, "--max-pages", 1)
    assert r.code == 0, r
    reads = [(q.query, q.status) for q in fake.requests if q.path.endswith("/events")]
    assert [e["label"]["name"] for e in r.json["events"]] == ["new"], (r.json["warnings"], reads)


def test_first_look_on_a_transferred_issue(fake, tmp_path):
    fake.add_repo(OWNER, NAME)
    fake.add_repo(OWNER, "elsewhere")
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    fake.add_comment(OWNER, NAME, ISSUE, "hi", user="alice")
    fake.transfer_issue(OWNER, NAME, ISSUE, OWNER, "elsewhere")
    agent = Agent(fake, tmp_path, "--issue", ISSUE)
    r = agent.check(FLAG)
    assert r.code == 0, r
    assert r.json["state"]["moved_to"], r.json["state"]


def test_inbox_transferred_after_a_push(fake, tmp_path):
    fake.add_repo(OWNER, "aaa")
    fake.add_repo(OWNER, NAME)
    fake.add_repo(OWNER, "elsewhere")
    fake.add_pull(OWNER, "aaa", PR, title="x", user="alice")
    fake.add_issue(OWNER, NAME, ISSUE, title="Bug")
    fake.add_comment(OWNER, NAME, ISSUE, "hi", user="alice")
    refs = ["--follow", f"{OWNER}/aaa/pull/{PR}", "--follow", f"{OWNER}/{NAME}#{ISSUE}"]

    def confirm(doc):
        c = latest(fake, tmp_path, "--followed", "--confirm-updates", "--snapshot-id",
                   doc["snapshot_id"])
        assert c.code == 0, c
    for _ in range(2):
        r = inbox(fake, tmp_path, *refs, FLAG)
        confirm(r.json)
    fake.advance(5)
    fake.push(OWNER, "aaa", PR, count=1, author="alice")
    fake.transfer_issue(OWNER, NAME, ISSUE, OWNER, "elsewhere")
    r = inbox(fake, tmp_path, *refs, FLAG)
    assert r.code == 0, r
    assert r.json["errors"] == [], r.json["errors"]
    conv = {c["key"]: c for c in r.json["conversations"]}
    assert conv[f"{OWNER}/{NAME}/issues/{ISSUE}"]["state"]["moved_to"]


def test_a_moved_round_without_its_hints_is_still_moved(issue, agent):
    """Hints are a cache (section 14): without them a read costs requests, never an error."""
    issue.add_repo(OWNER, "elsewhere")
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    settle(agent, FLAG)
    issue.advance(5)
    issue.transfer_issue(OWNER, NAME, ISSUE, OWNER, "elsewhere")
    r = agent.check(FLAG)
    assert r.code == 0 and r.json["has_updates"] is True, r
    assert agent.confirm(r.json["snapshot_id"]).code == 0
    agent.file("hints").unlink()
    r = agent.check(FLAG)
    assert r.code == 0, r
    assert r.json["has_updates"] is False and r.json["state"]["moved_to"], r.json["state"]
