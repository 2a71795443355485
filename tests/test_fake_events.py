"""The fake GitHub's issue events, pushes, branch refs, compare and PR commits (section 21),
through real HTTP (requests): shapes, both orders, paging, ETags, effects, transfers."""

from __future__ import annotations

import datetime as dt

import pytest
import requests

from tests.support import links, query_of

TOKEN = "events-token"
O, R = "octo", "hello"
UA = {"User-Agent": "fakegithub-events-tests"}
BASE_FIELDS = {
    "id", "node_id", "url", "actor", "event", "commit_id", "commit_url", "created_at",
    "performed_via_github_app",
}


@pytest.fixture
def api(fake):
    """``api(path, **requests_kwargs)``: an authenticated GET against the fake."""
    fake.add_token(TOKEN, login="octocat")
    session = requests.Session()
    session.headers.update(
        {**UA, "Accept": "application/vnd.github+json", "Authorization": f"token {TOKEN}"}
    )

    def get(path, **kw):
        url = path if path.startswith("http") else fake.url + path
        return session.get(url, timeout=10, allow_redirects=False, **kw)

    return get


@pytest.fixture
def repo(fake):
    fake.add_repo(O, R)
    fake.add_issue(O, R, 5, title="Bug")
    fake.add_pull(O, R, 7, title="Fix", user="alice")
    return fake


def all_events(api, number, per_page=100):
    out, url = [], f"/repos/{O}/{R}/issues/{number}/events?per_page={per_page}"
    while url:
        r = api(url)
        assert r.status_code == 200
        out += r.json()
        url = links(r).get("next")
    return out


# --------------------------------------------------------------------------- events list


def test_events_list_has_githubs_shape_for_each_kind(api, repo):
    fake = repo
    fake.add_label(O, R, 7, "bug", by="bob")
    fake.assign(O, R, 7, "carol", by="bob")
    fake.set_milestone(O, R, 7, "v1", by="bob")
    fake.rename_issue(O, R, 7, "Fix it", by="alice")
    fake.request_review(O, R, 7, reviewer="dave", by="alice")
    fake.request_review(O, R, 7, team="core", by="alice")
    review = fake.add_review(O, R, 7, "dave", "CHANGES_REQUESTED", body="no")
    fake.dismiss_review(review["id"], "stale", by="octocat")
    fake.lock_issue(O, R, 7, reason="too heated", by="octocat")
    fake.set_draft(O, R, 7, True, by="alice")
    fake.set_draft(O, R, 7, False, by="alice")
    fake.change_base(O, R, 7, "develop", by="alice")
    fake.delete_head_ref(O, R, 7, by="alice")
    fake.restore_head_ref(O, R, 7, by="alice")
    fake.add_event(O, R, 7, "subscribed", actor="erin", label="ignored")
    events = all_events(api, 7)
    kinds = [e["event"] for e in events]
    assert kinds == [
        "labeled", "assigned", "milestoned", "renamed", "review_requested",
        "review_requested", "review_dismissed", "locked", "convert_to_draft",
        "ready_for_review", "base_ref_changed", "head_ref_deleted", "head_ref_restored",
        "subscribed",
    ]
    ids = [e["id"] for e in events]
    assert ids == sorted(ids) and len(set(ids)) == len(ids) and ids[0] > 2**33
    by = {e["event"]: e for e in events}
    for e in events:
        assert BASE_FIELDS <= set(e)
        assert e["url"].endswith(f"/repos/{O}/{R}/issues/events/{e['id']}")
        assert e["actor"]["login"] and e["actor"]["type"] == "User"
    assert by["labeled"]["label"]["name"] == "bug" and len(by["labeled"]["label"]["color"]) == 6
    assert by["labeled"]["actor"]["login"] == "bob"
    assert by["assigned"]["assignee"]["login"] == "carol"
    assert by["assigned"]["assigner"]["login"] == "bob"
    assert by["milestoned"]["milestone"] == {"title": "v1"}
    assert by["renamed"]["rename"] == {"from": "Fix", "to": "Fix it"}
    user_req, team_req = [e for e in events if e["event"] == "review_requested"]
    assert user_req["requested_reviewer"]["login"] == "dave"
    assert user_req["review_requester"]["login"] == "alice"
    assert "requested_team" not in user_req
    assert team_req["requested_team"]["slug"] == "core" and team_req["requested_team"]["name"]
    assert "requested_reviewer" not in team_req
    dismissed = by["review_dismissed"]["dismissed_review"]
    assert dismissed["review_id"] == review["id"]
    assert dismissed["state"] == "changes_requested"
    assert dismissed["dismissal_message"] == "stale"
    assert by["locked"]["lock_reason"] == "too heated"
    assert set(by["subscribed"]) == BASE_FIELDS  # an unknown kind keeps only the base
    single = api(by["labeled"]["url"])
    assert single.status_code == 200 and single.json() == by["labeled"]
    assert api(f"/repos/{O}/{R}/issues/events/1").status_code == 404


