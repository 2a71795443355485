#!/usr/bin/env python3
"""Install the gh-issue-comment-monitor skill into an agent's skills folder.

  python3 tools/install_skill.py --dest ~/.claude/skills           (or: make install-skill DEST=…)
  python3 tools/install_skill.py --dest .agents/skills --force     (replace a foreign folder)

The skill lands in DEST/gh-issue-comment-monitor (DEST is created if missing) and holds exactly
what ships: SKILL.md, scripts/, docs/, verify_dependencies.py, requirements.txt (no caches),
plus .install-manifest.json listing what was installed. The copy is built in DEST/.NAME.new-PID,
the previous install is moved to DEST/.NAME.old-PID, the new one renamed into place and the old
one deleted; a later run first restores (or removes) what an interrupted run left. So an upgrade
leaves no stale file and an interrupted install leaves a whole skill.

A target that is not a previous install of this skill (SKILL.md naming it and the manifest) is
refused unless --force; a symlink at the target, or the source tree itself, is refused always.
Standard library only: runs with any python3 (3.9+), no virtual environment needed.
Exit codes: 0 installed; 1 refused or failed (nothing changed at the target); 2 bad arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import List, Optional, Tuple

NAME = "gh-issue-comment-monitor"
SOURCE = Path(__file__).resolve().parents[1]
SHIPPED = ["SKILL.md", "scripts", "docs", "verify_dependencies.py", "requirements.txt"]
MANIFEST = ".install-manifest.json"
PAUSE_ENV = "GH_MONITOR_TEST_INSTALL_PAUSE"  # tests only: seconds to sleep before the swap
USUAL_FOLDERS = [
    ("Claude Code, for you", "~/.claude/skills"),
    ("Claude Code, for a project", ".claude/skills"),
    ("Codex and other agents, for you", "~/.agents/skills"),
    ("Codex and other agents, for a project", ".agents/skills"),
    ("GitHub Copilot, for a project", ".github/skills"),
    ("GitHub Copilot, for you", "~/.copilot/skills"),
]
# Never shipped, wherever they appear under scripts/ or docs/.
IGNORED_DIRS = {"__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache", ".hypothesis"}
IGNORED_SUFFIXES = (".pyc", ".pyo", "~")


class Refused(Exception):
    """The install cannot go ahead; nothing at the target was changed."""


def log(message: str) -> None:
    print(f"install-skill: {message}", file=sys.stderr, flush=True)


def skill_name(skill_md: Path) -> Optional[str]:
    """The `name` of a SKILL.md's frontmatter, or None when there is none."""
    try:
        text = skill_md.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    m = re.match(r"^---[ \t]*\r?\n(.*?)\r?\n---[ \t]*\r?$", text, re.S | re.M)
    if not m:
        return None
    name = re.search(r"^name:[ \t]*[\"']?([^\"'\r\n]*?)[\"']?[ \t]*$", m.group(1), re.M)
    return name.group(1) if name else None


def skill_version(skill_md: Path) -> Optional[str]:
    text = skill_md.read_text(encoding="utf-8")
    m = re.search(r"^\s+version:\s*[\"']?([^\"'\s]+)", text, re.M)
    return m.group(1) if m else None


def ignored(name: str) -> bool:
    return name in IGNORED_DIRS or name.startswith(".") or name.endswith(IGNORED_SUFFIXES)


