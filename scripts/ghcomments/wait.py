"""`check_issue_updates.py --wait S`: poll a round until something would be returned (CONTRACT
section 13).

Polls run at 0, P, 2P, ... and a last one at S. Each poll is the round's read from the poll hints
the previous read left, so while nothing changes every poll is one conditional request per
stream, answered 304 (no rate-limit cost). When a probe changes but every new item is left out
by the author filters (the agent's own comment, a bot's), the read moved the round's cursors
and hints past them: the next poll goes on from there, and they are never read again.

SIGINT and SIGTERM end the wait at once with the document so far (`interrupted: true`,
`snapshot_id: null`); nothing is written. Progress goes to stderr: a line when the wait starts
and one when it ends, and on a terminal a status line rewritten in place.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Any, Dict, Optional, Tuple

from .errors import AuthError, UsageError
from .filters import add_counts

MIN_INTERVAL = 5.0
MAX_SECONDS = 3600.0
DEFAULT_INTERVAL = 30.0
# Tests and benchmarks only: every duration of a wait is multiplied by this factor.
TIME_SCALE_ENV = "GH_MONITOR_TEST_TIME_SCALE"


class Interrupted(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


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

    def _interval(self) -> float:
        """P, raised to any X-Poll-Interval GitHub sent."""
        try:
            told = float(self.client.rate.get("x-poll-interval") or 0)
        except ValueError:
            told = 0.0
        return max(self.interval, told)

    def run(self, round_: Any, previous: Any, hints: Any, limit: int
            ) -> Tuple[Dict[str, Any], Any]:
        """(document, last reading); the document has `waited_seconds` and `polls`."""
        what = f"{round_.repository}#{round_.number}"
        self._say(f"waiting up to {self.seconds:g} s for new comments on {what} "
                  f"(a poll every {self.interval:g} s)")
        handlers = {}

        def stop(signum: int, _frame: Any) -> None:
            raise Interrupted(signum)

        for sig in (signal.SIGINT, signal.SIGTERM):
            handlers[sig] = signal.signal(sig, stop)
        start = time.monotonic()
        polls = 0
        filtered: Dict[str, Any] = {}
        cursors, poll_hints = previous, hints
        reading = None
        due = 0.0  # nominal seconds since the start at which the next poll runs
        try:
            while True:
                elapsed = (time.monotonic() - start) / self.scale
                # a rate limit inside the wait is waited out only if it ends before the wait
                # (GitHub's reset is real time: the test scale applies)
                self.client.max_wait = self.client.waited + max(
                    0.0, (self.seconds - elapsed) * self.scale)
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
                due = min(due + self._interval(), self.seconds)
                while due <= elapsed and due < self.seconds:
                    due = min(due + self._interval(), self.seconds)
                self._say(f"{what}: nothing new after {elapsed:.0f} s, {polls} poll(s)",
                          status=True)
                time.sleep(max(0.0, due - elapsed) * self.scale)
        except Interrupted as stop_signal:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            waited = (time.monotonic() - start) / self.scale
            self._say(f"wait interrupted by {signal.Signals(stop_signal.signum).name} after "
                      f"{waited:.0f} s, {polls} poll(s); nothing was written")
            doc = round_.document(previous, reading or round_.empty_reading(previous),
                                  filtered)
            doc.update({"snapshot_id": None, "waited_seconds": round(waited, 1),
                        "polls": polls, "interrupted": True,
                        "signal": signal.Signals(stop_signal.signum).name})
            _clear(doc)
            return doc, reading
        finally:
            for sig, old in handlers.items():
                if signal.getsignal(sig) is not signal.SIG_IGN:
                    signal.signal(sig, old)
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


def _clear(doc: Dict[str, Any]) -> None:
    """An interrupted wait returns nothing to process: it confirms nothing."""
    for key in ("new_comments", "new_reviews", "new_review_comments"):
        if key in doc:
            doc[key] = []
            doc[key.rstrip("s") + "_count"] = 0
    doc["has_updates"] = False
