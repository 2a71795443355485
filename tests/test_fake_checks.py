"""The fake GitHub's CI checks, commit statuses and mergeability (contract section 23), through
real HTTP (requests): GitHub's shapes (githubkit's models), filter=latest/all, paging and Link,
ETag and 304 per page, the 403 of a token without Checks or Commit statuses read, and
``mergeable`` null while GitHub computes."""

from __future__ import annotations

import pytest
import requests

from tests.support import links, query_of

githubkit_compat = pytest.importorskip(
    "githubkit.compat", reason="githubkit (requirements-dev.txt) is needed"
)
models = pytest.importorskip(
    "githubkit_schemas.v2022_11_28.models",
    reason="githubkit-schemas[2022-11-28] (requirements-dev.txt) is needed",
)

TOKEN = "checks-token"
OTHER = "checks-other-token"
O, R = "octo", "hello"
UA = {"User-Agent": "fakegithub-checks-tests"}
# GitHub's OpenAPI enum for a check run's conclusion lacks these two, which GitHub sends
# (its GraphQL CheckConclusionState has STALE and STARTUP_FAILURE; REST documents "stale")
OUTSIDE_OPENAPI = {"stale", "startup_failure"}


def check(model_name: str, data, many: bool = False):
    model = getattr(models, model_name)
    githubkit_compat.type_validate_python(list[model] if many else model, data)


def check_runs_list(data):
    """The list answer against GitHub's model; a conclusion the model's enum lacks is checked
    with every other field (the run with that one field swapped)."""
    runs = [dict(r, conclusion="failure") if r["conclusion"] in OUTSIDE_OPENAPI else r
            for r in data["check_runs"]]
    check("ReposOwnerRepoCommitsRefCheckRunsGetResponse200", {**data, "check_runs": runs})


@pytest.fixture
def api(fake):
    """``api(path, token=TOKEN, **requests_kwargs)``: a GET against the fake."""
    fake.add_token(TOKEN, login="octocat")
    fake.add_token(OTHER, login="bob")
    sessions = {}

    def get(path, token=TOKEN, **kw):
        if token not in sessions:
            s = sessions[token] = requests.Session()
            s.headers.update({**UA, "Accept": "application/vnd.github+json"})
            if token:
                s.headers["Authorization"] = f"token {token}"
        url = path if path.startswith("http") else fake.url + path
        return sessions[token].get(url, timeout=10, allow_redirects=False, **kw)

    return get


@pytest.fixture
def repo(fake):
    fake.clock = "2026-03-01T10:00:00Z"
    fake.add_repo(O, R)
    fake.add_pull(O, R, 7, title="Fix", user="alice")
    return fake


def runs_path(ref: str) -> str:
    return f"/repos/{O}/{R}/commits/{ref}/check-runs"


# --------------------------------------------------------------------------- check runs


