"""Property: whatever reviewers do to a pull request, the confirmed stream of a PR's rounds
loses nothing and repeats nothing.

Hypothesis interleaves conversation comments, reviews started (ids and created_at given then)
and submitted late, replies in threads (each its own bodiless COMMENTED review), deletions of
conversation and review comments, edits, discarded drafts and the token owner's own pending
reviews (listed to it as PENDING) with an agent's checks (also in --limit batches), confirms
and --update-state runs, some of it in the middle of a scan, with GitHub listing reviews by id
or by submission. Every command talks real HTTP to the fake; the scripts' main() runs
in-process (tests/inprocess.py), the command lines keeping their subprocess tests in
tests/test_pr_rounds.py. Then every pending review is
submitted and the rounds are drained.

Checked: the confirmed conversation comments are strictly ascending; no review and no review
comment is confirmed twice; listed reviews come in ascending (submitted_at, id) order, across
rounds too; a returned review is never pending and brings every one of its comments in the same
batch (a confirm never splits a review); and nothing is lost: every conversation comment after
the first checkpoint, every review that became visible after the first confirmed read, and
every comment of a confirmed review, that still exists at the end, was confirmed.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.inprocess import run_script
from tests.support import OWNER, REPOSITORY, script_env

NAME = "hello"
PR = 7
TOKEN_OWNER = "octocat"  # script_env's token: its pending reviews are listed to it
REVIEWERS = ("bob", "carol", TOKEN_OWNER)
STATES = ("COMMENTED", "APPROVED", "CHANGES_REQUESTED")

others = st.one_of(
    st.tuples(st.just("conversation"), st.integers(1, 30)),
    st.tuples(st.just("start"), st.integers(0, 4), st.integers(0, 2)),
    st.tuples(st.just("submit"), st.integers(0, 10**6), st.sampled_from(STATES), st.booleans()),
    st.tuples(st.just("review"), st.integers(0, 4), st.sampled_from(STATES)),
    st.tuples(st.just("reply"), st.integers(0, 10**6)),
    st.tuples(st.just("delete_conversation"), st.integers(0, 10**6)),
    st.tuples(st.just("delete_review_comment"), st.integers(0, 10**6)),
    st.tuples(st.just("edit"), st.integers(0, 10**6)),
    st.tuples(st.just("discard"), st.integers(0, 10**6)),
)
agent = st.one_of(
    st.tuples(st.just("check"), st.sampled_from([1, 2, 5, 20]), st.booleans(),
              st.one_of(st.none(), st.tuples(st.integers(1, 4), others))),
    st.tuples(st.just("update_state"), st.sampled_from([1, 3, 20])),
)
steps = st.lists(st.one_of(others, agent), min_size=3, max_size=9)


class World:
    def __init__(self, fake, root, seed):
        self.fake, self.root = fake, root
        self.rng = random.Random(seed)
        self.env = script_env(fake)
        self.step = 0
        self.pending = {}  # review id -> number of draft comments, in start order
        self.visible_at = {}  # review id -> step at which it was submitted
        self.bodiless_commented = set()  # review ids: state COMMENTED, empty body
        self.review_of = {}  # review comment id -> review id
        self.root_of = {}  # review comment id -> its thread's first comment
        self.has_replies = set()  # thread roots with replies (never deleted here)
        self.conversation = []  # confirmed conversation comment ids, in order
        self.reviews = []  # confirmed review ids (listed or seen through their comments)
        self.listed = []  # (submitted_at, id) of confirmed listed reviews, in order
        self.review_comments = []  # confirmed review comment ids, in order
        self.first = None  # (step the first confirmed read started, its conversation cursor)

    # -- what others do ------------------------------------------------------------------------

    def run(self, name, *args):
        return run_script(name, "--repo", REPOSITORY, "--pr", PR, "--root", self.root, *args,
                          env=self.env)

    def visible_comments(self):
        return self.fake.review_comment_ids(OWNER, NAME, PR)

    def drafts(self, n):
        drafts, visible = [], self.visible_comments()
        for i in range(n):
            if visible and self.rng.random() < 0.4:
                drafts.append({"in_reply_to": self.rng.choice(visible), "body": f"re {i}"})
            else:
                drafts.append({"path": f"src/m{self.rng.randrange(5)}.py",
                               "line": self.rng.randrange(1, 200), "body": f"draft {i}"})
        return drafts

    def started(self, user, drafts, body=""):
        made = self.fake.start_review(OWNER, NAME, PR, user, body=body, comments=drafts)
        for cid, draft in zip(made["comment_ids"], drafts):
            self.review_of[cid] = made["id"]
            parent = draft.get("in_reply_to")
            self.root_of[cid] = self.root_of.get(parent, parent) if parent else cid
            if parent:
                self.has_replies.add(self.root_of[cid])
        self.pending[made["id"]] = len(drafts)
        return made["id"]

    def submitted(self, rid, state, body):
        if state == "COMMENTED" and not body and not self.pending[rid]:
            body = "An empty COMMENTED review cannot be submitted without a body."
        self.fake.submit_review(rid, state=state, body=body or None)
        del self.pending[rid]
        self.visible_at[rid] = self.step
        if state == "COMMENTED" and not body:
            self.bodiless_commented.add(rid)

    def other(self, op):
        self.step += 1
        self.fake.advance(61)
        kind = op[0]
        if kind == "conversation":
            self.fake.add_comments(OWNER, NAME, PR, op[1])
        elif kind == "start":
            self.started(REVIEWERS[op[2]], self.drafts(op[1]))
        elif kind == "submit" and self.pending:
            rid = list(self.pending)[op[1] % len(self.pending)]
            self.submitted(rid, op[2], "Summary of the review" if op[3] else "")
        elif kind == "review":
            rid = self.started(self.rng.choice(REVIEWERS[:2]), self.drafts(op[1]))
            self.fake.advance(5)
            self.submitted(rid, op[2], "Looked at it" if self.rng.random() < 0.7 else "")
        elif kind == "reply":
            visible = self.visible_comments()
            if visible:
                parent = visible[op[1] % len(visible)]
                made = self.fake.reply_to_review_comment(parent, self.rng.choice(REVIEWERS),
                                                         "a reply")
                self.review_of[made["id"]] = made["review_id"]
                self.root_of[made["id"]] = self.root_of.get(parent, parent)
                self.has_replies.add(self.root_of[made["id"]])
                self.visible_at[made["review_id"]] = self.step
                self.bodiless_commented.add(made["review_id"])
        elif kind == "delete_conversation":
            existing = self.fake.comment_ids(OWNER, NAME, PR)
            if existing:
                self.fake.delete_comment(existing[op[1] % len(existing)])
        elif kind == "delete_review_comment":
            leaves = [c for c in self.visible_comments() if c not in self.has_replies]
            if leaves:
                self.fake.delete_review_comment(leaves[op[1] % len(leaves)])
        elif kind == "edit":
            visible = self.visible_comments()
            existing = self.fake.comment_ids(OWNER, NAME, PR)
            if visible and op[1] % 2:
                self.fake.edit_review_comment(visible[op[1] % len(visible)], f"edited {op[1]}")
            elif existing:
                self.fake.edit_comment(existing[op[1] % len(existing)], f"edited {op[1]}")
        elif kind == "discard" and self.pending:
            rid = list(self.pending)[op[1] % len(self.pending)]
            self.fake.delete_pending_review(rid)
            del self.pending[rid]

    def during(self, at, op):
        """Do `op` just before the at-th request of the next scan."""
        count = []

        def hook(entry):
            if entry.method == "GET":
                count.append(1)
                if len(count) == at:
                    self.other(op)

        self.fake.on_request(hook)

    # -- what the agent does -------------------------------------------------------------------

    def validate(self, reviews, comments, include_system):
        """One batch: ordered, nothing pending, every review whole and with its comments."""
        keys = [(r["submitted_at"], r["id"]) for r in reviews]
        assert keys == sorted(keys), "reviews out of (submitted_at, id) order"
        listed = [r["id"] for r in reviews]
        for rid in listed:
            assert rid in self.visible_at and rid not in self.pending, f"review {rid} pending"
        position, order = {}, []
        for c in comments:
            rid = c["review_id"]
            assert rid == self.review_of[c["id"]]
            assert rid in self.visible_at and rid not in self.pending, f"{c['id']} is a draft"
            if rid not in listed:
                assert not include_system and rid in self.bodiless_commented, \
                    f"comment {c['id']} came without its review {rid}"
            if rid not in position:
                position[rid] = len(position)
            order.append((position[rid], c["id"]))
        assert order == sorted(order), "review comments not grouped by review, then by id"
        for r in reviews:
            mine = [c for c in comments if c["review_id"] == r["id"]]
            assert r["comment_count"] == len(mine)
        return listed + [rid for rid in position if rid not in listed]

    def processed(self, start, conv, reviews, comments, every_review, next_checkpoint):
        if self.first is None:
            cursor = next_checkpoint["conversation"]
            assert cursor is not None, "a confirmed round left the conversation cursor null"
            self.first = (start, cursor["last_comment_id"])
        self.conversation += [c["id"] for c in conv]
        self.listed += [(r["submitted_at"], r["id"]) for r in reviews]
        self.reviews += every_review
        self.review_comments += [c["id"] for c in comments]

    def check_and_confirm(self, limit, include_system=False):
        start = self.step
        args = ["--limit", limit, "--max-pages", 50] + (["--include-system"] if include_system
                                                         else [])
        r = self.run("check_issue_updates.py", *args)
        self.fake.clear_hooks()
        assert r.code == 0, r
        doc = r.json
        every = self.validate(doc["new_reviews"], doc["new_review_comments"], include_system)
        c = self.run("get_latest_comments.py", "--confirm-updates", "--snapshot-id",
                     doc["snapshot_id"])
        assert c.code == 0, c
        if c.json["state_updated"]:
            self.processed(start, doc["new_comments"], doc["new_reviews"],
                           doc["new_review_comments"], every, c.json["next_checkpoint"])
        return doc

    def update_state(self, limit):
        start = self.step
        r = self.run("get_latest_comments.py", "--update-state", "--limit", limit,
                     "--max-pages", 50)
        assert r.code == 0, r
        doc = r.json
        every = self.validate(doc["reviews"], doc["review_comments"], False)
        if doc["state_updated"]:
            self.processed(start, doc["comments"], doc["reviews"], doc["review_comments"],
                           every, doc["next_checkpoint"])


def set_up(fake, order, conversation, drafts, reviews, world):
    """Drafts first (the smallest ids), then submitted reviews that will be confirmed first."""
    fake.review_order = order
    fake.add_comments(OWNER, NAME, PR, conversation)
    for i in range(drafts):
        world.other(("start", 1 + i, (2 + i) % 3))  # the token owner's draft first
    for i in range(reviews):
        world.other(("review", i % 4, STATES[i % 3]))


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(order=st.sampled_from(["id", "submitted"]), conversation=st.integers(0, 30),
       drafts=st.integers(0, 2), reviews=st.integers(0, 8), plan=steps,
       seed=st.integers(0, 1000))
# A review drafted before others were confirmed and submitted after them, read in batches:
@example(order="id", conversation=3, drafts=0, reviews=2,
         plan=[("start", 3, 0), ("review", 2, "APPROVED"), ("check", 20, False, None),
               ("review", 1, "COMMENTED"), ("check", 1, False, None),
               ("submit", 0, "CHANGES_REQUESTED", True), ("check", 1, True, None)], seed=1)
# The same under submission order, with the owner's own draft listed as PENDING, and a draft
# submitted and a thread answered in the middle of a scan:
@example(order="submitted", conversation=0, drafts=1, reviews=4,
         plan=[("start", 2, 2), ("start", 2, 1), ("update_state", 3),
               ("check", 2, False, (2, ("submit", 1, "COMMENTED", False))),
               ("check", 5, True, (1, ("reply", 3))), ("delete_review_comment", 0),
               ("submit", 0, "APPROVED", False), ("update_state", 1)], seed=2)
def test_confirmed_pr_stream_loses_nothing_and_repeats_nothing(fake, tmp_path_factory, order,
                                                               conversation, drafts, reviews,
                                                               plan, seed):
    fake.reset()
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR)
    world = World(fake, tmp_path_factory.mktemp("prprop"), seed)
    set_up(fake, order, conversation, drafts, reviews, world)
    for step in plan:
        if step[0] == "check":
            if step[3] is not None:
                world.during(*step[3])
            world.check_and_confirm(step[1], step[2])
        elif step[0] == "update_state":
            world.update_state(step[1])
        else:
            world.other(step)
    # a confirmed round, then every draft is submitted at last (late), one more comment
    # arrives; then drain
    world.check_and_confirm(5)
    while world.pending:
        world.other(("submit", 0, "COMMENTED", True))
    world.other(("conversation", 1))
    for _ in range(40):
        doc = world.check_and_confirm(20, include_system=world.rng.random() < 0.5)
        if not doc["more_available"] and not doc["has_updates"]:
            break
    else:
        raise AssertionError("the rounds never drained")

    conv = world.conversation
    assert conv == sorted(set(conv)), "a conversation comment was confirmed twice or out of order"
    assert len(world.reviews) == len(set(world.reviews)), "a review was confirmed twice"
    assert world.listed == sorted(world.listed), "reviews confirmed out of order"
    assert len(world.review_comments) == len(set(world.review_comments)), \
        "a review comment was confirmed twice"

    assert world.first is not None
    start, conv_cursor = world.first
    conv_lost = [i for i in fake.comment_ids(OWNER, NAME, PR)
                 if i > conv_cursor and i not in set(conv)]
    assert conv_lost == [], f"conversation comments lost: {conv_lost[:10]}"

    visible = fake.review_comment_ids(OWNER, NAME, PR)
    with_comments = {world.review_of[c] for c in visible}
    confirmed = set(world.reviews)
    reviews_lost = [rid for rid in fake.review_ids(OWNER, NAME, PR)
                    if world.visible_at.get(rid, -1) > start and rid not in confirmed
                    and (rid in with_comments or rid not in world.bodiless_commented)]
    assert reviews_lost == [], f"reviews lost: {reviews_lost[:10]}"
    got = set(world.review_comments)
    comments_lost = [c for c in visible if world.review_of[c] in confirmed and c not in got]
    assert comments_lost == [], f"comments of confirmed reviews lost: {comments_lost[:10]}"
