"""The one shared helper of the bundle: its public face.

Entry scripts call these functions and nothing else:

    import github_issue_comments as gic
    parser = gic.make_parser(__doc__, "check_issue_updates.py")
    ...
    sys.exit(gic.run(main))

What only some commands use (the confirm, the selectors, the wait, the summary, the pull
request's review stream, the writer, GraphQL) is imported where it is first needed, so a
no-change poll loads only what it runs (CONTRACT section 20; tests/test_poll_imports.py).

The face is the one place that reads the command line: each script's argparse Namespace
becomes one typed options record (ghcomments/options.py and the records it names), and only
that goes down. The implementation lives in the package `ghcomments/` beside this file, in
floors (its docstring and docs/reference.md, "The map").
"""

from __future__ import annotations

import argparse
import os

from ghcomments.base import interrupt

interrupt.early()  # a signal from here on is noted: one whole document (CONTRACT section 14)

from ghcomments import __version__  # noqa: F401  (re-exported)
from ghcomments.base.errors import UsageError  # noqa: F401
from ghcomments.cli import (  # noqa: F401
    Context,
    add_checkpoint_args,
    add_connection_args,
    add_filter_args,
    add_output_args,
    add_repo_args,
    add_state_args,
    comment_id_arg,
    exit_code_of,
    make_parser,
    positive_float,
    positive_int,
    run,
)
from ghcomments.net import config
from ghcomments.net.connect import Connection
from ghcomments.options import CheckOptions, LatestOptions
from ghcomments.round.engine import Round
from ghcomments.round.filters import parse_ignore
from ghcomments.round.layouts import Monitor, PullRequestRound, require_flags, spelling_for
from ghcomments.round.reading import DEFAULT_LIMIT, DEFAULT_MAX_PAGES, RoundOptions
from ghcomments.store.context import TargetOptions
from ghcomments.store.state import StateLocation
from ghcomments.text.output import Output

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Tuple, Union

    Result = Tuple[Dict[str, Any], Any]
    Opts = Union[CheckOptions, LatestOptions]
else:  # the aliases name types in annotations only
    Result = Opts = None


# --------------------------------------------------------------------------- flags to options
# The one place that reads the command line: each script's Namespace becomes its typed record.

def _record(cls: Any, args: argparse.Namespace, **given: Any) -> Any:
    """A `cls` record of the flags of its fields' names the script has (the others keep their
    defaults), with `given` on top."""
    values = {n: getattr(args, n) for n in cls.__match_args__ if n in vars(args)}
    values.update(given)
    return cls(**values)


def _parts(args: argparse.Namespace) -> Dict[str, Any]:
    """The records every command's options are made of: target, connection, and (where the
    script has their flags) the state location and the output."""
    parts = {"target": _record(TargetOptions, args, pr_flag="pr" in vars(args)),
             "connection": _record(Connection, args)}
    if "root" in vars(args):
        parts["state"] = _record(StateLocation, args)
    if "format" in vars(args):
        parts["output"] = _record(Output, args)
    return parts


def _command(cls: Any, args: argparse.Namespace) -> Any:
    """One command's options: its parts, its own flags, the REFs and authors as tuples."""
    lists = {n: tuple(getattr(args, n) or ()) for n in ("follow", "ignore_author")
             if n in vars(args)}
    return _record(cls, args, **_parts(args), **lists)


def _inbox(opts: Opts, **extra: Any) -> Any:
    from ghcomments.inbox.members import InboxOptions

    return InboxOptions(follow=opts.follow, followed=opts.followed, state=opts.state,
                        connection=opts.connection, max_pages=opts.max_pages, **extra)


# --------------------------------------------------------------------------- the rounds

def _options(opts: Opts) -> RoundOptions:
    """The round's options; every `include_*` flag the command has (section 19's edits, and
    each kind's flag: `Stream.flag`) passes down by its name."""
    out = opts.output
    includes = {n: bool(getattr(opts, n)) for n in type(opts).__match_args__
                if n.startswith("include_") and n != "include_system"}
    return RoundOptions(max_body_chars=out.max_body_chars, reveal_hidden=out.reveal_hidden,
                        trusted_only=out.trusted_only, humans_only=opts.humans_only,
                        ignore=parse_ignore(opts.ignore_author),
                        include_system=opts.include_system, **includes)