def test_check_runs_have_githubs_shape_through_their_life(api, repo):
    fake = repo
    head = fake.pull_head(O, R, 7)
    queued = fake.add_check_run(O, R, head, "lint")
    assert queued["status"] == "queued" and queued["conclusion"] is None
    assert queued["completed_at"] is None and queued["started_at"] == "2026-03-01T10:00:00Z"
    fake.advance(60)
    started = fake.start_check_run(queued["id"])
    assert started["status"] == "in_progress" and started["started_at"] == "2026-03-01T10:01:00Z"
    tests = fake.add_check_run(O, R, head, "tests (3.12)", status="in_progress")
    waiting = fake.add_check_run(O, R, head, "deploy", status="waiting")
    fake.advance(60)
    done = fake.complete_check_run(
        tests["id"], "failure", title="2 tests failed", summary="test_a, test_b",
        text="long log", annotations=[
            {"path": "src/a.py", "start_line": 3, "end_line": 3, "annotation_level": "failure",
             "message": "assert 1 == 2", "title": "test_a", "start_column": 5,
             "end_column": 9},
            {"path": "src/b.py", "start_line": 10, "end_line": 12,
             "annotation_level": "warning", "message": "slow", "raw_details": "12 s"}])
    assert done["completed_at"] == "2026-03-01T10:02:00Z"
    stale = fake.add_check_run(O, R, head, "old-bot", app="some-ci", conclusion="stale")
    boom = fake.add_check_run(O, R, head, "startup", conclusion="startup_failure")

    r = api(runs_path(head))
    assert r.status_code == 200 and r.headers["ETag"].startswith('W/"')
    data = r.json()
    check_runs_list(data)
    assert data["total_count"] == 5
    by_name = {x["name"]: x for x in data["check_runs"]}
    assert [x["id"] for x in data["check_runs"]] == sorted(
        [queued["id"], tests["id"], waiting["id"], stale["id"], boom["id"]], reverse=True)
    run = by_name["tests (3.12)"]
    assert (run["status"], run["conclusion"]) == ("completed", "failure")
    assert run["head_sha"] == head and run["node_id"].startswith("CR_")
    assert run["output"] == {
        "title": "2 tests failed", "summary": "test_a, test_b", "text": "long log",
        "annotations_count": 2,
        "annotations_url": f"{fake.url}/repos/{O}/{R}/check-runs/{run['id']}/annotations"}
    assert run["url"] == f"{fake.url}/repos/{O}/{R}/check-runs/{run['id']}"
    assert run["html_url"] == f"https://github.com/{O}/{R}/runs/{run['id']}"
    assert run["app"]["slug"] == "github-actions" and run["app"]["id"] == 15368
    assert run["app"]["owner"]["login"] == "github" and run["pull_requests"] == []
    assert by_name["deploy"]["status"] == "waiting" and by_name["deploy"]["conclusion"] is None
    assert by_name["lint"]["status"] == "in_progress"
    assert by_name["old-bot"]["conclusion"] == "stale"
    assert by_name["old-bot"]["app"]["slug"] == "some-ci"
    assert by_name["startup"]["conclusion"] == "startup_failure"
    assert run["id"] > 2**34 and run["check_suite"]["id"] > 2**34
    assert by_name["lint"]["check_suite"] == run["check_suite"]  # one app, one suite
    assert by_name["old-bot"]["check_suite"] != run["check_suite"]

    single = api(f"/repos/{O}/{R}/check-runs/{run['id']}")
    assert single.status_code == 200 and single.json() == run
    check("CheckRun", single.json())
    notes = api(f"/repos/{O}/{R}/check-runs/{run['id']}/annotations")
    assert notes.status_code == 200
    check("CheckAnnotation", notes.json(), many=True)
    assert notes.json() == [
        {"path": "src/a.py", "blob_href": f"https://github.com/{O}/{R}/blob/{head}/src/a.py",
         "start_line": 3, "end_line": 3, "start_column": 5, "end_column": 9,
         "annotation_level": "failure", "title": "test_a", "message": "assert 1 == 2",
         "raw_details": None},
        {"path": "src/b.py", "blob_href": f"https://github.com/{O}/{R}/blob/{head}/src/b.py",
         "start_line": 10, "end_line": 12, "start_column": None, "end_column": None,
         "annotation_level": "warning", "title": None, "message": "slow",
         "raw_details": "12 s"}]
    # a conclusion outside GitHub's OpenAPI enum really is refused by the model
    with pytest.raises(Exception):  # noqa: B017 (pydantic's ValidationError)
        check("CheckRun", by_name["old-bot"])


