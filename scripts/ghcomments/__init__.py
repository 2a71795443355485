"""The shared implementation behind scripts/github_issue_comments.py (its public face).

Seven floors, each a folder that imports only the folders below it (`make lint` checks it):

    base/     errors, exit codes, signals, records, URLs, child processes  (imports nothing)
    text/     comment shapes, hidden characters, secrets, output
    net/      config, connect, client, transport (requests, the stdlib 304 path, gh,
              decoding), throttle: talking to GitHub
    store/    files under .tmp: state, checkpoints, followed rounds, one command's context
    streams/  what a round reads: the issue stream, the review stream, threads, get_pr_comments
    round/    one round: engine, layouts, confirm, selectors, wait
    inbox/    many rounds: check, wait, confirm

and at the top, beside this file, the commands' own seams: cli (arguments, output, the one
main wrapper), options (the round commands' typed options), latest_flags
(get_latest_comments.py's flag rules), preflight (verify_dependencies.py), writer
(manage_issue_comment.py).
docs/reference.md opens with the map and the path of one check through it.
"""

__version__ = "0.1.0"
