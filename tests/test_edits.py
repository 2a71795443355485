"""The edit watermark's record and decisions (scripts/ghcomments/store/edits.py), without a network.

The subprocess tests of `--include-edits` are in test_include_edits.py; here the pure rules:
the record's shape, pruning, the merge, the edit test, establishing, the cap, hostile times,
and a model of a comment list under edits (several in one second, late writes, bumps) read
through `since` reads with the hour of overlap, checked against what the agent was given.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from ghcomments.base.errors import ServerError  # noqa: E402
from ghcomments.store import edits  # noqa: E402

T0 = dt.datetime(2026, 4, 23, 10, 0, 0, tzinfo=dt.timezone.utc)


def iso(seconds: float) -> str:
    return edits.format_time(T0 + dt.timedelta(seconds=seconds))


def item(cid: int, created: float, updated: float, body: str) -> dict:
    return {"id": cid, "created_at": iso(created), "updated_at": iso(updated), "body": body}


# --------------------------------------------------------------------------- the record


def test_a_record_is_a_github_time_and_one_entry_per_id_with_a_sha256():
    good = edits.make(iso(0), [[5, iso(0), edits.body_sha256("x")]])
    assert edits.valid(good)
    assert good == {"through": iso(0), "seen": [[5, iso(0), edits.body_sha256("x")]]}
    bad = [
        None, [], {"through": iso(0)}, {"through": "yesterday", "seen": []},
        {"through": iso(0), "seen": [[5, iso(0), "nothex"]]},
        {"through": iso(0), "seen": [[True, iso(0), edits.body_sha256("x")]]},
        {"through": iso(0), "seen": [[0, iso(0), edits.body_sha256("x")]]},
        {"through": iso(0), "seen": [[5, iso(0), edits.body_sha256("x")]] * 2},
        {"through": iso(0), "seen": [], "extra": 1},
        {"through": iso(0) + "\n", "seen": []},
    ]
    for doc in bad:
        assert not edits.valid(doc), doc


def test_since_is_an_hour_before_the_watermark_and_never_before_1970():
    assert edits.since_of("2026-04-23T10:00:00Z") == "2026-04-23T09:00:00Z"
    assert edits.since_of(edits.EPOCH) == edits.EPOCH


def test_pruning_keeps_pairs_a_since_read_can_meet_again():
    seen = [[1, iso(-3601), "a" * 64], [2, iso(-3600), "b" * 64], [3, iso(10), "c" * 64]]
    assert [e[0] for e in edits.prune(seen, iso(0))] == [2, 3]


def test_merge_keeps_the_newer_pair_and_a_stale_pair_never_replaces_it():
    old, new = [4, iso(0), "a" * 64], [4, iso(5), "b" * 64]
    assert edits.merge([old], [new]) == [new]
    assert edits.merge([new], [old]) == [new]


def test_of_two_reads_in_one_check_the_older_pair_is_the_one_given():
    id_read = [item(7, 0, 10, "before")]
    since_read = [item(7, 0, 20, "after")]
    assert edits.given(id_read, since_read) == [[7, iso(10), edits.body_sha256("before")]]


def test_the_public_view_shows_the_time_and_the_count_only():
    doc = edits.make(iso(0), [[5, iso(0), edits.body_sha256("x")]])
    assert edits.public(doc) == {"through": iso(0), "seen_count": 1}
    assert edits.public(None) is None


def test_same_and_behind_compare_whole_watermarks():
    a = edits.make(iso(0), [[5, iso(0), edits.body_sha256("x")]])
    b = edits.make(iso(0), [])
    assert edits.same(a, dict(a)) and not edits.same(a, b) and edits.same(None, None)
    assert not edits.same(a, None)
    assert edits.behind(edits.make(iso(-1), []), a) and not edits.behind(a, b)
    assert edits.behind(None, a) and not edits.behind(a, None)


# --------------------------------------------------------------------------- the edit test


def test_the_edit_test():
    sha = edits.body_sha256
    assert edits.is_edit(item(3, 5, 5, "created and edited in one second"),
                         edits.index([[3, iso(5), sha("as given")]]))
    seen = edits.index([[1, iso(10), sha("same")], [2, iso(10), sha("old")]])
    assert not edits.is_edit(item(9, 5, 5, "never edited"), seen)
    assert edits.is_edit(item(9, 5, 6, "no entry"), seen)
    assert not edits.is_edit(item(1, 0, 10, "same"), seen)  # that pair was given
    assert edits.is_edit(item(1, 0, 10, "again"), seen)  # a second edit in that second
    assert not edits.is_edit(item(1, 0, 20, "same"), seen)  # a bump: the same text
    assert edits.is_edit(item(2, 0, 20, "new"), seen)
    assert not edits.is_edit(item(2, 0, 5, "stale"), seen)  # older than the pair given


def test_establishing_reports_nothing_and_takes_every_pair_met_as_given():
    since_items = [item(1, 0, 50, "edited long ago"), item(2, 10, 10, "plain")]
    d = edits.decide(None, since_items, True, lambda i: True, [], 20, None, iso(0))
    assert d.established and d.edited == [] and d.record["through"] == iso(50)
    assert d.record["seen"] == [[1, iso(50), edits.body_sha256("edited long ago")],
                                [2, iso(10), edits.body_sha256("plain")]]
    empty = edits.decide(None, [], True, lambda i: True, [], 20, None, None)
    assert empty.record == {"through": edits.EPOCH, "seen": []}
    quiet = edits.decide(None, [], True, lambda i: True, [], 20, None, iso(7))
    assert quiet.record["through"] == iso(7)


def test_a_new_comment_edited_between_the_two_reads_is_reported_later_not_now():
    prev = edits.make(iso(0), [])
    returned = [item(9, 100, 100, "as returned")]
    since_items = [item(9, 100, 120, "edited after the id read")]
    d = edits.decide(prev, since_items, True, lambda r: r["id"] <= 5, returned, 20, None, None)
    assert d.edited == []
    assert d.record["seen"] == [[9, iso(100), edits.body_sha256("as returned")]]
    later = edits.decide(d.record, since_items, True, lambda r: r["id"] <= 9, [], 20, None, None)
    assert [r["id"] for r in later.edited] == [9]


def test_a_cut_returns_the_oldest_ids_and_keeps_the_watermark_where_it_was():
    prev = edits.make(iso(0), [])
    since_items = [item(i, 0, 100 + i, f"e{i}") for i in range(1, 6)]
    d = edits.decide(prev, since_items, True, lambda i: True, [], 2, None, None)
    assert [r["id"] for r in d.edited] == [1, 2] and [r["id"] for r in d.cut] == [3, 4, 5]
    assert d.record["through"] == iso(0)
    nxt = edits.decide(d.record, since_items, True, lambda i: True, [], 2, None, None)
    assert [r["id"] for r in nxt.edited] == [3, 4]
    whole = edits.decide(prev, since_items, False, lambda i: True, [], 20, None, None)
    assert len(whole.edited) == 5 and whole.record["through"] == iso(0)  # read was cut


def test_edits_the_filters_leave_out_are_counted_and_passed():
    prev = edits.make(iso(0), [])
    since_items = [item(1, 0, 100, "bot"), item(2, 0, 100, "human")]
    d = edits.decide(prev, since_items, True, lambda i: True, [], 20,
                     lambda r: "bot" if r["body"] == "bot" else None, None)
    assert [r["id"] for r in d.edited] == [2] and [(r["id"], w) for r, w in d.left_out] == [
        (1, "bot")]
    again = edits.decide(d.record, since_items, True, lambda i: True, [], 20, None, None)
    assert again.edited == []


def test_over_the_cap_the_watermark_is_established_again_with_a_warning():
    prev = edits.make(iso(0), [[i, iso(1), edits.body_sha256("x")]
                               for i in range(1, edits.SEEN_CAP + 1)])
    since_items = [item(edits.SEEN_CAP + 5, 0, 2, "one more")]
    d = edits.decide(prev, since_items, True, lambda i: True, [], 20, None, None)
    assert len(d.record["seen"]) <= edits.SEEN_CAP
    assert d.warnings and "edits before now were not checked" in d.warnings[0]
    assert edits.valid(d.record)


def test_a_write_without_the_flag_keeps_w_and_adds_only_returned_edited_items():
    prev = edits.make(iso(0), [])
    out = edits.carry(prev, [item(3, 0, 0, "plain"), item(4, 0, 9, "edited"),
                             item(5, -7200, -7200, "old")])
    assert out["through"] == iso(0) and [e[0] for e in out["seen"]] == [4]
    # Section 19 turn 5: every write keeps `seen`, before a flagged check sets W too
    first = edits.carry(None, [item(3, 0, 0, "plain"), item(4, 0, 9, "edited")])
    assert first["through"] is None and [e[0] for e in first["seen"]] == [4]
    assert edits.valid(first)
    assert edits.carry(None, [item(3, 0, 0, "plain")]) is None


def test_times_later_than_a_day_after_date_are_malformed():
    date = "Thu, 23 Apr 2026 10:00:00 GMT"
    edits.check_items([item(1, 0, 86400, "ok")], date, "comments")
    with pytest.raises(ServerError, match="more than a day"):
        edits.check_items([item(1, 0, 86401, "future")], date, "comments")
    with pytest.raises(ServerError, match="not a time"):
        edits.check_items([{"id": 1, "created_at": iso(0), "updated_at": 5}], date, "x")


# --------------------------------------------------------------------------- a model


@st.composite
def histories(draw):
    """Events on a list of comments: edits (several in one second; a late write carrying
    an earlier time, up to 30 minutes), bumps of the text-unchanged kind, new comments,
    clock steps, and checks (each confirmed at once)."""
    return draw(st.lists(st.one_of(
        st.tuples(st.just("edit"), st.integers(0, 9), st.integers(0, 1800)),
        st.tuples(st.just("bump"), st.integers(0, 9), st.just(0)),
        st.tuples(st.just("new"), st.just(0), st.just(0)),
        st.tuples(st.just("tick"), st.integers(0, 7200), st.just(0)),
        st.tuples(st.just("check"), st.booleans(), st.integers(1, 4)),
    ), min_size=1, max_size=40))


def run_model(events, *, overlap=True, dedup=True, exclusive=False):
    """Run a history; return the violations of 'every body change the agent did not get is
    returned exactly once, and nothing it already has is returned again'."""
    now = 100000.0
    comments = {i: item(i, 0, 0, f"v0-{i}") for i in range(1, 6)}
    given_body = {i: c["body"] for i, c in comments.items()}
    bumped_unhashed = set()
    cursor = 5
    record = None
    problems = []
    version = 0
    for kind, a, b in events:
        if kind == "tick":
            now += a
        elif kind == "new":
            cid = max(comments) + 1
            comments[cid] = item(cid, now, now, f"v0-{cid}")
        elif kind == "edit":
            cid = sorted(comments)[a % len(comments)]
            version += 1
            body = f"v{version}-{cid}"
            if b and b < 1800:  # a write made b seconds ago that becomes visible now
                stamp = max(now - b, edits._t(comments[cid]["updated_at"]).timestamp()
                            - T0.timestamp())
                comments[cid] = dict(comments[cid], body=body, updated_at=iso(stamp))
            else:
                comments[cid] = dict(comments[cid], body=body, updated_at=iso(now))
        elif kind == "bump":
            cid = sorted(comments)[a % len(comments)]
            if record is None or cid not in edits.index(record["seen"]):
                bumped_unhashed.add(cid)  # no hash kept for it: may be reported
            comments[cid] = dict(comments[cid], updated_at=iso(now))
        elif kind == "check":
            new = [c for i, c in sorted(comments.items()) if i > cursor]
            if record is None:
                since_items = list(comments.values())
            else:
                since = edits.since_of(record["through"]) if overlap else record["through"]
                floor = edits._t(since)
                since_items = [c for c in comments.values()
                               if (edits._t(c["updated_at"]) > floor if exclusive
                                   else edits._t(c["updated_at"]) >= floor)]
            since_items.sort(key=lambda c: c["id"])
            prev = before = record
            if prev is not None and not dedup:
                prev = dict(prev, seen=[])
            d = edits.decide(prev, since_items, True, lambda r, c=cursor: r["id"] <= c, new, None,
                             None, None)
            if record is not None:
                got = {r["id"] for r in d.edited}
                want = {i for i, c in comments.items()
                        if i <= cursor and c["body"] != given_body[i]}
                for i in want - got:
                    problems.append(("lost", i))
                for i in got - want - bumped_unhashed:
                    problems.append(("twice", i))
                for r in d.edited:
                    given_body[r["id"]] = r["body"]
                bumped_unhashed -= got
            else:
                for i, c in comments.items():  # establishing: the baseline
                    if i <= cursor:
                        given_body[i] = c["body"]
            for r in new:
                given_body[r["id"]] = r["body"]
            record = d.record
            assert edits.valid(record)
            if before is not None and edits.behind(record, before):
                problems.append(("backwards", record["through"]))
            cursor = max(comments)
    return problems


