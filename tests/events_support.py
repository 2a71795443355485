"""What the section 21 tests share (`--include-events`): the helpers that read the fake's log
and a round's files."""

from __future__ import annotations

import json

NAME = "hello"
ISSUE, PR = 5, 7
FLAG = "--include-events"


def kinds(doc):
    return [e["event"] for e in doc["events"]]


def paths(fake):
    return [q.path for q in fake.requests if q.path != "/rate_limit"]


def statuses(fake):
    return [q.status for q in fake.requests if q.path != "/rate_limit"]


def checkpoint(agent):
    return json.loads(agent.file().read_text())


def settle(agent, *args):
    """Check and confirm until a check returns nothing; the last document."""
    for _ in range(10):
        r = agent.check(*args)
        assert r.code == 0, r
        c = agent.confirm(r.json["snapshot_id"])
        assert c.code == 0, c
        if not r.json["has_updates"]:
            return r.json
    raise AssertionError("never settled")

