"""Boards filled and emptied in bulk, for the benchmarks (scripts/bench_*.py): never for real scores."""

from __future__ import annotations

from datetime import date

from service.store import evalsha_on, id_tail, key_for, pipelined

from .keys import ALL_TIME, EPOCH, SHIFT, WIPES, board_key, day_board


class BoardBenchmarks:
    """``Leaderboard``'s bulk helpers (its steps' keys and arguments: ``writes.BoardWrites``)."""

    def record_many(self, day: date, entries, batch: int = 1000) -> None:
        """``record`` for many (pid, nickname, score, submission id[, deals]) of one day, the steps
        of a batch pipelined (benchmarks)."""
        # loaded first (on every master of a cluster): a pipeline does not load a missing script
        for script in (self._day, self._all, self._periods, self._clear):
            self.r.script_load(script.script)
        entries = [(*e, ()) if len(e) == 4 else tuple(e) for e in entries]
        all_keys, pending = self._all_keys(day), day_board(day).key_of("pending")
        periods = self._periods_of(day)
        for start in range(0, len(entries), batch):
            chunk = entries[start:start + batch]
            notes = pipelined(self.r, lambda pipe: [
                evalsha_on(pipe, self._day, self._day_keys(day, deals),
                           ["+", pid, score, name, SHIFT, id_tail(sub), ",".join(map(str, deals))])
                for pid, name, score, sub, deals in chunk])
            todo = [(pid, note, sub) for (pid, _n, _s, sub, _d), (changed, note) in zip(chunk, notes) if changed]
            wipes = pipelined(self.r, lambda pipe: [evalsha_on(pipe, self._all, all_keys,
                                                                self._all_args(pid, note, sub, True))
                                                     for pid, note, sub in todo])
            pipelined(self.r, lambda pipe: [evalsha_on(pipe, self._periods, self._period_keys(board, day, w),
                                                       self._period_args(pid, note, w))
                                            for (pid, note, _sub), (_c, w) in zip(todo, wipes)
                                            for board in periods])
            pipelined(self.r, lambda pipe: [evalsha_on(pipe, self._clear, [pending], [pid, note])
                                            for pid, note, _sub in todo])

    def remove_players(self, day: date, pids: list[str]) -> None:
        """Delete a day's boards and take ``pids`` off its week, month and all-time boards
        (benchmark clean-up; not for real scores, whose period sums it would not undo)."""
        d, (w, m) = day_board(day), self._periods_of(day)
        wipes = self.r.get(WIPES) or "0"
        pipe = self.r.pipeline(transaction=False)
        # the day's sequence starts again: so must every board's bitmap of the day's changes carried
        day_keys = list(self.r.scan_iter(match=key_for("*", d.tag), count=1000))  # the board, its field
        for key in (board_key("carried", d.scope),
                    *(self._period_keys(b, day, wipes)[2] for b in (w, m)), *day_keys):
            pipe.unlink(key)  # one key a command: a cluster's pipeline takes no other
        for b in (w, m, ALL_TIME):
            for i in range(0, len(pids), 1000):
                chunk = pids[i:i + 1000]
                pipe.zrem(b.key, *chunk)
                if b.days_key:
                    pipe.hdel(b.days_key, *chunk)
                pipe.hdel(b.names_key, *chunk)
        pipe.incr(EPOCH)  # the day's sequence is gone: pages kept of it must not match again
        pipe.execute()
