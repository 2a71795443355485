#!/usr/bin/env python3
"""`make bench`: the bundle against the tools a user would otherwise pick, on the fake GitHub.

    .venv/bin/python tests/bench.py                      # everything: 2.5 to 3 minutes, plus
                                                         # about 2.5 for parts 4 and 5,
                                                         # 15 s for part 7, 4 minutes for
                                                         # part 8 and about 1 for part 9
    .venv/bin/python tests/bench.py --runs 3 --sizes 100,1000 --no-handoff --no-pr --no-wait
    .venv/bin/python tests/bench.py --runs 1 --sizes 100 --no-handoff --no-wait --pr-runs 1

Nine parts, all against tests/fakegithub started in this process on 127.0.0.1 (no GitHub):

1. Following one issue of 100, 1,000 and 10,000 comments: first look, no-change poll, poll
   after 5 new comments, catch-up after 250, one comment by id. Columns: this bundle (the real
   scripts as subprocesses, as an agent runs them), the real `gh api --paginate`, and naive
   `requests` paging (per_page=100, following Link). Runs are interleaved across columns, so
   the ratios hold on a noisy machine.
2. Start-up: each script's `--help` against `python -c pass` and `python -c "import requests"`,
   and an `-X importtime` profile of a no-change poll.
3. The hand-off (seed 003): a three-cycle review on issues with 10, 1,000 and 3,000 prior
   comments; per read, the full conversation (`--all`) against `handoff.fetch` (`--comment-id`)
   and `--since-comment-id`.
4. A pull request's rounds (CONTRACT section 12) on a PR with 2,500 conversation comments, 300
   reviews and 1,000 inline comments: first look, no-change poll, a new review with 5 inline
   comments, 3 replies in threads. `check_issue_updates.py --pr` + confirm against a
   `get_pr_comments.py --format json` snapshot and `gh api --paginate` over the three lists,
   every round. Counted from the fake's request log.
5. Waiting (section 13): `--wait 600` on 2,500 comments with the reply at minute 7 against a
   `sleep 60` + `gh api --paginate` loop (simulated, sleeps scaled), with peak RSS; and the peak
   RSS of an idle wait of 10 polls against the most the contract allows (721). Wait durations
   are shrunk with the test-only GH_MONITOR_TEST_TIME_SCALE.
6. After an event (section 14): what the next poll costs after an edit of the newest comment,
   a deleted checkpoint comment and a dismissal on a pull request.
7. A review answered in threads (seed 003, section 15) on a PR of 300 threads: three cycles of
   a review with inline comments, the author's replies in each thread and the reviewer's
   resolves; per read, the round (with `threads`) and the by-id hand-offs against
   `get_pr_comments.py --format json` and `gh api --paginate` over the three lists.
8. Many conversations (section 18): 1, 10 and 100 followed rounds (every 5th a pull request),
   all confirmed: an idle poll by one inbox command (`check_issue_updates.py --followed`)
   against one check per round and `gh api --paginate` per conversation (requests, points,
   wall time), and the inbox's idle `--wait 600` (time-scaled): requests a poll, points, the
   most in any minute, a poll's duration.
9. Edits since they were handled (section 19): an idle poll of an issue and of a pull request
   and an idle wait, without and with `--include-edits`, and the check that reports an edit.
10. The test suite: what the last `make test` recorded in .tmp/suite-time.json (wall time,
   commit, date, load).

Part 2 also runs the no-change poll paired with its floor (tests/poll_floor.py) and a bare
`python -c pass` (CONTRACT section 20: the poll within 1.3x the floor).

The Markdown goes to stdout and to bench-results.md at the repository root. Not collected by
pytest (no test_ functions); tests/test_bench_smoke.py runs the measurement functions small.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as `python tests/bench.py`
    sys.path.insert(0, str(REPO))

from tests.fakegithub import FakeGitHub
from tests.support import SCRIPTS, clean_env

PY = sys.executable
OWNER, NAME = "bench", "repo"
REPOSITORY = f"{OWNER}/{NAME}"
SIZES = (100, 1000, 10000)
RUNS = 5
STARTUP_RUNS = 10
HANDOFF_PRIORS = (10, 1000, 3000)
HANDOFF_CYCLES = 3
RESULTS = REPO / "bench-results.md"
COLUMNS = ("bundle", "gh", "requests")
COLUMN_TITLES = {"bundle": "this bundle", "gh": "`gh api --paginate`",
                 "requests": "naive `requests` paging"}

LOREM = ("The change looks right to me, but the retry loop in the transport should stop after "
         "the third attempt, and the error message should name the file it could not read. "
         "Could you also add a test for the empty page, and say in the docs why the checkpoint "
         "moves only forward? Thanks for the quick turnaround on this one.")


def body(i: int) -> str:
    """A comment body of about 300 characters (real comments are rarely shorter)."""
    return f"Comment {i}. {LOREM}"


# -- scenarios and their floors -----------------------------------------------------------------

@dataclass(frozen=True)
class Scenario:
    key: str
    title: str
    floor_requests: int
    floor_points: int


SCENARIOS = (
    Scenario("first", "first look (newest 20)", 2, 2),
    Scenario("idle", "no-change poll", 1, 0),
    Scenario("new5", "poll after 5 new comments", 1, 1),
    Scenario("new250", "catch-up after 250 new (batches of 100, confirm each)", 3, 3),
    Scenario("byid", "one comment by id (hand-off)", 1, 1),
)
NEW = {"new5": 5, "new250": 250}


class BenchError(Exception):
    """A measured command failed or returned the wrong comments: the numbers would lie."""


# -- one measured run ---------------------------------------------------------------------------

@dataclass
class Sample:
    requests: int
    points: int
    bytes: int
    seconds: float
    statuses: List[int] = field(default_factory=list)


@dataclass
class Cell:
    samples: List[Sample] = field(default_factory=list)

    @property
    def requests(self) -> List[int]:
        return [s.requests for s in self.samples]

    @property
    def points(self) -> List[int]:
        return [s.points for s in self.samples]

    @property
    def nbytes(self) -> List[int]:
        return [s.bytes for s in self.samples]

    @property
    def seconds(self) -> List[float]:
        return [s.seconds for s in self.samples]


@dataclass
class Out:
    code: int
    stdout: bytes
    stderr: bytes

    @property
    def json(self):
        return json.loads(self.stdout)


NAIVE_CLIENT = r"""
import json, os, sys
import requests
url, listing = sys.argv[1], sys.argv[2] == "list"
s = requests.Session()
s.trust_env = False
s.headers.update({"Authorization": "Bearer " + os.environ["BENCH_TOKEN"],
                  "Accept": "application/vnd.github+json", "User-Agent": "naive-paging"})
params = {"per_page": 100} if listing else None
out = []
while url:
    r = s.get(url, params=params, timeout=30)
    r.raise_for_status()
    if not listing:
        out = r.json()
        break
    out.extend(r.json())
    url, params = r.links.get("next", {}).get("url"), None
sys.stdout.write(json.dumps(out))
"""


class Harness:
    """The fake, tokens, fresh state roots, and the three kinds of client as subprocesses."""

    def __init__(self, fake: FakeGitHub, tmp: Path, pyc_dir: Optional[Path] = None) -> None:
        self.fake = fake
        self.tmp = Path(tmp)
        self.gh_config = self.tmp / "gh-config"
        self.gh_config.mkdir(parents=True, exist_ok=True)
        self._tokens = 0
        self._roots = 0
        self._issues = 0
        # Bytecode cached in a temp dir, as on most machines (the tree stays clean, and a
        # PYTHONDONTWRITEBYTECODE in the caller's environment does not make every run compile
        # the bundle from source; measure_startup shows that case separately).
        self.pyc = {"PYTHONPYCACHEPREFIX": str(pyc_dir or self.tmp / "pycache")}
        self.ids: Dict[int, List[int]] = {}  # issue -> comment ids as seeded
        self.reported: Optional[int] = None  # the `requests` the bundle's outputs claim
        self.last_threads: Optional[list] = None  # `threads` of the last measured PR round
        fake.add_repo(OWNER, NAME)

    # -- data ----------------------------------------------------------------------------------
    def new_issue(self, comments: int) -> int:
        self._issues += 1
        number = self._issues
        self.fake.add_issue(OWNER, NAME, number)
        self.ids[number] = self.fake.add_comments(OWNER, NAME, number, comments, body=body)
        return number

    def add(self, issue: int, count: int) -> List[int]:
        return self.fake.add_comments(OWNER, NAME, issue, count,
                                      body=lambda i: body(100000 + i))

    def remove(self, ids: Sequence[int]) -> None:
        """Put the issue back as it was seeded, so every run sees the same list."""
        for cid in reversed(ids):
            self.fake.delete_comment(cid)

    def token(self, login: str = "octocat") -> str:
        """A fresh token: its own rate-limit bucket."""
        self._tokens += 1
        tok = f"ghp_bench{self._tokens:031d}"
        self.fake.add_token(tok, login=login)
        return tok

    def root(self) -> Path:
        """A fresh --root, so no state leaks between runs."""
        self._roots += 1
        path = self.tmp / f"root-{self._roots}"
        path.mkdir()
        return path

    def python_env(self, cached: bool = True, **extra: str) -> Dict[str, str]:
        """A clean environment for a Python child: bytecode cached in our temp dir, or, with
        cached=False, as this sandbox runs Python (PYTHONDONTWRITEBYTECODE=1: modules without
        a __pycache__ beside them, the bundle's, are compiled from source every run)."""
        env = clean_env(**extra)
        env.pop("PYTHONPYCACHEPREFIX", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if cached:
            env.update(self.pyc)
        else:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

    def warm_up(self) -> None:
        """Fill the bytecode cache, so no measured run pays for compiling."""
        env = self.python_env()
        for _, cmd in STARTUP_COMMANDS:
            subprocess.run(cmd, env=env, capture_output=True, check=True, timeout=120)
        issue = self.new_issue(3)
        token = self.token()
        root = self.root()
        bundle_round(self, issue, token, root)
        self.latest(issue, token, "--comment-id", self.ids[issue][-1])
        self.script("manage_issue_comment.py", "--action", "create", "--repo", REPOSITORY,
                    "--issue", issue, "--body-file", "-", "--dry-run", token=token,
                    stdin=b"warm-up")
        self.naive(token, f"repos/{REPOSITORY}/issues/{issue}/comments", True)
        self.fake.clear_log()

    def used(self, token: str) -> int:
        """x-ratelimit-used of the token's core bucket, from GET /rate_limit (free)."""
        req = urllib.request.Request(f"{self.fake.url}/rate_limit", headers={
            "Authorization": f"Bearer {token}", "User-Agent": "bench"})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(req, timeout=30) as resp:
            return int(resp.headers["x-ratelimit-used"])

    def report(self, doc: dict) -> dict:
        """Note the `requests` a bundle output claims (checked against the fake's log)."""
        self.reported = (self.reported or 0) + int(doc["requests"])
        return doc

    def measure(self, token: str, action: Callable[[], int]) -> Sample:
        """Run `action` (it returns the stdout bytes it read) and count what it cost."""
        before = self.used(token)
        self.fake.clear_log()
        self.reported = None
        start = time.perf_counter()
        nbytes = action()
        seconds = time.perf_counter() - start
        log = self.fake.requests
        self.fake.clear_log()  # the log keeps response bodies: do not let it grow
        points = self.used(token) - before
        self.fake.clear_log()
        if self.reported is not None and self.reported != len(log):
            raise BenchError(f"the bundle's outputs say {self.reported} requests; the fake "
                             f"logged {len(log)}")
        return Sample(len(log), points, nbytes, seconds, [e.status for e in log])

    # -- clients -------------------------------------------------------------------------------
    def _run(self, cmd: List[str], env: Dict[str, str], stdin: Optional[bytes] = None,
             cwd: Optional[Path] = None, ok: bool = True) -> Out:
        proc = subprocess.run(cmd, env=env, input=stdin, capture_output=True, cwd=cwd,
                              timeout=300, check=False)
        out = Out(proc.returncode, proc.stdout, proc.stderr)
        if ok and out.code != 0:
            raise BenchError(f"{shlex.join(cmd)} exited {out.code}: "
                             f"{out.stderr.decode(errors='replace')[-2000:]}")
        return out

    def script_env(self, token: str) -> Dict[str, str]:
        """As GitHub Actions sets it (GITHUB_API_URL + GH_TOKEN); `python3` is this Python."""
        env = self.python_env(GITHUB_API_URL=self.fake.url, GH_TOKEN=token,
                              GH_CONFIG_DIR=str(self.gh_config))
        env["PATH"] = os.pathsep.join([str(Path(PY).parent), env.get("PATH", "")])
        return env

    def script(self, name: str, *args, token: str, stdin: Optional[bytes] = None) -> Out:
        return self._run([PY, str(SCRIPTS / name), *map(str, args)], self.script_env(token),
                         stdin=stdin)

    def check(self, issue: int, token: str, root: Path, *args) -> Out:
        return self.script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", issue,
                           "--root", root, *args, token=token)

    def latest(self, issue: int, token: str, *args, root: Optional[Path] = None) -> Out:
        return self.script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", issue,
                           "--root", root or self.root(), *args, token=token)

    def gh_env(self, token: str) -> Dict[str, str]:
        """The real gh talking to the fake as github.localhost (tests/conftest.py's gh_env)."""
        return clean_env(GH_HOST="github.localhost", GH_TOKEN=token, HTTP_PROXY=self.fake.url,
                         HTTPS_PROXY=self.fake.url, http_proxy=self.fake.url,
                         https_proxy=self.fake.url, NO_PROXY="", no_proxy="",
                         GH_CONFIG_DIR=str(self.gh_config), GH_NO_UPDATE_NOTIFIER="1",
                         GH_PROMPT_DISABLED="1")

    def gh(self, token: str, endpoint: str, paginate: bool) -> Out:
        return self._run(["gh", "api", *(["--paginate"] if paginate else []), endpoint],
                         self.gh_env(token))

    def naive(self, token: str, endpoint: str, listing: bool) -> Out:
        env = self.python_env(BENCH_TOKEN=token)
        return self._run([PY, "-c", NAIVE_CLIENT, f"{self.fake.url}/{endpoint}",
                          "list" if listing else "one"], env)


def json_items(stdout: bytes) -> list:
    """Comments in `gh api --paginate` output (one JSON array per page, back to back)."""
    text, pos, items = stdout.decode(), 0, []
    decoder = json.JSONDecoder()
    while pos < len(text):
        doc, pos = decoder.raw_decode(text, pos)
        items.extend(doc if isinstance(doc, list) else [doc])
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return items


# -- part 1: the three columns --------------------------------------------------------------------

def bundle_round(h: Harness, issue: int, token: str, root: Path,
                 limit: Optional[int] = None) -> Tuple[int, dict]:
    """One round as an agent runs it: check, then confirm the snapshot it returned comments
    in (a check with nothing new has nothing to confirm). Returns (stdout bytes, check doc)."""
    r = h.check(issue, token, root, *(["--limit", limit] if limit else []))
    doc = h.report(r.json)
    nbytes = len(r.stdout)
    if doc["new_comments"]:
        c = h.script("get_latest_comments.py", "--repo", REPOSITORY, "--issue", issue,
                     "--root", root, "--confirm-updates", "--snapshot-id", doc["snapshot_id"],
                     token=token)
        h.report(c.json)
        nbytes += len(c.stdout)
    return nbytes, doc


