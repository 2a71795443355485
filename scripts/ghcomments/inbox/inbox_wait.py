"""One wait over every round of the inbox (CONTRACT section 18).

A poll reads every round in turn from the cursors and hints its last read left, exactly as a
single wait repeats one round's read (wait.py): while nothing changes, each round's own
conditional probes, all answered 304, no GraphQL; with --include-edits, the edit history of
every round's candidates is asked once a poll (section 19, turn 6). The wait ends after the
poll in which any round would return something (every round of that poll is returned), or at S.
Polls follow section 13's schedule with the interval max(P, the largest X-Poll-Interval any
round saw). A poll starts only if the last one's duration still fits before S, and no request
starts after S (throttle.py's deadline; a round not read in that last poll keeps its previous
reading). Requests go one at a time, at most 300 in any 60 s (throttle.py). A filtered-only
change moves that round's cursor and hints, as in a single wait.
"""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Tuple

from ..base.errors import BundleError
from ..base.interrupt import Interrupted
from ..net.throttle import PastDeadline
from ..round.wait import _merge
from .members import Member, Selection, finish_members, read_member


def _poll(live: List[Member], limit: int, client: Any, wait: Any) -> Tuple[bool, float]:
    """One pass over the rounds still read: each read up to its edit history, the history
    asked once for all (turn 6), each finished; (False when the deadline stopped it, the
    largest X-Poll-Interval any round's answers carried). Stopped by the deadline, a round
    with an edit candidate or not read whole keeps its last reading; one read whole without a
    candidate is finished."""
    last: Optional[BundleError] = None
    told = 0.0
    begun: List[Member] = []
    whole = True
    try:
        for m in live:
            if m.error is not None:
                continue
            last = read_member(m, limit, client, last, waiting=True, deferred=True)
            told = max(told, wait._told())
            if m.error is None:
                begun.append(m)
        done = finish_members(begun, client)
    except PastDeadline:
        whole = False
        for m in live:
            if m not in begun:
                m.step = None  # the round whose read the deadline stopped
        done = finish_members(begun, client, ask=False)
    finally:
        told = max(told, wait._told())
    for m in done:
        _merge(m.total_filtered, m.reading.filtered)
        moved_cursors, moved_hints = m.rnd.position(m.cursors, m.reading)
        m.advanced = moved_cursors != m.cursors
        m.cursors, m.poll_hints = moved_cursors, moved_hints
    return whole, told


def wait_over(live: List[Member], wait: Any, limit: int, sel: Selection) -> Dict[str, Any]:
    """Poll every round until one would return something, or S; each member's `reading` is
    its last read and `filtered` what every poll left out. The wait's fields."""
    client = sel.client
    wait.client = client
    throttle = client.transport
    for m in live:
        m.cursors, m.poll_hints, m.total_filtered = m.previous, m.hints, {}
    names = ", ".join(m.key for m in live[:3]) + (" …" if len(live) > 3 else "")
    wait._say(f"waiting up to {wait.seconds:g} s for new comments on {len(live)} "
              f"conversation(s) ({names}; a poll every {wait.interval:g} s)")
    start = time.monotonic()
    throttle.deadline = start + wait.seconds * wait.scale
    polls, due, told, took, final = 0, 0.0, 0.0, 0.0, False
    try:
        while True:
            # a rate limit inside the wait is waited out only if it ends before the wait
            client.max_wait = client.waited + max(
                0.0, (wait.seconds - (time.monotonic() - start) / wait.scale) * wait.scale)
            nominal = due  # the poll's time on the schedule (it starts as late as the machine)
            began = (time.monotonic() - start) / wait.scale
            whole, seen = _poll(live, limit, client, wait)
            polls += 1
            told = max(told, seen)
            elapsed = (time.monotonic() - start) / wait.scale
            took = elapsed - began  # this poll's duration (300 requests a minute included)
            readable = [m for m in live if m.error is None and m.reading is not None]
            if (not whole or not readable or elapsed >= wait.seconds
                    or any(m.reading.returned for m in readable)):
                break
            if final:
                break  # the last poll, scheduled to end by S, is done
            if any(m.reading.more_available and m.advanced for m in readable):
                continue  # a whole batch was left out: read the next one now
            interval = max(wait.interval, told)
            due = due + interval
            while due <= elapsed:
                due += interval
            room = 2 * took + min(0.02 * wait.seconds, 5.0)  # a slower poll still fits
            if due + room >= wait.seconds:
                # the last poll ends by S (no request starts after it): it starts twice a
                # poll's duration (and a little) before S, and only when GitHub's interval
                # has passed by then; the throttle's deadline still stops a request after S
                due = wait.seconds - room
                if due - nominal < told or due <= elapsed:
                    break
                final = True
            wait._say(f"{len(live)} conversation(s): nothing new after {elapsed:.0f} s, "
                      f"{polls} poll(s)", status=True)
            time.sleep(max(0.0, due - elapsed) * wait.scale)
    except Interrupted as stop:
        waited = (time.monotonic() - start) / wait.scale
        wait._say(f"wait interrupted by {stop.name} after {waited:.0f} s, {polls} poll(s); "
                  "nothing was written")
        stop.wait_fields = {"waited_seconds": round(waited, 1), "polls": polls}  # type: ignore
        raise
    finally:
        throttle.deadline = None
        for m in live:
            m.filtered = dict(m.total_filtered)
    waited = (time.monotonic() - start) / wait.scale
    anything = any(m.error is None and m.reading is not None and m.reading.returned
                   for m in live)
    wait._say(f"wait ended after {waited:.0f} s, {polls} poll(s): "
              + ("something new" if anything else "nothing new"))
    return {"waited_seconds": round(waited, 1), "polls": polls}
