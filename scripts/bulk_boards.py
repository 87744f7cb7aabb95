"""Boards filled and emptied in bulk, for the benchmarks (scripts/bench_*.py) and the tests that
want a crowded board: never for real scores.  Each drives ``Leaderboard``'s own steps (its keys and
arguments: ``service.leaderboard.writes.BoardWrites``), pipelined a batch at a time."""

from __future__ import annotations

import random
from datetime import date

from service.leaderboard import Leaderboard
from service.leaderboard.keys import ALL_TIME, EPOCH, SHIFT, WIPES, board_key, day_board
from service.store import evalsha_on, id_tail, key_for, pipelined


def record_many(board: Leaderboard, day: date, entries, batch: int = 1000) -> None:
    """``board.record`` for many (pid, nickname, score, submission id[, deals]) of one day, the
    steps of a batch pipelined."""
    r = board.r
    # loaded first (on every master of a cluster): a pipeline does not load a missing script
    for script in (board._day, board._all, board._periods, board._clear):
        r.script_load(script.script)
    entries = [(*e, ()) if len(e) == 4 else tuple(e) for e in entries]
    all_keys, pending = board._all_keys(day), day_board(day).key_of("pending")
    periods = board._periods_of(day)
    for start in range(0, len(entries), batch):
        chunk = entries[start:start + batch]
        notes = pipelined(r, lambda pipe: [
            evalsha_on(pipe, board._day, board._day_keys(day, deals),
                       ["+", pid, score, name, SHIFT, id_tail(sub), ",".join(map(str, deals))])
            for pid, name, score, sub, deals in chunk])
        todo = [(pid, note, sub) for (pid, _n, _s, sub, _d), (changed, note) in zip(chunk, notes) if changed]
        wipes = pipelined(r, lambda pipe: [evalsha_on(pipe, board._all, all_keys,
                                                      board._all_args(pid, note, sub, True))
                                           for pid, note, sub in todo])
        pipelined(r, lambda pipe: [evalsha_on(pipe, board._periods, board._period_keys(b, day, w),
                                              board._period_args(pid, note, w))
                                   for (pid, note, _sub), (_c, w) in zip(todo, wipes)
                                   for b in periods])
        pipelined(r, lambda pipe: [evalsha_on(pipe, board._clear, [pending], [pid, note])
                                   for pid, note, _sub in todo])


def fill_board(client, day: date, size: int) -> None:
    """``day``'s board of ``size`` benchmark players (``bench-000000`` …), their scores drawn from a
    seeded stream (the same board every run)."""
    rng = random.Random(1)
    record_many(Leaderboard(client), day, ((f"bench-{i:06d}", f"bench-{i:06d}", 1000 + 10 * rng.randint(-70, 70),
                                            f"bench{i}") for i in range(size)))


def remove_players(board: Leaderboard, day: date, pids: list[str]) -> None:
    """Delete a day's boards and take ``pids`` off its week, month and all-time boards (a
    benchmark's clean-up; not for real scores, whose period sums it would not undo)."""
    r = board.r
    d, (w, m) = day_board(day), board._periods_of(day)
    wipes = r.get(WIPES) or "0"
    pipe = r.pipeline(transaction=False)
    # the day's sequence starts again: so must every board's bitmap of the day's changes carried
    day_keys = list(r.scan_iter(match=key_for("*", d.tag), count=1000))  # the board, its field
    for key in (board_key("carried", d.scope),
                *(board._period_keys(b, day, wipes)[2] for b in (w, m)), *day_keys):
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
