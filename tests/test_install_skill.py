"""`make install-skill DEST=DIR`: only what ships, into DIR/gh-issue-comment-monitor, replaced whole.

The Makefile target and tools/install_skill.py run as subprocesses, from a temporary clone of
this repository (so a test can add caches or drop a file without touching the real tree), with
HOME in a temporary folder. The installed scripts then run against the fake GitHub.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from tests.support import OWNER, REPO, REPOSITORY, clean_env, script_env

SKILL = "gh-issue-comment-monitor"
SHIPPED = ["SKILL.md", "scripts", "docs", "verify_dependencies.py", "requirements.txt"]
MANIFEST = ".install-manifest.json"
USUAL = ["~/.claude/skills", ".claude/skills", "~/.agents/skills", ".agents/skills",
         ".github/skills", "~/.copilot/skills"]
# Named only by the source repository: the installed docs must say so where they name them.
REPO_ONLY = re.compile(r"\btests/|\bMakefile\b|`make`|\bmake (?:test|demo|bench|lint|install)"
                       r"|\.ci/|bench-results|requirements-dev|README\.md|\btools/")


def tree(root: Path) -> Dict[str, str]:
    """Every file under root (relative path → sha256), symlinks and folders named as such."""
    out: Dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "symlink → " + os.readlink(path)
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def shipped(root: Path) -> List[str]:
    files = []
    for item in SHIPPED:
        p = root / item
        if p.is_file():
            files.append(item)
        else:
            files += [f.relative_to(root).as_posix() for f in p.rglob("*")
                      if f.is_file() and "__pycache__" not in f.parts]
    return sorted(files)


@pytest.fixture
def clone(tmp_path) -> Path:
    """A copy of this repository's shipped files, the installer and the Makefile."""
    src = tmp_path / "clone"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("scripts", "docs", "tools"):
        shutil.copytree(REPO / name, src / name, ignore=ignore)
    for name in ("SKILL.md", "verify_dependencies.py", "requirements.txt", "Makefile"):
        shutil.copy2(REPO / name, src / name)
    return src


def env_for(tmp_path: Path, **extra: str) -> Dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return clean_env(HOME=str(home), **extra)


def make_install(clone: Path, dest: Optional[Path], env: Dict[str, str],
                 force: bool = False) -> subprocess.CompletedProcess:
    """`make install-skill DEST=… [FORCE=1]` in the clone (the installer itself without make)."""
    if shutil.which("make"):
        cmd = ["make", "--no-print-directory", "install-skill"]
        cmd += [f"DEST={dest}"] if dest is not None else []
        cmd += ["FORCE=1"] if force else []
    else:
        cmd = [sys.executable, str(clone / "tools" / "install_skill.py")]
        cmd += ["--dest", str(dest)] if dest is not None else []
        cmd += ["--force"] if force else []
    return subprocess.run(cmd, cwd=clone, env=env, capture_output=True, text=True, timeout=120,
                          check=False)


