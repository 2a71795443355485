"""At most 300 requests in any 60 seconds, one at a time: an inbox command's transport
(CONTRACT section 18; GitHub's advice against concurrent requests and bursts).

`Throttle` wraps the transport the client sends through: before a request that would be the
301st within the last 60 s, it sleeps until the oldest of those is 60 s old (each is timed when
its answer came in: GitHub received it before that). A `deadline` (a wait's S) that the sleep
would pass ends the read instead (`PastDeadline`): no request starts after S. Everything else is
the wrapped transport's.
"""

from __future__ import annotations

import collections
import time
from typing import Any, Deque, Optional

MOST = 300
WINDOW = 60.0


class PastDeadline(Exception):
    """The next request could only start after the wait's end."""


class Throttle:
    def __init__(self, transport: Any, most: int = MOST, window: float = WINDOW,
                 scale: float = 1.0) -> None:
        self._transport = transport
        self._most = most
        self._window = window * scale
        self._sent: Deque[float] = collections.deque()
        self.deadline: Optional[float] = None  # time.monotonic() after which none starts

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def send(self, *args: Any, **kwargs: Any) -> Any:
        now = time.monotonic()
        while self._sent and now - self._sent[0] >= self._window:
            self._sent.popleft()
        if len(self._sent) >= self._most:
            start = self._sent[0] + self._window
            if self.deadline is not None and start > self.deadline:
                raise PastDeadline()
            time.sleep(max(0.0, start - now))
            self._sent.popleft()
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise PastDeadline()
        try:
            return self._transport.send(*args, **kwargs)
        finally:
            # timed when the answer is in: the request reached GitHub before this, and the
            # 301st starts after it + 60 s, so GitHub sees them 60 s apart whatever the latency
            self._sent.append(time.monotonic())
