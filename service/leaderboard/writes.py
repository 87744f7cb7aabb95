"""A score written to every board, in steps, each one script in one slot.

The steps (tests/service/test_svc_slots.py checks their slots): the day's board
(``day_change.lua``, which notes the change as pending with its number in the day's sequence),
the all-time board (``all_time_change.lua``, once per number: a bit of the day's bitmap of changes
carried; it also turns records away while a rebuild runs), the week's and the month's
(``period_change.lua``, once per number each, in the same way, both in one round trip), then the
note taken off (``clear_pending.lua``).  A retry after a crash between the steps finds the note
and carries the same change, so a score is counted once on every board; a removal (ops) goes the
same way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date

import redis

from service.store import id_tail, month_id, pipelined, run_replicated, run_replicated_each, week_id

from .keys import ALL_NAMES, ALL_TIME, BASE_SCORE, DEFERRED, REBUILD_FLAG, SHIFT, WIPES, Board, board_key, day_board
from .rebuild import BoardsRebuilding


class BoardWrites:
    """``Leaderboard``'s writes (its scripts loaded in ``Leaderboard.__init__``)."""

    @staticmethod
    def _day_keys(day: date, deals: Sequence[int] = ()) -> list[str]:
        """The keys of a day's board that ``day_change.lua`` names, in its order (one slot): with
        the list of each deal the game played, for the card points it took there."""
        d = day_board(day)
        return [d.key, d.names_key, d.key_of("histogram"), d.seq_key, d.key_of("pending"), d.field_key,
                d.games_key, *(d.deal_key(k, p) for k, p in enumerate(deals))]

    @staticmethod
    def _all_keys(day: date) -> list[str]:
        """The keys ``all_time_change.lua`` names, in its order (the ``{boards}`` slot)."""
        d = day_board(day)
        return [ALL_TIME.key, ALL_TIME.days_key, ALL_TIME.seq_key, ALL_NAMES, REBUILD_FLAG, DEFERRED,
                board_key("carried", d.scope), WIPES]

    @staticmethod
    def _period_keys(board: "Board", day: date, wipes) -> list[str]:
        """The keys ``period_change.lua`` names for the week's or the month's ``board`` (its slot;
        ``wipes``: as ``all_time_change.lua`` returned it)."""
        return [board.key, board.seq_key, board.key_of("carried", f"day:{day.isoformat()}", f"w{wipes}"),
                board.key_of("wipes")]

    @staticmethod
    def _periods_of(day: date) -> tuple["Board", "Board"]:
        return Board("week", week_id(day)), Board("month", month_id(day))

    def _change(self, sign: str, day: date, pid: str, score: int, nickname: str, submission_id: str,
                rebuilding: bool, deals: Sequence[int] = ()) -> bool:
        """Put a score on the day's board (``+``) or take it off (``-``), with the game's card
        points on each deal in (or out of) the day's field, and carry that to the all-time,
        week's and month's boards: the day's step, then each period's, then the note taken off,
        each in its board's slot.  A change of the player left pending by a step that did not
        finish (a crash, Redis gone) is carried first.  True if changed now."""
        day_keys, finished = self._day_keys(day, deals), False
        args = [sign, pid, score, nickname, SHIFT, id_tail(submission_id), ",".join(map(str, deals))]
        for _attempt in range(3):
            (changed, note), _acked = run_replicated(self.r, self._day, day_keys, args, self.wait_ms)
            if note:
                self._carry(day, pid, note, submission_id, rebuilding)
                finished = finished or json.loads(note)[0] == sign  # this very change, left by a crash
            if changed or not note:
                return bool(changed) or finished
        raise RuntimeError(f"the boards of {day} keep a change of {pid} pending")  # pragma: no cover

    @staticmethod
    def _all_args(pid: str, note: str, submission_id: str, rebuilding: bool) -> list:
        """``all_time_change.lua``'s ARGV for a change (``day_change.lua``'s note)."""
        sign, seq, score, nickname = json.loads(note)
        return [sign, pid, int(score) - BASE_SCORE, nickname, seq, SHIFT, "1" if rebuilding else "0", submission_id]

    @staticmethod
    def _period_args(pid: str, note: str, wipes, left="") -> list:
        """``period_change.lua``'s ARGV for a change; ``left``: for a removal, the days the player
        keeps in the period."""
        sign, seq, score, _nickname = json.loads(note)
        return [sign, pid, int(score) - BASE_SCORE, seq, SHIFT, wipes, left]

    def _carry(self, day: date, pid: str, note: str, submission_id: str, rebuilding: bool) -> None:
        """A pending change of a day's board (``day_change.lua``'s note) on the all-time, week's
        and month's boards, once each, then its note taken off; BoardsRebuilding (the note left
        for the rebuild) if deferred."""
        (carried, wipes), _acked = run_replicated(self.r, self._all, self._all_keys(day),
                                                  self._all_args(pid, note, submission_id, rebuilding),
                                                  self.wait_ms)
        if carried == -1:
            raise BoardsRebuilding(f"boards are being rebuilt; {submission_id} is deferred to the rebuild")
        periods = self._periods_of(day)
        left = ["", ""]
        if json.loads(note)[0] == "-":  # the days the player keeps in the week and the month
            on = pipelined(self.r, lambda pipe: [pipe.zscore(day_board(d).key, pid) for b in periods for d in b.days])
            left[0] = sum(v is not None for v in on[:len(periods[0].days)])
            left[1] = sum(v is not None for v in on[len(periods[0].days):])
        run_replicated_each(self.r, [(self._periods, self._period_keys(board, day, wipes),
                                      self._period_args(pid, note, wipes, kept))
                                     for board, kept in zip(periods, left)], self.wait_ms)
        run_replicated(self.r, self._clear, [day_board(day).key_of("pending")], [pid, note], self.wait_ms)

    def remove(self, day: date, pid: str, score: int) -> bool:
        """Take the player's counted score of ``day`` off the day's board, its game out of the
        day's field and the score out of the period sums (ops: disqualify, hold); False if it was
        not counted.  ``record`` puts it back.  (``score``: the one counted; the board's own entry
        is what is taken off.)"""
        for _attempt in range(3):
            game = self.games_of(day, [pid])[0]
            deals = [int(p) for p in game.split("|", 1)[1].split(",")] if game else []
            try:
                # a record left pending is carried as the rebuild would (never deferred: ops are waiting)
                return self._change("-", day, pid, score, "", "", True, deals)
            except redis.ResponseError as e:
                if "GAME_CHANGED" not in str(e):
                    raise
        raise RuntimeError(f"the game of {pid} on {day} keeps changing")  # pragma: no cover

    def record(self, day: date, pid: str, nickname: str, score: int, submission_id: str, *,
               deals: Sequence[int] = (), rebuilding: bool = False) -> bool:
        """Put a verified score on the day, week, month and all-time boards, and its card points
        on each deal (``deals``: the record's ``points[0]``, deal by deal) in the day's field,
        once; True if counted now, False if the player's score of the day was counted before.
        Raises BoardsRebuilding while a rebuild runs, unless ``rebuilding`` (the rebuild itself)."""
        if not rebuilding and self.r.exists(REBUILD_FLAG):  # written nowhere: the rebuild records it
            self.r.sadd(DEFERRED, submission_id)
            raise BoardsRebuilding(f"boards are being rebuilt; {submission_id} is deferred to the rebuild")
        return self._change("+", day, pid, score, nickname, submission_id, rebuilding, deals)

