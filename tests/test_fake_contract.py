"""The fake GitHub against GitHub's own contract.

- every REST body is validated with githubkit's models (generated from GitHub's OpenAPI
  description), so no field the clients rely on is missing or mistyped;
- the responses recorded from api.github.com (``../shared/github/recorded``) are replayed
  against the fake: same top-level keys per item (the fake may only add fields GitHub's
  current OpenAPI description has), same header names, same ``Link`` format;
- the fake's GraphQL subset schema is checked against GitHub's published schema
  (``../shared/github/schema.graphql``): every type, field, argument, default, enum value
  and deprecation identical.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import requests

githubkit_compat = pytest.importorskip(
    "githubkit.compat", reason="githubkit (requirements-dev.txt) is needed"
)
models = pytest.importorskip(
    "githubkit_schemas.v2022_11_28.models",
    reason="githubkit-schemas[2022-11-28] (requirements-dev.txt) is needed",
)
graphql = pytest.importorskip(
    "graphql", reason="graphql-core (requirements-dev.txt) is needed"
)

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLUnionType,
    Undefined,
    build_schema,
    parse,
    validate,
)

from tests.fakegithub.gql import SCHEMA_PATH

validate_model = githubkit_compat.type_validate_python

SHARED = Path(__file__).resolve().parents[2] / "shared" / "github"
needs_shared = pytest.mark.skipif(
    not (SHARED / "schema.graphql").is_file(),
    reason=f"GitHub reference data not found at {SHARED} (the shared/ folder beside the repository); "
    "it is present in CI and on the developers' machines, not in a fresh clone",
)

TOKEN = "contract-token"
O, R = "sigmavirus24", "github3.py"
FULL = "application/vnd.github.full+json"


@pytest.fixture
def gh(fake):
    """A populated fake and a GET helper (authenticated, with a User-Agent)."""
    fake.add_token(TOKEN, login="octocat")
    fake.add_repo(O, R)
    fake.add_issue(O, R, 187, title="An issue", body="Some *text*.")
    fake.add_comments(O, R, 187, 3)
    fake.add_comment(O, R, 187, "from a bot", user="dependabot", user_type="Bot")
    for number in (235, 671):
        fake.add_pull(
            O, R, number, body="A PR body.", head_owner="contributor", head_ref="fix"
        )
        fake.add_comments(O, R, number, 2, association="MEMBER")
        fake.add_review_thread(
            O,
            R,
            number,
            "src/a.py",
            line=12,
            start_line=10,
            comments=[
                {"user": "bob", "body": "root"},
                {"user": "alice", "body": "reply", "association": "OWNER"},
            ],
        )
        fake.add_review_thread(
            O,
            R,
            number,
            "src/b.py",
            line=3,
            is_outdated=True,
            comments=[
                {
                    "user": "copilot-pull-request-reviewer",
                    "user_type": "Bot",
                    "body": "bot note",
                    "association": "NONE",
                }
            ],
        )
        fake.add_review(O, R, number, "carol", "APPROVED", body="LGTM")
        fake.add_review(O, R, number, "dave", "CHANGES_REQUESTED", body="")
    session = requests.Session()
    session.headers.update(
        {
            "User-Agent": "contract-test",
            "Authorization": f"token {TOKEN}",
            "Accept": "application/vnd.github+json",
        }
    )

    def get(path, **kw):
        return session.get(fake.url + path, timeout=10, **kw)

    get.session = session
    return get


def check(model_name: str, data, many: bool = False):
    model = getattr(models, model_name)
    validate_model(list[model] if many else model, data)


# --------------------------------------------------------------------------- REST models


@pytest.mark.parametrize("accept", ["application/vnd.github+json", FULL])
def test_issue_comment_list_matches_issuecomment_model(gh, accept):
    for number in (187, 235):
        r = gh(f"/repos/{O}/{R}/issues/{number}/comments", headers={"Accept": accept})
        assert r.status_code == 200
        check("IssueComment", r.json(), many=True)


def test_issue_comment_writes_and_single_read_match_issuecomment_model(gh, fake):
    s = gh.session
    created = s.post(
        f"{fake.url}/repos/{O}/{R}/issues/187/comments",
        json={"body": "new"},
        timeout=10,
    )
    assert created.status_code == 201
    check("IssueComment", created.json())
    cid = created.json()["id"]
    check("IssueComment", gh(f"/repos/{O}/{R}/issues/comments/{cid}").json())
    patched = s.patch(
        f"{fake.url}/repos/{O}/{R}/issues/comments/{cid}",
        json={"body": "edited"},
        timeout=10,
    )
    assert patched.status_code == 200
    check("IssueComment", patched.json())


def test_issue_and_pull_issue_match_issue_model(gh):
    for number in (187, 235):
        r = gh(f"/repos/{O}/{R}/issues/{number}")
        check("Issue", r.json())
    assert "pull_request" in gh(f"/repos/{O}/{R}/issues/235").json()


def test_repository_matches_fullrepository_model(gh, fake):
    check("FullRepository", gh(f"/repos/{O}/{R}").json())
    repo_id = gh(f"/repos/{O}/{R}").json()["id"]
    check("FullRepository", gh(f"/repositories/{repo_id}").json())


def test_pull_request_matches_pullrequest_model(gh):
    check("PullRequest", gh(f"/repos/{O}/{R}/pulls/235").json())
    check(
        "PullRequest", gh(f"/repos/{O}/{R}/pulls/235", headers={"Accept": FULL}).json()
    )


def test_pull_list_matches_pullrequestsimple_model(gh):
    r = gh(f"/repos/{O}/{R}/pulls", params={"state": "open", "head": "contributor:fix"})
    assert len(r.json()) == 2
    check("PullRequestSimple", r.json(), many=True)


def test_review_comments_match_pullrequestreviewcomment_model(gh):
    for accept in ("application/vnd.github+json", FULL):
        r = gh(f"/repos/{O}/{R}/pulls/235/comments", headers={"Accept": accept})
        assert len(r.json()) == 3
        check("PullRequestReviewComment", r.json(), many=True)
    cid = r.json()[0]["id"]
    check("PullRequestReviewComment", gh(f"/repos/{O}/{R}/pulls/comments/{cid}").json())


def test_reviews_match_pullrequestreview_model(gh):
    r = gh(f"/repos/{O}/{R}/pulls/671/reviews")
    assert [x["state"] for x in r.json()] == [
        "COMMENTED",
        "COMMENTED",
        "COMMENTED",
        "APPROVED",
        "CHANGES_REQUESTED",
    ]
    check("PullRequestReview", r.json(), many=True)


def test_single_review_and_its_comments_match_the_openapi_models(gh, fake):
    """``GET /pulls/N/reviews/ID`` is a ``pull-request-review``; ``GET
    /pulls/N/reviews/ID/comments`` a list of ``review-comment`` (with the same fields as
    ``pull-request-review-comment``, so the fake serves one shape for both)."""
    reviews = gh(f"/repos/{O}/{R}/pulls/235/reviews").json()
    by_pull = {c["id"]: c for c in gh(f"/repos/{O}/{R}/pulls/235/comments").json()}
    seen = 0
    for accept in ("application/vnd.github+json", FULL):
        for review in reviews:
            single = gh(
                f"/repos/{O}/{R}/pulls/235/reviews/{review['id']}",
                headers={"Accept": accept},
            )
            check("PullRequestReview", single.json())
            comments = gh(
                f"/repos/{O}/{R}/pulls/235/reviews/{review['id']}/comments",
                headers={"Accept": accept},
            ).json()
            check("ReviewComment", comments, many=True)
            for c in comments:
                assert c["pull_request_review_id"] == review["id"]
                if accept != FULL:
                    assert c == by_pull[c["id"]]
                seen += 1
    assert seen == 2 * len(by_pull)


def test_review_comment_schemas_of_both_lists_have_the_same_fields():
    assert _model_fields("ReviewComment") == _model_fields("PullRequestReviewComment")


def test_pending_dismissed_and_reply_reviews_match_the_models(gh, fake):
    root = gh(f"/repos/{O}/{R}/pulls/235/comments").json()[0]["id"]
    pending = fake.start_review(
        O,
        R,
        235,
        "octocat",  # the token's user: it sees its own draft
        comments=[
            {"path": "src/c.py", "line": 4, "start_line": 2, "body": "multi"},
            {"path": "src/d.py", "subject_type": "file", "body": "file-level"},
            {"in_reply_to": root, "body": "draft reply"},
        ],
    )
    reply = fake.reply_to_review_comment(root, "carol", "single reply")
    dismissed = fake.add_review(O, R, 235, "erin", "APPROVED", body="ok")
    fake.dismiss_review(dismissed["id"], "outdated")
    reviews = gh(f"/repos/{O}/{R}/pulls/235/reviews").json()
    check("PullRequestReview", reviews, many=True)
    states = {r["id"]: r["state"] for r in reviews}
    assert states[pending["id"]] == "PENDING"
    assert states[reply["review_id"]] == "COMMENTED"
    assert states[dismissed["id"]] == "DISMISSED"
    drafts = gh(f"/repos/{O}/{R}/pulls/235/reviews/{pending['id']}/comments").json()
    check("ReviewComment", drafts, many=True)
    assert [c["subject_type"] for c in drafts] == ["line", "file", "line"]
    assert drafts[1]["line"] is None and drafts[0]["start_line"] == 2
    check(
        "PullRequestReviewComment",
        gh(f"/repos/{O}/{R}/pulls/235/comments").json(),
        many=True,
    )


def test_review_writes_match_the_openapi_models(gh, fake):
    """The write routes (replies, reviews with and without event, submit, discard, dismiss,
    inline-comment edits) answer with GitHub's models, and their refusals too."""
    s, base = gh.session, f"{fake.url}/repos/{O}/{R}/pulls/235"
    root = gh(f"/repos/{O}/{R}/pulls/235/comments").json()[0]["id"]
    reply = s.post(f"{base}/comments/{root}/replies", json={"body": "answer"}, timeout=10)
    assert reply.status_code == 201
    check("PullRequestReviewComment", reply.json())
    assert reply.json()["in_reply_to_id"] == root
    edited = s.patch(f"{fake.url}/repos/{O}/{R}/pulls/comments/{reply.json()['id']}",
                     json={"body": "answer, edited"}, timeout=10)
    assert edited.status_code == 200
    check("PullRequestReviewComment", edited.json())
    refused = s.post(f"{base}/comments/{reply.json()['id']}/replies", json={"body": "x"},
                     timeout=10)
    assert refused.status_code == 422
    check("ValidationError", refused.json())
    review = s.post(f"{base}/reviews", timeout=10, json={
        "event": "COMMENT", "comments": [
            {"path": "src/e.py", "line": 5, "body": "inline"},
            {"path": "src/e.py", "line": 9, "start_line": 7, "side": "RIGHT", "body": "range"}]})
    assert review.status_code == 200
    check("PullRequestReview", review.json())
    assert review.json()["state"] == "COMMENTED"
    comments = gh(f"/repos/{O}/{R}/pulls/235/reviews/{review.json()['id']}/comments").json()
    check("ReviewComment", comments, many=True)
    assert [c["start_line"] for c in comments] == [None, 7]
    pending = s.post(f"{base}/reviews", json={"body": "draft"}, timeout=10)
    assert pending.status_code == 200 and pending.json()["state"] == "PENDING"
    check("PullRequestReview", pending.json())
    assert "submitted_at" not in pending.json()
    second = s.post(f"{base}/reviews", json={"event": "APPROVE"}, timeout=10)
    assert second.status_code == 422
    check("BasicError", second.json())
    assert second.json()["errors"] == ["User can only have one pending review per pull request"]
    discarded = s.delete(f"{base}/reviews/{pending.json()['id']}", timeout=10)
    assert discarded.status_code == 200
    check("PullRequestReview", discarded.json())
    assert gh(f"/repos/{O}/{R}/pulls/235/reviews/{pending.json()['id']}").status_code == 404
    again = s.post(f"{base}/reviews", json={"body": "second draft"}, timeout=10).json()
    submitted = s.post(f"{base}/reviews/{again['id']}/events",
                       json={"event": "COMMENT", "body": "notes"}, timeout=10)
    assert submitted.status_code == 200
    check("PullRequestReview", submitted.json())
    assert submitted.json()["state"] == "COMMENTED" and submitted.json()["submitted_at"]
    approved = next(r for r in gh(f"/repos/{O}/{R}/pulls/235/reviews").json()
                    if r["state"] == "APPROVED")
    not_owner = s.put(f"{base}/reviews/{approved['id']}/dismissals",
                      json={"message": "stale"}, timeout=10)
    assert not_owner.status_code == 403
    check("BasicError", not_owner.json())
    fake.add_token("owner-token", login=O)
    dismissed = requests.put(f"{base}/reviews/{approved['id']}/dismissals",
                             json={"message": "stale", "event": "DISMISS"}, timeout=10,
                             headers={"User-Agent": "t", "Authorization": "token owner-token"})
    assert dismissed.status_code == 200
    check("PullRequestReview", dismissed.json())
    assert dismissed.json()["state"] == "DISMISSED"


