"""Boards read: pages with shared ranks, a player's entry and neighbours, the days played, a
day's histogram; and the pages kept in this process.

The rank shown is shared by equal scores (1, 2, 2, 4): ``1 + the number of entries with a
strictly higher score``.  The days a player played in a week or a month are not stored: they are
the days of the period whose board holds the player, read with the page (one ZMSCORE a day of the
period, in the page's round trip).  Only the all-time board, whose days have no bound, counts them
(``days:all``): a count per player and week and month cost a new player 200 B for good
(scripts/bench_memory.py).

A page is kept in this process with its board's version, read before the page in one round trip:
the epoch of wipes, the board's sequence and its size.  Every record raises the sequence, every
removal raises it or lowers the size, and the sequence never goes back within an epoch (a wipe,
which restarts it, raises the epoch): the same version is the same board, so a kept page checked
against the version is exactly what Redis holds.  It is answered without even that check for
``max_age`` seconds after the last one (``MANILLE_BOARD_MAX_AGE``, default 1; 0: always
checked): the round trip cost a hot page a third of its speed (scripts/bench_speed.py), and a
board a second old is no loss.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import date

from service.errors import NotFound
from service.store import evalsha_on, pipelined

from .keys import EPOCH, SHIFT, Board, day_board

MAX_PAGE = 100
MAX_RADIUS = 50
MAX_DAYS = 90  # days of ``days_played`` in one request
#: Pages kept per process (the least recently read go first).
KEPT_PAGES = 512


def shared_ranks(values: list[int], offset: int, above: int) -> list[int]:
    """The ranks of a page's entries, best first, whose values are ``values``: equal values share
    a rank (1, 2, 2, 4); ``offset``: the page's first position; ``above``: the entries above the
    page's first value."""
    ranks, rank = [], above + 1
    for i, value in enumerate(values):
        if i and value != values[i - 1]:
            rank = offset + i + 1
        ranks.append(rank)
    return ranks



