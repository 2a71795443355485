"""Where to talk to and as whom: repository, API URLs, host, token (CONTRACT section 2).

Nothing here opens a socket; `gh auth token --hostname HOST` is run (it makes no request) only
when no environment variable gives a token. subprocess is imported only when a command is run:
a poll with the repository and a token given never pays for it.
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

from ..base.errors import UsageError
from ..base.plain import plain

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

GITHUB_API = "https://api.github.com"
# Matched with fullmatch: `$` alone would let a trailing newline through (CONTRACT section 17).
OWNER_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}")
REPO_RE = re.compile(r"[A-Za-z0-9._-]{1,100}")


def validate_owner(owner: str) -> str:
    """GitHub's rule: letters, digits, single inner hyphens, at most 39 characters."""
    if not isinstance(owner, str) or not OWNER_RE.fullmatch(owner) or not owner.isascii():
        raise UsageError(f"invalid repository owner {owner!r}: letters, digits and single "
                         "hyphens (not first or last), at most 39 characters")
    return owner


def validate_repo_name(name: str) -> str:
    if (not isinstance(name, str) or not REPO_RE.fullmatch(name) or not name.isascii()
            or name in (".", "..")):
        raise UsageError(f"invalid repository name {name!r}: letters, digits, '.', '_', '-', "
                         "at most 100 characters, not '.' or '..'")
    return name


def parse_remote_url(url: str) -> Optional[Tuple[str, str, str]]:
    """(host, owner, name) from an https, ssh or scp-like git remote URL, else None."""
    url = url.strip()
    # The userinfo ends at the LAST '@' (as git and urlsplit read it: a password may hold one).
    m = re.fullmatch(r"(?:[^/]*@)?([^:/@]+):(?!//)/?([^/]+)/([^/]+?)(?:\.git)?/?", url)
    if m and "://" not in url:
        if not HOST_RE.fullmatch(m.group(1)):
            return None
        return m.group(1).lower(), m.group(2), m.group(3)
    try:
        parts = urlsplit(url)
        if parts.scheme in ("https", "http", "ssh", "git") and parts.hostname:
            segs = [s for s in parts.path.split("/") if s]
            if len(segs) >= 2:
                name = segs[-1][:-4] if segs[-1].endswith(".git") else segs[-1]
                host = parts.hostname.lower()
                if not HOST_RE.fullmatch(host) or "\\" in url:
                    return None  # a host gh or a URL parser might read otherwise: refused
                if parts.scheme in ("https", "http") and parts.port:
                    host = f"{host}:{parts.port}"
                return host, segs[-2], name
    except ValueError:  # a bad port
        return None
    return None


def without_userinfo(url: str) -> str:
    """A URL as it may be printed: any `user:password@` shown as `***@` (CONTRACT section 22).
    Everything up to the last '@' goes: git and urlsplit end the userinfo at the last '@' of
    the authority, and a password may hold '@', '#', '?' or '/' — where its authority ends is
    unknowable, so no part of it is kept. Without a scheme (scp-like `user:pass@host:o/r`),
    the same from the start."""
    text = url.strip()
    head, sep, rest = text.partition("://")
    if not sep:
        head, rest = "", text
    if "@" not in rest:
        return text
    return f"{head}{sep}***@{rest.rsplit('@', 1)[1]}"


# A host name or an IP address: nothing else passes (CONTRACT section 17). urlsplit and
# urllib3 (what requests connects to) read a backslash, an '@' or a space in an authority
# differently (`http://A\\@B/` is host B for one, host A for the other); a URL they could
# disagree on is never used, so one parse decides both the origin check and the connection.
HOST_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?\.?")
PLAIN_URL_RE = re.compile(r"(?P<scheme>https?)://(?P<host>[A-Za-z0-9.-]{1,255}"
                          r"|\[[0-9A-Fa-f:.]{2,45}\])(?::(?P<port>[0-9]{1,5}))?"
                          r"(?P<rest>[/?#][\x21-\x5b\x5d-\x7e]*)?", re.IGNORECASE)


def plain_url(url: str) -> Optional[Tuple[str, str, int]]:
    """(scheme, host, port) of an http(s) URL every parser reads alike — printable ASCII, no
    backslash, no whitespace or controls, no userinfo, a host name or IP address, a port in
    range — else None (the URL is refused wherever it came from: an API base, a Link, a
    redirect's Location)."""
    m = PLAIN_URL_RE.fullmatch(url) if isinstance(url, str) else None
    if not m:
        return None
    host = m.group("host").lower()
    if not host.startswith("[") and not HOST_RE.fullmatch(host):
        return None
    scheme = m.group("scheme").lower()
    port = int(m.group("port")) if m.group("port") else {"http": 80, "https": 443}[scheme]
    if not 0 < port < 65536:
        return None
    return scheme, host, port


