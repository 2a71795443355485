"""`make test` records its wall time, commit and date (tests/suitetime.py, CONTRACT section 20):
pytest run as the Makefile runs it, on a two-test suite, with and without xdist."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support import REPO


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_the_suite_time_is_written_by_the_controller_pass_or_fail(tmp_path, workers):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_two.py").write_text("def test_ok():\n    pass\n\n"
                                          "def test_fails():\n    assert False\n")
    out = tmp_path / "out" / "suite-time.json"
    env = dict(os.environ, GH_MONITOR_SUITE_TIME=str(out), PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.suitetime", "-q",
                           "-p", "no:cacheprovider", "-c", str(tmp_path / "pytest.ini"),
                           "--rootdir", str(tmp_path), *workers, str(tmp_path / "test_two.py")],
                          env=env, capture_output=True, timeout=300, check=False)
    assert proc.returncode == 1, proc.stdout.decode()[-2000:]
    doc = json.loads(out.read_text())
    assert doc["exit_status"] == 1 and doc["tests_collected"] == 2 and doc["tests_failed"] == 1
    assert doc["workers"] == (2 if workers else 1) and 0 <= doc["wall_seconds"] < 300
    if (REPO / ".git").exists():  # a clone (an archive has no commit to name)
        assert len(doc["commit"]) == 40 and isinstance(doc["dirty"], bool)
    assert doc["date"].endswith("+00:00") and doc["cpus"] == os.cpu_count()
    assert len(doc["load_average_start"]) == len(doc["load_average_end"]) == 3
    assert [p.name for p in out.parent.iterdir()] == ["suite-time.json"]  # no temp file left


def test_without_the_variable_nothing_is_written(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_one.py").write_text("def test_ok():\n    pass\n")
    env = {k: v for k, v in os.environ.items() if k != "GH_MONITOR_SUITE_TIME"}
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.suitetime", "-q",
                           "-p", "no:cacheprovider", "-c", str(tmp_path / "pytest.ini"),
                           "--rootdir", str(tmp_path), str(tmp_path / "test_one.py")],
                          env=env, cwd=tmp_path, capture_output=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout.decode()[-2000:]
    assert sorted(p.name for p in tmp_path.rglob("*.json")) == []
