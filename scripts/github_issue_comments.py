"""The one shared helper of the bundle: its public face.

Entry scripts call these functions and nothing else:

    import github_issue_comments as gic
    parser = gic.make_parser(__doc__, "check_issue_updates.py")
    ...
    sys.exit(gic.run(main))

What only some commands use (the confirm, the selectors, the wait, the summary, the pull
request's review stream, the writer, GraphQL) is imported where it is first needed, so a
no-change poll loads only what it runs (CONTRACT section 20; tests/test_poll_imports.py).

The implementation lives in the package `ghcomments/` beside this file, one module per seam:
errors, config (repository, URLs, token), transport (requests or `gh api`), client (retries,
rate limits, links), scan (the comment-list algorithms), normalize, state, engine
(the round; layouts, hints, confirm, selectors), render, cli.
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
from ghcomments.round.engine import Round
from ghcomments.round.filters import parse_ignore
from ghcomments.round.layouts import Monitor, PullRequestRound
from ghcomments.round.reading import DEFAULT_LIMIT, DEFAULT_MAX_PAGES, Options

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Tuple

    Result = Tuple[Dict[str, Any], Any]
else:  # the alias names a type in annotations only
    Result = None


def _options(args: argparse.Namespace) -> Options:
    return Options(max_body_chars=args.max_body_chars, reveal_hidden=args.reveal_hidden,
                   trusted_only=args.trusted_only,
                   humans_only=getattr(args, "humans_only", False),
                   ignore=parse_ignore(getattr(args, "ignore_author", None)),
                   include_system=getattr(args, "include_system", False),
                   include_edits=getattr(args, "include_edits", False))


def _shaped(doc: Dict[str, Any], args: argparse.Namespace) -> Result:
    if args.format != "summary":
        return doc, None
    from ghcomments.text.render import monitor_summary

    return doc, monitor_summary(doc)


def _round(ctx: Context, args: argparse.Namespace, network: bool = True) -> Round:
    """The issue's round, or the pull request's with --pr (CONTRACT section 12). The state
    paths are validated before the client is built (and before any request)."""
    kind = PullRequestRound if ctx.pr is not None else Monitor
    store = ctx.store()
    return kind(ctx.client() if network else None, ctx.target.owner, ctx.target.name,
                ctx.number or 0, store, _options(args), args.max_pages)


def check_issue_updates(args: argparse.Namespace) -> Result:
    """Read-only check after the checkpoint; overwrites this round's updates file.
    With --wait, polls until something would be returned (CONTRACT section 13)."""
    interrupt.install()  # one commit point (CONTRACT section 14)
    options = _options(args)  # filter flags and wait bounds checked before anything else
    wait = None
    if args.wait is not None:
        from ghcomments.round.wait import Wait

        wait = Wait(args.wait, args.poll_interval)
    if args.wait is None and args.poll_interval is not None:
        raise UsageError("--poll-interval goes with --wait")
    if args.follow or args.followed:  # many rounds: the inbox (CONTRACT section 18)
        from ghcomments.inbox import inbox
        from ghcomments.text.render import inbox_summary

        doc = inbox.check(args, wait, options)
        return doc, (inbox_summary(doc) if args.format == "summary" else None)
    if args.max_total is not None:
        raise UsageError("--max-total goes with --follow or --followed")
    ctx = Context(args)
    if ctx.pr is not None and args.after_comment_id is not None:
        raise UsageError("--after-comment-id does not go with --pr (a round has one cursor "
                         "per kind: confirm a check, then check again)")
    round_ = _round(ctx, args)
    return _shaped(round_.check(args.limit, args.after_comment_id, wait), args)


def exit_code(doc: Dict[str, Any]) -> int:
    """0, or 130/143 for a wait ended by SIGINT/SIGTERM (CONTRACT section 10); an inbox
    document with a top-level `error` (no round read, or a confirm that refused some) exits
    with that error's code (section 18)."""
    if isinstance(doc, dict) and doc.get("interrupted"):
        return 143 if doc.get("signal") == "SIGTERM" else 130
    if isinstance(doc, dict) and isinstance(doc.get("error"), dict):
        return exit_code_of(doc["error"].get("code"))
    return 0


# get_latest_comments.py flags that read or write one round: not with --unfollow or the
# --followed listing (CONTRACT section 18)
ROUND_FLAGS = {"comment_id": "--comment-id", "review_comment_id": "--review-comment-id",
               "review_id": "--review-id", "since_comment_id": "--since-comment-id",
               "last_n": "--last-n", "limit": "--limit", "snapshot_id": "--snapshot-id",
               "through": "--through"}
ROUND_SWITCHES = {"all": "--all", "update_state": "--update-state",
                  "confirm_updates": "--confirm-updates", "force": "--force"}