def _shaped(doc: Dict[str, Any], opts: Opts) -> Result:
    if opts.output.format != "summary":
        return doc, None
    from ghcomments.text.render import monitor_summary

    return doc, monitor_summary(doc)


def _context(opts: Opts) -> Context:
    return Context(opts.target, opts.connection, opts.state)


def _round(ctx: Context, opts: Opts, network: bool = True) -> Round:
    """The issue's round, or the pull request's with --pr (CONTRACT section 12). The state
    paths are validated before the client is built (and before any request)."""
    kind = PullRequestRound if ctx.pr is not None else Monitor
    store = ctx.store()
    return kind(ctx.client() if network else None, ctx.target.owner, ctx.target.name,
                ctx.number or 0, store, _options(opts), opts.max_pages)


# flags of one round that --follow and --followed do not take (CONTRACT section 18)
ONE_ROUND_FLAGS = (("number", "--issue"), ("pr", "--pr"), ("repo", "--repo"),
                   ("owner", "--owner"))


def check_issue_updates(args: argparse.Namespace) -> Result:
    """Read-only check after the checkpoint; overwrites this round's updates file.
    With --wait, polls until something would be returned (CONTRACT section 13)."""
    interrupt.install()  # one commit point (CONTRACT section 14)
    opts = _command(CheckOptions, args)
    options = _options(opts)  # filter flags and wait bounds checked before anything else
    wait = None
    if opts.wait is not None:
        from ghcomments.round.wait import Wait

        wait = Wait(opts.wait, opts.poll_interval)
    if opts.wait is None and opts.poll_interval is not None:
        raise UsageError("--poll-interval goes with --wait")
    if opts.follow or opts.followed:  # many rounds: the inbox (CONTRACT section 18)
        from ghcomments.inbox import check as inbox
        from ghcomments.text.render import inbox_summary

        given = [flag for name, flag in ONE_ROUND_FLAGS if getattr(opts.target, name) is not None]
        given += ["--after-comment-id"] if opts.after_comment_id is not None else []
        if given:
            raise UsageError(f"--follow and --followed name the rounds: {', '.join(given)} do "
                             "not go with them")
        doc = inbox.check(_inbox(opts, limit=opts.limit, max_total=opts.max_total), wait,
                          options)
        return doc, (inbox_summary(doc) if opts.output.format == "summary" else None)
    if opts.max_total is not None:
        raise UsageError("--max-total goes with --follow or --followed")
    ctx = _context(opts)
    if ctx.pr is not None and opts.after_comment_id is not None:
        raise UsageError("--after-comment-id does not go with --pr (a round has one cursor "
                         "per kind: confirm a check, then check again)")
    require_flags(options, ctx.pr is not None)  # a kind's flag on a layout without it
    round_ = _round(ctx, opts)
    return _shaped(round_.check(opts.limit, opts.after_comment_id, wait), opts)


def exit_code(doc: Dict[str, Any]) -> int:
    """0, or 130/143 for a wait ended by SIGINT/SIGTERM (CONTRACT section 10); an inbox
    document with a top-level `error` (no round read, or a confirm that refused some) exits
    with that error's code (section 18)."""
    if isinstance(doc, dict) and doc.get("interrupted"):
        return 143 if doc.get("signal") == "SIGTERM" else 130
    if isinstance(doc, dict) and isinstance(doc.get("error"), dict):
        return exit_code_of(doc["error"].get("code"))
    return 0


