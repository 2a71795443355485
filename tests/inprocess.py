"""The scripts' `main()` run in-process, for the property and model tests (CONTRACT section 20).

Hypothesis runs hundreds of commands per test; as subprocesses each pays for an interpreter
and the helper's imports. Here `call` runs `python3 scripts/NAME.py argv` through the same
`gic.run` wrapper in this process, with the environment the subprocess would get and stdout
captured, and `InProcessAgent` is `tests.support.Agent` on top of it. Every command line these
tests use keeps its subprocess tests elsewhere (tests/test_monitor.py, test_pr_rounds.py,
test_round_engine.py ...), run as agents run them.
"""

from __future__ import annotations

import io
import json
import os
import sys
from typing import Any, Dict, Sequence, Tuple

from tests.support import OWNER, SCRIPTS, Agent

if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))
import check_issue_updates  # noqa: E402
import get_latest_comments  # noqa: E402
import get_pr_comments  # noqa: E402
import github_issue_comments as gic  # noqa: E402
from ghcomments.base import interrupt, plain  # noqa: E402, F401  (for the tests)
from ghcomments.store import state  # noqa: E402, F401  (its pause points, for the tests)

interrupt.uninstall()  # importing the helper notes signals from then on: not in pytest itself

MODULES = {"check_issue_updates.py": check_issue_updates,
           "get_latest_comments.py": get_latest_comments,
           "get_pr_comments.py": get_pr_comments}
# Each script's own `__main__` line: `gic.run(main, exit_code=gic.exit_code)`, or `gic.run(main)`
# for get_pr_comments.py (tests/test_inprocess.py checks the scripts still say so).
EXIT_CODES = {"check_issue_updates.py": gic.exit_code, "get_latest_comments.py": gic.exit_code,
              "get_pr_comments.py": None}


def call_raw(module: Any, argv: Sequence[Any], env: Dict[str, str]) -> Tuple[int, str, str]:
    """`python3 scripts/NAME.py argv` in-process: (exit code, stdout, stderr)."""
    name = next(n for n, m in MODULES.items() if m is module)
    saved_env = dict(os.environ)
    buf = io.BytesIO()
    out = io.TextIOWrapper(buf, encoding="utf-8")
    err = io.StringIO()
    saved = sys.stdout, sys.stderr
    os.environ.clear()
    os.environ.update(env)
    sys.stdout, sys.stderr = out, err
    try:
        code = gic.run(module.main, [str(a) for a in argv], exit_code=EXIT_CODES[name])
    finally:
        out.flush()
        sys.stdout, sys.stderr = saved
        os.environ.clear()
        os.environ.update(saved_env)
        interrupt.uninstall()
    return code, buf.getvalue().decode("utf-8", "replace"), err.getvalue()


def call(module: Any, argv: Sequence[Any], env: Dict[str, str]) -> Tuple[int, Any]:
    """`python3 scripts/NAME.py argv` in-process: (exit code, parsed stdout)."""
    code, out, _ = call_raw(module, argv, env)
    return code, json.loads(out)


class Result:
    """What `tests.support.Run` gives: the exit code, stdout, stderr and the parsed document."""

    def __init__(self, code: int, stdout: str, stderr: str = "") -> None:
        self.code, self.stdout, self.stderr = code, stdout, stderr

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)

    def __repr__(self) -> str:
        return f"Result({self.code}, {self.stdout[:1500]!r}, {self.stderr[:1500]!r})"


def run_script(name: str, *args: Any, env: Dict[str, str]) -> Result:
    """`tests.support.run_script` for the Python entry scripts, in-process."""
    return Result(*call_raw(MODULES[name], args, env))


class InProcessAgent(Agent):
    def run(self, script: str, *args: Any, env: Any = None) -> Result:  # type: ignore[override]
        self.fake.clear_log()
        return run_script(script, "--repo", f"{OWNER}/{self.name}", self.flag, self.number,
                          "--root", self.root, *args, env=env or self.env)