def test_events_list_order_paging_link_and_etags(api, repo):
    fake = repo
    for i in range(7):
        fake.add_label(O, R, 5, f"l{i}")
    asc = all_events(api, 5, per_page=3)
    ids = [e["id"] for e in asc]
    assert ids == sorted(ids) and len(ids) == 7
    first = api(f"/repos/{O}/{R}/issues/5/events?per_page=3")
    rels = links(first)
    assert list(rels) == ["next", "last"]
    repo_id = api(f"/repos/{O}/{R}").json()["id"]
    assert f"/repositories/{repo_id}/issues/5/events?" in rels["next"]
    assert query_of(rels["last"]) == {"page": "3", "per_page": "3"}
    # default page size 30, clamp 100
    assert len(api(f"/repos/{O}/{R}/issues/5/events").json()) == 7
    fake.events_order = "descending"
    desc = all_events(api, 5, per_page=3)
    assert [e["id"] for e in desc] == ids[::-1]
    # ETags: 304 when nothing changed; a new event changes page 1 under descending
    p1 = api(f"/repos/{O}/{R}/issues/5/events?per_page=3")
    etag = p1.headers["ETag"]
    again = api(f"/repos/{O}/{R}/issues/5/events?per_page=3", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    fake.add_label(O, R, 5, "new")
    changed = api(f"/repos/{O}/{R}/issues/5/events?per_page=3", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.json()[0]["label"]["name"] == "new"
    # ... and the last page's under ascending
    fake.events_order = "ascending"
    last = api(f"/repos/{O}/{R}/issues/5/events?per_page=3&page=3")
    last_etag = last.headers["ETag"]
    fake.add_label(O, R, 5, "newer")
    moved = api(f"/repos/{O}/{R}/issues/5/events?per_page=3&page=3",
                headers={"If-None-Match": last_etag})
    assert moved.status_code == 200
    assert [e["label"]["name"] for e in moved.json()] == ["l6", "new", "newer"]


def test_events_list_other_layouts_errors_and_faults(api, repo):
    fake = repo
    fake.close_issue(O, R, 5)
    repo_id = api(f"/repos/{O}/{R}").json()["id"]
    for path in (f"/repositories/{repo_id}/issues/5/events", f"/api/v3/repos/{O}/{R}/issues/5/events"):
        r = api(path)
        assert r.status_code == 200 and [e["event"] for e in r.json()] == ["closed"]
    assert api(f"/repos/{O}/{R}/issues/99/events").status_code == 404
    fake.add_repo(O, "secret", private=True)
    fake.add_issue(O, "secret", 1)
    fake.close_issue(O, "secret", 1)
    anonymous = requests.get(f"{fake.url}/repos/{O}/secret/issues/1/events", headers=UA,
                             timeout=10)
    assert anonymous.status_code == 404
    assert [e["event"] for e in api(f"/repos/{O}/secret/issues/1/events").json()] == ["closed"]
    fake.inject("GET", r"/issues/5/events$", status=403)
    assert api(f"/repos/{O}/{R}/issues/5/events").status_code == 403
    assert api(f"/repos/{O}/{R}/issues/5/events").status_code == 200
    r = api(f"/repos/{O}/{R}/issues/5/events")
    assert int(r.headers["X-RateLimit-Remaining"]) < int(r.headers["X-RateLimit-Limit"])


# --------------------------------------------------------------------------- effects


def test_close_reopen_lock_rename_label_assign_show_on_the_issue(api, repo):
    fake = repo
    fake.clock = "2026-01-02T03:04:05Z"
    ev = fake.close_issue(O, R, 5, by="bob", reason="not_planned")
    assert ev["event"] == "closed" and ev["state_reason"] == "not_planned"
    issue = api(f"/repos/{O}/{R}/issues/5").json()
    assert issue["state"] == "closed" and issue["state_reason"] == "not_planned"
    assert issue["closed_at"] == "2026-01-02T03:04:05Z"
    assert issue["closed_by"]["login"] == "bob"
    fake.reopen_issue(O, R, 5, by="bob")
    fake.lock_issue(O, R, 5, reason="spam")
    fake.rename_issue(O, R, 5, "Bug, renamed")
    fake.add_label(O, R, 5, "bug")
    fake.add_label(O, R, 5, "ui")
    fake.remove_label(O, R, 5, "bug")
    fake.assign(O, R, 5, "carol")
    fake.set_milestone(O, R, 5, "v2")
    issue = api(f"/repos/{O}/{R}/issues/5").json()
    assert issue["state"] == "open" and issue["state_reason"] == "reopened"
    assert issue["closed_at"] is None
    assert issue["locked"] is True and issue["active_lock_reason"] == "spam"
    assert issue["title"] == "Bug, renamed"
    assert [x["name"] for x in issue["labels"]] == ["ui"]
    assert [x["login"] for x in issue["assignees"]] == ["carol"]
    assert issue["assignee"]["login"] == "carol"
    assert issue["milestone"]["title"] == "v2"
    fake.unlock_issue(O, R, 5)
    issue = api(f"/repos/{O}/{R}/issues/5").json()
    assert issue["locked"] is False and issue["active_lock_reason"] is None
    kinds = [e["event"] for e in all_events(api, 5)]
    assert kinds == ["closed", "reopened", "locked", "renamed", "labeled", "labeled",
                     "unlabeled", "assigned", "milestoned", "unlocked"]


def test_merge_records_merged_then_closed_and_shows_on_the_pull(api, repo):
    fake = repo
    fake.clock = "2026-02-03T04:05:06Z"
    head = api(f"/repos/{O}/{R}/pulls/7").json()["head"]["sha"]
    merged, closed = fake.merge_pull(O, R, 7, by="bob")
    assert (merged["event"], closed["event"]) == ("merged", "closed")
    assert merged["created_at"] == closed["created_at"] == "2026-02-03T04:05:06Z"
    assert merged["id"] < closed["id"]
    assert merged["commit_id"] and merged["commit_id"] != head
    assert merged["commit_url"].endswith(f"/commits/{merged['commit_id']}")
    pull = api(f"/repos/{O}/{R}/pulls/7").json()
    assert pull["merged"] is True and pull["state"] == "closed"
    assert pull["merged_at"] == "2026-02-03T04:05:06Z"
    assert pull["merged_by"]["login"] == "bob"
    assert pull["merge_commit_sha"] == merged["commit_id"]
    assert pull["mergeable"] is None
    issue = api(f"/repos/{O}/{R}/issues/7").json()
    assert issue["state"] == "closed"
    assert issue["pull_request"]["merged_at"] == "2026-02-03T04:05:06Z"
    listed = api(f"/repos/{O}/{R}/pulls", params={"state": "closed"}).json()
    assert [p["number"] for p in listed] == [7]
    assert [e["event"] for e in all_events(api, 7)] == ["merged", "closed"]
    with pytest.raises(ValueError):
        fake.merge_pull(O, R, 7)


def test_pull_fields_follow_draft_reviews_base_head_events(api, repo):
    fake = repo
    fake.set_draft(O, R, 7, True)
    fake.request_review(O, R, 7, reviewer="dave")
    fake.request_review(O, R, 7, team="core")
    fake.change_base(O, R, 7, "develop")
    fake.add_label(O, R, 7, "wip")
    fake.lock_issue(O, R, 7)
    pull = api(f"/repos/{O}/{R}/pulls/7").json()
    assert pull["draft"] is True and pull["base"]["ref"] == "develop"
    assert [u["login"] for u in pull["requested_reviewers"]] == ["dave"]
    assert [t["slug"] for t in pull["requested_teams"]] == ["core"]
    assert [x["name"] for x in pull["labels"]] == ["wip"]
    assert pull["locked"] is True and pull["active_lock_reason"] == "resolved"
    fake.remove_review_request(O, R, 7, reviewer="dave")
    fake.set_draft(O, R, 7, False)
    pull = api(f"/repos/{O}/{R}/pulls/7").json()
    assert pull["draft"] is False and pull["requested_reviewers"] == []
    assert api(f"/repos/{O}/{R}/issues/7").json()["draft"] is False


def test_rest_dismissal_records_review_dismissed(api, repo, fake):
    review = fake.add_review(O, R, 7, "dave", "APPROVED", body="ok")
    fake.add_token("owner-token", login=O)
    r = requests.put(
        f"{fake.url}/repos/{O}/{R}/pulls/7/reviews/{review['id']}/dismissals",
        json={"message": "moved on"},
        headers={**UA, "Authorization": "token owner-token"},
        timeout=10,
    )
    assert r.status_code == 200
    (ev,) = all_events(api, 7)
    assert ev["event"] == "review_dismissed" and ev["actor"]["login"] == O
    assert ev["dismissed_review"]["state"] == "approved"
    assert ev["dismissed_review"]["review_id"] == review["id"]
    assert ev["dismissed_review"]["dismissal_message"] == "moved on"


# --------------------------------------------------------------------------- transfer


def test_transferred_issue_answers_301_with_location_at_the_new_place(api, repo, fake):
    fake.add_repo(O, "elsewhere")
    fake.add_issue(O, "elsewhere", 1)
    fake.add_comment(O, R, 5, "hello")
    fake.add_label(O, R, 5, "bug")
    new = fake.transfer_issue(O, R, 5, O, "elsewhere", by="bob")
    assert new == 2
    new_id = api(f"/repos/{O}/elsewhere").json()["id"]
    for suffix in ("", "/comments", "/events"):
        r = api(f"/repos/{O}/{R}/issues/5{suffix}")
        assert r.status_code == 301
        location = f"{fake.url}/repositories/{new_id}/issues/2{suffix}"
        assert r.headers["Location"] == location
        assert r.json()["message"] == "Moved Permanently" and r.json()["url"] == location
        assert "documentation_url" in r.json() and "ETag" not in r.headers
    old_id = api(f"/repos/{O}/{R}").json()["id"]
    assert api(f"/repositories/{old_id}/issues/5/comments").status_code == 301
    r = api(f"/repos/{O}/{R}/issues/5/comments?per_page=5")
    assert r.headers["Location"].endswith("/issues/2/comments?per_page=5")
    followed = api(r.headers["Location"])
    assert [c["body"] for c in followed.json()] == ["hello"]
    events = api(f"/repos/{O}/elsewhere/issues/2/events").json()
    assert [e["event"] for e in events] == ["labeled", "transferred"]
    assert api(f"/repos/{O}/elsewhere/issues/2").json()["number"] == 2
    with pytest.raises(ValueError):
        fake.transfer_issue(O, R, 7, O, "elsewhere")  # a pull request


# --------------------------------------------------------------------------- heads, refs, compare


def test_head_ref_follows_pushes_with_etag_and_404s(api, repo, fake):
    pull = api(f"/repos/{O}/{R}/pulls/7").json()
    head = pull["head"]
    ref_path = f"/repos/{O}/{R}/git/ref/heads/{head['ref']}"
    r = api(ref_path)
    assert r.status_code == 200
    body = r.json()
    assert body["ref"] == f"refs/heads/{head['ref']}" and body["node_id"]
    assert body["object"] == {
        "sha": head["sha"], "type": "commit",
        "url": f"{fake.url}/repos/{O}/{R}/git/commits/{head['sha']}",
    }
    etag = r.headers["ETag"]
    assert api(ref_path, headers={"If-None-Match": etag}).status_code == 304
    shas = fake.push(O, R, 7, count=2)
    r = api(ref_path, headers={"If-None-Match": etag})
    assert r.status_code == 200 and r.json()["object"]["sha"] == shas[-1]
    assert api(f"/repos/{O}/{R}/pulls/7").json()["head"]["sha"] == shas[-1]
    assert api(f"/repos/{O}/{R}/git/ref/heads/nope").status_code == 404
    # a branch name with slashes, on a fork
    fake.add_pull(O, R, 8, head_owner="mallory", head_ref="fix/deep/name")
    fork = api(f"/repos/{O}/{R}/pulls/8").json()["head"]
    assert fork["repo"]["full_name"] == f"mallory/{R}"
    r = api(f"/repos/mallory/{R}/git/ref/heads/fix/deep/name")
    assert r.status_code == 200 and r.json()["object"]["sha"] == fork["sha"]
    r = api(f"/repositories/{fork['repo']['id']}/git/ref/heads/fix/deep/name")
    assert r.status_code == 200
    matching = api(f"/repos/mallory/{R}/git/matching-refs/heads/fix/")
    assert [x["ref"] for x in matching.json()] == ["refs/heads/fix/deep/name"]
    fake.delete_head_ref(O, R, 7)
    assert api(ref_path).status_code == 404
    fake.restore_head_ref(O, R, 7)
    assert api(ref_path).status_code == 200
    fake.delete_head_repo(O, R, 8)
    assert api(f"/repos/{O}/{R}/pulls/8").json()["head"]["repo"] is None
    assert api(f"/repos/mallory/{R}/git/ref/heads/fix/deep/name").status_code == 404


def test_default_head_refs_of_two_pulls_differ(api, repo, fake):
    fake.add_pull(O, R, 9)
    refs = {api(f"/repos/{O}/{R}/pulls/{n}").json()["head"]["ref"] for n in (7, 9)}
    assert refs == {"feature", "feature-9"}


def test_push_records_no_event_force_push_does(api, repo, fake):
    fake.push(O, R, 7, count=3, author="alice")
    assert all_events(api, 7) == []
    new = fake.push(O, R, 7, count=1, force=True, by="alice")
    (ev,) = all_events(api, 7)
    assert ev["event"] == "head_ref_force_pushed" and ev["actor"]["login"] == "alice"
    assert ev["commit_id"] is None
    assert [c["sha"] for c in api(f"/repos/{O}/{R}/pulls/7/commits").json()] == new
    assert api(f"/repos/{O}/{R}/pulls/7").json()["commits"] == 1


def test_compare_ahead_behind_diverged_identical_and_gc(api, repo, fake):
    start = api(f"/repos/{O}/{R}/pulls/7").json()["head"]["sha"]
    shas = fake.push(O, R, 7, count=3, messages=["one\n\nbody", "two", "three"],
                     author="alice")
    r = api(f"/repos/{O}/{R}/compare/{start}...{shas[-1]}")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ahead" and body["ahead_by"] == 3 and body["behind_by"] == 0
    assert body["total_commits"] == 3 and body["files"] == []
    assert [c["sha"] for c in body["commits"]] == shas
    assert body["base_commit"]["sha"] == start and body["merge_base_commit"]["sha"] == start
    first = body["commits"][0]
    assert first["commit"]["message"] == "one\n\nbody"
    assert first["author"]["login"] == "alice" and first["commit"]["author"]["date"]
    assert first["parents"] == [{"sha": start, "url": f"{fake.url}/repos/{O}/{R}/commits/{start}",
                                 "html_url": f"https://github.com/{O}/{R}/commit/{start}"}]
    for key in ("url", "html_url", "permalink_url", "diff_url", "patch_url"):
        assert body[key]
    etag = r.headers["ETag"]
    again = api(f"/repos/{O}/{R}/compare/{start}...{shas[-1]}", headers={"If-None-Match": etag})
    assert again.status_code == 304
    behind = api(f"/repos/{O}/{R}/compare/{shas[-1]}...{start}").json()
    assert (behind["status"], behind["ahead_by"], behind["behind_by"]) == ("behind", 0, 3)
    by_branch = api(f"/repos/{O}/{R}/compare/{start}...{O}:feature").json()
    assert by_branch["status"] == "ahead" and by_branch["ahead_by"] == 3
    assert api(f"/repos/{O}/{R}/compare/{start}...feature").json()["ahead_by"] == 3
    same = api(f"/repos/{O}/{R}/compare/{start}...{start}").json()
    assert same["status"] == "identical" and same["commits"] == []
    forced = fake.push(O, R, 7, count=2, force=True)
    div = api(f"/repos/{O}/{R}/compare/{shas[-1]}...{forced[-1]}").json()
    assert div["status"] == "diverged" and div["ahead_by"] == 2 and div["behind_by"] == 4
    assert [c["sha"] for c in div["commits"]] == forced
    fake.gc(shas[-1])
    gone = api(f"/repos/{O}/{R}/compare/{shas[-1]}...{forced[-1]}")
    assert gone.status_code == 404
    assert gone.json()["message"] == f"No commit found for SHA: {shas[-1]}"
    assert api(f"/repos/{O}/{R}/compare/{'0' * 40}...{forced[-1]}").status_code == 404
    # forced back to an earlier commit of the PR: behind
    back = fake.push(O, R, 7, force=True, to_sha=forced[0])
    assert back == []
    now = api(f"/repos/{O}/{R}/pulls/7").json()["head"]["sha"]
    assert now == forced[0]
    assert api(f"/repos/{O}/{R}/compare/{forced[-1]}...{now}").json()["status"] == "behind"


def test_compare_pages_its_commits_when_asked(api, repo, fake):
    start = api(f"/repos/{O}/{R}/pulls/7").json()["head"]["sha"]
    shas = fake.push(O, R, 7, count=260)
    path = f"/repos/{O}/{R}/compare/{start}...{shas[-1]}"
    unpaged = api(path)
    assert len(unpaged.json()["commits"]) == 250 and "Link" not in unpaged.headers
    assert unpaged.json()["total_commits"] == 260
    got, url = [], path + "?per_page=100"
    while url:
        r = api(url)
        got += [c["sha"] for c in r.json()["commits"]]
        url = links(r).get("next")
    assert got == shas
    r = api(path + "?per_page=100")
    assert query_of(links(r)["last"]) == {"page": "3", "per_page": "100"}


def test_pull_commits_are_date_sorted_and_capped_at_250(api, repo, fake):
    fake.clock = "2026-03-01T00:00:00Z"
    shas = fake.push(O, R, 7, count=2)
    old = fake.push(O, R, 7, committed_at="2020-01-01T00:00:00Z", messages=["old-dated"])
    listed = [c["sha"] for c in api(f"/repos/{O}/{R}/pulls/7/commits").json()]
    assert listed[0] == old[0]  # the newest head sorts first: a date-sorted list misleads
    assert api(f"/repos/{O}/{R}/pulls/7").json()["head"]["sha"] == old[0]
    assert set(shas) <= set(listed)
    fake.push(O, R, 7, count=260)
    got, url = [], f"/repos/{O}/{R}/pulls/7/commits?per_page=100"
    while url:
        r = api(url)
        got += r.json()
        url = links(r).get("next")
    assert len(got) == 250
    dates = [c["commit"]["committer"]["date"] for c in got]
    assert dates == sorted(dates)


def test_push_outdates_threads_on_the_paths(api, repo, fake):
    kept = fake.add_review_thread(O, R, 7, "src/keep.py", line=4)
    stale = fake.add_review_thread(O, R, 7, "src/moved.py", line=9)
    fake.push(O, R, 7, outdate_paths=["src/moved.py"])
    comments = {c["path"]: c for c in api(f"/repos/{O}/{R}/pulls/7/comments").json()}
    assert comments["src/moved.py"]["line"] is None
    assert comments["src/moved.py"]["original_line"] == 9
    assert comments["src/moved.py"]["position"] is None
    assert comments["src/keep.py"]["line"] == 4
    q = """query($o:String!,$r:String!,$n:Int!){repository(owner:$o,name:$r){pullRequest(number:$n){
      reviewThreads(first:10){nodes{id isOutdated line originalLine path}}}}}"""
    r = requests.post(f"{fake.url}/graphql", json={"query": q, "variables": {"o": O, "r": R, "n": 7}},
                      headers={**UA, "Authorization": f"token {TOKEN}"}, timeout=10)
    nodes = {n["id"]: n for n in r.json()["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"]}
    assert nodes[stale["id"]]["isOutdated"] is True and nodes[stale["id"]]["line"] is None
    assert nodes[kept["id"]]["isOutdated"] is False and nodes[kept["id"]]["line"] == 4


def test_event_times_follow_at_and_the_clock(api, repo, fake):
    fake.clock = "2026-04-05T06:07:08Z"
    a = fake.add_event(O, R, 5, "mentioned", actor="bob")
    b = fake.add_event(O, R, 5, "labeled", at=dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc),
                       label="x")
    assert a["created_at"] == "2026-04-05T06:07:08Z"
    assert b["created_at"] == "2026-01-01T00:00:00Z" and b["label"]["name"] == "x"
    assert a["id"] < b["id"]  # ids grow with recording, whatever the date
    bot = fake.close_issue(O, R, 5, by="dependabot[bot]")
    assert bot["actor"]["login"] == "dependabot[bot]" and bot["actor"]["type"] == "Bot"
