"""A kind of news is one module (docs/reference.md, "A kind of news"): what adding one takes.

On a copy of the tree, a toy kind — an issue's title changes, `--include-titles` — is added
with exactly its module (streams/titles.py), one registration line (round/layouts.py) and its
flag at the face (the script's argument, the options record's field). Nothing else is edited:
the round returns a retitle once, the confirm applies it (and a retried confirm is already
applied; an older snapshot is refused), a write without the flag carries its cursor, an idle
poll is one 304, the inbox checks and confirms it, and a wait wakes on it. A kind that lacks
one of `Stream.HOOKS` fails when its module is imported, naming the kind; and each cursor
part's name is spelled in at most three modules of the package.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support import NAME, OWNER, REPO, SCRIPT_PYTHON, Run, script_env, state_dir

ISSUE = 5

TOY = '''"""A toy kind of news for tests/test_kinds.py: the issue's title, when it changes."""

from __future__ import annotations

from ..base.errors import ServerError
from .stream import PAST, SAME, Batch, Stream


class TitleStream(Stream):
    """The issue's title after a cursor `{title, version}`: a retitle is an item."""

    kind = "titles"
    flag = "include_titles"
    has_edits = False
    takes_filters = False
    shown = ("retitles",)
    active = False

    @staticmethod
    def same(a, b):
        return (a or {}).get("version") == (b or {}).get("version")

    @staticmethod
    def key(cursor):
        return (int((cursor or {}).get("version", -1)),)

    @staticmethod
    def valid_cursor(c):
        v = c.get("version") if isinstance(c, dict) else None
        return (isinstance(c, dict) and isinstance(c.get("title"), str)
                and isinstance(v, int) and not isinstance(v, bool) and v >= 0)

    @staticmethod
    def applied(stored, target):
        if target is None:
            return SAME if stored is None else PAST
        if stored is None:
            return None
        d = stored["version"] - target["version"]
        return SAME if d == 0 else (PAST if d > 0 else None)

    @staticmethod
    def valid_hint(hint):
        return (isinstance(hint, dict) and isinstance(hint.get("version"), int)
                and isinstance(hint.get("etag"), str))

    @staticmethod
    def hint_matches(hint, cursor):
        return cursor is not None and hint.get("version") == cursor.get("version")

    def read(self, previous, hint, limit, *, sharpen=True):
        if not self.active:
            return Batch(self.kind, cursor=previous, hint=hint)
        path = f"repos/{self.owner}/{self.repo}/issues/{self.number}"
        resp = self.client.request("GET", path, etag=(hint or {}).get("etag"),
                                   what="the issue")
        self.pages += 1
        if resp.status == 304:
            return Batch(self.kind, cursor=previous, hint=hint, not_modified=True)
        title = self.client.json_of(resp, "the issue").get("title")
        if not isinstance(title, str):
            raise ServerError("the issue: malformed response: no title")
        items = []
        if previous is None or title == previous["title"]:
            cursor = previous or {"title": title, "version": 0}
        else:
            items = [{"title": title, "was": previous["title"]}]
            cursor = {"title": title, "version": previous["version"] + 1}
        etag = resp.headers.get("etag")
        return Batch(self.kind, items=items, cursor=cursor,
                     hint={"version": cursor["version"], "etag": etag} if etag else None)

    def present(self, batch, max_body_chars, reveal_hidden, include_system):
        if not self.active:
            return {}, {}
        return {"retitles": list(batch.items)}, {}

    def cursor_after(self, items, previous):
        return previous