# what the inbox confirm (--followed/--follow --confirm-updates) does not take
INBOX_CONFIRM_REFUSES = {**{k: v for k, v in ROUND_FLAGS.items() if k != "snapshot_id"},
                         "all": "--all", "update_state": "--update-state", "force": "--force",
                         "repo": "--repo", "owner": "--owner", "number": "--issue",
                         "pr": "--pr", "unfollow": "--unfollow"}


def _round_flags(args: argparse.Namespace, what: str, extra: Dict[str, str]) -> None:
    given = [flag for name, flag in {**ROUND_FLAGS, **extra}.items()
             if getattr(args, name, None) not in (None, "")]
    given += [flag for name, flag in ROUND_SWITCHES.items() if getattr(args, name, False)]
    if given:
        raise UsageError(f"{what} does not take {', '.join(sorted(given))}")


def _following(args: argparse.Namespace) -> Result:
    """--unfollow [REF] and the --followed listing: no request (CONTRACT section 18)."""
    from ghcomments.store import following, refs
    from ghcomments.text.render import followed_summary, unfollow_summary

    if args.unfollow is None:  # --followed alone
        _round_flags(args, "--followed (the listing)", {
            "repo": "--repo", "owner": "--owner", "number": "--issue", "pr": "--pr"})
        api_url = config.command_api_url(args.api_url, os.environ)
        found = following.followed_rounds(args.root, args.run_id, args.retained,
                                          refs.api_host_of(api_url))
        doc = following.followed_document(found)
        return doc, (followed_summary(doc) if args.format == "summary" else None)
    _round_flags(args, "--unfollow", {"followed": "--followed"} if args.followed else {})
    if args.unfollow:
        if any(getattr(args, k, None) is not None for k in ("repo", "owner", "number", "pr")):
            raise UsageError("--unfollow REF takes no --repo, --owner, --issue or --pr (the "
                             "REF names the round)")
        api_url = config.command_api_url(args.api_url, os.environ)
        ref = refs.parse_ref(args.unfollow, api_url)
    else:
        ctx = Context(args)
        if ctx.number is None:
            raise UsageError("--unfollow needs a REF, or --repo OWNER/NAME with --issue N or "
                             "--pr N")
        api_url = ctx.target.api_url
        ref = refs.RoundRef(refs.PULL if ctx.pr is not None else refs.ISSUE, ctx.target.owner,
                            ctx.target.name, ctx.number)
    doc = following.unfollow(ref, args.root, args.run_id, args.retained,
                             refs.api_host_of(api_url))
    return doc, (unfollow_summary(doc) if args.format == "summary" else None)


def get_latest_comments(args: argparse.Namespace) -> Result:
    """Selectors, --update-state and --confirm-updates (CONTRACT sections 6 and 12); the
    followed rounds and --unfollow (section 18)."""
    interrupt.install()  # one commit point (CONTRACT section 14)
    if args.confirm_updates and (args.followed or args.follow):
        from ghcomments.inbox import (
            inbox_confirm,  # one confirm for the inbox (CONTRACT section 18)
        )

        given = [flag for name, flag in INBOX_CONFIRM_REFUSES.items()
                 if getattr(args, name, None) not in (None, False)]
        if given:
            raise UsageError(f"the inbox confirm does not take {', '.join(sorted(given))}")
        return inbox_confirm.confirm(args), None
    if args.follow:
        raise UsageError("get_latest_comments.py --follow REF goes with --confirm-updates "
                         "--snapshot-id S (to confirm those rounds of an inbox snapshot)")
    if args.unfollow is not None or (args.followed and not args.confirm_updates):
        return _following(args)
    pr = getattr(args, "pr", None) is not None
    names = ["comment_id"] + (["review_comment_id", "review_id"] if pr else []) + [
        "since_comment_id", "last_n"]
    selector, value = "checkpoint", None
    for name in names:
        if getattr(args, name, None) is not None:
            selector, value = name, getattr(args, name)
            break
    else:
        if args.all:
            selector = "all"
    if pr:
        for flag in ("since_comment_id", "last_n", "through"):
            if getattr(args, flag) is not None:
                raise UsageError(f"--{flag.replace('_', '-')} does not go with --pr")
        if args.all:
            raise UsageError("--all does not go with --pr")
    elif args.review_comment_id is not None or args.review_id is not None:
        raise UsageError("--review-comment-id and --review-id go with --pr N")
    if args.confirm_updates:
        if selector != "checkpoint" or args.update_state:
            raise UsageError("--confirm-updates takes no selector and no --update-state")
    elif args.snapshot_id is not None or args.through is not None:
        raise UsageError("--snapshot-id and --through go with --confirm-updates")
    if args.update_state and selector not in ("checkpoint", "since_comment_id"):
        raise UsageError(f"--update-state cannot be used with --{selector.replace('_', '-')}: "
                         "it would move the checkpoint past comments that were not read")
    if args.force and not (args.update_state or args.confirm_updates):
        raise UsageError("--force goes with --update-state or --confirm-updates")
    _options(args)
    ctx = Context(args)
    round_ = _round(ctx, args, network=not args.confirm_updates)
    if args.confirm_updates:
        from ghcomments.round.confirm import confirm

        return _shaped(confirm(round_, args.snapshot_id, args.through, args.force), args)
    limit = args.limit
    if limit is None and (selector == "checkpoint" or ctx.pr is not None):
        limit = DEFAULT_LIMIT
    from ghcomments.round.selectors import fetch

    return _shaped(fetch(round_, selector, value, limit, args.update_state, args.force), args)


