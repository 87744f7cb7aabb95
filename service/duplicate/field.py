"""The field of a day's deals: how every counted game did with the same cards, deal by deal.

Deal k of a day is the same four hands for everyone who reaches it.  ``day_change.lua`` (the
day board's own step, so exactly when a game is counted or taken off) keeps, in the day board's
slot: the histogram of the card points the player's side took on each deal (``<deal>:<points>``
-> games), each counted game by its number (its player, submission and points), and per deal and
points the games' numbers in the order recorded.  Everything here is read from those: a game's
matchpoints on a deal come from the deal's 62 counters, whatever the size of the field.
"""

from __future__ import annotations

from datetime import date

from service.errors import NotFound
from service.leaderboard import Leaderboard, day_board
from service.replay.rules import DEAL_POINTS
from service.store import evalsha_on, id_of, load_script, pipelined, shard_of

#: ``counts[p]`` for p = 0 … DEAL_POINTS: the card points a side can take on a deal.
BUCKETS = DEAL_POINTS + 1
#: A game ends within this many deals (docs/spec.md, 7.3): no deal of a day has a higher index.
MAX_DEALS = 79
MAX_TRAVELLER_PAGE = 100


def matchpoints(beaten: int, tied: int, results: int) -> float | None:
    """A result's matchpoint percentage on a deal, ``100 × (beaten + tied / 2) / (results − 1)``
    (``beaten``, ``tied``: the other results with fewer, the same card points); None when the
    result is alone (``results`` 1)."""
    if results < 2:
        return None
    return 100 * (beaten + tied / 2) / (results - 1)


def game_matchpoints(per_deal: list[float | None]) -> float | None:
    """A game's matchpoints: the mean over its deals that at least two played (None if none)."""
    scored = [mp for mp in per_deal if mp is not None]
    return sum(scored) / len(scored) if scored else None


def one_decimal(mp: float | None) -> float | None:
    return None if mp is None else round(mp, 1)


def two_decimals(mp: float | None) -> float | None:
    return None if mp is None else round(mp, 2)


def parse_points(text: str | None) -> list[int]:
    """A game's card points deal by deal as stored (``51,22,33``); [] for none."""
    return [int(p) for p in text.split(",")] if text else []


class Field:
    def __init__(self, client) -> None:
        self.r = client
        self._traveller = load_script(client, __file__, "traveller.lua")

    def counts(self, day: date) -> dict[int, list[int]]:
        """Each deal played by a counted game: its 62 counters (games by card points)."""
        return _by_deal(self.r.hgetall(day_board(day).field_key))

    def deals(self, day: date) -> dict:
        """The day's field, deal by deal: how many counted games played it, their mean card
        points and the histogram; deals nobody played are absent."""
        d = day_board(day)
        cells, results = pipelined(self.r, lambda pipe: [pipe.hgetall(d.field_key), pipe.zcard(d.key)])
        return {"date": day.isoformat(), "results": results,
                "deals": [self._summary(deal, c) for deal, c in _by_deal(cells).items()]}

    @staticmethod
    def _summary(deal: int, counts: list[int]) -> dict:
        n = sum(counts)
        return {"deal": deal, "results": n, "mean": round(sum(p * c for p, c in enumerate(counts)) / n, 2),
                "counts": counts}

    def of_game(self, day: date, points: list[int], counted: bool) -> dict:
        """A game's deals against the field: per deal its card points, how many results, how many
        of the others it beat and tied, its matchpoints; and the game's.  A game not counted
        (held, disqualified) is compared with the field as one more result."""
        field = self.counts(day)
        deals, mps = [], []
        for deal, us in enumerate(points):
            counts = field.get(deal, [0] * BUCKETS)
            results = sum(counts) + (0 if counted else 1)
            beaten, tied = sum(counts[:us]), counts[us] - (1 if counted else 0)
            mp = matchpoints(beaten, tied, results)
            mps.append(mp)
            deals.append({"deal": deal, "us": us, "them": DEAL_POINTS - us, "results": results,
                          "beaten": beaten, "tied": tied, "mp": one_decimal(mp)})
        return {"mp": two_decimals(game_matchpoints(mps)), "deals": deals}

    def traveller(self, day: date, deal: int, offset: int = 0, limit: int = 20) -> dict:
        """Deal ``deal``'s traveller: every counted result, best card points first (equal points in
        the order the games were verified), ``limit`` from ``offset``, with shared ranks;
        NotFound ``unknown_deal`` if no counted game played it."""
        limit = max(1, min(limit, MAX_TRAVELLER_PAGE))
        d = day_board(day)
        if not 0 <= deal < MAX_DEALS:
            raise NotFound(f"no deal {deal} on {day.isoformat()}", code="unknown_deal")
        keys = [d.field_key, d.names_key, d.games_key, *(d.deal_key(deal, p) for p in range(BUCKETS))]
        counts, rows = pipelined(self.r, lambda pipe: [evalsha_on(pipe, self._traveller, keys, [deal, offset, limit])],
                                 [self._traveller])[0]
        counts = [int(c) for c in counts]
        n = sum(counts)
        if not n:
            raise NotFound(f"no counted game played deal {deal} on {day.isoformat()}", code="unknown_deal")
        entries = []
        for pid, points, name, game in rows:
            points = int(points)
            above, below = sum(counts[points + 1:]), sum(counts[:points])
            entries.append({"rank": above + 1, "player": pid, "nickname": name, "us": points,
                            "them": DEAL_POINTS - points,
                            "mp": one_decimal(matchpoints(below, counts[points] - 1, n)),
                            "submission_id": _submission(day, pid, game)})
        return {**self._summary(deal, counts), "date": day.isoformat(), "offset": offset, "limit": limit,
                "entries": entries}

    def game_of(self, day: date, pid: str) -> tuple[str, list[int]] | None:
        """The player's counted game of ``day``: (submission id, card points deal by deal), or None."""
        game = Leaderboard(self.r).games_of(day, [pid])[0]
        if not game:
            return None
        return _submission(day, pid, game), parse_points(game.split("|", 1)[1])


def _submission(day: date, pid: str, game: str) -> str | None:
    """The submission id a game of the games hash names (``<sub>|…``: the id without its day and
    the player's shard), or None."""
    tail = game.split("|", 1)[0]
    return id_of(day, shard_of(pid), tail) if tail else None


def _by_deal(cells: dict[str, str]) -> dict[int, list[int]]:
    """The histogram's cells (``<deal>:<points>`` -> games) as each deal's 62 counters, by deal."""
    out: dict[int, list[int]] = {}
    for cell, count in cells.items():
        deal, points = map(int, cell.split(":"))
        out.setdefault(deal, [0] * BUCKETS)[points] = int(count)
    return dict(sorted(out.items()))
