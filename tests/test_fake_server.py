"""Behaviour of the fake GitHub server itself, through real clients (requests, the gh CLI)."""

from __future__ import annotations

import datetime as dt
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.support import links, query_of

TOKEN = "test-token"
O, R = "octo", "hello"
UA = {"User-Agent": "fakegithub-tests"}
REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def api(fake):
    """``api(method, path, token=TOKEN, **requests_kwargs)`` against the fake."""
    fake.add_token(TOKEN, login="octocat")
    session = requests.Session()

    def call(method, path, token=TOKEN, headers=None, **kw):
        h = {**UA, "Accept": "application/vnd.github+json"}
        if token:
            h["Authorization"] = f"token {token}"
        h.update(headers or {})
        url = path if path.startswith("http") else fake.url + path
        return session.request(method, url, headers=h, timeout=10, **kw)

    return call


@pytest.fixture
def issue(fake):
    """octo/hello (public) with issue #5."""
    repo = fake.add_repo(O, R)
    fake.add_issue(O, R, 5, title="Bug")
    return repo


# --------------------------------------------------------------------------- REST pagination


def test_comments_paginate_with_githubs_link_header_and_ascending_ids(fake, api, issue):
    ids = fake.add_comments(O, R, 5, 250)
    first = api("GET", f"/repos/{O}/{R}/issues/5/comments", params={"per_page": 100})
    base = f"{fake.url}/repositories/{issue['id']}/issues/5/comments"
    assert first.headers["Link"] == (
        f'<{base}?page=2&per_page=100>; rel="next", <{base}?page=3&per_page=100>; rel="last"'
    )
    middle = api("GET", links(first)["next"])
    assert middle.headers["Link"] == (
        f'<{base}?page=1&per_page=100>; rel="prev", '
        f'<{base}?page=3&per_page=100>; rel="next", '
        f'<{base}?page=3&per_page=100>; rel="last", '
        f'<{base}?page=1&per_page=100>; rel="first"'
    )
    last = api("GET", links(middle)["next"])
    assert set(links(last)) == {"prev", "first"}
    got = [c["id"] for r in (first, middle, last) for c in r.json()]
    assert got == ids == sorted(ids) and len(got) == 250
    assert min(ids) > 2**32, "ids must not fit in 32 bits"


def test_default_page_size_is_30_and_links_omit_per_page_when_not_sent(
    fake, api, issue
):
    fake.add_comments(O, R, 5, 31)
    r = api("GET", f"/repos/{O}/{R}/issues/5/comments")
    assert len(r.json()) == 30
    assert query_of(links(r)["next"]) == {"page": "2"}


def test_per_page_over_100_is_clamped_and_echoed_as_sent(fake, api, issue):
    fake.add_comments(O, R, 5, 150)
    r = api("GET", f"/repos/{O}/{R}/issues/5/comments", params={"per_page": 500})
    assert len(r.json()) == 100
    assert query_of(links(r)["last"]) == {"page": "2", "per_page": "500"}


def test_page_past_the_end_is_empty_and_prev_points_at_the_last_page(fake, api, issue):
    fake.add_comments(O, R, 5, 5)
    r = api(
        "GET", f"/repos/{O}/{R}/issues/5/comments", params={"per_page": 2, "page": 9}
    )
    assert r.status_code == 200 and r.json() == []
    rels = links(r)
    assert list(rels) == ["prev", "last", "first"]
    assert query_of(rels["prev"])["page"] == query_of(rels["last"])["page"] == "3"
    assert query_of(rels["first"])["page"] == "1"


def test_a_single_page_has_no_link_header(fake, api, issue):
    fake.add_comments(O, R, 5, 3)
    r = api("GET", f"/repos/{O}/{R}/issues/5/comments")
    assert "Link" not in r.headers and len(r.json()) == 3
    assert (
        api("GET", f"/repos/{O}/{R}/issues/5/comments", params={"page": "abc"}).json()
        == r.json()
    )


def test_since_keeps_comments_updated_at_or_after_it_and_stays_in_links(
    fake, api, issue
):
    ids = fake.add_comments(O, R, 5, 10, step_seconds=60)
    at = fake.get_comment(ids[6])["updated_at"]
    r = api(
        "GET", f"/repos/{O}/{R}/issues/5/comments", params={"since": at, "per_page": 2}
    )
    assert [c["id"] for c in r.json()] == ids[6:8]
    assert query_of(links(r)["next"]) == {"page": "2", "per_page": "2", "since": at}
    fake.advance(3600)
    fake.edit_comment(ids[0], "edited later")
    r = api(
        "GET",
        f"/repos/{O}/{R}/issues/5/comments",
        params={"since": fake.clock.isoformat()},
    )
    assert [c["id"] for c in r.json()] == [ids[0]]
    bad = api("GET", f"/repos/{O}/{R}/issues/5/comments", params={"since": "yesterday"})
    assert bad.status_code == 422


def test_edits_move_updated_at_in_whole_seconds_and_several_can_share_one_second(
    fake, api, issue
):
    ids = fake.add_comments(O, R, 5, 3, step_seconds=60)
    fake.advance(10)
    first = fake.edit_comment(ids[0], "one")
    second = fake.edit_comment(ids[1], "two")  # the clock did not move: the same second
    assert first["updated_at"] == second["updated_at"] == fake.clock.strftime(
        "%Y-%m-%dT%H:%M:%SZ"
    )
    assert first["updated_at"] != first["created_at"]
    r = api(
        "GET",
        f"/repos/{O}/{R}/issues/5/comments",
        params={"since": first["updated_at"]},
    )
    assert [c["id"] for c in r.json()] == ids[:2]


def test_a_late_write_carries_an_earlier_updated_at_and_a_touch_keeps_the_body(
    fake, api, issue
):
    ids = fake.add_comments(O, R, 5, 3, step_seconds=60)
    fake.advance(600)
    seen = fake.edit_comment(ids[2], "visible first")
    late = fake.edit_comment(ids[0], "visible later", at=fake.clock - dt.timedelta(seconds=30))
    assert late["updated_at"] < seen["updated_at"]
    body = fake.get_comment(ids[1])["body"]
    fake.advance(5)
    touched = fake.touch_comment(ids[1])
    assert touched["body"] == body and touched["updated_at"] > seen["updated_at"]
    future = fake.edit_comment(ids[1], "from the future", at=fake.clock + dt.timedelta(days=3))
    assert future["updated_at"] > touched["updated_at"]


def test_since_can_be_made_exclusive_the_worst_reading_of_githubs_after(fake, api, issue):
    ids = fake.add_comments(O, R, 5, 3, step_seconds=60)
    at = fake.get_comment(ids[1])["updated_at"]
    path = f"/repos/{O}/{R}/issues/5/comments"
    assert [c["id"] for c in api("GET", path, params={"since": at}).json()] == ids[1:]
    fake.since_mode = "exclusive"
    assert [c["id"] for c in api("GET", path, params={"since": at}).json()] == ids[2:]