'''
REGISTRATION = '    Part("titles", "TitleStream", ("titles",)),\n'


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new))


@pytest.fixture
def toy_tree(tmp_path: Path) -> Path:
    """A copy of scripts/ with the toy kind: its module, one line, the flag at the face."""
    root = tmp_path / "tree"
    shutil.copytree(REPO / "scripts", root / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__"))
    pkg = root / "scripts" / "ghcomments"
    (pkg / "streams" / "titles.py").write_text(TOY)
    # one registration line: the issue layout's kinds
    _edit(pkg / "round" / "layouts.py", 'ISSUE_PARTS = (\n', 'ISSUE_PARTS = (\n' + REGISTRATION)
    # the flag at the face: the script's argument and the options record's field
    _edit(root / "scripts" / "check_issue_updates.py",
          '    g.add_argument("--include-events", action="store_true",',
          '    g.add_argument("--include-titles", action="store_true")\n'
          '    g.add_argument("--include-events", action="store_true",')
    _edit(pkg / "options.py", "    include_events: bool = False\n",
          "    include_events: bool = False\n    include_titles: bool = False\n")
    return root


def _run(tree: Path, script: str, *args, env) -> Run:
    proc = subprocess.run([SCRIPT_PYTHON, str(tree / "scripts" / script), *map(str, args)],
                          env=env, capture_output=True, timeout=120, check=False)
    return Run(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


class Toy:
    def __init__(self, fake, tree: Path, root: Path) -> None:
        self.fake, self.tree, self.root = fake, tree, root
        self.env = script_env(fake)

    def check(self, *args) -> Run:
        self.fake.clear_log()
        return _run(self.tree, "check_issue_updates.py", "--repo", f"{OWNER}/{NAME}",
                    "--issue", ISSUE, "--root", self.root, "--include-titles", *args,
                    env=self.env)

    def latest(self, *args) -> Run:
        self.fake.clear_log()
        return _run(self.tree, "get_latest_comments.py", "--repo", f"{OWNER}/{NAME}",
                    "--issue", ISSUE, "--root", self.root, *args, env=self.env)

    def checkpoint(self):
        return json.loads((state_dir(self.root) / f"{OWNER}-{NAME}-{ISSUE}.json").read_text())

    def statuses(self):
        return [q.status for q in self.fake.requests]


@pytest.fixture
def toy(fake, toy_tree, tmp_path):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE, title="First title")
    fake.add_comment(OWNER, NAME, ISSUE, body="hello", user="alice")
    return Toy(fake, toy_tree, tmp_path / "work")


def _ok(run: Run):
    assert run.code == 0, run
    return run.json


def test_the_toy_kind_is_read_confirmed_and_carried_with_no_other_edit(toy):
    toy.root.mkdir()
    first = _ok(toy.check())
    assert first["retitles"] == [] and first["recommended_checkpoint"]["titles"] == {
        "title": "First title", "version": 0}
    c = _ok(toy.latest("--confirm-updates", "--snapshot-id", first["snapshot_id"]))
    assert c["state_updated"] is True
    assert toy.checkpoint()["titles"] == {"title": "First title", "version": 0}

    idle = _ok(toy.check())  # nothing changed: the issue's probe and the comments', all 304
    assert idle["has_updates"] is False and set(toy.statuses()) == {304}, toy.statuses()

    toy.fake.rename_issue(OWNER, NAME, ISSUE, "Second title", by="bob")
    news = _ok(toy.check())
    assert news["has_updates"] is True
    assert news["retitles"] == [{"title": "Second title", "was": "First title"}]
    assert news["retitle_count"] == 1
    assert news["recommended_checkpoint"]["titles"]["version"] == 1
    again = _ok(toy.check())  # not confirmed: returned again, never lost
    assert again["retitles"] == news["retitles"]

    # compare-and-swap: the older snapshot was replaced by `again`
    stale = toy.latest("--confirm-updates", "--snapshot-id", news["snapshot_id"])
    assert stale.code == 7, stale
    done = _ok(toy.latest("--confirm-updates", "--snapshot-id", again["snapshot_id"]))
    assert done["state_updated"] is True and toy.checkpoint()["titles"]["version"] == 1
    retried = _ok(toy.latest("--confirm-updates", "--snapshot-id", again["snapshot_id"]))
    assert retried["already_applied"] is True and retried["state_updated"] is False
    assert _ok(toy.check())["retitles"] == []  # handled: once

    # a write without the flag carries the toy's cursor (as every flagged kind's)
    toy.fake.add_comment(OWNER, NAME, ISSUE, body="more", user="alice")
    upd = _ok(toy.latest("--update-state"))
    assert upd["state_updated"] is True
    assert toy.checkpoint()["titles"] == {"title": "Second title", "version": 1}

    # forward only: a checkpoint whose toy cursor is ahead refuses the older one
    cp = toy.checkpoint()
    cp["titles"]["version"] = 5
    path = state_dir(toy.root) / f"{OWNER}-{NAME}-{ISSUE}.json"
    path.write_text(json.dumps(cp))
    older = toy.check()
    assert older.code == 0
    back = toy.latest("--confirm-updates", "--snapshot-id", older.json["snapshot_id"])
    assert back.code == 0 and back.json["already_applied"] is True  # past it: nothing to do
    bad = dict(cp, titles={"title": 3, "version": 1})
    path.write_text(json.dumps(bad))
    corrupt = toy.check()
    assert corrupt.code == 7 and "corrupt" in corrupt.json["error"]["message"], corrupt
    assert json.loads(path.read_text()) == bad  # reported, never overwritten


def test_the_inbox_and_a_wait_carry_the_toy_kind(toy):
    toy.root.mkdir()
    ref = f"{OWNER}/{NAME}#{ISSUE}"
    first = _ok(toy.check())
    _ok(toy.latest("--confirm-updates", "--snapshot-id", first["snapshot_id"]))

    def inbox(*args) -> Run:
        toy.fake.clear_log()
        return _run(toy.tree, "check_issue_updates.py", "--root", toy.root, "--follow", ref,
                    "--include-titles", *args, env=toy.env)

    quiet = _ok(inbox())
    assert quiet["has_updates"] is False
    toy.fake.rename_issue(OWNER, NAME, ISSUE, "Renamed", by="bob")
    doc = _ok(inbox())
    (conv,) = doc["conversations"]
    assert conv["retitles"] == [{"title": "Renamed", "was": "First title"}]
    toy.fake.clear_log()
    confirmed = _ok(_run(toy.tree, "get_latest_comments.py", "--root", toy.root, "--followed",
                         "--confirm-updates", "--snapshot-id", doc["snapshot_id"],
                         env=toy.env))
    assert confirmed["confirmed"] == [f"{OWNER}/{NAME}/issues/{ISSUE}"], confirmed
    assert toy.checkpoint()["titles"] == {"title": "Renamed", "version": 1}

    # a wait wakes on a retitle (and on nothing else: the comments stay as they are)
    import threading

    timer = threading.Timer(1.0, lambda: toy.fake.rename_issue(OWNER, NAME, ISSUE, "Third",
                                                               by="bob"))
    timer.start()
    toy.env["GH_MONITOR_TEST_TIME_SCALE"] = "0.02"  # polls 0.1 s apart, 72 s at most
    try:
        woke = _ok(toy.check("--wait", "3600", "--poll-interval", "5"))
    finally:
        timer.cancel()
    assert woke["has_updates"] is True
    assert woke["retitles"] == [{"title": "Third", "was": "Renamed"}]


def test_a_kind_that_lacks_a_hook_fails_at_import_naming_it(toy_tree, fake, tmp_path):
    module = toy_tree / "scripts" / "ghcomments" / "streams" / "titles.py"
    text = module.read_text()
    start = text.index("    @staticmethod\n    def applied(")
    end = text.index("    @staticmethod\n    def valid_hint(")
    module.write_text(text[:start] + text[end:])
    proc = subprocess.run(
        [SCRIPT_PYTHON, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
         "import ghcomments.streams.titles", str(toy_tree / "scripts")],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "TypeError: the 'titles' kind (ghcomments.streams.titles.TitleStream) lacks " \
           "applied" in proc.stderr, proc.stderr
    # and so does every round that registers it, before any request
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    (tmp_path / "w").mkdir()
    run = _run(toy_tree, "check_issue_updates.py", "--repo", f"{OWNER}/{NAME}", "--issue",
               ISSUE, "--root", tmp_path / "w", env=script_env(fake))
    assert run.code != 0 and "lacks applied" in run.stdout + run.stderr
    assert fake.requests == []


PARTS = ("conversation", "reviews", "events", "head", "edits", "checks")


def test_each_cursor_part_is_spelled_in_at_most_three_modules():
    """Its own kind module, the registry (round/layouts.py) and the text shape
    (text/render.py): docstrings aside, as the bundle's before-stop hook counts them."""
    where = {k: set() for k in PARTS}
    for path in sorted((REPO / "scripts" / "ghcomments").rglob("*.py")):
        tree = ast.parse(path.read_text())
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                  ast.AsyncFunctionDef))
                and n.body and isinstance(n.body[0], ast.Expr)
                and isinstance(n.body[0].value, ast.Constant)}
        for n in ast.walk(tree):
            if (isinstance(n, ast.Constant) and n.value in where and id(n) not in docs
                    and path.name != "preflight.py"):
                where[n.value].add(str(path.relative_to(REPO)))
    assert {k: sorted(v) for k, v in where.items() if len(v) > 3} == {}
