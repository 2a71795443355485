"""Defects the events model (tests/test_events_model.py) found, each as its minimal
reproduction (CONTRACT section 21), marked xfail until the product is fixed."""

from __future__ import annotations

import pytest

from tests.inprocess import InProcessAgent
from tests.support import NAME, OWNER, script_env

PR = 7


def _pr(fake, tmp_path):
    fake.add_token(script_env(fake)["GH_TOKEN"], login="octocat")
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser")
    fake.date_follows_clock = True
    a = InProcessAgent(fake, tmp_path, "--pr", PR)
    a.env = dict(a.env, GH_MONITOR_TEST_TIME_SCALE="0.002")
    assert a.look_and_confirm("--include-events")["pushes"] is None
    return a


@pytest.mark.xfail(strict=True, reason=(
    "section 21: a force push is left out only when the filters leave out its "
    "head_ref_force_pushed actor; when --limit keeps that event out of the read, the round "
    "judges the push by its commits' authors (bots, under --humans-only), leaves it out and "
    "moves the head cursor past it: the push is never reported"))
def test_a_force_push_by_a_person_is_reported_when_limit_defers_its_event(fake, tmp_path):
    """Found by the events model: 3 events by alice, then alice force-pushes 2 commits
    authored by ci[bot]; `--include-events --humans-only --limit 2` returns the 2 oldest
    events and must show the force push (its pusher is a person)."""
    a = _pr(fake, tmp_path)
    for label in ("a", "b", "c"):
        fake.add_label(OWNER, NAME, PR, label, by="alice")
    fake.push(OWNER, NAME, PR, count=2, author="ci[bot]", author_type="Bot", force=True,
              by="alice")
    r = a.check("--include-events", "--humans-only", "--limit", 2)
    assert r.code == 0, r
    shown = [r.json["pushes"]]
    assert a.confirm(r.json["snapshot_id"]).code == 0
    r = a.check("--include-events", "--humans-only", "--limit", 2)  # the force event now
    assert r.code == 0, r
    assert "head_ref_force_pushed" in [e["event"] for e in r.json["events"]], r
    shown.append(r.json["pushes"])
    pushes = [p for p in shown if p is not None]
    assert len(pushes) == 1 and pushes[0]["force_pushed"] is True, (shown, r.json)
