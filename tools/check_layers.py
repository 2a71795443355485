#!/usr/bin/env python3
"""The folder rule of scripts/ghcomments/ (`make lint`; docs/reference.md, "The map").

The package is built in floors, bottom to top: base, text, net, store, streams, round, inbox,
and the package's own top-level modules (cli, preflight, writer). A module may import its own
folder and the folders below it, never one above; no two modules import each other in a circle,
at module load or lazily (an import inside a function is a later load: it may only point down
too, and closes a circle as any import does); the entry scripts import only the face,
scripts/github_issue_comments.py; and no module below the top reads an argparse Namespace (the
typed options are built at the edge).

    python3 tools/check_layers.py [--root DIR]

Prints one line per broken rule and exits 1, or prints nothing and exits 0. Reads the source
with `ast` only: nothing is imported or run.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

FLOORS = ["base", "text", "net", "store", "streams", "round", "inbox", ""]  # "": the top
PACKAGE = "ghcomments"
FACE = "github_issue_comments"
# Modules below the face that still take the argparse Namespace: the typed options record
# (issue 32) replaces it one module at a time; each converted module leaves this list, and a
# module not on it that reads `args.` fails lint. Empty when the move is done.
NAMESPACE_NOT_YET: Set[str] = set()


def floor_of(module: str) -> Optional[int]:
    """The floor index of a dotted module name inside the package, None outside it. The
    package itself (its __init__: the version) counts as the ground: anyone may read it."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    if len(parts) == 1:
        return -1
    if parts[1] in FLOORS[:-1]:
        return FLOORS.index(parts[1])
    return len(FLOORS) - 1


def module_name(path: Path, scripts: Path) -> str:
    rel = path.relative_to(scripts).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(tree: ast.Module, name: str, is_package: bool
               ) -> Iterator[Tuple[str, int, bool]]:
    """(imported module, line, at module level) for every import statement."""
    top_level = {id(n) for n in tree.body}
    for top in tree.body:  # `if TYPE_CHECKING:` blocks never run: annotations only
        if isinstance(top, ast.If) and getattr(top.test, "id", None) == "TYPE_CHECKING":
            top_level.update(id(n) for n in ast.walk(top))
    skipped = {id(n) for top in tree.body if isinstance(top, ast.If)
               and getattr(top.test, "id", None) == "TYPE_CHECKING" for n in ast.walk(top)}
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, id(node) in top_level
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:  # `from . import x`: x may be a module of that package
                sub = f"{target}.{alias.name}"
                yield sub if sub in KNOWN else target, node.lineno, id(node) in top_level


KNOWN: Set[str] = set()


def reads_namespace(tree: ast.Module) -> List[int]:
    """Lines where a module below the top names argparse.Namespace or reads `args.`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id == "args":
            found.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == "Namespace":
            found.append(node.lineno)
    return sorted(set(found))


def check(root: Path) -> List[str]:
    scripts = root / "scripts"
    pkg = scripts / PACKAGE
    problems: List[str] = []
    files = sorted(pkg.rglob("*.py"))
    names = {module_name(p, scripts): p for p in files}
    KNOWN.clear()
    KNOWN.update(names)
    for folder in sorted(p for p in pkg.iterdir() if p.is_dir() and p.name != "__pycache__"):
        if folder.name not in FLOORS:
            problems.append(f"{folder.relative_to(root)}: a folder that is not a floor "
                            f"(tools/check_layers.py FLOORS: {', '.join(FLOORS[:-1])})")
        init = folder / "__init__.py"
        if not init.exists() or not ast.get_docstring(ast.parse(init.read_text())):
            problems.append(f"{init.relative_to(root)}: every floor says what it owns in a "
                            "docstring")
    graph: Dict[str, Set[str]] = {n: set() for n in names}
    for name, path in names.items():
        tree = ast.parse(path.read_text(), str(path))
        here = floor_of(name)
        rel = path.relative_to(root)
        for target, line, _top in imports_of(tree, name, path.name == "__init__.py"):
            there = floor_of(target)
            if there is None or here is None:
                continue
            if there > here:
                problems.append(f"{rel}:{line}: imports {target} from a higher floor "
                                f"({FLOORS[there] or 'the top'} above "
                                f"{FLOORS[here] or 'the top'})")
            if target in graph and target != name:  # lazy imports too: no circle at all
                graph[name].add(target)
        if here is not None and here < len(FLOORS) - 1 and name not in NAMESPACE_NOT_YET:
            for line in reads_namespace(tree):
                problems.append(f"{rel}:{line}: reads the command line (args. or "
                                "argparse.Namespace) below the face: take a typed option")
    problems += [f"import circle: {' -> '.join(c)}" for c in circles(graph)]
    for entry in sorted(scripts.glob("*.py")):
        if entry.stem == FACE:
            continue
        tree = ast.parse(entry.read_text(), str(entry))
        for target, line, _ in imports_of(tree, entry.stem, False):
            if target.split(".")[0] == PACKAGE:
                problems.append(f"{entry.relative_to(root)}:{line}: an entry script imports "
                                f"{target}: only the face, {FACE}, is theirs")
    return problems


def circles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """Every circle of imports (module-level and lazy), once each (Tarjan's strongly
    connected parts)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part) + [sorted(part)[0]])

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="check_layers.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                   help="the project folder (default: this tool's project)")
    problems = check(Path(p.parse_args(argv).root))
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
