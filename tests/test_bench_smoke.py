"""`make bench`'s measurement functions, run small, so that `make test` keeps the benchmark
from rotting: the bundle's request counts on a 50-comment issue and the hand-off's single
request, measured exactly as tests/bench.py measures them (subprocesses, the fake's log and
its x-ratelimit-used)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests import bench

SIZE = 50


@pytest.fixture
def harness(fake, tmp_path, tmp_path_factory):
    pyc = tmp_path_factory.getbasetemp() / "bench-pycache"  # compiled once per session
    return bench.Harness(fake, tmp_path, pyc_dir=pyc)


def test_bench_measures_the_bundle_at_the_request_floor(harness):
    columns = ("bundle", "requests") + (("gh",) if shutil.which("gh") else ())
    cells = bench.measure_issues(harness, sizes=(SIZE,), runs=1, columns=columns)

    def sample(scenario, column="bundle"):
        return cells[(SIZE, scenario, column)].samples[0]

    first = sample("first")
    assert (first.requests, first.points) == (2, 2)
    idle = sample("idle")
    assert (idle.requests, idle.points, idle.statuses) == (1, 0, [304])
    assert sample("new5").requests <= 2
    assert sample("new250").requests <= 8  # issue 3's bound for the batch walk over 250
    by_id = sample("byid")
    assert (by_id.requests, by_id.points) == (1, 1)
    for column in columns[1:]:  # the baselines read the whole list, and pay for it
        assert sample("idle", column).points == 1
        assert sample("new250", column).requests == 3  # 300 comments, 100 a page
        assert sample("idle", column).bytes > 20 * idle.bytes
    table = bench.table_issues(cells, (SIZE,), columns)
    assert table.count("\n") == 1 + len(bench.SCENARIOS)


def test_bench_hand_off_is_one_request_whatever_the_conversation(harness):
    rows = bench.measure_handoff(harness, priors=(10, 250), cycles=1)
    assert [r.handoff.requests for r in rows] == [1] * 4
    assert [r.handoff.points for r in rows] == [1] * 4
    short, long = rows[:2], rows[2:]
    assert [r.handoff.bytes for r in short] == [r.handoff.bytes for r in long]
    assert all(r.full.requests > 1 and r.full.bytes > 20 * r.handoff.bytes for r in long)
    assert all(r.post_requests == 1 for r in rows)
    assert "hand-off" in bench.table_handoff(rows)


def test_bench_pr_rounds_small(harness):
    columns = ("bundle", "snapshot") + (("gh",) if shutil.which("gh") else ())
    shape = (60, 12, 30)  # conversation comments, reviews, inline comments: one page each
    cells = bench.measure_pr(harness, shape=shape, runs=1, columns=columns)

    def sample(key, column="bundle"):
        return cells[(key, column)][0]

    idle = sample("idle")
    assert idle.requests <= 2 and set(idle.statuses) == {304} and idle.points == 0
    assert idle.stdout and sample("first").requests > 1
    assert 0 < sample("review").points <= sample("review").requests
    snapshot = sample("idle", "snapshot")
    assert snapshot.graphql >= 1 and snapshot.points == snapshot.requests
    if "gh" in columns:
        assert sample("idle", "gh").requests == sample("idle", "gh").points == 3
        assert sample("idle", "gh").stdout > 20 * idle.stdout
    table = bench.table_pr(cells, shape, columns)
    assert table.count("\n") == 2 + len(bench.PR_ROUNDS)
    assert bench.pr_findings(cells, shape, columns)


def test_bench_wait_small(harness):
    gh = shutil.which("gh") is not None
    res = bench.measure_wait(harness, comments=50, scale=0.005, flat=((10, 0.05), (20, 0.02)),
                             gh=gh)
    b = res.bundle
    assert b.polls == res.reply_poll == 15
    assert b.statuses[:14] == [304] * 14 and b.points <= 2
    assert b.rss_kb and b.rss_kb > res.floor_kb
    if gh:  # 50 comments: one page per read
        assert (res.loop_to_reply.requests, res.loop_all.requests) == (7, 10)
        assert res.loop_all.points == 10 and res.loop_all.rss_kb > res.floor_kb
    for (polls, _), w in zip(res.flat_runs, res.flat):
        assert 1 < w.polls <= polls and w.requests == w.polls and w.points == 0
    assert "beyond the bounds" in " ".join(bench.wait_findings(res))
    assert bench.table_wait(res).count("\n") == 4 and bench.table_flat(res).count("\n") == 3


def test_bench_review_cycles_small(harness):
    columns = ("round", "handoff", "snapshot") + (("gh",) if shutil.which("gh") else ())
    rows = bench.measure_review_cycles(harness, threads=30, cycles=2, columns=columns)
    assert [r.read for r in rows] == [read for _, read in bench.CYCLE_READS] * 2
    for r in rows:
        rnd = r.cells["round"]
        assert rnd.graphql == 1  # 30 threads: one query for the thread state
        assert r.cells["handoff"].graphql == 0  # reads by id carry no thread data
        assert r.cells["snapshot"].graphql >= 1
        assert r.cells["snapshot"].stdout > 5 * rnd.stdout
        if "gh" in columns:
            assert r.cells["gh"].stdout > 5 * rnd.stdout
    # the reviewer resolved the first cycle's threads by the ids its round handed it
    resolved = [t for t in harness.fake.store.nodes.values()
                if type(t).__name__ == "Thread" and t.is_resolved]
    assert len(resolved) == 2 * bench.NOTES_PER_REVIEW
    table = bench.table_cycles(rows, columns)
    assert table.count("\n") == 2 + len(rows)
    assert bench.cycle_findings(rows, columns, 30)


def test_bench_after_events_the_next_poll_is_free(harness):
    rows = bench.measure_settle(harness, comments=120)
    assert [r.event for r in rows] == ["edit of the newest comment", "deleted checkpoint comment",
                                       "dismissal on a pull request"]
    issue_edit, deleted, dismissal = rows
    assert issue_edit.seen.points >= 1 and deleted.seen.points >= 1  # the probe saw them
    assert (issue_edit.measured.requests, issue_edit.measured.points) == (1, 0)
    assert (deleted.measured.requests, deleted.measured.points) == (1, 0)
    assert (dismissal.measured.requests, dismissal.measured.points) == (2, 0)
    assert "dismissal" in bench.table_settle(rows)


def test_bench_runs_the_poll_paired_with_its_floor(harness):
    """Part 2's floor: the poll, tests/poll_floor.py and a bare interpreter, paired; times are
    for `make bench` only, so only the shape and the 304s are asserted here."""
    runs = bench.measure_floor(harness, runs=3, comments=30)
    assert runs.statuses == [304] * 3  # every poll was one conditional request answered 304
    assert len(runs.poll) == len(runs.floor) == len(runs.bare) == 3
    assert all(t > 0 for t in runs.poll + runs.floor + runs.bare)
    table = bench.table_floor(runs)
    assert table.count("\n") == 6 and "tests/poll_floor.py" in table
    assert f"{bench.FLOOR_TARGET}×" in table


def test_bench_reports_the_last_suite_time_or_says_how_to_get_it(tmp_path):
    path = tmp_path / "suite-time.json"
    assert "`make test` records it" in bench.suite_time_lines(path)[0]
    path.write_text("{not json")
    assert "could not be read" in bench.suite_time_lines(path)[0]
    path.write_text(json.dumps({"wall_seconds": 301.5, "tests_collected": 840, "tests_failed": 0,
                                "exit_status": 0, "workers": 2, "cpus": 2, "commit": "ab" * 20,
                                "dirty": False, "date": "2026-12-02T03:00:00+00:00",
                                "load_average_start": [1.0], "load_average_end": [2.0]}))
    [line] = bench.suite_time_lines(path)
    assert "301.5 s wall" in line and "840 tests" in line and "abababababab" in line


def test_bench_inbox_small(harness):
    """Part 8 small: 1 and 5 followed conversations (one a pull request), an idle poll three
    ways and the inbox's idle wait of 3 polls."""
    columns = ("inbox", "each") + (("gh",) if shutil.which("gh") else ())
    rows = bench.measure_inbox(harness, sizes=(1, 5), columns=columns, wait=60)
    one, five = rows
    assert (one.issues, one.pulls, five.issues, five.pulls) == (1, 0, 4, 1)
    for r in rows:
        inbox, each = r.poll["inbox"], r.poll["each"]
        assert inbox.requests == r.bound == each.requests  # I + 2P: the probes, no more
        assert set(inbox.statuses) == {304} and inbox.points == 0 == each.points
        if "gh" in columns:  # gh reads every list whole, every poll
            assert r.poll["gh"].points == r.poll["gh"].requests == r.issues + 3 * r.pulls
        w = r.wait  # --wait 60 --poll-interval 30: polls at 0, 30 and (at most) 60
        assert 2 <= len(r.poll_requests) <= w.polls <= 3 and w.points == 0
        # every poll: the probes; the last may be cut by the deadline on a loaded machine
        # (section 18: no request starts after S), never more than the probes
        assert r.poll_requests[:-1] == [r.bound] * (len(r.poll_requests) - 1)
        assert 1 <= r.poll_requests[-1] <= r.bound
        assert w.requests == sum(r.poll_requests) and r.most_per_minute <= 300
    assert five.poll["inbox"].stdout < five.poll["each"].stdout
    assert bench.table_inbox(rows, columns).count("\n") == 1 + len(rows)
    assert bench.table_inbox_wait(rows).count("\n") == 1 + len(rows)
    assert bench.inbox_findings(rows, columns)