def test_reviews_on_ones_own_pull_request_are_refused_as_github_does(gh, fake):
    fake.add_pull(O, R, 900, user="octocat")
    s, base = gh.session, f"{fake.url}/repos/{O}/{R}/pulls/900"
    for event, reason in (("APPROVE", "Can not approve your own pull request"),
                          ("REQUEST_CHANGES", "Can not request changes on your own pull "
                           "request")):
        r = s.post(f"{base}/reviews", json={"event": event, "body": "b"}, timeout=10)
        assert r.status_code == 422 and r.json()["errors"] == [reason]
        check("BasicError", r.json())
    ok = s.post(f"{base}/reviews", json={"event": "COMMENT", "body": "note"}, timeout=10)
    assert ok.status_code == 200 and ok.json()["state"] == "COMMENTED"


# the model of each issue event kind in GitHub's OpenAPI description (section 21)
EVENT_MODELS = {
    "labeled": "LabeledIssueEvent",
    "unlabeled": "UnlabeledIssueEvent",
    "assigned": "AssignedIssueEvent",
    "unassigned": "UnassignedIssueEvent",
    "milestoned": "MilestonedIssueEvent",
    "demilestoned": "DemilestonedIssueEvent",
    "renamed": "RenamedIssueEvent",
    "review_requested": "ReviewRequestedIssueEvent",
    "review_request_removed": "ReviewRequestRemovedIssueEvent",
    "review_dismissed": "ReviewDismissedIssueEvent",
    "locked": "LockedIssueEvent",
    "closed": "StateChangeIssueEvent",
    "reopened": "StateChangeIssueEvent",
    "merged": "StateChangeIssueEvent",
}