def test_a_since_page_answers_304_until_an_edit_lands_in_it(fake, api, issue):
    ids = fake.add_comments(O, R, 5, 3, step_seconds=60)
    path = f"/repos/{O}/{R}/issues/5/comments"
    params = {"since": fake.get_comment(ids[0])["created_at"], "per_page": 100, "page": 1}
    first = api("GET", path, params=params)
    etag = first.headers["ETag"]
    again = api("GET", path, params=params, headers={"If-None-Match": etag})
    assert again.status_code == 304
    fake.advance(1)
    fake.edit_comment(ids[0], "changed")
    changed = api("GET", path, params=params, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.json()[0]["body"] == "changed"


def test_repositories_id_path_serves_the_same_comments(fake, api, issue):
    fake.add_comments(O, R, 5, 3)
    by_name = api("GET", f"/repos/{O}/{R}/issues/5/comments").json()
    by_id = api("GET", f"/repositories/{issue['id']}/issues/5/comments").json()
    assert by_id == by_name


def test_etag_is_weak_sha256_of_body_and_if_none_match_gives_free_304(fake, api, issue):
    import hashlib

    ids = fake.add_comments(O, R, 5, 3)
    r = api("GET", f"/repos/{O}/{R}/issues/5/comments")
    assert r.headers["ETag"] == 'W/"' + hashlib.sha256(r.content).hexdigest() + '"'
    remaining = int(r.headers["x-ratelimit-remaining"])
    again = api(
        "GET",
        f"/repos/{O}/{R}/issues/5/comments",
        headers={"If-None-Match": r.headers["ETag"]},
    )
    assert again.status_code == 304 and again.content == b""
    assert again.headers["ETag"] == r.headers["ETag"]
    assert int(again.headers["x-ratelimit-remaining"]) == remaining, (
        "a 304 costs nothing"
    )
    fake.advance(5)
    fake.edit_comment(ids[1], "changed")
    changed = api(
        "GET",
        f"/repos/{O}/{R}/issues/5/comments",
        headers={"If-None-Match": r.headers["ETag"]},
    )
    assert changed.status_code == 200 and changed.headers["ETag"] != r.headers["ETag"]
    assert int(changed.headers["x-ratelimit-remaining"]) == remaining - 1


def test_full_page_etag_does_not_change_when_comments_arrive_on_the_next_page(
    fake, api, issue
):
    fake.add_comments(O, R, 5, 2)
    r = api("GET", f"/repos/{O}/{R}/issues/5/comments", params={"per_page": 2})
    fake.add_comment(O, R, 5, "new one")
    again = api(
        "GET",
        f"/repos/{O}/{R}/issues/5/comments",
        params={"per_page": 2},
        headers={"If-None-Match": r.headers["ETag"]},
    )
    assert again.status_code == 304


def test_comment_shape_urls_and_bot_users(fake, api, issue):
    fake.add_pull(O, R, 7)
    c = fake.add_comment(O, R, 5, "hi", user="dependabot", user_type="Bot")
    pr_comment = fake.add_comment(O, R, 7, "on the PR", association="MEMBER")
    got = api("GET", f"/repos/{O}/{R}/issues/5/comments").json()[0]
    assert (
        got["html_url"] == f"https://github.com/{O}/{R}/issues/5#issuecomment-{c['id']}"
    )
    assert got["url"] == f"{fake.url}/repos/{O}/{R}/issues/comments/{c['id']}"
    assert got["issue_url"] == f"{fake.url}/repos/{O}/{R}/issues/5"
    assert got["node_id"].startswith("IC_")
    assert got["user"]["login"] == "dependabot[bot]" and got["user"]["type"] == "Bot"
    assert (
        got["performed_via_github_app"] is None and got["reactions"]["total_count"] == 0
    )
    pr = api("GET", f"/repos/{O}/{R}/issues/7/comments").json()[0]
    assert (
        pr["html_url"]
        == f"https://github.com/{O}/{R}/pull/7#issuecomment-{pr_comment['id']}"
    )


def test_media_type_full_adds_body_html_and_body_text(fake, api, issue):
    fake.add_comment(O, R, 5, "a <b>")
    r = api(
        "GET",
        f"/repos/{O}/{R}/issues/5/comments",
        headers={"Accept": "application/vnd.github.full+json"},
    )
    c = r.json()[0]
    assert c["body"] == c["body_text"] == "a <b>" and "&lt;b&gt;" in c["body_html"]
    assert r.headers["X-GitHub-Media-Type"] == "github.v3; param=full; format=json"


# --------------------------------------------------------------------------- errors, auth


def test_missing_repository_issue_or_comment_is_githubs_404(fake, api, issue):
    for path in (
        f"/repos/{O}/nope",
        f"/repos/{O}/{R}/issues/6",
        f"/repos/{O}/{R}/issues/6/comments",
        f"/repos/{O}/{R}/issues/comments/1",
        f"/repos/{O}/{R}/pulls/5",
        "/no/such/route",
    ):
        r = api("GET", path)
        assert r.status_code == 404, path
        assert r.json()["message"] == "Not Found" and r.json()["status"] == "404"
        assert r.json()["documentation_url"].startswith("https://docs.github.com/")


def test_private_repository_is_404_without_a_token(fake, api):
    fake.add_repo(O, "secret", private=True)
    fake.add_issue(O, "secret", 1)
    assert (
        api("GET", f"/repos/{O}/secret/issues/1/comments", token=None).status_code
        == 404
    )
    assert api("GET", f"/repos/{O}/secret/issues/1/comments").status_code == 200


def test_unknown_token_is_401_bad_credentials_and_costs_nothing(fake, api, issue):
    r = api("GET", f"/repos/{O}/{R}", token="nope")
    assert r.status_code == 401 and r.json()["message"] == "Bad credentials"
    assert r.headers["x-ratelimit-remaining"] == "60"


def test_requests_without_user_agent_are_refused_like_github(fake, issue):
    # (urllib3 always adds one, so a raw socket sends this request)
    status, _headers, body = _raw_request(
        fake,
        f"GET /repos/{O}/{R} HTTP/1.1",
        {"Host": f"127.0.0.1:{fake.port}", "Connection": "close"},
    )
    assert status == 403 and b"User-Agent" in body
    assert fake.requests[-1].headers.get("user-agent") is None


def test_every_response_carries_githubs_common_headers(fake, api, issue):
    r = api("GET", f"/repos/{O}/{R}")
    assert r.headers["Content-Type"] == "application/json; charset=utf-8"
    assert r.headers["X-GitHub-Api-Version-Selected"] == "2022-11-28"
    assert r.headers["X-GitHub-Request-Id"]
    for name in ("limit", "remaining", "used", "reset", "resource"):
        assert r.headers[f"x-ratelimit-{name}"]
    entry = fake.requests[-1]
    assert (entry.method, entry.path, entry.status) == ("GET", f"/repos/{O}/{R}", 200)
    assert entry.response_headers["x-ratelimit-resource"] == "core"


# --------------------------------------------------------------------------- writes


def test_create_comment_needs_a_token_and_answers_201_with_location(fake, api, issue):
    assert (
        api(
            "POST", f"/repos/{O}/{R}/issues/5/comments", token=None, json={"body": "x"}
        ).status_code
        == 401
    )
    fake.advance(10)
    r = api("POST", f"/repos/{O}/{R}/issues/5/comments", json={"body": "héllo\n"})
    assert r.status_code == 201
    c = r.json()
    assert r.headers["Location"] == c["url"]
    assert c["body"] == "héllo\n" and c["user"]["login"] == "octocat"
    assert (
        c["created_at"] == c["updated_at"] == fake.clock.strftime("%Y-%m-%dT%H:%M:%SZ")
    )
    assert fake.comment_ids(O, R, 5) == [c["id"]]
    assert fake.requests[-1].json() == {"body": "héllo\n"}


def test_create_comment_validation_errors_are_githubs_422(fake, api, issue):
    empty = api("POST", f"/repos/{O}/{R}/issues/5/comments", json={"body": ""})
    assert empty.status_code == 422
    assert empty.json()["errors"] == [
        {"resource": "IssueComment", "code": "missing_field", "field": "body"}
    ]
    too_long = api(
        "POST", f"/repos/{O}/{R}/issues/5/comments", json={"body": "é" * 65537}
    )
    assert too_long.status_code == 422
    assert (
        too_long.json()["errors"][0]["message"]
        == "Body is too long (maximum is 65536 characters)"
    )
    assert (
        api(
            "POST", f"/repos/{O}/{R}/issues/5/comments", json={"body": "é" * 65536}
        ).status_code
        == 201
    )
    assert (
        api("POST", f"/repos/{O}/{R}/issues/5/comments", data=b"{not json").status_code
        == 400
    )


def test_update_and_delete_comment(fake, api, issue):
    c = fake.add_comment(O, R, 5, "mine", user="octocat")
    fake.advance(30)
    r = api(
        "PATCH", f"/repos/{O}/{R}/issues/comments/{c['id']}", json={"body": "edited"}
    )
    assert r.status_code == 200 and r.json()["body"] == "edited"
    assert r.json()["updated_at"] > r.json()["created_at"]
    other = fake.add_comment(O, R, 5, "theirs", user="alice")
    fake.add_token("alice-token", login="mallory")
    assert (
        api(
            "PATCH",
            f"/repos/{O}/{R}/issues/comments/{other['id']}",
            token="alice-token",
            json={"body": "x"},
        ).status_code
        == 403
    )
    assert api("DELETE", f"/repos/{O}/{R}/issues/comments/{c['id']}").status_code == 204
    assert api("GET", f"/repos/{O}/{R}/issues/comments/{c['id']}").status_code == 404
    assert fake.comment_ids(O, R, 5) == [other["id"]]


# --------------------------------------------------------------------------- rate limits


def test_rate_limit_headers_count_per_token_and_unauthenticated_clients_get_60(
    fake, api, issue
):
    a = api("GET", f"/repos/{O}/{R}")
    b = api("GET", f"/repos/{O}/{R}")
    assert (a.headers["x-ratelimit-limit"], a.headers["x-ratelimit-remaining"]) == (
        "5000",
        "4999",
    )
    assert (
        b.headers["x-ratelimit-remaining"] == "4998"
        and b.headers["x-ratelimit-used"] == "2"
    )
    anon = api("GET", f"/repos/{O}/{R}", token=None)
    assert (
        anon.headers["x-ratelimit-limit"],
        anon.headers["x-ratelimit-remaining"],
    ) == ("60", "59")


def test_rate_limit_endpoint_is_free(fake, api, issue):
    api("GET", f"/repos/{O}/{R}")
    r1 = api("GET", "/rate_limit")
    r2 = api("GET", "/rate_limit")
    assert (
        r1.json()["resources"]["core"]["remaining"]
        == r2.json()["resources"]["core"]["remaining"]
        == 4999
    )
    assert r1.json()["rate"] == r1.json()["resources"]["core"]


def test_spent_primary_limit_is_403_with_remaining_zero_and_githubs_message(
    fake, api, issue
):
    reset = int(time.time()) + 120
    fake.rate_limit(remaining=1, reset=reset)
    assert api("GET", f"/repos/{O}/{R}").status_code == 200
    r = api("GET", f"/repos/{O}/{R}")
    assert r.status_code == 403
    assert r.headers["x-ratelimit-remaining"] == "0" and r.headers[
        "x-ratelimit-reset"
    ] == str(reset)
    assert r.json()["message"].startswith("API rate limit exceeded for user ID ")
    assert api("GET", f"/repos/{O}/{R}", token=None).status_code == 200, (
        "every bucket starts with remaining=1"
    )
    anon = api("GET", f"/repos/{O}/{R}", token=None)
    assert (
        anon.status_code == 403
        and "Authenticated requests get a higher rate limit" in anon.json()["message"]
    )


def test_rate_limit_can_answer_429_and_refills_after_its_reset(fake, api, issue):
    fake.rate_limit(remaining=0, reset=int(time.time()) + 60, status=429, token=TOKEN)
    assert api("GET", f"/repos/{O}/{R}").status_code == 429
    assert api("GET", f"/repos/{O}/{R}", token=None).status_code == 200, (
        "other buckets are untouched"
    )
    fake.rate_limit(remaining=0, reset=int(time.time()) - 1, token=TOKEN)
    r = api("GET", f"/repos/{O}/{R}")
    assert r.status_code == 200 and r.headers["x-ratelimit-remaining"] == "4999"


def test_secondary_rate_limit_has_retry_after_and_remaining_left(fake, api, issue):
    fake.secondary_rate_limit(retry_after=3)
    r = api("GET", f"/repos/{O}/{R}")
    assert r.status_code == 403 and r.headers["Retry-After"] == "3"
    assert "secondary rate limit" in r.json()["message"]
    assert api("GET", f"/repos/{O}/{R}").status_code == 200


# --------------------------------------------------------------------------- faults, hooks


def test_injected_status_applies_to_matching_requests_only_and_times_runs_out(
    fake, api, issue
):
    fake.inject("GET", r"/comments$", times=2, status=503)
    assert api("GET", f"/repos/{O}/{R}").status_code == 200
    assert api("GET", f"/repos/{O}/{R}/issues/5/comments").status_code == 503
    assert (
        api("POST", f"/repos/{O}/{R}/issues/5/comments", json={"body": "x"}).status_code
        == 201
    )
    assert api("GET", f"/repos/{O}/{R}/issues/5/comments").status_code == 503
    assert api("GET", f"/repos/{O}/{R}/issues/5/comments").status_code == 200
    assert [e.fault for e in fake.requests].count("status") == 2


def test_injected_forever_fault_stays_until_cleared(fake, api, issue):
    fake.inject(
        None,
        r".",
        times=None,
        status=502,
        body="<html>Unicorn!</html>",
        headers={"X-Test": "1"},
    )
    for _ in range(3):
        r = api("GET", f"/repos/{O}/{R}")
        assert (
            r.status_code == 502
            and r.text == "<html>Unicorn!</html>"
            and r.headers["X-Test"] == "1"
        )
    fake.clear_faults()
    assert api("GET", f"/repos/{O}/{R}").status_code == 200


def test_close_mode_drops_the_connection_without_a_response(fake, api, issue):
    fake.inject("GET", r"/repos/", mode="close")
    with pytest.raises(requests.ConnectionError):
        api("GET", f"/repos/{O}/{R}")
    assert fake.requests[-1].status is None and fake.requests[-1].fault == "close"
    assert api("GET", f"/repos/{O}/{R}").status_code == 200


def test_truncate_mode_sends_a_body_shorter_than_its_content_length(fake, api, issue):
    fake.add_comments(O, R, 5, 20)
    fake.inject("GET", r"/comments$", mode="truncate")
    with pytest.raises(
        (requests.exceptions.ChunkedEncodingError, requests.ConnectionError)
    ):
        api("GET", f"/repos/{O}/{R}/issues/5/comments").json()


def test_malformed_mode_answers_200_with_a_body_that_is_not_json(fake, api, issue):
    fake.inject("GET", r"/comments$", mode="malformed")
    r = api("GET", f"/repos/{O}/{R}/issues/5/comments")
    assert r.status_code == 200
    with pytest.raises(ValueError):
        r.json()


def test_delay_mode_waits_then_serves_normally(fake, api, issue):
    fake.inject("GET", r"/repos/", mode="delay", delay=0.3)
    start = time.monotonic()
    r = api("GET", f"/repos/{O}/{R}")
    assert r.status_code == 200 and time.monotonic() - start >= 0.3
    with pytest.raises(requests.Timeout):
        fake.inject("GET", r"/repos/", mode="delay", delay=0.5)
        requests.get(f"{fake.url}/repos/{O}/{R}", headers=UA, timeout=0.2)


def test_on_request_hook_runs_before_serving_so_a_deletion_shifts_the_next_page(
    fake, api, issue
):
    ids = fake.add_comments(O, R, 5, 6)
    seen = []

    def hook(entry):
        seen.append(entry.status)
        if entry.query.get("page") == "2":
            fake.delete_comment(ids[0])

    fake.on_request(hook)
    page1 = api(
        "GET", f"/repos/{O}/{R}/issues/5/comments", params={"per_page": 3, "page": 1}
    ).json()
    page2 = api(
        "GET", f"/repos/{O}/{R}/issues/5/comments", params={"per_page": 3, "page": 2}
    ).json()
    assert [c["id"] for c in page1] == ids[:3]
    assert [c["id"] for c in page2] == ids[4:], (
        "the deletion shifted ids[3] onto page 1"
    )
    assert seen == [None, None], "the hook sees each request before its answer"
    fake.clear_hooks()
    api("GET", f"/repos/{O}/{R}")
    assert len(seen) == 2 and fake.hook_errors == []


def test_reset_drops_data_tokens_log_faults_and_hooks(fake, api, issue):
    fake.inject("GET", ".", times=None)
    fake.on_request(lambda e: None)
    fake.reset()
    assert fake.requests == []
    r = requests.get(
        f"{fake.url}/repos/{O}/{R}",
        headers={**UA, "Authorization": f"token {TOKEN}"},
        timeout=10,
    )
    assert r.status_code == 401, "tokens are gone too"
    fake.add_token(TOKEN)
    assert api("GET", f"/repos/{O}/{R}").status_code == 404


def test_bulk_comments_are_fast_and_clock_moves_past_them(fake, issue):
    start = time.perf_counter()
    ids = fake.add_comments(O, R, 5, 10_000)
    assert time.perf_counter() - start < 1.0
    assert len(ids) == 10_000 and ids == sorted(ids)
    newest = fake.get_comment(ids[-1])["created_at"]
    assert fake.add_comment(O, R, 5, "later")["created_at"] > newest


# --------------------------------------------------------------------------- request forms


def _raw_request(fake, request_line: str, headers: dict) -> tuple[int, dict, bytes]:
    with socket.create_connection(("127.0.0.1", fake.port), timeout=10) as sock:
        text = (
            request_line
            + "\r\n"
            + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
            + "\r\n"
        )
        sock.sendall(text.encode())
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        hdrs = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:])}
        while len(body) < int(hdrs.get("content-length", 0)):
            body += sock.recv(65536)
    return int(lines[0].split()[1]), hdrs, body


