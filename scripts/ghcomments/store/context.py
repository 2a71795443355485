"""One command's context: the resolved target, its state paths, and a client built on first use."""

from __future__ import annotations

import os

from ..base.errors import UsageError
from ..net import config
from ..net.client import GitHubClient
from ..net.connect import build_client
from .state import StatePaths, StateStore, locate, validate_issue_number

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    import argparse
    from typing import Mapping, Optional


class Context:
    """Resolved target, state paths and a lazily built client for one command."""

    def __init__(self, args: argparse.Namespace, env: Optional[Mapping[str, str]] = None,
                 cwd: Optional[str] = None) -> None:
        self.args = args
        self.env = dict(os.environ if env is None else env)
        self.target = config.resolve_target(args.owner, args.repo, args.api_url, self.env, cwd)
        pr = getattr(args, "pr", None)
        if pr is not None and getattr(args, "number", None) is not None:
            raise UsageError("give --issue N or --pr N, not both")
        self.pr = validate_issue_number(pr, "--pr") if pr is not None else None
        self.number = (validate_issue_number(args.number, "--issue")
                       if getattr(args, "number", None) is not None else self.pr)
        self._client: Optional[GitHubClient] = None
        self.token_source: Optional[str] = None

    def state_paths(self) -> StatePaths:
        a = self.args
        if self.number is None:
            raise UsageError("missing --issue N" + (" or --pr N" if hasattr(a, "pr") else ""))
        return locate(a.root, a.run_id, a.retained, self.target.owner, self.target.name,
                      self.number, self.env, suffix="-pr" if self.pr is not None else "")

    def store(self) -> StateStore:
        return StateStore(self.state_paths(), self.target.full_name, self.number or 0,
                          identity="pull_request" if self.pr is not None else "issue",
                          api_host=config.host_for(self.target.api_url))

    def client(self, require_auth: bool = False) -> GitHubClient:
        if self._client is None:
            self._client = build_client(self.args, self.target.api_url, self.env, require_auth)
        return self._client
