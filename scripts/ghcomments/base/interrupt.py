"""SIGINT and SIGTERM for the commands that write state: one commit point (CONTRACT section 14).

`early()` runs when the helper is imported, before anything heavy: a signal from then on is
noted. `install()` runs first in such a command: a signal noted early interrupts at once. Until
the commit point a signal raises `Interrupted` where the program stands (a request, a sleep of a
wait); the round answers with the interrupted document (`interrupted: true`, `snapshot_id:
null`) and the files as they were, exit 130/143. The state store calls `hold()` just before it
renames the first new file into place: from then on a signal is only noted, the rename(s)
finish and the normal document is printed, exit 0. Either way stdout holds one whole document.
A second signal after the first is ignored: the interrupted document is being printed. Printing
the document is itself held (`hold()` before stdout is written), so a command that writes no
file still prints one whole document. Other commands (the writer, get_pr_comments.py) call
`default()`: the standard handlers, and a signal noted early is delivered as it would have been.
"""

from __future__ import annotations

import signal

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
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
    def __init__(self, armed: bool = True) -> None:
        self.installed = False
        self.armed = armed  # False: only note signals (start-up)
        self.holding = False
        self.raised = False
        self.noted: Optional[int] = None

    def handler(self, signum: int, _frame: Any) -> None:
        if not self.armed or self.holding or self.raised:
            self.noted = self.noted or signum
            return
        self.raised = True
        raise Interrupted(signum)


def _set(handler: Any) -> bool:
    for sig in SIGNALS:
        try:
            signal.signal(sig, handler)
        except ValueError:  # not the main thread (an in-process test): nothing to guard
            return False
    return True


_GUARD = _Guard()


def early() -> None:
    """From start-up on, a signal is noted (not acted on) until the command says what to do."""
    global _GUARD
    _GUARD = _Guard(armed=False)
    _GUARD.installed = _set(_GUARD.handler)


def install() -> None:
    """Signals raise `Interrupted` until the commit point (main thread only); one noted since
    start-up raises now."""
    global _GUARD
    noted = _GUARD.noted if not _GUARD.armed else None
    _GUARD = _Guard()
    _GUARD.installed = _set(_GUARD.handler)
    if noted is not None:
        _GUARD.raised = True
        raise Interrupted(noted)


def default() -> None:
    """The standard handlers for a command without a commit point; a signal noted since
    start-up is delivered now, as it would have been."""
    noted = _GUARD.noted if not _GUARD.armed else None
    uninstall()
    if noted is not None:
        signal.raise_signal(noted)


def hold() -> None:
    """The commit point: from here on a signal no longer interrupts."""
    _GUARD.holding = True


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
