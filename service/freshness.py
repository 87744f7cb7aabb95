"""How long a public answer stays true enough to be kept by a cache: the ``max-age`` of its
``Cache-Control: public`` (``service.api.caching`` sends it), and when caches have caught up with
a change that ops made (their actions' answers say it).

What each kind of data allows:

- a board that still takes scores (an open or closing day's, a week or a month with such a day,
  the all-time board) is kept no longer than a web process keeps its pages unchecked
  (``MANILLE_BOARD_MAX_AGE``, 1 s): the same staleness a reader of the service itself has;
- a closed day (its seed public) is kept ``MANILLE_CLOSED_MAX_AGE`` (300 s): its board changes only
  when ops act, or for a game finished in time whose verification lands after the reveal, so a
  copy a few minutes old is the day's result; the same for a week or a month whose days have all
  closed, and for a day's matchpoint board once ``final``;
- a challenge is fixed until its next phase (its close, its seed's publication; kept until then)
  and for good once its seed is public (a day);
  ``/challenges/today`` names today's until midnight;
- the archive's list of closed days gains a day at each reveal: kept until the next one at most.

Each layer in front of a reader adds its own bound: a web process's kept page
(``MANILLE_BOARD_MAX_AGE``), the proxy's micro-cache (``PROXY_SECONDS``, deploy/nginx.conf), then
any cache that honours ``max-age``.  ``catch_up_at`` adds them up.
"""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta

from service.config import Settings
from service.leaderboard import Board

#: What the proxy's micro-cache keeps a public answer, at most (``proxy_cache_valid`` in
#: deploy/nginx.conf; tests/service/test_svc_nginx.py checks that the two agree).
PROXY_SECONDS = 1
#: An answer that never changes again (a closed day's challenge): a day, as long as any cache keeps one.
SETTLED = 86400


class Freshness:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def live(self) -> int:
        """A board still taking scores: the web processes' own bound on a board page's age."""
        return int(self.settings.board_max_age)

    def _now(self, now: datetime | None) -> datetime:
        return now or self.settings.now()

    def _closed(self, day: date, now: datetime) -> bool:
        return self.settings.clock.phase(day, now) == "closed"

    def day(self, day: date, now: datetime | None = None) -> int:
        """A day's board, histogram, field, travellers and games against the field."""
        return self.settings.closed_max_age if self._closed(day, self._now(now)) else self.live

    def board(self, board: Board, now: datetime | None = None) -> int:
        """A margin board: a day's as ``day``; a week's or a month's as its last day; all-time live."""
        now = self._now(now)
        if board.kind == "day":
            return self.day(date.fromisoformat(board.id), now)
        if board.kind in ("week", "month"):
            return self.day(board.days[-1], now)
        return self.live

    def matchpoints(self, board: Board, final: bool, now: datetime | None = None) -> int:
        """A board by matchpoints: built by a worker, and rebuilt at any time until ``final``."""
        return min(self.board(board, now), self.settings.closed_max_age) if final else self.live

    def day_file(self, day: date, final: bool, now: datetime | None = None) -> int:
        """A closed day's games file: a day once final (a later change is a new ETag), else as its board."""
        return SETTLED if final else self.day(day, now)

    def record(self) -> int:
        """A published game record: replayed from the seed, it changes only if ops disqualify the game."""
        return self.settings.closed_max_age

    def challenge(self, day: date, now: datetime | None = None) -> int:
        """A day's challenge: unchanged until its next phase (its close, then its seed's
        publication), and for good after that."""
        now = self._now(now)
        clock = self.settings.clock
        phase = clock.phase(day, now)
        if phase == "closed":
            return SETTLED
        return _until(clock.closes_at(day) if phase == "open" else clock.reveals_at(day), now)

    def today(self, now: datetime | None = None) -> int:
        """``/challenges/today``: today's until the next day opens."""
        now = self._now(now)
        return _until(self.settings.clock.closes_at(self.settings.clock.today(now)), now)

    def archive(self, now: datetime | None = None) -> int:
        """The list of closed days: a closed day's counts, until the next reveal adds a day."""
        now = self._now(now)
        clock = self.settings.clock
        today = clock.today(now)
        yesterday = clock.reveals_at(today - timedelta(days=1))
        reveal = yesterday if now < yesterday else clock.reveals_at(today)
        return min(self.settings.closed_max_age, _until(reveal, now))

    def catch_up_at(self, day: date, now: datetime | None = None) -> datetime:
        """When every public copy of what a change of ``day``'s scores touched (the day's board,
        field and travellers, its week's, month's and the all-time board) shows it, at the latest:
        a web process's kept page, then the proxy's, then a cache's ``max-age``."""
        now = self._now(now)
        return now + timedelta(seconds=self.settings.board_max_age + PROXY_SECONDS
                               + max(self.day(day, now), self.live))


def _until(when: datetime, now: datetime) -> int:
    """Whole seconds from ``now`` to ``when`` (0 once passed), never past ``SETTLED``."""
    return max(0, min(SETTLED, math.floor((when - now).total_seconds())))


__all__ = ["Freshness", "PROXY_SECONDS", "SETTLED"]