def run_tool(argv: Sequence[str], cwd: Optional[str] = None,
             env: Optional[Mapping[str, str]] = None, timeout: float = 10) -> Optional[Any]:
    """Run git or gh quietly (no core file: base.child): the finished process, or None when
    it is missing or failed."""
    import shutil
    import subprocess

    from ..base.child import child_env

    tool = shutil.which(argv[0], path=(env or os.environ).get("PATH"))
    if not tool:
        return None
    try:
        out = subprocess.run([tool, *argv[1:]], cwd=cwd, capture_output=True, text=True,
                             timeout=timeout, check=False, stdin=subprocess.DEVNULL,
                             env=child_env(env))
    except (OSError, subprocess.SubprocessError):
        return None
    return out if out.returncode == 0 else None


def git_origin(cwd: Optional[str] = None) -> Optional[Tuple[str, str, str]]:
    """The (host, owner, name) of `git remote get-url origin`, or None."""
    out = run_tool(["git", "remote", "get-url", "origin"], cwd=cwd)
    return parse_remote_url(out.stdout) if out else None


def git_current_branch(cwd: Optional[str] = None) -> Optional[str]:
    out = run_tool(["git", "symbolic-ref", "--quiet", "--short", "HEAD"], cwd=cwd)
    return (out.stdout.strip() or None) if out else None


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1, localhost and *.localhost: the only hosts plain HTTP may go to."""
    import ipaddress

    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def normalise_api_url(url: str, name: str = "API URL") -> str:
    """The URL without a trailing slash, checked before anything is sent (CONTRACT section 17):
    http(s) only, plain http only to a loopback host, no userinfo."""
    text = url.strip()
    shown = without_userinfo(text)
    try:
        parts = urlsplit(text)
        host = parts.hostname
        parts.port  # noqa: B018  (raises ValueError on a bad port)
    except ValueError:
        raise UsageError(f"invalid {name} {shown!r}: expected https://HOST[/PATH]")
    if parts.scheme not in ("http", "https") or not parts.netloc or not host:
        raise UsageError(f"invalid {name} {shown!r}: expected https://HOST[/PATH]")
    if "@" in parts.netloc:
        raise UsageError(f"invalid {name} {shown!r}: it holds a user name or password "
                         "(userinfo); give the URL without it, the token comes from GH_TOKEN "
                         "or GH_ENTERPRISE_TOKEN")
    if any(ch.isspace() or not ch.isprintable() for ch in text):
        raise UsageError(f"invalid {name} {shown!r}: it holds whitespace or control characters")
    plain = plain_url(text)
    if plain is None:
        raise UsageError(f"invalid {name} {shown!r}: expected http(s)://HOST[:PORT][/PATH] "
                         "with HOST a host name (letters, digits, '.', '-') or an IP address, "
                         "and no backslash or other character a URL parser may read "
                         "differently")
    host = plain[1].strip("[]")
    if parts.scheme == "http" and not is_loopback(host):
        raise UsageError(f"invalid {name} {shown!r}: plain http:// is only for a loopback host "
                         "(127.0.0.1, ::1, localhost); a token must not cross the network "
                         "unencrypted — use https://")
    return text.rstrip("/")


def graphql_url_for(api_url: str, env: Mapping[str, str]) -> str:
    """GraphQL endpoint: env GITHUB_GRAPHQL_URL, else derived from the REST base."""
    if env.get("GITHUB_GRAPHQL_URL"):
        return normalise_api_url(env["GITHUB_GRAPHQL_URL"], "GITHUB_GRAPHQL_URL")
    base = api_url.rstrip("/")
    if base.endswith("/api/v3"):
        return base[: -len("/api/v3")] + "/api/graphql"
    return base + "/graphql"


def host_for(api_url: str) -> str:
    """gh's notion of the host: api.github.com -> github.com; https://H/api/v3 -> H."""
    parts = urlsplit(api_url)
    netloc = (parts.netloc or "").lower()
    if netloc == "api.github.com":
        return "github.com"
    if parts.path.rstrip("/").endswith("/api/v3"):
        return netloc
    return netloc


def gh_env(env: Mapping[str, str]) -> Dict[str, str]:
    """gh's environment for `gh auth token`: no token variables, so gh answers with the token
    of its own login and section 2's rule stays the only one handing out an environment token
    (gh would hand GH_TOKEN back for any host it thinks is github.com-like)."""
    from ..text.tokens import TOKEN_VARIABLES

    return {k: v for k, v in env.items() if k not in TOKEN_VARIABLES}


def check_env_tokens(env: Mapping[str, str]) -> None:
    """Every token variable set, refused (exit 3, naming it) if no header can carry it: gh
    picks among them itself (GH_TOKEN first), as the shell fallback's check_tokens assumes."""
    from ..text.tokens import TOKEN_VARIABLES, register, validate_token

    for name in TOKEN_VARIABLES:
        value = env.get(name) or ""
        if value:
            register(value)
            validate_token(value, name)


