"""Process lifetimes on Linux: a child that dies with its parent (``PR_SET_PDEATHSIG``), a parent
that adopts its orphaned descendants (``PR_SET_CHILD_SUBREAPER``), the children of a process.

Elsewhere ``prctl`` does nothing (returns False) and ``children_of`` finds none: ``make run``
then polls its parent instead, and leaves orphans to init.
"""

from __future__ import annotations

import ctypes
import os
import signal
from pathlib import Path

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):  # not Linux
    _prctl = None


def prctl(option: int, value: int) -> bool:
    return _prctl is not None and _prctl(option, value, 0, 0, 0) == 0


def die_with(parent: int, sig: int = signal.SIGTERM):
    """A ``preexec_fn``: the child gets ``sig`` when ``parent`` dies (exits now if it already has)."""
    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, sig)
        if os.getppid() != parent:
            os._exit(1)
    return preexec


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc; elsewhere none)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.parent.name))
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (Linux /proc; elsewhere: it exists)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        if Path("/proc/self/stat").exists():
            return False
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True