def test_absolute_form_request_lines_are_served_with_the_clients_origin(
    fake, api, issue
):
    fake.add_comments(O, R, 5, 3)
    status, headers, body = _raw_request(
        fake,
        f"GET http://api.github.localhost/repos/{O}/{R}/issues/5/comments?per_page=2 HTTP/1.1",
        {
            "Host": "api.github.localhost",
            "User-Agent": "raw",
            "Authorization": f"token {TOKEN}",
            "Connection": "close",
        },
    )
    assert status == 200
    assert headers["link"].startswith(
        f"<http://api.github.localhost/repositories/{issue['id']}/issues/5/comments?page=2"
    )
    assert json.loads(body)[0]["url"].startswith(
        f"http://api.github.localhost/repos/{O}/{R}/issues/comments/"
    )
    entry = fake.requests[-1]
    assert entry.path == f"/repos/{O}/{R}/issues/5/comments" and entry.query == {
        "per_page": "2"
    }
    assert (
        entry.target.startswith("http://api.github.localhost/")
        and entry.origin == "http://api.github.localhost"
    )


def test_enterprise_style_api_v3_prefix_is_served_and_kept_in_links(fake, api, issue):
    fake.add_comments(O, R, 5, 3)
    r = api("GET", f"/api/v3/repos/{O}/{R}/issues/5/comments", params={"per_page": 1})
    assert links(r)["next"].startswith(f"{fake.url}/api/v3/repositories/")
    assert r.json()[0]["url"].startswith(f"{fake.url}/api/v3/repos/")