def gh_auth_token(hostname: str, env: Mapping[str, str],
                  strip_env_tokens: bool = True) -> Optional[str]:
    """`gh auth token --hostname H` (no request is made); None when gh is absent or logged out.
    A token gh prints that no header can carry is refused (exit 3)."""
    gh_environment = gh_env(env) if strip_env_tokens else dict(env)
    out = run_tool(["gh", "auth", "token", "--hostname", hostname], env=gh_environment,
                   timeout=15)
    token = out.stdout.strip() if out else ""
    if not token:
        return None
    from ..text.tokens import register, validate_token

    register(token)
    return validate_token(token, f"`gh auth token --hostname {hostname}`")


def discover_token(api_url: str, env: Mapping[str, str], *,
                   use_gh: bool = True) -> Tuple[Optional[str], Optional[str]]:
    """(token, source name) in the contract's order; (None, None) when there is none.

    A github.com token from GH_TOKEN/GITHUB_TOKEN goes to another host only when that host's
    API URL is the one in GITHUB_API_URL (as GitHub Actions sets them together).
    """
    host = host_for(api_url)
    if host == "github.com":
        names = ["GH_TOKEN", "GITHUB_TOKEN"]
    else:
        names = ["GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"]
        env_api = env.get("GITHUB_API_URL")
        if env_api and env_api.strip().rstrip("/") == api_url.rstrip("/"):
            names += ["GH_TOKEN", "GITHUB_TOKEN"]
    from ..text.tokens import register, validate_token

    for name in names:
        value = env.get(name) or ""
        if value:  # as given: a token with a newline is refused, never silently stripped
            register(value)
            return validate_token(value, name), name
    if use_gh:
        token = gh_auth_token(host, env)
        if token:
            return token, f"gh auth token --hostname {host}"
    return None, None


def enterprise_api_url(remote_host: str, env: Mapping[str, str]) -> str:
    """`https://HOST/api/v3` for a git remote on another host — only when that host is known
    to be a GitHub: GH_HOST, or a host gh is logged in to. A guessed host (a GitLab origin)
    never gets GH_ENTERPRISE_TOKEN: exit 2 asking for --api-url (CONTRACT section 17)."""
    known = (env.get("GH_HOST") or "").strip().lower()
    if known != remote_host.lower() and not gh_auth_token(remote_host, env):
        raise UsageError(f"the origin remote is on {remote_host}, which is not github.com, "
                         "GH_HOST or a host gh is logged in to: pass --api-url "
                         f"https://{remote_host}/api/v3 if it is a GitHub Enterprise Server "
                         "(or --repo OWNER/NAME for github.com)")
    return f"https://{remote_host}/api/v3"


@plain
class Target:
    """The repository (and API) a command works on."""

    owner: str
    name: str
    api_url: str
    from_remote: bool = False

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


def resolve_target(owner_arg: Optional[str], repo_arg: Optional[str], api_arg: Optional[str],
                   env: Mapping[str, str], cwd: Optional[str] = None) -> Target:
    """Repository from --repo O/N or --owner O --repo N, else from git's origin remote."""
    from_remote = False
    remote_host = None
    if repo_arg and "/" in repo_arg:
        if owner_arg:
            raise UsageError("give either --repo OWNER/NAME or --owner OWNER --repo NAME")
        owner, _, name = repo_arg.partition("/")
    elif repo_arg:
        if not owner_arg:
            raise UsageError(f"--repo {repo_arg!r} needs --owner, or use --repo OWNER/NAME")
        owner, name = owner_arg, repo_arg
    else:
        origin = git_origin(cwd)
        if origin is None:
            raise UsageError("missing --repo OWNER/NAME (it could not be read from "
                             "`git remote get-url origin` here)")
        remote_host, owner, name = origin
        if owner_arg and owner_arg.lower() != owner.lower():
            raise UsageError("missing --repo NAME for --owner "
                             f"{owner_arg!r} (origin is {owner}/{name})")
        from_remote = True
    validate_owner(owner)
    validate_repo_name(name)
    if (remote_host and not api_arg and not env.get("GITHUB_API_URL")
            and remote_host not in ("github.com", "ssh.github.com")):
        api_url = enterprise_api_url(remote_host, env)
        check_graphql_env(env)
    else:
        api_url = command_api_url(api_arg, env)
    return Target(owner=owner, name=name, api_url=api_url, from_remote=from_remote)


def command_api_url(api_arg: Optional[str], env: Mapping[str, str]) -> str:
    """The one API a command talks to when no git remote is consulted (CONTRACT section 18):
    --api-url, else GITHUB_API_URL, else api.github.com; GITHUB_GRAPHQL_URL checked too."""
    if api_arg:
        api_url = normalise_api_url(api_arg, "--api-url")
    elif env.get("GITHUB_API_URL"):
        api_url = normalise_api_url(env["GITHUB_API_URL"], "GITHUB_API_URL")
    else:
        api_url = GITHUB_API
    check_graphql_env(env)
    return api_url


def check_graphql_env(env: Mapping[str, str]) -> None:
    """GITHUB_GRAPHQL_URL, when set, checked before any request (REST ones included)."""
    if env.get("GITHUB_GRAPHQL_URL"):
        normalise_api_url(env["GITHUB_GRAPHQL_URL"], "GITHUB_GRAPHQL_URL")

