"""tests/inprocess.py runs each script's main() as the script's own `__main__` line does."""

from __future__ import annotations

import re

import pytest

from tests import inprocess
from tests.support import SCRIPTS


@pytest.mark.parametrize("name", sorted(inprocess.MODULES))
def test_the_wrapper_maps_the_exit_code_as_the_script_does(name):
    line = re.findall(r"sys\.exit\((gic\.run\(main(?:, exit_code=gic\.exit_code)?\))\)",
                      (SCRIPTS / name).read_text(encoding="utf-8"))
    assert len(line) == 1, line
    uses = line[0] != "gic.run(main)"
    assert (inprocess.EXIT_CODES[name] is inprocess.gic.exit_code) == uses, (name, line)
    assert (inprocess.EXIT_CODES[name] is None) == (not uses), (name, line)
