"""Command-line plumbing shared by every entry script: options, connection, output, `run`.

stdout carries exactly one JSON document (or the summary text when asked for); warnings and
diagnostics go to stderr. Every error, argument errors included, becomes the contract's error
JSON, a one-line stderr message and the exit code (CONTRACT section 10).
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from .base import interrupt
from .base.errors import BundleError, UsageError
from .base.interrupt import Interrupted
from .net.connect import build_client, gh_fallback  # noqa: F401  (re-exported)
from .store.context import Context  # noqa: F401  (re-exported)
from .store.state import parse_digits, validate_comment_id
from .text import tokens
from .text.output import encode_json, scrub, stderr_line  # noqa: F401

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, List, Optional, Sequence

EXIT_CODES = """exit codes:
  0  success (also "no new comments")       4  not found (repository, issue, PR, comment)
  1  internal error (a bug)                  5  rate limited (see retry_after_seconds)
  2  usage: bad or missing arguments, or     6  network or server error
     dependency: requests not installed      7  state: checkpoint/updates file refused
  3  auth: bad or missing credentials
On an error, stdout holds {"error": {"code", "message", "status", "retry_after_seconds"}}."""

class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def _help_formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's formatter, told the terminal's width: argparse builds one for every
    add_argument and would ask shutil each time, an import (about 2 ms) a poll never uses.
    The width is found as shutil.get_terminal_size finds it: COLUMNS, else stdout's
    terminal, else 80; less 2, as argparse takes it."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore
        except (AttributeError, ValueError, OSError):
            columns = 0
    return argparse.RawDescriptionHelpFormatter(prog, width=(columns or 80) - 2)


def make_parser(doc: Optional[str], prog: str, epilog: str = EXIT_CODES) -> ArgumentParser:
    return ArgumentParser(prog=prog, description=doc, epilog=epilog,
                          formatter_class=_help_formatter)


def positive_int(flag: str, allow_zero: bool = False) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = parse_digits(text)
        if value is None:
            raise argparse.ArgumentTypeError(f"{flag} takes a whole number, not {text!r}")
        if value < (0 if allow_zero else 1) or value > 10**9:
            raise argparse.ArgumentTypeError(f"{flag} out of range: {text}")
        return value
    return parse


def positive_float(flag: str, allow_zero: bool = True) -> Callable[[str], float]:
    def parse(text: str) -> float:
        if not re.fullmatch(r"[0-9]{1,9}(\.[0-9]{1,9})?", text):  # ASCII only, no nan/inf
            raise argparse.ArgumentTypeError(f"{flag} takes a number of seconds, not {text!r}")
        value = float(text)
        if value > 3600 or (value == 0 and not allow_zero):
            raise argparse.ArgumentTypeError(f"{flag} out of range: {text}")
        return value
    return parse


def comment_id_arg(flag: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            return validate_comment_id(text, flag)
        except UsageError as exc:
            raise argparse.ArgumentTypeError(exc.message)
    return parse


def add_repo_args(p: argparse.ArgumentParser, number: str = "--issue",
                  number_required: bool = True, pr_rounds: bool = False) -> None:
    """--repo/--owner and the number. `pr_rounds`: the monitor's `--issue N | --pr N`
    (exactly one; CONTRACT section 12), checked in Context."""
    g = p.add_argument_group("target")
    g.add_argument("--repo", metavar="OWNER/NAME",
                   help="repository (default: parsed from `git remote get-url origin`)")
    g.add_argument("--owner", help="repository owner, with --repo NAME")
    if pr_rounds:
        g.add_argument("--issue", dest="number", metavar="N",
                       help="issue number (on a pull request: its conversation comments only)")
        g.add_argument("--pr", dest="pr", metavar="N",
                       help="pull-request number: a round over conversation comments, "
                       "submitted reviews and their inline comments")
    elif number:
        g.add_argument(number, dest="number", required=number_required, metavar="N",
                       help="issue number" if number == "--issue" else "pull-request number")


def add_filter_args(p: argparse.ArgumentParser) -> None:
    """Whose comments count (CONTRACT section 13); --trusted-only is with the output options."""
    g = p.add_argument_group("whose comments count (not on reads by id)")
    g.add_argument("--ignore-author", action="append", metavar="LOGIN", default=[],
                   help="leave out this author's comments (repeatable; name[bot] is that bot "
                   "only, a bare name also its bot; @me is the token's own login)")
    g.add_argument("--humans-only", action="store_true",
                   help="leave out comments by bots (author type Bot)")
    g.add_argument("--include-system", action="store_true",
                   help="with --pr: also list bodiless COMMENTED reviews (their inline "
                   "comments are always returned)")


def add_connection_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("connection")
    g.add_argument("--api-url", metavar="URL",
                   help="REST base (default: env GITHUB_API_URL, else https://api.github.com)")
    g.add_argument("--transport", choices=("auto", "requests", "gh"), default="auto",
                   help="auto (default): requests with a token from the environment or from "
                   "`gh auth token` (a logged-in gh), else unauthenticated; gh: every "
                   "request through `gh api`")
    g.add_argument("--timeout", type=positive_float("--timeout", allow_zero=False), default=30.0,
                   metavar="S", help="per-request timeout in seconds, above 0 (default 30)")
    g.add_argument("--max-wait", type=positive_float("--max-wait"), default=10.0, metavar="S",
                   help="longest total sleep on rate limits and retries (default 10)")


def add_output_args(p: argparse.ArgumentParser, default_format: str = "json") -> None:
    g = p.add_argument_group("output")
    g.add_argument("--format", choices=("json", "summary"), default=default_format,
                   help=f"JSON or a readable summary (default {default_format})")
    g.add_argument("--max-body-chars", type=positive_int("--max-body-chars", True),
                   metavar="N", help="cut each body to N characters (body_truncated, body_chars)")
    g.add_argument("--trusted-only", action="store_true",
                   help="keep only comments by OWNER, MEMBER or COLLABORATOR authors")
    g.add_argument("--reveal-hidden", action="store_true",
                   help="write invisible/control characters in bodies as <U+XXXX>")


def add_checkpoint_args(p: argparse.ArgumentParser) -> None:
    """get_latest_comments.py's checkpoint group: --update-state, --confirm-updates (with
    --snapshot-id, --through) and --force."""
    s = p.add_argument_group("checkpoint")
    s.add_argument("--update-state", action="store_true",
                   help="write the checkpoint right after fetching (not a sign of processing)")
    s.add_argument("--confirm-updates", action="store_true",
                   help="no network: confirm this round's updates snapshot as the checkpoint")
    s.add_argument("--snapshot-id", metavar="S",
                   help="with --confirm-updates: only if the updates file still holds S")
    s.add_argument("--through", type=comment_id_arg("--through"), metavar="ID",
                   help="with --confirm-updates: confirm only up to comment ID of the snapshot")
    s.add_argument("--force", action="store_true",
                   help="allow moving the checkpoint backwards")


def add_state_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("state files")
    g.add_argument("--root", metavar="DIR", help="work root holding .tmp/ (default: .)")
    g.add_argument("--run-id", metavar="ID",
                   help="run folder (default: env GH_MONITOR_RUN_ID, else 'default')")
    g.add_argument("--retained", metavar="NAME",
                   help="long-lived layout .tmp/retained/NAME/ instead of a run")


def emit(doc: Any, text: Optional[str] = None) -> None:
    if text is not None:
        data = scrub(text).encode("utf-8", "backslashreplace")
    else:
        data = encode_json(doc)  # scrubbed value by value: still JSON, whatever the token
    _write_all(data)


def _write_all(data: bytes) -> None:
    """All of `data` on stdout. A signal noted while a write to a full pipe blocks makes that
    write return short (the buffered writer may then drop the rest): write until all is out."""
    out = sys.stdout
    out.flush()
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (an in-process caller)
        out.buffer.write(data)
        out.buffer.flush()
        return
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def exit_code_of(code: Any) -> int:
    """Section 10's exit code of an error object's `code` (an inbox document's `error`)."""
    from .base import errors

    for cls in (errors.UsageError, errors.DependencyError, errors.AuthError,
                errors.NotFoundError, errors.RateLimitedError, errors.NetworkError,
                errors.ServerError, errors.StateError):
        if cls.code == code:
            return cls.exit_code
    return 1


def emit_error(err: BundleError) -> int:
    interrupt.hold()
    err.message = stderr_line(err.message)  # escaped and scrubbed here, at the edge
    emit(err.to_json())
    print(f"error ({err.code}): {err.message}", file=sys.stderr)
    return err.exit_code


def run(main: Callable[[List[str]], Any], argv: Optional[Sequence[str]] = None,
        exit_code: Optional[Callable[[Any], int]] = None) -> int:
    """The one main wrapper: call, print one result, map every failure to the contract.
    `exit_code(doc)` may turn a successful result into another status (the preflight's 1)."""
    args = list(sys.argv[1:] if argv is None else argv)
    tokens.register_env(os.environ)  # scrubbed from every output, used or not
    try:
        result = main(args)
        if isinstance(result, tuple):
            doc, text = result
        else:
            doc, text = result, None
        interrupt.hold()  # the document is whole: a signal now no longer cuts it
        emit(doc, text)
        # stderr repeats the warnings only beside a summary (`text`): a JSON document holds
        # them already, and agents pay for every line they read (CONTRACT amendments, turn 6)
        if isinstance(doc, dict) and text is not None:
            for warning in doc.get("warnings") or []:
                print(f"warning: {stderr_line(str(warning))}", file=sys.stderr)
        if isinstance(doc, dict) and doc.get("interrupted"):  # a signal before the commit point
            return 143 if doc.get("signal") == "SIGTERM" else 130
        return exit_code(doc) if exit_code else 0
    except BundleError as err:
        return emit_error(err)
    except Interrupted as stop:  # before a round began (a signal during start-up)
        interrupt.hold()
        emit({"interrupted": True, "signal": stop.name, "snapshot_id": None,
              "state_updated": False, "warnings": []})
        return stop.exit_code
    except KeyboardInterrupt:
        return emit_error(BundleError("interrupted"))
    except BrokenPipeError:
        return 1
    except Exception as exc:  # a bug: say so, in the contract's shape
        return emit_error(BundleError(f"internal error ({type(exc).__name__}): {exc}"))
