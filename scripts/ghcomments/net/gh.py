"""The gh transport: `gh api --include` as a subprocess, confined to the API's host (a one-host
configuration handed over a FIFO, the token variables removed), its request trace checked for
other origins, its output read under the size cap and its run under the deadline."""

from __future__ import annotations

import os
import sys

from .transport import (
    MAX_RESPONSE_BYTES,
    READ_CHUNK,
    Response,
    TransportError,
    origin_of,
    too_large_error,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Callable, Dict, Mapping, Optional


class GhTransport:
    """`gh api --include`: status and headers parsed from its output. gh carries the token,
    and only where it cannot hand it to another origin (docs/dependencies.md, "Where gh carries
    the token"): gh runs with the token variables removed from its environment and with a
    temporary configuration holding the token it would send for the API's host (a variable's
    or its own login's) for that one host and nothing else (`gh_config`). gh
    follows redirects itself; its request trace (GH_DEBUG=1: one `* Request to URL` line per
    request, no headers or bodies) tells which origins it asked, and an answer after a request
    to another origin, or a write that was redirected at all, is refused (exit 6)."""

    name = "gh"

    def __init__(self, hostname: str, timeout: float, env: Optional[Mapping[str, str]] = None,
                 fingerprint: Optional[str] = None, token: Optional[str] = None):
        import shutil

        self.gh = shutil.which("gh", path=(env or os.environ).get("PATH"))
        self.hostname = hostname
        self.timeout = timeout
        self.env = dict(env or os.environ)
        self.authenticated = True
        self.fingerprint = fingerprint  # of the token gh reported for the host
        # Always confined: gh's own configuration may name other hosts, and a redirect to one
        # of them would carry that host's token (issue 24's second attack).
        self._token = token

    def api_base(self) -> str:
        """The REST base gh uses for the host (Link URLs must stay on it)."""
        if self.hostname == "github.com":
            return "https://api.github.com"
        if self.hostname == "github.localhost":
            return "http://api.github.localhost"
        return f"https://{self.hostname}/api/v3"

    def send(self, method: str, url: str, headers: Mapping[str, str],
             body: Optional[bytes] = None, token_origin: Optional[str] = None) -> Response:
        if not self.gh:
            raise TransportError("gh", "the gh CLI is not installed", sent=False)
        base = self.api_base()
        if not url.startswith(base + "/") and url != base:
            raise TransportError("gh", f"gh transport cannot reach {url}", sent=False)
        argv = [self.gh, "api", "--hostname", self.hostname, "--include", "--method", method]
        for k, v in headers.items():
            if k.lower() in ("user-agent",):
                continue
            argv += ["-H", f"{k}: {v}"]
        if body is not None:
            argv += ["--input", "-"]
        # The whole URL, as checked: gh takes an endpoint holding `://` for a whole URL, so the
        # part after the base of `BASE/http://HOST:PORT/…` (a next link on the API's origin)
        # would send gh to another origin. `graphql` alone is gh's name for the host's GraphQL
        # endpoint (`https://HOST/api/graphql` on GHES, not under the REST base).
        argv.append("graphql" if url == base + "/graphql" else url)
        with gh_config(self.hostname, self._token) as config_dir:
            env = gh_api_env(self.env, config_dir)
            out, err, code = _run_gh_capped(argv, body, self.timeout + 5, env)
        visited, err = gh_trace(err)
        check_gh_origins(visited, origin_of(base), method, code)
        resp = _parse_gh_output(out, err, code, url)
        if len(visited) > 1:  # gh followed a redirect on the API's origin (a GET)
            resp.url, resp.redirected = visited[-1], True
        return resp


def gh_api_env(env: Mapping[str, str], config_dir: Optional[str]) -> Dict[str, str]:
    """gh's environment for `gh api`: no token variables (gh uses a per-host login), the
    one-host configuration when there is one, the request trace on, nothing interactive, no
    core file (base.child: gh holds the token)."""
    from ..base.child import child_env
    from ..text.tokens import TOKEN_VARIABLES

    out = {k: v for k, v in env.items() if k not in TOKEN_VARIABLES
           and k not in ("GH_DEBUG", "DEBUG", "GH_FORCE_TTY", "GH_PAGER", "CLICOLOR_FORCE")}
    out.update(GH_DEBUG="1", GH_PROMPT_DISABLED="1", GH_NO_UPDATE_NOTIFIER="1", NO_COLOR="1")
    if config_dir is not None:
        out["GH_CONFIG_DIR"] = config_dir
    return child_env(out)


class gh_config:  # noqa: N801  (a context manager, named as one)
    """A temporary GH_CONFIG_DIR whose hosts.yml holds `token` for `hostname` and nothing else
    (0700 folder); None when there is no token to confine.

    hosts.yml is a FIFO, not a file: a thread hands the token to gh through it when gh opens it,
    so the token never rests on disk — a run killed by any signal (SIGKILL included) while gh
    runs leaves at most an empty pipe in its folder, never the token. gh 2.23 reads its
    configuration once per run."""

    def __init__(self, hostname: str, token: Optional[str]) -> None:
        self.hostname = hostname
        self.token = token
        self.path: Optional[str] = None
        self._feeder: Optional[Any] = None

    def __enter__(self) -> Optional[str]:
        if self.token is None:
            return None
        import json
        import tempfile
        import threading

        self.path = tempfile.mkdtemp(prefix="ghcomments-gh-")
        # gh 2.40+ migrates a configuration without `version: "1"` to its multi-account
        # shape at start-up: a GraphQL query of its own (an extra request, which would make a
        # write look redirected) and a write of hosts.yml (which would block on the pipe).
        fd = os.open(os.path.join(self.path, "config.yml"),
                     os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write('version: "1"\n')
        fifo = os.path.join(self.path, "hosts.yml")
        os.mkfifo(fifo, 0o600)
        # JSON strings are YAML double-quoted scalars: no character of either is special.
        data = f"{json.dumps(self.hostname)}:\n    oauth_token: {json.dumps(self.token)}\n"

        def feed() -> None:
            try:
                fd = os.open(fifo, os.O_WRONLY)  # blocks until a reader opens the pipe
                try:
                    os.write(fd, data.encode("ascii"))
                finally:
                    os.close(fd)
            except OSError:  # the reader left early: nothing to hand over
                pass

        self._feeder = threading.Thread(target=feed, daemon=True)
        self._feeder.start()
        return self.path

    def __exit__(self, *exc: Any) -> None:
        if self.path is None:
            return
        import shutil

        if self._feeder is not None and self._feeder.is_alive():
            # gh never opened the pipe: open it ourselves so the feeder's open returns, then
            # drop what it writes.
            try:
                fd = os.open(os.path.join(self.path, "hosts.yml"), os.O_RDONLY | os.O_NONBLOCK)
            except OSError:
                fd = None
            self._feeder.join(5)
            if fd is not None:
                os.close(fd)
        shutil.rmtree(self.path, ignore_errors=True)


TRACE_PREFIX = "* Request to "


def gh_trace(err: bytes) -> Any:
    """(the URLs gh asked, per its GH_DEBUG=1 trace; its stderr without the trace lines)."""
    visited = []
    kept = []
    for line in err.decode("utf-8", "replace").splitlines():
        if line.startswith(TRACE_PREFIX):
            visited.append(line[len(TRACE_PREFIX):].strip())
        elif not (line.startswith("* Request at ") or line.startswith("* Request took ")):
            kept.append(line)
    return visited, "\n".join(kept).encode("utf-8")


def check_gh_origins(visited: Any, api_origin: Optional[str], method: str, code: int) -> None:
    """Refuse gh's answer unless every request it made went to the API's origin, and a write
    was made once, not redirected. No trace at all is refused too when gh answered (a gh that
    prints none cannot show where it went)."""
    from ..text.normalize import escape_field

    if not visited:
        if code == 0:
            raise TransportError("redirect", "gh printed no request trace (GH_DEBUG), so the "
                                 "origin of its answer is unknown; refused — use --transport "
                                 "requests", sent=True)
        return
    others = [u for u in visited if origin_of(u) != api_origin or api_origin is None]
    if others:
        shown = escape_field(others[0][:120])
        raise TransportError("redirect", f"gh followed a redirect to another origin ({shown}) "
                             f"than the API's ({api_origin}); its answer is refused (a token "
                             "goes only to the API's origin)", sent=True)
    if method not in ("GET", "HEAD") and len(visited) > 1:
        raise TransportError("redirect", f"the {method} was answered with a redirect, which gh "
                             "followed; refused (a write follows no redirect)", sent=True)


# gh's output: the response's headers, then its body (gh inflates gzip itself). Read in bounded
# chunks, gh killed once it passes the cap, as the HTTP paths are (CONTRACT section 17).
GH_HEADER_ALLOWANCE = 1024 * 1024


def _run_gh_capped(argv: Any, body: Optional[bytes], timeout: float,
                   env: Mapping[str, str]) -> Any:
    """(stdout, stderr, exit status) of gh; too_large past the cap, timeout past `timeout`."""
    import subprocess
    import tempfile
    import threading

    with tempfile.TemporaryFile() as errfile:
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=errfile, env=dict(env),
                                    preexec_fn=_die_with_parent())
        except OSError as exc:
            raise TransportError("gh", f"could not run gh: {exc}", sent=False)
        fired = []

        def expire() -> None:
            fired.append(True)
            proc.kill()

        timer = threading.Timer(timeout, expire)
        timer.daemon = True
        timer.start()
        parts = []
        total = 0
        too_large = False
        try:
            stdin, stdout = proc.stdin, proc.stdout
            try:
                if stdin is not None:
                    stdin.write(body if body is not None else b"")
                    stdin.close()
            except OSError:  # gh left early; its exit status says why
                pass
            while stdout is not None:
                chunk = stdout.read(READ_CHUNK * 4)
                if not chunk:
                    break
                total += len(chunk)
                if total > MAX_RESPONSE_BYTES + GH_HEADER_ALLOWANCE:
                    too_large = True
                    proc.kill()
                    break
                parts.append(chunk)
            if stdout is not None:
                stdout.close()
            code = proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if too_large:
            raise too_large_error()
        if fired:
            raise TransportError("timeout", f"gh api timed out after {timeout - 5:g} s",
                                 sent=True)
        errfile.seek(0)
        err = errfile.read(1024 * 1024)
    return b"".join(parts), err, code


def _die_with_parent() -> Optional[Callable[[], None]]:
    """A preexec_fn that makes gh die with the script (Linux's PR_SET_PDEATHSIG): the timer
    that bounds gh lives in the script, so a script ended by a signal (the writer and
    get_pr_comments.py keep the standard handlers; SIGKILL for all) would leave gh running on
    its own, unbounded, with the token. None where there is no prctl (gh may then outlive a
    killed script)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        import signal

        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def child() -> None:
        prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the script died before prctl took effect
            os._exit(1)

    return child


def _parse_gh_output(out: bytes, err: bytes, code: int, url: str) -> Response:
    head, sep, body = out.partition(b"\r\n\r\n")
    if not sep:
        head, sep, body = out.partition(b"\n\n")
    lines = head.decode("latin-1").splitlines()
    if not sep and lines and lines[0].startswith("HTTP/"):
        body = b""  # headers only (a 304 or 204 with no body)
    elif not lines or not lines[0].startswith("HTTP/"):
        message = " ".join(err.decode("utf-8", "replace").split())[:300] or f"exit {code}"
        sent = not any(s in message for s in ("connection refused", "no such host",
                                              "could not resolve"))
        raise TransportError("connect", f"gh api failed: {message}", sent=sent)
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        raise TransportError("incomplete", f"gh api printed no status line: {lines[0][:80]!r}",
                             sent=True)
    headers: Dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            key = name.strip().lower()
            headers[key] = (headers[key] + ", " + value.strip()) if key in headers \
                else value.strip()
    return Response(status=status, headers=headers, body=body, url=url)