def get_pr_comments(args: argparse.Namespace) -> Result:
    """PR review feedback (CONTRACT section 7); imported on use, so the monitor and the writer
    do not load ghcomments.streams.pr (about 4 ms of every run)."""
    interrupt.default()  # read-only: no commit point
    from ghcomments.streams.pr import get_pr_comments as impl

    return impl(args)


# Which flags each writer action takes (CONTRACT sections 8 and 15); any other is exit 2.
WRITER_FLAGS = {
    "create": {"number", "body_file"},
    "update": {"comment_id", "review_comment_id", "pr", "body_file"},
    "reply": {"pr", "review_comment_id", "body_file"},
    "review": {"pr", "event", "body_file", "comments_file"},
    "resolve": {"thread_id"},
    "unresolve": {"thread_id"},
}
WRITER_FLAG_NAMES = {"number": "--issue", "pr": "--pr", "comment_id": "--comment-id",
                     "review_comment_id": "--review-comment-id", "body_file": "--body-file",
                     "event": "--event", "comments_file": "--comments-file",
                     "thread_id": "--thread-id"}


def _writer_flags(args: argparse.Namespace) -> None:
    """Flag conflicts and missing flags, before any file is read or request sent."""
    action = args.action
    given = {k for k in WRITER_FLAG_NAMES if getattr(args, k, None) is not None}
    extra = sorted(WRITER_FLAG_NAMES[k] for k in given - WRITER_FLAGS[action])
    if extra:
        raise UsageError(f"--action {action} does not take {', '.join(extra)}")
    need = {"create": ["number", "body_file"], "reply": ["pr", "review_comment_id", "body_file"],
            "review": ["pr", "event"], "resolve": ["thread_id"], "unresolve": ["thread_id"],
            "update": ["body_file"]}[action]
    missing = [WRITER_FLAG_NAMES[k] for k in need if getattr(args, k, None) is None]
    if missing:
        raise UsageError(f"--action {action} needs {' and '.join(missing)}")
    if action == "update" and (args.comment_id is None) == (args.review_comment_id is None):
        raise UsageError("--action update needs --comment-id ID (an issue or conversation "
                         "comment) or --review-comment-id ID (an inline comment), one of them")
    if action == "update" and args.pr is not None and args.review_comment_id is None:
        raise UsageError("--action update --comment-id takes no --pr")
    if action == "review" and args.body_file is None:
        if args.event == "REQUEST_CHANGES":
            raise UsageError("--event REQUEST_CHANGES needs --body-file (GitHub asks for the "
                             "changes to be named)")
        if args.event == "COMMENT" and args.comments_file is None:
            raise UsageError("--event COMMENT needs --body-file or --comments-file")


def manage_issue_comment(args: argparse.Namespace) -> Result:
    """The one writer; flags are checked before the body is read (CONTRACT sections 8, 15)."""
    interrupt.default()  # a write is never interrupted halfway by our own handler
    from ghcomments import writer

    _writer_flags(args)
    ctx = Context(args)
    action = args.action
    body = writer.read_body(args.body_file) if args.body_file is not None else None
    if action in ("create", "update") and args.review_comment_id is None:
        return writer.manage(ctx, action, ctx.number, args.comment_id, body or "",
                             args.dry_run), None
    if action == "update":
        return writer.update_review_comment(ctx, args.review_comment_id, body or "",
                                            args.dry_run), None
    if action == "reply":
        return writer.reply(ctx, ctx.pr, args.review_comment_id, body or "", args.dry_run), None
    if action == "review":
        comments = (writer.read_comments_file(args.comments_file)
                    if args.comments_file is not None else [])
        return writer.review(ctx, ctx.pr, args.event, body, comments, args.dry_run), None
    return writer.resolve(ctx, action, args.thread_id, args.dry_run), None


__all__ = ["Context", "DEFAULT_LIMIT", "DEFAULT_MAX_PAGES", "UsageError", "add_connection_args",
           "add_filter_args", "exit_code", "positive_float",
           "add_output_args", "add_repo_args", "add_state_args", "check_issue_updates",
           "comment_id_arg", "get_latest_comments", "get_pr_comments", "make_parser",
           "manage_issue_comment", "positive_int", "run"]