def test_issue_events_match_the_openapi_models(gh, fake):
    fake.add_label(O, R, 235, "bug", by="bob")
    fake.remove_label(O, R, 235, "bug", by="bob")
    fake.assign(O, R, 235, "carol", by="bob")
    fake.unassign(O, R, 235, "carol", by="bob")
    fake.set_milestone(O, R, 235, "v1")
    fake.set_milestone(O, R, 235, None)
    fake.rename_issue(O, R, 235, "Renamed")
    fake.request_review(O, R, 235, reviewer="dave")
    fake.request_review(O, R, 235, team="core")
    fake.remove_review_request(O, R, 235, reviewer="dave")
    review = fake.add_review(O, R, 235, "erin", "APPROVED")
    fake.dismiss_review(review["id"], "stale")
    fake.lock_issue(O, R, 235)
    fake.unlock_issue(O, R, 235)
    fake.set_draft(O, R, 235, True)
    fake.set_draft(O, R, 235, False)
    fake.push(O, R, 235, force=True)
    fake.change_base(O, R, 235, "develop")
    fake.delete_head_ref(O, R, 235)
    fake.restore_head_ref(O, R, 235)
    fake.merge_pull(O, R, 235)
    fake.add_event(O, R, 235, "subscribed")
    fake.close_issue(O, R, 187)
    fake.reopen_issue(O, R, 187)
    fake.add_repo(O, "elsewhere")
    fake.transfer_issue(O, R, 187, O, "elsewhere")
    events = gh(f"/repos/{O}/{R}/issues/235/events").json()
    events += gh(f"/repos/{O}/elsewhere/issues/1/events").json()
    assert len(events) == 25
    for e in events:
        check("IssueEvent", e)
        if e["event"] in EVENT_MODELS:
            check(EVENT_MODELS[e["event"]], e)


