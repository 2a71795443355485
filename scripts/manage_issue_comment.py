#!/usr/bin/env python3
# /// script
# requires-python = ">=3.9"
# dependencies = ["requests>=2.28"]
# ///
r"""Create or update one issue comment and print its id, url and a hand-off for other agents.
The only script that writes to GitHub: run it only when the user asked to post.

  printf '%s\n' 'Reviewed: LGTM' | python3 scripts/manage_issue_comment.py --action create \
      --repo octo/demo --issue 5 --body-file -
  python3 scripts/manage_issue_comment.py --action update --repo octo/demo \
      --comment-id 4309098042 --body-file reply.md
  python3 scripts/manage_issue_comment.py --action create --repo octo/demo --issue 5 \
      --body-file reply.md --dry-run
"""

import sys

import github_issue_comments as gic


def main(argv):
    p = gic.make_parser(__doc__, "manage_issue_comment.py")
    gic.add_repo_args(p, number_required=False)
    g = p.add_argument_group("the write")
    g.add_argument("--action", choices=("create", "update"), required=True)
    g.add_argument("--comment-id", type=gic.comment_id_arg("--comment-id"), metavar="ID",
                   help="the comment to update (--action update)")
    g.add_argument("--body-file", required=True, metavar="FILE",
                   help="the body, UTF-8, sent exactly as read; - reads standard input")
    g.add_argument("--dry-run", action="store_true",
                   help="print the request that would be sent; send nothing")
    gic.add_connection_args(p)
    return gic.manage_issue_comment(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(gic.run(main))
