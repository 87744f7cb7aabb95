"""Leaderboards in Redis sorted sets: the day's board of rank scores, and week (ISO), month and
all-time boards of summed margins (``score − 1000``) with the number of days played.

One ``Leaderboard`` over Redis, its parts in the modules named after them: ``keys`` (where each
board lives, its hash tag), ``writes`` (a score carried to every board in steps, each in its
slot), ``rebuild`` (the flag, the deferred scores, the wipe), ``reads`` (pages, ranks, the pages
kept in this process), ``streaks`` and ``day_games``.  Bulk fills for the benchmarks live with them
(scripts/bulk_boards.py).
"""

from __future__ import annotations

from collections import OrderedDict

from service.store import load_script

from .day_games import BoardDayGames
from .keys import (ALL_NAMES, ALL_TIME, BASE_SCORE, BOARD_KINDS, BOARDS, DEFERRED, EPOCH, MONTH_RE,  # noqa: F401
                   REBUILD_FLAG, SHIFT, WEEK_RE, WIPES, Board, board_key, day_board, month_board, week_board)
from .reads import KEPT_PAGES, MAX_DAYS, MAX_PAGE, MAX_RADIUS, BoardReads, shared_ranks  # noqa: F401
from .rebuild import BoardRebuilds, BoardsRebuilding  # noqa: F401
from .streaks import BoardStreaks
from .writes import BoardWrites


class Leaderboard(BoardWrites, BoardRebuilds, BoardReads, BoardStreaks, BoardDayGames):
    def __init__(self, client, max_age: float = 0.0, wait_ms: int = 0) -> None:
        self.r = client
        self.max_age = max_age
        self.wait_ms = wait_ms  # a score recorded waits for a cluster replica (``store.run_replicated``)
        #: (board key, offset, limit) -> (version, page, when the version was last read)
        self._pages: OrderedDict[tuple, tuple[tuple, dict, float]] = OrderedDict()
        self._day = load_script(client, __file__, "day_change.lua")
        self._all = load_script(client, __file__, "all_time_change.lua")
        self._periods = load_script(client, __file__, "period_change.lua")
        self._clear = load_script(client, __file__, "clear_pending.lua")
        self._entries_of = load_script(client, __file__, "entries_of.lua")
        self._games = load_script(client, __file__, "games.lua")