def test_issue_and_pull_after_events_match_their_models(gh, fake):
    fake.add_label(O, R, 187, "bug")
    fake.assign(O, R, 187, "carol")
    fake.set_milestone(O, R, 187, "v1")
    fake.lock_issue(O, R, 187, reason="off-topic")
    fake.close_issue(O, R, 187, reason="not_planned")
    check("Issue", gh(f"/repos/{O}/{R}/issues/187").json())
    fake.add_label(O, R, 235, "wip")
    fake.request_review(O, R, 235, reviewer="dave")
    fake.request_review(O, R, 235, team="core")
    fake.merge_pull(O, R, 235, by="bob")
    fake.delete_head_repo(O, R, 671)
    for number in (235, 671):
        check("PullRequest", gh(f"/repos/{O}/{R}/pulls/{number}").json())
        check("Issue", gh(f"/repos/{O}/{R}/issues/{number}").json())
    check("PullRequestSimple", gh(f"/repos/{O}/{R}/pulls", params={"state": "all"}).json(),
          many=True)


def test_refs_compare_and_pull_commits_match_their_models(gh, fake):
    head = gh(f"/repos/{O}/{R}/pulls/235").json()["head"]
    ref = gh(f"/repos/contributor/{R}/git/ref/heads/{head['ref']}")
    assert ref.status_code == 200
    check("GitRef", ref.json())
    check("GitRef", gh(f"/repos/contributor/{R}/git/matching-refs/heads/").json(), many=True)
    shas = fake.push(O, R, 235, count=2, author="alice")
    fake.push(O, R, 235, author=None)  # a commit whose email matches no account
    compared = gh(f"/repos/{O}/{R}/compare/{head['sha']}...{shas[-1]}").json()
    check("CommitComparison", compared)
    forced = fake.push(O, R, 235, count=1, force=True)
    check("CommitComparison",
          gh(f"/repos/{O}/{R}/compare/{shas[-1]}...{forced[0]}", params={"per_page": 1}).json())
    fake.push(O, R, 235, count=2)
    commits = gh(f"/repos/{O}/{R}/pulls/235/commits").json()
    assert len(commits) == 3
    check("Commit", commits, many=True)


