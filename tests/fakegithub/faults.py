"""Rate limits, injected faults and the request log.

Rate-limit windows run on the wall clock (``time.time()``), not on ``FakeGitHub.clock``:
a client that sleeps until ``x-ratelimit-reset`` measures real time, so the fake must too.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

WINDOW_SECONDS = 3600

# Limits per hour as github.com sets them (authenticated per token, unauthenticated per IP).
LIMITS = {
    True: {
        "core": 5000,
        "graphql": 5000,
        "search": 30,
        "code_search": 10,
        "integration_manifest": 5000,
        "source_import": 100,
        "code_scanning_upload": 1000,
        "actions_runner_registration": 10000,
        "scim": 15000,
        "dependency_snapshots": 100,
        "dependency_sbom": 100,
        "code_scanning_autofix": 10,
        "audit_log": 1750,
        "audit_log_streaming": 15,
    },
    False: {
        "core": 60,
        "graphql": 0,
        "search": 10,
        "code_search": 10,
        "integration_manifest": 5000,
        "source_import": 100,
        "code_scanning_upload": 60,
        "actions_runner_registration": 60,
        "scim": 60,
        "dependency_snapshots": 60,
        "dependency_sbom": 60,
        "code_scanning_autofix": 10,
        "audit_log": 0,
        "audit_log_streaming": 0,
    },
}


@dataclass
class Bucket:
    limit: int
    remaining: int
    reset: int

    @property
    def used(self) -> int:
        return max(0, self.limit - self.remaining)

    def as_json(self) -> dict:
        return {
            "limit": self.limit,
            "used": self.used,
            "remaining": self.remaining,
            "reset": self.reset,
        }


class RateLimiter:
    def __init__(self):
        self._buckets: dict[tuple, Bucket] = {}
        self._forced: dict[
            str, tuple
        ] = {}  # resource -> (remaining, reset, limit, status)
        self._status: dict[
            tuple, int
        ] = {}  # (resource, key or None) -> status when spent

    def bucket(self, key: tuple, resource: str) -> Bucket:
        """The current window of ``key`` (``("token", t)`` or ``("ip", addr)``) for ``resource``."""
        now = int(time.time())
        b = self._buckets.get((key, resource))
        if b is not None and now >= b.reset:
            b = None  # the window has passed: a fresh one
        if b is None:
            authed = key[0] == "token"
            limit = LIMITS[authed].get(resource, 60)
            b = Bucket(limit=limit, remaining=limit, reset=now + WINDOW_SECONDS)
            forced = self._forced.get(resource)
            if forced is not None and now < forced[1]:
                remaining, reset, flimit, _status = forced
                b = Bucket(limit=flimit or limit, remaining=remaining, reset=reset)
            self._buckets[(key, resource)] = b
        return b

    def force(
        self,
        resource: str,
        remaining: int,
        reset: int | None,
        limit: int | None,
        status: int,
        key: tuple | None = None,
    ) -> None:
        """Set the window of one bucket (``key``), or of every bucket of ``resource`` (None)."""
        reset = int(reset) if reset is not None else int(time.time()) + WINDOW_SECONDS
        self._status[(resource, key)] = status
        if key is not None:
            targets = [self.bucket(key, resource)]
        else:
            self._forced[resource] = (int(remaining), reset, limit, status)
            targets = [b for (_k, res), b in self._buckets.items() if res == resource]
        for b in targets:
            b.remaining, b.reset = int(remaining), reset
            if limit is not None:
                b.limit = int(limit)

    def exceeded_status(self, key: tuple, resource: str) -> int:
        """403 as GitHub mostly answers a spent primary limit, or the status forced (429)."""
        return self._status.get(
            (resource, key), self._status.get((resource, None), 403)
        )

    def overview(self, key: tuple) -> dict:
        authed = key[0] == "token"
        return {res: self.bucket(key, res).as_json() for res in LIMITS[authed]}


MODES = (None, "close", "truncate", "malformed", "delay")


@dataclass
class Fault:
    method: str | None
    path: re.Pattern
    times: int | None
    status: int
    headers: dict
    body: object
    delay: float
    mode: str | None
    min_per_page: int | None = (
        None  # only lists asked with per_page >= this (fail_large_pages)
    )

    def matches(self, method: str, path: str, query: dict | None = None) -> bool:
        if self.method not in (None, "*") and self.method.upper() != method.upper():
            return False
        if self.path.search(path) is None:
            return False
        if self.min_per_page is not None:
            return (
                effective_per_page((query or {}).get("per_page")) >= self.min_per_page
            )
        return True


def effective_per_page(raw: str | None) -> int:
    """The page size GitHub serves for ``per_page``: 30 by default, at most 100."""
    try:
        n = int(raw) if raw is not None else 30
    except ValueError:
        return 30
    return min(100, n) if n >= 1 else 30


@dataclass
class GraphQLFault:
    type: str
    message: str
    times: int | None
    path: list | None
    status: int


@dataclass
class LogEntry:
    """One request as the fake received it (and, once answered, what it sent back)."""

    method: str
    path: str  # without the query string (and without the scheme/host of an absolute-form target)
    query: dict  # str -> str (the last value of a repeated parameter)
    headers: dict  # lowercase names
    body: bytes
    target: str  # the request target exactly as sent (absolute-form for a proxy client)
    origin: str  # scheme://host the client addressed
    time: float = field(default_factory=time.time)
    status: int | None = (
        None  # None: no response (connection closed, or not answered yet)
    )
    response_headers: dict = field(default_factory=dict)  # lowercase names
    response_body: bytes = b""
    fault: str | None = None  # the fault mode that answered it, if any

    def json(self):
        import json

        return json.loads(self.body or b"null")

    def __repr__(self) -> str:
        q = "&".join(f"{k}={v}" for k, v in self.query.items())
        return f"<{self.method} {self.path}{'?' + q if q else ''} -> {self.status}>"
