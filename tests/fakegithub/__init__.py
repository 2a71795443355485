"""A fake GitHub (REST + GraphQL) on 127.0.0.1 for tests, the offline demo and benchmarks.

Real clients talk to it over HTTP/1.1: ``requests`` with base URL ``fake.url``, and the
real ``gh`` CLI through the proxy recipe in ``tests/conftest.py`` (``gh_env``). It is
checked against GitHub's own contract (githubkit's OpenAPI models, GitHub's GraphQL
schema, responses recorded from api.github.com) in ``tests/test_fake_contract.py``, so it
is never friendlier than GitHub::

    fake = FakeGitHub(html_base="https://github.com").start()
    fake.add_token("t0k3n", login="octocat")
    fake.add_repo("octo", "hello")
    fake.add_issue("octo", "hello", 5)
    ids = fake.add_comments("octo", "hello", 5, 250)
    requests.get(f"{fake.url}/repos/octo/hello/issues/5/comments", headers={"User-Agent": "x"})
    fake.requests[-1].status, fake.requests[-1].response_headers["link"]
    fake.stop()

API: lifecycle ``start stop reset url port``; data ``add_token add_repo add_issue
add_comment add_comments edit_comment touch_comment delete_comment comment_ids get_comment add_pull
add_review add_review_thread add_thread_comments``; review life cycle ``start_review
add_pending_comment submit_review delete_pending_review reply_to_review_comment
edit_review_comment delete_review_comment dismiss_review create_review resolve_thread
unresolve_thread review_ids review_comment_ids get_review``; issue events ``add_event
close_issue reopen_issue merge_pull lock_issue unlock_issue rename_issue add_label
remove_label assign unassign set_milestone request_review remove_review_request set_draft
change_base delete_head_ref restore_head_ref transfer_issue event_ids``; repositories
``rename_repo``; heads ``push gc
delete_head_repo``; CI checks (section 23, ``checks.py``) ``pull_head add_check_run
start_check_run set_check_run_status complete_check_run rerun_check_run check_run_ids
get_check_run set_commit_status set_mergeability recompute_mergeability forbid_checks
allow_checks``; time ``clock`` (settable) and ``advance``; behaviour ``inject
inject_graphql_error secondary_rate_limit rate_limit fail_large_pages on_request
clear_hooks clear_faults`` and the attributes ``review_order`` ("id" or "submitted"), ``events_order``
("ascending" or "descending") and
``poll_interval`` (None or seconds: ``X-Poll-Interval`` on every REST answer);
inspection ``requests clear_log hook_errors store``.

What it does as GitHub does (see the tests for each):

- REST at the root (``/repos/…``, ``/repositories/{id}/…``, ``/rate_limit``, ``/user``, ``/``)
  and under ``/api/v3`` (Enterprise layout); GraphQL at ``POST /graphql`` (and
  ``/api/graphql``). Absolute-form request lines (a client using the fake as its proxy,
  like gh for ``github.localhost``) are accepted; ``url`` fields and ``Link`` use the origin
  the client addressed.
- Lists are offset pages: ``per_page`` 30 by default, clamped to 100; ``page`` 1 by
  default; ``Link`` rel prev/next/last/first in that order, URLs
  ``{api}/repositories/{id}/…?page=K[&per_page=<as sent>][&since=<as sent>]``; past the
  last page ``[]`` with prev → last page, last, first. ``since`` keeps items whose
  ``updated_at`` is at or after it (``since_mode = "exclusive"``: only after it, the other
  reading of GitHub's "updated after"). An edit sets ``updated_at`` to ``clock``, or to
  ``at=`` (an earlier time: a write visible late; a far-future one: a hostile server);
  ``touch_comment`` moves ``updated_at`` without changing the body (a reaction, a push
  re-anchoring an inline comment: assumed to move it). Several edits in one second share one
  ``updated_at``.
- Weak ETag ``W/"<sha256 of the body>"``; a matching ``If-None-Match`` is a 304 that costs
  no rate limit. Rate limits per token (5000/h) and per client address unauthenticated
  (60/h), on the wall clock; ``/rate_limit`` is free; a spent limit is 403 (or 429).
- Comment ids start above 2**32, review and review-comment ids above 2**31.
- A PENDING review (``start_review``) and its comments get ids and ``created_at`` when
  started and are seen only by its author's token (REST lists, single reads — 404 for
  others — and GraphQL ``reviewThreads``) until ``submit_review``. ``add_token(...,
  integration=True)``: ``GET /user`` is 403 "Resource not accessible by integration".
- Review writes as GitHub takes them: ``POST /pulls/N/comments/ID/replies`` (ID a thread's
  first comment: a reply's id is refused, the worst case of "replies to replies are not
  supported"), ``POST /pulls/N/reviews`` (with ``event`` submitted, without one PENDING; one
  pending review per user; no APPROVE/REQUEST_CHANGES on one's own PR), ``POST
  …/reviews/ID/events``, ``DELETE …/reviews/ID`` (a pending one), ``PUT …/dismissals`` (the
  owner), ``PATCH /pulls/comments/ID``; GraphQL ``resolveReviewThread`` /
  ``unresolveReviewThread`` (FORBIDDEN where ``viewer_can_resolve`` is false).
- Bots: REST login ``name[bot]``, type ``Bot``; GraphQL login without ``[bot]``,
  ``__typename`` ``Bot``.
- ``clock`` does not move by itself; content without a time gets ``clock``.
- Issue events (section 21): ``GET /issues/N/events`` (issues and PRs; paged, ETag) in
  ``events_order``; ids above 2**33, growing with recording. The convenience methods record
  GitHub's event and apply its effect (state, state_reason, closed_by, merged, merged_at,
  merged_by, draft, locked, title, labels, assignees, milestone, requested reviewers, base);
  ``merge_pull`` records ``merged`` then ``closed`` in one second; ``dismiss_review`` records
  ``review_dismissed``. ``transfer_issue``: the old issue paths answer 301 with ``Location``;
  ``rename_repo``: the old ``/repos/O/R/…`` paths answer 301 to ``/repositories/{id}/…``.
- Heads: each PR has commits (oldest first) on its head branch. ``push`` fast-forwards (no
  event) or force-pushes (``head_ref_force_pushed``, commit_id null), moves ``head.sha`` and
  the branch (``GET /git/ref/heads/REF``, ETag), and outdates the threads on
  ``outdate_paths``; ``GET /compare/A...B`` answers ahead/behind/diverged/identical (paged
  with page/per_page, else 250 commits at most; 404 "No commit found for SHA" for an unknown
  or ``gc``'d sha); ``GET /pulls/N/commits`` is sorted by commit date and stops at 250.
- CI checks (``checks.py``): check runs per commit (``GET /commits/REF/check-runs`` with
  ``filter=latest`` — the newest run per (check suite, name) — or ``all``, ``check_name``,
  ``status``, ``app_id``; newest first; paged), ``GET /check-runs/ID`` and its annotations
  (paged), commit statuses (``GET /commits/REF/status``: the newest per context, ``state``
  pending when there is none; ``GET /commits/REF/statuses``: all, newest first), every one
  with ETag/304. ``forbid_checks`` makes them 403 "Resource not accessible by integration"
  (per kind, per token or for all). A push gives a head with no checks. ``GET /pulls/N``
  shows ``mergeable: null`` / ``mergeable_state: unknown`` while GitHub computes: after
  ``set_mergeability`` (the first read starts the job, the next shows the result) and once
  after each push.
"""

from .server import FakeGitHub

__all__ = ["FakeGitHub"]
