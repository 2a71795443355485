"""SIGINT and SIGTERM for the commands that write state: one commit point (CONTRACT section 14).

`install()` runs first in such a command. Until the commit point a signal raises `Interrupted`
where the program stands (a request, a sleep of a wait); the round answers with the interrupted
document (`interrupted: true`, `snapshot_id: null`) and the files as they were, exit 130/143.
The state store calls `hold()` just before it renames the first new file into place: from then
on a signal is only noted, the rename(s) finish and the normal document is printed, exit 0.
Either way stdout holds one whole document. A second signal after the first is ignored: the
interrupted document is being printed.
"""

from __future__ import annotations

import signal
from typing import Any, Optional

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        return 143 if self.signum == signal.SIGTERM else 130


class _Guard:
    def __init__(self) -> None:
        self.installed = False
        self.holding = False
        self.raised = False
        self.noted: Optional[int] = None

    def handler(self, signum: int, _frame: Any) -> None:
        if self.holding or self.raised:
            self.noted = signum
            return
        self.raised = True
        raise Interrupted(signum)


_GUARD = _Guard()


def install() -> None:
    """Signals raise `Interrupted` until the commit point (main thread only)."""
    global _GUARD
    _GUARD = _Guard()
    for sig in SIGNALS:
        try:
            signal.signal(sig, _GUARD.handler)
        except ValueError:  # not the main thread (an in-process test): nothing to guard
            return
    _GUARD.installed = True


def hold() -> None:
    """The commit point: from here on a signal no longer interrupts."""
    _GUARD.holding = True


def holding() -> bool:
    return _GUARD.holding


def uninstall() -> None:
    """Back to the default handlers (in-process callers that run several commands)."""
    global _GUARD
    if _GUARD.installed:
        for sig in SIGNALS:
            try:
                signal.signal(sig, signal.SIG_DFL if sig == signal.SIGTERM
                              else signal.default_int_handler)
            except ValueError:
                pass
    _GUARD = _Guard()