def shipped_files(source: Path) -> List[str]:
    """Relative paths (with /) of every file that ships, sorted."""
    files: List[str] = []
    for item in SHIPPED:
        path = source / item
        if path.is_file():
            files.append(item)
        elif path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not ignored(d))
                for n in sorted(names):
                    if not ignored(n):
                        files.append((Path(root) / n).relative_to(source).as_posix())
        else:
            raise Refused(f"{path} is missing: run this from a complete clone of the skill")
    return sorted(files)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def is_our_install(target: Path) -> bool:
    """A previous install: SKILL.md names this skill and the manifest of an install is there."""
    if skill_name(target / "SKILL.md") != NAME:
        return False
    try:
        manifest = json.loads((target / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("skill") == NAME


def inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_target(target: Path, source: Path, force: bool) -> bool:
    """Whether something is at the target (to be moved aside); Refused when it must stay."""
    if target.is_symlink():
        raise Refused(f"{target} is a symbolic link: refusing to replace it (even with "
                      "FORCE=1); remove the link or pick another DEST")
    if not os.path.lexists(target):
        return False
    if is_our_install(target):
        return True
    what = "a file" if not target.is_dir() else (
        "a folder that is not an install of this skill (its SKILL.md does not name "
        f"{NAME}, or it has no {MANIFEST})")
    if not force:
        raise Refused(f"{target} exists and is {what}: left untouched. Move it away, or run "
                      "again with FORCE=1 (make) / --force to replace it")
    log(f"FORCE: replacing {target} ({what})")
    return True


def recover(dest: Path) -> None:
    """Finish or undo what an interrupted run left beside the target."""
    target = dest / NAME
    for old in sorted(dest.glob(f".{NAME}.old-*")):
        if not os.path.lexists(target) and old.is_dir() and not old.is_symlink():
            os.rename(old, target)
            log(f"restored {target} from an interrupted install ({old.name})")
        else:
            remove(old)
            log(f"removed {old.name}, left by an interrupted install")
    for new in sorted(dest.glob(f".{NAME}.new-*")):
        remove(new)
        log(f"removed {new.name}, left by an interrupted install")


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def build(source: Path, staging: Path) -> List[str]:
    files = shipped_files(source)
    staging.mkdir(mode=0o755)
    for rel in files:
        out = staging / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / rel, out)  # follows symlinks: the installed copy holds files
    manifest = {
        "skill": NAME,
        "version": skill_version(source / "SKILL.md"),
        "source": str(source),
        "installed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "installer": "tools/install_skill.py",
        "files": {rel: sha256(staging / rel) for rel in files},
    }
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return files


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def lock(dest: Path):
    """An exclusive lock on DEST (the folder itself; no lock file is left behind)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return None
    fd = os.open(dest, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def refuse_source_tree(target: Path, source: Path) -> None:
    """The target may not be the source tree, hold it, or lie inside what ships."""
    if target.is_symlink():
        return  # refused by check_target, with that reason
    real = target.resolve()
    if inside(source, real) or any(inside(real, (source / s).resolve()) for s in SHIPPED):
        raise Refused(f"{target} is, holds or lies inside the source tree's shipped files "
                      f"({source}): refusing (even with FORCE=1); pick a DEST outside them")


def install(dest: Path, force: bool, source: Path = SOURCE) -> Tuple[Path, int]:
    refuse_source_tree(dest / NAME, source)
    if os.path.lexists(dest) and not dest.is_dir():
        raise Refused(f"DEST {dest} exists and is not a folder")
    dest.mkdir(parents=True, exist_ok=True)
    held = lock(dest)
    try:
        recover(dest)
        target = dest / NAME
        present = check_target(target, source, force)
        staging = dest / f".{NAME}.new-{os.getpid()}"
        aside = dest / f".{NAME}.old-{os.getpid()}"
        try:
            files = build(source, staging)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        pause = os.environ.get(PAUSE_ENV)
        if pause:
            log(f"pausing {pause} s before the swap ({PAUSE_ENV})")
            time.sleep(float(pause))
        if present:
            os.rename(target, aside)
        os.rename(staging, target)
        fsync_dir(dest)
        if present:
            remove(aside)
        return target, len(files)
    finally:
        if held is not None:
            os.close(held)


def usage_error(message: str) -> int:
    lines = [f"install-skill: {message}", "",
             "Usage: make install-skill DEST=DIR [FORCE=1]"
             "   (or: python3 tools/install_skill.py --dest DIR [--force])",
             f"DIR is the skills folder; the skill goes to DIR/{NAME}. The usual folders:"]
    lines += [f"  {folder:<20} {who}" for who, folder in USUAL_FOLDERS]
    print("\n".join(lines), file=sys.stderr)
    return 2


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="install_skill.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dest", metavar="DIR", default="",
                        help=f"the skills folder (the skill goes to DIR/{NAME})")
    parser.add_argument("--force", action="store_true",
                        help="replace a folder at the target that is not a previous install")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if not args.dest.strip():
        return usage_error("DEST is missing: say which skills folder to install into")
    dest = Path(os.path.abspath(os.path.expanduser(args.dest)))
    try:
        target, count = install(dest, args.force)
    except Refused as exc:
        log(f"refused: {exc}")
        return 1
    except OSError as exc:
        log(f"failed: {exc}")
        return 1
    verify = target / "verify_dependencies.py"
    print(f"Installed {NAME} in {target} ({count} files and {MANIFEST})")
    print("Next, check this machine (Python 3.9+, requests, a token):")
    print(f"  python3 {shlex.quote(str(verify))}")
    print("If it reports requests missing, see docs/dependencies.md in the skill "
          f"({target / 'docs' / 'dependencies.md'}).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
