"""Whether this process searches with the compiled solver (``bots.native``) or with its Python
reference, which gives the same answers 35–81× slower: a verification, a bot's move or an analysis
then takes that much longer, and nothing else says so.  Readiness (``/health/ready``), ``/metrics``
and the worker's first log line report it; deploy/RUNBOOK.md says what to do when it is not loaded.

A worker records its own status in its RQ worker hash (``WORKER_FIELD``), so that readiness, served
by a web process, also counts the workers that run without it.
"""

from __future__ import annotations

import os

#: The field of RQ's worker hash holding "1" (the compiled solver loaded) or "0".
WORKER_FIELD = "manille_solver_compiled"


def compiled() -> bool:
    """Whether this process loaded the compiled solver (loading it, the first time, if need be)."""
    import bots.native

    return bots.native.LIB is not None


def why_not() -> str | None:
    """None when the compiled solver is loaded; else why not, and what to do, in one line."""
    if compiled():
        return None
    if os.environ.get("MANILLE_NATIVE", "1") == "0":
        return "turned off by MANILLE_NATIVE=0"
    return ("not built or not loadable (bots.native wrote why on stderr at start; build it with "
            "`python -m bots.native`, which needs a C compiler: cc)")


def workers_without(connection, worker_keys) -> int:
    """How many of the RQ workers whose hashes are ``worker_keys`` said they run without the
    compiled solver (one round trip)."""
    if not worker_keys:
        return 0
    pipe = connection.pipeline(transaction=False)
    for key in worker_keys:
        pipe.hget(key, WORKER_FIELD)
    return sum(1 for value in pipe.execute() if value in (b"0", "0"))
