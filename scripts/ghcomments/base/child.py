"""What every child process (gh, git) runs under: no core file.

A child that dumps core writes its memory into the caller's folder — for gh, the token it
sends. Go's runtime does on SIGQUIT under GOTRACEBACK=crash (an 88 MB core, issue 31). So
each child gets GOTRACEBACK=none in its environment, and the script lowers its own soft
RLIMIT_CORE to 0 before it starts one: the child inherits it, and the script itself (which
holds the token too) leaves no core either. The hard limit is left as it was.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for annotations: not imported at run time (section 20)
    from typing import Dict, Mapping, Optional

_DONE = False


def no_core_dumps() -> None:
    """This process's soft RLIMIT_CORE to 0 (once): it and every child it starts dump no core.
    Where there is no `resource` module (not POSIX), nothing."""
    global _DONE
    if _DONE:
        return
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_CORE)
        resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    except (ImportError, ValueError, OSError):
        return
    _DONE = True


def child_env(env: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """The environment for a child: `env` (else this process's) with GOTRACEBACK=none, and
    core dumps off for this process and so the child (`no_core_dumps`)."""
    no_core_dumps()
    out = dict(os.environ if env is None else env)
    out["GOTRACEBACK"] = "none"
    return out