@pytest.mark.parametrize("accept", ["application/vnd.github+json", FULL])
def test_checks_statuses_and_mergeability_match_their_models(gh, fake, accept):
    """Section 23: every check-runs and status answer, and a pull request while GitHub
    computes its mergeability (test_fake_checks.py has the behaviour)."""
    head = fake.pull_head(O, R, 235)
    done = fake.add_check_run(O, R, head, "tests", conclusion="failure", title="1 failed",
                              summary="s", annotations=[{
                                  "path": "a.py", "start_line": 1, "end_line": 2,
                                  "annotation_level": "failure", "message": "m"}])
    fake.add_check_run(O, R, head, "lint", status="in_progress")
    fake.rerun_check_run(done["id"])
    fake.set_commit_status(O, R, head, "ci", "pending", description="d",
                           target_url="https://ci.example/1")
    fake.set_commit_status(O, R, head, "ci", "success")
    fake.set_mergeability(O, R, 235, False)
    a = {"Accept": accept}
    for params in ({}, {"filter": "all"}, {"per_page": 1, "page": 2}):
        r = gh(f"/repos/{O}/{R}/commits/{head}/check-runs", params=params, headers=a)
        assert r.status_code == 200
        check("ReposOwnerRepoCommitsRefCheckRunsGetResponse200", r.json())
    check("CheckRun", gh(f"/repos/{O}/{R}/check-runs/{done['id']}", headers=a).json())
    check("CheckAnnotation",
          gh(f"/repos/{O}/{R}/check-runs/{done['id']}/annotations", headers=a).json(),
          many=True)
    check("CombinedCommitStatus", gh(f"/repos/{O}/{R}/commits/{head}/status", headers=a).json())
    check("CombinedCommitStatus", gh(f"/repos/{O}/{R}/commits/{head}/status",
                                     params={"per_page": 1, "page": 2}, headers=a).json())
    check("Status", gh(f"/repos/{O}/{R}/commits/{head}/statuses", headers=a).json(), many=True)
    fake.forbid_checks()
    for path in (f"/commits/{head}/check-runs", f"/commits/{head}/status"):
        refused = gh(f"/repos/{O}/{R}{path}", headers=a)
        assert refused.status_code == 403
        check("BasicError", refused.json())
    for mergeable in (None, False):
        pull = gh(f"/repos/{O}/{R}/pulls/235", headers=a).json()
        assert pull["mergeable"] is mergeable
        check("PullRequest", pull)


def test_moved_issue_and_lost_commit_errors_have_githubs_fields(gh, fake):
    fake.add_repo(O, "elsewhere")
    fake.transfer_issue(O, R, 187, O, "elsewhere")
    moved = gh(f"/repos/{O}/{R}/issues/187/comments", allow_redirects=False)
    assert moved.status_code == 301
    assert set(moved.json()) == {"message", "url", "documentation_url"}
    head = gh(f"/repos/{O}/{R}/pulls/235").json()["head"]["sha"]
    fake.gc(head)
    lost = gh(f"/repos/{O}/{R}/compare/{head}...{head}")
    assert lost.status_code == 404
    check("BasicError", lost.json())


def test_integration_token_user_error_matches_basicerror(gh, fake):
    fake.add_token("ghs_contract", login="github-actions[bot]", integration=True)
    r = requests.get(
        f"{fake.url}/user",
        headers={"User-Agent": "t", "Authorization": "token ghs_contract"},
        timeout=10,
    )
    assert r.status_code == 403
    check("BasicError", r.json())


