#!/usr/bin/env python3
"""Offline demo (`make demo`): the real scripts against the fake GitHub on 127.0.0.1.

No GitHub access and no token of yours: the fake from tests/fakegithub serves the `demo` data
set (octo-org/hello-world: issue #5 with 45 comments, pull request #7 with review threads) and
accepts the token `demo-token`. Every step runs a script as a subprocess, exactly as an agent
runs it, prints the command and a short view of its output, and checks the story holds (a
deviation ends the demo with exit 1):

  first look -> confirm -> new comments arrive -> the poll finds exactly them -> confirm ->
  a PR's unresolved threads -> a comment posted and handed off by id -> no-change poll (304)

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
    from ghcomments.normalize import reveal as _reveal

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

    def run(self, command: str, expect: int = 0) -> Dict[str, Any]:
        """Run `command` exactly as printed (bash; python3 is this interpreter); parse JSON."""
        print(f"$ {command}")
        proc = subprocess.run(["bash", "-c", command], cwd=self.work, env=self.env,
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
