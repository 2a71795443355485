"""The issue or pull request a round is about, read at most once per read (`Subject`)."""

from __future__ import annotations

from ..base.errors import ServerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Optional


class Subject:
    """The issue or pull request itself (`GET /issues/N`, or `/pulls/N` for a PR round), read
    at most once per read of the round and shared by the kinds that need it: the state an
    event cursor starts from, a pull request's head (the pushes), CI's head and mergeability.
    A conditional read answered 304 is remembered for the read too: a second kind asking
    with the same ETag sends nothing (section 23: with --include-events the pull request is
    the one head probe)."""

    def __init__(self, client: Any, owner: str, repo: str, number: int, pull: bool) -> None:
        self.client = client
        self.path = f"repos/{owner}/{repo}/{'pulls' if pull else 'issues'}/{number}"
        self.pull = pull
        self.label = f"{owner}/{repo}#{number}"
        self.forget()

    def forget(self) -> None:
        """A new read of the round (a wait's next poll) reads it again if it needs it."""
        self._raw: Optional[Dict[str, Any]] = None
        self.date: Optional[str] = None  # the `Date` of this read's answer (a 304's too)
        self.etag: Optional[str] = None  # the ETag of this read's 200
        self._unchanged: Optional[str] = None  # the ETag a 304 of this read answered for
        self.sent = False  # whether the last `get` sent a request

    def get(self, etag: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """The answer (read once per read of the round); with `etag` a conditional read,
        None when it answered 304 (asked again with the same ETag: None, nothing sent)."""
        self.sent = False
        if self._raw is None and not (etag is not None and etag == self._unchanged):
            what = f"{'pull request' if self.pull else 'issue'} {self.label}"
            resp = self.client.request("GET", self.path, etag=etag, what=what)
            self.sent = True
            self.date = resp.headers.get("date")
            if resp.status == 304:
                self._unchanged = etag
                return None
            raw = self.client.json_of(resp, what)
            if not isinstance(raw, dict):
                raise ServerError(f"{what}: malformed response: not an object")
            for name in ("state", "title"):
                if raw.get(name) is not None and not isinstance(raw.get(name), str):
                    raise ServerError(f"{what}: malformed response: {name} is not a string")
            self._raw = raw
            self.etag = resp.headers.get("etag")
        return self._raw

    @staticmethod
    def head_of(raw: Any) -> Optional[Dict[str, Any]]:
        """A pull request's `head` object (its sha, ref and repository), None when absent."""
        head = raw.get("head") if isinstance(raw, dict) else None
        return head if isinstance(head, dict) else None

    def state(self) -> Dict[str, Any]:
        raw = self.get() or {}
        out: Dict[str, Any] = {"state": raw.get("state") if raw.get("state") in
                               ("open", "closed") else None}
        if self.pull:
            out["merged"] = bool(raw.get("merged")) or raw.get("merged_at") is not None
            out["draft"] = bool(raw.get("draft"))
        for name in ("merged", "draft", "locked"):
            value = raw.get(name)
            if value is not None and not isinstance(value, bool):
                raise ServerError(f"{self.label}: malformed response: {name} is not a boolean")
        out["locked"] = bool(raw.get("locked"))
        out["moved_to"] = None
        return out