def test_rate_limit_matches_ratelimitoverview_model(gh):
    check("RateLimitOverview", gh("/rate_limit").json())


def test_errors_match_basicerror_and_validationerror_models(gh, fake):
    missing = gh(f"/repos/{O}/nope/issues/1/comments")
    assert missing.status_code == 404
    check("BasicError", missing.json())
    bad = requests.get(
        f"{fake.url}/repos/{O}/{R}",
        headers={"User-Agent": "t", "Authorization": "token wrong"},
        timeout=10,
    )
    assert bad.status_code == 401
    check("BasicError", bad.json())
    invalid = gh.session.post(
        f"{fake.url}/repos/{O}/{R}/issues/187/comments", json={"body": ""}, timeout=10
    )
    assert invalid.status_code == 422
    check("ValidationError", invalid.json())


# --------------------------------------------------------------------------- recorded responses

RECORDED = sorted(SHARED.glob("recorded/*.json")) if SHARED.is_dir() else []

# The model a recorded body is an instance of, by the path it was requested at.
RECORDED_MODELS = [
    (re.compile(r"/issues/\d+$"), "Issue"),
    (re.compile(r"/issues/\d+/comments$"), "IssueComment"),
    (re.compile(r"/pulls/\d+$"), "PullRequest"),
    (re.compile(r"/pulls/\d+/comments$"), "PullRequestReviewComment"),
    (re.compile(r"/pulls/\d+/reviews$"), "PullRequestReview"),
]


def _model_fields(name: str) -> set:
    model = getattr(models, name)
    return {f.alias or k for k, f in model.model_fields.items()}


def _nested_keys_missing(recorded, got, where=""):
    """Keys the recording has that the fake lacks, at any depth (dicts and first list items)."""
    missing = []
    if isinstance(recorded, dict) and isinstance(got, dict):
        missing += [f"{where}.{k}" for k in recorded if k not in got]
        for k in recorded:
            if k in got:
                missing += _nested_keys_missing(recorded[k], got[k], f"{where}.{k}")
    elif isinstance(recorded, list) and isinstance(got, list) and recorded and got:
        missing += _nested_keys_missing(recorded[0], got[0], f"{where}[0]")
    return missing


def _headers(recorded: dict) -> dict:
    return {
        k.lower(): (v[0] if isinstance(v, list) else v) for k, v in recorded.items()
    }


@needs_shared
@pytest.mark.parametrize("recording", RECORDED, ids=lambda p: p.stem)
def test_recorded_github_response_has_the_same_shape_as_the_fake(gh, fake, recording):
    rec = json.loads(recording.read_text())
    uri = rec["request"]["uri"]
    path_query = re.sub(r"^https://api\.github\.com", "", uri)
    model_name = next(
        m for pattern, m in RECORDED_MODELS if pattern.search(path_query.split("?")[0])
    )
    media = _headers(rec["headers"]).get("x-github-media-type", "")
    accept = FULL if "param=full" in media else "application/vnd.github+json"

    r = gh(path_query, headers={"Accept": accept})
    assert r.status_code == rec["status"]["code"]
    body, recorded = r.json(), rec["body"]
    items = (
        list(zip(recorded, body)) if isinstance(recorded, list) else [(recorded, body)]
    )
    assert items, "the fake must return items for the recorded request"
    allowed_extra = _model_fields(model_name)
    for rec_item, item in items:
        assert set(rec_item) <= set(item), (
            f"fake lacks {sorted(set(rec_item) - set(item))}"
        )
        extra = set(item) - set(rec_item)
        assert extra <= allowed_extra, (
            f"fake adds keys GitHub's {model_name} does not have: {extra - allowed_extra}"
        )
        assert _nested_keys_missing(rec_item, item) == []
    # GitHub's header names for caching and rate limits, and its media type echo.
    rec_headers, got = (
        _headers(rec["headers"]),
        {k.lower(): v for k, v in r.headers.items()},
    )
    for name in (
        "content-type",
        "etag",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "x-github-media-type",
    ):
        assert name in rec_headers and name in got, name
    assert got["content-type"] == rec_headers["content-type"]
    assert re.fullmatch(r'W/"[0-9a-f]{32,64}"', rec_headers["etag"])
    assert re.fullmatch(r'W/"[0-9a-f]{64}"', got["etag"])
    assert got["x-github-media-type"] == rec_headers["x-github-media-type"]
    for name in ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"):
        assert got[name].isdigit() and rec_headers[name].isdigit()


