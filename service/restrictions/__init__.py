"""Restrictions: a mark on a player, not on a game.  While it holds, the player's games are off
every public board (``status`` ``restricted``: verified, not ranked) and their new games are
verified but not ranked; the player reads why and until when (``GET /players/me``).  Ops put
and lift it (``service.ops.player``); one with an end lapses then: readers treat it as gone at
once, and the workers' maintenance lifts it (its games rank again) at its next pass.

A restriction is a hash in the player's own slot; the index of every restriction by its end
(``+inf``: none) lives in its own slot, so that the lapse sweep reads one key.
"""

from __future__ import annotations

from datetime import datetime

from service.store import key_for

#: pid -> the restriction's end (epoch seconds; +inf: until lifted).
ENDS = key_for("restrictions", "restrictions")


class Restrictions:
    def __init__(self, client, settings) -> None:
        self.r = client
        self.settings = settings

    @staticmethod
    def key(pid: str) -> str:
        return key_for("restriction", f"player:{pid}")

    def get(self, pid: str, now: datetime | None = None) -> dict | None:
        """The player's restriction in force at ``now`` (default: the service's now): reason,
        since, until (None: until lifted), by (the operator); None if none or lapsed."""
        got = self.r.hgetall(self.key(pid))
        if not got:
            return None
        until = got.get("until") or None
        if until and datetime.fromisoformat(until) <= (now or self.settings.now()):
            return None
        return {"reason": got.get("reason", ""), "since": got.get("since"), "until": until, "by": got.get("by", "")}

    def recorded(self, pid: str) -> dict | None:
        """The restriction stored for the player, lapsed or not (what a lift takes away)."""
        got = self.r.hgetall(self.key(pid))
        return {**got, "until": got.get("until") or None} if got else None

    def put(self, pid: str, reason: str, until: datetime | None, by: str, now: datetime) -> None:
        """Restrict the player (a restriction already there is replaced: new reason and end)."""
        with self.r.pipeline(transaction=False) as pipe:
            pipe.delete(self.key(pid))
            pipe.hset(self.key(pid), mapping={"reason": reason, "since": now.isoformat(), "by": by,
                                              "until": until.isoformat() if until else ""})
            pipe.zadd(ENDS, {pid: until.timestamp() if until else float("inf")})
            pipe.execute()

    def clear(self, pid: str) -> None:
        with self.r.pipeline(transaction=False) as pipe:
            pipe.delete(self.key(pid))
            pipe.zrem(ENDS, pid)
            pipe.execute()

    def lapsed(self, now: datetime) -> list[str]:
        """The players whose restriction ended by ``now`` and is not lifted yet."""
        return self.r.zrangebyscore(ENDS, "-inf", now.timestamp())
