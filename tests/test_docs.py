"""The documentation cannot rot silently.

- Every command in a ```bash block of SKILL.md, README.md and docs/*.md is run, in order, against
  the fake GitHub seeded with the demo data (octo-org/hello-world, issue 5, PR 7), from a work
  root where `scripts/` and `verify_dependencies.py` are the bundle's own, and must exit as
  documented: 0, or N when the command ends with `# exits N`. Excepted: commands ending with
  `# needs a real token` (they need the real GitHub) or `# sets up your machine` (installs,
  logins, tokens), `make test` (it runs this file) and
  `make demo` (run below). `uv run …` runs with the pinned uv (tools/install_test_tools.py),
  skipped only when it cannot be installed. `HOME` and `DEST` are a temporary folder, so the README's first-use
  commands (`make install-skill DEST="$HOME/…"`, then the installed scripts) install into it,
  never into the real home. `SNAPSHOT_ID` is replaced by the `snapshot_id` of the last check
  the same document ran, `COMMENT_ID` by the `commentId` of its last post (or reply),
  `REVIEW_ID` and `FIRST_INLINE_ID` by the `reviewId` and first of the `commentIds` of its last
  review, `SECOND_INLINE_ID` by the second, `THREAD_ID` by the first unresolved thread's `id`
  in its last `get_pr_comments.py` JSON or `--pr` round's `threads`.
- Commands may appear only in ```bash blocks (```text and ```json blocks are output).
- Every flag in every script's --help and every exit code is in docs/reference.md.
- `make demo` (or tests/demo.py when the .venv is not built by make) runs offline and shows
  the 304.
- SKILL.md passes `agentskills validate` (skills-ref) in a folder named as the skill, invalid
  copies fail it, and `make lint` fails on an invalid one.
- SKILL.md is at most 250 lines and links one page per task (TASK_PAGES), each of which the
  installer ships; every flag SKILL.md or a task page names is in some script's --help; every
  `--unfollow` example names its round by the key `--followed` prints.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Set

import pytest

from tests.fakegithub.seeds import DEMO_TOKEN, seed_demo
from tests.support import REPO, clean_env

REQUIRED_DOCS = ["SKILL.md", "README.md", "docs/usage.md"]
# One page per task, linked by name from SKILL.md; each is read alone, so each runs alone.
TASK_PAGES = ["docs/inbox.md", "docs/pr-rounds.md", "docs/edits-and-events.md",
              "docs/writing.md", "docs/exit-codes.md"]
OTHER_DOCS = ["docs/index.md", "docs/dependencies.md", "docs/reference.md", *TASK_PAGES]
SKILL_MAX_LINES = 250  # SKILL.md is read whole on every task
SKILL = "gh-issue-comment-monitor"
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)\s*$")
EXITS = re.compile(r"\s#\s*exits\s+(\d+)\s*$")
REAL_TOKEN = re.compile(r"\s#\s*needs a real token\s*$")
SETUP = re.compile(r"\s#\s*sets up your machine\s*$")
LOOKS_LIKE_COMMAND = re.compile(
    r"^\s*(\$\s+)?(python3\s+(scripts/|verify_dependencies\.py)|bash\s+scripts/"
    r"|scripts/get-pr-comments\.sh|make\s)")
OUTPUT_LANGS = {"text", "json", "jsonc", "yaml", "diff", "markdown", "md"}
SCRIPTS = ["check_issue_updates.py", "get_latest_comments.py", "get_pr_comments.py",
           "manage_issue_comment.py", "verify_dependencies.py", "get-pr-comments.sh"]


# --------------------------------------------------------------------------- parsing


@dataclass
class Block:
    lang: str
    line: int  # 1-based line of the opening fence
    lines: List[str]


@dataclass
class Command:
    doc: str
    line: int
    text: str
    expect: Optional[int]  # None: not run here
    why_not: str = ""


def code_blocks(text: str) -> List[Block]:
    blocks: List[Block] = []
    current: Optional[Block] = None
    fence = indent = ""
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if current is None:
            if m:
                indent, fence = m.group(1), m.group(2)
                current = Block(m.group(3).lower(), number, [])
            continue
        if m and m.group(2).startswith(fence) and not m.group(3):
            blocks.append(current)
            current = None
            continue
        current.lines.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
    return blocks


def commands_of(doc: str, text: str) -> List[Command]:
    out: List[Command] = []
    for block in code_blocks(text):
        if block.lang not in ("bash", "sh", "shell"):
            continue
        pending, start = "", 0
        for offset, raw in enumerate(block.lines, 1):
            line = raw.rstrip()
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if not pending:
                start = block.line + offset
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            full = (pending + line).strip()
            pending = ""
            out.append(classify(doc, start, full))
    return out


def classify(doc: str, line: int, text: str) -> Command:
    if REAL_TOKEN.search(text):
        return Command(doc, line, text, None, "marked as needing a real token")
    if SETUP.search(text):
        return Command(doc, line, text, None, "changes the reader's machine (install, login)")
    m = EXITS.search(text)
    expect = int(m.group(1)) if m else 0
    if re.match(r"^make\s+test\b", text):
        return Command(doc, line, text, None, "make test runs this file")
    if re.match(r"^make\s+demo\b", text):
        return Command(doc, line, text, None, "run by test_make_demo_runs_offline")
    return Command(doc, line, text, expect)


def doc_text(doc: str) -> str:
    return (REPO / doc).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- running


@functools.cache
def _uv_bin() -> Optional[Path]:
    """The pinned uv (make test-tools), for the documented `uv run` commands; None without it."""
    sys.path.insert(0, str(REPO / "tools"))
    import install_test_tools as tools

    path = tools.binary("uv")
    if path is None:
        tools.install("uv", tools.DEFAULT_DEST)
        path = tools.binary("uv")
    return path


def _uv_offline(stderr: bytes) -> bool:
    """A `uv run` that failed because the package index could not be reached."""
    sys.path.insert(0, str(REPO / "tools"))
    import install_test_tools as tools

    return tools.reachable_failure(stderr.decode("utf-8", "replace"))


def _need_shell_tools() -> Optional[str]:
    missing = [t for t in ("gh", "jq") if shutil.which(t) is None]
    if not missing:
        return None
    message = f"{' and '.join(missing)} not installed: the shell fallback's commands need them"
    if os.environ.get("CI"):
        pytest.fail(message)
    return message


def _work_root(tmp_path: Path) -> Path:
    """A user's work root: a checkout of octo-org/hello-world on PR 7's branch, with the bundle's
    scripts at their documented relative paths."""
    work = tmp_path / "work"
    work.mkdir()
    for git in (["init", "-q", "-b", "feature/login"],
                ["remote", "add", "origin", "https://github.com/octo-org/hello-world.git"]):
        subprocess.run(["git", *git], cwd=work, check=True, capture_output=True,
                       env=clean_env(GIT_CONFIG_NOSYSTEM="1", HOME=str(tmp_path)))
    (work / "scripts").symlink_to(REPO / "scripts")
    (work / "verify_dependencies.py").symlink_to(REPO / "verify_dependencies.py")
    return work


def _env(fake, tmp_path: Path) -> Dict[str, str]:
    """The fake as the API (GITHUB_API_URL + GH_TOKEN, as Actions sets them); gh reaches it as
    github.localhost through the proxy (tests/conftest.py); `python3` is this interpreter."""
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "python3").symlink_to(sys.executable)
    gh_config = tmp_path / "gh-config"
    gh_config.mkdir()
    home = tmp_path / "home"  # the README installs the skill under ~: never the real home
    home.mkdir()
    uv = _uv_bin()
    if uv is not None:  # `uv run` on this interpreter: requests from PyPI into a kept cache
        (shim / "uv").symlink_to(uv)
    return clean_env(
        UV_CACHE_DIR=str(uv.parent.parent.parent / "uv-cache") if uv else "",
        UV_PYTHON_DOWNLOADS="never", UV_NO_PROGRESS="1",
        HOME=str(home), DEST=str(home / ".claude" / "skills"),
        GITHUB_API_URL=fake.url, GH_TOKEN=DEMO_TOKEN, GH_HOST="github.localhost",
        HTTP_PROXY=fake.url, HTTPS_PROXY=fake.url, http_proxy=fake.url, https_proxy=fake.url,
        NO_PROXY="", no_proxy="", GH_CONFIG_DIR=str(gh_config), GH_NO_UPDATE_NOTIFIER="1",
        GH_PROMPT_DISABLED="1", PATH=f"{shim}{os.pathsep}{os.environ.get('PATH', '')}",
        # documented waits (--wait 540) run time-scaled: about a second each
        GH_MONITOR_TEST_TIME_SCALE="0.002")


def _json_or_none(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


@pytest.mark.parametrize("doc", REQUIRED_DOCS + OTHER_DOCS)
def test_documented_commands_exit_as_documented(doc, fake, tmp_path):
    path = REPO / doc
    if not path.exists():
        if doc in REQUIRED_DOCS:
            pytest.fail(f"{doc} is missing")
        pytest.skip(f"{doc} does not exist")
    commands = commands_of(doc, doc_text(doc))
    if doc in REQUIRED_DOCS:
        assert [c for c in commands if c.expect is not None], f"{doc} shows no runnable command"
    seed_demo(fake)
    work = _work_root(tmp_path)
    env = _env(fake, tmp_path)
    values: Dict[str, Optional[str]] = {"SNAPSHOT_ID": None, "COMMENT_ID": None,
                                        "REVIEW_ID": None, "FIRST_INLINE_ID": None,
                                        "SECOND_INLINE_ID": None, "THREAD_ID": None}
    failures: List[str] = []
    fields: Set[str] = set()
    ran = 0
    for cmd in commands:
        if cmd.expect is None:
            continue
        if "get-pr-comments.sh" in cmd.text:
            reason = _need_shell_tools()
            if reason:
                continue
        if cmd.text.startswith("uv ") and not (Path(env["PATH"].split(os.pathsep)[0])
                                               / "uv").exists():
            continue  # uv could not be installed (PyPI unreachable): make test-tools says why
        text = cmd.text
        for name, value in values.items():
            if re.search(rf"\b{name}\b", text):
                if value is None:
                    failures.append(f"{doc}:{cmd.line}: {name} is used before any command "
                                    f"printed one\n    {cmd.text}")
                    text = ""
                    break
                text = re.sub(rf"\b{name}\b", value, text)
        if not text:
            continue
        cwd = REPO if text.startswith("make ") else work
        began = time.monotonic()
        run_env = env
        if text.startswith("uv "):  # uv reaches the package index itself, not through the fake
            run_env = {k: v for k, v in env.items() if k.lower() not in ("http_proxy",
                                                                          "https_proxy")}
        proc = subprocess.run(["bash", "-c", text], cwd=cwd, env=run_env, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=180, check=False)
        if text.startswith("uv ") and proc.returncode != 0 and not proc.stdout \
                and _uv_offline(proc.stderr):
            continue  # the package index is unreachable: nothing to say about the command
        ran += 1
        out = proc.stdout.decode("utf-8", "replace")
        if proc.returncode != cmd.expect:
            failures.append(
                f"{doc}:{cmd.line}: exit {proc.returncode}, documented {cmd.expect} "
                f"({time.monotonic() - began:.1f} s)\n    {cmd.text}\n--- stdout\n{out[-1500:]}"
                f"\n--- stderr\n{proc.stderr.decode('utf-8', 'replace')[-1500:]}")
        doc_json = _json_or_none(out)
        fields |= _keys(doc_json)
        if isinstance(doc_json, dict):
            if isinstance(doc_json.get("snapshot_id"), str):
                values["SNAPSHOT_ID"] = doc_json["snapshot_id"]
            if isinstance(doc_json.get("commentId"), str):
                values["COMMENT_ID"] = doc_json["commentId"]
            if isinstance(doc_json.get("reviewId"), str):
                values["REVIEW_ID"] = doc_json["reviewId"]
                ids = doc_json.get("commentIds") or []
                values["FIRST_INLINE_ID"] = ids[0] if ids else None
                values["SECOND_INLINE_ID"] = ids[1] if len(ids) > 1 else None
            threads = [t for t in doc_json.get("reviewThreads") or []
                       if isinstance(t, dict) and t.get("isResolved") is False]
            threads += [t for t in doc_json.get("threads") or []  # a PR round's thread state
                        if isinstance(t, dict) and t.get("is_resolved") is False]
            if threads:
                values["THREAD_ID"] = threads[0]["id"]
        else:
            m = re.search(r"^snapshot: (\w+)$", out, re.M)
            if m:
                values["SNAPSHOT_ID"] = m.group(1)
    assert not failures, "\n\n".join(failures)
    if doc == "README.md":  # its first-use commands installed the skill in the temporary home
        installed = Path(env["HOME"]) / ".claude" / "skills" / SKILL
        assert (installed / "SKILL.md").is_file() and (installed / "scripts").is_dir()
    if doc in REQUIRED_DOCS:
        assert ran, f"no command of {doc} was run"
    reference = doc_text("docs/reference.md")
    undocumented = sorted(f for f in fields if f"`{f}`" not in reference
                          and not re.search(rf"[`{{,] ?{re.escape(f)}[,}}`]", reference))
    assert not undocumented, f"output fields missing from docs/reference.md: {undocumented}"


def _keys(doc, skip=("headers", "json")) -> Set[str]:
    """Every key of a JSON document, nested ones included (not request headers or bodies)."""
    if isinstance(doc, list):
        return set().union(*(_keys(d) for d in doc)) if doc else set()
    if not isinstance(doc, dict):
        return set()
    keys = set(doc)
    for k, v in doc.items():
        if k not in skip:
            keys |= _keys(v)
    return keys


@pytest.mark.parametrize("doc", REQUIRED_DOCS + OTHER_DOCS)
def test_commands_are_only_in_bash_blocks(doc):
    """A command shown in another kind of block would escape the test above."""
    if not (REPO / doc).exists():
        pytest.skip(f"{doc} does not exist")
    stray = [f"{doc}:{b.line}: {line.strip()}" for b in code_blocks(doc_text(doc))
             if b.lang not in ("bash", "sh", "shell") and b.lang not in OUTPUT_LANGS
             for line in b.lines if LOOKS_LIKE_COMMAND.match(line)]
    assert not stray, "put these in ```bash blocks (or mark output as ```text):\n" + \
        "\n".join(stray)


@pytest.mark.parametrize("doc, scripts", [
    ("docs/usage.md", SCRIPTS),
    ("SKILL.md", [s for s in SCRIPTS if s != "verify_dependencies.py"]),
])
def test_docs_show_every_script(doc, scripts):
    shown = " ".join(c.text for c in commands_of(doc, doc_text(doc)))
    missing = [s for s in scripts if s not in shown]
    assert not missing, f"{doc} shows no command for {missing}"


def _help(script: str) -> str:
    path = REPO / ("verify_dependencies.py" if script == "verify_dependencies.py"
                   else f"scripts/{script}")
    cmd = ["bash", str(path)] if script.endswith(".sh") else [sys.executable, str(path)]
    proc = subprocess.run(cmd + ["--help"], capture_output=True, text=True, timeout=60,
                          env=clean_env(), check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("script", SCRIPTS)
def test_reference_lists_every_flag(script):
    # option lines of the help ("  --flag …", "  -h, --help …"), not flags named in prose
    flags = set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z-]*)", _help(script), re.M)) - {"--help"}
    assert len(flags) >= 3, f"no options found in {script} --help"
    reference = doc_text("docs/reference.md")
    missing = sorted(f for f in flags if f"`{f}" not in reference)
    assert not missing, f"docs/reference.md does not document {script}'s {missing}"


def test_reference_has_every_exit_code_and_the_reserved_sections():
    reference = doc_text("docs/reference.md")
    for code in ("internal", "usage", "auth", "not_found", "rate_limited", "network",
                 "server", "state"):
        assert f"`{code}`" in reference, code
    assert "## Guarantees" in reference and "## Measurements" in reference


# --------------------------------------------------------------------------- the demo


def _make_is_ready() -> bool:
    """`make demo` would not rebuild the .venv (no network, no minutes of pip)."""
    if shutil.which("make") is None:
        return False
    proc = subprocess.run(["make", "-q", ".venv/.installed"], cwd=REPO, capture_output=True,
                          check=False)
    return proc.returncode == 0


def test_make_demo_runs_offline_and_shows_the_304(tmp_path):
    cmd = ["make", "--no-print-directory", "demo"] if _make_is_ready() \
        else [sys.executable, str(REPO / "tests" / "demo.py")]
    env = clean_env(HOME=str(tmp_path))  # no token and no gh login of the caller
    began = time.monotonic()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    elapsed = time.monotonic() - began
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    assert "→ 304 Not Modified" in out
    assert "If-None-Match: W/" in out
    assert "exactly the ones that arrived" in out
    assert "--comment-id" in out and "Unresolved review threads (3)" in out
    # a PR in rounds: the review started before the last round comes back, then the reply
    assert "exactly dave's review and its inline comment" in out
    assert "exactly the reply" in out
    assert "GET …/pulls/7/reviews?per_page=100&page=1 If-None-Match → 304" in out
    # waiting for the reply: the bot's comment does not wake the wait, the human's does
    assert "a bot commented: read, left out" in out and "dave replied: wake up" in out
    assert "test-only variable scales waits" in out  # it says its waits are time-scaled
    # answering a review: one review, the author's reply in a thread, a resolve, the next round
    assert "octocat's next round: exactly alice's reply" in out and "Resolved review thread" in out
    # the rounds carry the thread's state: unresolved, then resolved after the resolve
    assert "src/auth/session.py:57  unresolved" in out
    assert "src/auth/session.py:57  resolved" in out
    assert elapsed < 60, f"make demo took {elapsed:.0f} s"


# --------------------------------------------------------------------------- SKILL.md


def _agentskills() -> List[str]:
    pytest.importorskip("skills_ref", reason="skills-ref (agentskills) needs Python 3.11+")
    exe = Path(sys.executable).with_name("agentskills")
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "import sys; from skills_ref.cli import main; sys.exit(main())"]


def _skill_copy(tmp_path: Path, text: str, folder: str = SKILL) -> Path:
    dest = tmp_path / folder
    dest.mkdir()
    (dest / "SKILL.md").write_text(text, encoding="utf-8")
    shutil.copytree(REPO / "docs", dest / "docs")
    return dest


def _validate(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(_agentskills() + ["validate", str(folder)], capture_output=True,
                          text=True, timeout=60, check=False)


def test_skill_md_validates_with_agentskills(tmp_path):
    proc = _validate(_skill_copy(tmp_path, doc_text("SKILL.md")))
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("breakage", ["bad name", "folder differs", "user-invocable on top",
                                      "no description"])
def test_invalid_skill_md_fails_agentskills(tmp_path, breakage):
    text, folder = doc_text("SKILL.md"), SKILL
    if breakage == "bad name":
        text = text.replace(f"name: {SKILL}", "name: GH_Issue_Monitor", 1)
        folder = "GH_Issue_Monitor"
    elif breakage == "folder differs":
        folder = "issue-monitor"
    elif breakage == "user-invocable on top":
        text = text.replace(f"name: {SKILL}\n", f"name: {SKILL}\nuser-invocable: false\n", 1)
    else:
        text = re.sub(r"^description:.*\n", "", text, count=1, flags=re.M)
    proc = _validate(_skill_copy(tmp_path, text, folder))
    assert proc.returncode != 0, proc.stdout


def test_skill_md_is_the_loop_and_links_one_page_per_task(tmp_path):
    """SKILL.md is read whole every time: at most SKILL_MAX_LINES, the rest in task pages it
    links by name, and each linked page is in the installed skill (tools/install_skill.py)."""
    text = doc_text("SKILL.md")
    assert len(text.splitlines()) <= SKILL_MAX_LINES, \
        f"SKILL.md has {len(text.splitlines())} lines (at most {SKILL_MAX_LINES})"
    linked = set(re.findall(r"\]\((docs/[^)#\s]+)(?:#[^)]*)?\)", text))
    missing = [page for page in TASK_PAGES if page not in linked]
    assert not missing, f"SKILL.md links no {missing}"
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "install_skill.py"),
                           "--dest", str(tmp_path / "skills")], capture_output=True, text=True,
                          timeout=60, env=clean_env(), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    installed = tmp_path / "skills" / SKILL
    for page in sorted(linked):
        assert (REPO / page).is_file(), f"SKILL.md links {page}, which does not exist"
        assert (installed / page).read_bytes() == (REPO / page).read_bytes(), \
            f"SKILL.md links {page}, which the installed skill does not hold"
    manifest = json.loads((installed / ".install-manifest.json").read_text(encoding="utf-8"))
    assert set(TASK_PAGES) <= set(manifest["files"])


@pytest.mark.parametrize("page", TASK_PAGES)
def test_task_page_stands_alone(page):
    """A page an agent opens alone says what it is for and names the conventions it uses."""
    text = doc_text(page)
    assert text.startswith("# "), page
    assert "**Conventions.**" in text and "this skill's folder" in text, page
    assert [c for c in commands_of(page, text) if c.expect is not None], \
        f"{page} shows no runnable command"


def _all_help_flags() -> Set[str]:
    return set().union(*(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", _help(s)))
                         for s in SCRIPTS))


def test_every_flag_named_in_skill_md_and_the_task_pages_exists():
    """No page teaches a flag that no script takes (a planned one included)."""
    known = _all_help_flags()
    assert {"--unfollow", "--include-edits", "--followed"} <= known
    unknown = sorted({f"{doc}: {flag}" for doc in ["SKILL.md", *TASK_PAGES]
                      for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", doc_text(doc))
                      if flag not in known})
    assert not unknown, f"flags in no script's --help: {unknown}"


def _unfollow_examples() -> List[str]:
    """The round each `--unfollow` example names (commands and inline code of every doc);
    placeholders such as REF are not examples."""
    found = []
    for doc in REQUIRED_DOCS + OTHER_DOCS:
        text = doc_text(doc)
        spans = [c.text for c in commands_of(doc, text)] + re.findall(r"`([^`\n]+)`", text)
        for span in spans:
            for arg in re.findall(r"--unfollow[ =]+([^\s`|]+)", span):
                if not arg.startswith("-") and not re.fullmatch(r"\[?[A-Z_]+\]?", arg):
                    found.append(f"{doc}: {arg}")
    return found


def test_unfollow_examples_use_the_key_the_listing_prints(fake, tmp_path):
    """Each `--unfollow` example is a key as the inbox writes it (refs.is_key), and the keys
    of the demo rounds are exactly what `get_latest_comments.py --followed` lists."""
    sys.path.insert(0, str(REPO / "scripts"))
    from ghcomments.store.refs import is_key

    examples = _unfollow_examples()
    assert any(e.startswith("docs/inbox.md: ") for e in examples), examples
    not_keys = [e for e in examples if not is_key(e.split(": ", 1)[1])]
    assert not not_keys, f"--unfollow examples not in the key form --followed prints: {not_keys}"
    seed_demo(fake)
    env = clean_env(GITHUB_API_URL=fake.url, GH_TOKEN=DEMO_TOKEN, HOME=str(tmp_path))
    script = [sys.executable, str(REPO / "scripts" / "check_issue_updates.py")]
    latest = [sys.executable, str(REPO / "scripts" / "get_latest_comments.py")]
    root = ["--root", str(tmp_path)]
    follow = subprocess.run(script + ["--follow", "octo-org/hello-world#5", "--follow",
                                      "octo-org/hello-world/pull/7", *root],
                            capture_output=True, text=True, env=env, timeout=120, check=False)
    assert follow.returncode == 0, follow.stdout + follow.stderr
    snapshot = json.loads(follow.stdout)["snapshot_id"]
    confirm = subprocess.run(latest + ["--followed", "--confirm-updates", "--snapshot-id",
                                       snapshot, *root],
                             capture_output=True, text=True, env=env, timeout=60, check=False)
    assert confirm.returncode == 0, confirm.stdout + confirm.stderr
    listing = subprocess.run(latest + ["--followed", *root], capture_output=True, text=True,
                             env=env, timeout=60, check=False)
    assert listing.returncode == 0, listing.stdout + listing.stderr
    listed = {r["key"] for r in json.loads(listing.stdout)["rounds"]}
    assert listed == {"octo-org/hello-world/issues/5", "octo-org/hello-world/pull/7"}, listed
    demo = {e.split(": ", 1)[1] for e in examples if "octo-org/hello-world/" in e}
    assert demo and demo <= listed, (demo, listed)


def test_skill_md_shape():
    text = doc_text("SKILL.md")
    front, body = text.split("---", 2)[1:]
    description = re.search(r"^description: (.*)$", front, re.M).group(1)
    assert len(description) < 1024
    assert len(body.splitlines()) < 500
    pointers = re.findall(r"\]\((docs/[^)#]+)\)", body)
    assert {"docs/usage.md", "docs/reference.md", "docs/dependencies.md",
            "docs/index.md"} <= set(pointers)
    for p in pointers:
        assert (REPO / p).is_file() and p.count("/") == 1, p  # one level deep


@pytest.mark.parametrize("valid", [True, False])
def test_make_lint_fails_on_an_invalid_skill_md(tmp_path, valid):
    """The Makefile's lint target, run on a copy of the bundle whose SKILL.md is (in)valid."""
    _agentskills()
    if not _make_is_ready():
        pytest.skip("the .venv was not built by make (make install)")
    copy = tmp_path / "bundle"
    copy.mkdir()
    for name in ("Makefile", "pyproject.toml", "requirements.txt", "requirements-dev.txt"):
        shutil.copy2(REPO / name, copy / name)
    shutil.copytree(REPO / "docs", copy / "docs")
    # lint validates the installed shape: the installer and what it ships
    ignore = shutil.ignore_patterns("__pycache__")
    for name in ("scripts", "tools", ".claude-plugin"):
        shutil.copytree(REPO / name, copy / name, ignore=ignore)
    shutil.copy2(REPO / "verify_dependencies.py", copy / "verify_dependencies.py")
    (copy / ".venv").symlink_to(REPO / ".venv")
    text = doc_text("SKILL.md")
    (copy / "SKILL.md").write_text(text if valid else text.replace(
        f"name: {SKILL}", "name: Not_A_Skill_Name", 1), encoding="utf-8")
    proc = subprocess.run(["make", "--no-print-directory", "lint"], cwd=copy, capture_output=True,
                          text=True, timeout=120, env=clean_env(), check=False)
    if valid:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    else:
        assert proc.returncode != 0 and "must be lowercase" in proc.stdout + proc.stderr


