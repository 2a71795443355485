#!/usr/bin/env python3
# /// script
# requires-python = ">=3.9"
# dependencies = ["requests>=2.28"]
# ///
"""Pull-request review feedback, read-only: unresolved review threads by file (GraphQL), then
general reviews and conversation comments (REST), as a summary or JSON.

  python3 scripts/get_pr_comments.py --repo octo/demo --pr 7
  python3 scripts/get_pr_comments.py --owner octo --repo demo --pr 7 --format json --author alice
  python3 scripts/get_pr_comments.py --active --include-resolved --file src/app.py

Without --pr, the open PR of the checked-out branch is used (--active).
"""

import sys

import github_issue_comments as gic


def main(argv):
    p = gic.make_parser(__doc__, "get_pr_comments.py")
    gic.add_repo_args(p, number="--pr", number_required=False)
    g = p.add_argument_group("what to read")
    g.add_argument("--active", action="store_true",
                   help="the open PR whose head is the checked-out branch (default without --pr)")
    g.add_argument("--include-resolved", action="store_true",
                   help="also show resolved review threads")
    g.add_argument("--no-timeline", action="store_true",
                   help="skip general reviews and conversation comments (no REST requests)")
    g.add_argument("--include-system", action="store_true",
                   help="keep bot conversation comments and bodiless COMMENTED reviews")
    g.add_argument("--file", metavar="PATH",
                   help="only inline threads on this repository-relative path")
    g.add_argument("--author", metavar="LOGIN",
                   help="only comments by LOGIN (any case; a bot as name or name[bot])")
    g.add_argument("--refresh", action="store_true",
                   help="accepted for seed 000; every call reads GitHub afresh anyway")
    gic.add_connection_args(p)
    gic.add_output_args(p, default_format="summary")
    return gic.get_pr_comments(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(gic.run(main))
