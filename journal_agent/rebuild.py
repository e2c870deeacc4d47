"""The rebuild a query leaves to a process of its own: where the status summary must be rebuilt,
`stale` answers first (`firstpass`) and a background process builds the index and the summary.

Why a module of its own: every query that reads the summary first waits for such a build
(`wait_for_build`: an ``flock`` beside the summary), so this must import nothing heavy.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: every summary query imports this module
if TYPE_CHECKING:
    from collections.abc import Callable

    from .vault import Vault

#: Set to 0: no background process; the full index is built before the answer returns.
BACKGROUND_ENV = "JOURNAL_AGENT_BACKGROUND"


def own_module(module: str, *args: str) -> list[str]:
    """The command line that runs this package's ``module`` (as ``python -m``) in a process of
    its own. Not ``-m`` itself: that imports from the current folder first, and a hook runs in
    the project the agent works in, which may hold another ``journal_agent`` (a checkout of
    another version, or code nobody meant to run)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = f"import runpy, sys; sys.path[0] = {here!r}; runpy.run_module({module!r}, "
    code += "run_name='__main__', alter_sys=True)"
    return [sys.executable, "-c", code, *args]


def warm_up(vault: Vault, build: Callable[[], object]) -> None:
    """Have the full index and the status summary built for ``vault``: by a process of its own
    that outlives this one (the person has the answer meanwhile), or here (``build``) when
    `BACKGROUND_ENV` is 0 or no process can be started. The builder holds an ``flock`` on a
    file beside the summary from before it starts until it is done (`wait_for_build`); while
    one holds it, no other is started."""
    own_python = bool(sys.executable) and not getattr(sys, "frozen", False)  # not embedded
    if os.environ.get(BACKGROUND_ENV) != "0" and sys.platform != "win32" and own_python:
        import fcntl

        try:
            fd = _open_lock(vault)
        except OSError:
            fd = -1
        if fd >= 0:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # a build is under way
                os.close(fd)
                return
            import subprocess

            try:  # the child inherits the locked file: the lock is its until it exits
                subprocess.Popen(
                    own_module("journal_agent.rebuild", os.path.abspath(vault.where)),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,  # not killed with the hook that started it
                    pass_fds=(fd,),
                )
                return
            except OSError:
                pass
            finally:
                os.close(fd)
    build()


def wait_for_build(vault: Vault) -> None:
    """Return once no background build of ``vault``'s index is under way."""
    if sys.platform == "win32":
        return
    import fcntl

    try:
        fd = _open_lock(vault, create=False)
    except OSError:  # none was ever started
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    finally:
        os.close(fd)


def _open_lock(vault: Vault, create: bool = True) -> int:
    from .summary_store import summary_path

    path = summary_path(vault) + ".building"
    if create:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CLOEXEC | (os.O_CREAT if create else 0), 0o600)


if __name__ == "__main__":  # the background process `warm_up` starts (it holds the lock)
    from .errors import JournalAgentError
    from .summary_current import summary_of
    from .vault import open_vault

    try:
        summary_of(open_vault(sys.argv[1]), wait=False)  # the lock is its own
    except JournalAgentError:
        sys.exit(1)  # the person's next query says what is wrong
