"""A player's streak: days in a row with a counted score, read from the day boards."""

from __future__ import annotations

from datetime import date, timedelta

from .keys import day_board


class BoardStreaks:
    """``Leaderboard``'s streak."""

    def streak(self, pid: str, today: date, limit: int = 3660, chunk: int = 31) -> int:
        """Days in a row, ending today or yesterday, on which the player has a counted score."""
        streak, day, first = 0, today, True
        while streak < limit:
            days = [day - timedelta(days=i) for i in range(chunk)]
            pipe = self.r.pipeline(transaction=False)
            for d in days:
                pipe.zscore(day_board(d).key, pid)
            for i, counted in enumerate(pipe.execute()):
                if counted is not None:
                    streak += 1
                elif not (first and i == 0):  # today not played yet does not break it
                    return streak
            day -= timedelta(days=chunk)
            first = False
        return streak
