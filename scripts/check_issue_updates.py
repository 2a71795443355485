#!/usr/bin/env python3
# /// script
# requires-python = ">=3.9"
# dependencies = ["requests>=2.28"]
# ///
"""Show what is new on an issue, or on a pull request (--pr: conversation comments, submitted
reviews and their inline comments), after the checkpoint (read-only), and write this round's
updates file. Confirm it with get_latest_comments.py --confirm-updates once handled.

  python3 scripts/check_issue_updates.py --repo octo/demo --issue 5
  python3 scripts/check_issue_updates.py --repo octo/demo --pr 7
  python3 scripts/check_issue_updates.py --repo octo/demo --pr 7 --include-edits
  python3 scripts/check_issue_updates.py --repo octo/demo --pr 7 --include-events --wait 540
  python3 scripts/check_issue_updates.py --repo octo/demo --issue 5 --limit 100 --retained triage
  python3 scripts/check_issue_updates.py --repo octo/demo --issue 5 --wait 540 \
      --after-comment-id 4309098042 --ignore-author @me
  python3 scripts/check_issue_updates.py --follow octo/demo#5 --follow octo/demo/pull/7
  python3 scripts/check_issue_updates.py --followed --retained triage --ignore-author @me \
      --humans-only --wait 540
"""

import sys

import github_issue_comments as gic


def main(argv):
    p = gic.make_parser(__doc__, "check_issue_updates.py")
    gic.add_repo_args(p, pr_rounds=True)
    g = p.add_argument_group("what to read")
    g.add_argument("--limit", type=gic.positive_int("--limit"), default=gic.DEFAULT_LIMIT,
                   metavar="N", help="at most N comments (with --pr: N comments and N reviews, "
                   "each review with all its inline comments): the oldest N after the "
                   "checkpoint, or the newest N when there is none (default 20)")
    g.add_argument("--after-comment-id", type=gic.comment_id_arg("--after-comment-id"),
                   metavar="ID", help="use ID instead of the stored checkpoint (still read-only; "
                   "not with --pr)")
    g.add_argument("--wait", type=gic.positive_float("--wait"), metavar="S",
                   help="when nothing is new, keep polling (free conditional requests) until "
                   "something is, or S seconds (1-3600) have passed")
    g.add_argument("--poll-interval", type=gic.positive_float("--poll-interval"), metavar="P",
                   help="with --wait: seconds between polls (default 30, at least 5; raised to "
                   "GitHub's X-Poll-Interval)")
    g.add_argument("--include-edits", action="store_true",
                   help="also return comments at or before the checkpoint edited since they "
                   "were handled (edited_comments; with --pr also edited_review_comments); "
                   "the first check with it reports the edits since the round was first "
                   "tracked; with --follow/--followed, in each round")
    g.add_argument("--include-events", action="store_true",
                   help="also report what happened since the round was handled: events "
                   "(closed, merged, reopened, review requested, ...), the conversation's "
                   "state, and with --pr the commits pushed (pushes) and the threads they "
                   "outdated; a wait wakes on them; with --follow/--followed, in each round")
    g.add_argument("--include-checks", action="store_true",
                   help="with --pr: also report what CI said about the head since the round "
                   "was handled (checks that did not pass, checks_settled once per head, "
                   "checks_summary, mergeable); a wait wakes on a failure, never on a pass; "
                   "with --follow/--followed, in each pull-request round")
    g.add_argument("--max-pages", type=gic.positive_int("--max-pages"),
                   default=gic.DEFAULT_MAX_PAGES, metavar="N",
                   help="bound on pages scanned (default 10)")
    f = p.add_argument_group("following several conversations (one document, one wait)")
    f.add_argument("--follow", action="append", metavar="REF",
                   help="a round to read (repeatable): a web or API URL of an issue or pull "
                   "request (an issue comment's URL starts from that comment), O/R/issues/N, "
                   "O/R/pull/N or O/R#N")
    f.add_argument("--followed", action="store_true",
                   help="every round with a checkpoint in this work folder")
    f.add_argument("--max-total", type=gic.positive_int("--max-total"), metavar="N",
                   help="with --follow/--followed: at most N items in the whole document, "
                   "round-robin over the rounds (default 100; a review comes whole)")
    gic.add_state_args(p)
    gic.add_connection_args(p)
    gic.add_output_args(p)
    gic.add_filter_args(p)
    return gic.check_issue_updates(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(gic.run(main, exit_code=gic.exit_code))