def test_latest_keeps_the_newest_run_per_suite_and_name(api, repo):
    fake = repo
    head = fake.pull_head(O, R, 7)
    push = fake.add_check_run(O, R, head, "tests", suite="push", conclusion="failure")
    pr = fake.add_check_run(O, R, head, "tests", suite="pull_request", conclusion="success")
    lint = fake.add_check_run(O, R, head, "lint", suite="push", conclusion="success")
    assert push["check_suite"]["id"] != pr["check_suite"]["id"]
    assert lint["check_suite"]["id"] == push["check_suite"]["id"]

    latest = api(runs_path(head)).json()
    assert {x["id"] for x in latest["check_runs"]} == {push["id"], pr["id"], lint["id"]}

    again = fake.rerun_check_run(push["id"])
    assert again["id"] > push["id"] and again["check_suite"] == push["check_suite"]
    assert again["name"] == "tests" and again["status"] == "queued"
    assert again["conclusion"] is None and again["output"]["annotations_count"] == 0
    latest = api(runs_path(head)).json()
    check_runs_list(latest)
    assert latest["total_count"] == 3
    assert [x["id"] for x in latest["check_runs"]] == [again["id"], lint["id"], pr["id"]]
    assert api(runs_path(head), params={"filter": "latest"}).json() == latest
    every = api(runs_path(head), params={"filter": "all"}).json()
    assert every["total_count"] == 4
    assert [x["id"] for x in every["check_runs"]] == [again["id"], lint["id"], pr["id"],
                                                      push["id"]]
    named = api(runs_path(head), params={"check_name": "tests"}).json()
    assert {x["id"] for x in named["check_runs"]} == {again["id"], pr["id"]}
    # status applies to the newest run: the re-run is queued, its failed ancestor is gone
    done = api(runs_path(head), params={"status": "completed"}).json()
    assert {x["id"] for x in done["check_runs"]} == {pr["id"], lint["id"]}
    queued = api(runs_path(head), params={"status": "queued", "filter": "all"}).json()
    assert [x["id"] for x in queued["check_runs"]] == [again["id"]]
    app_id = api(runs_path(head), params={"app_id": "15368"}).json()
    assert app_id["total_count"] == 3
    assert api(runs_path(head), params={"app_id": "1"}).json()["total_count"] == 0
    for bad in ({"filter": "newest"}, {"status": "done"}):
        r = api(runs_path(head), params=bad)
        assert r.status_code == 422
        check("ValidationError", r.json())
    # a job that appears after others finished is listed from then on
    fake.complete_check_run(again["id"], "success")
    late = fake.add_check_run(O, R, head, "deploy", suite="push")
    latest = api(runs_path(head)).json()
    assert latest["total_count"] == 4 and latest["check_runs"][0]["id"] == late["id"]


def test_check_runs_page_with_links_and_clamp(api, repo):
    fake = repo
    head = fake.pull_head(O, R, 7)
    ids = [fake.add_check_run(O, R, head, f"job-{i:03}")["id"] for i in range(235)]
    first = api(runs_path(head), params={"per_page": "100", "filter": "all"})
    assert first.status_code == 200
    body = first.json()
    assert body["total_count"] == 235 and len(body["check_runs"]) == 100
    assert [x["id"] for x in body["check_runs"]] == sorted(ids, reverse=True)[:100]
    rels = links(first)
    assert list(rels) == ["next", "last"]
    assert rels["next"].startswith(f"{fake.url}/repositories/")
    assert f"/commits/{head}/check-runs?" in rels["next"]
    assert query_of(rels["next"]) == {"page": "2", "per_page": "100", "filter": "all"}
    assert query_of(rels["last"])["page"] == "3"
    seen, url = [], first.url
    while url:
        r = api(url)
        assert r.status_code == 200 and r.json()["total_count"] == 235
        seen += [x["id"] for x in r.json()["check_runs"]]
        url = links(r).get("next")
    assert seen == sorted(ids, reverse=True)
    default = api(runs_path(head))
    assert len(default.json()["check_runs"]) == 30
    assert query_of(links(default)["last"]) == {"page": "8"}
    clamped = api(runs_path(head), params={"per_page": "500"})
    assert len(clamped.json()["check_runs"]) == 100
    past = api(runs_path(head), params={"page": "9"})
    assert past.json() == {"total_count": 235, "check_runs": []}
    assert list(links(past)) == ["prev", "last", "first"]


