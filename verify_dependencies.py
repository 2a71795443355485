#!/usr/bin/env python3
# /// script
# requires-python = ">=3.9"
# dependencies = ["requests>=2.28"]
# ///
"""Preflight: report what this machine has for the gh-issue-comment-monitor bundle, as JSON.

  python3 verify_dependencies.py
  python3 verify_dependencies.py --check-network
  python3 verify_dependencies.py --api-url https://ghe.example.com/api/v3 --check-network

Exit 0 when every required check passes (Python 3.9+, requests, a token or a logged-in gh;
with --check-network, GitHub reachable), else 1. gh, jq, git and bash are optional.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts"))

from ghcomments import cli  # noqa: E402
from ghcomments.net import config  # noqa: E402
from ghcomments.preflight import run_checks  # noqa: E402


def main(argv):
    p = cli.make_parser(__doc__, "verify_dependencies.py", epilog=(
        "exit codes: 0 every required check passed; 1 a required check failed (see checks);\n"
        "2 bad arguments (then stdout holds the error JSON)."))
    p.add_argument("--api-url", metavar="URL",
                   help="REST base (default: env GITHUB_API_URL, else https://api.github.com)")
    p.add_argument("--check-network", action="store_true",
                   help="also call GET /rate_limit (costs no rate limit)")
    p.add_argument("--timeout", type=cli.positive_float("--timeout", allow_zero=False),
                   default=30.0, metavar="S",
                   help="timeout of the network check in seconds (default 30)")
    args = p.parse_args(argv)
    env = dict(os.environ)
    api_url = config.normalise_api_url(args.api_url or env.get("GITHUB_API_URL")
                                       or config.GITHUB_API)
    return run_checks(api_url, env, args.check_network, args.timeout)


if __name__ == "__main__":
    sys.exit(cli.run(main, exit_code=lambda doc: 0 if doc.get("ok") else 1))