# --------------------------------------------------------------------------- pull requests (REST)


@pytest.fixture
def pr(fake):
    fake.add_repo(O, R)
    fake.add_pull(
        O, R, 7, title="Fix", user="alice", head_ref="feature/x", head_owner="alice"
    )
    fake.add_pull(O, R, 8, title="Other", head_ref="feature/x")
    thread = fake.add_review_thread(
        O,
        R,
        7,
        "src/app.py",
        line=12,
        comments=[
            {"user": "bob", "body": "root"},
            {
                "user": "copilot-pull-request-reviewer",
                "user_type": "Bot",
                "body": "bot reply",
                "association": "NONE",
            },
        ],
    )
    fake.add_review(O, R, 7, "carol", "APPROVED", body="ok")
    return thread


def test_pull_lookup_by_head_owner_and_branch(fake, api, pr):
    r = api(
        "GET",
        f"/repos/{O}/{R}/pulls",
        params={"state": "open", "head": "alice:feature/x"},
    )
    assert [p["number"] for p in r.json()] == [7]
    assert [p["number"] for p in api("GET", f"/repos/{O}/{R}/pulls").json()] == [
        8,
        7,
    ], "newest first"
    assert (
        api("GET", f"/repos/{O}/{R}/pulls", params={"head": "nobody:feature/x"}).json()
        == []
    )
    full = api("GET", f"/repos/{O}/{R}/pulls/7").json()
    assert (
        full["head"]["label"] == "alice:feature/x"
        and full["head"]["repo"]["full_name"] == "alice/hello"
    )


def test_review_thread_comments_are_rest_review_comments_wrapped_in_commented_reviews(
    fake, api, pr
):
    comments = api("GET", f"/repos/{O}/{R}/pulls/7/comments").json()
    assert [c["id"] for c in comments] == pr["comment_ids"]
    root, reply = comments
    assert "in_reply_to_id" not in root and reply["in_reply_to_id"] == root["id"]
    assert (
        reply["user"]["login"] == "copilot-pull-request-reviewer[bot]"
        and reply["user"]["type"] == "Bot"
    )
    assert (
        root["html_url"]
        == f"https://github.com/{O}/{R}/pull/7#discussion_r{root['id']}"
    )
    reviews = {r["id"]: r for r in api("GET", f"/repos/{O}/{R}/pulls/7/reviews").json()}
    for c in comments:
        assert reviews[c["pull_request_review_id"]]["state"] == "COMMENTED"
        assert reviews[c["pull_request_review_id"]]["body"] == ""
    assert [r["state"] for r in reviews.values()][-1] == "APPROVED"
    assert min(reviews) > 2**31 and min(c["id"] for c in comments) > 2**31


def test_review_comments_and_reviews_paginate_like_issue_comments(fake, api, pr):
    fake.add_thread_comments(pr["id"], 150)
    r = api("GET", f"/repos/{O}/{R}/pulls/7/comments", params={"per_page": 100})
    repo_id = api("GET", f"/repos/{O}/{R}").json()["id"]
    assert (
        links(r)["next"]
        == f"{fake.url}/repositories/{repo_id}/pulls/7/comments?page=2&per_page=100"
    )
    assert len(r.json()) + len(api("GET", links(r)["next"]).json()) == 152
    reviews = api("GET", f"/repos/{O}/{R}/pulls/7/reviews", params={"per_page": 2})
    assert (
        links(reviews)["next"]
        == f"{fake.url}/repositories/{repo_id}/pulls/7/reviews?page=2&per_page=2"
    )


# --------------------------------------------------------------------------- GraphQL


THREADS = """
query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      title
      reviewThreads(first: 100, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor hasPreviousPage startCursor }
        nodes {
          id isResolved path
          comments(first: 100) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { fullDatabaseId author { __typename login } replyTo { fullDatabaseId } }
          }
        }
      }
    }
  }
}"""

THREAD_COMMENTS = """
query($id: ID!, $after: String) {
  node(id: $id) {
    ... on PullRequestReviewThread {
      comments(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        edges { cursor node { fullDatabaseId body } }
      }
    }
  }
}"""


@pytest.fixture
def graphql(fake, api):
    def call(query, token=TOKEN, **variables):
        r = api(
            "POST",
            "/graphql",
            token=token,
            json={"query": query, "variables": variables},
        )
        return r

    return call


def test_graphql_needs_a_valid_token(fake, graphql, pr):
    r = graphql("{ viewer { login } }", token=None)
    assert (
        r.status_code == 401
        and "requires you to be authenticated" in r.json()["message"]
    )
    assert graphql("{ viewer { login } }", token="wrong").status_code == 401
    ok = graphql("{ viewer { login } }")
    assert ok.json() == {"data": {"viewer": {"login": "octocat"}}}
    assert ok.headers["x-ratelimit-resource"] == "graphql"


def test_graphql_pages_review_threads_100_at_a_time(fake, graphql, pr):
    for i in range(119):
        fake.add_review_thread(
            O, R, 7, f"src/f{i}.py", line=i + 1, is_resolved=i % 2 == 0
        )
    page1 = graphql(THREADS, owner=O, name=R, number=7).json()["data"]["repository"][
        "pullRequest"
    ]["reviewThreads"]
    assert page1["totalCount"] == 120 and len(page1["nodes"]) == 100
    assert (
        page1["pageInfo"]["hasNextPage"] is True
        and page1["pageInfo"]["hasPreviousPage"] is False
    )
    cursor = page1["pageInfo"]["endCursor"]
    page2 = graphql(THREADS, owner=O, name=R, number=7, after=cursor).json()
    threads2 = page2["data"]["repository"]["pullRequest"]["reviewThreads"]
    assert len(threads2["nodes"]) == 20 and threads2["pageInfo"]["hasNextPage"] is False
    assert threads2["pageInfo"]["hasPreviousPage"] is True
    ids = [t["id"] for t in page1["nodes"] + threads2["nodes"]]
    assert len(set(ids)) == 120 and ids[0] == pr["id"]


def test_graphql_pages_a_long_thread_through_node_id(fake, graphql, pr):
    fake.add_thread_comments(pr["id"], 148)
    data = graphql(THREADS, owner=O, name=R, number=7).json()["data"]
    first = data["repository"]["pullRequest"]["reviewThreads"]["nodes"][0]["comments"]
    assert (
        first["totalCount"] == 150
        and len(first["nodes"]) == 100
        and first["pageInfo"]["hasNextPage"]
    )
    rest = graphql(
        THREAD_COMMENTS, id=pr["id"], after=first["pageInfo"]["endCursor"]
    ).json()["data"]["node"]
    assert (
        len(rest["comments"]["edges"]) == 50
        and rest["comments"]["pageInfo"]["hasNextPage"] is False
    )
    all_ids = [int(n["fullDatabaseId"]) for n in first["nodes"]] + [
        int(e["node"]["fullDatabaseId"]) for e in rest["comments"]["edges"]
    ]
    assert all_ids == sorted(all_ids) and len(set(all_ids)) == 150
    assert all_ids == [c.id for c in fake.store.nodes[pr["id"]].comments]
    assert all(isinstance(n["fullDatabaseId"], str) for n in first["nodes"]), (
        "BigInt is a string on the wire"
    )