@settings(max_examples=300, deadline=None)
@given(histories())
def test_model_every_change_returned_exactly_once(events):
    assert run_model(events) == []
    assert run_model(events, exclusive=True) == []


def test_model_fails_without_the_overlap_or_without_the_dedup():
    late = [("check", True, 1), ("tick", 600, 0), ("edit", 0, 0), ("check", True, 1),
            ("edit", 1, 300), ("check", True, 1)]
    assert run_model(late) == []
    assert ("lost", 2) in run_model(late, overlap=False)
    same_second = [("check", True, 1), ("tick", 60, 0), ("edit", 0, 0), ("check", True, 1),
                   ("check", True, 1)]
    assert run_model(same_second) == []
    assert ("twice", 1) in run_model(same_second, dedup=False)


# --------------------------------------------------------------------------- the since read


@pytest.fixture
def listed(fake):
    """octo/hello#5 with 3 comments, and a client (requests over real HTTP) on the fake."""
    from ghcomments.net.client import GitHubClient
    from ghcomments.net.http_requests import RequestsTransport

    from tests.support import TOKEN

    fake.add_token(TOKEN, login="octocat")
    fake.add_repo("octo", "hello")
    fake.add_issue("octo", "hello", 5)
    ids = fake.add_comments("octo", "hello", 5, 3, step_seconds=60)
    return fake, GitHubClient(fake.url, RequestsTransport(TOKEN, 10)), ids


