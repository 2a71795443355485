#!/usr/bin/env python3
# /// script
# requires-python = ">=3.9"
# dependencies = ["requests>=2.28"]
# ///
r"""Fetch issue comments by selector, or confirm a check's snapshot as the new checkpoint.

  python3 scripts/get_latest_comments.py --repo octo/demo --issue 5 --comment-id 4309098042
  python3 scripts/get_latest_comments.py --repo octo/demo --issue 5 --since-comment-id 4309098042
  python3 scripts/get_latest_comments.py --repo octo/demo --issue 5 --last-n 3
  python3 scripts/get_latest_comments.py --repo octo/demo --issue 5 --confirm-updates \
      --snapshot-id S
  python3 scripts/get_latest_comments.py --repo octo/demo --pr 7 --review-id 3100000042
  python3 scripts/get_latest_comments.py --repo octo/demo --pr 7 --confirm-updates --snapshot-id S
  python3 scripts/get_latest_comments.py --followed --retained triage
  python3 scripts/get_latest_comments.py --followed --confirm-updates --snapshot-id S \
      --retained triage
  python3 scripts/get_latest_comments.py --unfollow https://github.com/octo/demo/pull/7 \
      --retained triage

Selectors, first given wins: --comment-id > --since-comment-id > --last-n > --all > none
(after the stored checkpoint, or the newest --limit when there is none). With --pr:
--comment-id > --review-comment-id > --review-id > --check-run-id > none (the round after the
checkpoint).
"""

import sys

import github_issue_comments as gic


def main(argv):
    p = gic.make_parser(__doc__, "get_latest_comments.py")
    gic.add_repo_args(p, pr_rounds=True)
    g = p.add_argument_group("selectors")
    g.add_argument("--comment-id", type=gic.comment_id_arg("--comment-id"), metavar="ID",
                   help="exactly that comment (one request)")
    g.add_argument("--review-comment-id", type=gic.comment_id_arg("--review-comment-id"),
                   metavar="ID", help="with --pr: exactly that inline review comment "
                   "(#discussion_rID in its URL; one request)")
    g.add_argument("--review-id", type=gic.comment_id_arg("--review-id"), metavar="ID",
                   help="with --pr: that submitted review with its inline comments "
                   "(#pullrequestreview-ID in its URL)")
    g.add_argument("--check-run-id", type=gic.comment_id_arg("--check-run-id"), metavar="ID",
                   help="with --pr: that CI check run with its output and annotations "
                   "(checks[].id of --include-checks; at most 3 requests)")
    g.add_argument("--since-comment-id", type=gic.comment_id_arg("--since-comment-id"),
                   metavar="ID", help="every comment after ID (the oldest --limit if given)")
    g.add_argument("--last-n", type=gic.positive_int("--last-n"), metavar="N",
                   help="the newest N comments")
    g.add_argument("--all", action="store_true", help="the whole conversation")
    g.add_argument("--limit", type=gic.positive_int("--limit"), metavar="N",
                   help="at most N (checkpoint mode default 20; bounds --since-comment-id)")
    g.add_argument("--max-pages", type=gic.positive_int("--max-pages"),
                   default=gic.DEFAULT_MAX_PAGES, metavar="N",
                   help="bound on pages scanned (default 10)")
    gic.add_checkpoint_args(p)
    f = p.add_argument_group("following several conversations")
    f.add_argument("--followed", action="store_true",
                   help="alone: list the rounds followed in this work folder (a checkpoint "
                   "each; no request)")
    f.add_argument("--follow", action="append", metavar="REF",
                   help="with --confirm-updates --snapshot-id S: confirm only these rounds of "
                   "inbox snapshot S (repeatable)")
    f.add_argument("--unfollow", nargs="?", const="", metavar="REF",
                   help="stop following a round: remove its checkpoint, updates and hints files "
                   "(no request). REF: a web or API URL, O/R/issues/N, O/R/pull/N or O/R#N; "
                   "or give --repo R with --issue N or --pr N instead")
    gic.add_state_args(p)
    gic.add_connection_args(p)
    gic.add_output_args(p)
    gic.add_filter_args(p)
    return gic.get_latest_comments(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(gic.run(main, exit_code=gic.exit_code))