def run_bundle(h: Harness, issue: int, scenario: str) -> Sample:
    token = h.token()
    ids = h.ids[issue]
    if scenario == "byid":
        def fetch_one() -> int:
            r = h.latest(issue, token, "--comment-id", ids[-1])
            if [c["id"] for c in h.report(r.json)["comments"]] != [ids[-1]]:
                raise BenchError("--comment-id returned the wrong comment")
            return len(r.stdout)
        return h.measure(token, fetch_one)
    root = h.root()
    if scenario == "first":
        def first_look() -> int:
            nbytes, doc = bundle_round(h, issue, token, root)
            if [c["id"] for c in doc["new_comments"]] != ids[-20:]:
                raise BenchError("first look did not return the newest 20")
            return nbytes
        return h.measure(token, first_look)
    bundle_round(h, issue, token, root)  # setup: a first look, confirmed
    new = h.add(issue, NEW.get(scenario, 0))
    try:
        def catch_up() -> int:
            seen: List[int] = []
            total = 0
            for _ in range(20):
                nbytes, doc = bundle_round(h, issue, token, root,
                                           100 if scenario == "new250" else None)
                total += nbytes
                seen += [c["id"] for c in doc["new_comments"]]
                if not doc["more_available"]:
                    break
            if seen != new:
                raise BenchError(f"{scenario}: the bundle returned {len(seen)} comments, "
                                 f"expected the {len(new)} new ones")
            return total
        return h.measure(token, catch_up)
    finally:
        h.remove(new)


def run_baseline(h: Harness, issue: int, scenario: str, column: str) -> Sample:
    """`gh api --paginate` or naive paging: read everything, every time (by id: one GET)."""
    token = h.token()
    ids = h.ids[issue]
    client = h.gh if column == "gh" else h.naive
    if scenario == "byid":
        def fetch_one() -> int:
            out = client(token, f"repos/{REPOSITORY}/issues/comments/{ids[-1]}", False)
            if json.loads(out.stdout)["id"] != ids[-1]:
                raise BenchError(f"{column}: by id returned the wrong comment")
            return len(out.stdout)
        return h.measure(token, fetch_one)
    new = h.add(issue, NEW.get(scenario, 0))
    try:
        def read_all() -> int:
            out = client(token, f"repos/{REPOSITORY}/issues/{issue}/comments", True)
            if len(json_items(out.stdout)) != len(ids) + len(new):
                raise BenchError(f"{column}: read the wrong number of comments")
            return len(out.stdout)
        return h.measure(token, read_all)
    finally:
        h.remove(new)


def measure_issues(h: Harness, sizes: Sequence[int] = SIZES, runs: int = RUNS,
                   columns: Sequence[str] = COLUMNS,
                   progress: Callable[[str], None] = lambda s: None
                   ) -> Dict[Tuple[int, str, str], Cell]:
    """Every scenario on an issue of each size; runs interleaved across columns."""
    cells: Dict[Tuple[int, str, str], Cell] = {}
    for size in sizes:
        issue = h.new_issue(size)
        for sc in SCENARIOS:
            progress(f"{size} comments: {sc.title}")
            for _ in range(runs):
                for column in columns:
                    sample = (run_bundle(h, issue, sc.key) if column == "bundle"
                              else run_baseline(h, issue, sc.key, column))
                    cells.setdefault((size, sc.key, column), Cell()).samples.append(sample)
    return cells


# -- part 2: start-up -----------------------------------------------------------------------------

STARTUP_COMMANDS = (
    ("python -c pass", [PY, "-c", "pass"]),
    ('python -c "import requests"', [PY, "-c", "import requests"]),
    ('python -c "import http.client"', [PY, "-c", "import http.client"]),
    ("python -c \"import github_issue_comments\"",
     [PY, "-c", f"import sys; sys.path.insert(0, {str(SCRIPTS)!r}); import github_issue_comments"]),
    ("check_issue_updates.py --help", [PY, str(SCRIPTS / "check_issue_updates.py"), "--help"]),
    ("get_latest_comments.py --help", [PY, str(SCRIPTS / "get_latest_comments.py"), "--help"]),
    ("manage_issue_comment.py --help", [PY, str(SCRIPTS / "manage_issue_comment.py"), "--help"]),
    ("get_pr_comments.py --help", [PY, str(SCRIPTS / "get_pr_comments.py"), "--help"]),
    ("verify_dependencies.py --help", [PY, str(REPO / "verify_dependencies.py"), "--help"]),
)


def measure_startup(h: Harness, runs: int = STARTUP_RUNS
                    ) -> Dict[Tuple[str, bool], List[float]]:
    """(command, bytecode cached) -> wall times; every command and mode interleaved."""
    times: Dict[Tuple[str, bool], List[float]] = {}
    envs = {True: h.python_env(cached=True), False: h.python_env(cached=False)}
    for _ in range(runs):
        for label, cmd in STARTUP_COMMANDS:
            for cached, env in envs.items():
                start = time.perf_counter()
                subprocess.run(cmd, env=env, capture_output=True, check=True, timeout=60)
                times.setdefault((label, cached), []).append(time.perf_counter() - start)
    return times


FLOOR = Path(__file__).with_name("poll_floor.py")
FLOOR_RUNS = 21
FLOOR_TARGET = 1.3  # CONTRACT section 20: the no-change poll within 1.3x the floor


@dataclass
class FloorRuns:
    """Paired runs of the no-change poll, the floor program and a bare interpreter."""

    poll: List[float]
    floor: List[float]
    bare: List[float]
    statuses: List[int]  # what the fake answered the poll's requests, every run

    def median(self, which: str) -> float:
        return statistics.median(getattr(self, which))

    def ratio(self, which: str, to: str) -> float:
        """Median of the per-pair ratios (each pair ran back to back, so shares its noise)."""
        return statistics.median(a / b for a, b in zip(getattr(self, which), getattr(self, to)))


def measure_floor(h: Harness, runs: int = FLOOR_RUNS, comments: int = 100) -> FloorRuns:
    """`check_issue_updates.py` answered by one 304 against tests/poll_floor.py (one
    conditional GET through http.client, the JSON state read, one atomic write with fsync, one
    JSON line) and `python -c pass`: after a warm-up, `runs` rounds of the three back to back,
    their order rotating each round."""
    issue = h.new_issue(comments)
    token = h.token()
    root = h.root()
    bundle_round(h, issue, token, root)
    argv = [str(SCRIPTS / "check_issue_updates.py"), "--repo", REPOSITORY, "--issue",
            str(issue), "--root", str(root)]
    env = h.python_env(True, GITHUB_API_URL=h.fake.url, GH_TOKEN=token,
                       GH_CONFIG_DIR=str(h.gh_config))
    h.fake.clear_log()
    h._run([PY, *argv], env)  # the poll's own request: the floor asks the same URL
    [probe] = h.fake.requests
    if probe.status != 304:
        raise BenchError(f"the no-change poll was answered {probe.status}, not 304")
    floor_state = h.tmp / f"floor-{issue}.json"
    floor_state.write_text(json.dumps({"url": h.fake.url + probe.target,
                                       "etag": probe.headers["if-none-match"]}))
    commands = {"poll": [PY, *argv], "floor": [PY, str(FLOOR), str(floor_state)],
                "bare": [PY, "-c", "pass"]}
    out = FloorRuns([], [], [], [])
    for _ in range(3):  # warm-up: bytecode compiled, caches filled
        for cmd in commands.values():
            h._run(cmd, env)
    h.fake.clear_log()
    order = list(commands)
    for i in range(runs):
        for name in order[i % 3:] + order[:i % 3]:
            start = time.perf_counter()
            result = h._run(commands[name], env)
            getattr(out, name).append(time.perf_counter() - start)
            if name == "floor" and json.loads(result.stdout)["status"] != 304:
                raise BenchError("the floor program's request was not answered 304")
    out.statuses = [e.status for e in h.fake.requests if e.headers.get("user-agent", "")
                    .startswith("gh-issue-comment-monitor")]
    h.fake.clear_log()
    if out.statuses != [304] * runs:
        raise BenchError(f"the polls were not one 304 each: {out.statuses}")
    return out


def table_floor(f: FloorRuns) -> str:
    ratio = f.ratio("poll", "floor")
    lines = ["| program | median ms (min–max) | ÷ floor (median of pairs) | "
             "÷ `python -c pass` (median of pairs) |", "|---|---:|---:|---:|"]
    for name, label in (("poll", "no-change poll (`check_issue_updates.py`, one 304)"),
                        ("floor", "floor (`tests/poll_floor.py`)"),
                        ("bare", "`python -c pass`")):
        values = getattr(f, name)
        lines.append(f"| {label} | {fmt_ms(f.median(name))} ({fmt_ms(min(values))}–"
                     f"{fmt_ms(max(values))}) | {f.ratio(name, 'floor'):.2f}× | "
                     f"{f.ratio(name, 'bare'):.2f}× |")
    verdict = "within" if ratio <= FLOOR_TARGET else "OVER"
    lines += ["", f"Poll ÷ floor {ratio:.2f}× ({verdict} the {FLOOR_TARGET}× bound of CONTRACT "
              f"section 20), poll ÷ bare interpreter {f.ratio('poll', 'bare'):.2f}×, over "
              f"{len(f.poll)} paired runs."]
    return "\n".join(lines)


SUITE_TIME = REPO / ".tmp" / "suite-time.json"


def suite_time_lines(path: Path = SUITE_TIME) -> List[str]:
    """What the last `make test` recorded (tests/suitetime.py), or how to get it."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [f"No {path.name} yet: `make test` records it."]
    except (OSError, ValueError) as exc:
        return [f"{path.name} could not be read ({exc}); `make test` writes it again."]
    if not isinstance(doc, dict):
        return [f"{path.name} is not a JSON object; `make test` writes it again."]
    commit = str(doc.get("commit") or "?")[:12] + (" (uncommitted changes)"
                                                    if doc.get("dirty") else "")
    return [f"The last `make test`: {doc.get('wall_seconds')} s wall, "
            f"{doc.get('tests_collected')} tests, {doc.get('tests_failed')} failed, exit "
            f"{doc.get('exit_status')}, {doc.get('workers')} xdist workers on "
            f"{doc.get('cpus')} CPUs; commit {commit}, {doc.get('date')}; load average "
            f"{doc.get('load_average_start')} at start, {doc.get('load_average_end')} at the "
            "end (CONTRACT section 20: at most 6 minutes)."]


def parse_importtime(stderr: str) -> List[Tuple[int, int, int, str]]:
    """(depth, self µs, cumulative µs, module) from `python -X importtime` output."""
    rows = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        head, cum_us, name = line.split("|", 2)
        indent = len(name) - len(name.lstrip()) - 1
        rows.append((indent // 2, int(head.split(":")[1]), int(cum_us), name.strip()))
    return rows


def subtree(rows: List[Tuple[int, int, int, str]], module: str
            ) -> List[Tuple[int, int, int, str]]:
    """The imports made by the first top-level import of `module` (importtime lists a
    module after everything it imported)."""
    for i, (depth, _, _, name) in enumerate(rows):
        if name == module and depth == 0:
            j = i
            while j > 0 and rows[j - 1][0] > 0:
                j -= 1
            return rows[j:i]
    return []


def children(rows: List[Tuple[int, int, int, str]], module: str) -> List[Tuple[int, str]]:
    """Direct children (cumulative µs, name) of the first top-level import of `module`."""
    return sorted(((r[2], r[3]) for r in subtree(rows, module) if r[0] == 1), reverse=True)


def heaviest(rows: List[Tuple[int, int, int, str]], module: str) -> List[Tuple[int, str]]:
    """Modules under `module` by their own (self) import time, µs."""
    return sorted(((r[1], r[3]) for r in subtree(rows, module)), reverse=True)


def profile_idle_poll(h: Harness, issue: int, runs: int = 7) -> Dict[str, object]:
    """A no-change poll timed with and without cached bytecode, and under `-X importtime`
    (cached): where its time goes."""
    token = h.token()
    root = h.root()
    bundle_round(h, issue, token, root)
    argv = [str(SCRIPTS / "check_issue_updates.py"), "--repo", REPOSITORY, "--issue",
            str(issue), "--root", str(root)]
    extra = {"GITHUB_API_URL": h.fake.url, "GH_TOKEN": token,
             "GH_CONFIG_DIR": str(h.gh_config)}
    envs = {True: h.python_env(True, **extra), False: h.python_env(False, **extra)}
    times: Dict[bool, List[float]] = {True: [], False: []}
    best: List[Tuple[int, int, int, str]] = []
    total_best: Optional[int] = None
    for _ in range(runs):
        for cached, env in envs.items():
            start = time.perf_counter()
            out = h._run([PY, *argv], env)
            times[cached].append(time.perf_counter() - start)
            if out.json["has_updates"]:
                raise BenchError("the profiled poll found updates")
        out = h._run([PY, "-X", "importtime", *argv], envs[True])
        rows = parse_importtime(out.stderr.decode(errors="replace"))
        total = sum(r[2] for r in rows if r[0] == 0)
        if total_best is None or total < total_best:  # the least noisy run
            best, total_best = rows, total
    h.fake.clear_log()
    top = sorted(((r[2], r[3]) for r in best if r[0] == 0), reverse=True)
    return {"poll": times, "total_us": total_best or 0, "top": top[:4],
            "requests_children": children(best, "requests")[:6],
            "requests_heaviest": heaviest(best, "requests")[:10]}


# -- part 3: the hand-off ---------------------------------------------------------------------------

@dataclass
class HandoffRow:
    prior: int
    cycle: int
    read: str
    conversation: int  # comments on the issue when the read happens
    full: Sample
    handoff: Sample
    since: Sample
    post_requests: int


REVIEW = ("Review, round {n}: the pagination loop re-reads the first page after a 304, and the "
          "error path drops the status code. Please fix both and add a test for the 304 case. "
          "Everything else looks good to me.")
REPLY = ("Reply, round {n}: fixed both — the loop now keeps the ETag of the last window, and the "
         "error carries the status. Added test_poll_304_keeps_window. Ready for another look.")


def read_three_ways(h: Harness, issue: int, token: str, handoff: dict, previous: int,
                    count: int) -> Tuple[Sample, Sample, Sample]:
    """The new comment (the newest of `count`) read as the whole conversation, by exactly
    `handoff.fetch`, and by --since-comment-id of the comment before it."""
    cid = int(handoff["commentId"])

    def full() -> int:
        r = h.latest(issue, token, "--all", "--max-pages", 100)
        got = [c["id"] for c in h.report(r.json)["comments"]]
        if len(got) != count or got[-1] != cid or r.json["truncated"]:
            raise BenchError("--all did not return the whole conversation")
        return len(r.stdout)

    def by_handoff() -> int:
        # exactly handoff.fetch, from the bundle root (it is relative to it); `python3` on
        # PATH is this Python
        out = h._run(shlex.split(handoff["fetch"]), h.script_env(token), cwd=REPO)
        if [c["id"] for c in h.report(out.json)["comments"]] != [cid]:
            raise BenchError("handoff.fetch did not return exactly the comment")
        return len(out.stdout)

    def since() -> int:
        r = h.latest(issue, token, "--since-comment-id", previous)
        if [c["id"] for c in h.report(r.json)["comments"]] != [cid]:
            raise BenchError("--since-comment-id did not return the new comment")
        return len(r.stdout)

    return h.measure(token, full), h.measure(token, by_handoff), h.measure(token, since)


def measure_handoff(h: Harness, priors: Sequence[int] = HANDOFF_PRIORS,
                    cycles: int = HANDOFF_CYCLES,
                    progress: Callable[[str], None] = lambda s: None) -> List[HandoffRow]:
    """Reviewer and author take turns: post with manage_issue_comment.py, pass `handoff`, and
    the other reads the new comment three ways."""
    rows: List[HandoffRow] = []
    for prior in priors:
        progress(f"hand-off, {prior} prior comments")
        issue = h.new_issue(prior)
        people = {"reviewer": h.token("reviewer"), "author": h.token("author")}
        previous = h.ids[issue][-1]
        count = prior
        for cycle in range(1, cycles + 1):
            for poster, reader, text, what in (
                    ("reviewer", "author", REVIEW, "author reads the review"),
                    ("author", "reviewer", REPLY, "reviewer reads the reply")):
                h.fake.clear_log()
                post = h.script("manage_issue_comment.py", "--action", "create", "--repo",
                                REPOSITORY, "--issue", issue, "--body-file", "-",
                                token=people[poster], stdin=text.format(n=cycle).encode())
                post_requests = len(h.fake.requests)
                h.fake.clear_log()
                handoff = post.json["handoff"]
                count += 1
                full, by_id, since = read_three_ways(h, issue, people[reader], handoff,
                                                     previous, count)
                rows.append(HandoffRow(prior, cycle, what, count, full, by_id, since,
                                       post_requests))
                previous = int(handoff["commentId"])
    return rows


# -- part 4: a pull request's rounds ----------------------------------------------------------------

PR_SHAPE = (2500, 300, 1000)  # conversation comments, submitted reviews, inline comments
PR_RUNS = 3
INLINE_PER_REVIEW = 4
PR_ROUNDS = (
    ("first", "first look"),
    ("idle", "no-change poll (after confirm)"),
    ("review", "a new review with 5 inline comments"),
    ("replies", "3 replies in threads (each its own bodiless COMMENTED review)"),
)
PR_COLUMNS = ("bundle", "snapshot", "gh")
PR_TITLES = {"bundle": "this bundle (`check_issue_updates.py --pr`, then confirm)",
             "snapshot": "`get_pr_comments.py --format json`",
             "gh": "`gh api --paginate`, the 3 lists"}
PR_LISTS = ("issues/{n}/comments", "pulls/{n}/reviews", "pulls/{n}/comments")


@dataclass
class Wire:
    """One measured run, counted from the fake's request log."""
    requests: int
    points: int  # REST answers other than 304, plus GraphQL queries (1 point each)
    graphql: int
    wire: int  # response body bytes the fake sent (uncompressed)
    stdout: int  # bytes the caller (the agent) reads
    seconds: float
    statuses: List[int] = field(default_factory=list)
    rss_kb: Optional[int] = None  # the client process's peak RSS (largest one, for a loop)
    polls: Optional[int] = None
    waited: Optional[float] = None
    paths: List[str] = field(default_factory=list)  # "/pulls/N/reviews 304", in order

    def breakdown(self) -> str:
        """The requests by endpoint: `/pulls/N/reviews` ×8 (3 answered 304), ..."""
        kinds: Dict[str, List[int]] = {}
        for entry in self.paths:
            path, status = entry.rsplit(" ", 1)
            counts = kinds.setdefault(path, [0, 0])
            counts[0] += 1
            counts[1] += status == "304"
        return ", ".join(f"`{path}` ×{n}" + (f" ({c} answered 304)" if c else "")
                         for path, (n, c) in kinds.items())