PATH = "repos/octo/hello/issues/5/comments"


def test_a_since_read_is_one_request_and_its_probe_answers_304_while_nothing_changes(listed):
    from ghcomments.streams import since

    fake, client, ids = listed
    at = fake.get_comment(ids[0])["created_at"]
    first = since.read(client, PATH, "comments", at, 10)
    assert [c["id"] for c in first.items] == ids and first.whole and first.hint
    assert [q.query.get("since") for q in fake.requests][-1:] == [at]
    fake.clear_log()
    again = since.read(client, PATH, "comments", at, 10, first.hint)
    assert again.not_modified and [q.status for q in fake.requests] == [304]
    fake.advance(5)
    fake.edit_comment(ids[1], "changed")
    fake.clear_log()
    changed = since.read(client, PATH, "comments", at, 10, first.hint)
    assert not changed.not_modified and [q.status for q in fake.requests] == [200]  # one
    assert [c["body"] for c in changed.items if c["id"] == ids[1]] == ["changed"]


def test_a_since_window_over_100_reads_pages_then_proves_the_earlier_ones_unchanged(listed):
    from ghcomments.streams import since

    fake, client, ids = listed
    more = fake.add_comments("octo", "hello", 5, 150, step_seconds=1)
    at = fake.get_comment(ids[0])["created_at"]
    fake.clear_log()
    out = since.read(client, PATH, "comments", at, 10)
    assert len(out.items) == 153 and [c["id"] for c in out.items] == ids + more
    assert [q.status for q in fake.requests] == [200, 200, 304]  # page 1 again: unchanged
    assert len(out.hint["probes"]) == 2
    fake.clear_log()
    assert since.read(client, PATH, "comments", at, 10, out.hint).not_modified
    assert [q.status for q in fake.requests] == [304, 304]
    cut = since.read(client, PATH, "comments", at, 1)
    assert not cut.whole and cut.hint is None and len(cut.items) == 100 and cut.warnings


