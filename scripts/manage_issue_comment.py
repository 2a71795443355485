#!/usr/bin/env python3
# /// script
# requires-python = ">=3.9"
# dependencies = ["requests>=2.28"]
# ///
r"""The only script that writes to GitHub: comments, replies in review threads, reviews and
thread resolution, each returning its id, a hand-off for other agents and the wait for the
answer. Run it only when the user asked for the write (or the task includes answering the
review); otherwise draft the text and ask.

  printf '%s\n' 'Reviewed: LGTM' | python3 scripts/manage_issue_comment.py --action create \
      --repo octo/demo --issue 5 --body-file -
  python3 scripts/manage_issue_comment.py --action update --repo octo/demo \
      --comment-id 4309098042 --body-file reply.md
  python3 scripts/manage_issue_comment.py --action reply --repo octo/demo --pr 7 \
      --review-comment-id 2600000002 --body-file answer.md
  python3 scripts/manage_issue_comment.py --action review --repo octo/demo --pr 7 \
      --event REQUEST_CHANGES --body-file review.md --comments-file inline.json
  python3 scripts/manage_issue_comment.py --action resolve --repo octo/demo \
      --thread-id PRRT_kwDOAbc123
  python3 scripts/manage_issue_comment.py --action create --repo octo/demo --issue 5 \
      --body-file reply.md --dry-run
"""

import sys

import github_issue_comments as gic


def main(argv):
    p = gic.make_parser(__doc__, "manage_issue_comment.py")
    gic.add_repo_args(p, number_required=False)
    p.add_argument("--pr", dest="pr", metavar="N",
                   help="pull-request number (--action reply, review)")
    g = p.add_argument_group("the write")
    g.add_argument("--action", required=True,
                   choices=("create", "update", "reply", "review", "resolve", "unresolve"))
    g.add_argument("--comment-id", type=gic.comment_id_arg("--comment-id"), metavar="ID",
                   help="the issue or conversation comment to update (--action update)")
    g.add_argument("--review-comment-id", type=gic.comment_id_arg("--review-comment-id"),
                   metavar="ID", help="the inline comment to reply to (its thread's first "
                   "comment or any reply in it) or, with --action update, to edit")
    g.add_argument("--event", choices=("APPROVE", "REQUEST_CHANGES", "COMMENT"),
                   help="the review's verdict (--action review)")
    g.add_argument("--comments-file", metavar="FILE",
                   help="the review's inline comments: a JSON list of {path, line, body} "
                   "with optional side, start_line, start_side")
    g.add_argument("--thread-id", metavar="PRRT_ID",
                   help="the review thread to resolve or unresolve (its PRRT_… id)")
    g.add_argument("--body-file", metavar="FILE",
                   help="the body, UTF-8, sent exactly as read; - reads standard input")
    g.add_argument("--dry-run", action="store_true",
                   help="print the request (or GraphQL mutation) that would be sent; send "
                   "nothing")
    gic.add_connection_args(p)
    return gic.manage_issue_comment(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(gic.run(main))