def test_a_run_completing_on_page_two_changes_only_page_twos_etag(api, repo, fake):
    head = fake.pull_head(O, R, 7)
    ids = [fake.add_check_run(O, R, head, f"job-{i}", status="in_progress")["id"]
           for i in range(8)]
    pages = {}
    for page in (1, 2):
        r = api(runs_path(head), params={"per_page": "5", "page": str(page)})
        assert r.status_code == 200
        pages[page] = r.headers["ETag"]
    on_page_two = ids[0]  # newest first: the oldest run is on page 2
    assert on_page_two in [x["id"] for x in r.json()["check_runs"]]
    fake.clear_log()
    again = api(runs_path(head), params={"per_page": "5", "page": "1"},
                headers={"If-None-Match": pages[1]})
    assert again.status_code == 304 and again.content == b""
    spent = int(again.headers["x-ratelimit-remaining"])
    fake.complete_check_run(on_page_two, "failure")
    one = api(runs_path(head), params={"per_page": "5", "page": "1"},
              headers={"If-None-Match": pages[1]})
    assert one.status_code == 304
    assert int(one.headers["x-ratelimit-remaining"]) == spent  # a 304 costs nothing
    two = api(runs_path(head), params={"per_page": "5", "page": "2"},
              headers={"If-None-Match": pages[2]})
    assert two.status_code == 200 and two.headers["ETag"] != pages[2]
    assert two.json()["total_count"] == 8
    assert {x["id"]: x["conclusion"] for x in two.json()["check_runs"]}[on_page_two] == "failure"
    assert api(runs_path(head), params={"per_page": "5", "page": "2"},
               headers={"If-None-Match": two.headers["ETag"]}).status_code == 304
    # single run and annotations answer conditional GETs too
    single = api(f"/repos/{O}/{R}/check-runs/{on_page_two}")
    assert api(f"/repos/{O}/{R}/check-runs/{on_page_two}",
               headers={"If-None-Match": single.headers["ETag"]}).status_code == 304
    log = [(e.method, e.path, e.query.get("page"), e.status) for e in fake.requests]
    assert log[:3] == [("GET", runs_path(head), "1", 304), ("GET", runs_path(head), "1", 304),
                       ("GET", runs_path(head), "2", 200)]


def test_refs_a_branch_an_abbreviated_sha_and_a_push(api, repo, fake):
    old = fake.pull_head(O, R, 7)
    run = fake.add_check_run(O, R, old, "tests", conclusion="failure")
    fake.set_commit_status(O, R, old, "ci/legacy", "failure")
    by_branch = api(runs_path("feature")).json()
    assert [x["id"] for x in by_branch["check_runs"]] == [run["id"]]
    assert api(runs_path(old[:7])).json() == by_branch
    new = fake.push(O, R, 7)[-1]
    assert fake.pull_head(O, R, 7) == new != old
    for ref in (new, "feature"):
        assert api(runs_path(ref)).json() == {"total_count": 0, "check_runs": []}
        combined = api(f"/repos/{O}/{R}/commits/{ref}/status").json()
        assert combined["sha"] == new and combined["statuses"] == []
    assert api(runs_path(old)).json()["total_count"] == 1
    assert api(f"/repos/{O}/{R}/commits/{old}/status").json()["state"] == "failure"
    missing = api(runs_path("0" * 40))
    assert missing.status_code == 422
    assert missing.json()["message"] == f"No commit found for SHA: {'0' * 40}"
    check("BasicError", missing.json())
    assert api(f"/repos/{O}/nope/commits/{old}/check-runs").status_code == 404
    assert api(f"/repos/{O}/{R}/check-runs/12345").status_code == 404
    with pytest.raises(KeyError):
        fake.add_check_run(O, R, "f" * 40, "tests")


def test_annotations_page_at_most_100(api, repo, fake):
    head = fake.pull_head(O, R, 7)
    notes = [{"path": f"src/f{i}.py", "start_line": i + 1, "end_line": i + 1,
              "annotation_level": "warning", "message": f"note {i}"} for i in range(130)]
    run = fake.add_check_run(O, R, head, "lint", conclusion="failure", annotations=notes)
    assert run["output"]["annotations_count"] == 130
    path = f"/repos/{O}/{R}/check-runs/{run['id']}/annotations"
    first = api(path)
    assert len(first.json()) == 30 and query_of(links(first)["last"]) == {"page": "5"}
    big = api(path, params={"per_page": "500"})
    assert [x["message"] for x in big.json()] == [f"note {i}" for i in range(100)]
    rest = api(links(big)["next"])
    assert [x["message"] for x in rest.json()] == [f"note {i}" for i in range(100, 130)]
    check("CheckAnnotation", rest.json(), many=True)
    assert f"/check-runs/{run['id']}/annotations?page=2&per_page=500" in links(big)["next"]


# --------------------------------------------------------------------------- statuses


