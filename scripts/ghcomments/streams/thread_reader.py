"""A pull request's review threads over GraphQL: the one reader of `reviewThreads`.

`ThreadReader.thread_pages` is the one paginator of a pull request's review threads (100 a
page, oldest first or newest first), shared by get_pr_comments.py's document (pr.py: every
thread with every comment) and a round's thread state (threads.py). Here too: the GraphQL
endpoint of a client, GitHub's GraphQL errors mapped to the contract's typed errors (a
RATE_LIMITED answer waits for the budget's reset), and the type checks of an answer's objects,
lists, page info and ids (a malformed answer is exit 6).
"""

from __future__ import annotations

from ..base import errors
from ..base.errors import (
    AuthError,
    BundleError,
    NotFoundError,
    RateLimitedError,
    ServerError,
)
from ..net import config
from ..text.normalize import check_flag, check_text, escape_field

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

PAGE = 100
# A safety bound; reaching it is reported in `limitations`, never silent.
MAX_THREAD_PAGES = 50       # 5,000 review threads

# GitHub's GraphQL error types -> the contract's typed errors (anything else: exit 6).
GRAPHQL_ERRORS = {"NOT_FOUND": NotFoundError, "FORBIDDEN": AuthError,
                  "RATE_LIMITED": RateLimitedError}


# --------------------------------------------------------------------------- an answer's types


def as_object(value: Any, what: str, name: str) -> Dict[str, Any]:
    """A GraphQL object ({} for null); any other type is a malformed answer (exit 6)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ServerError(f"{what}: malformed GraphQL response: {name} is "
                          f"{type(value).__name__}, not an object")
    return value


def node_list(conn: Dict[str, Any], what: str, name: str) -> List[Dict[str, Any]]:
    nodes = conn.get("nodes")
    if nodes is None:
        return []
    if not isinstance(nodes, list):
        raise ServerError(f"{what}: malformed GraphQL response: {name}.nodes is "
                          f"{type(nodes).__name__}, not a list")
    return [as_object(n, what, f"{name}.nodes[]") for n in nodes if n is not None]


def page_info(conn: Dict[str, Any], what: str, name: str,
              backward: bool = False) -> Tuple[bool, Optional[str]]:
    """(more pages?, the cursor of the next one): forward `hasNextPage`/`endCursor`, backward
    `hasPreviousPage`/`startCursor`."""
    more_key, at_key = ("hasPreviousPage", "startCursor") if backward else ("hasNextPage",
                                                                            "endCursor")
    info = as_object(conn.get("pageInfo"), what, f"{name}.pageInfo")
    more = check_flag(info.get(more_key), what, f"{name}.pageInfo.{more_key}")
    return bool(more), check_text(info.get(at_key), what, f"{name}.pageInfo.{at_key}")


def int_id(value: Any) -> Optional[int]:
    """GraphQL's BigInt arrives as a string of digits; ids stay numbers end to end. Anything
    else (a float, a word, an object) is a malformed answer (exit 6)."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        return int(value)
    raise ServerError(f"review thread comment: malformed GraphQL response: fullDatabaseId is "
                      f"{type(value).__name__} {escape_field(str(value)[:40])}, not an id")


# --------------------------------------------------------------------------- reading


def graphql_url(client: Any, env: Mapping[str, str]) -> str:
    """The GraphQL endpoint of the client's API (env GITHUB_GRAPHQL_URL, else derived)."""
    # gh resolves the host itself: it takes the `graphql` endpoint on its own API base.
    if hasattr(client.transport, "api_base"):
        return f"{client.base}/graphql"
    return config.graphql_url_for(client.api_url, env)


def _graphql_error(errors: List[dict], client: Any, what: str) -> BundleError:
    """The typed error for a GraphQL answer carrying `errors` (HTTP 200)."""
    chosen = next((e for e in errors if isinstance(e, dict) and e.get("type") in GRAPHQL_ERRORS),
                  errors[0] if isinstance(errors[0], dict) else {})
    extensions = chosen.get("extensions")
    kind = chosen.get("type") or (extensions.get("code") if isinstance(extensions, dict)
                                  else None) or "error"
    kind = escape_field(kind)[:80] if isinstance(kind, str) else "error"
    message = escape_field(" ".join(str(chosen.get("message") or "").split()))[:300]
    text = f"{what}: GraphQL {kind}" + (f": {message}" if message else "")
    cls = GRAPHQL_ERRORS.get(kind, ServerError)
    if cls is RateLimitedError:
        wait = _graphql_reset_wait(client)
        return RateLimitedError(f"{text} (retry after {wait} s)", retry_after_seconds=wait)
    return cls(text)


def _graphql_reset_wait(client: Any) -> int:
    """Seconds until the GraphQL budget resets, from the last response's headers."""
    rate = getattr(client, "rate", {}) or {}
    reset = errors.seconds_of(rate.get("x-ratelimit-reset"))
    if rate.get("x-ratelimit-remaining") == "0" and reset is not None:
        # Against GitHub's clock (the response's Date), not this machine's.
        return errors.bounded_wait(reset - errors.server_now(rate))
    return 60  # GitHub's advice when it gives no time: wait at least a minute


class ThreadReader:
    """Reads one pull request's review threads, page by page (GraphQL); what could not be
    read goes to `limitations`."""

    def __init__(self, client: Any, graphql_url: str, owner: str, name: str,
                 number: int) -> None:
        self.client = client
        self.graphql_url = graphql_url
        self.owner, self.name, self.number = owner, name, number
        self.limitations: List[str] = []
        self.label = f"{owner}/{name}#{number}"

    def _query(self, query: str, variables: Dict[str, Any], what: str) -> Dict[str, Any]:
        data, errors = self.client.graphql(self.graphql_url, query, variables, what=what)
        if errors:
            raise _graphql_error(errors, self.client, what)
        if not isinstance(data, dict):
            raise ServerError(f"{what}: GraphQL answered without data")
        return data

    def thread_pages(self, query: str, what: str, backward: bool = False
                     ) -> Iterator[Tuple[Dict[str, Any], List[Dict[str, Any]]]]:
        """(PR fields, thread nodes) of each page of 100 review threads: the one paginator of
        `reviewThreads`, for get_pr_comments.py (oldest first, `first`/`after`) and for a round's
        thread state (also newest first, `last`/`before`: its variables are named so). The
        caller may stop early; at MAX_THREAD_PAGES pages the rest is a limitation."""
        cursor: Optional[str] = None
        for _ in range(MAX_THREAD_PAGES):
            data = self._query(query, {"owner": self.owner, "name": self.name,
                                       "number": self.number,
                                       ("before" if backward else "after"): cursor}, what)
            repo = as_object(data.get("repository"), what, "repository")
            pr = as_object(repo.get("pullRequest"), what, "pullRequest")
            if not pr:
                raise NotFoundError(f"{what}: pull request not found")
            conn = as_object(pr.get("reviewThreads"), what, "reviewThreads")
            nodes = node_list(conn, what, "reviewThreads")
            yield pr, (nodes[::-1] if backward else nodes)
            more, cursor = page_info(conn, what, "reviewThreads", backward)
            if not more:
                return
        self.limitations.append(f"only the {'last' if backward else 'first'} "
                                f"{MAX_THREAD_PAGES * PAGE} review threads were read; "
                                f"{'earlier' if backward else 'later'} threads are missing")