# --------------------------------------------------------------------------- one statement per rule

# Whom the end of a conversation counts for (CONTRACT section 21), said once and alike where an
# agent reads it: the code decides it in round/filters.py (event_reason with ending=...) over
# text/events.py's ENDINGS.
ENDING_RULE = "whoever did it, bots too, unless `--ignore-author` names who did it"


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_skill_md_and_the_events_page_say_the_codes_one_rule_for_endings():
    sys.path.insert(0, str(REPO / "scripts"))
    from ghcomments.round.filters import AuthorFilter
    from ghcomments.text.events import ENDINGS

    filt = AuthorFilter(humans_only=True, ignore=["alice"])
    bot, alice = {"author": "ci[bot]", "author_type": "Bot"}, {"author": "alice"}
    assert {filt.event_reason(bot, ending=True), filt.event_reason(alice, ending=True),
            filt.event_reason(bot, ending=False)} == {None, "ignore_author", "humans_only"}
    assert filt.event_reason(bot, ending=True) is None  # --humans-only passes an ending
    assert filt.event_reason(alice, ending=True) == "ignore_author"  # --ignore-author does not
    for doc in ("SKILL.md", "docs/edits-and-events.md"):
        assert ENDING_RULE in _flat(doc_text(doc)), f"{doc} does not say: {ENDING_RULE}"
    paragraph = next(p for p in doc_text("docs/edits-and-events.md").split("\n\n")
                     if ENDING_RULE in _flat(p))
    missing = sorted(k for k in ENDINGS if f"`{k}`" not in paragraph)
    assert not missing, f"docs/edits-and-events.md's ending rule does not name {missing}"