# GitHub's documented Link header ("Using pagination in the REST API"), a middle page.
GITHUB_LINK_EXAMPLE = (
    '<https://api.github.com/repositories/1300192/issues?page=2>; rel="prev", '
    '<https://api.github.com/repositories/1300192/issues?page=4>; rel="next", '
    '<https://api.github.com/repositories/1300192/issues?page=515>; rel="last", '
    '<https://api.github.com/repositories/1300192/issues?page=1>; rel="first"'
)
LINK_PART = re.compile(r'<(?P<url>[^>]+)>; rel="(?P<rel>[a-z]+)"')


def _link_parts(header: str):
    parts = header.split(", ")
    parsed = [LINK_PART.fullmatch(p) for p in parts]
    assert all(parsed), header
    return [(m["url"], m["rel"]) for m in parsed]


def test_link_header_has_githubs_format_and_rel_order(gh, fake):
    fake.add_comments(O, R, 187, 10)  # 14 comments: 5 pages of 3
    r = gh(f"/repos/{O}/{R}/issues/187/comments", params={"per_page": "3", "page": "3"})
    ours = _link_parts(r.headers["Link"])
    theirs = _link_parts(GITHUB_LINK_EXAMPLE)
    assert [rel for _, rel in ours] == [rel for _, rel in theirs]
    repo_id = gh(f"/repos/{O}/{R}").json()["id"]
    assert [url for url, _ in ours] == [
        f"{fake.url}/repositories/{repo_id}/issues/187/comments?page={k}&per_page=3"
        for k in (2, 4, 5, 1)
    ]


# --------------------------------------------------------------------------- GraphQL schema


@pytest.fixture(scope="session")
def github_schema():
    if not (SHARED / "schema.graphql").is_file():
        pytest.skip(f"GitHub's GraphQL schema not found at {SHARED / 'schema.graphql'}")
    sdl = (SHARED / "schema.graphql").read_text(encoding="utf-8")
    return build_schema(sdl, assume_valid=True, assume_valid_sdl=True)


@pytest.fixture(scope="session")
def subset_schema():
    return build_schema(
        SCHEMA_PATH.read_text(encoding="utf-8")
    )  # strictly valid on its own


def _kind(t) -> str:
    for cls in (
        GraphQLObjectType,
        GraphQLInterfaceType,
        GraphQLEnumType,
        GraphQLScalarType,
        GraphQLUnionType,
        GraphQLInputObjectType,
    ):
        if isinstance(t, cls):
            return cls.__name__
    return type(t).__name__


def _own_types(schema):
    return {
        n: t
        for n, t in schema.type_map.items()
        if not n.startswith("__")
        and n not in ("String", "Int", "Float", "Boolean", "ID")
    }


@needs_shared
def test_subset_schema_types_exist_in_github_schema_with_the_same_kind(
    subset_schema, github_schema
):
    for name, t in _own_types(subset_schema).items():
        assert name in github_schema.type_map, f"{name} is not a GitHub type"
        assert _kind(github_schema.type_map[name]) == _kind(t), name
        if isinstance(t, (GraphQLObjectType, GraphQLInterfaceType)):
            theirs = {i.name for i in github_schema.type_map[name].interfaces}
            assert {i.name for i in t.interfaces} <= theirs, name


@needs_shared
def test_subset_schema_fields_and_arguments_match_github_exactly(
    subset_schema, github_schema
):
    checked = 0
    for name, t in _own_types(subset_schema).items():
        if not isinstance(t, (GraphQLObjectType, GraphQLInterfaceType)):
            continue
        real_type = github_schema.type_map[name]
        for field_name, field in t.fields.items():
            where = f"{name}.{field_name}"
            assert field_name in real_type.fields, f"{where} is not a GitHub field"
            real = real_type.fields[field_name]
            assert str(field.type) == str(real.type), (
                f"{where}: {field.type} != GitHub's {real.type}"
            )
            assert field.deprecation_reason == real.deprecation_reason, where
            for arg_name, arg in field.args.items():
                assert arg_name in real.args, (
                    f"{where}({arg_name}) is not a GitHub argument"
                )
                real_arg = real.args[arg_name]
                assert str(arg.type) == str(real_arg.type), f"{where}({arg_name})"
                assert arg.default_value == real_arg.default_value, (
                    f"{where}({arg_name}) default"
                )
                assert arg.deprecation_reason == real_arg.deprecation_reason, (
                    f"{where}({arg_name})"
                )
            required = {
                a
                for a, v in real.args.items()
                if str(v.type).endswith("!") and v.default_value is Undefined
            }
            assert required <= set(field.args), (
                f"{where} omits GitHub's required arguments {required}"
            )
            checked += 1
    assert checked > 100


