"""Writes to GitHub, each sent once (CONTRACT sections 10 and 15): a mixin of client.py's
`GitHubClient`, which gives `url`, `transport`, `origin`, `requests` and the JSON helpers.
"""

from __future__ import annotations

import json

from ..base.errors import (
    NetworkError,
    ServerError,
    UsageError,
    error_from_response,
    validation_reasons,
)
from ..text import tokens
from .transport import STANDARD_HEADERS, Response, TransportError

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, List, Tuple


class Writes:
    """`send_once`, `write_json` and `mutate`."""

    # -- writes: sent once (CONTRACT sections 10 and 15) ----------------------------------
    # A write is never retried, never waits out a rate limit and follows no redirect: any of
    # those could act twice. GraphQL mutations come here too, not through `graphql` (a read,
    # retried). An outcome that may have been applied (the connection broke after sending, a
    # 5xx, a 2xx whose body is unreadable) raises with `maybe_applied = True`.
    def send_once(self, method: str, path: str, json_body: Any, what: str) -> Response:
        """One write request; a 422's reasons (strings or objects in `errors`) reach the
        message."""
        url = self.url(path)
        self._check_origin(url, what)
        headers = dict(STANDARD_HEADERS)
        headers["Content-Type"] = "application/json; charset=utf-8"
        text = json.dumps(json_body, ensure_ascii=False, allow_nan=False)
        if tokens.contains_token(text):  # a token goes in a header, not a body
            raise UsageError(f"{what}: the text to send contains the token in use; "
                             "nothing was sent")
        body = text.encode("utf-8")
        try:
            resp = self.transport.send(method, url, headers, body, token_origin=self.origin)
        except TransportError as exc:
            if exc.sent:
                self.requests += 1
            err = NetworkError(f"{what}: {exc}")
            err.kind = exc.kind
            err.maybe_applied = exc.sent  # type: ignore[attr-defined]
            raise err
        self.requests += 1
        self._note_rate(resp)
        if 200 <= resp.status < 300:
            return resp
        data = self._maybe_json(resp)
        err = error_from_response(resp.status, resp.headers, data, what)
        reasons = validation_reasons(data)
        if reasons:
            err.message += ": " + reasons
        err.maybe_applied = resp.status >= 500  # type: ignore[attr-defined]
        raise err

    def write_json(self, method: str, path: str, json_body: Any, what: str) -> Any:
        """`send_once` and its JSON; an unreadable 2xx body may hide a write that happened."""
        resp = self.send_once(method, path, json_body, what)
        try:
            return self.json_of(resp, what)
        except ServerError as err:
            err.maybe_applied = True  # type: ignore[attr-defined]
            raise

    def mutate(self, graphql_url: str, mutation: str, variables: Dict[str, Any],
               what: str) -> Tuple[Any, List[dict]]:
        """One GraphQL mutation, sent once; returns (data, errors) as GraphQL answered."""
        doc = self.write_json("POST", graphql_url, {"query": mutation, "variables": variables},
                              what)
        if not isinstance(doc, dict):
            err = ServerError(f"{what}: malformed GraphQL response")
            err.maybe_applied = True  # type: ignore[attr-defined]
            raise err
        errors = doc.get("errors")
        if errors is not None and not isinstance(errors, list):
            err = ServerError(f"{what}: malformed GraphQL response: errors is "
                              f"{type(errors).__name__}, not a list")
            err.maybe_applied = True  # type: ignore[attr-defined]
            raise err
        return doc.get("data"), list(errors or [])
    # -- end of writes ---------------------------------------------------------------------