# --------------------------------------------------------------------------- fields on task pages

CODE_SPAN = re.compile(r"`([^`]+)`")  # inline code, possibly across a line break
FIELD_SPAN = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:: .*)?", re.S)  # a.b, a: x
JSON_KEY = re.compile(r'"([A-Za-z_]\w*)"\s*:')


def _prose(text: str) -> str:
    """The page without its fenced blocks."""
    out, fence = [], ""
    for line in text.splitlines():
        m = FENCE.match(line)
        if m and (not fence or (m.group(2).startswith(fence) and not m.group(3))):
            fence = "" if fence else m.group(2)
            continue
        if not fence:
            out.append(line)
    return "\n".join(out)


def _shown_fields(text: str) -> Set[str]:
    """The field names a page shows: keys of its JSON examples and of the object shapes its
    prose writes as `{a, b: …}` (a name right after `{` or a comma; values after `:` are not)."""
    shown: Set[str] = set()
    for block in code_blocks(text):
        if block.lang in ("json", "jsonc"):
            shown |= set(JSON_KEY.findall("\n".join(block.lines)))
    for span in CODE_SPAN.findall(_prose(text)):
        if span.startswith("{") and span.endswith("}"):
            shown |= set(re.findall(r"[{,]\s*([A-Za-z_]\w*)", span))
    return shown


@pytest.mark.parametrize("page", TASK_PAGES)
def test_a_task_page_explains_every_field_it_shows(page):
    """A page an agent reads alone explains each field its examples and shapes show: the name
    also stands on its own in the prose (`name`, `parent.name` or `name: value`), where the
    page says what it means. The meaning itself is the reviewer's to judge; an example field the
    prose never names again is caught here."""
    text = doc_text(page)
    named: Set[str] = set()
    for span in CODE_SPAN.findall(_prose(text)):
        m = FIELD_SPAN.fullmatch(span)
        if m:
            named |= set(m.group(1).split("."))
    missing = sorted(_shown_fields(text) - named)
    assert not missing, f"{page} shows fields it never explains: {missing}"