def test_graphql_bot_author_has_no_bot_suffix_and_replies_point_at_the_root(
    fake, graphql, pr
):
    nodes = graphql(THREADS, owner=O, name=R, number=7).json()["data"]["repository"][
        "pullRequest"
    ]["reviewThreads"]["nodes"][0]["comments"]["nodes"]
    assert nodes[1]["author"] == {
        "__typename": "Bot",
        "login": "copilot-pull-request-reviewer",
    }
    assert nodes[1]["replyTo"]["fullDatabaseId"] == nodes[0]["fullDatabaseId"]
    assert nodes[0]["replyTo"] is None


def test_graphql_last_and_before_page_backwards(fake, graphql, pr):
    for i in range(4):
        fake.add_review_thread(O, R, 7, f"f{i}.py", line=1)
    q = """query($before: String) { repository(owner: "octo", name: "hello") { pullRequest(number: 7) {
           reviewThreads(last: 2, before: $before) { pageInfo { hasPreviousPage startCursor } nodes { path } } } } }"""
    last = graphql(q).json()["data"]["repository"]["pullRequest"]["reviewThreads"]
    assert [n["path"] for n in last["nodes"]] == ["f2.py", "f3.py"] and last[
        "pageInfo"
    ]["hasPreviousPage"]
    before = graphql(q, before=last["pageInfo"]["startCursor"]).json()["data"][
        "repository"
    ]["pullRequest"]
    assert [n["path"] for n in before["reviewThreads"]["nodes"]] == ["f0.py", "f1.py"]


def test_graphql_first_over_100_is_githubs_excessive_pagination_error(
    fake, graphql, pr
):
    q = 'query { repository(owner: "octo", name: "hello") { pullRequest(number: 7) { reviewThreads(first: 101) { totalCount } } } }'
    body = graphql(q).json()
    assert "data" not in body
    (err,) = body["errors"]
    assert err["type"] == "EXCESSIVE_PAGINATION"
    assert err["path"] == ["repository", "pullRequest", "reviewThreads"]
    assert err["message"] == (
        "Requesting 101 records on the `reviewThreads` connection exceeds the `first` "
        "limit of 100 records."
    )
    missing = graphql(q.replace("(first: 101)", "")).json()
    assert missing["errors"][0]["type"] == "MISSING_PAGINATION_BOUNDARIES"


def test_graphql_not_found_errors_have_githubs_shape(fake, graphql, pr):
    body = graphql('query { repository(owner: "octo", name: "gone") { id } }').json()
    assert body["data"] == {"repository": None}
    assert body["errors"] == [
        {
            "type": "NOT_FOUND",
            "path": ["repository"],
            "locations": [{"line": 1, "column": 9}],
            "message": "Could not resolve to a Repository with the name 'octo/gone'.",
        }
    ]
    body = graphql(
        'query { repository(owner: "octo", name: "hello") { pullRequest(number: 99) { id } } }'
    ).json()
    assert body["data"] == {"repository": {"pullRequest": None}}
    assert (
        body["errors"][0]["message"]
        == "Could not resolve to a PullRequest with the number of 99."
    )
    body = graphql('query { node(id: "PRRT_nope") { id } }').json()
    assert body["data"] == {"node": None} and body["errors"][0]["type"] == "NOT_FOUND"


def test_graphql_deprecated_32bit_database_id_fails_for_large_ids(fake, graphql, pr):
    q = "query($id: ID!) { node(id: $id) { ... on PullRequestReviewThread { comments(first: 1) { nodes { databaseId fullDatabaseId } } } } }"
    body = graphql(q, id=pr["id"]).json()
    assert body["errors"] and "32-bit" in body["errors"][0]["message"]
    assert graphql(
        q.replace("databaseId fullDatabaseId", "fullDatabaseId"), id=pr["id"]
    ).json()["data"]["node"]["comments"]["nodes"][0]["fullDatabaseId"] == str(
        pr["comment_ids"][0]
    )


def test_graphql_invalid_queries_and_cursors_are_errors(fake, graphql, pr):
    unknown = graphql("{ viewer { nosuchfield } }").json()
    assert "data" not in unknown and "nosuchfield" in unknown["errors"][0]["message"]
    q = 'query { repository(owner: "octo", name: "hello") { pullRequest(number: 7) { reviewThreads(first: 1, after: "bogus") { totalCount } } } }'
    assert graphql(q).json()["errors"][0]["type"] == "INVALID_CURSOR_ARGUMENTS"


def test_graphql_injected_errors(fake, graphql, pr):
    fake.inject_graphql_error(
        "FORBIDDEN", message="Resource protected by organization SAML enforcement."
    )
    body = graphql('query { repository(owner: "octo", name: "hello") { name } }').json()
    assert body["data"] == {"repository": None}
    assert body["errors"][0]["type"] == "FORBIDDEN" and body["errors"][0]["path"] == [
        "repository"
    ]
    assert graphql(
        'query { repository(owner: "octo", name: "hello") { name } }'
    ).json() == {"data": {"repository": {"name": "hello"}}}, (
        "times=1: the next query is served"
    )
    fake.inject_graphql_error("RATE_LIMITED")
    r = graphql("{ viewer { login } }")
    assert r.status_code == 200 and "data" not in r.json()
    assert (
        r.json()["errors"][0]["type"] == "RATE_LIMITED"
        and r.headers["x-ratelimit-remaining"] == "0"
    )


def test_graphql_rate_limit_field_and_headers_count_down(fake, graphql, pr):
    first = graphql("{ rateLimit { limit cost remaining used resetAt } }")
    second = graphql("{ rateLimit { limit cost remaining used resetAt } }").json()[
        "data"
    ]["rateLimit"]
    assert (
        first.json()["data"]["rateLimit"]["remaining"] == 4999
        and second["remaining"] == 4998
    )
    assert second["limit"] == 5000 and second["cost"] == 1 and second["used"] == 2
    assert second["resetAt"].endswith("Z")
    fake.rate_limit(remaining=0, resource="graphql", status=200)
    spent = graphql("{ viewer { login } }")
    assert spent.json()["errors"][0]["type"] == "RATE_LIMITED"


# --------------------------------------------------------------------------- standalone process