def endpoint(path: str) -> str:
    """A logged path without its repository and numbers: /pulls/N/reviews/ID/comments."""
    parts = path.split("/")
    if parts[1:2] == ["repos"]:
        parts = parts[:1] + parts[4:]
    elif parts[1:2] == ["repositories"]:
        parts = parts[:1] + parts[3:]
    out = []
    for part in parts:
        out.append(("N" if out and out[-1] in ("issues", "pulls") else "ID")
                   if part.isdigit() else part)
    return "/".join(out)


def count_log(log: Sequence, stdout: int, seconds: float) -> Wire:
    gql = sum(1 for e in log if e.path.endswith("/graphql"))
    rest = sum(1 for e in log if not e.path.endswith("/graphql") and e.status != 304)
    return Wire(len(log), rest + gql, gql, sum(len(e.response_body) for e in log), stdout,
                seconds, [e.status for e in log],
                paths=[f"{endpoint(e.path)} {e.status}" for e in log])


def measure_wire(h: Harness, token: str, action: Callable[[], int]) -> Wire:
    """Run `action` (it returns the stdout bytes it read) and count its requests, points and
    bytes from the fake's log; the REST points are checked against x-ratelimit-used."""
    before = h.used(token)
    h.fake.clear_log()
    h.reported = None
    start = time.perf_counter()
    nbytes = action()
    seconds = time.perf_counter() - start
    log = h.fake.requests
    h.fake.clear_log()
    core = h.used(token) - before
    h.fake.clear_log()
    wire = count_log(log, nbytes, seconds)
    if core != wire.points - wire.graphql:
        raise BenchError(f"x-ratelimit-used moved by {core}; the log has "
                         f"{wire.points - wire.graphql} REST answers other than 304")
    if h.reported is not None and h.reported != len(log):
        raise BenchError(f"the bundle's outputs say {h.reported} requests; the fake "
                         f"logged {len(log)}")
    return wire


# A child forked from this process would inherit its high-water mark (Linux keeps the larger of
# the RSS before and after exec in ru_maxrss), and this process holds the fake's data: the
# measured command is spawned by a small `python -S` instead, which reports its children's peak.
RSS_WRAPPER = r"""
import os, resource, sys
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
status = os.waitpid(pid, 0)[1]
with open(sys.argv[1], "w") as f:
    f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_rss(cmd: List[str], env: Dict[str, str], timeout: float = 600) -> Tuple[Out, int]:
    """Run a command; (its output, its peak RSS in KiB: ru_maxrss, through RSS_WRAPPER)."""
    fd, report = tempfile.mkstemp(prefix="bench-rss-")
    os.close(fd)
    try:
        proc = subprocess.run([PY, "-S", "-c", RSS_WRAPPER, report, *cmd], env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
                              check=False)
        result = Out(proc.returncode, proc.stdout, proc.stderr)
        if result.code != 0:
            raise BenchError(f"{shlex.join(cmd)} exited {result.code}: "
                             f"{result.stderr.decode(errors='replace')[-2000:]}")
        return result, int(Path(report).read_text())
    finally:
        os.unlink(report)


def new_pull(h: Harness, comments: int, reviews: int, inline: int) -> int:
    """A pull request built with the fake's bulk helpers: `comments` conversation comments, then
    `reviews` submitted reviews over the last `reviews` minutes, interleaved with the newest
    comments. ⌈inline/4⌉ of them are COMMENTED reviews of about 4 inline comments each (every
    other one with a body), spread evenly; the rest APPROVED or CHANGES_REQUESTED with a body."""
    fake = h.fake
    h._issues += 1
    number = h._issues
    fake.add_pull(OWNER, NAME, number, title="Rework the transport")
    h.ids[number] = fake.add_comments(OWNER, NAME, number, comments, body=body)
    now = fake.clock
    carrying = min(reviews, -(-inline // INLINE_PER_REVIEW))
    reviewers = ("bob", "carol", "dave")
    done = 0
    for r in range(reviews):
        fake.clock = now - dt.timedelta(seconds=60 * (reviews - r) - 30)
        who = reviewers[r % len(reviewers)]
        if (r + 1) * carrying // reviews > r * carrying // reviews:
            n = (done + 1) * inline // carrying - done * inline // carrying
            threads = [{"path": f"src/module_{(done + i) % 17}.py", "line": 10 + 7 * i,
                        "body": body(10 * r + i)} for i in range(n)]
            started = fake.start_review(OWNER, NAME, number, who, comments=threads)
            fake.submit_review(started["id"], "COMMENTED", body=body(r) if r % 2 else "")
            done += 1
        else:
            fake.add_review(OWNER, NAME, number, who,
                            "APPROVED" if r % 2 else "CHANGES_REQUESTED", body=body(r))
    fake.clock = now
    return number


def pr_change(h: Harness, number: int, key: str) -> Tuple[List[int], List[int]]:
    """Make round `key`'s change on the PR: (the listed reviews, the inline comments) it adds."""
    fake = h.fake
    if key == "review":
        fake.advance(60)
        started = fake.start_review(
            OWNER, NAME, number, "carol",
            comments=[{"path": "src/transport.py", "line": 20 + 10 * i, "body": body(900 + i)}
                      for i in range(5)])
        fake.submit_review(started["id"], "CHANGES_REQUESTED", body=REVIEW.format(n=1))
        return [started["id"]], started["comment_ids"]
    if key == "replies":
        replies = []
        for i, root in enumerate(fake.review_comment_ids(OWNER, NAME, number)[:3]):
            fake.advance(60)
            replies.append(fake.reply_to_review_comment(root, "dave",
                                                        REPLY.format(n=i + 1))["id"])
        return [], replies
    return [], []


def pr_round(h: Harness, number: int, token: str, root: Path, *args) -> Tuple[int, dict]:
    """One PR round as an agent runs it: check --pr, then confirm when it returned anything
    (or moved past what the filters left out)."""
    r = h.script("check_issue_updates.py", "--repo", REPOSITORY, "--pr", number, "--root", root,
                 *args, token=token)
    doc = h.report(r.json)
    nbytes = len(r.stdout)
    if doc["has_updates"] or doc["recommended_checkpoint"] != doc["previous_checkpoint"]:
        c = h.script("get_latest_comments.py", "--repo", REPOSITORY, "--pr", number, "--root",
                     root, "--confirm-updates", "--snapshot-id", doc["snapshot_id"], token=token)
        h.report(c.json)
        nbytes += len(c.stdout)
    return nbytes, doc


def run_pr_column(h: Harness, number: int, key: str, column: str, token: str, root: Path,
                  want: Tuple[List[int], List[int]]) -> Wire:
    fake = h.fake
    comments = len(fake.comment_ids(OWNER, NAME, number))
    reviews = len(fake.review_ids(OWNER, NAME, number))
    inline = len(fake.review_comment_ids(OWNER, NAME, number))

    def bundle() -> int:
        nbytes, doc = pr_round(h, number, token, root)
        got = ([r["id"] for r in doc["new_reviews"]],
               [c["id"] for c in doc["new_review_comments"]])
        if key == "first":
            ok = ([c["id"] for c in doc["new_comments"]] == h.ids[number][-20:]
                  and doc["new_review_count"] > 0)
        elif key == "idle":
            ok = not doc["has_updates"]
        else:
            ok = got == want and not doc["new_comments"]
        if not ok:
            raise BenchError(f"PR round {key}: the bundle returned {doc['new_comment_count']} "
                             f"comments, reviews {got[0]}, inline comments {got[1]}; expected "
                             f"{want}")
        return nbytes

    def snapshot() -> int:
        out = h.script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", number,
                       "--format", "json", token=token)
        doc = out.json
        threads = sum(len(t["comments"]) for t in doc["reviewThreads"])
        convo = sum(1 for c in doc["timelineComments"] if c["commentType"] == "issue_comment")
        if (threads, convo) != (inline, comments):
            raise BenchError(f"get_pr_comments.py read {threads} inline and {convo} "
                             f"conversation comments of {inline} and {comments}")
        return len(out.stdout)

    def paginate() -> int:
        nbytes = items = 0
        for path in PR_LISTS:
            out = h.gh(token, f"repos/{REPOSITORY}/{path.format(n=number)}", True)
            items += len(json_items(out.stdout))
            nbytes += len(out.stdout)
        if items != comments + reviews + inline:
            raise BenchError(f"gh api --paginate read {items} items of "
                             f"{comments + reviews + inline}")
        return nbytes

    action = {"bundle": bundle, "snapshot": snapshot, "gh": paginate}[column]
    return measure_wire(h, token, action)


def measure_pr(h: Harness, shape: Tuple[int, int, int] = PR_SHAPE, runs: int = PR_RUNS,
               columns: Sequence[str] = PR_COLUMNS,
               progress: Callable[[str], None] = lambda s: None
               ) -> Dict[Tuple[str, str], List[Wire]]:
    """The four rounds on a fresh PR per run (a fresh --root for the bundle); each round's
    change is made once, then every column reads it, interleaved."""
    cells: Dict[Tuple[str, str], List[Wire]] = {}
    for run in range(runs):
        progress(f"pull request rounds, run {run + 1} of {runs}")
        number = new_pull(h, *shape)
        tokens = {column: h.token() for column in columns}
        root = h.root()
        for key, _ in PR_ROUNDS:
            want = pr_change(h, number, key)
            for column in columns:
                cells.setdefault((key, column), []).append(
                    run_pr_column(h, number, key, column, tokens[column], root, want))
    return cells


def pr_bound(key: str, reviews: int) -> str:
    """Section 12's request bound for the round (the check; a confirm sends none)."""
    return {"first": "—",
            "idle": f"≤ {2 + reviews // 100} req, all 304 (0 pts)",
            "review": "≤ 3 REST req, + ≤ 1 GraphQL per 100 threads (section 15)",
            "replies": "≤ 5 REST req (2 + r, r = 3), + ≤ 1 GraphQL per 100 threads"}[key]


