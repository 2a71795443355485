"""Issue 31, item 11 (CONTRACT section 22): a state folder a group may write is refused unless
the group is the user's own, state is created private, and no planted thing at a temporary
name can make a write wait. Subprocesses against the fake GitHub, as an agent runs them."""

from __future__ import annotations

import grp
import json
import os
import pwd
import stat
import subprocess
import time

import pytest

from tests.support import (
    NAME,
    OWNER,
    REPOSITORY,
    SCRIPT_PYTHON,
    SCRIPTS,
    run_script,
    script_env,
    state_dir,
)

ISSUE = 5
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chgrp to another group")


@pytest.fixture
def issue(fake):
    fake.add_repo(OWNER, NAME)
    fake.add_issue(OWNER, NAME, ISSUE)
    return fake


def check(env, root, *extra):
    return run_script("check_issue_updates.py", "--repo", REPOSITORY, "--issue", ISSUE,
                      "--root", root, *extra, env=env, timeout=60)


def other_group() -> int:
    """A group that is not this user's own (Debian's `staff` or `users`)."""
    me = pwd.getpwuid(os.geteuid())
    for g in grp.getgrall():
        if g.gr_gid != me.pw_gid and g.gr_name != me.pw_name:
            return g.gr_gid
    pytest.skip("no second group on this machine")


@ROOT_ONLY
def test_a_folder_another_group_may_write_is_refused_before_any_request(issue, tmp_path):
    issue.add_comments(OWNER, NAME, ISSUE, 3)
    env = script_env(issue)
    tmp = tmp_path / ".tmp"
    tmp.mkdir()
    os.chown(tmp, os.geteuid(), other_group())
    os.chmod(tmp, 0o2775)  # noqa: S103  ( the setgid shared folder of the report)
    issue.clear_log()
    r = check(env, tmp_path)
    assert r.code == 7, r
    message = r.json["error"]["message"]
    assert str(tmp) in message and "group" in message and "chmod g-w" in message, r
    assert not (tmp / ".gitignore").exists()  # nothing written in it
    os.chmod(tmp, 0o2755)  # noqa: S103
    r = check(env, tmp_path)
    assert r.code == 0 and len(r.json["new_comments"]) == 3, r


def test_group_write_for_the_users_own_group_is_fine(issue, tmp_path):
    """umask 002 with a user-private group (Debian's default for users) makes 0775 folders:
    no one else is in that group, so nothing is refused."""
    me = pwd.getpwuid(os.geteuid())
    try:
        own = grp.getgrgid(me.pw_gid)
    except KeyError:
        pytest.skip("this user's primary group has no entry")
    if own.gr_name != me.pw_name or set(own.gr_mem) - {me.pw_name}:
        pytest.skip("this user has no user-private group")
    issue.add_comments(OWNER, NAME, ISSUE, 2)
    tmp = tmp_path / ".tmp"
    tmp.mkdir()
    os.chown(tmp, os.geteuid(), me.pw_gid)
    os.chmod(tmp, 0o775)  # noqa: S103  (a user-private group)
    r = check(script_env(issue), tmp_path)
    assert r.code == 0 and len(r.json["new_comments"]) == 2, r


def test_state_is_created_private(issue, tmp_path):
    issue.add_comments(OWNER, NAME, ISSUE, 2)
    r = check(script_env(issue), tmp_path)
    assert r.code == 0, r
    folder = state_dir(tmp_path)
    for path in (tmp_path / ".tmp", tmp_path / ".tmp" / "runs", folder):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    files = [p for p in folder.iterdir() if p.is_file()]
    assert files
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE((tmp_path / ".tmp" / ".gitignore").stat().st_mode) == 0o600


WRITE = """
import os, sys
sys.path.insert(0, sys.argv[1])
from ghcomments.base.errors import StateError
from ghcomments.store import state
folder = sys.argv[2]
target = os.path.join(folder, "x.json")
tmp = os.path.join(folder, f".x.json.tmp-{os.getpid()}")
os.mkfifo(tmp) if sys.argv[3] == "fifo" else open(tmp, "w").write("half a file")
try:
    state.write_json(target, {"a": 1})
except StateError as exc:
    print("refused:", exc)
else:
    print("written:", open(target).read().strip().replace("\\n", " "))
print("left:", sorted(os.listdir(folder)))
"""


@pytest.mark.parametrize("planted", ["fifo", "leftover"])
def test_a_thing_at_the_temporary_name_never_blocks_a_write(tmp_path, planted):
    """A FIFO at the temporary name (opened write-only, it would wait for a reader forever)
    is refused at once; a regular leftover of our own killed run is replaced."""
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    started = time.monotonic()
    proc = subprocess.run([SCRIPT_PYTHON, "-c", WRITE, str(SCRIPTS), str(folder), planted],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 50  # it returned: nothing waited on the FIFO
    out = proc.stdout.splitlines()
    if planted == "fifo":
        assert out[0].startswith("refused:") and "temporary name" in out[0], out
        assert "x.json" not in out[1]
    else:
        assert out[0] == 'written: {   "a": 1 }', out
        assert out[1] == "left: ['x.json']", out
        assert json.loads((folder / "x.json").read_text()) == {"a": 1}
        assert stat.S_IMODE((folder / "x.json").stat().st_mode) == 0o600