def test_bench_edits_small(harness):
    """Part 9 small: --include-edits' idle polls and wait against plain ones (one more 304 per
    list), and the check that reports one edit."""
    rows = bench.measure_edits(harness, comments=30, runs=1)
    issue, pr, wait, edit = rows
    assert issue.plain.requests == [1] and issue.flagged.requests == [2]
    assert pr.plain.requests == [2] and pr.flagged.requests == [4]
    n = bench.EDIT_WAIT_POLLS
    assert wait.plain.requests == [n] and wait.flagged.requests == [2 * n]
    for r in (issue, pr, wait):
        assert r.plain.points == [0] == r.flagged.points
    # the `since` page answers 200; the conversation probe too here, where the edited comment
    # is on the list's one page (on 1,000 comments it is 304: 1 point); and the one GraphQL
    # query for the edited item's history (section 19, turn 5: previous_body, edited_by),
    # counted against GraphQL's own limit, not the REST points
    assert edit.flagged.requests == [3] and edit.flagged.points == [2]
    assert bench.table_edits(rows).count("\n") == 1 + len(rows)


def test_bench_events_inbox_small(harness):
    rows = bench.measure_events_inbox(harness, pulls=2, runs=1)
    without, with_flag = rows
    assert (without.poll.requests, without.bound) == (4, 4)
    assert (with_flag.poll.requests, with_flag.bound) == (8, 8)  # + events probe + head ref
    assert set(with_flag.poll.statuses) == {304} and with_flag.poll.points == 0
    assert "--include-events" in bench.table_events(rows)
