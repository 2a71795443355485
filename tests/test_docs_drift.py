"""The docs cannot drift silently from the code (issue 37).

- Every module of the package `scripts/ghcomments/` is named in docs/index.md (its floor's
  table, `name.py`) and on docs/reference.md's map (its floor's row, `name`), and neither
  names a module that does not exist.
- Every `floor/module` or `floor/module.Attr` the docs name (in backticks) exists: the module
  file, and each attribute as the module defines it.
- Every option of each script's parser (built as the script builds it) is in a first column of
  docs/reference.md's "## Flags" tables — its own script's table or the common one — and every
  flag of those first columns is some parser's option (no stale one); the shell fallback's
  from its --help.
- The count of kinds each round reads is stated in one form, checked against the registry
  (round/layouts.py's ISSUE_PARTS and PULL_REQUEST_PARTS): its numbers, its kinds' names and
  which of them take a flag.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Dict, List, Set, Tuple

import pytest

from tests.support import REPO, SCRIPTS, clean_env

PACKAGE = SCRIPTS / "ghcomments"
FLOORS = ("base", "text", "net", "store", "streams", "round", "inbox")
DOCS = ["README.md", "SKILL.md", *sorted(str(p.relative_to(REPO))
                                         for p in (REPO / "docs").glob("*.md"))]
PY_SCRIPTS = {"check_issue_updates.py": SCRIPTS / "check_issue_updates.py",
              "get_latest_comments.py": SCRIPTS / "get_latest_comments.py",
              "get_pr_comments.py": SCRIPTS / "get_pr_comments.py",
              "manage_issue_comment.py": SCRIPTS / "manage_issue_comment.py",
              "verify_dependencies.py": REPO / "verify_dependencies.py"}
SHELL = "get-pr-comments.sh"
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-h)\b")


def _text(doc: str) -> str:
    return (REPO / doc).read_text(encoding="utf-8")


def _modules() -> Set[Tuple[str, str]]:
    """(floor, module) of every module file: floor "" is the top (ghcomments/*.py)."""
    out = set()
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        if path.name == "__init__.py" or "__pycache__" in rel.parts:
            continue
        out.add((rel.parts[0] if len(rel.parts) == 2 else "", path.stem))
    return out


def _section(text: str, heading: str) -> str:
    """The text of a `## heading` section, up to the next `## `."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _cells(line: str) -> List[str]:
    """A table row's cells (a `\\|` inside a cell is not a boundary)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _outside_parentheses(text: str) -> str:
    out, depth = [], 0
    for ch in text:
        depth += ch == "("
        if depth == 0:
            out.append(ch)
        depth -= ch == ")" and depth > 0
    return "".join(out)


# --------------------------------------------------------------------------- the modules


def _index_modules() -> Set[Tuple[str, str]]:
    """docs/index.md: under each `**`scripts/ghcomments/FLOOR/`**` heading, its table's
    `name.py` rows."""
    out, floor = set(), None
    for line in _text("docs/index.md").splitlines():
        head = re.match(r"^\*\*`scripts/ghcomments/(?:(\w+)/)?`\*\*", line)
        if head:
            floor = head.group(1) or ""
            continue
        row = re.match(r"^\| `(\w+)\.py` \|", line)
        if row and floor is not None:
            out.add((floor, row.group(1)))
        elif line.startswith("#"):
            floor = None
    return out


def _map_modules() -> Set[Tuple[str, str]]:
    """reference.md's map, the floor table: each floor's row names its modules in backticks
    in its last column (what parentheses say of them aside)."""
    out = set()
    for line in _section(_text("docs/reference.md"), "The map").splitlines():
        if not line.startswith("| "):
            continue
        cells = _cells(line)
        m = re.fullmatch(r"`(?:(\w+)/|top \(`ghcomments/\*\.py`\))`?", cells[0])
        if m is None and cells[0].startswith("top ("):
            floor = ""
        elif m is not None:
            floor = m.group(1) or ""
        else:
            continue
        for name in re.findall(r"`(\w+)`", _outside_parentheses(cells[-1])):
            out.add((floor, name))
    return out


@pytest.mark.parametrize("where, named", [("docs/index.md", _index_modules),
                                          ("docs/reference.md's map", _map_modules)])
def test_every_module_is_named_by_its_floor_and_no_stale_one(where, named):
    shown, real = named(), _modules()
    assert len(shown) > 30, f"{where}: the module tables were not found"
    missing, stale = sorted(real - shown), sorted(shown - real)
    assert not missing, f"{where} does not name these modules (floor, module): {missing}"
    assert not stale, f"{where} names modules that do not exist: {stale}"


_RESOLVE = r"""
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
bad = []
for ref in json.loads(sys.argv[2]):
    module, _, attrs = ref.partition(".")
    try:
        obj = importlib.import_module("ghcomments." + module.replace("/", "."))
        for a in filter(None, attrs.split(".")):
            obj = getattr(obj, a)
    except Exception as exc:
        bad.append(ref + ": " + type(exc).__name__)
print(json.dumps(bad))
"""


def test_every_module_path_the_docs_name_exists():
    """`round/engine.Round.check`, `scripts/ghcomments/store/state.py`: each resolves."""
    refs: Dict[str, Set[str]] = {}
    floors = "|".join(FLOORS)
    pattern = re.compile(r"(?<![\w/.-])(?:scripts/ghcomments/)?((?:" + floors
                         + r")/[a-z_][a-z0-9_]*)((?:\.py\b)|(?:\.[A-Za-z_]\w*)*)")
    for doc in DOCS:
        for span in re.findall(r"`([^`\n]+)`", _text(doc)):
            for module, attrs in pattern.findall(span):
                ref = module + ("" if attrs == ".py" else attrs)
                refs.setdefault(ref, set()).add(doc)
    assert len(refs) > 30
    proc = subprocess.run([sys.executable, "-c", _RESOLVE, str(SCRIPTS), json.dumps(sorted(refs))],
                          capture_output=True, text=True, timeout=120, env=clean_env(),
                          check=False)
    assert proc.returncode == 0, proc.stderr
    bad = json.loads(proc.stdout)
    assert bad == [], [f"{b} (in {', '.join(sorted(refs[b.split(':')[0]]))})" for b in bad]


# --------------------------------------------------------------------------- the flags


_PARSERS = r"""
import argparse, importlib.util, json, sys
sys.path.insert(0, sys.argv[1])
class Built(Exception):
    pass
def built(self, *args, **kw):
    raise Built(self)
argparse.ArgumentParser.parse_args = built
out = {}
for name, path in json.loads(sys.argv[2]).items():
    spec = importlib.util.spec_from_file_location(name[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        module.main([])
    except Built as got:
        out[name] = sorted(s for a in got.args[0]._actions for s in a.option_strings)
print(json.dumps(out))
"""


def _parser_flags() -> Dict[str, Set[str]]:
    """Each script's options, from its parser as `main` builds it (parse_args intercepted),
    and the shell fallback's from the option lines of its --help."""
    proc = subprocess.run(
        [sys.executable, "-c", _PARSERS, str(SCRIPTS),
         json.dumps({k: str(v) for k, v in PY_SCRIPTS.items()})],
        capture_output=True, text=True, timeout=120, env=clean_env(), check=False)
    assert proc.returncode == 0, proc.stderr
    out = {k: set(v) for k, v in json.loads(proc.stdout).items()}
    assert set(out) == set(PY_SCRIPTS)
    helped = subprocess.run(["bash", str(SCRIPTS / SHELL), "--help"], capture_output=True,
                            text=True, timeout=60, env=clean_env(), check=False)
    assert helped.returncode == 0, helped.stderr
    out[SHELL] = {f for line in re.findall(r"^\s+(-h, --help|--[a-z][a-z0-9-]*)",
                                           helped.stdout, re.M) for f in FLAG.findall(line)}
    return out


def _flag_tables() -> Dict[str, Set[str]]:
    """The first columns of the tables under each `### ` heading of "## Flags" (the common
    table under "common"; a shell heading under its script's name)."""
    out: Dict[str, Set[str]] = {}
    heading = None
    for line in _section(_text("docs/reference.md"), "Flags").splitlines():
        if line.startswith("### "):
            title = line[4:].strip()
            heading = "common" if title.startswith("Common") else title.split()[0]
            out.setdefault(heading, set())
        elif heading and line.startswith("| `"):
            out[heading] |= set(FLAG.findall(_cells(line)[0]))
    return out


def test_the_flag_tables_hold_every_option_and_no_stale_one():
    parsers, tables = _parser_flags(), _flag_tables()
    assert set(tables) == {"common", *parsers}, sorted(tables)
    missing = {s: sorted(flags - tables[s] - (tables["common"] if s != SHELL else set()))
               for s, flags in parsers.items()}
    assert {s: m for s, m in missing.items() if m} == {}, \
        "options no flag table of docs/reference.md lists"
    stale = {s: sorted(tables[s] - parsers[s]) for s in parsers}
    stale["common"] = sorted(tables["common"] - set().union(*(parsers[s] for s in PY_SCRIPTS)))
    assert {s: f for s, f in stale.items() if f} == {}, "flags in the tables no parser has"


# --------------------------------------------------------------------------- the kinds

_KINDS = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from ghcomments.round import layouts
out = {}
for name in ("ISSUE_PARTS", "PULL_REQUEST_PARTS"):
    out[name] = [[p.load().kind, p.load().flag] for p in getattr(layouts, name)]
print(json.dumps(out))
"""
# "an issue's round reads 2 kinds (`conversation`; with `--include-events`: `events`), a pull
# request's 4 (...)": the one form a count of kinds is stated in
COUNT = re.compile(r"[Aa]n issue's round reads (\d+) kinds \(([^)]*)\), a pull request's (\d+) "
                   r"\(([^)]*)\)")
# any other count of streams or kinds (the form the docs had: "an issue: 1, a pull request: 2")
OTHER_COUNT = re.compile(r"\b(?:\d+|one|two|three|four|five|six) (?:streams|kinds)\b"
                         r"|an issue: \d+[,;] a pull request: \d+", re.I)


def _registry() -> Dict[str, List[List[str]]]:
    proc = subprocess.run([sys.executable, "-c", _KINDS, str(SCRIPTS)], capture_output=True,
                          text=True, timeout=60, env=clean_env(), check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _stated(names: str) -> List[Tuple[str, bool]]:
    """`conversation`; with `--include-events`: `events`` -> [(conversation, False),
    (events, True)]: a kind after "with `--flag`" takes that flag."""
    out, flagged = [], False
    for token in re.findall(r"with `--[a-z-]+`|`(\w+)`", names):
        if not token:
            flagged = True
        else:
            out.append((token, flagged))
    return out


def test_the_count_of_kinds_is_stated_once_and_matches_the_registry():
    reg = _registry()
    want = {key: [(k, flag is not None) for k, flag in parts] for key, parts in reg.items()}
    statements = []
    for doc in DOCS:
        flat = re.sub(r"\s+", " ", _text(doc))
        for m in COUNT.finditer(flat):
            statements.append(doc)
            assert int(m.group(1)) == len(want["ISSUE_PARTS"]), (doc, m.group(0))
            assert int(m.group(3)) == len(want["PULL_REQUEST_PARTS"]), (doc, m.group(0))
            assert _stated(m.group(2)) == want["ISSUE_PARTS"], (doc, m.group(0), want)
            assert _stated(m.group(4)) == want["PULL_REQUEST_PARTS"], (doc, m.group(0), want)
        rest = COUNT.sub("", flat)
        assert OTHER_COUNT.findall(rest) == [], f"{doc} states a count of kinds another way"
    assert "docs/index.md" in statements and "docs/reference.md" in statements, statements
