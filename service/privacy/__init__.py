"""A player's own data (GDPR articles 15, 17, 20): the pseudonym an erased player is shown by,
the copy of what is kept (``export``), the erasure (``erasure``) and the retention sweeps
(``retention``).

An erased player keeps their place on every board, field, league and duel under a pseudonym, so
that no other player's rank or matchpoints move; the pseudonym is a keyed hash of the pid (the
server secret), stable across processes and erasures, and says nothing of the name it replaces.
"""

from __future__ import annotations

import hashlib
import hmac

from service.store import key_for

#: Games whose clients (addresses, user agents) are to go but were held or awaiting their verdict
#: when due (an erasure, the end of their keep): submission id -> when due (s).  The retention
#: sweep deletes them once the game is decided.
EVIDENCE = key_for("evidence", "privacy")
#: The last day whose submissions' clients the retention sweep deleted (ISO).
SWEPT = key_for("swept", "privacy")


def pseudonym(secret: bytes, pid: str) -> str:
    """``player-`` and 8 hex of a keyed hash of ``pid``: the same for the same pid and secret."""
    return "player-" + hmac.new(secret or b"manille", pid.encode(), hashlib.sha256).hexdigest()[:8]
