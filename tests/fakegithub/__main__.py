"""Run the fake GitHub as a process: ``python3 -m tests.fakegithub --port 0 [--seed demo]``.

Prints one JSON line ``{"url": "http://127.0.0.1:PORT"}`` to stdout once it is serving,
then serves until SIGTERM or SIGINT. ``--seed demo`` loads ``seeds.seed_demo`` (token
``demo-token``); ``--token T[:LOGIN]`` adds more tokens.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading

from .seeds import SEEDS
from .server import FakeGitHub


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m tests.fakegithub",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=0, help="port (default 0: any free port)"
    )
    parser.add_argument("--seed", choices=sorted(SEEDS), help="load a data set")
    parser.add_argument(
        "--html-base",
        default="https://github.com",
        help="web origin in html_url fields",
    )
    parser.add_argument(
        "--token",
        action="append",
        default=[],
        metavar="TOKEN[:LOGIN]",
        help="accept this token (login octocat unless given); repeatable",
    )
    args = parser.parse_args(argv)

    fake = FakeGitHub(html_base=args.html_base, host=args.host, port=args.port)
    if args.seed:
        SEEDS[args.seed](fake)
    for spec in args.token:
        token, _, login = spec.partition(":")
        fake.add_token(token, login=login or "octocat")

    stop = threading.Event()

    def on_signal(signum, _frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    fake.start()
    sys.stdout.write(json.dumps({"url": fake.url}) + "\n")
    sys.stdout.flush()
    try:
        while not stop.wait(0.5):
            pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
