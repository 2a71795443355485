"""The no-change poll imports only what it uses (CONTRACT section 20).

An agent's most frequent command is a poll answered by one 304. On a plain-HTTP API (the fake
on 127.0.0.1) it must not import requests, urllib3, certifi or ssl: TLS, the CA bundle, the
requests path, the gh transport, the writer and GraphQL are imported when first needed. Run as
an agent runs it (a subprocess, `python3 scripts/check_issue_updates.py ...`), with a
sitecustomize that writes sys.modules at exit; the modules `python -c pass` has loaded with the
same environment (site, .pth files) do not count.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support import NAME, OWNER, SCRIPT_PYTHON, SCRIPTS, Agent

ISSUE = 5
PR = 7
# Never on a plain-HTTP no-change poll (CONTRACT section 20), nor what only other paths use.
FORBIDDEN = ("requests", "urllib3", "certifi", "ssl", "_ssl", "charset_normalizer", "idna",
             "subprocess", "dataclasses", "typing", "ghcomments.writer", "ghcomments.review_writes",
             "ghcomments.outgoing", "ghcomments.streams.pr",
             "ghcomments.streams.threads", "ghcomments.streams.thread_reader",
             "ghcomments.preflight", "ghcomments.round.confirm",
             "ghcomments.round.selectors", "ghcomments.round.wait")
# An issue's round has no review stream; JSON needs no summary renderer.
NOT_FOR_AN_ISSUE = ("ghcomments.streams.review_stream", "ghcomments.streams.review_listing",
                    "ghcomments.streams.review_order", "ghcomments.text.render")


def forbidden(names, extra=()) -> list:
    return sorted(n for n in names
                  if n in FORBIDDEN or n.split(".")[0] in FORBIDDEN or n in extra)


# Loaded first thing by the child's `site` (PYTHONPATH): at exit, the names of the modules in
# sys.modules (a module whose import was refused is not one) go to the file named.
DUMP = """\
import atexit, os, sys
def _dump(path=os.environ.get("GHMON_MODULES_OUT")):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\\n".join(sorted(n for n, m in list(sys.modules.items()) if m is not None)))
atexit.register(_dump)
"""


def imported(argv, env, tmp: Path) -> tuple:
    """(exit code, stdout, the modules the process had loaded when it exited)."""
    hook = tmp / "modules-hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(DUMP, encoding="utf-8")
    out = tmp / "modules.txt"
    env = dict(env, PYTHONPATH=str(hook), GHMON_MODULES_OUT=str(out))
    proc = subprocess.run([SCRIPT_PYTHON, *map(str, argv)], env=env, capture_output=True,
                          timeout=120, check=False)
    names = set(out.read_text(encoding="utf-8").split())
    out.unlink()
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), names


def poll_imports(agent: Agent, *args, nothing_new: str = '"has_updates": false') -> set:
    """The modules a no-change poll imports beyond the interpreter's own start-up."""
    agent.fake.clear_log()
    code, out, names = imported(
        [SCRIPTS / "check_issue_updates.py", "--repo", f"{OWNER}/{NAME}", agent.flag,
         agent.number, "--root", agent.root, *args], agent.env, agent.root)
    assert code == 0, out
    assert nothing_new in out, out
    statuses = [q.status for q in agent.fake.requests]
    assert statuses and set(statuses) == {304}, statuses  # a no-change poll, 304s only
    _, _, before = imported(["-c", "pass"], agent.env, agent.root)
    assert "site" in before and "ghcomments" not in before  # the baseline was read at all
    return names - before


@pytest.fixture
def issue_agent(fake, tmp_path):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    fake.add_comments(OWNER, NAME, ISSUE, 12)
    a = Agent(fake, tmp_path, "--issue", ISSUE)
    a.look_and_confirm()
    return a


def test_the_no_change_poll_imports_neither_requests_nor_ssl_nor_certifi(issue_agent):
    names = poll_imports(issue_agent)
    assert "http.client" in names and "ghcomments.store.state" in names, sorted(names)
    assert forbidden(names, NOT_FOR_AN_ISSUE) == []


def test_the_no_change_poll_in_summary_format_imports_no_more(issue_agent):
    names = poll_imports(issue_agent, "--format", "summary", nothing_new="0 comment(s)")
    assert "ghcomments.text.render" in names
    assert forbidden(names, NOT_FOR_AN_ISSUE[:-1]) == []


def test_a_pull_requests_no_change_poll_imports_neither_requests_nor_ssl(fake, tmp_path):
    fake.add_repo(OWNER, NAME)
    fake.add_pull(OWNER, NAME, PR, title="Add the parser")
    fake.add_comments(OWNER, NAME, PR, 3)
    a = Agent(fake, tmp_path, "--pr", PR)
    a.look_and_confirm()
    names = poll_imports(a)
    assert "ghcomments.streams.review_stream" in names
    assert forbidden(names) == []


def test_the_measurement_sees_requests_where_a_first_look_needs_it(issue_agent, tmp_path):
    """The test's teeth: the same measurement names requests in a first look (no checkpoint:
    its requests are not conditional, so they go through requests)."""
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    code, out, names = imported(
        [SCRIPTS / "check_issue_updates.py", "--repo", f"{OWNER}/{NAME}", "--issue", ISSUE,
         "--root", fresh], issue_agent.env, tmp_path)
    assert code == 0 and '"has_updates": true' in out, out
    assert "requests" in names and "urllib3" in names
    assert forbidden(names) != []


def test_an_https_request_after_a_plain_http_one_gets_http_client_with_tls_back():
    """http.client imported with ssl masked has no HTTPSConnection; the first https request in
    the same process imports ssl and gets it back (plain_http._http_client)."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from ghcomments.net import plain_http as t\n"
            "plain = t._http_client(tls=False)\n"
            "assert 'ssl' not in sys.modules and not hasattr(plain, 'HTTPSConnection')\n"
            "tls = t._http_client(tls=True)\n"
            "assert tls is sys.modules['http.client'] and 'ssl' in sys.modules\n"
            "assert issubclass(tls.HTTPSConnection, tls.HTTPConnection)\n"
            "print('ok')\n")
    proc = subprocess.run([SCRIPT_PYTHON, "-c", code, str(SCRIPTS)], capture_output=True,
                          timeout=60, check=False)
    assert proc.returncode == 0 and proc.stdout == b"ok\n", proc.stderr.decode()[-2000:]
