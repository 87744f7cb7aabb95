"""``python faked_clock_python.py -m MODULE ARGS...`` is ``python -m MODULE ARGS...`` for a process
under Debian's libfaketime (``live_stack`` runs the stack's Python processes so), with
``time.sleep`` waiting on ``select``.

libfaketime 0.9.10 leaves the monotonic clock real here (``--exclude-monotonic``: timeouts, RQ's
heartbeats and gunicorn's worker checks measure real durations), but still shifts the absolute
deadline of ``clock_nanosleep``, which Python 3.11's ``time.sleep`` uses on that clock: the call
fails with EINVAL.  ``select`` with a timeout is the same wait and libfaketime passes it through."""

from __future__ import annotations

import os
import runpy
import select
import sys
import time


def _sleep(seconds: float) -> None:
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        select.select([], [], [], left)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "-m":
        sys.exit(__doc__)
    time.sleep = _sleep
    sys.argv = sys.argv[2:]
    sys.path[0] = os.getcwd()  # as ``python -m`` has it: the working directory, not this file's
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
