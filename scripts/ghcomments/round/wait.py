"""`check_issue_updates.py --wait S`: poll a round until something would be returned (CONTRACT
section 13).

Polls run at 0, P, 2P, ... and a last one at S. Each poll is the round's read from the poll hints
the previous read left, so while nothing changes every poll is one conditional request per
stream, answered 304 (no rate-limit cost). When a probe changes but every new item is left out
by the author filters (the agent's own comment, a bot's), the read moved the round's cursors
and hints past them: the next poll goes on from there, and they are never read again.

Each next poll comes max(P, X) after the one before (X: the latest X-Poll-Interval GitHub sent);
a last poll runs at S only when at least X has passed since the one before, otherwise the wait
ends at the poll before.

SIGINT and SIGTERM (interrupt.py, installed by the command) end the wait at once with the
document so far (`interrupted: true`, `snapshot_id: null`); nothing is written. Progress goes to
stderr: a line when the wait starts and one when it ends, and on a terminal a status line
rewritten in place.
"""

from __future__ import annotations

import os
import sys
import time

from ..base.errors import AuthError, UsageError
from ..base.interrupt import Interrupted
from .filters import add_counts
from .reading import interrupted_doc

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Optional, Tuple

MIN_INTERVAL = 5.0
MAX_SECONDS = 3600.0
DEFAULT_INTERVAL = 30.0
# Tests and benchmarks only: every duration of a wait is multiplied by this factor.
TIME_SCALE_ENV = "GH_MONITOR_TEST_TIME_SCALE"


def _scale() -> float:
    try:
        value = float(os.environ.get(TIME_SCALE_ENV) or 1.0)
    except ValueError:
        return 1.0
    return value if 0 < value <= 1 else 1.0


class Wait:
    """One wait: its bounds, checked before anything else is done."""

    def __init__(self, seconds: float, interval: Optional[float]) -> None:
        if not 1 <= seconds <= MAX_SECONDS:
            raise UsageError(f"--wait {seconds:g} out of range: 1 to {MAX_SECONDS:g} seconds")
        interval = DEFAULT_INTERVAL if interval is None else interval
        if interval < MIN_INTERVAL:
            raise UsageError(f"--poll-interval {interval:g} is below {MIN_INTERVAL:g} seconds")
        self.seconds = seconds
        self.interval = interval
        self.client: Any = None
        self.scale = _scale()
        self.tty = sys.stderr.isatty()

    def require_auth(self, client: Any) -> None:
        """A conditional request is free only when authenticated: no token, no wait."""
        if not getattr(client.transport, "authenticated", False):
            raise AuthError("--wait needs a token: a conditional request is free only when "
                            "authenticated (set GH_TOKEN, or log in with `gh auth login`)")
        self.client = client

    def _say(self, text: str, status: bool = False) -> None:
        if status:
            if self.tty:
                sys.stderr.write("\r\033[K" + text)
                sys.stderr.flush()
            return
        if self.tty:
            sys.stderr.write("\r\033[K")
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def _told(self) -> float:
        """The latest X-Poll-Interval GitHub sent (0 when none)."""
        try:
            told = float(self.client.rate.get("x-poll-interval") or 0)
        except (TypeError, ValueError):
            return 0.0
        return told if told >= 0 else 0.0  # any value GitHub sends (NaN: none)

    def _interval(self) -> float:
        """P, raised to any X-Poll-Interval GitHub sent."""
        return max(self.interval, self._told())

    def run(self, round_: Any, previous: Any, hints: Any, limit: int
            ) -> Tuple[Dict[str, Any], Any]:
        """(document, last reading); the document has `waited_seconds` and `polls`."""
        what = f"{round_.repository}#{round_.number}"
        self._say(f"waiting up to {self.seconds:g} s for new comments on {what} "
                  f"(a poll every {self.interval:g} s)")
        start = time.monotonic()
        polls = 0
        filtered: Dict[str, Any] = {}
        cursors, poll_hints = previous, hints
        reading = None
        due = 0.0  # nominal seconds since the start at which the next poll runs
        try:
            while True:
                began = due  # the poll's nominal time (its real start is as late as the machine)
                # a rate limit inside the wait is waited out only if it ends before the wait
                # (GitHub's reset is real time: the test scale applies)
                self.client.max_wait = self.client.waited + max(
                    0.0, (self.seconds - (time.monotonic() - start) / self.scale) * self.scale)
                reading = round_.read(cursors, poll_hints, limit)
                polls += 1
                _merge(filtered, reading.filtered)
                moved = round_.position(cursors, reading)
                advanced, (cursors, poll_hints) = moved[0] != cursors, moved
                elapsed = (time.monotonic() - start) / self.scale
                if reading.returned or elapsed >= self.seconds:
                    break
                if reading.more_available and advanced:
                    continue  # a whole batch was left out: read the next one now
                due = due + self._interval()
                while due <= elapsed:
                    due += self._interval()
                if due >= self.seconds:
                    # the last poll, at S, only when GitHub's interval has passed by then
                    if self.seconds - began < self._told() or elapsed >= self.seconds:
                        break
                    due = self.seconds
                self._say(f"{what}: nothing new after {elapsed:.0f} s, {polls} poll(s)",
                          status=True)
                time.sleep(max(0.0, due - elapsed) * self.scale)
        except Interrupted as stop:
            waited = (time.monotonic() - start) / self.scale
            self._say(f"wait interrupted by {stop.name} after {waited:.0f} s, {polls} "
                      "poll(s); nothing was written")
            doc = round_.document(previous, reading or round_.empty_reading(previous),
                                  filtered)
            doc.update({"waited_seconds": round(waited, 1), "polls": polls})
            return interrupted_doc(doc, stop, round_.cleared()), reading
        waited = (time.monotonic() - start) / self.scale
        doc = round_.document(previous, reading, filtered)
        doc.update({"waited_seconds": round(waited, 1), "polls": polls})
        self._say(f"wait ended after {waited:.0f} s, {polls} poll(s): "
                  + ("something new" if doc["has_updates"] else "nothing new"))
        return doc, reading


def _merge(total: Dict[str, Any], more: Dict[str, Any]) -> None:
    for key, value in more.items():
        if isinstance(value, dict):
            add_counts(total.setdefault(key, {}), value)
        else:
            total[key] = total.get(key, 0) + value
