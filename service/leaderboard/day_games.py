"""A day's counted games read in pages, for the day's open-data file (``service.opendata``).

The board orders them (best score first, equal scores the earlier verified first); each entry's
tie is its number in the day's games hash (``day_change.lua``), which names its submission and
its card points deal by deal.  The nickname is the board's: the one the boards show, so a name
changed there (a pseudonym after an erasure) is the one a file built later carries.
"""

from __future__ import annotations

from datetime import date

from service.store import id_of, pipelined, shard_of

from .keys import EPOCH, day_board


class BoardDayGames:
    """``Leaderboard``'s reads of a day's games (``self.r``: the client)."""

    def day_games_version(self, day: date) -> dict:
        """What identifies the day's board as it is: the epoch of wipes, the changes it had (every
        game recorded or removed adds one: 2 × sequence − size) and its size; one round trip."""
        d = day_board(day)
        epoch, seq, size = pipelined(self.r, lambda pipe: [pipe.get(EPOCH), pipe.get(d.seq_key), pipe.zcard(d.key)])
        seq = int(seq or 0)
        return {"epoch": int(epoch or 0), "changes": 2 * seq - size, "games": size}

    def day_games(self, day: date, offset: int, limit: int) -> list[dict]:
        """The day board's entries ``offset`` … ``offset + limit − 1``: ``submission_id``,
        ``player``, ``nickname``, ``score`` and ``deals`` (card points a deal; [] for a game
        recorded without them); two round trips."""
        d = day_board(day)
        items = self.r.zrevrange(d.key, offset, offset + limit - 1, withscores=True)
        if not items:
            return []
        pids = [pid for pid, _ in items]
        numbers = [str(d.shift - 1 - int(composite) % d.shift) for _, composite in items]
        names, games = pipelined(self.r, lambda pipe: [pipe.hmget(d.names_key, pids),
                                                        pipe.hmget(d.games_key, numbers)])
        out = []
        for (pid, composite), name, game in zip(items, names, games):
            parts = (game or "").split("|")
            if len(parts) != 3 or parts[0] != pid:
                parts = [pid, "", ""]  # counted without its deals: no id in the games hash
            out.append({"player": pid, "nickname": name or "", "score": d.value_of(composite),
                        "submission_id": id_of(day, shard_of(pid), parts[1]) if parts[1] else None,
                        "deals": [int(p) for p in parts[2].split(",") if p]})
        return out
