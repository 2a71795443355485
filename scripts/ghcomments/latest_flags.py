"""get_latest_comments.py's flag rules (CONTRACT sections 6, 12 and 18): which flags go
together, checked on its options (options.LatestOptions) before any file is read or request
sent, in the order the command has always checked them."""

from __future__ import annotations

from .base.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Tuple

    from .options import LatestOptions

# flags that read or write one round: not with --unfollow or the --followed listing (section 18)
ROUND_FLAGS = {"comment_id": "--comment-id", "review_comment_id": "--review-comment-id",
               "review_id": "--review-id", "check_run_id": "--check-run-id",
               "since_comment_id": "--since-comment-id",
               "last_n": "--last-n", "limit": "--limit", "snapshot_id": "--snapshot-id",
               "through": "--through"}
ROUND_SWITCHES = {"all": "--all", "update_state": "--update-state",
                  "confirm_updates": "--confirm-updates", "force": "--force"}
TARGET_FLAGS = {"repo": "--repo", "owner": "--owner", "number": "--issue", "pr": "--pr"}

# what the inbox confirm (--followed/--follow --confirm-updates) does not take
INBOX_CONFIRM_REFUSES = {**{k: v for k, v in ROUND_FLAGS.items() if k != "snapshot_id"},
                         "all": "--all", "update_state": "--update-state", "force": "--force",
                         **TARGET_FLAGS, "unfollow": "--unfollow"}


def value(opts: LatestOptions, name: str) -> Any:
    """A flag's value by its name, the target's flags included."""
    return getattr(opts.target if name in TARGET_FLAGS else opts, name)


def inbox_confirm(opts: LatestOptions) -> None:
    given = [flag for name, flag in INBOX_CONFIRM_REFUSES.items()
             if value(opts, name) not in (None, False)]
    if given:
        raise UsageError(f"the inbox confirm does not take {', '.join(sorted(given))}")


def round_flags(opts: LatestOptions, what: str, extra: Dict[str, str]) -> None:
    """No flag of one round's read or write with `what` (the listing, or --unfollow)."""
    given = [flag for name, flag in {**ROUND_FLAGS, **extra}.items()
             if value(opts, name) not in (None, "")]
    given += [flag for name, flag in ROUND_SWITCHES.items() if getattr(opts, name)]
    if given:
        raise UsageError(f"{what} does not take {', '.join(sorted(given))}")


def selector(opts: LatestOptions) -> Tuple[str, Any]:
    """(selector, its value) of one round's command, first given wins; the flags that do not
    go with it, with --pr, or with --confirm-updates refused."""
    pr = opts.target.pr is not None
    names = ["comment_id"] + (["review_comment_id", "review_id", "check_run_id"] if pr
                              else []) + [
        "since_comment_id", "last_n"]
    chosen, chosen_value = "checkpoint", None
    for name in names:
        if getattr(opts, name) is not None:
            chosen, chosen_value = name, getattr(opts, name)
            break
    else:
        if opts.all:
            chosen = "all"
    if pr:
        for flag in ("since_comment_id", "last_n", "through"):
            if getattr(opts, flag) is not None:
                raise UsageError(f"--{flag.replace('_', '-')} does not go with --pr")
        if opts.all:
            raise UsageError("--all does not go with --pr")
    elif opts.review_comment_id is not None or opts.review_id is not None:
        raise UsageError("--review-comment-id and --review-id go with --pr N")
    elif opts.check_run_id is not None:
        raise UsageError("--check-run-id goes with --pr N")
    if opts.confirm_updates:
        if chosen != "checkpoint" or opts.update_state:
            raise UsageError("--confirm-updates takes no selector and no --update-state")
    elif opts.snapshot_id is not None or opts.through is not None:
        raise UsageError("--snapshot-id and --through go with --confirm-updates")
    if opts.update_state and chosen not in ("checkpoint", "since_comment_id"):
        raise UsageError(f"--update-state cannot be used with --{chosen.replace('_', '-')}: "
                         "it would move the checkpoint past comments that were not read")
    if opts.force and not (opts.update_state or opts.confirm_updates):
        raise UsageError("--force goes with --update-state or --confirm-updates")
    return chosen, chosen_value
