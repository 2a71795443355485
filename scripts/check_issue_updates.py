#!/usr/bin/env python3
"""Show the comments on an issue after the checkpoint (read-only) and write this round's
updates file. Confirm them with get_latest_comments.py --confirm-updates once handled.

  python3 scripts/check_issue_updates.py --repo octo/demo --issue 5
  python3 scripts/check_issue_updates.py --repo octo/demo --issue 5 --limit 100 --retained triage
  python3 scripts/check_issue_updates.py --issue 5 --after-comment-id 4309098042 --format summary
"""

import sys

import github_issue_comments as gic


def main(argv):
    p = gic.make_parser(__doc__, "check_issue_updates.py")
    gic.add_repo_args(p)
    g = p.add_argument_group("what to read")
    g.add_argument("--limit", type=gic.positive_int("--limit"), default=gic.DEFAULT_LIMIT,
                   metavar="N", help="at most N comments: the oldest N after the checkpoint, "
                   "or the newest N when there is none (default 20)")
    g.add_argument("--after-comment-id", type=gic.comment_id_arg("--after-comment-id"),
                   metavar="ID", help="use ID instead of the stored checkpoint (still read-only)")
    g.add_argument("--max-pages", type=gic.positive_int("--max-pages"),
                   default=gic.DEFAULT_MAX_PAGES, metavar="N",
                   help="bound on pages scanned (default 10)")
    gic.add_state_args(p)
    gic.add_connection_args(p)
    gic.add_output_args(p)
    return gic.check_issue_updates(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(gic.run(main))