def pr_bound_requests(key: str, reviews: int) -> Optional[int]:
    return {"idle": 2 + reviews // 100, "review": 3, "replies": 5}.get(key)


# -- part 5: waiting for the reply ------------------------------------------------------------------

WAIT_COMMENTS = 2500  # GitHub's ceiling for a live conversation
WAIT_SECONDS, WAIT_INTERVAL, WAIT_REPLY_AT = 600, 30, 420
WAIT_SCALE = 0.01
LOOP_SLEEP, LOOP_ITERATIONS = 60, 10
FLAT_INTERVAL = 5
# (polls, time scale): 721 is --wait 3600 --poll-interval 5, polls at 0, 5, ..., 3600. Scaled, the
# polls of the long wait are 0.1 s apart; a first poll (it imports more) slower than that on a
# busy machine makes the wait skip the next one, as a 5 s first poll would unscaled.
FLAT = ((10, 0.1), (721, 0.02))


class AtPoll:
    """Run `action` when the k-th conditional GET of the comments of `issue` reaches the fake,
    before it is answered: on an issue with a poll hint, the k-th poll of a wait."""

    def __init__(self, issue: int, k: int, action: Callable[[], int]) -> None:
        self.suffix = f"/issues/{issue}/comments"
        self.k = k
        self.action = action
        self.count = 0
        self.result: Optional[int] = None
        self._lock = threading.Lock()

    def __call__(self, entry) -> None:
        if (entry.method != "GET" or not entry.path.endswith(self.suffix)
                or not (entry.headers.get("if-none-match")
                        or entry.headers.get("if-modified-since"))):
            return
        with self._lock:
            self.count += 1
            n = self.count
        if n == self.k:
            self.result = self.action()


@dataclass
class WaitResult:
    comments: int
    scale: float
    reply_poll: int
    bundle: Wire
    loop_to_reply: Optional[Wire]
    loop_all: Optional[Wire]
    flat: List[Wire]
    flat_runs: List[Tuple[int, float]]  # (polls scheduled, time scale)
    floor_kb: int  # the wrapper's own RSS: what /bin/true measures through it


def wait_cmd(issue: int, root: Path, seconds: int, interval: int) -> List[str]:
    return [PY, str(SCRIPTS / "check_issue_updates.py"), "--repo", REPOSITORY, "--issue",
            str(issue), "--root", str(root), "--wait", str(seconds), "--poll-interval",
            str(interval)]


def measure_wait(h: Harness, comments: int = WAIT_COMMENTS, scale: float = WAIT_SCALE,
                 flat: Sequence[Tuple[int, float]] = FLAT, gh: bool = True, progress: Callable[[str], None] = lambda s: None
                 ) -> WaitResult:
    """A 10-minute wait whose reply comes at minute 7: `--wait` against a `sleep 60` +
    `gh api --paginate` loop; then idle waits of few and of the most polls the contract allows."""
    fake = h.fake
    issue = h.new_issue(comments)
    reply_poll = WAIT_REPLY_AT // WAIT_INTERVAL + 1  # polls at 0, 30, ...: minute 7 is the 15th

    def post_reply() -> int:
        return fake.add_comment(OWNER, NAME, issue, REPLY.format(n=1), user="bob")["id"]

    progress(f"--wait {WAIT_SECONDS} on {comments:,} comments (time × {scale:g})")
    token = h.token()
    root = h.root()
    bundle_round(h, issue, token, root)  # a confirmed first look: the checkpoint and poll hint
    hook = AtPoll(issue, reply_poll, post_reply)
    fake.on_request(hook)
    env = {**h.script_env(token), "GH_MONITOR_TEST_TIME_SCALE": repr(scale)}
    docs: List[dict] = []
    peak: List[int] = []

    def wait() -> int:
        out, kb = run_rss(wait_cmd(issue, root, WAIT_SECONDS, WAIT_INTERVAL), env)
        doc = h.report(out.json)
        docs.append(doc)
        peak.append(kb)
        if doc["polls"] != reply_poll or [c["id"] for c in doc["new_comments"]] != [hook.result]:
            raise BenchError(f"--wait woke at poll {doc['polls']} with "
                             f"{doc['new_comment_count']} comments; expected poll {reply_poll} "
                             f"and the reply {hook.result}")
        return len(out.stdout)

    try:
        bundle = measure_wire(h, token, wait)
    finally:
        fake.clear_hooks()
    bundle.rss_kb, bundle.polls, bundle.waited = peak[0], docs[0]["polls"], \
        docs[0]["waited_seconds"]
    h.remove([hook.result])  # the loop gets its own reply, at its minute 7

    loop_to_reply = loop_all = None
    if gh:
        progress(f"`sleep {LOOP_SLEEP}` + gh api --paginate loop (time × {scale:g})")
        loop_to_reply, loop_all = measure_loop(h, issue, comments, scale, post_reply)

    progress(f"idle waits of {' and '.join(str(n) for n, _ in flat)} polls")
    token = h.token()
    root = h.root()
    bundle_round(h, issue, token, root)
    idle: List[Tuple[dict, int]] = []
    flat_wires = []
    for polls, flat_scale in flat:
        env = {**h.script_env(token), "GH_MONITOR_TEST_TIME_SCALE": repr(flat_scale)}

        def idle_wait(seconds: int = (polls - 1) * FLAT_INTERVAL,
                      env: Dict[str, str] = env) -> int:
            out, kb = run_rss(wait_cmd(issue, root, seconds, FLAT_INTERVAL), env)
            idle.append((h.report(out.json), kb))
            return len(out.stdout)

        w = measure_wire(h, token, idle_wait)
        doc, w.rss_kb = idle[-1]
        w.polls, w.waited = doc["polls"], doc["waited_seconds"]
        if doc["has_updates"] or set(w.statuses) != {304}:
            raise BenchError(f"the idle wait of {polls} polls found updates or sent a request "
                             f"not answered 304: {sorted(set(w.statuses))}")
        flat_wires.append(w)
    floor = run_rss(["true"], clean_env())[1]
    return WaitResult(comments, scale, reply_poll, bundle, loop_to_reply, loop_all, flat_wires,
                      list(flat), floor)


def measure_loop(h: Harness, issue: int, comments: int, scale: float,
                 post_reply: Callable[[], int]) -> Tuple[Wire, Wire]:
    """`for i in 1..10: sleep 60; gh api --paginate .../comments`, simulated here with the
    sleep scaled; the reply is posted at minute 7, before that iteration's read. (the loop up
    to the reply, all 10 iterations)."""
    token = h.token()
    env = h.gh_env(token)
    endpoint = f"repos/{REPOSITORY}/issues/{issue}/comments"
    reply_at = WAIT_REPLY_AT // LOOP_SLEEP
    before = h.used(token)
    h.fake.clear_log()
    marks = []  # per iteration: (requests so far, stdout so far, seconds, peak RSS so far)
    nbytes = peak = 0
    start = time.perf_counter()
    for i in range(1, LOOP_ITERATIONS + 1):
        time.sleep(LOOP_SLEEP * scale)
        if i == reply_at:
            post_reply()
        out, kb = run_rss(["gh", "api", "--paginate", endpoint], env)
        if len(json_items(out.stdout)) != comments + (i >= reply_at):
            raise BenchError(f"gh api --paginate, iteration {i}: wrong number of comments")
        nbytes += len(out.stdout)
        peak = max(peak, kb)
        marks.append((len(h.fake.requests), nbytes, time.perf_counter() - start, peak))
    log = h.fake.requests
    h.fake.clear_log()
    core = h.used(token) - before
    h.fake.clear_log()
    full = count_log(log, nbytes, marks[-1][2])
    if core != full.points:
        raise BenchError(f"x-ratelimit-used moved by {core}; the log has {full.points}")
    full.rss_kb = peak
    n, out_bytes, seconds, kb = marks[reply_at - 1]
    to_reply = count_log(log[:n], out_bytes, seconds)
    to_reply.rss_kb = kb
    return to_reply, full


# -- part 8: the inbox, many conversations in one command ------------------------------------------

INBOX_SIZES = (1, 10, 100)
INBOX_COMMENTS = 30  # conversation comments of each followed issue or pull request
INBOX_PR_EVERY = 5  # every 5th followed round is a pull request (3 reviews, 6 inline comments)
# × 0.05: a poll of 100 rounds (about 0.5 s here) stays well inside the scaled interval (1.5 s)
INBOX_WAIT, INBOX_INTERVAL, INBOX_SCALE = 600, 30, 0.05
INBOX_COLUMNS = ("inbox", "each", "gh")
INBOX_TITLES = {"inbox": "this bundle, one inbox command (`--followed`)",
                "each": "this bundle, one `check_issue_updates.py` per round",
                "gh": "`gh api --paginate` per conversation"}


@dataclass
class InboxRow:
    rounds: int
    issues: int
    pulls: int
    poll: Dict[str, Wire]  # one idle poll, by column
    wait: Optional[Wire]  # the inbox's idle --wait (scaled)
    per_poll_seconds: List[float]  # the wait's polls that sent requests: first to last
    most_per_minute: int  # the most requests the wait sent in any (scaled) minute
    poll_requests: List[int] = field(default_factory=list)  # each such poll's requests

    @property
    def bound(self) -> int:
        """CONTRACT section 18's idle poll: I·(1+e) + P·(2+2e) + r + d (+ u), here e = r = d =
        u = 0 (no --include-edits, under 100 reviews a PR, no draft of the token's owner, no
        @me)."""
        return self.issues + 2 * self.pulls


def inbox_rounds(h: Harness, n: int) -> List[Tuple[str, int]]:
    """n conversations to follow: issues, and every INBOX_PR_EVERY-th a pull request."""
    out = []
    for i in range(1, n + 1):
        if i % INBOX_PR_EVERY == 0:
            out.append(("--pr", new_pull(h, INBOX_COMMENTS, 3, 6)))
        else:
            out.append(("--issue", h.new_issue(INBOX_COMMENTS)))
    return out


def inbox_check(h: Harness, token: str, root: Path, *args, env: Optional[Dict[str, str]] = None
                ) -> Out:
    return h._run([PY, str(SCRIPTS / "check_issue_updates.py"), "--followed", "--root",
                   str(root), *map(str, args)], env or h.script_env(token))


def per_poll(log: Sequence) -> Tuple[List[float], List[int], int]:
    """The wait's log cut into its polls — every idle poll reads the rounds in the same order,
    so a poll begins where the first round's first probe comes again —: (each poll's
    first-to-last request seconds, each poll's requests, the most requests in any window of
    60 × INBOX_SCALE seconds: one scaled minute)."""
    groups: List[list] = []
    first = (log[0].path, sorted(log[0].query.items())) if log else None
    for entry in log:
        if not groups or (entry.path, sorted(entry.query.items())) == first:
            groups.append([])
        groups[-1].append(entry)
    window, most, start = 60 * INBOX_SCALE, 0, 0
    for end in range(len(log)):
        while log[end].time - log[start].time >= window:
            start += 1
        most = max(most, end - start + 1)
    return [g[-1].time - g[0].time for g in groups], [len(g) for g in groups], most


def measure_inbox(h: Harness, sizes: Sequence[int] = INBOX_SIZES,
                  columns: Sequence[str] = INBOX_COLUMNS, wait: Optional[int] = INBOX_WAIT,
                  progress: Callable[[str], None] = lambda s: None) -> List[InboxRow]:
    """For 1, 10 and 100 followed conversations, once every round is confirmed: one idle poll
    three ways (the inbox, one command per round, `gh api` per conversation), and the inbox's
    idle 10-minute wait, time-scaled."""
    rows = []
    for n in sizes:
        progress(f"inbox of {n} conversation(s)")
        rows.append(measure_inbox_of(h, inbox_rounds(h, n), columns, wait))
    return rows


def measure_inbox_of(h: Harness, rounds: List[Tuple[str, int]], columns: Sequence[str],
                     wait: Optional[int]) -> InboxRow:
    n = len(rounds)
    token, root = h.token(), h.root()
    for flag, number in rounds:  # follow each once: a first look, confirmed
        if flag == "--issue":
            bundle_round(h, number, token, root)
        else:
            pr_round(h, number, token, root)
    first = h.report(inbox_check(h, token, root).json)  # the inbox's own first read
    h.report(h.script("get_latest_comments.py", "--followed", "--root", root,
                      "--confirm-updates", "--snapshot-id", first["snapshot_id"],
                      token=token).json)
    issues = sum(1 for f, _ in rounds if f == "--issue")

    def inbox() -> int:
        out = inbox_check(h, token, root)
        doc = h.report(out.json)
        if doc["has_updates"] or doc["followed"] != n or doc["errors"]:
            raise BenchError(f"the idle inbox poll of {n} rounds found updates, errors or "
                             f"{doc['followed']} rounds")
        return len(out.stdout)

    def each() -> int:
        nbytes = 0
        for flag, number in rounds:
            out = h.script("check_issue_updates.py", "--repo", REPOSITORY, flag, number,
                           "--root", root, token=token)
            if h.report(out.json)["has_updates"]:
                raise BenchError(f"{flag} {number}: an idle poll found updates")
            nbytes += len(out.stdout)
        return nbytes

    def paginate() -> int:
        nbytes = 0
        for flag, number in rounds:
            for path in (PR_LISTS if flag == "--pr" else PR_LISTS[:1]):
                nbytes += len(h.gh(token, f"repos/{REPOSITORY}/{path.format(n=number)}",
                                   True).stdout)
        return nbytes

    poll = {c: measure_wire(h, token, {"inbox": inbox, "each": each, "gh": paginate}[c])
            for c in columns}
    row = InboxRow(n, issues, n - issues, poll, None, [], 0)
    if poll["inbox"].requests > row.bound or set(poll["inbox"].statuses) != {304}:
        raise BenchError(f"the idle inbox poll of {n} rounds sent {poll['inbox'].requests} "
                         f"requests (bound {row.bound}), statuses "
                         f"{sorted(set(poll['inbox'].statuses))}")
    if not wait:
        return row
    env = {**h.script_env(token), "GH_MONITOR_TEST_TIME_SCALE": repr(INBOX_SCALE)}
    docs: List[dict] = []
    logs: List[list] = []

    def idle_wait() -> int:
        out = inbox_check(h, token, root, "--wait", wait, "--poll-interval", INBOX_INTERVAL,
                          env=env)
        docs.append(h.report(out.json))
        logs.append(list(h.fake.requests))
        return len(out.stdout)

    row.wait = measure_wire(h, token, idle_wait)
    doc = docs[-1]
    row.wait.polls, row.wait.waited = doc["polls"], doc["waited_seconds"]
    if doc["has_updates"] or set(row.wait.statuses) != {304}:
        raise BenchError(f"the idle inbox wait over {n} rounds found updates or sent a "
                         f"request not answered 304: {sorted(set(row.wait.statuses))}")
    row.per_poll_seconds, row.poll_requests, row.most_per_minute = per_poll(logs[-1])
    if any(size > row.bound for size in row.poll_requests):
        raise BenchError(f"an idle poll of the wait over {n} rounds sent more requests than "
                         f"the bound {row.bound}: {row.poll_requests}")
    return row


EVENTS_PULLS = 10  # section 21's row: an idle inbox of 10 pull request rounds


@dataclass
class EventsRow:
    flag: bool
    poll: Wire
    bound: int


def measure_events_inbox(h: Harness, pulls: int = EVENTS_PULLS, runs: int = 3
                         ) -> List[EventsRow]:
    """An idle inbox of `pulls` pull-request rounds, every round confirmed with
    `--include-events` (event cursors and heads set): one idle poll without the flag and one
    with it, `runs` times each, interleaved; the median run of each by requests. Section 21's
    bound: P·(2+2v), v = 1 with the flag."""
    token, root = h.token(), h.root()
    keys = [f"{REPOSITORY}/pull/{new_pull(h, INBOX_COMMENTS, 3, 6)}"
            for _ in range(pulls)]
    follow = [a for k in keys for a in ("--follow", k)]
    for _ in range(2):  # the first look sets every cursor; the second read is quiet
        doc = h.report(inbox_check(h, token, root, *follow, "--include-events").json)
        if doc["snapshot_id"]:
            h.report(h.script("get_latest_comments.py", "--followed", "--root", root,
                              "--confirm-updates", "--snapshot-id", doc["snapshot_id"],
                              token=token).json)
    samples: Dict[bool, List[Wire]] = {False: [], True: []}
    for _ in range(runs):
        for flag in (False, True):
            def poll(flag: bool = flag) -> int:
                out = inbox_check(h, token, root, *(("--include-events",) if flag else ()))
                doc = h.report(out.json)
                if doc["has_updates"] or doc["errors"]:
                    raise BenchError("the idle inbox of pull requests found updates or errors")
                return len(out.stdout)
            samples[flag].append(measure_wire(h, token, poll))
    rows = []
    for flag in (False, True):
        runs_ = sorted(samples[flag], key=lambda w: w.requests)
        row = EventsRow(flag, runs_[len(runs_) // 2], pulls * (4 if flag else 2))
        if row.poll.requests > row.bound or set(row.poll.statuses) != {304}:
            raise BenchError(f"the idle inbox of {pulls} pull requests sent "
                             f"{row.poll.requests} requests (bound {row.bound}), statuses "
                             f"{sorted(set(row.poll.statuses))}")
        rows.append(row)
    return rows


CHECKS_SHAPES = ((15, 3), (150, 3))  # (check runs, status contexts) on the head
CI_MINUTES = 10  # the wait's CI: jobs queued at the push, the last done after 10 minutes


@dataclass
class ChecksRow:
    what: str
    plain: Optional[Sample]
    flagged: Sample
    peers: Optional[Tuple[int, int]] = None  # (requests, points) of a full re-read a minute
    setup: Optional[Tuple[str, Path, Tuple[str, ...]]] = None  # (token, root, flags) measured


def _ci_on_head(h: Harness, number: int, runs: int, statuses: int, done: bool = True
                ) -> List[int]:
    head = h.fake.pull_head(OWNER, NAME, number)
    ids = [h.fake.add_check_run(OWNER, NAME, head, f"job-{i:03}",
                                conclusion="success" if done else None,
                                status="completed" if done else "queued")["id"]
           for i in range(runs)]
    for i in range(statuses):
        h.fake.set_commit_status(OWNER, NAME, head, f"ci/context-{i}",
                                 "success" if done else "pending")
    return ids


def _settled_checks(h: Harness, number: int, token: str, root: Path, *args: str) -> None:
    """Check and confirm until nothing comes, 31 s apart (so that the checks settle)."""
    quiet = 0
    for _ in range(8):
        r = h.script("check_issue_updates.py", "--repo", REPOSITORY, "--pr", number, "--root",
                     root, *args, token=token)
        doc = h.report(r.json)
        _confirm(h, "--pr", number, token, root, doc)
        quiet = quiet + 1 if not doc["has_updates"] else 0
        if quiet == 2:
            return
        h.fake.advance(31)
    raise BenchError("a pull request round with CI never settled")


def _idle_checks(h: Harness, number: int, n_runs: int, n_statuses: int, base: Tuple[str, ...],
                 runs: int, what: str, extra_bound: int = 0) -> ChecksRow:
    """An idle pull-request poll with `base` flags, without and with `--include-checks`
    (each round settled and confirmed first; `runs` interleaved runs, the median by
    requests): the flag costs 1 + max(1, ⌈R/100⌉) + max(1, ⌈S/100⌉) more, all 304 —
    `extra_bound` less when the pull request replaces a probe of `base`."""
    flag = "--include-checks"
    setups = {}
    for mode in ("plain", "flagged"):
        token, root = h.token(), h.root()
        extra = base + ((flag,) if mode == "flagged" else ())
        _settled_checks(h, number, token, root, *extra)
        setups[mode] = (token, root, extra)
    samples: Dict[str, List[Sample]] = {"plain": [], "flagged": []}
    for _ in range(runs):
        for mode, (token, root, extra) in setups.items():
            def run(token=token, root=root, extra=extra) -> int:
                r = h.script("check_issue_updates.py", "--repo", REPOSITORY, "--pr",
                             number, "--root", root, *extra, token=token)
                if h.report(r.json)["has_updates"]:
                    raise BenchError("an idle pull-request poll found updates")
                return len(r.stdout)
            sample = h.measure(token, run)
            if set(sample.statuses) != {304}:
                raise BenchError(f"idle poll ({mode}): not all 304: {sample.statuses}")
            samples[mode].append(sample)
    median = {m: sorted(v, key=lambda x: x.requests)[len(v) // 2] for m, v in samples.items()}
    bound = 1 + max(1, math.ceil(n_runs / 100)) + max(1, math.ceil(n_statuses / 100)) \
        + extra_bound
    if median["flagged"].requests != median["plain"].requests + bound:
        raise BenchError(f"the idle poll with {' '.join(base + (flag,))} cost "
                         f"{median['flagged'].requests} requests, not "
                         f"{median['plain'].requests} + {bound}")
    return ChecksRow(what, median["plain"], median["flagged"], setup=setups["flagged"])


def measure_checks(h: Harness, runs: int = 3) -> List[ChecksRow]:
    """Section 23's cost: an idle pull-request poll without and with `--include-checks`
    (CI settled and confirmed first; `runs` interleaved runs, the median by requests), and a
    wait from a push to CI done (CI_MINUTES of jobs finishing, one poll a minute) against a
    full re-read of the pull request and every check page each minute."""
    flag = "--include-checks"
    follows = h.fake.date_follows_clock
    h.fake.date_follows_clock = True  # GitHub's Date and its data agree
    rows = []
    try:
        for n_runs, n_statuses in CHECKS_SHAPES:
            number = new_pull(h, 20, 5, 10)
            _ci_on_head(h, number, n_runs, n_statuses)
            rows.append(_idle_checks(h, number, n_runs, n_statuses, (), runs,
                                     f"idle PR poll, {n_runs} check runs and {n_statuses} "
                                     "statuses"))
            setups = {"flagged": rows[-1].setup}
        n_runs, n_statuses = CHECKS_SHAPES[0]  # with the events: the pull request is the
        events = new_pull(h, 20, 5, 10)  # head probe, so 2 more than the events alone
        _ci_on_head(h, events, n_runs, n_statuses)
        rows.append(_idle_checks(h, events, n_runs, n_statuses, ("--include-events",), runs,
                                 f"idle PR poll with `--include-events`, {n_runs} check runs "
                                 f"and {n_statuses} statuses (the pull request replaces the "
                                 "ref probe)", extra_bound=-1))
        # a wait from a push to CI done, on the last pull request (its flagged round settled)
        token, root, _extra = setups["flagged"]
        n_runs, n_statuses = CHECKS_SHAPES[0]
        h.fake.advance(60)
        h.fake.push(OWNER, NAME, number, count=1, author="alice")
        ids = _ci_on_head(h, number, n_runs, n_statuses, done=False)
        head = h.fake.pull_head(OWNER, NAME, number)
        polls = []

        def ci(entry) -> None:  # each probe of the pull request: a minute of CI
            if not entry.path.endswith(f"/pulls/{number}"):
                return
            polls.append(1)
            h.fake.advance(60)
            minute = len(polls)
            for i, rid in enumerate(ids):
                if (i * CI_MINUTES) // len(ids) + 1 == minute:
                    h.fake.complete_check_run(rid, "success")
            if minute == CI_MINUTES:
                for i in range(n_statuses):
                    h.fake.set_commit_status(OWNER, NAME, head, f"ci/context-{i}", "success")

        docs: List[dict] = []

        def wait() -> int:
            env = h.script_env(token)
            env["GH_MONITOR_TEST_TIME_SCALE"] = "0.01"
            r = h._run([PY, str(SCRIPTS / "check_issue_updates.py"), "--repo", REPOSITORY,
                        "--pr", str(number), "--root", str(root), flag, "--wait", "1800",
                        "--poll-interval", "60"], env)
            docs.append(h.report(r.json))
            return len(r.stdout)
        h.fake.on_request(ci)
        try:
            sample = h.measure(token, wait)
        finally:
            h.fake.clear_hooks()
        if not docs[-1].get("checks_settled"):
            raise BenchError(f"the wait did not end on checks_settled: {docs[-1]}")
        minutes = len(polls)
        pages = 1 + math.ceil(n_runs / 100) + math.ceil(n_statuses / 100)
        rows.append(ChecksRow(f"a wait from a push to CI done ({n_runs} runs and {n_statuses} "
                              f"statuses finishing over {CI_MINUTES} min; {minutes} polls, one "
                              "a minute)", None, sample, (minutes * pages, minutes * pages)))
    finally:
        h.fake.date_follows_clock = follows
    return rows


def table_checks(rows: List[ChecksRow]) -> str:
    lines = ["| | without `--include-checks` | with it | the peers' way (a full re-read each "
             "minute) |", "|---|---|---|---|"]

    def cell(s: Optional[Sample]) -> str:
        if s is None:
            return "—"
        n304 = sum(1 for x in s.statuses if x == 304)
        return f"{s.requests} req · {s.points} pts · {n304} answered 304 · {fmt_ms(s.seconds)} ms"
    for r in rows:
        peers = "—" if r.peers is None else f"{r.peers[0]} req · {r.peers[1]} pts"
        lines.append(f"| {r.what} | {cell(r.plain)} | {cell(r.flagged)} | {peers} |")
    return "\n".join(lines)


def table_events(rows: List[EventsRow]) -> str:
    lines = ["| idle inbox poll | requests | bound | points | answered 304 | stdout bytes | "
             "wall time |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        w = r.poll
        lines.append(f"| {'with' if r.flag else 'without'} `--include-events` | {w.requests} "
                     f"| {r.bound} | {w.points} | {sum(1 for s in w.statuses if s == 304)} | "
                     f"{w.stdout:,} | {w.seconds:.2f} s |")
    return "\n".join(lines)


def table_inbox(rows: List[InboxRow], columns: Sequence[str]) -> str:
    head = ["rounds (issues + PRs)", "bound"] + [INBOX_TITLES[c] for c in columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---", "---:"]
                                                          + ["---"] * len(columns)) + "|"]
    for r in rows:
        cells = [f"{r.rounds} ({r.issues} + {r.pulls})", str(r.bound)]
        for c in columns:
            w = r.poll[c]
            cells.append(f"{w.requests} req · {w.points} pt · {fmt_bytes(w.stdout)} · "
                         f"{w.seconds:.2f} s")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table_inbox_wait(rows: List[InboxRow]) -> str:
    lines = ["| rounds | polls (`polls`; of them with requests) | requests | a poll | points | "
             "most in any minute | a poll's requests, first to last (median) | wall time "
             "(scaled) | one command per round, the same polls | `gh api` per conversation, "
             "the same polls |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        w = r.wait
        if w is None:
            continue
        polls = w.polls or 0
        sizes = sorted(set(r.poll_requests))
        lines.append(f"| {r.rounds} | {polls}; {len(r.poll_requests)} | {w.requests:,} | "
                     f"{', '.join(map(str, sizes))} "
                     f"| {w.points} | {r.most_per_minute} | "
                     f"{fmt_ms(statistics.median(r.per_poll_seconds))} ms | {w.seconds:.1f} s | "
                     f"{polled(r.poll.get('each'), len(r.poll_requests))} | "
                     f"{polled(r.poll.get('gh'), len(r.poll_requests))} |")
    return "\n".join(lines)


def polled(p: Optional[Wire], polls: int) -> str:
    """A baseline's idle poll, times `polls`."""
    if p is None:
        return "not measured"
    return f"{p.requests * polls:,} req · {p.points * polls:,} pt · {p.seconds:.2f} s a poll"


def inbox_findings(rows: List[InboxRow], columns: Sequence[str]) -> List[str]:
    notes = [f"Each followed conversation has {INBOX_COMMENTS} comments; every "
             f"{INBOX_PR_EVERY}th is a pull request with 3 reviews and 6 inline comments. Each "
             "round was followed once (a first look, confirmed), then read once by the inbox "
             "and that inbox snapshot confirmed: the settled state every poll measured here "
             "starts from. `bound` is section 18's idle poll, I + 2P here (no `--include-edits`, "
             "under 100 reviews a PR, no draft of the token's owner, no `@me`).",
             "An idle poll: requests · rate-limit points (`x-ratelimit-used` after − before) · "
             "stdout bytes · wall time, start-up of every process included."]
    for r in rows:
        if "each" in r.poll:
            inbox, each = r.poll["inbox"], r.poll["each"]
            notes.append(f"{r.rounds} round(s): one inbox command sends {inbox.requests} "
                         f"request(s), all 304, in {inbox.seconds:.2f} s; {r.rounds} separate "
                         f"commands send the same {each.requests} in {each.seconds:.2f} s"
                         + (f"; `gh api --paginate` costs {r.poll['gh'].points} point(s) a "
                            f"poll and {fmt_bytes(r.poll['gh'].stdout)} to read"
                            if "gh" in r.poll else "") + ".")
    for r in rows:
        w = r.wait
        if w is not None and w.polls and w.polls > len(r.poll_requests):
            notes.append(f"{r.rounds} round(s): `polls` says {w.polls}; "
                         f"{w.polls - len(r.poll_requests)} of them (the last, at S) sent no "
                         "request: no request starts after S.")
            break
    capped = [r for r in rows if r.wait is not None and r.most_per_minute >= 300]
    if capped:
        notes.append(f"{capped[0].rounds} rounds: {capped[0].bound} requests a poll, a poll "
                     f"every {INBOX_INTERVAL} s; one minute can hold two polls and part of a "
                     "third, and the throttle (300 in any 60 s) held the rest back.")
    notes.append(f"The wait: `check_issue_updates.py --followed --wait {INBOX_WAIT} "
                 f"--poll-interval {INBOX_INTERVAL}` with nothing new, time × {INBOX_SCALE:g} "
                 "(GH_MONITOR_TEST_TIME_SCALE, test-only): `waited_seconds` and the request "
                 "counts are what the unscaled wait sends; wall times are of the scaled run. "
                 "\"Most in any minute\" counts the requests in any window of one scaled minute "
                 f"({60 * INBOX_SCALE:g} s); CONTRACT section 18 allows 300. The two baseline "
                 "columns are one measured idle poll times the same number of polls (not run "
                 "for ten minutes).")
    return notes


# -- formatting --------------------------------------------------------------------------------------

@dataclass
class SettleRow:
    """After one event: the check that sees it, its confirm, then the measured check."""

    event: str
    seen: Sample      # the check right after the event
    measured: Sample  # the next check, after the confirm


def _confirm(h: Harness, flag: str, number: int, token: str, root: Path, doc: dict) -> None:
    c = h.script("get_latest_comments.py", "--repo", REPOSITORY, flag, number, "--root", root,
                 "--confirm-updates", "--snapshot-id", doc["snapshot_id"], token=token)
    h.report(c.json)


def measure_settle(h: Harness, comments: int = 1000) -> List[SettleRow]:
    """Section 14's rows: event -> check (pays: the probe saw it) -> confirm -> the check
    measured, which must be conditional requests answered 304 only."""
    rows = []

    def issue_row(event: str, change: Callable[[int, List[int]], None]) -> None:
        issue = h.new_issue(comments)
        token, root = h.token(), h.root()
        bundle_round(h, issue, token, root)
        change(issue, h.ids[issue])
        docs: List[dict] = []

        def check() -> int:
            r = h.check(issue, token, root)
            docs.append(h.report(r.json))
            return len(r.stdout)

        seen = h.measure(token, check)
        _confirm(h, "--issue", issue, token, root, docs[-1])
        rows.append(SettleRow(event, seen, h.measure(token, check)))

    issue_row("edit of the newest comment",
              lambda issue, ids: h.fake.edit_comment(ids[-1], "typo fixed"))
    issue_row("deleted checkpoint comment", lambda issue, ids: h.fake.delete_comment(ids[-1]))

    number = new_pull(h, 200, 40, 60)
    token, root = h.token(), h.root()
    pr_round(h, number, token, root)
    docs: List[dict] = []

    def pr_check() -> int:
        r = h.script("check_issue_updates.py", "--repo", REPOSITORY, "--pr", number, "--root",
                     root, token=token)
        docs.append(h.report(r.json))
        return len(r.stdout)

    dismissable = [i for i in h.fake.review_ids(OWNER, NAME, number)
                   if h.fake.get_review(i)["state"] in ("APPROVED", "CHANGES_REQUESTED")]
    h.fake.dismiss_review(dismissable[0], "superseded")
    seen = h.measure(token, pr_check)
    _confirm(h, "--pr", number, token, root, docs[-1])
    rows.append(SettleRow("dismissal on a pull request", seen, h.measure(token, pr_check)))
    for row in rows:
        if set(row.measured.statuses) != {304}:
            raise BenchError(f"after the {row.event}, the poll was not free: "
                             f"{row.measured.statuses}")
    return rows


EDIT_RUNS = 5
EDIT_WAIT_POLLS = 6


@dataclass
class EditRow:
    what: str
    plain: Cell
    flagged: Cell


def _settled_round(h: Harness, flag: str, number: int, token: str, root: Path,
                   *args: str) -> None:
    """Check and confirm until nothing is returned and the position does not move."""
    for _ in range(6):
        r = h.script("check_issue_updates.py", "--repo", REPOSITORY, flag, number, "--root",
                     root, *args, token=token)
        doc = h.report(r.json)
        _confirm(h, flag, number, token, root, doc)
        if not doc["has_updates"] and doc["previous_checkpoint"] == {
                k: v for k, v in (doc["recommended_checkpoint"] or {}).items()
                if k != "last_seen_comment_updated_at"}:
            return


def measure_edits(h: Harness, comments: int = 1000, runs: int = EDIT_RUNS,
                  progress: Callable[[str], None] = lambda s: None) -> List[EditRow]:
    """Section 19's cost: an idle poll of an issue and of a pull request, and an idle wait,
    without and with --include-edits (each settled and confirmed first, runs interleaved);
    and the check that reports an edit."""
    flag = "--include-edits"
    progress(f"--include-edits: idle polls and waits ({runs} runs)")
    issue = h.new_issue(comments)
    number = new_pull(h, 200, 40, 60)
    rows = []
    setups = {}
    for mode in ("plain", "flagged"):
        token, iroot, proot = h.token(), h.root(), h.root()
        extra = (flag,) if mode == "flagged" else ()
        _settled_round(h, "--issue", issue, token, iroot, *extra)
        _settled_round(h, "--pr", number, token, proot, *extra)
        setups[mode] = (token, iroot, proot, extra)

    def poll(what: str, which: str, *args: str, scale: Optional[float] = None) -> EditRow:
        cells = {"plain": Cell(), "flagged": Cell()}
        for _ in range(runs):
            for mode, cell in cells.items():
                token, iroot, proot, extra = setups[mode]
                target = ("--issue", issue, iroot) if which == "issue" else (
                    "--pr", number, proot)

                def run(target=target, token=token, extra=extra) -> int:
                    env = h.script_env(token)
                    if scale is not None:
                        env["GH_MONITOR_TEST_TIME_SCALE"] = repr(scale)
                    r = h._run([PY, str(SCRIPTS / "check_issue_updates.py"), "--repo",
                                REPOSITORY, target[0], str(target[1]), "--root",
                                str(target[2]), *extra, *args], env)
                    doc = h.report(r.json)
                    if doc["has_updates"]:
                        raise BenchError(f"{what}: an idle poll found updates")
                    return len(r.stdout)
                sample = h.measure(token, run)
                if set(sample.statuses) != {304}:
                    raise BenchError(f"{what} ({mode}): not all 304: {sample.statuses}")
                cell.samples.append(sample)
        return EditRow(what, cells["plain"], cells["flagged"])

    rows.append(poll(f"idle poll, issue of {comments:,} comments", "issue"))
    rows.append(poll("idle poll, pull request (200 comments, 40 reviews)", "pr"))
    scale = 0.05
    rows.append(poll(f"idle wait of {EDIT_WAIT_POLLS} polls, issue (time × {scale:g})",
                     "issue", "--wait", str((EDIT_WAIT_POLLS - 1) * 5), "--poll-interval", "5",
                     scale=scale))
    progress("--include-edits: a check that reports an edit")
    token, iroot, _proot, extra = setups["flagged"]
    edited = Cell()
    for i in range(runs):
        h.fake.advance(5)
        h.fake.edit_comment(h.ids[issue][i * 7 % len(h.ids[issue])], f"edited {i}")
        docs: List[dict] = []

        def report(token=token, docs=docs) -> int:
            r = h.check(issue, token, iroot, flag)
            docs.append(h.report(r.json))
            return len(r.stdout)
        edited.samples.append(h.measure(token, report))
        if docs[-1]["edited_comment_count"] != 1:
            raise BenchError("the check after an edit did not report exactly it")
        _confirm(h, "--issue", issue, token, iroot, docs[-1])
    rows.append(EditRow("the check that reports one edit (issue)", Cell(), edited))
    return rows


def table_edits(rows: List[EditRow]) -> str:
    lines = ["| | without `--include-edits` | with it |", "|---|---|---|"]

    def cell(c: Cell) -> str:
        if not c.samples:
            return "—"
        return (f"{spread(c.requests)} req · {spread(c.points)} pts · "
                f"{fmt_ms(statistics.median(c.seconds))} ms "
                f"({spread(c.seconds, fmt_ms)})")
    for r in rows:
        lines.append(f"| {r.what} | {cell(r.plain)} | {cell(r.flagged)} |")
    return "\n".join(lines)


def table_settle(rows: List[SettleRow]) -> str:
    lines = ["| event | the check that sees it | the next check (after the confirm) |",
             "|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.event} | {r.seen.requests} req · {r.seen.points} pts | "
                     f"{r.measured.requests} req · {r.measured.points} pts · "
                     f"{', '.join(map(str, r.measured.statuses))} |")
    return "\n".join(lines)


def fmt_bytes(n: float) -> str:
    if n < 1000:
        return f"{n:.0f} B"
    if n < 1_000_000:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1_000_000:.1f} MB"


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


def spread(values: List[int], fmt: Callable[[float], str] = str) -> str:
    lo, hi = fmt(min(values)), fmt(max(values))
    return lo if lo == hi else f"{lo}–{hi}"


def fmt_cell(cell: Cell) -> str:
    t = cell.seconds
    return (f"{spread(cell.requests)} req · {spread(cell.points)} pts · "
            f"{spread(cell.nbytes, fmt_bytes)} · {fmt_ms(statistics.median(t))} ms "
            f"({fmt_ms(min(t))}–{fmt_ms(max(t))})")


def floor_text(sc: Scenario) -> str:
    return f"{sc.floor_requests} req · {sc.floor_points} pts"


def table_issues(cells: Dict[Tuple[int, str, str], Cell], sizes: Sequence[int],
                 columns: Sequence[str]) -> str:
    head = ["comments", "scenario", "floor"] + [COLUMN_TITLES[c] for c in columns]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---:", "---", "---"] + ["---"] * len(columns)) + "|"]
    for size in sizes:
        for sc in SCENARIOS:
            row = [f"{size:,}", sc.title, floor_text(sc)]
            row += [fmt_cell(cells[(size, sc.key, c)]) for c in columns]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def bundle_vs_floor(cells: Dict[Tuple[int, str, str], Cell], sizes: Sequence[int]) -> List[str]:
    """Rows where the bundle spends more than the floor, and by how much."""
    notes = []
    for size in sizes:
        for sc in SCENARIOS:
            cell = cells.get((size, sc.key, "bundle"))
            if cell is None:
                continue
            req, pts = max(cell.requests), max(cell.points)
            if req > sc.floor_requests or pts > sc.floor_points:
                notes.append(f"{size:,} comments, {sc.title}: {req} requests / {pts} points "
                             f"against a floor of {sc.floor_requests} / {sc.floor_points}")
    return notes


def table_startup(times: Dict[Tuple[str, bool], List[float]],
                  profile: Optional[Dict[str, object]] = None) -> str:
    def cell(values: List[float]) -> str:
        return (f"{fmt_ms(statistics.median(values))} ({fmt_ms(min(values))}–"
                f"{fmt_ms(max(values))})")

    lines = ["| command (this venv's Python) | bytecode cached: median ms (min–max) | "
             "PYTHONDONTWRITEBYTECODE=1, as in this sandbox |", "|---|---:|---:|"]
    for label, _ in STARTUP_COMMANDS:
        lines.append(f"| `{label}` | {cell(times[(label, True)])} | "
                     f"{cell(times[(label, False)])} |")
    if profile:
        poll = profile["poll"]  # type: ignore[index]
        lines.append(f"| no-change poll (`check_issue_updates.py`, one request, 304) | "
                     f"{cell(poll[True])} | {cell(poll[False])} |")
    return "\n".join(lines)


def table_handoff(rows: List[HandoffRow]) -> str:
    def cell(s: Sample) -> str:
        return f"{s.requests} req · {s.bytes:,} B"

    lines = ["| prior comments | cycle | read | comments on the issue | full conversation "
             "(`--all --max-pages 100`) | hand-off (`handoff.fetch`, `--comment-id`) | "
             "`--since-comment-id` (previous comment) | full ÷ hand-off bytes |",
             "|---:|---:|---|---:|---|---|---|---:|"]
    for r in rows:
        lines.append(f"| {r.prior:,} | {r.cycle} | {r.read} | {r.conversation:,} | "
                     f"{cell(r.full)} | {cell(r.handoff)} | {cell(r.since)} | "
                     f"{r.full.bytes / r.handoff.bytes:,.0f}× |")
    return "\n".join(lines)


def handoff_findings(rows: List[HandoffRow]) -> List[str]:
    ho = [r.handoff for r in rows]
    notes = [
        f"Hand-off: requests per read {spread([s.requests for s in ho])}, rate-limit points "
        f"{spread([s.points for s in ho])}; stdout {min(s.bytes for s in ho):,}"
        f"–{max(s.bytes for s in ho):,} B whatever the conversation's length "
        f"({', '.join(f'{p:,}' for p in sorted({r.prior for r in rows}))} prior comments).",
        f"`--since-comment-id`: {spread([r.since.requests for r in rows])} requests per read "
        f"(stateless: it locates the id from the end of the list), "
        f"{min(r.since.bytes for r in rows):,}–{max(r.since.bytes for r in rows):,} B.",
        f"Full conversation: {spread([r.full.requests for r in rows])} requests, "
        f"{fmt_bytes(min(r.full.bytes for r in rows))}–{fmt_bytes(max(r.full.bytes for r in rows))}"
        " per read.",
        f"Each post (manage_issue_comment.py create): requests "
        f"{spread([r.post_requests for r in rows])}.",
    ]
    for prior in sorted({r.prior for r in rows}):
        mine = [r for r in rows if r.prior == prior]
        full = sum(r.full.bytes for r in mine)
        hand = sum(r.handoff.bytes for r in mine)
        notes.append(f"{prior:,} prior comments, all {len(mine)} reads: full "
                     f"{fmt_bytes(full)} in {sum(r.full.requests for r in mine)} requests, "
                     f"hand-off {fmt_bytes(hand)} in {sum(r.handoff.requests for r in mine)} "
                     f"requests: {full / hand:,.0f}× fewer bytes")
    return notes


def fmt_rss(kb: Optional[int]) -> str:
    return "—" if kb is None else f"{kb / 1024:.1f} MiB"


def fmt_wire(ws: List[Wire]) -> str:
    t = [w.seconds for w in ws]
    gql = spread([w.graphql for w in ws])
    points = spread([w.points for w in ws]) + (f" pts ({gql} GraphQL)" if gql != "0" else " pts")
    return (f"{spread([w.requests for w in ws])} req · {points} · "
            f"{spread([w.wire for w in ws], fmt_bytes)} from GitHub · "
            f"{spread([w.stdout for w in ws], fmt_bytes)} stdout · "
            f"{fmt_ms(statistics.median(t))} ms ({fmt_ms(min(t))}–{fmt_ms(max(t))})")


def table_pr(cells: Dict[Tuple[str, str], List[Wire]], shape: Tuple[int, int, int],
             columns: Sequence[str]) -> str:
    head = ["round", "contract (section 12)"] + [PR_TITLES[c] for c in columns]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---", "---"] + ["---"] * len(columns)) + "|"]
    for key, title in PR_ROUNDS:
        row = [title, pr_bound(key, shape[1])]
        row += [fmt_wire(cells[(key, c)]) for c in columns]
        lines.append("| " + " | ".join(row) + " |")
    totals = ["all four rounds (median run)", "—"]
    for c in columns:
        per_run = [sum(cells[(key, c)][i].seconds for key, _ in PR_ROUNDS)
                   for i in range(len(cells[(PR_ROUNDS[0][0], c)]))]
        first = [cells[(key, c)][0] for key, _ in PR_ROUNDS]
        totals.append(f"{sum(w.requests for w in first)} req · "
                      f"{sum(w.points for w in first)} pts · "
                      f"{fmt_bytes(sum(w.wire for w in first))} from GitHub · "
                      f"{fmt_bytes(sum(w.stdout for w in first))} stdout · "
                      f"{fmt_ms(statistics.median(per_run))} ms")
    lines.append("| " + " | ".join(totals) + " |")
    return "\n".join(lines)


def pr_findings(cells: Dict[Tuple[str, str], List[Wire]], shape: Tuple[int, int, int],
                columns: Sequence[str]) -> List[str]:
    notes = []
    reviews = shape[1]
    if "bundle" in columns:
        for key, title in PR_ROUNDS:
            bound = pr_bound_requests(key, reviews)
            ws = cells[(key, "bundle")]
            # section 12's bounds count REST requests; the thread-state query comes on top
            req = max(w.requests - w.graphql for w in ws)
            statuses = sorted({s for w in ws for s in w.statuses})
            if key == "idle":
                notes.append(
                    f"No-change poll on {reviews} reviews: {req} requests, answered "
                    f"{', '.join(map(str, statuses))}, {max(w.points for w in ws)} points; "
                    f"section 12 allows {bound} there (2 up to 99 reviews, one more conditional "
                    f"request per further 100)."
                    + (" Above the bound." if req > bound else ""))
            elif bound is not None and req > bound:
                scaled = bound + reviews // 100
                notes.append(
                    f"Above section 12's bound: {title}: {req} requests against at most "
                    f"{bound} REST" + (f" ({scaled} if one more conditional request per further 100 "
                                  "reviews applied here too, as for the no-change poll)"
                                  if reviews >= 100 else "")
                    + f": {ws[0].breakdown()}.")
        worse = []
        for key, title in PR_ROUNDS:
            mine = cells[(key, "bundle")]
            for other in columns:
                if other == "bundle":
                    continue
                theirs = cells[(key, other)]
                what = [label for label, get in (
                    ("requests", lambda w: w.requests), ("points", lambda w: w.points),
                    ("bytes from GitHub", lambda w: w.wire), ("stdout bytes", lambda w: w.stdout))
                    if max(map(get, mine)) > min(map(get, theirs))]
                if statistics.median(w.seconds for w in mine) > statistics.median(
                        w.seconds for w in theirs):
                    what.append("median time")
                if what:
                    worse.append(f"{title} against {PR_TITLES[other]}: more {', '.join(what)}")
        notes += ([f"Where the bundle is not better: {'; '.join(worse)}."] if worse else
                  ["The bundle is ahead of both baselines on every round in requests, points, "
                   "bytes and time."])
    return notes


def table_wait(res: WaitResult) -> str:
    def row(label: str, w: Optional[Wire]) -> str:
        if w is None:
            return f"| {label} | gh not installed | | | | | |"
        return (f"| {label} | {w.requests} | {w.points} | {fmt_bytes(w.wire)} | "
                f"{fmt_bytes(w.stdout)} | {fmt_rss(w.rss_kb)} | {w.seconds:.1f} s |")

    b = res.bundle
    reply_at = WAIT_REPLY_AT // LOOP_SLEEP
    lines = ["| client | requests | points | bytes from GitHub | stdout | peak RSS | wall time "
             "(scaled) |", "|---|---:|---:|---:|---:|---:|---:|",
             row(f"`check_issue_updates.py --issue N --wait {WAIT_SECONDS} --poll-interval "
                 f"{WAIT_INTERVAL}` (woke at poll {b.polls}, `waited_seconds` {b.waited:g}; "
                 f"{b.statuses.count(304)} of its requests answered 304)", b),
             row(f"`sleep {LOOP_SLEEP}` + `gh api --paginate` loop, stopping at the reply "
                 f"({reply_at} iterations)", res.loop_to_reply),
             row(f"the same loop run to the end ({LOOP_ITERATIONS} iterations)", res.loop_all)]
    return "\n".join(lines)


def table_flat(res: WaitResult) -> str:
    lines = ["| idle wait, nothing new | polls scheduled | polls made | requests | statuses | "
             "points | peak RSS | time scale | wall time |",
             "|---|---:|---:|---:|---|---:|---:|---:|---:|"]
    for (polls, scale), w in zip(res.flat_runs, res.flat):
        statuses = ", ".join(f"{w.statuses.count(s)} × {s}" for s in sorted(set(w.statuses)))
        lines.append(f"| `--wait {(polls - 1) * FLAT_INTERVAL} --poll-interval "
                     f"{FLAT_INTERVAL}` | {polls} | {w.polls} | {w.requests} | {statuses} | "
                     f"{w.points} | {fmt_rss(w.rss_kb)} | × {scale:g} | {w.seconds:.1f} s |")
    return "\n".join(lines)


def wait_findings(res: WaitResult) -> List[str]:
    b, few, most = res.bundle, res.flat[0], res.flat[-1]
    notes = [
        f"Time is scaled: the test-only GH_MONITOR_TEST_TIME_SCALE={res.scale:g} multiplies every "
        f"duration of the wait, so `--wait {WAIT_SECONDS}` would take "
        f"{WAIT_SECONDS * res.scale:g} s and its {WAIT_INTERVAL} s interval "
        f"{WAIT_INTERVAL * res.scale:g} s (`waited_seconds` stays nominal); the loop's `sleep "
        f"{LOOP_SLEEP}` is scaled the same ({LOOP_SLEEP * res.scale:g} s). Wall times are of the "
        "scaled runs; requests, points and bytes are what the unscaled runs would send.",
        f"The reply (one comment, {res.comments:,} before it) arrives at minute 7: posted from a "
        f"request hook when the bundle's poll {res.reply_poll} (polls at 0, {WAIT_INTERVAL}, "
        f"{2 * WAIT_INTERVAL} s, …; so at {WAIT_REPLY_AT} s) reaches the fake, and by the loop "
        f"just before its read at minute {WAIT_REPLY_AT // LOOP_SLEEP}.",
        f"The loop is simulated in the benchmark: {LOOP_ITERATIONS} iterations of a scaled "
        f"`sleep {LOOP_SLEEP}` then the real `gh api --paginate repos/O/R/issues/N/comments` "
        "(gh adds per_page=100); an agent that stops when the reply appears runs "
        f"{WAIT_REPLY_AT // LOOP_SLEEP} of them, a fixed loop all {LOOP_ITERATIONS}. Its peak RSS "
        "is the largest gh process's.",
        "Peak RSS: ru_maxrss of the measured process (the bundle's Python script, or each gh), "
        "spawned by a small `python -S` wrapper that reports RUSAGE_CHILDREN (spawned from "
        "the benchmark, a child would inherit its high-water mark, the fake's data included); "
        f"the wrapper's floor, /bin/true through it, is {fmt_rss(res.floor_kb)}.",
    ]
    if res.loop_all is not None and res.loop_to_reply is not None:
        loop = res.loop_to_reply
        notes.append(f"To the reply: the bundle {b.requests} requests and {b.points} "
                     f"point{'' if b.points == 1 else 's'} "
                     f"against {loop.requests} and {loop.points}; {fmt_bytes(b.wire)} against "
                     f"{fmt_bytes(loop.wire)} from GitHub; {fmt_bytes(b.stdout)} against "
                     f"{fmt_bytes(loop.stdout)} for the agent to read.")
    scheduled = [n for n, _ in res.flat_runs]
    notes.append(
        f"Memory flat: section 13 bounds a wait to S ≤ 3600 and P ≥ 5, so at most "
        f"{3600 // 5 + 1} polls (at 0, 5, …, 3600 s; 720 intervals); 1,000 polls is beyond the "
        f"bounds, and {scheduled[-1]} scheduled is what was measured ({most.polls} made). "
        f"Peak RSS {fmt_rss(few.rss_kb)} for {few.polls} polls, "
        f"{fmt_rss(most.rss_kb)} for {most.polls} "
        f"({(most.rss_kb or 0) - (few.rss_kb or 0):+,} KiB); every request answered 304, "
        "0 points.")
    if any(w.polls != n for w, n in zip(res.flat, scheduled)):
        notes.append("Fewer polls made than scheduled: a poll that runs past the next one's "
                     "time (the first one imports more; a busy machine) makes the wait skip "
                     "that one, as it would unscaled.")
    notes.append("Requests, points and bytes are deterministic; times and RSS vary with the "
                 "machine's load.")
    return notes


def startup_findings(times: Dict[Tuple[str, bool], List[float]],
                     profile: Dict[str, object]) -> List[str]:
    def med(label: str, cached: bool = True) -> float:
        return statistics.median(times[(label, cached)]) * 1000

    poll_times: Dict[bool, List[float]] = profile["poll"]  # type: ignore[assignment]
    poll = statistics.median(poll_times[True]) * 1000
    poll_nc = statistics.median(poll_times[False]) * 1000
    bare = med("python -c pass")
    req = med('python -c "import requests"') - bare
    helper = med('python -c "import github_issue_comments"') - bare
    stdlib = med('python -c "import http.client"') - bare
    check_help = med("check_issue_updates.py --help")
    rest = poll - check_help - req
    helps = [label for label, _ in STARTUP_COMMANDS if label.endswith("--help")]
    uncached_extra = statistics.mean(med(label, False) - med(label) for label in helps)
    notes = [
        f"Bytecode cached: a bare interpreter starts in {bare:.0f} ms; `import requests` adds "
        f"{req:.0f} ms; importing the helper (github_issue_comments, which does not import "
        f"requests) adds {helper:.0f} ms; `check_issue_updates.py --help` takes "
        f"{check_help:.0f} ms in all.",
        (f"A no-change poll takes {poll:.0f} ms: interpreter {bare:.0f} + helper imports and "
         f"argparse {check_help - bare:.0f} + `import http.client` {stdlib:.0f} + the rest "
         f"(the one request answered 304, the state files, JSON out). It does not import "
         f"requests: the probe, a conditional GET sent before anything else, goes through "
         f"http.client, and requests ({req:.0f} ms to import, "
         f"{100 * req / poll:.0f}% of the poll) is loaded only when there is more to read."
         if not profile["requests_children"] else
         f"A no-change poll takes {poll:.0f} ms: interpreter {bare:.0f} + helper imports and "
         f"argparse {check_help - bare:.0f} + `import requests` {req:.0f} + everything else "
         f"(the one request answered 304, the state files, JSON out) "
         + (f"{rest:.0f} ms" if rest >= 10 else "within the noise of these differences")
         + f". `import requests` is {100 * req / poll:.0f}% of it"
         + (": it dominates the poll." if req >= poll / 2 else
            ": the largest single part." if req >= max(bare, check_help - bare, rest) else
            ".")
         + f" `import http.client` (what a standard-library transport would load) adds "
         f"{stdlib:.0f} ms."),
        f"With PYTHONDONTWRITEBYTECODE=1 (this sandbox's environment; also a bundle installed "
        f"where it cannot write __pycache__) the bundle's own modules are compiled from source "
        f"on every run: the scripts' `--help` takes {uncached_extra:+.0f} ms (mean of the five "
        f"medians); a no-change poll takes {poll_nc:.0f} ms against {poll:.0f}.",
    ]
    total = int(profile["total_us"]) / 1000  # type: ignore[call-overload]
    top = ", ".join(f"{name} {us / 1000:.0f}" for us, name in profile["top"])  # type: ignore
    kids = ", ".join(f"{name} {us / 1000:.0f}"
                     for us, name in profile["requests_children"])  # type: ignore
    heavy = ", ".join(f"{name} {us / 1000:.1f}"
                      for us, name in profile["requests_heaviest"])  # type: ignore
    notes.append(f"`-X importtime` of a no-change poll (bytecode cached; the least of "
                 f"{len(poll_times[True])} runs; the tool inflates times): {total:.0f} ms of "
                 f"imports; top level, cumulative ms: {top}."
                 + (f" Inside `requests`, cumulative: {kids}; by own time, the heaviest: "
                    f"{heavy}." if kids else " requests is not among them."))
    return notes


# -- main ---------------------------------------------------------------------------------------------

# -- part 7: a review answered in threads (seed 003, section 15) -----------------------------------

REVIEW_THREADS = 300  # threads on the PR before the first cycle
REVIEW_CYCLES = 3
NOTES_PER_REVIEW = 3
CYCLE_COLUMNS = ("round", "handoff", "snapshot", "gh")
CYCLE_TITLES = {"round": "round (`check_issue_updates.py --pr N --ignore-author @me`, confirm)",
                "handoff": "hand-off (`handoff.fetch`, by id)",
                "snapshot": "`get_pr_comments.py --format json`",
                "gh": "`gh api --paginate`, the 3 lists"}
CYCLE_READS = (("review", "author reads the review"),
               ("replies", "reviewer reads the replies"))


@dataclass
class CycleRow:
    cycle: int
    read: str
    cells: Dict[str, Wire]
    writes: int  # requests of the writes before this read (the review, or the replies)


def review_pull(h: Harness, threads: int) -> int:
    """A PR by `author` with `threads` review threads (10 a review, by three reviewers)."""
    fake = h.fake
    h._issues += 1
    number = h._issues
    fake.add_pull(OWNER, NAME, number, title="Rework the transport", user="author")
    h.ids[number] = fake.add_comments(OWNER, NAME, number, 20, body=body)
    for r in range(-(-threads // 10)):
        n = min(10, threads - 10 * r)
        started = fake.start_review(OWNER, NAME, number, ("bob", "carol", "dave")[r % 3],
                                    comments=[{"path": f"src/module_{(r + i) % 17}.py",
                                               "line": 10 + 7 * i, "body": body(10 * r + i)}
                                              for i in range(n)])
        fake.advance(60)
        fake.submit_review(started["id"], "COMMENTED", body=body(r) if r % 2 else "")
    fake.advance(60)
    return number


def measure_review_cycles(h: Harness, threads: int = REVIEW_THREADS,
                          cycles: int = REVIEW_CYCLES,
                          columns: Sequence[str] = CYCLE_COLUMNS,
                          progress: Callable[[str], None] = lambda s: None) -> List[CycleRow]:
    """Seed 003's three-cycle review with real review objects: the reviewer submits a review
    with inline comments and hands over `reviewId`; the author reads it, replies in each thread
    naming the commit and hands back the reply ids; the reviewer reads the replies and resolves
    the threads, by the ids its round's `threads` gave. Each read four ways."""
    progress(f"a review answered in threads, {threads} threads")
    number = review_pull(h, threads)
    people = {"reviewer": h.token("reviewer"), "author": h.token("author")}
    roots = {who: h.root() for who in people}
    for who in people:  # each agent's first look, confirmed (not measured)
        pr_round(h, number, people[who], roots[who], "--ignore-author", "@me")
    h.fake.clear_log()
    tmp = h.root()
    rows: List[CycleRow] = []
    for cycle in range(1, cycles + 1):
        notes = [{"path": "src/transport.py", "line": 20 + 10 * i + cycle,
                  "body": f"Cycle {cycle}, note {i}: {REVIEW.format(n=cycle)}"}
                 for i in range(NOTES_PER_REVIEW)]
        (tmp / "notes.json").write_text(json.dumps(notes))
        posted = h.script("manage_issue_comment.py", "--action", "review", "--repo", REPOSITORY,
                          "--pr", number, "--event", "REQUEST_CHANGES", "--body-file", "-",
                          "--comments-file", tmp / "notes.json", token=people["reviewer"],
                          stdin=REVIEW.format(n=cycle).encode()).json
        writes = len(h.fake.requests)
        h.fake.clear_log()
        note_ids = [int(c) for c in posted["commentIds"]]
        want = {"review": note_ids}
        cells = {c: read_cycle(h, number, "review", c, people["author"], roots["author"],
                               [posted["handoff"]["fetch"]], note_ids, note_ids)
                 for c in columns}
        rows.append(CycleRow(cycle, CYCLE_READS[0][1], cells, writes))
        replies = []
        for i, cid in enumerate(note_ids):
            out = h.script("manage_issue_comment.py", "--action", "reply", "--repo", REPOSITORY,
                           "--pr", number, "--review-comment-id", cid, "--body-file", "-",
                           token=people["author"],
                           stdin=f"Fixed in 3f2c1a{cycle}{i}: {REPLY.format(n=cycle)}".encode())
            replies.append(out.json)
        writes = len(h.fake.requests)
        h.fake.clear_log()
        want["replies"] = [int(r["commentId"]) for r in replies]
        cells = {c: read_cycle(h, number, "replies", c, people["reviewer"], roots["reviewer"],
                               [r["handoff"]["fetch"] for r in replies], want["replies"],
                               note_ids)
                 for c in columns}
        rows.append(CycleRow(cycle, CYCLE_READS[1][1], cells, writes))
        # the reviewer resolves each thread by the id its round handed it
        for thread in h.last_threads or []:
            h.script("manage_issue_comment.py", "--action", "resolve", "--repo", REPOSITORY,
                     "--thread-id", thread["id"], token=people["reviewer"])
        h.fake.clear_log()
    return rows


def read_cycle(h: Harness, number: int, key: str, column: str, token: str, root: Path,
               fetches: List[str], want: List[int], thread_roots: List[int]) -> Wire:
    """One read of a cycle: the new inline comments `want` (in the threads of
    `thread_roots`), one way."""
    fake = h.fake
    inline = len(fake.review_comment_ids(OWNER, NAME, number))

    def by_round() -> int:
        nbytes, doc = pr_round(h, number, token, root, "--ignore-author", "@me")
        got = [c["id"] for c in doc["new_review_comments"]]
        roots = [t["root_comment_id"] for t in doc["threads"] or []]
        if got != want or roots != thread_roots or any(t["is_resolved"]
                                                         for t in doc["threads"]):
            raise BenchError(f"cycle read {key}: the round returned {got} with threads "
                             f"{roots}; expected {want}, each with its unresolved thread")
        h.last_threads = doc["threads"]
        return nbytes

    def by_handoff() -> int:
        nbytes, got = 0, []
        for fetch in fetches:
            out = h._run(shlex.split(fetch), h.script_env(token), cwd=REPO)
            got += [c["id"] for c in h.report(out.json)["review_comments"]]
            nbytes += len(out.stdout)
        if got != want:
            raise BenchError(f"handoff.fetch returned {got}, not {want}")
        return nbytes

    def snapshot() -> int:
        out = h.script("get_pr_comments.py", "--repo", REPOSITORY, "--pr", number,
                       "--format", "json", "--include-resolved", token=token)
        doc = out.json
        ids = {c["id"] for t in doc["reviewThreads"] for c in t["comments"]}
        if len(ids) != inline or not set(want) <= ids:
            raise BenchError(f"get_pr_comments.py read {len(ids)} inline comments of {inline}")
        return len(out.stdout)

    def paginate() -> int:
        nbytes, got = 0, set()
        for path in PR_LISTS:
            out = h.gh(token, f"repos/{REPOSITORY}/{path.format(n=number)}", True)
            got |= {c.get("id") for c in json_items(out.stdout)}
            nbytes += len(out.stdout)
        if not set(want) <= got:
            raise BenchError("gh api --paginate missed the new inline comments")
        return nbytes

    action = {"round": by_round, "handoff": by_handoff, "snapshot": snapshot,
              "gh": paginate}[column]
    return measure_wire(h, token, action)


def fmt_cycle(w: Wire) -> str:
    gql = f" ({w.graphql} GraphQL)" if w.graphql else ""
    return f"{w.requests} req{gql} · {fmt_bytes(w.stdout)}"


def table_cycles(rows: List[CycleRow], columns: Sequence[str]) -> str:
    head = ["cycle", "read"] + [CYCLE_TITLES[c] for c in columns]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---:", "---"] + ["---"] * len(columns)) + "|"]
    for r in rows:
        lines.append("| " + " | ".join([str(r.cycle), r.read]
                                       + [fmt_cycle(r.cells[c]) for c in columns]) + " |")
    totals = ["all", f"{len(rows)} reads"]
    for c in columns:
        ws = [r.cells[c] for r in rows]
        totals.append(f"{sum(w.requests for w in ws)} req · "
                      f"{fmt_bytes(sum(w.stdout for w in ws))}")
    lines.append("| " + " | ".join(totals) + " |")
    return "\n".join(lines)


def cycle_findings(rows: List[CycleRow], columns: Sequence[str], threads: int) -> List[str]:
    def total(c: str, get: Callable[[Wire], int]) -> int:
        return sum(get(r.cells[c]) for r in rows)

    notes = []
    if "round" in columns:
        gql = [r.cells["round"].graphql for r in rows]
        notes.append(f"Rounds: {spread([r.cells['round'].requests for r in rows])} requests a "
                     f"read, of them {spread(gql)} GraphQL for the thread state (at most "
                     f"{-(-threads // 100)} on {threads}+ threads: one per 100), "
                     f"{fmt_bytes(min(r.cells['round'].stdout for r in rows))}–"
                     f"{fmt_bytes(max(r.cells['round'].stdout for r in rows))} stdout; each "
                     "holds the new comments with their `thread_id` and `threads`, whose ids "
                     "the reviewer resolved by.")
    for other in ("snapshot", "gh"):
        if other in columns and "round" in columns:
            notes.append(f"Against {CYCLE_TITLES[other]}: "
                         f"{total(other, lambda w: w.stdout) / total('round', lambda w: w.stdout):,.0f}"
                         f"× the stdout bytes, {total(other, lambda w: w.requests)} requests "
                         f"against {total('round', lambda w: w.requests)} over the "
                         f"{len(rows)} reads.")
    if "handoff" in columns:
        notes.append("Hand-offs by id (`--review-id`, `--review-comment-id`): "
                     f"{spread([r.cells['handoff'].requests for r in rows])} requests a read, no "
                     "GraphQL and no thread state (reads by id carry none): the round is the "
                     "read that says what is resolved.")
    reviews = [r.writes for r in rows if r.read == CYCLE_READS[0][1]]
    replies = [r.writes for r in rows if r.read == CYCLE_READS[1][1]]
    notes.append(f"Writes: each review {spread(reviews)} requests (the POST, then its comment "
                 f"ids); the {NOTES_PER_REVIEW} replies {spread(replies)} requests together "
                 "(each reads its comment first, then posts). The rounds re-read the agent's "
                 "own review or replies once, left out by `--ignore-author @me` and passed by "
                 "the confirm (2 + r of section 12 counts them).")
    return notes


def tool_version(cmd: List[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, check=False, timeout=30).stdout
        return out.decode().splitlines()[0].strip()
    except (OSError, IndexError, subprocess.SubprocessError):
        return "not installed"


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=RUNS, help="runs per cell (default 5)")
    p.add_argument("--sizes", default=",".join(map(str, SIZES)),
                   help="issue sizes (default 100,1000,10000)")
    p.add_argument("--no-handoff", action="store_true", help="skip the hand-off measurement")
    p.add_argument("--pr-runs", type=int, default=PR_RUNS,
                   help=f"runs of the pull-request rounds (default {PR_RUNS})")
    p.add_argument("--no-pr", action="store_true", help="skip the pull-request rounds")
    p.add_argument("--no-wait", action="store_true", help="skip the --wait measurement")
    p.add_argument("--no-review", action="store_true",
                   help="skip the review answered in threads (part 7)")
    p.add_argument("--floor-runs", type=int, default=FLOOR_RUNS,
                   help=f"paired runs of the poll against its floor (default {FLOOR_RUNS})")
    p.add_argument("--no-inbox", action="store_true",
                   help="skip the inbox over 1, 10 and 100 conversations (part 8)")
    p.add_argument("--inbox-sizes", default=",".join(map(str, INBOX_SIZES)),
                   help="numbers of followed conversations (default 1,10,100)")
    p.add_argument("--no-edits", action="store_true",
                   help="skip the cost of --include-edits (part 9)")
    p.add_argument("--no-events", action="store_true",
                   help="skip the idle inbox with --include-events")
    p.add_argument("--no-checks", action="store_true",
                   help="skip the cost of --include-checks")
    p.add_argument("--only-checks", action="store_true",
                   help="measure only the cost of --include-checks and print its table")
    p.add_argument("--out", default=str(RESULTS), help="Markdown file (default bench-results.md)")
    args = p.parse_args(argv)
    if args.only_checks:
        tmp = Path(tempfile.mkdtemp(prefix="ghmon-bench-"))
        fake = FakeGitHub(html_base="https://github.com").start()
        try:
            h = Harness(fake, tmp)
            h.warm_up()
            print(table_checks(measure_checks(h)))
        finally:
            fake.stop()
            shutil.rmtree(tmp, ignore_errors=True)
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s]
    columns = [c for c in COLUMNS if c != "gh" or shutil.which("gh")]
    started = time.perf_counter()
    load = os.getloadavg()

    def progress(text: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f} s] {text}", file=sys.stderr, flush=True)

    tmp = Path(tempfile.mkdtemp(prefix="ghmon-bench-"))
    fake = FakeGitHub(html_base="https://github.com").start()
    try:
        h = Harness(fake, tmp)
        h.warm_up()
        cells = measure_issues(h, sizes, args.runs, columns, progress)
        progress("start-up")
        startup = measure_startup(h)
        profile = profile_idle_poll(h, h.new_issue(max(sizes)))
        progress("the no-change poll against its floor")
        floor = measure_floor(h, runs=args.floor_runs)
        handoff = [] if args.no_handoff else measure_handoff(h, progress=progress)
        pr_columns = [c for c in PR_COLUMNS if c != "gh" or shutil.which("gh")]
        pr = ({} if args.no_pr else
              measure_pr(h, runs=args.pr_runs, columns=pr_columns, progress=progress))
        waited = (None if args.no_wait else
                  measure_wait(h, gh=bool(shutil.which("gh")), progress=progress))
        progress("after events")
        settled = measure_settle(h)
        edit_rows = [] if args.no_edits else measure_edits(h, progress=progress)
        cycle_columns = [c for c in CYCLE_COLUMNS if c != "gh" or shutil.which("gh")]
        cycles = ([] if args.no_review else
                  measure_review_cycles(h, columns=cycle_columns, progress=progress))
        inbox_columns = [c for c in INBOX_COLUMNS if c != "gh" or shutil.which("gh")]
        inbox = ([] if args.no_inbox else
                 measure_inbox(h, [int(n) for n in args.inbox_sizes.split(",") if n],
                               inbox_columns, progress=progress))
        progress("an idle inbox of pull requests with --include-events")
        events = [] if args.no_events else measure_events_inbox(h)
        progress("the cost of --include-checks")
        checks = [] if args.no_checks else measure_checks(h)
    finally:
        fake.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.perf_counter() - started

    doc = ["# make bench", "",
           f"{os.cpu_count()} CPUs, {platform.python_implementation()} {platform.python_version()}"
           f", {tool_version(['gh', '--version'])}; the fake GitHub (tests/fakegithub) in the "
           "benchmark's process on 127.0.0.1, no GitHub access. Comment bodies of about 300 "
           "characters. Wall time includes each client's process start-up; Python children "
           "run with their bytecode cached (PYTHONPYCACHEPREFIX in a temp dir, warmed up "
           f"first). Load average at start {load[0]:.1f}, at the end "
           f"{os.getloadavg()[0]:.1f} (other work on the machine adds noise to times, not to "
           "counts).", "",
           "## 1. Following one issue", "",
           f"Each cell: requests · rate-limit points (`x-ratelimit-used` after − before; a 304 "
           f"costs 0) · bytes the caller reads (stdout) · wall time, median of {args.runs} "
           "runs (min–max), runs interleaved across columns.", "",
           table_issues(cells, sizes, columns), "",
           "- **this bundle**: the scripts as subprocesses, as an agent runs them: "
           "`check_issue_updates.py` then, when it returned comments, "
           "`get_latest_comments.py --confirm-updates --snapshot-id S` (catch-up: `--limit 100`, "
           "rounds until `more_available` is false); a fresh `--root` per run, set up by a "
           "confirmed first look for the polls. By id: `get_latest_comments.py --comment-id ID`.",
           "- **`gh api --paginate`** (real gh, through the fake as github.localhost; gh adds "
           "per_page=100): reads the whole list every time, the only way to see what is new; "
           "by id `gh api repos/o/r/issues/comments/ID`.",
           "- **naive `requests` paging**: `per_page=100`, following `Link: rel=next`, printing "
           "everything; by id one GET.",
           "- **floor**: 2 requests for a first look (count, then the tail), 1 request and 0 "
           "points for a no-change poll, about ⌈new/100⌉ for new comments, 1 by id.", ""]
    over = bundle_vs_floor(cells, sizes) if "bundle" in columns else []
    if over:
        doc += ["Where the bundle spends more than the floor:", ""]
        doc += [f"- {line}" for line in over] + [""]
    doc += ["## 2. Start-up: what imports cost", "",
            f"Median of {STARTUP_RUNS} runs each, interleaved.", "",
            table_startup(startup, profile), ""]
    doc += [f"- {line}" for line in startup_findings(startup, profile)] + [""]
    doc += ["### The no-change poll against its floor (section 20)", "",
            "The floor (`tests/poll_floor.py`) does the poll's least work with the standard "
            "library: one conditional GET through `http.client` answered 304, the JSON state "
            "file read, one atomic write with fsync, one JSON line printed. After a warm-up, "
            "the poll, the floor and `python -c pass` run back to back, their order rotating; "
            "ratios are medians of the per-round ratios.", "",
            table_floor(floor), ""]
    if handoff:
        doc += ["## 3. The hand-off: context fetched per read (seed 003)", "",
                "A three-cycle review: the reviewer posts (`manage_issue_comment.py --action "
                "create --body-file -`) and hands `handoff` over; the author reads it and "
                "answers the same way; three times. Each read three ways: the full "
                "conversation, exactly `handoff.fetch` (run from the bundle root), and "
                "`--since-comment-id` of the comment before it. Each cell: requests · stdout "
                "bytes.", "",
                table_handoff(handoff), ""]
        doc += [f"- {line}" for line in handoff_findings(handoff)] + [""]
    if pr:
        comments, reviews, inline = PR_SHAPE
        doc += ["## 4. A pull request's rounds (section 12)", "",
                f"A PR with {comments:,} conversation comments, {reviews} submitted reviews and "
                f"{inline:,} inline comments (COMMENTED reviews of about {INLINE_PER_REVIEW} "
                "inline comments each, the rest APPROVED or CHANGES_REQUESTED with a body; "
                "bodies of about 300 characters), built with the fake's bulk helpers, a fresh "
                f"one for each of {args.pr_runs} runs. Four rounds in order, each read by every "
                "column, interleaved. Each cell: requests · rate-limit points · response bytes "
                "the fake sent · stdout bytes the agent reads · wall time, median "
                f"(min–max) of {args.pr_runs} runs.", "",
                table_pr(pr, PR_SHAPE, pr_columns), "",
                "- **this bundle**: `check_issue_updates.py --pr N` (default `--limit 20`), "
                "then, when it returned anything, `get_latest_comments.py --pr N "
                "--confirm-updates --snapshot-id S` (0 requests); one `--root` for the four "
                "rounds.",
                "- **`get_pr_comments.py --format json`**: the snapshot an agent takes today "
                "each round (review threads by GraphQL, reviews and conversation by REST), "
                "everything every time.",
                "- **`gh api --paginate`**: the real gh over `/issues/N/comments`, "
                "`/pulls/N/reviews` and `/pulls/N/comments` each round (per_page=100).",
                "- **Points**: every request not answered 304 (REST; checked against "
                "`x-ratelimit-used` of the token's core bucket), plus 1 per GraphQL query (the "
                "fake charges 1 a query, GitHub at least 1; GraphQL has its own 5,000-point "
                "bucket). **Bytes from GitHub**: response bodies as sent (uncompressed). "
                "Requests and points are deterministic, bytes too but for a few with the ids "
                "and numbers of each run's PR; times vary with the machine's load.", ""]
        doc += [f"- {line}" for line in pr_findings(pr, PR_SHAPE, pr_columns)] + [""]
    if waited is not None:
        doc += ["## 5. Waiting for the reply (section 13)", "",
                f"An issue of {waited.comments:,} comments (GitHub's ceiling for a live "
                "conversation), a confirmed checkpoint at its newest; someone replies at "
                f"minute 7 of a 10-minute wait. Time × {waited.scale:g} "
                "(GH_MONITOR_TEST_TIME_SCALE, test-only).", "",
                table_wait(waited), "", table_flat(waited), ""]
        doc += [f"- {line}" for line in wait_findings(waited)] + [""]
    doc += ["## 6. After an event: what the next poll costs (section 14)", "",
            "Each row: the event, the check that sees it (its probe changed; nothing is "
            "returned), the confirm of that check, then the check measured. A 1,000-comment "
            "issue; a PR of 200 comments and 40 reviews.", "",
            table_settle(settled), ""]
    if cycles:
        doc += ["## 7. A review answered in threads (seed 003, section 15)", "",
                f"A pull request with {REVIEW_THREADS} review threads (and 20 conversation "
                f"comments); {REVIEW_CYCLES} cycles. The reviewer submits a REQUEST_CHANGES "
                f"review with {NOTES_PER_REVIEW} inline comments (`manage_issue_comment.py "
                "--action review`) and hands over `reviewId`; the author reads it, replies in "
                "each thread naming the commit (`--action reply`) and hands back the reply "
                "ids; the reviewer reads the replies, then resolves each thread by the `id` in "
                "its round's `threads` (`--action resolve`). Each read four ways; each cell: "
                "requests (of them GraphQL) · stdout bytes the agent reads.", "",
                table_cycles(cycles, cycle_columns), ""]
        doc += [f"- {line}" for line in cycle_findings(cycles, cycle_columns,
                                                       REVIEW_THREADS)] + [""]
    if inbox:
        doc += ["## 8. Many conversations: the inbox (section 18)", "",
                "Rounds followed in one work folder, all confirmed; nothing new. One idle "
                "poll three ways, then the inbox's idle 10-minute wait.", "",
                table_inbox(inbox, inbox_columns), "", table_inbox_wait(inbox), ""]
        doc += [f"- {line}" for line in inbox_findings(inbox, inbox_columns)] + [""]
    if edit_rows:
        doc += ["## 9. Edits since they were handled: the cost of `--include-edits` (section 19)",
                "",
                "Each round settled and confirmed first, with and without the flag (its own "
                f"state root); then {EDIT_RUNS} runs of each, interleaved. Each cell: requests "
                "(all answered 304 for the idle rows) · rate-limit points · wall time, median "
                "(min–max). The flag adds one conditional request per comment list: the "
                "`since` window's page.", "",
                table_edits(edit_rows), ""]
    if events:
        doc += ["## 11. What happened: the cost of `--include-events` (section 21)", "",
                f"An inbox of {EVENTS_PULLS} pull request rounds (each {INBOX_COMMENTS} "
                "comments, 3 reviews, 6 inline comments), every round confirmed with the flag; "
                "nothing new. One idle poll of the inbox command without and with the flag "
                "(median of 3 by requests). The flag adds two conditional requests per pull "
                "request: the events list's probe and the head branch's ref.", "",
                table_events(events), ""]
    if checks:
        doc += ["## 12. What CI said: the cost of `--include-checks` (section 23)", "",
                "A pull request (20 comments, 5 reviews, 10 inline comments) whose head's CI "
                "is done and confirmed: one idle poll without and with the flag (median of 3 by "
                "requests); the flag adds 1 + ⌈R/100⌉ + ⌈S/100⌉ conditional requests (the pull "
                "request, each page of check runs and of the combined status). Then a push and "
                f"a wait (`--wait 1800 --poll-interval 60`) while its CI runs for {CI_MINUTES} "
                "minutes, ended by `checks_settled`; the peers' way (Codex's gh-babysit-pr, the "
                "/autofix-pr commands) re-reads the pull request and every check page each "
                "minute, unconditionally: counted for the same number of polls (CI only; the "
                "bundle's figures include the round's comment and review probes, 2 a poll).",
                "",
                table_checks(checks), ""]
    doc += ["## 10. The test suite (section 20)", ""] + suite_time_lines() + [""]
    doc += [f"`make bench` ran in {elapsed:.0f} s.", ""]
    text = "\n".join(doc)
    print(text)
    Path(args.out).write_text(text, encoding="utf-8")
    progress(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
