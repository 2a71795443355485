"""Shared fixtures: one fake GitHub server per session, reset for every test."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.fakegithub import FakeGitHub
from tests.fakegithub import server as fake_server_module
from tests.support import SCRIPT_PYTHON

# The fake writes a response in two sends (the headers, then the body). With Nagle's algorithm
# on its socket, the body waits for the client's ACK of the headers, which Linux delays by up to
# 40 ms: 45 ms a request on a keep-alive connection, against 0.4 ms with TCP_NODELAY (as web
# servers set it). The suite's tens of thousands of requests spent most of their time there.
# Only the fake's own socket changes: what it answers, and when a test says so, stays the same.
fake_server_module._Handler.disable_nagle_algorithm = True

# `make test` records its wall time in .tmp/suite-time.json (tests/suitetime.py).
pytest_plugins = ["tests.suitetime"]

GH_TOKEN = "ghp_fakeGitHubTestToken000000000000000000"
GH_LOGIN = "octocat"


def pytest_configure(config):
    """Compile the bundle once, before any worker starts, with the Python that runs the scripts.

    Where PYTHONDONTWRITEBYTECODE=1 is set (this project's machines set it), no script run
    writes its bytecode, so every one of the suite's thousands of runs compiled the package
    from source: about a fifth of the suite's CPU. A user's install has its __pycache__ after
    the first run; the tests now run the scripts in that state. (__pycache__ is ignored by git
    and never installed: tools/install_skill.py copies what ships, and test_install_skill.py
    holds it to that.) A script edited during a run is compiled from source, as Python does
    when a .pyc is stale, and one that does not compile is left to the tests to report.
    """
    if hasattr(config, "workerinput"):  # an xdist worker: the controller did it
        return
    subprocess.run([SCRIPT_PYTHON, "-m", "compileall", "-q", "-j", "0",
                    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                 "scripts")],
                   check=False, capture_output=True, timeout=120)


@pytest.fixture(scope="session")
def fake_server():
    """The running FakeGitHub (127.0.0.1, port 0) shared by the whole session."""
    server = FakeGitHub(html_base="https://github.com").start()
    yield server
    server.stop()


@pytest.fixture
def fake(fake_server):
    """The session's FakeGitHub, emptied: no data, tokens, faults, hooks or log."""
    fake_server.reset()
    return fake_server


@pytest.fixture
def gh_env(fake, tmp_path_factory):
    """Environment that makes the real ``gh`` CLI talk to the fake as host github.localhost.

    gh sends ``http://api.github.localhost/…`` (REST) and ``…/graphql`` through the proxy,
    authenticated with ``GH_TOKEN`` (added to the fake for login ``octocat``).
    """
    gh = shutil.which("gh")
    if gh is None:
        message = "the GitHub CLI (gh) is not installed; the gh-based tests need it (apt-get install gh)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    fake.add_token(GH_TOKEN, login=GH_LOGIN)
    config_dir = tmp_path_factory.mktemp("gh-config")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GH_", "GITHUB_"))}
    env.update(
        {
            "GH_HOST": "github.localhost",
            "GH_TOKEN": GH_TOKEN,
            "HTTP_PROXY": fake.url,
            "HTTPS_PROXY": fake.url,
            "http_proxy": fake.url,
            "https_proxy": fake.url,
            "NO_PROXY": "",
            "no_proxy": "",
            "GH_CONFIG_DIR": str(config_dir),
            "GH_NO_UPDATE_NOTIFIER": "1",
            "GH_PROMPT_DISABLED": "1",
        }
    )
    return env


@pytest.fixture(scope="session")
def python_without_requests(tmp_path_factory):
    """The scripts' Python in a virtual environment without pip or requests: a machine where
    `requests` is missing and pip is refused (PEP 668). Its interpreter's path."""
    folder = tmp_path_factory.mktemp("no-requests") / "venv"
    subprocess.run([SCRIPT_PYTHON, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    probe = subprocess.run([str(python), "-c", "import requests"], capture_output=True,
                           check=False)
    assert probe.returncode != 0, f"{python} imports requests: the tests need one without"
    return str(python)