class BoardReads:
    """``Leaderboard``'s reads (its page cache and scripts made in ``Leaderboard.__init__``)."""

    def games_of(self, day: date, pids: list[str]) -> list[str | None]:
        """The counted games of ``pids`` on ``day`` (``<sub>|51,22,33``: the submission's id
        without its day and the player's shard, the card points a deal), None for a player whose
        game is not counted."""
        if not pids:
            return []
        d = day_board(day)
        return self._games(keys=[d.key, d.games_key], args=[SHIFT, *pids])


    def total(self, board: Board) -> int:
        return self.r.zcard(board.key)

    def page(self, board: Board, offset: int = 0, limit: int = 20, *, cap: int = MAX_PAGE) -> dict:
        """Entries ``offset`` … ``offset + limit − 1`` in board order, with shared ranks; ``limit``
        is cut to ``cap``.  The very page kept from an earlier call while the board is unchanged:
        read it, never change it (its identity says it is unchanged: the API keeps its JSON)."""
        limit = max(1, min(limit, cap))
        offset = max(0, offset)
        at, key = time.monotonic(), (board.key, offset, limit)
        kept = self._pages.get(key)
        if kept is not None and at - kept[2] < self.max_age:
            return kept[1]
        pipe = self.r.pipeline(transaction=False)
        pipe.get(EPOCH)
        pipe.get(board.seq_key)
        pipe.zcard(board.key)
        version = tuple(pipe.execute())
        if kept is not None and kept[0] == version:
            page = kept[1]
        else:  # read after the version: the page is at least as new as the version it is kept with
            items = self.r.zrevrange(board.key, offset, offset + limit - 1, withscores=True)
            page = {"total": version[2], "offset": offset, "limit": limit,
                    "entries": self._entries(board, items, offset)}
        self._pages[key] = (version, page, at)
        self._pages.move_to_end(key)
        if len(self._pages) > KEPT_PAGES:
            self._pages.popitem(last=False)
        return page

    def _entries(self, board: Board, items, offset: int) -> list[dict]:
        if not items:
            return []
        pids = [p for p, _ in items]
        pipe = self.r.pipeline(transaction=False)
        pipe.hmget(board.names_key, pids)
        if board.days_key:
            pipe.hmget(board.days_key, pids)
        for d in board.days:
            pipe.zmscore(day_board(d).key, pids)
        pipe.zcount(board.key, (board.value_of(items[0][1]) + 1) * board.shift, "+inf")
        res = pipe.execute()
        names, above = res[0], res[-1]
        if board.days_key:
            days = res[1]
        elif board.days:  # the days of the period whose board holds each player
            days = [sum(on[i] is not None for on in res[1:-1]) for i in range(len(pids))]
        values = [board.value_of(composite) for _pid, composite in items]
        out = []
        for i, ((pid, _composite), value, rank) in enumerate(zip(items, values, shared_ranks(values, offset, above))):
            entry = {"rank": rank, "player": pid, "nickname": names[i] or ""}
            if board.kind == "day":
                entry["score"] = value
            else:
                entry["margin"] = value
                entry["days"] = int(days[i] or 0)
            out.append(entry)
        return out

    def entries_of(self, board: Board, pids: Sequence[str]) -> dict:
        """The entries of ``pids`` on ``board`` (a league's members), in one round trip whatever
        their number: ``{"total": the board's size, "entries": {pid: {"composite", "value",
        "public_rank"[, "days"]}}}`` for those on it.  The board's slot only (one script), and for a
        week's or a month's days played the day boards a page reads too, in the same round trip."""
        pids = list(pids)

        def queue(pipe):
            evalsha_on(pipe, self._entries_of, [board.key], [board.shift, *pids])
            if pids and board.days_key:
                pipe.hmget(board.days_key, pids)
            for d in board.days if pids else ():
                pipe.zmscore(day_board(d).key, pids)
        res = pipelined(self.r, queue, [self._entries_of])
        (total, found), rest = res[0], res[1:]
        out = {}
        for i, (pid, text) in enumerate(zip(pids, found.split(","))):
            if not text:
                continue
            composite, rank = text.split(" ")
            composite = float(composite)
            entry = {"composite": composite, "value": board.value_of(composite), "public_rank": int(rank)}
            if board.days_key:
                entry["days"] = int(rest[0][i] or 0)
            elif board.days:
                entry["days"] = sum(on[i] is not None for on in rest)
            out[pid] = entry
        return {"total": int(total), "entries": out}

    def rank_of(self, board: Board, pid: str) -> dict | None:
        """The player's entry (rank, score …) or None if not on the board."""
        composite = self.r.zscore(board.key, pid)
        if composite is None:
            return None
        pos = self.r.zrevrank(board.key, pid)
        return self._entries(board, [(pid, composite)], pos)[0] | {"position": pos + 1}

    def around(self, board: Board, pid: str, radius: int = 5) -> dict:
        """The player's entry with up to ``radius`` (at most MAX_RADIUS) entries on each side;
        NotFound ``not_on_board`` if the player has none."""
        radius = max(0, min(radius, MAX_RADIUS))
        for _attempt in range(5):
            pos = self.r.zrevrank(board.key, pid)
            if pos is None:
                break
            start = max(0, pos - radius)
            page = dict(self.page(board, start, pos - start + radius + 1, cap=2 * MAX_RADIUS + 1))
            me = next((e for e in page["entries"] if e["player"] == pid), None)
            if me is not None:
                page["me"] = me
                return page
            # the board moved between the two reads (scores landing): look again
        raise NotFound("this player has no entry on this board", code="not_on_board")

    def days_played(self, days: list[date], pid: str | None = None) -> list[dict]:
        """For each of ``days``: ``players``, how many its board holds, and with ``pid`` also
        ``me``, the player's ``{"rank", "score"}`` there or None.  One round trip, and one more
        for the ranks of the days the player has a score on."""
        boards = [day_board(d) for d in days]

        def sizes_and_scores(pipe):
            for b in boards:
                pipe.zcard(b.key)
                if pid:
                    pipe.zscore(b.key, pid)
        replies = pipelined(self.r, sizes_and_scores) if boards else []
        step = 2 if pid else 1
        out = [{"date": d.isoformat(), "players": int(n)} for d, n in zip(days, replies[::step])]
        if not pid:
            return out
        scored = [(i, c) for i, c in enumerate(replies[1::2]) if c is not None]
        above = pipelined(self.r, lambda pipe: [pipe.zcount(boards[i].key, (boards[i].value_of(c) + 1) * SHIFT, "+inf")
                                                for i, c in scored]) if scored else []
        for row in out:
            row["me"] = None
        for (i, c), n in zip(scored, above):
            out[i]["me"] = {"rank": n + 1, "score": boards[i].value_of(c)}
        return out

    def histogram(self, day: date) -> list[dict]:
        raw = self.r.hgetall(day_board(day).key_of("histogram"))
        return [{"score": int(s), "count": int(c)} for s, c in sorted(raw.items(), key=lambda kv: int(kv[0]))]
