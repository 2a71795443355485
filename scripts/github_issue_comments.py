"""The one shared helper of the bundle: its public face.

Entry scripts call these functions and nothing else:

    import github_issue_comments as gic
    parser = gic.make_parser(__doc__, "check_issue_updates.py")
    ...
    sys.exit(gic.run(main))

The implementation lives in the package `ghcomments/` beside this file, one module per seam:
errors, config (repository, URLs, token), transport (requests or `gh api`), client (retries,
rate limits, links), scan (the comment-list algorithms), normalize, state, monitor, render, cli.
"""

from __future__ import annotations

import argparse
from typing import Any, Dict, Tuple

from ghcomments import __version__  # noqa: F401  (re-exported)
from ghcomments.cli import (  # noqa: F401
    Context,
    add_connection_args,
    add_output_args,
    add_repo_args,
    add_state_args,
    comment_id_arg,
    make_parser,
    positive_int,
    run,
)
from ghcomments.errors import UsageError  # noqa: F401
from ghcomments.monitor import DEFAULT_LIMIT, DEFAULT_MAX_PAGES, Monitor, Options
from ghcomments.render import monitor_summary

Result = Tuple[Dict[str, Any], Any]


def _options(args: argparse.Namespace) -> Options:
    return Options(max_body_chars=args.max_body_chars, reveal_hidden=args.reveal_hidden,
                   trusted_only=args.trusted_only)


def _shaped(doc: Dict[str, Any], args: argparse.Namespace) -> Result:
    return doc, (monitor_summary(doc) if args.format == "summary" else None)


def check_issue_updates(args: argparse.Namespace) -> Result:
    """Read-only check after the checkpoint; overwrites this round's updates file."""
    ctx = Context(args)
    store = ctx.store()  # paths validated before any request
    monitor = Monitor(ctx.client(), ctx.target.owner, ctx.target.name, ctx.number or 0, store,
                      _options(args), args.max_pages)
    return _shaped(monitor.check(args.limit, args.after_comment_id), args)


def get_latest_comments(args: argparse.Namespace) -> Result:
    """Selectors, --update-state and --confirm-updates (CONTRACT section 6)."""
    selector, value = "checkpoint", None
    for name in ("comment_id", "since_comment_id", "last_n"):
        if getattr(args, name) is not None:
            selector, value = name, getattr(args, name)
            break
    else:
        if args.all:
            selector = "all"
    if args.confirm_updates:
        if selector != "checkpoint" or args.update_state:
            raise UsageError("--confirm-updates takes no selector and no --update-state")
    elif args.snapshot_id is not None or args.through is not None:
        raise UsageError("--snapshot-id and --through go with --confirm-updates")
    if args.update_state and selector in ("comment_id", "last_n", "all"):
        raise UsageError(f"--update-state cannot be used with --{selector.replace('_', '-')}: "
                         "it would move the checkpoint past comments that were not read")
    if args.force and not (args.update_state or args.confirm_updates):
        raise UsageError("--force goes with --update-state or --confirm-updates")
    ctx = Context(args)
    store = ctx.store()
    if args.confirm_updates:
        monitor = Monitor(None, ctx.target.owner, ctx.target.name, ctx.number or 0, store,
                          _options(args), args.max_pages)
        return _shaped(monitor.confirm(args.snapshot_id, args.through, args.force), args)
    monitor = Monitor(ctx.client(), ctx.target.owner, ctx.target.name, ctx.number or 0, store,
                      _options(args), args.max_pages)
    limit = args.limit
    if limit is None and selector == "checkpoint":
        limit = DEFAULT_LIMIT
    return _shaped(monitor.fetch(selector, value, limit, args.update_state, args.force), args)


def get_pr_comments(args: argparse.Namespace) -> Result:
    """PR review feedback (CONTRACT section 7); imported on use, so the monitor and the writer
    do not load ghcomments.pr (about 4 ms of every run)."""
    from ghcomments.pr import get_pr_comments as impl

    return impl(args)


def manage_issue_comment(args: argparse.Namespace) -> Result:
    """Create or update one comment; flags are checked before the body is read."""
    from ghcomments.writer import manage, read_body

    if args.action == "create" and (args.number is None or args.comment_id is not None):
        raise UsageError("--action create needs --issue N (and no --comment-id)")
    if args.action == "update" and args.comment_id is None:
        raise UsageError("--action update needs --comment-id ID")
    ctx = Context(args)
    body = read_body(args.body_file)
    return manage(ctx, args.action, ctx.number, args.comment_id, body, args.dry_run), None


__all__ = ["Context", "DEFAULT_LIMIT", "DEFAULT_MAX_PAGES", "UsageError", "add_connection_args",
           "add_output_args", "add_repo_args", "add_state_args", "check_issue_updates",
           "comment_id_arg", "get_latest_comments", "get_pr_comments", "make_parser",
           "manage_issue_comment", "positive_int", "run"]