def test_combined_status_is_pending_without_statuses_and_keeps_the_newest_per_context(
        api, repo, fake):
    head = fake.pull_head(O, R, 7)
    path = f"/repos/{O}/{R}/commits/{head}/status"
    empty = api(path)
    assert empty.status_code == 200
    check("CombinedCommitStatus", empty.json())
    body = empty.json()
    assert (body["state"], body["statuses"], body["total_count"]) == ("pending", [], 0)
    assert body["sha"] == head and body["repository"]["full_name"] == f"{O}/{R}"
    assert body["url"] == f"{fake.url}/repos/{O}/{R}/commits/{head}/status"
    assert body["commit_url"] == f"{fake.url}/repos/{O}/{R}/commits/{head}"

    first = fake.set_commit_status(O, R, head, "ci/build", "pending", description="queued",
                                   target_url="https://ci.example/1", creator="ci-bot")
    assert api(path).json()["state"] == "pending"
    fake.advance(30)
    fake.set_commit_status(O, R, head, "ci/build", "success", description="ok")
    fake.set_commit_status(O, R, head, "security", "success")
    combined = api(path).json()
    check("CombinedCommitStatus", combined)
    assert combined["state"] == "success" and combined["total_count"] == 2
    assert [(s["context"], s["state"]) for s in combined["statuses"]] == [
        ("ci/build", "success"), ("security", "success")]
    assert "creator" not in combined["statuses"][0]
    assert combined["statuses"][0]["id"] > first["id"]
    fake.set_commit_status(O, R, head, "ci/build", "error", description="crashed")
    combined = api(path).json()
    assert combined["state"] == "failure"
    # a context with a new status moves to the end (ordered by that status's id)
    assert [(s["context"], s["state"]) for s in combined["statuses"]] == [
        ("security", "success"), ("ci/build", "error")]
    fake.set_commit_status(O, R, head, "lint", "pending")
    assert api(path).json()["state"] == "failure"

    every = api(f"/repos/{O}/{R}/commits/{head}/statuses")
    assert every.status_code == 200
    check("Status", every.json(), many=True)
    assert [(s["context"], s["state"]) for s in every.json()] == [
        ("lint", "pending"), ("ci/build", "error"), ("security", "success"),
        ("ci/build", "success"), ("ci/build", "pending")]
    oldest = every.json()[-1]
    assert oldest["creator"]["login"] == "ci-bot" and oldest["description"] == "queued"
    assert oldest["target_url"] == "https://ci.example/1"
    assert oldest["created_at"] == "2026-03-01T10:00:00Z"
    assert oldest["url"] == f"{fake.url}/repos/{O}/{R}/statuses/{head}"
    assert api(f"/repos/{O}/{R}/statuses/{head}").json() == every.json()


def test_statuses_page_with_etags(api, repo, fake):
    head = fake.pull_head(O, R, 7)
    for i in range(120):
        fake.set_commit_status(O, R, head, f"ctx-{i:03}", "success")
    path = f"/repos/{O}/{R}/commits/{head}/status"
    one = api(path, params={"per_page": "100"})
    body = one.json()
    assert body["total_count"] == 120 and len(body["statuses"]) == 100
    assert body["state"] == "success"
    two = api(links(one)["next"])
    assert len(two.json()["statuses"]) == 20 and two.json()["total_count"] == 120
    assert "/status?page=2&per_page=100" in links(one)["next"]
    assert api(path, params={"per_page": "100"},
               headers={"If-None-Match": one.headers["ETag"]}).status_code == 304
    fake.set_commit_status(O, R, head, "ctx-119", "failure")  # its context stays on page 2
    assert api(path, params={"per_page": "100"},
               headers={"If-None-Match": one.headers["ETag"]}).status_code == 200  # state
    listed = api(f"/repos/{O}/{R}/commits/{head}/statuses", params={"per_page": "50"})
    assert len(listed.json()) == 50 and query_of(links(listed)["last"])["page"] == "3"
    assert listed.json()[0]["context"] == "ctx-119" and listed.json()[0]["state"] == "failure"


# --------------------------------------------------------------------------- 403


