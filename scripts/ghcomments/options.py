"""The typed options of the two round commands, built at the face (scripts/github_issue_comments.py)
from their flags: what to read, where state lives, how to connect, what to print. Only these
records go down; no module below the top reads the command line.

Each is made of the floors' own records: `store/context.TargetOptions` (the target),
`store/state.StateLocation` (the work folder), `net/connect.Connection`, `text/output.Output`.
The other commands' records live beside their code: `streams/pr.PrOptions`
(get_pr_comments.py), `inbox/members.InboxOptions` (an inbox check or confirm),
`writer.WriteOptions` (manage_issue_comment.py). Values are as parsed: flag rules and
validation run where they always ran, in the same order.
"""

from __future__ import annotations

from .base.plain import plain
from .net.connect import Connection
from .round.reading import DEFAULT_LIMIT, DEFAULT_MAX_PAGES
from .store.context import TargetOptions
from .store.state import StateLocation
from .text.output import Output

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Optional


@plain(frozen=True)
class CheckOptions:
    """check_issue_updates.py: one round's check, or (`follow`, `followed`) the inbox's."""

    target: TargetOptions = TargetOptions()
    state: StateLocation = StateLocation()
    connection: Connection = Connection()
    output: Output = Output()
    limit: int = DEFAULT_LIMIT
    after_comment_id: Optional[int] = None
    wait: Optional[float] = None
    poll_interval: Optional[float] = None
    include_edits: bool = False
    include_events: bool = False
    include_checks: bool = False
    max_pages: int = DEFAULT_MAX_PAGES
    follow: tuple = ()                 # the REFs as given
    followed: bool = False
    max_total: Optional[int] = None
    ignore_author: tuple = ()          # as given: checked when the round's options are built
    humans_only: bool = False
    include_system: bool = False


@plain(frozen=True)
class LatestOptions:
    """get_latest_comments.py: a selector, --update-state or --confirm-updates on one round;
    the inbox confirm; the --followed listing and --unfollow."""

    target: TargetOptions = TargetOptions()
    state: StateLocation = StateLocation()
    connection: Connection = Connection()
    output: Output = Output()
    comment_id: Optional[int] = None
    review_comment_id: Optional[int] = None
    review_id: Optional[int] = None
    check_run_id: Optional[int] = None
    since_comment_id: Optional[int] = None
    last_n: Optional[int] = None
    all: bool = False
    limit: Optional[int] = None
    max_pages: int = DEFAULT_MAX_PAGES
    update_state: bool = False
    confirm_updates: bool = False
    snapshot_id: Optional[str] = None
    through: Optional[int] = None
    force: bool = False
    followed: bool = False
    follow: tuple = ()                 # the REFs as given
    unfollow: Optional[str] = None     # "": --unfollow without a REF
    ignore_author: tuple = ()
    humans_only: bool = False
    include_system: bool = False
