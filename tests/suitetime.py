"""pytest plugin: `make test` records the suite's wall time, commit and date (CONTRACT section 20).

`make test` sets GH_MONITOR_SUITE_TIME to `.tmp/suite-time.json`; the controller (never an
xdist worker) writes it atomically when the session ends, pass or fail, and `make bench`
reports it. Without the variable (a developer's `pytest tests/test_x.py`) nothing is written.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, Optional

ENV = "GH_MONITOR_SUITE_TIME"
REPO = Path(__file__).resolve().parents[1]


def _git(*args: str) -> Optional[str]:
    try:
        out = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, check=True,
                             timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.decode("utf-8", "replace").strip()


def record(config: Any, wall: float, exitstatus: int, collected: int, failed: int) -> Dict:
    """The document written: what ran, how long, on which commit, on how loaded a machine."""
    workers = getattr(config.option, "numprocesses", None)
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "wall_seconds": round(wall, 1),
        "exit_status": int(exitstatus),
        "tests_collected": collected,
        "tests_failed": failed,
        "workers": workers if workers else 1,
        "dist": getattr(config.option, "dist", "no") if workers else "no",
        "commit": _git("rev-parse", "HEAD"),
        "dirty": bool(dirty) if dirty is not None else None,
        "date": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "cpus": os.cpu_count(),
        "load_average_start": config.stash.get(_LOAD, None),
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
    }


def write_atomically(path: Path, doc: Dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


try:
    import pytest

    _STARTED = pytest.StashKey[float]()
    _LOAD = pytest.StashKey[list]()
except ImportError:  # bench.py reads the file without pytest's plugin machinery
    _STARTED = _LOAD = None  # type: ignore[assignment]


def _is_worker(config: Any) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: Any) -> None:
    if os.environ.get(ENV) and not _is_worker(config):
        config.stash[_STARTED] = time.monotonic()
        config.stash[_LOAD] = [round(x, 2) for x in os.getloadavg()]


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    config = session.config
    target = os.environ.get(ENV)
    if not target or _is_worker(config) or _STARTED not in config.stash:
        return
    wall = time.monotonic() - config.stash[_STARTED]
    path = Path(target)
    if not path.is_absolute():
        path = REPO / path
    write_atomically(path, record(config, wall, exitstatus, session.testscollected,
                                  session.testsfailed))