def test_a_token_without_checks_read_gets_403_per_kind(api, repo, fake):
    head = fake.pull_head(O, R, 7)
    run = fake.add_check_run(O, R, head, "tests", conclusion="failure")
    fake.set_commit_status(O, R, head, "ci", "success")
    fake.forbid_checks("check_runs", token=OTHER)
    paths = {
        "check_runs": [runs_path(head), f"/repos/{O}/{R}/check-runs/{run['id']}",
                       f"/repos/{O}/{R}/check-runs/{run['id']}/annotations"],
        "statuses": [f"/repos/{O}/{R}/commits/{head}/status",
                     f"/repos/{O}/{R}/commits/{head}/statuses"],
    }
    fake.clear_log()
    for p in paths["check_runs"]:
        r = api(p, token=OTHER)
        assert r.status_code == 403
        assert r.json()["message"] == "Resource not accessible by integration"
        assert r.json()["documentation_url"].startswith("https://docs.github.com/rest/checks/")
        check("BasicError", r.json())
        assert api(p).status_code == 200  # another token reads them
    for p in paths["statuses"]:
        assert api(p, token=OTHER).status_code == 200
    assert [(e.path, e.status) for e in fake.requests][:2] == [
        (runs_path(head), 403), (runs_path(head), 200)]
    assert fake.requests[0].headers["authorization"] == f"token {OTHER}"

    fake.forbid_checks("statuses")  # every token, and no token
    for p in paths["statuses"]:
        for token in (TOKEN, OTHER, None):
            r = api(p, token=token)
            assert r.status_code == 403 and r.json()["message"].startswith("Resource not")
    assert api(runs_path(head)).status_code == 200
    fake.allow_checks()
    fake.allow_checks(token=OTHER)
    assert all(api(p, token=OTHER).status_code == 200 for p in sum(paths.values(), []))
    with pytest.raises(ValueError):
        fake.forbid_checks("actions")


def test_private_repository_checks_need_a_token(api, fake):
    fake.add_repo(O, "secret", private=True)
    fake.add_pull(O, "secret", 1)
    head = fake.pull_head(O, "secret", 1)
    fake.add_check_run(O, "secret", head, "tests")
    assert api(f"/repos/{O}/secret/commits/{head}/check-runs", token=None).status_code == 404
    assert api(f"/repos/{O}/secret/commits/{head}/status", token=None).status_code == 404
    assert api(f"/repos/{O}/secret/commits/{head}/check-runs").json()["total_count"] == 1


# --------------------------------------------------------------------------- mergeability


def test_mergeable_is_null_while_github_computes_then_the_value(api, repo, fake):
    path = f"/repos/{O}/{R}/pulls/7"
    before = api(path)
    assert (before.json()["mergeable"], before.json()["mergeable_state"]) == (True, "clean")
    fake.set_mergeability(O, R, 7, False)  # conflicts: the first read starts the job
    computing = api(path, headers={"If-None-Match": before.headers["ETag"]})
    assert computing.status_code == 200
    check("PullRequest", computing.json())
    assert computing.json()["mergeable"] is None
    assert computing.json()["mergeable_state"] == "unknown"
    assert computing.json()["rebaseable"] is None
    done = api(path, headers={"If-None-Match": computing.headers["ETag"]})
    assert done.status_code == 200 and done.headers["ETag"] != computing.headers["ETag"]
    check("PullRequest", done.json())
    assert (done.json()["mergeable"], done.json()["mergeable_state"]) == (False, "dirty")
    assert api(path, headers={"If-None-Match": done.headers["ETag"]}).status_code == 304

    fake.set_mergeability(O, R, 7, True, state="unstable", after_reads=2)
    states = [api(path).json()["mergeable_state"] for _ in range(4)]
    assert states == ["unknown", "unknown", "unstable", "unstable"]
    fake.set_mergeability(O, R, 7, True, state="blocked", after_reads=None)
    assert [api(path).json()["mergeable"] for _ in range(3)] == [None, None, None]
    fake.set_mergeability(O, R, 7, True, after_reads=0)
    assert api(path).json()["mergeable_state"] == "clean"
    fake.set_draft(O, R, 7, True)
    assert api(path).json()["mergeable_state"] == "draft"
    fake.set_draft(O, R, 7, False)

    # a push: GitHub recomputes, the same result after one null
    fake.set_mergeability(O, R, 7, True, state="behind", after_reads=0)
    fake.push(O, R, 7)
    assert [api(path).json()["mergeable"] for _ in range(2)] == [None, True]
    assert api(path).json()["mergeable_state"] == "behind"
    fake.recompute_mergeability(O, R, 7)  # the base moved
    assert [api(path).json()["mergeable_state"] for _ in range(2)] == ["unknown", "behind"]
    listed = api(f"/repos/{O}/{R}/pulls").json()
    assert "mergeable" not in listed[0]  # the list never says
    fake.merge_pull(O, R, 7)
    assert api(path).json()["mergeable"] is None