def installed_ok(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- what ships


def test_installs_exactly_what_ships_and_says_what_next(clone, tmp_path):
    # caches and editor leftovers in the clone never ship
    (clone / "scripts" / "__pycache__").mkdir()
    (clone / "scripts" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    (clone / "scripts" / "ghcomments" / "stale.pyc").write_bytes(b"\0")
    (clone / "docs" / ".DS_Store").write_bytes(b"\0")
    (clone / ".pytest_cache").mkdir()
    (clone / "tests").mkdir()
    (clone / "tests" / "test_x.py").write_text("")
    dest = tmp_path / "agents" / "skills"  # created if missing
    proc = make_install(clone, dest, env_for(tmp_path))
    installed_ok(proc)
    target = dest / SKILL
    expected = {f: h for f, h in tree(clone).items() if f in set(shipped(REPO))}
    files = tree(target)
    assert set(files) == set(expected) | {MANIFEST}
    assert {f: files[f] for f in expected} == expected  # byte for byte
    assert sorted(os.listdir(dest)) == [SKILL]  # no staging or old folder left beside it
    manifest = json.loads((target / MANIFEST).read_text())
    assert manifest["skill"] == SKILL and manifest["files"] == expected
    assert os.access(target / "scripts" / "get-pr-comments.sh", os.X_OK)
    assert str(target) in proc.stdout
    assert f"python3 {target / 'verify_dependencies.py'}" in proc.stdout
    assert not (clone / ".venv").exists()  # plain python3: the dev venv is not needed


def test_without_dest_it_lists_the_usual_folders(clone, tmp_path):
    proc = make_install(clone, None, env_for(tmp_path))
    assert proc.returncode == 2
    for folder in USUAL:
        assert folder in proc.stderr, folder
    direct = subprocess.run([sys.executable, str(clone / "tools" / "install_skill.py")],
                            env=env_for(tmp_path), capture_output=True, text=True, check=False)
    assert direct.returncode == 2 and "~/.copilot/skills" in direct.stderr


def test_installed_copy_passes_agentskills_validate(clone, tmp_path):
    pytest.importorskip("skills_ref", reason="skills-ref (agentskills) needs Python 3.11+")
    installed_ok(make_install(clone, tmp_path / "skills", env_for(tmp_path)))
    exe = Path(sys.executable).with_name("agentskills")
    cmd = [str(exe)] if exe.exists() else [
        sys.executable, "-c", "import sys; from skills_ref.cli import main; sys.exit(main())"]
    proc = subprocess.run(cmd + ["validate", str(tmp_path / "skills" / SKILL)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_installed_scripts_run_against_the_fake(clone, tmp_path, fake):
    installed_ok(make_install(clone, tmp_path / "skills", env_for(tmp_path)))
    target = tmp_path / "skills" / SKILL
    shutil.rmtree(clone)  # nothing may come from the clone any more
    fake.add_repo(OWNER, "hello")
    fake.add_issue(OWNER, "hello", 5)
    fake.add_comment(OWNER, "hello", 5, "first")
    fake.add_comment(OWNER, "hello", 5, "from the installed copy")
    work = tmp_path / "project"
    work.mkdir()
    env = script_env(fake, HOME=str(tmp_path / "home"))
    run = subprocess.run([sys.executable, str(target / "scripts" / "get_latest_comments.py"),
                          "--repo", REPOSITORY, "--issue", "5", "--last-n", "1"],
                         cwd=work, env=env, capture_output=True, text=True, timeout=120,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert [c["body"] for c in json.loads(run.stdout)["comments"]] == ["from the installed copy"]
    check = subprocess.run([sys.executable, str(target / "verify_dependencies.py")], cwd=work,
                           env=env, capture_output=True, text=True, timeout=120, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    assert json.loads(check.stdout)["ok"] is True


def paragraphs(text: str) -> List[str]:
    out: List[str] = []
    for block in re.split(r"\n\s*\n", text):
        if block.lstrip().startswith("|") and out:
            out[-1] += "\n\n" + block
        else:
            out.append(block)
    return out


def test_installed_docs_point_only_at_installed_files(clone, tmp_path):
    installed_ok(make_install(clone, tmp_path / "skills", env_for(tmp_path)))
    target = tmp_path / "skills" / SKILL
    problems = []
    for doc in [target / "SKILL.md", *sorted((target / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if not re.match(r"[a-z]+:", link) and not (doc.parent / link).exists():
                problems.append(f"{doc.name}: link to {link}, which is not installed")
        # a paragraph (a table counts with the paragraph that introduces it) naming a
        # repository-only file says where that file is
        for part in paragraphs(text):
            named = REPO_ONLY.search(part)
            if named and "source repository" not in part:
                problems.append(f"{doc.name}: names {named.group(0)!r} without saying it is in "
                                f"the source repository:\n    {part.strip()[:300]}")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- upgrades


def test_an_upgrade_leaves_no_stale_file(clone, tmp_path):
    env = env_for(tmp_path)
    (clone / "scripts" / "old_helper.py").write_text("# removed in the next version\n")
    installed_ok(make_install(clone, tmp_path / "skills", env))
    target = tmp_path / "skills" / SKILL
    assert (target / "scripts" / "old_helper.py").is_file()
    (clone / "scripts" / "old_helper.py").unlink()
    (clone / "docs" / "usage.md").write_text("# Usage, new version\n")
    (target / "scripts" / "__pycache__").mkdir()  # a cache the old install grew while in use
    installed_ok(make_install(clone, tmp_path / "skills", env))
    assert not (target / "scripts" / "old_helper.py").exists()
    assert not (target / "scripts" / "__pycache__").exists()
    assert (target / "docs" / "usage.md").read_text() == "# Usage, new version\n"
    assert set(tree(target)) == set(shipped(clone)) | {MANIFEST}
    assert sorted(os.listdir(tmp_path / "skills")) == [SKILL]


@pytest.mark.parametrize("foreign", ["another skill", "our SKILL.md but no manifest",
                                     "a file", "an empty folder"])
def test_a_foreign_target_is_refused_untouched_and_force_replaces_it(clone, tmp_path, foreign):
    env = env_for(tmp_path)
    dest = tmp_path / "skills"
    target = dest / SKILL
    dest.mkdir()
    if foreign == "a file":
        target.write_text("mine\n")
    else:
        target.mkdir()
    if foreign == "another skill":
        (target / "SKILL.md").write_text("---\nname: other-skill\ndescription: x\n---\nmine\n")
        (target / MANIFEST).write_text(json.dumps({"skill": "other-skill"}))
    elif foreign == "our SKILL.md but no manifest":
        shutil.copy2(REPO / "SKILL.md", target / "SKILL.md")
        (target / "notes.txt").write_text("my notes\n")
    before = tree(dest)
    proc = make_install(clone, dest, env)
    assert proc.returncode != 0
    assert "refused" in proc.stderr and "FORCE=1" in proc.stderr and str(target) in proc.stderr
    assert tree(dest) == before and target.exists() == True  # noqa: E712
    proc = make_install(clone, dest, env, force=True)
    installed_ok(proc)
    assert set(tree(target)) == set(shipped(clone)) | {MANIFEST}
    assert sorted(os.listdir(dest)) == [SKILL]


def test_a_symlink_or_the_source_tree_is_refused_even_with_force(clone, tmp_path):
    env = env_for(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep\n")
    dest = tmp_path / "skills"
    dest.mkdir()
    (dest / SKILL).symlink_to(elsewhere)
    proc = make_install(clone, dest, env, force=True)
    assert proc.returncode != 0 and "symbolic link" in proc.stderr
    assert (dest / SKILL).is_symlink() and tree(elsewhere) == {"keep.txt": tree(elsewhere)["keep.txt"]}
    assert sorted(os.listdir(dest)) == [SKILL]

    # the clone is itself named as the skill: DEST=its parent would replace the source
    source = tmp_path / "src" / SKILL
    source.parent.mkdir()
    clone.rename(source)
    before = tree(source)
    proc = make_install(source, source.parent, env, force=True)
    assert proc.returncode != 0 and "source tree" in proc.stderr
    assert tree(source) == before
    # …and so would a DEST inside what ships
    proc = make_install(source, source / "docs", env, force=True)
    assert proc.returncode != 0 and "source tree" in proc.stderr
    assert tree(source) == before


# --------------------------------------------------------------------------- interruptions


def test_a_kill_before_the_swap_leaves_the_old_install_whole(clone, tmp_path):
    env = env_for(tmp_path)
    dest = tmp_path / "skills"
    installed_ok(make_install(clone, dest, env))
    old = tree(dest / SKILL)
    (clone / "scripts" / "new_helper.py").write_text("# next version\n")
    proc = subprocess.Popen(
        [sys.executable, str(clone / "tools" / "install_skill.py"), "--dest", str(dest)],
        env={**env, "GH_MONITOR_TEST_INSTALL_PAUSE": "60"}, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        line = ""
        while "pausing" not in line:
            assert time.monotonic() < deadline, "the installer never reached the swap"
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "the installer ended before the swap"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    assert tree(dest / SKILL) == old  # the old install, whole and untouched
    leftovers = [n for n in os.listdir(dest) if n != SKILL]
    assert leftovers == [f".{SKILL}.new-{proc.pid}"]
    # the next run cleans up and installs the new version
    rerun = make_install(clone, dest, env)
    installed_ok(rerun)
    assert (dest / SKILL / "scripts" / "new_helper.py").is_file()
    assert sorted(os.listdir(dest)) == [SKILL]


def test_a_kill_between_the_renames_is_restored_by_the_next_run(clone, tmp_path):
    """Killed after the old install was moved aside: the next run puts it back first, even when
    that run itself then fails (here: the clone lost a shipped file)."""
    env = env_for(tmp_path)
    dest = tmp_path / "skills"
    installed_ok(make_install(clone, dest, env))
    old = tree(dest / SKILL)
    (dest / SKILL).rename(dest / f".{SKILL}.old-4242")  # what a kill mid-swap leaves
    (clone / "requirements.txt").unlink()
    proc = make_install(clone, dest, env)
    assert proc.returncode != 0 and "requirements.txt is missing" in proc.stderr
    assert "restored" in proc.stderr
    assert tree(dest / SKILL) == old and sorted(os.listdir(dest)) == [SKILL]
