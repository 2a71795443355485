"""`make lint`'s folder rule (tools/check_layers.py): each floor of scripts/ghcomments/ imports
only its own folder and those below it, no import circle, entry scripts only the face, and no
module below the face reads the argparse Namespace. Each rule is shown to fail on a copy of the
tree with one import added, and the tree as it is passes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "tools" / "check_layers.py"


def run(root: Path):
    proc = subprocess.run([sys.executable, str(TOOL), "--root", str(root)],
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout.splitlines()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "scripts", tmp_path / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def add_line(path: Path, line: str) -> None:
    text = path.read_text()
    marker = "from __future__ import annotations\n"
    assert marker in text, path
    path.write_text(text.replace(marker, marker + line + "\n", 1))


def test_the_tree_as_it_is_keeps_the_rule():
    code, out = run(REPO)
    assert (code, out) == (0, [])


def test_an_import_from_a_higher_floor_fails(tree: Path):
    add_line(tree / "scripts/ghcomments/net/client.py", "from ..round import engine")
    code, out = run(tree)
    assert code == 1
    assert out[0].startswith("scripts/ghcomments/net/client.py:")
    assert "ghcomments.round.engine" in out[0] and "round above net" in out[0]
    # the round imports the client at load: the arrow up closes a circle too, named as one
    assert all(line.startswith("import circle: ") for line in out[1:]), out


def test_a_lazy_import_upward_inside_a_function_fails_too(tree: Path):
    path = tree / "scripts/ghcomments/base/errors.py"
    path.write_text(path.read_text() + "\n\ndef _late():\n    from ..inbox import check\n"
                    "    return check\n")
    code, out = run(tree)
    assert code == 1 and any("ghcomments.inbox.check" in line and "base/errors.py" in line
                             for line in out), out


def test_an_absolute_import_upward_fails(tree: Path):
    add_line(tree / "scripts/ghcomments/store/state.py", "import ghcomments.cli")
    code, out = run(tree)
    assert code == 1 and any("ghcomments.cli" in line and "the top above store" in line
                             for line in out), out


def test_an_import_circle_in_one_floor_fails(tree: Path):
    # records already imports edits at module level; the other way round closes a circle
    add_line(tree / "scripts/ghcomments/store/edits.py", "from . import records")
    code, out = run(tree)
    assert code == 1
    assert out == ["import circle: ghcomments.store.edits -> ghcomments.store.records -> "
                   "ghcomments.store.edits"]


def test_a_lazy_import_that_closes_a_circle_fails(tree: Path):
    # records imports edits at module level; a lazy import back inside a function is a circle
    path = tree / "scripts/ghcomments/store/edits.py"
    path.write_text(path.read_text() + "\n\ndef _late():\n    from . import records\n"
                    "    return records\n")
    code, out = run(tree)
    assert code == 1
    assert out == ["import circle: ghcomments.store.edits -> ghcomments.store.records -> "
                   "ghcomments.store.edits"]


def test_an_entry_script_that_reaches_past_the_face_fails(tree: Path):
    path = tree / "scripts/check_issue_updates.py"
    path.write_text(path.read_text().replace("import github_issue_comments as gic",
                                             "import github_issue_comments as gic\n"
                                             "from ghcomments.store import state", 1))
    code, out = run(tree)
    assert code == 1 and len(out) == 1 and "check_issue_updates.py" in out[0] \
        and "only the face" in out[0]


def test_a_folder_without_its_docstring_or_off_the_floor_list_fails(tree: Path):
    (tree / "scripts/ghcomments/round/__init__.py").write_text("")
    (tree / "scripts/ghcomments/misc").mkdir()
    (tree / "scripts/ghcomments/misc/__init__.py").write_text('"""Odds and ends."""\n')
    code, out = run(tree)
    assert code == 1
    assert any("round/__init__.py" in line and "docstring" in line for line in out), out
    assert any("ghcomments/misc" in line and "not a floor" in line for line in out), out


def test_a_module_below_the_face_reading_the_namespace_fails(tree: Path):
    path = tree / "scripts/ghcomments/round/budget.py"
    path.write_text(path.read_text() + "\n\ndef _limit(args):\n    return args.max_total\n")
    code, out = run(tree)
    assert code == 1 and any("round/budget.py" in line and "typed option" in line
                             for line in out), out