@needs_shared
def test_subset_schema_enums_have_githubs_values_and_deprecations(
    subset_schema, github_schema
):
    for name, t in _own_types(subset_schema).items():
        if isinstance(t, GraphQLEnumType):
            real = github_schema.type_map[name]
            assert set(t.values) == set(real.values), name
            for value, v in t.values.items():
                assert v.deprecation_reason == real.values[value].deprecation_reason, (
                    f"{name}.{value}"
                )


CLIENT_QUERIES = {
    "threads": """
      query($owner: String!, $name: String!, $number: Int!, $after: String) {
        repository(owner: $owner, name: $name) {
          pullRequest(number: $number) {
            id number title state url headRefName
            reviewThreads(first: 100, after: $after) {
              totalCount
              pageInfo { hasNextPage endCursor hasPreviousPage startCursor }
              nodes {
                id isResolved isOutdated isCollapsed viewerCanResolve viewerCanUnresolve viewerCanReply
                path line startLine originalLine originalStartLine diffSide subjectType
                comments(first: 100) {
                  totalCount
                  pageInfo { hasNextPage endCursor }
                  nodes {
                    id fullDatabaseId databaseId url body createdAt updatedAt lastEditedAt
                    author { __typename login }
                    authorAssociation path line originalLine startLine originalStartLine
                    position originalPosition outdated diffHunk
                    replyTo { fullDatabaseId }
                    pullRequestReview { id databaseId fullDatabaseId state }
                  }
                }
              }
            }
          }
        }
        rateLimit { limit cost remaining resetAt used }
      }""",
    "thread_comments_by_node": """
      query($id: ID!, $after: String) {
        node(id: $id) {
          ... on PullRequestReviewThread {
            id
            comments(first: 100, after: $after) {
              pageInfo { hasNextPage endCursor }
              edges { cursor node { fullDatabaseId body author { login } } }
            }
          }
        }
      }""",
    "viewer": "{ viewer { login } }",
    "pending_states": """
      query($owner: String!, $name: String!, $number: Int!) {
        repository(owner: $owner, name: $name) {
          pullRequest(number: $number) {
            reviewThreads(first: 100) {
              totalCount
              nodes {
                comments(first: 100) {
                  totalCount
                  nodes {
                    fullDatabaseId state createdAt publishedAt
                    pullRequestReview { fullDatabaseId state submittedAt }
                  }
                }
              }
            }
          }
        }
      }""",
}


def _writer_mutations() -> dict:
    """The writer's own mutation documents, as it sends them."""
    import sys

    scripts = str(Path(__file__).resolve().parents[1] / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    from ghcomments.review_writes import RESOLVE_MUTATION

    return {name: RESOLVE_MUTATION % name
            for name in ("resolveReviewThread", "unresolveReviewThread")}


CLIENT_QUERIES.update(_writer_mutations())


def _round_queries() -> dict:
    """The PR round's thread-state queries (ghcomments/streams/threads.py), both ends."""
    _writer_mutations()  # puts scripts/ on sys.path
    from ghcomments.streams.history import HISTORY_QUERY
    from ghcomments.streams.threads import FROM_THE_END, FROM_THE_START

    return {"round_threads_from_the_end": FROM_THE_END,
            "round_threads_from_the_start": FROM_THE_START,
            "round_edit_history": HISTORY_QUERY}


CLIENT_QUERIES.update(_round_queries())


@needs_shared
def test_subset_schema_input_types_match_github_exactly(subset_schema, github_schema):
    checked = 0
    for name, t in _own_types(subset_schema).items():
        if not isinstance(t, GraphQLInputObjectType):
            continue
        real = github_schema.type_map[name]
        assert set(t.fields) == set(real.fields), name
        for field_name, field in t.fields.items():
            assert str(field.type) == str(real.fields[field_name].type), f"{name}.{field_name}"
        checked += 1
    assert checked >= 2


@needs_shared
@pytest.mark.parametrize("name", sorted(CLIENT_QUERIES))
def test_queries_the_fake_serves_are_valid_against_githubs_schema(
    github_schema, subset_schema, name
):
    document = parse(CLIENT_QUERIES[name])
    assert validate(github_schema, document) == []
    assert validate(subset_schema, document) == []
