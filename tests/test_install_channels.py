"""Installed the way agents' users install skills (CONTRACT section 16), with the real tools.

The plugin marketplace through the real Claude Code CLI, `uv run` of the PEP 723 blocks, and
vercel-labs' `skills add`, each from a `git archive HEAD` copy (never the work tree, which holds
.venv) and with HOME in a temporary folder; the installed scripts then run against the fake
GitHub. The tools are pinned in tools/install_test_tools.py and installed by `make test-tools`
(or here, when missing) into a cache folder; a test skips only when its registry cannot be
reached.
Then a Python without `requests`: the `dependency` error, and what still works without it.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Dict, List

import pytest

from tests.support import OWNER, REPO, REPOSITORY, SCRIPT_PYTHON, Run, clean_env, script_env

sys.path.insert(0, str(REPO / "tools"))
import install_test_tools as tools  # noqa: E402

SKILL = "gh-issue-comment-monitor"
PLUGIN_ID = f"{SKILL}@{SKILL}"
ISSUE = 5
ENTRY_SCRIPTS = ["scripts/check_issue_updates.py", "scripts/get_latest_comments.py",
                 "scripts/get_pr_comments.py", "scripts/manage_issue_comment.py",
                 "verify_dependencies.py"]
# The Claude Code CLI offline: no updater, no telemetry, no error reports (as in the Makefile).
CLAUDE_OFFLINE = {"DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                  "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}


# -- helpers --------------------------------------------------------------------------------------

_TRIED: Dict[str, str] = {}  # one install attempt per tool and session


def tool(name: str) -> Path:
    """The pinned tool, installed when missing; a skip when its registry cannot be reached."""
    path = tools.binary(name)
    if path is None:
        if name not in _TRIED:
            _TRIED[name] = tools.install(name, tools.DEFAULT_DEST) or ""
        path = tools.binary(name)
        if path is None:
            reason = _TRIED[name] or tools.unavailable(name) or "unknown failure"
            if tools.reachable_failure(reason):
                pytest.skip(f"{reason} (registry unreachable: this test needs it)")
            pytest.fail(reason)
    return path


def run(cmd: List[str], env: Dict[str, str], cwd=None, timeout: float = 180) -> Run:
    proc = subprocess.run([str(c) for c in cmd], env=env, cwd=cwd, capture_output=True,
                          timeout=timeout, check=False, stdin=subprocess.DEVNULL)
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"),
               proc.stderr.decode("utf-8", "replace"))


def tool_env(home: Path, **extra: str) -> Dict[str, str]:
    """The caller's environment with HOME elsewhere, no agent or GitHub variables."""
    env = {k: v for k, v in clean_env().items()
           if not k.startswith(("ANTHROPIC_", "CLAUDE_", "UV_", "VIRTUAL_ENV", "npm_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_CACHE_HOME=str(home / ".cache"), XDG_DATA_HOME=str(home / ".local/share"))
    env.update(extra)
    return env


def version_of_skill(text: str) -> str:
    m = re.search(r"^metadata:\s*\n(?:[ \t]+.*\n)*?[ \t]+version:\s*[\"']?([^\"'\s]+)", text, re.M)
    assert m, "SKILL.md has no metadata.version"
    return m.group(1)


def seed(fake, comments: int = 3) -> List[int]:
    fake.add_repo(OWNER, "hello")
    fake.add_issue(OWNER, "hello", ISSUE)
    return fake.add_comments(OWNER, "hello", ISSUE, comments)


def check_cmd(script: Path, root: Path) -> List[str]:
    return [str(script), "--repo", REPOSITORY, "--issue", str(ISSUE), "--root", str(root)]


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    """`git archive HEAD` of this repository, unpacked: what a clone (or GitHub) serves."""
    if not (REPO / ".git").exists():
        pytest.skip(f"{REPO} is not a git clone: nothing to archive")
    out = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", "HEAD"],
                         capture_output=True, check=True).stdout
    folder = tmp_path_factory.mktemp("archive") / SKILL
    folder.mkdir()
    with tarfile.open(fileobj=io.BytesIO(out)) as tar:
        tar.extractall(folder)  # noqa: S202 (our own HEAD)
    return folder


# -- one version, one dependency block ----------------------------------------------------------

def test_one_version_in_both_manifests_skill_md_and_the_package():
    """Claude Code serves an upgrade only when the plugin's version moves: every place agrees."""
    marketplace = json.loads((REPO / ".claude-plugin/marketplace.json").read_text())
    plugin = json.loads((REPO / ".claude-plugin/plugin.json").read_text())
    init = (REPO / "scripts/ghcomments/__init__.py").read_text()
    package = re.search(r'^__version__ = "([^"]+)"', init, re.M).group(1)
    skill = version_of_skill((REPO / "SKILL.md").read_text())
    [entry] = marketplace["plugins"]
    assert entry["source"] == "./" and "skills" not in entry and "skills" not in plugin
    assert entry["name"] == plugin["name"] == marketplace["name"] == SKILL
    assert entry["version"] == plugin["version"] == skill == package, \
        (entry["version"], plugin["version"], skill, package)
    assert re.fullmatch(r"\d+\.\d+\.\d+", package)


def test_every_entry_script_carries_one_pep723_block_with_the_requirements_bound():
    import tomllib

    [bound] = re.findall(r"^requests>=([0-9.]+)\s*$", (REPO / "requirements.txt").read_text(),
                         re.M)
    block = re.compile(r"(?m)^# /// (?P<type>[a-zA-Z0-9-]+)$\s(?P<content>(^#(| .*)$\s)+)^# ///$")
    for script in ENTRY_SCRIPTS:
        text = (REPO / script).read_text()
        blocks = [m for m in block.finditer(text) if m.group("type") == "script"]
        assert len(blocks) == 1, script
        toml = "".join(line[2:] if line.startswith("# ") else line[1:]
                       for line in blocks[0].group("content").splitlines(keepends=True))
        meta = tomllib.loads(toml)
        assert meta == {"requires-python": ">=3.9", "dependencies": [f"requests>={bound}"]}, \
            script
        assert text.startswith("#!/usr/bin/env python3\n# /// script\n"), script


# -- a Python without requests ----------------------------------------------------------------------

def bare(python: str, script: str, *args, env: Dict[str, str], stdin: bytes = b"") -> Run:
    proc = subprocess.run([python, str(REPO / script), *[str(a) for a in args]], env=env,
                          input=stdin, capture_output=True, timeout=120, check=False)
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"),
               proc.stderr.decode("utf-8", "replace"))


def assert_dependency_error(r: Run, python: str) -> None:
    assert r.code == 2, r
    error = r.json["error"]
    assert error["code"] == "dependency" and error["status"] is None, r
    for words in ("pip", "python3-requests", "uv run", python):
        assert words in error["message"], (words, r)
    assert "Traceback" not in r.stderr and "ModuleNotFoundError" not in r.stdout + r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("error (dependency): "), r


def test_without_requests_every_read_and_write_is_the_dependency_error(
        fake, python_without_requests, tmp_path):
    seed(fake)
    env = script_env(fake)
    py = python_without_requests
    r = bare(py, "scripts/check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
             "--root", tmp_path, env=env)
    assert_dependency_error(r, py)
    assert fake.requests == []  # refused before anything was sent
    assert_dependency_error(bare(py, "scripts/get_latest_comments.py", "--repo", REPOSITORY,
                                 "--issue", ISSUE, "--last-n", 2, "--root", tmp_path, env=env),
                            py)
    assert_dependency_error(bare(py, "scripts/get_pr_comments.py", "--repo", REPOSITORY,
                                 "--pr", ISSUE, "--format", "json", env=env), py)
    assert_dependency_error(bare(py, "scripts/manage_issue_comment.py", "--action", "create",
                                 "--repo", REPOSITORY, "--issue", ISSUE, "--body-file", "-",
                                 env=env, stdin=b"hello\n"), py)
    assert fake.requests == []


def test_without_requests_the_304_poll_confirm_and_dry_run_still_work(
        fake, python_without_requests, tmp_path):
    seed(fake, 30)
    env = script_env(fake)
    py = python_without_requests
    look = subprocess.run([SCRIPT_PYTHON, *check_cmd(REPO / "scripts/check_issue_updates.py",
                                                     tmp_path)],
                          env=env, capture_output=True, check=False)
    assert look.returncode == 0, look
    snapshot = json.loads(look.stdout)["snapshot_id"]
    r = bare(py, "scripts/get_latest_comments.py", "--repo", REPOSITORY, "--issue", ISSUE,
             "--root", tmp_path, "--confirm-updates", "--snapshot-id", snapshot, env=env)
    assert r.code == 0 and r.json["state_updated"] is True, r
    fake.clear_log()
    r = bare(py, "scripts/check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
             "--root", tmp_path, env=env)
    assert r.code == 0 and r.json["has_updates"] is False, r
    assert [q.status for q in fake.requests] == [304]
    r = bare(py, "scripts/manage_issue_comment.py", "--action", "create", "--repo", REPOSITORY,
             "--issue", ISSUE, "--body-file", "-", "--dry-run", env=env, stdin=b"hi\n")
    assert r.code == 0 and r.json["dry_run"] is True, r
    new = fake.add_comments(OWNER, "hello", ISSUE, 2)  # news that the probe's answer carries
    r = bare(py, "scripts/check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
             "--root", tmp_path, env=env)
    assert r.code == 0 and [c["id"] for c in r.json["new_comments"]] == new, r
    assert "Traceback" not in r.stderr
    (tmp_path / "elsewhere").mkdir()
    r = bare(py, "scripts/check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
             "--root", tmp_path / "elsewhere", env=env)  # a first look: not conditional
    assert_dependency_error(r, py)


def test_without_requests_gh_carries_the_reads_with_transport_gh_and_auto(
        fake, gh_env, python_without_requests, tmp_path):
    new = seed(fake, 3)
    py = python_without_requests
    for name in ("gh", "auto", "auto2"):
        (tmp_path / name).mkdir()
    r = bare(py, "scripts/check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
             "--root", tmp_path / "gh", "--transport", "gh", env=gh_env)
    assert r.code == 0 and [c["id"] for c in r.json["new_comments"]] == new, r
    # auto: requests would be first; without it, the logged-in gh for the same API, with a warning
    fake.clear_log()
    r = bare(py, "scripts/check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
             "--root", tmp_path / "auto", "--api-url", "http://api.github.localhost",
             env=gh_env)
    assert r.code == 0 and [c["id"] for c in r.json["new_comments"]] == new, r
    assert "requests is not installed" in r.stderr and "gh CLI" in r.stderr, r
    assert fake.requests and all(q.target.startswith("http://api.github.localhost/")
                                 for q in fake.requests)
    # auto with a gh that is not logged in: the dependency error, not an auth error
    r = bare(py, "scripts/check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
             "--root", tmp_path / "auto2", "--api-url", "http://api.github.localhost",
             env=dict(gh_env, GH_TOKEN="", PATH=str(tmp_path)))
    assert r.code == 2 and r.json["error"]["code"] == "dependency", r


# -- the Claude Code CLI: validate, marketplace add, install, run ------------------------------------

def claude(home: Path, *args, cwd=None) -> Run:
    return run([tool("claude"), *args], tool_env(home, **CLAUDE_OFFLINE), cwd=cwd)


def installed(home: Path) -> dict:
    data = json.loads((home / ".claude/plugins/installed_plugins.json").read_text())
    [entry] = data["plugins"][PLUGIN_ID]
    return entry


def test_claude_validates_adds_and_installs_the_marketplace_then_the_script_runs(
        archive, fake, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    r = claude(home, "plugin", "validate", archive, "--strict")
    assert r.code == 0 and "Validation passed" in r.stdout, r
    assert f"skills: {SKILL}:{SKILL}" in r.stdout, r  # the root SKILL.md is the plugin's skill
    r = claude(home, "plugin", "marketplace", "add", archive)
    assert r.code == 0, r
    r = claude(home, "plugin", "install", PLUGIN_ID)
    assert r.code == 0 and "Successfully installed" in r.stdout, r
    entry = installed(home)
    version = json.loads((archive / ".claude-plugin/plugin.json").read_text())["version"]
    path = Path(entry["installPath"])
    assert entry["version"] == version and path.name == version and path.is_relative_to(home)
    assert (path / "SKILL.md").read_bytes() == (archive / "SKILL.md").read_bytes()
    assert not (path / ".venv").exists()
    new = seed(fake)
    root = tmp_path / "work"
    root.mkdir()
    r = run([SCRIPT_PYTHON, *check_cmd(path / "scripts/check_issue_updates.py", root)],
            script_env(fake), cwd=root)
    assert r.code == 0 and [c["id"] for c in r.json["new_comments"]] == new, r


def test_claude_serves_an_upgrade_only_when_the_version_moves(archive, tmp_path):
    source = tmp_path / "source"
    shutil.copytree(archive, source)
    home = tmp_path / "home"
    home.mkdir()
    assert claude(home, "plugin", "marketplace", "add", source).code == 0
    assert claude(home, "plugin", "install", PLUGIN_ID).code == 0
    first = installed(home)
    (source / "SKILL.md").write_text((source / "SKILL.md").read_text() + "\nA change.\n")
    assert claude(home, "plugin", "marketplace", "update", SKILL).code == 0
    r = claude(home, "plugin", "update", PLUGIN_ID)
    assert r.code == 0, r
    assert installed(home)["installPath"] == first["installPath"]  # same version: no upgrade
    assert b"A change." not in (Path(first["installPath"]) / "SKILL.md").read_bytes()
    for manifest in (".claude-plugin/plugin.json", ".claude-plugin/marketplace.json"):
        path = source / manifest
        path.write_text(path.read_text().replace(f'"{first["version"]}"', '"99.0.0"'))
    assert claude(home, "plugin", "marketplace", "update", SKILL).code == 0
    r = claude(home, "plugin", "update", PLUGIN_ID)
    assert r.code == 0, r
    now = installed(home)
    assert now["version"] == "99.0.0" and Path(now["installPath"]).name == "99.0.0", now
    assert b"A change." in (Path(now["installPath"]) / "SKILL.md").read_bytes()


# -- GitHub's Copilot CLI: the same marketplace ----------------------------------------------------

def test_copilot_adds_the_marketplace_and_installs_the_root_skill(archive, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = tool_env(home, COPILOT_AUTO_UPDATE="false", COPILOT_OFFLINE="true")
    copilot = tool("copilot")
    r = run([copilot, "plugin", "marketplace", "add", archive], env)
    assert r.code == 0 and f'"{SKILL}" added' in r.stdout, r
    r = run([copilot, "plugin", "install", PLUGIN_ID], env)
    assert r.code == 0 and "Installed 1 skill" in r.stdout, r  # the root SKILL.md
    r = run([copilot, "plugin", "list"], env)
    version = json.loads((archive / ".claude-plugin/plugin.json").read_text())["version"]
    assert r.code == 0 and f"{PLUGIN_ID} (v{version}) (enabled)" in r.stdout, r


# -- OpenAI's Codex CLI: the same marketplace --------------------------------------------------------

def test_codex_adds_the_marketplace_and_installs_the_plugin_then_the_script_runs(
        archive, fake, tmp_path):
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    env = tool_env(home, CODEX_HOME=str(home / ".codex"))
    codex = tool("codex")
    r = run([codex, "plugin", "marketplace", "add", archive], env)
    assert r.code == 0 and f"Added marketplace `{SKILL}`" in r.stdout, r
    r = run([codex, "plugin", "add", PLUGIN_ID], env)
    assert r.code == 0, r
    m = re.search(r"^Installed plugin root: (.+)$", r.stdout, re.M)
    version = json.loads((archive / ".claude-plugin/plugin.json").read_text())["version"]
    path = Path(m.group(1).strip())
    assert path == home / ".codex/plugins/cache" / SKILL / SKILL / version, r
    r = run([codex, "plugin", "list"], env)
    assert re.search(rf"^{re.escape(PLUGIN_ID)}\s+installed, enabled\s+{re.escape(version)}\s",
                     r.stdout, re.M), r
    new = seed(fake)
    root = tmp_path / "work"
    root.mkdir()
    r = run([SCRIPT_PYTHON, *check_cmd(path / "scripts/check_issue_updates.py", root)],
            script_env(fake), cwd=root)
    assert r.code == 0 and [c["id"] for c in r.json["new_comments"]] == new, r


# -- uv: the PEP 723 block on a Python without requests -------------------------------------------

def test_uv_run_gives_a_python_without_requests_its_dependency(
        fake, python_without_requests, tmp_path):
    uv = tool("uv")
    new = seed(fake)
    env = dict(script_env(fake), **{k: v for k, v in tool_env(tmp_path / "home").items()
                                    if k in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")})
    env.update(UV_PYTHON_DOWNLOADS="never", UV_CACHE_DIR=str(tmp_path / "uv-cache"),
               UV_NO_PROGRESS="1")
    for name in ("SSL_CERT_FILE", "UV_INDEX_URL", "UV_DEFAULT_INDEX"):  # the machine's, if set
        if os.environ.get(name):
            env[name] = os.environ[name]
    env.pop("VIRTUAL_ENV", None)
    root = tmp_path / "work"
    root.mkdir()
    r = run([uv, "run", "--python", python_without_requests,
             *check_cmd(REPO / "scripts/check_issue_updates.py", root)], env, cwd=root,
            timeout=300)
    if r.code != 0 and r.stdout == "" and tools.reachable_failure(r.stderr):
        pytest.skip(f"uv could not fetch requests from PyPI: {r.stderr.strip()[-300:]}")
    assert r.code == 0 and [c["id"] for c in r.json["new_comments"]] == new, r
    assert (tmp_path / "uv-cache").is_dir()
    r = run([uv, "run", "--python", python_without_requests, REPO / "verify_dependencies.py"],
            env, cwd=root)
    checks = {c["name"]: c for c in r.json["checks"]}
    assert checks["requests"]["ok"] is True, r
    assert python_without_requests not in checks["requests"]["detail"]  # uv's environment


# -- vercel-labs' skills: `npx skills add PATH` ----------------------------------------------------

def test_skills_add_copies_the_root_skill_into_the_agents_folder(archive, fake, tmp_path):
    skills = tool("skills")
    project = tmp_path / "project"
    project.mkdir()
    env = tool_env(tmp_path / "home", DISABLE_TELEMETRY="1", DO_NOT_TRACK="1")
    r = run([skills, "add", archive, "--agent", "claude-code", "--yes", "--copy"], env,
            cwd=project)
    assert r.code == 0, r
    target = project / ".claude/skills" / SKILL
    assert (target / "SKILL.md").read_bytes() == (archive / "SKILL.md").read_bytes(), r
    new = seed(fake)
    r = run([SCRIPT_PYTHON, *check_cmd(target / "scripts/check_issue_updates.py", project)],
            script_env(fake), cwd=project)
    assert r.code == 0 and [c["id"] for c in r.json["new_comments"]] == new, r