def _following(opts: LatestOptions) -> Result:
    """--unfollow [REF] and the --followed listing: no request (CONTRACT section 18)."""
    from ghcomments import latest_flags as flags
    from ghcomments.store import following, refs
    from ghcomments.text.render import followed_summary, unfollow_summary

    where, summary = opts.state, opts.output.format == "summary"
    if opts.unfollow is None:  # --followed alone
        flags.round_flags(opts, "--followed (the listing)", flags.TARGET_FLAGS)
        api_url = config.command_api_url(opts.connection.api_url, os.environ)
        found = following.followed_rounds(where.root, where.run_id, where.retained,
                                          refs.api_host_of(api_url), spelling_for)
        doc = following.followed_document(found, spelling_for)
        return doc, (followed_summary(doc) if summary else None)
    flags.round_flags(opts, "--unfollow", {"followed": "--followed"} if opts.followed else {})
    if opts.unfollow:
        if any(flags.value(opts, k) is not None for k in flags.TARGET_FLAGS):
            raise UsageError("--unfollow REF takes no --repo, --owner, --issue or --pr (the "
                             "REF names the round)")
        api_url = config.command_api_url(opts.connection.api_url, os.environ)
        ref = refs.parse_ref(opts.unfollow, api_url)
    else:
        ctx = _context(opts)
        if ctx.number is None:
            raise UsageError("--unfollow needs a REF, or --repo OWNER/NAME with --issue N or "
                             "--pr N")
        api_url = ctx.target.api_url
        ref = refs.RoundRef(refs.PULL if ctx.pr is not None else refs.ISSUE, ctx.target.owner,
                            ctx.target.name, ctx.number)
    doc = following.unfollow(ref, where.root, where.run_id, where.retained,
                             refs.api_host_of(api_url), spelling_for)
    return doc, (unfollow_summary(doc) if summary else None)


def get_latest_comments(args: argparse.Namespace) -> Result:
    """Five commands in one script, in this order: the inbox confirm (--followed or --follow
    with --confirm-updates: inbox/inbox_confirm), the listing of the followed rounds and
    --unfollow (no request: store/following), one round's confirm (--confirm-updates:
    round/confirm, no request), and the reads by selector, --update-state included
    (round/selectors). CONTRACT sections 6, 12 and 18."""
    interrupt.install()  # one commit point (CONTRACT section 14)
    from ghcomments import latest_flags as flags

    opts = _command(LatestOptions, args)
    if opts.confirm_updates and (opts.followed or opts.follow):
        from ghcomments.inbox import (
            inbox_confirm,  # one confirm for the inbox (CONTRACT section 18)
        )

        flags.inbox_confirm(opts)
        return inbox_confirm.confirm(_inbox(opts, snapshot_id=opts.snapshot_id)), None
    if opts.follow:
        raise UsageError("get_latest_comments.py --follow REF goes with --confirm-updates "
                         "--snapshot-id S (to confirm those rounds of an inbox snapshot)")
    if opts.unfollow is not None or (opts.followed and not opts.confirm_updates):
        return _following(opts)
    selector, value = flags.selector(opts)
    _options(opts)
    ctx = _context(opts)
    round_ = _round(ctx, opts, network=not opts.confirm_updates)
    if opts.confirm_updates:
        from ghcomments.round.confirm import confirm

        return _shaped(confirm(round_, opts.snapshot_id, opts.through, opts.force), opts)
    limit = opts.limit
    if limit is None and (selector == "checkpoint" or ctx.pr is not None):
        limit = DEFAULT_LIMIT
    from ghcomments.round.selectors import fetch

    return _shaped(fetch(round_, selector, value, limit, opts.update_state, opts.force), opts)


def get_pr_comments(args: argparse.Namespace) -> Result:
    """PR review feedback (CONTRACT section 7); imported on use, so the monitor and the writer
    do not load ghcomments.streams.pr (about 4 ms of every run)."""
    interrupt.default()  # read-only: no commit point
    from ghcomments.streams import pr

    return pr.get_pr_comments(_command(pr.PrOptions, args))


def manage_issue_comment(args: argparse.Namespace) -> Result:
    """The one writer; flags are checked before the body is read (CONTRACT sections 8, 15)."""
    interrupt.default()  # a write is never interrupted halfway by our own handler
    from ghcomments import writer

    return writer.command(_command(writer.WriteOptions, args)), None


__all__ = ["Context", "DEFAULT_LIMIT", "DEFAULT_MAX_PAGES", "UsageError", "add_checkpoint_args",
           "add_connection_args",
           "add_filter_args", "exit_code", "positive_float",
           "add_output_args", "add_repo_args", "add_state_args", "check_issue_updates",
           "comment_id_arg", "get_latest_comments", "get_pr_comments", "make_parser",
           "manage_issue_comment", "positive_int", "run"]
