"""A day's ratings, pure: each player's record of a day from the ratings before it and the day's
results, and the 10-byte form a record is stored in."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import date, timedelta

from .glicko import Rating, field_of, update, widened

#: The day, value × 10, deviation × 10, volatility × 10^5, matchpoints × 100: 10 bytes a day.
RECORD = struct.Struct(">HHHHH")
EPOCH = date(2000, 1, 1)
#: A day's matchpoints count as this many games against the field: its deals are not independent
#: games (counted one a deal, the ratings ordered the simulated players worse: 0.89 against 0.91
#: after 20 days, scripts/rating_skill.py), and one a day would leave a rating provisional for
#: twice as long for no better order.
GAMES_A_DAY = 2


@dataclass(frozen=True)
class DayRecord:
    day: date
    rating: Rating
    mp: float

    def pack(self) -> bytes:
        r = self.rating
        return RECORD.pack((self.day - EPOCH).days, _u16(r.value * 10), _u16(r.deviation * 10),
                           _u16(r.volatility * 100_000), _u16(self.mp * 100))

    @classmethod
    def unpack(cls, raw: bytes, at: int = 0) -> "DayRecord":
        day, value, deviation, volatility, mp = RECORD.unpack_from(raw, at)
        return cls(EPOCH + timedelta(days=day), Rating(value / 10, deviation / 10, volatility / 100_000), mp / 100)

    def stored(self) -> "DayRecord":
        """The record as stored (rounded): what the next day's update starts from."""
        return DayRecord.unpack(self.pack())


def _u16(x: float) -> int:
    return max(0, min(65535, round(x)))


def records(raw: bytes | None) -> list[DayRecord]:
    """A history's records, oldest first ([] for none)."""
    raw = raw or b""
    return [DayRecord.unpack(raw, at) for at in range(0, len(raw) - len(raw) % RECORD.size, RECORD.size)]


def rate_field(day: date, results: dict[str, float], priors: dict[str, DayRecord | None]) -> dict[str, DayRecord]:
    """Each player's record of ``day`` (stored form) from ``results`` (pid -> the day's matchpoints)
    and ``priors`` (pid -> the player's last record before
    the day, None for a first day): the field is the players' ratings before the day (their
    deviations widened by the days they did not play), taken in the order of their pids."""
    pids = sorted(results)
    before = {}
    for pid in pids:
        prior = priors.get(pid)
        before[pid] = widened(prior.rating, (day - prior.day).days - 1) if prior else Rating()
    field = field_of([before[p] for p in pids])
    return {pid: DayRecord(day, update(before[pid], field, results[pid] / 100, GAMES_A_DAY), results[pid]).stored()
            for pid in pids}