def test_module_runs_standalone_prints_its_url_and_stops_on_sigterm():
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakegithub", "--port", "0", "--seed", "demo"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        url = json.loads(line)["url"]
        assert url.startswith("http://127.0.0.1:")
        r = requests.get(
            f"{url}/repos/octo-org/hello-world/issues/5/comments",
            headers={**UA, "Authorization": "token demo-token"},
            timeout=10,
        )
        assert (
            r.status_code == 200 and len(r.json()) == 30 and "next" in r.headers["Link"]
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0


# --------------------------------------------------------------------------- the real gh CLI


def gh(env, *args, timeout=30):
    return subprocess.run(
        ["gh", *args],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_gh_api_paginate_returns_all_250_comments(fake, gh_env, issue):
    ids = fake.add_comments(O, R, 5, 250)
    p = gh(
        gh_env,
        "api",
        f"repos/{O}/{R}/issues/5/comments",
        "--paginate",
        "--jq",
        ".[].id",
    )
    assert p.returncode == 0, p.stderr
    assert [int(x) for x in p.stdout.split()] == ids
    targets = [e.target for e in fake.requests]
    assert (
        targets[0]
        == f"http://api.github.localhost/repos/{O}/{R}/issues/5/comments?per_page=100"
    )
    assert all(
        t.startswith(f"http://api.github.localhost/repositories/{issue['id']}/")
        for t in targets[1:]
    )
    assert len(targets) == 3
    assert all(
        e.headers["authorization"] == f"token {gh_env['GH_TOKEN']}"
        for e in fake.requests
    )


def test_gh_api_include_shows_githubs_headers(fake, gh_env, issue):
    fake.add_comments(O, R, 5, 40)
    p = gh(gh_env, "api", "-i", f"repos/{O}/{R}/issues/5/comments")
    assert p.returncode == 0, p.stderr
    head = p.stdout.replace("\r\n", "\n").split("\n\n", 1)[0]
    assert head.startswith("HTTP/1.1 200 OK")
    lowered = head.lower()
    for name in ("link:", "etag:", "x-ratelimit-remaining:", "x-github-request-id:"):
        assert name in lowered, name
    assert (
        f'<http://api.github.localhost/repositories/{issue["id"]}/issues/5/comments?page=2>; rel="next"'
        in head
    )


def test_gh_api_graphql_reaches_the_fake(fake, gh_env, pr):
    p = gh(
        gh_env,
        "api",
        "graphql",
        "-f",
        f"query={THREADS}",
        "-f",
        f"owner={O}",
        "-f",
        f"name={R}",
        "-F",
        "number=7",
    )
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)["data"]["repository"]["pullRequest"]
    assert data["reviewThreads"]["totalCount"] == 1
    assert fake.requests[-1].target == "http://api.github.localhost/graphql"


def test_gh_api_404_exits_non_zero(fake, gh_env, issue):
    p = gh(gh_env, "api", f"repos/{O}/nope/issues/1/comments")
    assert p.returncode != 0
    assert "Not Found (HTTP 404)" in p.stderr


def test_gh_auth_status_works_for_github_localhost(fake, gh_env):
    p = gh(gh_env, "auth", "status", "--hostname", "github.localhost")
    assert p.returncode == 0, p.stderr
    assert "Logged in to github.localhost as octocat" in p.stdout + p.stderr
    assert [e.target for e in fake.requests] == [
        "http://api.github.localhost/",
        "http://api.github.localhost/graphql",
    ]


# --------------------------------------------------------------------------- PR rounds: pending reviews


OTHER = "other-token"  # a token of another user (mallory), who must not see drafts


def _ts(when) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def drafts(fake, api, pr):
    """PR 7 with a PENDING review by octocat (the api token's user): a new thread and a
    reply in pr's thread; then a later submitted review by carol; mallory's token too."""
    fake.add_token(OTHER, login="mallory")
    fake.advance(60)
    started = fake.clock
    pending = fake.start_review(
        O,
        R,
        7,
        "octocat",
        body="draft body",
        comments=[
            {"path": "src/new.py", "line": 3, "body": "new thread"},
            {"in_reply_to": pr["comment_ids"][1], "body": "draft reply"},
        ],
    )
    fake.advance(60)
    later = fake.add_review(O, R, 7, "carol", "CHANGES_REQUESTED", body="later")
    return {"pending": pending, "started": started, "later": later}


def test_pending_review_is_invisible_to_other_tokens(fake, api, pr, drafts):
    rid = drafts["pending"]["id"]
    cids = drafts["pending"]["comment_ids"]
    reviews = api("GET", f"/repos/{O}/{R}/pulls/7/reviews", token=OTHER).json()
    assert rid not in [r["id"] for r in reviews]
    assert all(r["state"] != "PENDING" for r in reviews)
    comments = api("GET", f"/repos/{O}/{R}/pulls/7/comments", token=OTHER).json()
    assert [c["id"] for c in comments] == pr["comment_ids"]
    for path in (
        f"/repos/{O}/{R}/pulls/7/reviews/{rid}",
        f"/repos/{O}/{R}/pulls/7/reviews/{rid}/comments",
        f"/repos/{O}/{R}/pulls/comments/{cids[0]}",
        f"/repos/{O}/{R}/pulls/comments/{cids[1]}",
    ):
        assert api("GET", path, token=OTHER).status_code == 404, path
    assert api("GET", f"/repos/{O}/{R}/pulls/7/reviews", token=None).json() == reviews
    assert fake.review_ids(O, R, 7) == [r["id"] for r in reviews]
    assert rid in fake.review_ids(O, R, 7, include_pending=True)
    assert fake.review_comment_ids(O, R, 7) == pr["comment_ids"]
    assert api("GET", f"/repos/{O}/{R}/pulls/7", token=OTHER).json()[
        "review_comments"
    ] == len(pr["comment_ids"])


def test_pending_review_is_visible_to_its_author_as_pending_without_submitted_at(
    fake, api, pr, drafts
):
    rid = drafts["pending"]["id"]
    cids = drafts["pending"]["comment_ids"]
    reviews = api("GET", f"/repos/{O}/{R}/pulls/7/reviews").json()
    mine = next(r for r in reviews if r["id"] == rid)
    assert mine["state"] == "PENDING" and "submitted_at" not in mine
    assert mine["body"] == "draft body" and mine["user"]["login"] == "octocat"
    single = api("GET", f"/repos/{O}/{R}/pulls/7/reviews/{rid}")
    assert single.status_code == 200 and single.json() == mine
    own = api("GET", f"/repos/{O}/{R}/pulls/7/reviews/{rid}/comments").json()
    assert [c["id"] for c in own] == cids
    assert all(c["pull_request_review_id"] == rid for c in own)
    listed = [c["id"] for c in api("GET", f"/repos/{O}/{R}/pulls/7/comments").json()]
    assert listed == sorted(pr["comment_ids"] + cids)
    assert api("GET", f"/repos/{O}/{R}/pulls/comments/{cids[0]}").status_code == 200


def test_drafted_comments_keep_ids_and_created_at_from_drafting_once_submitted(
    fake, api, pr, drafts
):
    rid, cids = drafts["pending"]["id"], drafts["pending"]["comment_ids"]
    assert rid < drafts["later"]["id"], "started first: the smaller id"
    fake.advance(3600)
    submitted = fake.submit_review(rid, "APPROVED", body="final")
    assert submitted["state"] == "APPROVED" and submitted["body"] == "final"
    assert submitted["submitted_at"] == _ts(fake.clock)
    got = api("GET", f"/repos/{O}/{R}/pulls/7/reviews/{rid}/comments", token=OTHER)
    assert got.status_code == 200
    for c in got.json():
        assert c["created_at"] == c["updated_at"] == _ts(drafts["started"])
        assert c["created_at"] < submitted["submitted_at"]
    assert [c["id"] for c in got.json()] == cids
    root, reply = got.json()
    assert "in_reply_to_id" not in root and root["path"] == "src/new.py"
    assert reply["in_reply_to_id"] == pr["comment_ids"][0], (
        "points at the thread's root"
    )
    later_comment = fake.reply_to_review_comment(pr["comment_ids"][0], "bob", "r")
    assert max(cids) < later_comment["id"]
    review = api("GET", f"/repos/{O}/{R}/pulls/7/reviews/{rid}", token=OTHER).json()
    assert review["submitted_at"] == submitted["submitted_at"]
    with pytest.raises(ValueError):
        fake.submit_review(rid)


@pytest.mark.parametrize("order", ["id", "submitted"])
def test_review_list_order_by_id_or_by_submission(fake, api, pr, drafts, order):
    fake.review_order = order
    rid, later = drafts["pending"]["id"], drafts["later"]["id"]
    ids = [r["id"] for r in api("GET", f"/repos/{O}/{R}/pulls/7/reviews").json()]
    if order == "id":
        assert ids == sorted(ids) and rid in ids
    else:
        assert ids[-1] == rid, "the author's own PENDING review comes last"
    fake.advance(60)
    fake.submit_review(rid)  # submitted after `later`, with a smaller id
    for token in (TOKEN, OTHER):
        got = api("GET", f"/repos/{O}/{R}/pulls/7/reviews", token=token).json()
        ids = [r["id"] for r in got]
        if order == "id":
            assert ids == sorted(ids) and ids.index(rid) < ids.index(later)
        else:
            keys = [(r["submitted_at"], r["id"]) for r in got]
            assert keys == sorted(keys) and ids[-1] == rid


def test_reply_outside_a_review_is_its_own_bodiless_commented_review(fake, api, pr):
    fake.advance(30)
    reply = fake.reply_to_review_comment(
        pr["comment_ids"][1], "dependabot", "fixed", user_type="Bot"
    )
    review = api("GET", f"/repos/{O}/{R}/pulls/7/reviews/{reply['review_id']}").json()
    assert review["state"] == "COMMENTED" and review["body"] == ""
    assert review["submitted_at"] == _ts(fake.clock)
    assert review["user"]["login"] == "dependabot[bot]"
    inside = api(
        "GET", f"/repos/{O}/{R}/pulls/7/reviews/{reply['review_id']}/comments"
    ).json()
    assert [c["id"] for c in inside] == [reply["id"]]
    assert inside[0]["in_reply_to_id"] == pr["comment_ids"][0]
    assert inside[0]["pull_request_review_id"] == reply["review_id"]


def test_get_review_is_404_for_a_review_of_another_pull_request(fake, api, pr):
    other = fake.add_review(O, R, 8, "carol", "APPROVED", body="on 8")
    assert (
        api("GET", f"/repos/{O}/{R}/pulls/8/reviews/{other['id']}").status_code == 200
    )
    for path in (
        f"/repos/{O}/{R}/pulls/7/reviews/{other['id']}",
        f"/repos/{O}/{R}/pulls/7/reviews/{other['id']}/comments",
        f"/repos/{O}/{R}/pulls/7/reviews/1",
        f"/repos/{O}/{R}/pulls/99/reviews/{other['id']}",
    ):
        r = api("GET", path)
        assert r.status_code == 404 and r.json()["message"] == "Not Found", path
    repo_id = api("GET", f"/repos/{O}/{R}").json()["id"]
    by_id = api("GET", f"/repositories/{repo_id}/pulls/8/reviews/{other['id']}")
    assert (
        by_id.json()
        == api("GET", f"/repos/{O}/{R}/pulls/8/reviews/{other['id']}").json()
    )


def test_review_comments_of_a_review_paginate_with_link_etag_and_304(fake, api, pr):
    fake.advance(10)
    started = fake.start_review(
        O,
        R,
        7,
        "bob",
        comments=[{"path": f"f{i}.py", "line": 1, "body": str(i)} for i in range(130)],
    )
    fake.submit_review(started["id"])
    rid = started["id"]
    path = f"/repos/{O}/{R}/pulls/7/reviews/{rid}/comments"
    repo_id = api("GET", f"/repos/{O}/{R}").json()["id"]
    default = api("GET", path)
    assert len(default.json()) == 30
    assert query_of(links(default)["next"]) == {"page": "2"}
    first = api("GET", path, params={"per_page": 100})
    base = f"{fake.url}/repositories/{repo_id}/pulls/7/reviews/{rid}/comments"
    assert first.headers["Link"] == (
        f'<{base}?page=2&per_page=100>; rel="next", <{base}?page=2&per_page=100>; rel="last"'
    )
    second = api("GET", links(first)["next"])
    got = [c["id"] for c in first.json() + second.json()]
    assert got == started["comment_ids"] == sorted(got)
    remaining = int(second.headers["x-ratelimit-remaining"])
    again = api(
        "GET", links(first)["next"], headers={"If-None-Match": second.headers["ETag"]}
    )
    assert (
        again.status_code == 304
        and int(again.headers["x-ratelimit-remaining"]) == remaining
    )
    fake.advance(5)
    fake.edit_review_comment(started["comment_ids"][-1], "edited")
    changed = api(
        "GET", links(first)["next"], headers={"If-None-Match": second.headers["ETag"]}
    )
    assert changed.status_code == 200 and changed.json()[-1]["body"] == "edited"
    assert changed.json()[-1]["updated_at"] == _ts(fake.clock)


def test_delete_pending_review_dismiss_and_delete_comment(fake, api, pr):
    draft = fake.start_review(
        O, R, 7, "octocat", comments=[{"path": "gone.py", "line": 2, "body": "x"}]
    )
    fake.add_pending_comment(
        draft["id"], "file-level", path="gone.py", subject_type="file"
    )
    assert (
        len(api("GET", f"/repos/{O}/{R}/pulls/7/reviews/{draft['id']}/comments").json())
        == 2
    )
    fake.delete_pending_review(draft["id"])
    assert (
        api("GET", f"/repos/{O}/{R}/pulls/7/reviews/{draft['id']}").status_code == 404
    )
    assert fake.review_comment_ids(O, R, 7) == pr["comment_ids"]
    assert len(fake.store.nodes[pr["id"]].pull.threads) == 1
    approved = fake.add_review(O, R, 8, "carol", "APPROVED")
    with pytest.raises(ValueError):
        fake.delete_pending_review(approved["id"])
    dismissed = fake.dismiss_review(approved["id"], "stale")
    assert dismissed["state"] == "DISMISSED" and dismissed["id"] == approved["id"]
    assert [
        r["state"] for r in api("GET", f"/repos/{O}/{R}/pulls/8/reviews").json()
    ] == ["DISMISSED"]
    fake.delete_review_comment(pr["comment_ids"][1])
    assert fake.review_comment_ids(O, R, 7) == pr["comment_ids"][:1]
    assert (
        api("GET", f"/repos/{O}/{R}/pulls/comments/{pr['comment_ids'][1]}").status_code
        == 404
    )


def test_fail_large_pages_fails_big_pages_only_until_cleared(fake, api, pr):
    fake.add_thread_comments(pr["id"], 120)
    fake.fail_large_pages()
    path = f"/repos/{O}/{R}/pulls/7/comments"
    for per_page in ("100", "500"):
        r = api("GET", path, params={"per_page": per_page})
        assert r.status_code == 502 and fake.requests[-1].fault == "status"
    assert api("GET", path, params={"per_page": 50}).status_code == 200
    assert api("GET", path).status_code == 200, "default page size is 30"
    assert (
        api(
            "GET", f"/repos/{O}/{R}/issues/7/comments", params={"per_page": 100}
        ).status_code
        == 200
    )
    assert api("GET", path, params={"per_page": 100}).status_code == 502, (
        "until cleared"
    )
    fake.clear_faults()
    assert api("GET", path, params={"per_page": 100}).status_code == 200
    fake.fail_large_pages(path=r"/reviews$", at_least=50, status=504, times=1)
    reviews = f"/repos/{O}/{R}/pulls/7/reviews"
    assert api("GET", reviews, params={"per_page": 50}).status_code == 504
    assert api("GET", reviews, params={"per_page": 50}).status_code == 200


def test_poll_interval_header_on_every_rest_answer(fake, api, pr):
    r = api("GET", f"/repos/{O}/{R}/pulls/7/comments")
    assert "X-Poll-Interval" not in r.headers
    fake.poll_interval = 60
    ok = api("GET", f"/repos/{O}/{R}/pulls/7/comments")
    assert ok.headers["X-Poll-Interval"] == "60"
    cached = api(
        "GET",
        f"/repos/{O}/{R}/pulls/7/comments",
        headers={"If-None-Match": ok.headers["ETag"]},
    )
    assert cached.status_code == 304 and cached.headers["X-Poll-Interval"] == "60"
    assert api("GET", f"/repos/{O}/nope").headers["X-Poll-Interval"] == "60"
    fake.reset()
    fake.add_token(TOKEN)
    assert fake.poll_interval is None
    assert "X-Poll-Interval" not in api("GET", "/rate_limit").headers


def test_integration_token_gets_403_on_get_user_only(fake, api, pr):
    fake.add_token("ghs_installation", login="github-actions[bot]", integration=True)
    r = api("GET", "/user", token="ghs_installation")
    assert r.status_code == 403
    assert r.json() == {
        "message": "Resource not accessible by integration",
        "documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user",
        "status": "403",
    }
    assert int(r.headers["x-ratelimit-remaining"]) == 4999
    assert (
        api(
            "GET", f"/repos/{O}/{R}/pulls/7/reviews", token="ghs_installation"
        ).status_code
        == 200
    )
    me = api("GET", "/user")
    assert me.status_code == 200 and me.json()["login"] == "octocat"


def test_graphql_review_threads_hide_others_pending_comments(fake, graphql, pr, drafts):
    query = THREADS.replace(
        "replyTo { fullDatabaseId }", "replyTo { fullDatabaseId } state"
    )

    def threads(token):
        body = graphql(query, token=token, owner=O, name=R, number=7).json()
        return body["data"]["repository"]["pullRequest"]["reviewThreads"]

    cids = [str(c) for c in drafts["pending"]["comment_ids"]]
    other = threads(OTHER)
    assert other["totalCount"] == 1, "a thread of only pending comments is absent"
    (thread,) = other["nodes"]
    assert [n["fullDatabaseId"] for n in thread["comments"]["nodes"]] == [
        str(i) for i in pr["comment_ids"]
    ]
    assert thread["comments"]["totalCount"] == 2
    mine = threads(TOKEN)
    assert mine["totalCount"] == 2
    states = {
        n["fullDatabaseId"]: n["state"]
        for t in mine["nodes"]
        for n in t["comments"]["nodes"]
    }
    assert [states[c] for c in cids] == ["PENDING", "PENDING"]
    assert states[str(pr["comment_ids"][0])] == "SUBMITTED"
    hidden_thread = fake.store.review_comments[
        drafts["pending"]["comment_ids"][0]
    ].thread
    node = graphql(THREAD_COMMENTS, token=OTHER, id=hidden_thread.node_id).json()
    assert node["data"] == {"node": None} and node["errors"][0]["type"] == "NOT_FOUND"
    published = """query($id: ID!) { node(id: $id) { ... on PullRequestReviewThread {
        comments(first: 10) { nodes { state createdAt publishedAt } } } } }"""
    draft = graphql(published, id=hidden_thread.node_id).json()["data"]["node"]
    assert draft["comments"]["nodes"] == [
        {"state": "PENDING", "createdAt": _ts(drafts["started"]), "publishedAt": None}
    ]
    fake.advance(600)
    fake.submit_review(drafts["pending"]["id"])
    assert threads(OTHER)["totalCount"] == 2
    node = graphql(published, token=OTHER, id=hidden_thread.node_id).json()["data"][
        "node"
    ]
    assert node["comments"]["nodes"] == [
        {
            "state": "SUBMITTED",
            "createdAt": _ts(drafts["started"]),
            "publishedAt": _ts(fake.clock),
        }
    ]


# --------------------------------------------------------------------------- review writes


RESOLVE = """mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) {
  thread { id isResolved viewerCanResolve viewerCanUnresolve resolvedBy { login } } } }"""
UNRESOLVE = RESOLVE.replace("resolveReviewThread", "unresolveReviewThread")


def test_review_without_event_is_pending_one_per_user_and_submitted_through_events(
    fake, api, pr
):
    draft = api("POST", f"/repos/{O}/{R}/pulls/7/reviews", json={
        "body": "draft", "comments": [{"path": "src/a.py", "line": 3, "body": "inline"}]})
    assert draft.status_code == 200 and draft.json()["state"] == "PENDING"
    rid = draft.json()["id"]
    assert rid in fake.review_ids(O, R, 7, include_pending=True)
    assert rid not in fake.review_ids(O, R, 7)  # invisible to others until submitted
    again = api("POST", f"/repos/{O}/{R}/pulls/7/reviews", json={"event": "COMMENT",
                                                                 "body": "x"})
    assert again.status_code == 422
    assert again.json()["errors"] == ["User can only have one pending review per pull request"]
    done = api("POST", f"/repos/{O}/{R}/pulls/7/reviews/{rid}/events",
               json={"event": "APPROVE"})
    assert done.status_code == 200 and done.json()["state"] == "APPROVED"
    assert rid in fake.review_ids(O, R, 7)
    twice = api("POST", f"/repos/{O}/{R}/pulls/7/reviews/{rid}/events",
                json={"event": "APPROVE"})
    assert twice.status_code == 422
    assert api("DELETE", f"/repos/{O}/{R}/pulls/7/reviews/{rid}").status_code == 422


def test_review_requests_are_checked_like_githubs(fake, api, pr):
    path = f"/repos/{O}/{R}/pulls/7/reviews"
    bad = api("POST", path, json={"event": "LGTM"})
    assert bad.status_code == 422 and "is not one of" in bad.json()["message"]
    words = api("POST", path, json={"event": "REQUEST_CHANGES"})
    assert words.json()["errors"] == [
        "You need to leave a comment indicating the requested changes."]
    empty = api("POST", path, json={"event": "COMMENT"})
    assert empty.status_code == 422 and empty.json()["errors"][0]["field"] == "body"
    file_level = api("POST", path, json={"event": "COMMENT", "comments": [
        {"path": "a.py", "subject_type": "file", "body": "x"}]})
    assert file_level.status_code == 422 and "subject_type" in file_level.json()["message"]
    no_line = api("POST", path, json={"event": "COMMENT", "comments": [
        {"path": "a.py", "body": "x"}]})
    assert no_line.status_code == 422
    assert api("POST", path, token=None, json={"event": "APPROVE"}).status_code == 401
    assert api("POST", f"/repos/{O}/{R}/pulls/99/reviews",
               json={"event": "APPROVE"}).status_code == 404
    assert fake.review_ids(O, R, 7, include_pending=True) == fake.review_ids(O, R, 7)


def test_replies_go_into_the_thread_as_their_own_commented_review(fake, api, pr):
    root, bot_reply = pr["comment_ids"]
    r = api("POST", f"/repos/{O}/{R}/pulls/7/comments/{root}/replies", json={"body": "ok"})
    assert r.status_code == 201 and r.json()["in_reply_to_id"] == root
    assert r.headers["location"] == r.json()["url"]
    review = fake.get_review(r.json()["pull_request_review_id"])
    assert review["state"] == "COMMENTED" and review["body"] == ""
    assert api("POST", f"/repos/{O}/{R}/pulls/7/comments/{bot_reply}/replies",
               json={"body": "x"}).status_code == 422
    assert api("POST", f"/repos/{O}/{R}/pulls/8/comments/{root}/replies",
               json={"body": "x"}).status_code == 404
    assert api("POST", f"/repos/{O}/{R}/pulls/7/comments/{root}/replies",
               json={"body": ""}).status_code == 422
    fake.start_review(O, R, 7, "octocat")  # a draft open in the web UI blocks replies too
    blocked = api("POST", f"/repos/{O}/{R}/pulls/7/comments/{root}/replies", json={"body": "y"})
    assert blocked.status_code == 422
    assert blocked.json()["errors"][0]["message"] == (
        "user_id can only have one pending review per pull request")
    edit = api("PATCH", f"/repos/{O}/{R}/pulls/comments/{r.json()['id']}",
               json={"body": "ok!"})
    assert edit.status_code == 200 and edit.json()["body"] == "ok!"
    assert api("PATCH", f"/repos/{O}/{R}/pulls/comments/{root}",
               json={"body": "hijack"}).status_code == 403


def test_dismissal_is_the_owners_and_only_of_a_verdict(fake, api, pr):
    fake.add_token("owner", login=O)
    carol = next(r for r in fake.review_ids(O, R, 7)
                 if fake.get_review(r)["state"] == "APPROVED")
    path = f"/repos/{O}/{R}/pulls/7/reviews/{carol}/dismissals"
    assert api("PUT", path, json={"message": "stale"}).status_code == 403
    assert api("PUT", path, token="owner", json={}).status_code == 422
    ok = api("PUT", path, token="owner", json={"message": "stale"})
    assert ok.status_code == 200 and ok.json()["state"] == "DISMISSED"
    again = api("PUT", path, token="owner", json={"message": "stale"})
    assert again.status_code == 422 and "dismissed" in again.json()["errors"][0]


def test_resolve_mutations_record_who_and_refuse_where_the_viewer_may_not(
    fake, graphql, pr
):
    r = graphql(RESOLVE, id=pr["id"]).json()
    thread = r["data"]["resolveReviewThread"]["thread"]
    assert thread["isResolved"] is True and thread["resolvedBy"] == {"login": "octocat"}
    assert thread["viewerCanResolve"] is False and thread["viewerCanUnresolve"] is True
    r = graphql(UNRESOLVE, id=pr["id"]).json()
    assert r["data"]["unresolveReviewThread"]["thread"]["resolvedBy"] is None
    locked = fake.add_review_thread(O, R, 7, "src/b.py", line=1, viewer_can_resolve=False)
    r = graphql(RESOLVE, id=locked["id"]).json()
    assert r["data"] == {"resolveReviewThread": None}
    assert r["errors"][0]["type"] == "FORBIDDEN" and r["errors"][0]["path"] == [
        "resolveReviewThread"]
    r = graphql(RESOLVE, id="PRRT_kwDOnothing").json()
    assert r["errors"][0]["type"] == "NOT_FOUND"
    # in-process, as a state machine drives it
    assert fake.resolve_thread(pr["id"], by="bob")["resolved_by"] == "bob"
    assert fake.store.nodes[pr["id"]].is_resolved
    assert fake.unresolve_thread(pr["id"])["is_resolved"] is False


def test_create_review_in_process_matches_the_route(fake, pr):
    out = fake.create_review(O, R, 7, "dave", event="REQUEST_CHANGES", body="fix",
                             comments=[{"path": "src/c.py", "line": 4, "body": "here"}])
    assert out["state"] == "CHANGES_REQUESTED" and out["submitted_at"]
    pending = fake.create_review(O, R, 7, "erin", body="draft")
    assert pending["state"] == "PENDING" and "submitted_at" not in pending
    fake.delete_pending_review(pending["id"])
    assert pending["id"] not in fake.review_ids(O, R, 7, include_pending=True)
