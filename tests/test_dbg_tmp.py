from tests.test_include_checks import run, settle_round, ok, EVENTS, FLAG, pull, agent, head, OWNER, NAME, PR  # noqa
from tests.support import inbox, latest

def test_force_and_fork(pull, agent):  # noqa
    run(pull, "lint", "success")
    settle_round(agent, EVENTS, FLAG)
    new = pull.push(OWNER, NAME, PR, count=2, author="alice", force=True)
    doc = ok(agent.check(EVENTS, FLAG))
    assert doc["pushes"]["force_pushed"] is True, doc["pushes"]
    assert [c["sha"] for c in doc["pushes"]["commits"]][-2:] == new
    assert agent.confirm(doc["snapshot_id"]).code == 0
    settle_round(agent, EVENTS, FLAG)
    again = ok(agent.check(EVENTS, FLAG))
    assert again["pushes"] is None and set(agent.statuses()) == {304}
    pull.delete_head_repo(OWNER, NAME, PR)
    d = ok(agent.check(EVENTS, FLAG)); agent.confirm(d["snapshot_id"])
    print("after fork delete", d["pushes"], d["warnings"])
    settle_round(agent, EVENTS, FLAG)
    ok(agent.check(EVENTS, FLAG)); assert set(agent.statuses()) == {304}
    n = len(pull.requests)
    ok(agent.check(EVENTS)); print("events only after fork", [(q.path, q.status) for q in pull.requests])
    assert set(agent.statuses()) == {304}
    print("n", n, len(pull.requests))

def test_inbox_both(pull, tmp_path):  # noqa
    run(pull, "lint", "success")
    key = f"{OWNER}/{NAME}/pull/{PR}"
    def chk(*a):
        r = inbox(pull, tmp_path, *a)
        assert r.code == 0, r
        reqs = [(q.path, q.status) for q in pull.requests]
        if r.json["snapshot_id"]:
            latest(pull, tmp_path, "--followed", "--confirm-updates", "--snapshot-id", r.json["snapshot_id"])
        return r, reqs
    chk("--follow", key, EVENTS)
    for _ in range(3): chk("--followed", EVENTS)
    _, ev = chk("--followed", EVENTS)
    for _ in range(3): chk("--followed", EVENTS, FLAG)
    _, both = chk("--followed", EVENTS, FLAG)
    print(ev, both)
    assert len(both) == len(ev) + 2 and {s for _, s in both} == {304}
    shas = pull.push(OWNER, NAME, PR, count=1, author="alice")
    r, _ = chk("--followed", EVENTS, FLAG)
    [c] = r.json["conversations"]
    assert [x["sha"] for x in c["pushes"]["commits"]] == shas
    r, _ = chk("--followed", EVENTS, FLAG)
    assert r.json["conversations"] == [] or not r.json["conversations"][0].get("pushes")
