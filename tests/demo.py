#!/usr/bin/env python3
"""Offline demo (`make demo`): the real scripts against the fake GitHub on 127.0.0.1.

No GitHub access and no token of yours: the fake from tests/fakegithub serves the `demo` data
set (octo-org/hello-world: issue #5 with 45 comments, pull request #7 with review threads) and
accepts the token `demo-token`. Every step runs a script as a subprocess, exactly as an agent
runs it, prints the command and a short view of its output, and checks the story holds (a
deviation ends the demo with exit 1):

  first look -> confirm -> new comments arrive -> the poll finds exactly them -> confirm ->
  a PR's unresolved threads -> a comment posted and handed off by id -> no-change poll (304)

then three short chapters:

  a PR in rounds: first round (conversation, reviews, inline comments) -> confirm -> a review
  started (pending) before that round is submitted -> the next round returns exactly it ->
  a reply in a thread -> no-change round (two requests, both 304)
  waiting for the reply: the agent posts a question and waits from its own comment; a bot's
  comment does not wake it, the human's reply does (waits time-scaled: test-only switch)
  answering a review: octocat submits a review with inline comments (one request) and hands
  over its id -> alice, the author, reads it by id and replies in a thread naming the commit
  -> octocat's next round holds exactly the reply, with its thread's state (`threads`) ->
  octocat resolves that thread by that id (one mutation) -> the round, checked again before
  the confirm, shows the thread resolved

It lives in tests/ because it drives the test fake; scripts/ holds only what an installed
skill runs.

  .venv/bin/python tests/demo.py        (or: make demo)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

REPOSITORY = "octo-org/hello-world"
ISSUE, PR = 5, 7
TOKEN = "demo-token"


class StoryBroken(Exception):
    """A step did not do what the story says: the demo fails loudly."""


def reveal(text: str) -> str:
    from ghcomments.text.normalize import reveal as _reveal

    return _reveal(text) or ""


def short(text: Optional[str], width: int = 60) -> str:
    line = " ".join(reveal(text or "").split())
    return line if len(line) <= width else line[: width - 1] + "…"


class Demo:
    def __init__(self, fake: Any, work: Path) -> None:
        self.fake = fake
        self.work = work
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("GH_", "GITHUB_")) and k.lower() not in (
                        "http_proxy", "https_proxy")}
        # `python3` in a command is this interpreter (the one with `requests`)
        shim = work / ".bin"
        shim.mkdir()
        (shim / "python3").symlink_to(sys.executable)
        self.env.update(GITHUB_API_URL=fake.url, GH_TOKEN=TOKEN,
                        GH_CONFIG_DIR=str(work / ".gh-config"),
                        PATH=f"{shim}{os.pathsep}{os.environ.get('PATH', '')}")
        self.step_no = 0

    # -- printing and running -------------------------------------------------------------
    def step(self, title: str) -> None:
        self.step_no += 1
        print(f"\n── {self.step_no}. {title} " + "─" * max(0, 70 - len(title)))

    @staticmethod
    def say(text: str) -> None:
        print(f"   {text}")

    def run(self, command: str, expect: int = 0,
            env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        """Run `command` exactly as printed (bash; python3 is this interpreter); parse JSON.

        `env`: extra variables for this run only (the demo's time scale for a wait)."""
        print(f"$ {command}")
        proc = subprocess.run(["bash", "-c", command], cwd=self.work,
                              env={**self.env, **(env or {})},
                              capture_output=True, stdin=subprocess.DEVNULL, timeout=60,
                              check=False)
        out = proc.stdout.decode("utf-8", "replace")
        if proc.returncode != expect:
            raise StoryBroken(f"exit {proc.returncode}, expected {expect}:\n{out}\n"
                              f"{proc.stderr.decode('utf-8', 'replace')}")
        try:
            return json.loads(out)
        except ValueError:
            return {"_text": out}

    def check(self, condition: bool, what: str) -> None:
        if not condition:
            raise StoryBroken(what)

    def show_comments(self, comments: List[Dict[str, Any]]) -> None:
        for c in comments:
            flags = f"  [hidden_characters: {c['hidden_characters']}]" \
                if c.get("hidden_characters") else ""
            self.say(f"  {c['id']}  {c['author']:<20} {short(c['body'])}{flags}")

    def show_round(self, doc: Dict[str, Any]) -> None:
        """A PR round, one line per item: reviews, then inline comments, then conversation."""
        for v in doc["new_reviews"]:
            body = f"  {short(v['body'], 40)}" if v["body"] else ""
            self.say(f"  review {v['id']}  {v['author']:<8} {v['state']}{body}")
        for c in doc["new_review_comments"]:
            where = f"{c['path']}:{c['line'] if c['line'] is not None else '(outdated)'}"
            reply = f"↳ {c['in_reply_to_id']}" if c["in_reply_to_id"] else where
            self.say(f"  inline {c['id']}  {short(c['author'], 12):<12} {reply:<22} "
                     f"{short(c['body'], 34)}")
        for c in doc["new_comments"]:
            self.say(f"  comment {c['id']}  {c['author']:<12} {short(c['body'], 40)}")

    def show_threads(self, doc: Dict[str, Any]) -> None:
        """A round's `threads`: id, where, state, what the viewer may do."""
        for t in doc["threads"] or []:
            state = "resolved" if t["is_resolved"] else "unresolved"
            if t["is_outdated"]:
                state += ", outdated"
            can = [k[len("viewer_can_"):] for k in ("viewer_can_resolve", "viewer_can_unresolve",
                                                     "viewer_can_reply") if t[k]]
            self.say(f"  thread {t['id']}  {t['path']}:{t['line']}  {state}  "
                     f"(root {t['root_comment_id']}; may {', '.join(can) or 'nothing'})")

    def show_log(self, entries: List[Any], notes: Optional[List[str]] = None) -> None:
        """The fake GitHub's log: method, path (repository prefix cut), conditional?, status."""
        for i, e in enumerate(entries):
            path = e.path.replace(f"/repos/{REPOSITORY}", "…")
            query = "&".join(f"{k}={v}" for k, v in e.query.items())
            cond = " If-None-Match" if e.headers.get("if-none-match") else ""
            note = f"  {notes[i]}" if notes and notes[i] else ""
            self.say(f"  {e.method} {path}{'?' + query if query else ''}{cond} → "
                     f"{e.status}{note}")

    # -- the story --------------------------------------------------------------------------
    def main(self) -> None:
        r = f"--repo {REPOSITORY} --issue {ISSUE}"
        print("gh-issue-comment-monitor demo: the real scripts against a fake GitHub")
        self.say(f"fake GitHub at {self.fake.url} (127.0.0.1 only; no request leaves "
                 "this machine)")
        self.say(f"data: {REPOSITORY} issue #{ISSUE} (45 comments) and pull request #{PR}")
        self.say(f"env:  GITHUB_API_URL={self.fake.url} GH_TOKEN={TOKEN}")
        self.say(f"work root (state goes to .tmp/ here): {self.work}")

        self.step("Preflight")
        doc = self.run("python3 verify_dependencies.py --check-network")
        self.check(doc.get("ok") is True, "preflight not ok")
        self.say("ok: " + ", ".join(f"{c['name']} {'✓' if c['ok'] else '✗'}"
                                     for c in doc["checks"]))

        self.step("First look: no checkpoint yet, so only the newest comments")
        doc = self.run(f"python3 scripts/check_issue_updates.py {r} --limit 5")
        self.check(doc["previous_checkpoint"] is None and doc["new_comment_count"] == 5,
                   "first look should return the newest 5")
        self.say(f"{doc['new_comment_count']} new comment(s); {doc['older_not_returned']} "
                 f"older ones not read (tail mode); {doc['requests']} request(s)")
        self.show_comments(doc["new_comments"])
        self.say("hidden_characters > 0: text a person cannot see. Bodies are data, "
                 "never instructions.")
        self.say(f"snapshot_id {doc['snapshot_id']} → {Path(doc['updates_file']).name}")
        snapshot = doc["snapshot_id"]

        self.step("Process them, then confirm that snapshot as the checkpoint")
        doc = self.run(f"python3 scripts/get_latest_comments.py {r} --confirm-updates "
                       f"--snapshot-id {snapshot}")
        self.check(doc["state_updated"] is True and doc["requests"] == 0, "confirm failed")
        checkpoint = doc["next_checkpoint"]["last_comment_id"]
        self.say(f"state_updated: true, checkpoint → {checkpoint} (no request: "
                 "requests = 0)")
        stored = json.loads(Path(doc["checkpoint_file"]).read_text())
        self.say("checkpoint file: " + json.dumps(
            {k: stored[k] for k in ("repository", "issue", "last_comment_id")})
            + " + a poll hint (page, per_page, ETag); never comment bodies")

        self.step("Meanwhile on GitHub: three new comments arrive")
        self.fake.advance(600)
        added = []
        for user, assoc, body in (
                ("bob", "MEMBER", "Verified the fix on staging."),
                ("carol", "CONTRIBUTOR", "Same here, SSO login works now."),
                ("dave", "NONE", "Can this be backported to 1.x?")):
            added.append(self.fake.add_comment("octo-org", "hello-world", ISSUE, body,
                                               user=user, association=assoc)["id"])
            self.fake.advance(60)
        self.say(f"new ids: {', '.join(map(str, added))}")

        self.step("Poll: the check finds exactly the new comments")
        doc = self.run(f"python3 scripts/check_issue_updates.py {r}")
        got = [c["id"] for c in doc["new_comments"]]
        self.check(got == added, f"the poll returned {got}, not {added}")
        self.check(doc["more_available"] is False, "more_available should be false")
        self.say(f"{len(got)} new comment(s), exactly the ones that arrived; "
                 f"more_available: false; {doc['requests']} request(s)")
        self.show_comments(doc["new_comments"])
        doc = self.run(f"python3 scripts/get_latest_comments.py {r} --confirm-updates "
                       f"--snapshot-id {doc['snapshot_id']}")
        self.check(doc["state_updated"] is True, "second confirm failed")
        self.say(f"confirmed: checkpoint → {doc['next_checkpoint']['last_comment_id']}")

        self.step(f"Pull request #{PR}: unresolved review threads first")
        doc = self.run(f"python3 scripts/get_pr_comments.py --repo {REPOSITORY} --pr {PR}")
        lines = doc["_text"].splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("Unresolved"))
        end = next(i for i, line in enumerate(lines) if line.startswith("General"))
        self.check("Unresolved review threads (3)" in lines[start], "expected 3 open threads")
        for line in lines[start:end]:
            if line.strip() and "https://" not in line:
                self.say(line)
        self.say("(then general reviews and conversation comments; resolved threads and "
                 "bot noise are left out unless asked for)")

        self.step("Post a review reply (the user asked to) and hand it off by id")
        body = "Cycle 1 review: keep the session on refresh (src/auth/session.py:42)."
        doc = self.run(f"printf '%s\\n' '{body}' | python3 scripts/manage_issue_comment.py "
                       f"--action create --repo {REPOSITORY} --issue {PR} --body-file -")
        handoff = doc["handoff"]
        self.check(doc["commentId"] == handoff["commentId"], "handoff id mismatch")
        self.say(f"commentId {doc['commentId']} · {doc['url']}")
        self.say("handoff (sent to the next agent over its own channel):")
        self.say("  " + json.dumps({k: handoff[k] for k in ("repository", "number",
                                                            "commentId")}))
        self.say("The next agent reads just that comment with handoff.fetch:")
        before = len(self.fake.requests)
        doc = self.run(handoff["fetch"])
        self.check([c["id"] for c in doc["comments"]] == [int(handoff["commentId"])],
                   "the hand-off fetch did not return exactly the posted comment")
        self.check(len(self.fake.requests) - before == 1, "the hand-off fetch took more "
                   "than one request")
        self.say(f"1 comment, {doc['requests']} request, whatever the length of the "
                 "conversation")
        self.show_comments(doc["comments"])

        self.step(f"Poll issue #{ISSUE} again: nothing new, one conditional request")
        before = len(self.fake.requests)
        doc = self.run(f"python3 scripts/check_issue_updates.py {r}")
        self.check(doc["has_updates"] is False and doc["requests"] == 1,
                   "the no-change poll should be one request with no updates")
        log = self.fake.requests[before:]
        self.check(len(log) == 1 and log[0].status == 304, f"expected one 304, got {log}")
        entry = log[0]
        query = "&".join(f"{k}={v}" for k, v in entry.query.items())
        self.say(f"has_updates: false; requests: {doc['requests']}")
        self.say("the fake GitHub's log of that request:")
        self.say(f"  {entry.method} {entry.path}?{query}")
        self.say(f"  If-None-Match: {entry.headers.get('if-none-match')}")
        self.say(f"  → {entry.status} Not Modified (costs no rate limit)")

        self.pr_rounds()
        self.wait_for_reply()
        self.review_cycle()

    # -- chapter: a pull request in rounds --------------------------------------------------
    def pr_rounds(self) -> None:
        owner, name = REPOSITORY.split("/")
        r = f"--repo {REPOSITORY} --pr {PR}"

        self.step(f"PR #{PR} in rounds: dave starts a review; the first round")
        self.fake.advance(600)
        pending = self.fake.start_review(owner, name, PR, "dave", comments=[
            {"path": "src/auth/sso.py", "line": 20, "body": "Log the failure here."}])
        self.fake.advance(300)
        root = self.fake.review_comment_ids(owner, name, PR)[0]
        reply = self.fake.reply_to_review_comment(root, "alice", "Kept it, see 3f2a1c0.",
                                                  association="CONTRIBUTOR")
        self.say(f"dave starts review {pending['id']} with inline comment "
                 f"{pending['comment_ids'][0]} (pending: only dave sees them)")
        self.say("then alice replies in bob's thread (new ids, above dave's)")
        doc = self.run(f"python3 scripts/check_issue_updates.py {r}")
        listed = {v["id"] for v in doc["new_reviews"]}
        wrappers = {c["review_id"] for c in doc["new_review_comments"]} - listed
        self.check(pending["id"] not in listed | wrappers, "a pending review was returned")
        self.check(reply["id"] in [c["id"] for c in doc["new_review_comments"]],
                   "the first round misses alice's reply")
        self.say(f"{doc['new_review_count']} review(s), {doc['new_review_comment_count']} "
                 f"inline comment(s), {doc['new_comment_count']} conversation comment(s); "
                 f"{doc['requests']} request(s)")
        self.say(f"(+{len(wrappers)} bodiless reviews that just wrap inline comments, not "
                 "listed; dave's pending one: absent)")
        self.show_round(doc)
        first = doc
        doc = self.run(f"python3 scripts/get_latest_comments.py {r} --confirm-updates "
                       f"--snapshot-id {doc['snapshot_id']}")
        self.check(doc["state_updated"] is True, "PR confirm failed")
        confirmed = doc["next_checkpoint"]["reviews"]["last_review_id"]
        kept = next(c for c in first["new_review_comments"] if c["id"] == reply["id"])
        self.say(f"confirmed: reviews cursor last_review_id {confirmed} (> {pending['id']}, "
                 "dave's review)")

        self.step("dave submits the review he started before that round")
        self.fake.advance(900)
        self.fake.submit_review(pending["id"], "CHANGES_REQUESTED",
                                body="Two things before merge.")
        doc = self.run(f"python3 scripts/check_issue_updates.py {r}")
        self.check([v["id"] for v in doc["new_reviews"]] == [pending["id"]]
                   and [c["id"] for c in doc["new_review_comments"]] == pending["comment_ids"]
                   and not doc["new_comments"], "the round did not return exactly dave's "
                   f"review: {doc['new_reviews']} {doc['new_review_comments']}")
        drafted = doc["new_review_comments"][0]["created_at"]
        self.say(f"exactly dave's review and its inline comment; {doc['requests']} request(s)")
        self.show_round(doc)
        self.say(f"its id is below the confirmed {confirmed}; its comment ({drafted[11:16]}) "
                 f"is older than alice's ({kept['created_at'][11:16]}):")
        self.say("a plain id or time cursor would have skipped it for good")
        snapshot = doc["snapshot_id"]
        doc = self.run(f"python3 scripts/get_latest_comments.py {r} --review-id {pending['id']}")
        self.check([v["id"] for v in doc["reviews"]] == [pending["id"]], "--review-id")
        self.say(f"hand-off by id: {doc['review_count']} review with "
                 f"{doc['review_comment_count']} inline comment, {doc['requests']} request(s)")
        doc = self.run(f"python3 scripts/get_latest_comments.py {r} --confirm-updates "
                       f"--snapshot-id {snapshot}")
        self.check(doc["state_updated"] is True, "PR confirm failed")

        self.step("A reply in dave's thread")
        self.fake.advance(300)
        answer = self.fake.reply_to_review_comment(pending["comment_ids"][0], "bob",
                                                   "+1, at warning level.")
        doc = self.run(f"python3 scripts/check_issue_updates.py {r}")
        self.check([c["id"] for c in doc["new_review_comments"]] == [answer["id"]]
                   and not doc["new_reviews"] and not doc["new_comments"],
                   "the round did not return exactly bob's reply")
        self.say("exactly the reply (its bodiless wrapper review is not listed); "
                 f"{doc['requests']} request(s)")
        self.show_round(doc)
        doc = self.run(f"python3 scripts/get_latest_comments.py {r} --confirm-updates "
                       f"--snapshot-id {doc['snapshot_id']}")
        self.check(doc["state_updated"] is True, "PR confirm failed")

        self.step(f"PR #{PR} again: nothing new, two conditional requests")
        before = len(self.fake.requests)
        doc = self.run(f"python3 scripts/check_issue_updates.py {r}")
        log = self.fake.requests[before:]
        self.check(doc["has_updates"] is False and len(log) == 2
                   and all(e.status == 304 for e in log), f"expected two 304s, got {log}")
        self.say(f"has_updates: false; requests: {doc['requests']}; the fake GitHub's log:")
        self.show_log(log)
        self.say("(one conditional request for the reviews, one for the conversation: "
                 "0 rate-limit points)")

    # -- chapter: waiting for the reply -----------------------------------------------------
    def wait_for_reply(self) -> None:
        owner, name = REPOSITORY.split("/")
        r = f"--repo {REPOSITORY} --issue {ISSUE}"

        self.step(f"Ask on issue #{ISSUE}, then wait for the answer")
        body = "Which 1.x version do you run?"
        doc = self.run(f"printf '%s\\n' '{body}' | python3 scripts/manage_issue_comment.py "
                       f"--action create {r} --body-file -")
        mine, me = doc["commentId"], doc["author"]
        self.check(me == "octocat", f"author is {me!r}")
        self.say(f"commentId {mine}, author {me}: wait from there, ignoring {me} (@me) "
                 "and bots")

        polls = [0]
        arrived: Dict[str, int] = {}

        def on_poll(entry: Any) -> None:  # runs in the fake before it answers
            if entry.method != "GET" or not entry.headers.get("if-none-match"):
                return
            polls[0] += 1
            if polls[0] == 2:
                self.fake.advance(60)
                arrived["bot"] = self.fake.add_comment(
                    owner, name, ISSUE, "Nightly build 1.9.3 is ready.", user="release-bot",
                    user_type="Bot")["id"]
            elif polls[0] == 4:
                self.fake.advance(60)
                arrived["human"] = self.fake.add_comment(
                    owner, name, ISSUE, "1.8.2, on Ubuntu 24.04.", user="dave",
                    association="NONE")["id"]

        self.say("(demo only: a test-only variable scales waits ×0.005, 20 s take 0.1 s; "
                 "times are nominal)")
        before = len(self.fake.requests)
        self.fake.on_request(on_poll)
        try:
            doc = self.run(f"python3 scripts/check_issue_updates.py {r} --wait 600 "
                           f"--poll-interval 20 --after-comment-id {mine} --ignore-author @me "
                           "--humans-only", env={"GH_MONITOR_TEST_TIME_SCALE": "0.005"})
        finally:
            self.fake.clear_hooks()
        log = self.fake.requests[before:]
        got = [c["id"] for c in doc["new_comments"]]
        self.check(got == [arrived.get("human")], f"the wait returned {got}, not dave's reply")
        self.check(doc["filtered_out"].get("humans_only") == 1, "the bot was not left out")
        conditional = [e for e in log if e.headers.get("if-none-match")]
        self.check([e.status for e in conditional] == [304, 200, 304, 200],
                   f"unexpected conditional polls: {conditional}")
        self.say(f"woke after {doc['polls']} polls ({doc['waited_seconds']:g} s nominal); "
                 f"filtered_out: {json.dumps(doc['filtered_out'])}; requests: "
                 f"{doc['requests']}")
        self.show_comments(doc["new_comments"])
        notes, poll = [], 0
        for e in log:
            if e.path == "/user":
                notes.append("who is @me (asked once, then cached)")
            elif not e.headers.get("if-none-match"):
                notes.append("poll 1: from my comment on (no poll hint yet)"
                             if e.query.get("per_page") == "1" else "")
            else:
                poll += 1
                notes.append(f"poll {poll + 1}: " + {
                    1: "nothing new, free", 2: "a bot commented: read, left out",
                    3: "nothing new, free", 4: "dave replied: wake up"}[poll])
        self.say("the fake GitHub's log of the wait:")
        self.show_log(log, notes)


    # -- chapter: answering a review --------------------------------------------------------
    def review_cycle(self) -> None:
        r = f"--repo {REPOSITORY} --pr {PR}"
        author = {"GH_TOKEN": "alice-token"}  # PR 7's author, another agent

        self.step(f"Answering a review: octocat reviews PR #{PR} with inline comments")
        self.fake.advance(600)
        (self.work / "inline.json").write_text(json.dumps([
            {"path": "src/auth/session.py", "line": 57,
             "body": "An expired token still dereferences `user` here."},
            {"path": "src/auth/tokens.py", "line": 18, "start_line": 14,
             "body": "Refresh before the token expires, not after."}]))
        before = len(self.fake.requests)
        doc = self.run("printf '%s\\n' 'Two things before this can merge.' | python3 "
                       f"scripts/manage_issue_comment.py --action review {r} --event "
                       "REQUEST_CHANGES --body-file - --comments-file inline.json")
        review_id, inline = doc["reviewId"], doc["commentIds"]
        self.check(doc["state"] == "CHANGES_REQUESTED" and len(inline) == 2,
                   f"unexpected review: {doc}")
        self.say(f"reviewId {review_id}, commentIds {', '.join(inline)}; the review is one "
                 "POST, its comment ids one more read:")
        self.show_log(self.fake.requests[before:])
        self.say(f"octocat hands over the review: {doc['handoff']['fetch'].split(' --api-url')[0]}")

        self.step("alice reads the review by id and replies in the thread, naming the commit")
        self.say("(alice, PR 7's author, is another agent with her own token: "
                 "GH_TOKEN=alice-token)")
        self.fake.advance(1800)
        doc = self.run(f"python3 scripts/get_latest_comments.py {r} --review-id {review_id}",
                       env=author)
        self.check([c["id"] for c in doc["review_comments"]] == [int(i) for i in inline],
                   "the review read by id is not the review written")
        self.say(f"1 review and {doc['review_comment_count']} inline comments, "
                 f"{doc['requests']} request(s)")
        before = len(self.fake.requests)
        doc = self.run("printf '%s\\n' 'Fixed in 3f2c1aa: an expired token now "
                       "re-authenticates first.' | python3 scripts/manage_issue_comment.py "
                       f"--action reply {r} --review-comment-id {inline[0]} --body-file -",
                       env=author)
        reply = doc["commentId"]
        self.check(doc["inReplyToId"] == inline[0] and doc["author"] == "alice",
                   f"unexpected reply: {doc}")
        self.say(f"reply {reply} in the thread of {doc['inReplyToId']}; the writer read the "
                 "comment (it is on this PR, and the thread's first), then posted once:")
        self.show_log(self.fake.requests[before:])
        self.say(f"alice hands back the reply id, and waits: {doc['wait'].split(' --api-url')[0]}")

        self.step("octocat's next round: exactly alice's reply, with its thread")
        doc = self.run(f"python3 scripts/check_issue_updates.py {r} --ignore-author @me")
        self.check([c["id"] for c in doc["new_review_comments"]] == [int(reply)]
                   and not doc["new_reviews"] and not doc["new_comments"],
                   f"the round did not return exactly alice's reply: {doc}")
        self.say("exactly the reply; octocat's own review is left out by --ignore-author @me "
                 f"(filtered_out: {json.dumps(doc['filtered_out'])})")
        self.show_round(doc)
        (thread,) = doc["threads"] or [None]
        self.check(thread is not None and thread["root_comment_id"] == int(inline[0])
                   and thread["is_resolved"] is False
                   and doc["new_review_comments"][0]["thread_id"] == thread["id"],
                   f"the round's threads do not hold the reply's thread: {doc['threads']}")
        self.show_threads(doc)
        graphql = sum(1 for e in self.fake.requests[-doc["requests"]:] if e.path == "/graphql")
        self.say(f"{doc['requests']} requests, {graphql} of them the GraphQL read of thread "
                 "state (sent only because the round returns an inline comment)")

        self.step("octocat resolves that thread by the round's thread id (as asked)")
        before = len(self.fake.requests)
        doc = self.run(f"python3 scripts/manage_issue_comment.py --action resolve --repo "
                       f"{REPOSITORY} --thread-id {thread['id']}")
        log = self.fake.requests[before:]
        self.check(doc["isResolved"] is True and [e.path for e in log] == ["/graphql"],
                   f"unexpected resolve: {doc} {log}")
        self.say(f"{doc['message']} (resolvedBy {doc['resolvedBy']}); "
                 f"requests: {doc['requests']}; no get_pr_comments.py to find the thread")

        self.step("octocat checks again, then confirms: its thread resolved")
        doc = self.run(f"python3 scripts/check_issue_updates.py {r} --ignore-author @me")
        self.check([c["id"] for c in doc["new_review_comments"]] == [int(reply)]
                   and [t["is_resolved"] for t in doc["threads"] or []] == [True],
                   f"the next round does not show the thread resolved: {doc}")
        self.show_threads(doc)
        doc = self.run(f"python3 scripts/get_latest_comments.py {r} --confirm-updates "
                       f"--snapshot-id {doc['snapshot_id']}")
        self.check(doc["state_updated"] is True, "PR confirm failed")

def main() -> int:
    if sys.version_info < (3, 11):
        print("the demo's fake GitHub needs Python 3.11 or newer (the scripts themselves run "
              f"on 3.9+); this is {sys.version.split()[0]}", file=sys.stderr)
        return 1
    from tests.fakegithub import FakeGitHub
    from tests.fakegithub.seeds import seed_demo

    began = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="gh-monitor-demo-"))
    fake = FakeGitHub(html_base="https://github.com", host="127.0.0.1", port=0).start()
    try:
        seed_demo(fake)
        os.symlink(REPO / "scripts", work / "scripts")
        os.symlink(REPO / "verify_dependencies.py", work / "verify_dependencies.py")
        Demo(fake, work).main()
    except StoryBroken as exc:
        print(f"\ndemo FAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        fake.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nDone in {time.monotonic() - began:.1f} s; the fake GitHub is stopped and the "
          "work root removed.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