def test_a_deletion_while_the_pages_are_read_is_read_again(listed):
    from ghcomments.streams import since

    fake, client, ids = listed
    fake.add_comments("octo", "hello", 5, 150, step_seconds=1)
    at = fake.get_comment(ids[0])["created_at"]
    deleted = []

    def once(entry):
        if entry.query.get("page") == "2" and not deleted:
            deleted.append(ids[0])
            fake.delete_comment(ids[0])
    fake.on_request(once)
    out = since.read(client, PATH, "comments", at, 10)
    fake.clear_hooks()
    got = [c["id"] for c in out.items]
    assert ids[0] not in got and len(got) == 152 and got == sorted(got)


def test_a_far_future_updated_at_is_a_malformed_answer(listed):
    import datetime

    from ghcomments.streams import since

    fake, client, ids = listed
    fake.edit_comment(ids[1], "from the future", at=datetime.datetime.now(
        datetime.timezone.utc) + datetime.timedelta(days=2))
    with pytest.raises(ServerError, match="more than a day after"):
        since.read(client, PATH, "comments", fake.get_comment(ids[0])["created_at"], 10)


def test_one_lists_edits_establish_then_report_once_and_idle_at_304(listed):
    from ghcomments.streams import since

    fake, client, ids = listed
    created = fake.get_comment(ids[-1])["created_at"]
    handled = lambda r: r["id"] <= ids[-1]  # noqa: E731

    def check(record, hint):
        fake.clear_log()
        out = since.read_edits(client, PATH, "comments", record, created, handled, [], 20,
                               None, 10, hint)
        return out, [q.status for q in fake.requests]

    first, statuses = check(None, None)
    assert first.established and first.edited == [] and statuses == [200]
    assert first.record["through"] == created
    fake.advance(30)
    original = fake.get_comment(ids[0])["body"]
    fake.edit_comment(ids[0], "LGTM, but rename this")
    second, statuses = check(first.record, first.hint)
    # turn 5: the read, then one GraphQL query for the candidate's edit history
    assert [e["id"] for e in second.edited] == [ids[0]] and statuses == [200, 200]
    assert fake.requests[-1].path == "/graphql"
    # the establishing read recorded its hash: the revision with that hash
    assert second.history[ids[0]]["previous_body_source"] == "seen"
    assert second.history[ids[0]]["previous_body"] == original
    assert second.history[ids[0]]["edited_by"] == fake.get_comment(ids[0])["user"]["login"]
    assert second.record["through"] == fake.get_comment(ids[0])["updated_at"]
    third, statuses = check(second.record, second.hint)
    assert third.edited == [] and third.not_modified and statuses == [304]
    assert third.record == second.record  # settled: the same watermark, the same probe
    fake.advance(5)
    fake.touch_comment(ids[0])  # a bump with the same text
    fourth, statuses = check(third.record, third.hint)
    assert fourth.edited == [] and statuses == [200]
    fifth, statuses = check(fourth.record, fourth.hint)
    assert fifth.not_modified and statuses == [304]


def test_a_probe_for_another_watermark_is_not_used(listed):
    from ghcomments.streams import since

    fake, client, ids = listed
    first = since.read_edits(client, PATH, "comments", None, None, lambda i: True, [], 20,
                             None, 10, None)
    other = edits.make(first.record["through"], [[ids[0], first.record["through"],
                                                  edits.body_sha256("x")]])
    fake.clear_log()
    out = since.read_edits(client, PATH, "comments", other, None, lambda i: True, [], 20,
                           None, 10, first.hint)
    assert [q.status for q in fake.requests] == [200]
    assert [e["id"] for e in out.edited] == []  # ids[0] is not edited: updated = created
