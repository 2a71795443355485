"""One command's context: the resolved target, its state paths, and a client built on first use."""

from __future__ import annotations

import os

from ..base.errors import UsageError
from ..base.plain import plain
from ..net import config
from ..net.client import GitHubClient
from ..net.connect import Connection, build_client
from .state import StateLocation, StatePaths, StateStore, locate, validate_issue_number

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Mapping, Optional


@plain(frozen=True)
class TargetOptions:
    """What a command works on, as its target flags gave it (raw: Context validates them):
    --repo, --owner, the number (--issue N, or get_pr_comments.py's --pr N) and the round's
    --pr N; `pr_flag`: whether the command has --pr beside --issue (for the message naming
    what is missing)."""

    owner: Optional[str] = None
    repo: Optional[str] = None
    number: Optional[str] = None
    pr: Optional[str] = None
    pr_flag: bool = False


class Context:
    """Resolved target, state paths and a lazily built client for one command."""

    def __init__(self, target: TargetOptions, connection: Connection,
                 state: Optional[StateLocation] = None,
                 env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None) -> None:
        self.connection = connection
        self.state = state if state is not None else StateLocation()
        self.pr_flag = target.pr_flag
        self.env = dict(os.environ if env is None else env)
        self.target = config.resolve_target(target.owner, target.repo, connection.api_url,
                                            self.env, cwd)
        pr = target.pr
        if pr is not None and target.number is not None:
            raise UsageError("give --issue N or --pr N, not both")
        self.pr = validate_issue_number(pr, "--pr") if pr is not None else None
        self.number = (validate_issue_number(target.number, "--issue")
                       if target.number is not None else self.pr)
        self._client: Optional[GitHubClient] = None
        self.token_source: Optional[str] = None

    def state_paths(self) -> StatePaths:
        s = self.state
        if self.number is None:
            raise UsageError("missing --issue N" + (" or --pr N" if self.pr_flag else ""))
        return locate(s.root, s.run_id, s.retained, self.target.owner, self.target.name,
                      self.number, self.env, suffix="-pr" if self.pr is not None else "")

    def store(self) -> StateStore:
        return StateStore(self.state_paths(), self.target.full_name, self.number or 0,
                          identity="pull_request" if self.pr is not None else "issue",
                          api_host=config.host_for(self.target.api_url))

    def client(self, require_auth: bool = False) -> GitHubClient:
        if self._client is None:
            self._client = build_client(self.connection, self.target.api_url, self.env,
                                        require_auth)
        return self._client
