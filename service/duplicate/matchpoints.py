"""The matchpoint boards: a day's games ranked by their mean matchpoints over the deals, and the
week's and month's players by the mean of their daily matchpoints.

A game's matchpoints move whenever another game of its day is counted (it may beat, tie or lose
to it on every deal they share), so these boards are not written per game: a job
(``worker.jobs.build_matchpoints``) computes a day's board from the deals' lists of games
(``day_change.lua`` keeps them, in the day board's slot) and swaps it in whole, at most every
``MANILLE_MATCHPOINTS_SECONDS`` while the day is open (provisional: the board says when it was
built and from how many games), and once more after it closes and no verification of it is
pending (final).  A day's board changed after that (ops) is built again at once.  A week's and a
month's board are built from their closed days' boards when one of those becomes final.

Each build reads one consistent state of each deal's list and writes the whole board beside the
old one, then renames it over it: a reader sees the old board or the new, never a mix, and
building twice gives the same board (nothing is counted twice, whatever is retried).

Scores are composites, as the margin boards' are, so that equal values are listed in a fixed
order: ``value × SHIFT + tie`` with the value the matchpoints × 10,000, rounded; a day's tie is
the game's own on the day's board (earlier verified first), a period's the days played (more
first).  Equal values share a rank (1, 2, 2, 4).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime

from service.errors import NotFound
from service.leaderboard import ALL_NAMES, SHIFT, Board, day_board, shared_ranks
from service.store import load_script, pipelined

from .field import BUCKETS, matchpoints, two_decimals

#: Matchpoints are kept to this fraction of a percent (ties are equal at this precision).
SCALE = 10_000
#: A period's composite: value × PERIOD_SHIFT + days played (at most 31).
PERIOD_SHIFT = 64
#: Members read or written per command by a build.
CHUNK = 10_000
MAX_PAGE = 100
MAX_RADIUS = 50


def _mp_key(board: Board) -> str:
    return board.key_of("mp")


def _meta_key(board: Board) -> str:
    return board.key_of("mpmeta")


class Matchpoints:
    def __init__(self, client) -> None:
        self.r = client
        self._swap_script = load_script(client, __file__, "swap.lua")

    # -- building --------------------------------------------------------------------------

    def due(self, day: date, every_seconds: float, *, force: bool = False) -> bool:
        """Whether a build of ``day``'s board is to be queued now: once every ``every_seconds``
        at most (the first caller in that time wins), or at once with ``force`` (ops changed it)."""
        key = day_board(day).key_of("mpdue")
        if force or every_seconds <= 0:
            self.r.set(key, "1", px=max(1, int(every_seconds * 1000)))
            return True
        return bool(self.r.set(key, "1", nx=True, px=int(every_seconds * 1000)))

    def stale(self, day: date, closed: bool) -> bool:
        """Whether ``day``'s board lags its games (a game counted or taken off since it was built),
        or its day has closed and it is not final yet."""
        d = day_board(day)
        seq, (built_seq, final) = pipelined(self.r, lambda pipe: [pipe.get(d.seq_key),
                                                                   pipe.hmget(_meta_key(d), "seq", "final")])
        return (seq or "0") != (built_seq or "0") or (closed and final != "1")

    def build_day(self, day: date, *, now: datetime, final: bool) -> dict:
        """Compute ``day``'s board from its deals' lists and put it in place; ``final``: the day
        is closed and no verification of it is pending (kept only if no game landed meanwhile).
        Returns the board's state (``meta``)."""
        d = day_board(day)
        seq = self.r.get(d.seq_key) or "0"
        total: dict[str, float] = defaultdict(float)
        scored: dict[str, int] = defaultdict(int)
        for deal, buckets in self._deal_lists(d).items():
            results = sum(len(games) for games in buckets.values())
            beaten = 0
            for points in range(BUCKETS):
                games = buckets.get(points, ())
                mp = matchpoints(beaten, len(games) - 1, results)
                if mp is not None:
                    for game in games:
                        total[game] += mp
                        scored[game] += 1
                beaten += len(games)
        composites = {}
        for pids, on_board in self._scan_board(d):
            for pid, composite in zip(pids, on_board):
                tie = int(composite) % SHIFT
                game = str(SHIFT - 1 - tie)  # the game's number (day_change.lua)
                if game in scored:  # a game taken off meanwhile is not on the board: left out
                    value = round(total[game] / scored[game] * SCALE)
                    composites[pid] = value * SHIFT + tie
        final = final and (self.r.get(d.seq_key) or "0") == seq
        meta = {"built_at": now.isoformat(), "seq": seq, "games": len(composites), "final": "1" if final else "0"}
        self._swap(d, composites, meta)
        return self.meta(d)

    def build_period(self, board: Board, days: list[date], *, now: datetime, final: bool) -> dict:
        """Compute a week's or a month's board from the boards of ``days`` (its closed days): each
        player's mean daily matchpoints and days played."""
        total: dict[str, float] = defaultdict(float)
        played: dict[str, int] = defaultdict(int)
        for day in days:
            key = _mp_key(day_board(day))
            for start in range(0, self.r.zcard(key), CHUNK):
                for pid, composite in self.r.zrange(key, start, start + CHUNK - 1, withscores=True):
                    total[pid] += int(composite) // SHIFT
                    played[pid] += 1
        composites = {pid: round(total[pid] / played[pid]) * PERIOD_SHIFT + played[pid] for pid in total}
        meta = {"built_at": now.isoformat(), "days": len(days), "games": len(composites),
                "final": "1" if final else "0"}
        self._swap(board, composites, meta)
        return self.meta(board)

    def _deal_lists(self, d: Board) -> dict[int, dict[int, list[str]]]:
        """Every deal's lists of games by card points, as they are now (deal -> points -> the games'
        numbers)."""
        cells = [tuple(map(int, cell.split(":"))) for cell in self.r.hkeys(d.field_key)]
        out: dict[int, dict[int, list[str]]] = defaultdict(dict)
        for deal, points in sorted(cells):
            key, games = d.deal_key(deal, points), []
            while True:
                chunk = self.r.lrange(key, len(games), len(games) + CHUNK - 1)
                games += chunk
                if len(chunk) < CHUNK:
                    break
            out[deal][points] = games
        return out

    def _scan_board(self, d: Board):
        """The day's margin board in chunks: (pids, composites)."""
        for start in range(0, self.r.zcard(d.key), CHUNK):
            items = self.r.zrange(d.key, start, start + CHUNK - 1, withscores=True)
            yield [p for p, _ in items], [c for _, c in items]

    def _swap(self, board: Board, composites: dict[str, int], meta: dict) -> None:
        """Write the new board beside the old one, then rename it over it with its state, at once."""
        key, staged = _mp_key(board), board.key_of("mp", "next")
        self.r.delete(staged)
        items = list(composites.items())
        for start in range(0, len(items), CHUNK):
            self.r.zadd(staged, dict(items[start:start + CHUNK]))
        self._swap_script(keys=[staged, key, _meta_key(board)], args=[v for kv in meta.items() for v in kv])

    # -- reading ---------------------------------------------------------------------------

    def meta(self, board: Board) -> dict:
        """How fresh the board is: when it was built, from how many games (days for a period),
        whether it is final, and (a day) how many games were placed on it since (``place``);
        nulls if it was never built."""
        raw = self.r.hgetall(_meta_key(board))
        out = {"built_at": raw.get("built_at"), "final": raw.get("final") == "1",
               "games": int(raw.get("games", 0))}
        if board.kind == "day":
            out["placed"] = int(raw.get("placed", 0))
        if board.kind != "day":
            out["days_counted"] = int(raw.get("days", 0))
        return out

    def _value(self, board: Board, composite: float) -> int:
        return int(composite) // (SHIFT if board.kind == "day" else PERIOD_SHIFT)

    def value_of(self, board: Board, composite: float) -> float:
        """The matchpoints (%) an entry of ``board`` holds, as its composite keeps them."""
        return self._value(board, composite) / SCALE

    def page(self, board: Board, offset: int = 0, limit: int = 20, *, cap: int = MAX_PAGE) -> dict:
        """Entries ``offset`` … ``offset + limit − 1``, best first, with shared ranks, and the
        board's state."""
        limit, offset = max(1, min(limit, cap)), max(0, offset)
        key = _mp_key(board)
        items, total = pipelined(self.r, lambda pipe: [
            pipe.zrevrange(key, offset, offset + limit - 1, withscores=True), pipe.zcard(key)])
        return {**self.meta(board), "total": total, "offset": offset, "limit": limit,
                "entries": self._entries(board, items, offset)}

    def _entries(self, board: Board, items, offset: int) -> list[dict]:
        if not items:
            return []
        key, pids = _mp_key(board), [p for p, _ in items]
        first = self._value(board, items[0][1])
        names_key = board.names_key if board.kind == "day" else ALL_NAMES
        names, above = pipelined(self.r, lambda pipe: [
            pipe.hmget(names_key, pids),
            pipe.zcount(key, (first + 1) * (SHIFT if board.kind == "day" else PERIOD_SHIFT), "+inf")])
        values = [self._value(board, composite) for _pid, composite in items]
        out = []
        for i, ((pid, composite), value, rank) in enumerate(zip(items, values, shared_ranks(values, offset, above))):
            entry = {"rank": rank, "player": pid, "nickname": names[i] or "", "mp": two_decimals(value / SCALE)}
            if board.kind != "day":
                entry["days"] = int(composite) % PERIOD_SHIFT
            out.append(entry)
        return out

    def rank_of(self, board: Board, pid: str) -> dict | None:
        """The player's entry, or None if the player is not on the board."""
        key = _mp_key(board)
        composite, pos = pipelined(self.r, lambda pipe: [pipe.zscore(key, pid), pipe.zrevrank(key, pid)])
        if composite is None or pos is None:
            return None
        return self._entries(board, [(pid, composite)], pos)[0] | {"position": pos + 1}

    def around(self, board: Board, pid: str, radius: int = 5) -> dict:
        """The player's entry with up to ``radius`` entries on each side; NotFound
        ``not_on_board`` if the player has none."""
        radius = max(0, min(radius, MAX_RADIUS))
        for _attempt in range(5):
            pos = self.r.zrevrank(_mp_key(board), pid)
            if pos is None:
                break
            start = max(0, pos - radius)
            page = self.page(board, start, pos - start + radius + 1, cap=2 * MAX_RADIUS + 1)
            me = next((e for e in page["entries"] if e["player"] == pid), None)
            if me is not None:
                return {**page, "me": me}
        raise NotFound("this player has no entry on this matchpoint board", code="not_on_board")
