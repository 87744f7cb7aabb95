"""Ratings: every player's Glicko-2 rating from the days' duplicate results (``glicko``).

A rating is derived data, like the boards.  Once a day has closed and its matchpoint board is
final (``service.duplicate``), every player on that board (a verified game, compared with the
field on at least one deal; a held or disqualified game is on no board) gets the day's record:
the rating after the day, its deviation and volatility, and the day's matchpoints.  Days are rated
in order, each once: ``through`` names the last day rated, written after the day's records, and a
record already written for the day is recognised by its date, so a retry after a crash counts
nothing twice.  A disqualification or a restore asks for a rebuild from its day (``dirty``): the
next run cuts every history back to the day before and rates every later day again.

Each player's history is one string of fixed 10-byte records (``RECORD``: day, value × 10,
deviation × 10, volatility × 10^5, matchpoints × 100), one added each day played, a field of one
of ``HISTORY_BUCKETS`` hashes: its last record is the player's rating, its length the days
played.  The rating board holds the players whose deviation after their last day is at most
``BOARD_DEVIATION`` and who played within ``BOARD_DAYS`` days of the last day rated, by their
rating.
"""

from __future__ import annotations

import logging
import zlib
from collections import OrderedDict
from datetime import date, timedelta

from rq import Queue

from service.duplicate import QUEUE, Matchpoints, request_build
from service.leaderboard import ALL_NAMES, day_board, shared_ranks
from service.store import evalsha_on, key_for, load_script, pipelined, raw_client

from .day import EPOCH, RECORD, DayRecord, rate_field, records
from .glicko import INITIAL_DEVIATION, Rating, widened

JOB = "worker.jobs.rate_days"
#: A rating whose deviation is above this is provisional (lichess: 110).
PROVISIONAL_DEVIATION = 110
#: The rating board's cut: a deviation after the last day played at most this (lichess: 75) ...
BOARD_DEVIATION = 75
#: ... and a day played within this many days of the last day rated.
BOARD_DAYS = 30
MAX_PAGE = 100
#: Players read or written per round trip.
CHUNK = 10_000
#: The board's composite: value × DAY_SHIFT + the last day played (later first on a tie).
DAY_SHIFT = 2 ** 16
#: Players' histories are kept in this many hashes (by CRC32 of the pid), each in a slot of its own.
HISTORY_BUCKETS = 4096
#: The first run looks this many days back for the first day played.
FIRST_LOOKBACK = 366
#: A run holds the lock this long at most (a crashed one's is free again after it).
LOCK_SECONDS = 1800

THROUGH = key_for("ratings", "ratings", "through")
DIRTY = key_for("ratings", "ratings", "dirty")
BOARD = key_for("ratings", "ratings", "board")
LOCK = key_for("ratings", "ratings", "lock")
#: Raised whenever a rating changes (a day rated, a rebuild's cut): the pages a process kept of the
#: board are read again.
VERSION = key_for("ratings", "ratings", "version")
#: Pages of the rating board kept per process (the least recently read go first).
KEPT_PAGES = 256

log = logging.getLogger("service.ratings")


def history_key(pid: str) -> str:
    """The bucket of histories that holds a player's (a field named by the pid): a hash field costs
    a player a third of what a key of their own would (docs/performance.md, "Ratings")."""
    return bucket_key(zlib.crc32(pid.encode()) % HISTORY_BUCKETS)


def bucket_key(bucket: int) -> str:
    return key_for("ratings", f"ratings:{bucket:04d}", "history")


def _by_bucket(pids) -> dict[str, list[str]]:
    """``pids`` grouped by their bucket of histories (in the order given within each)."""
    out: dict[str, list[str]] = {}
    for pid in pids:
        out.setdefault(history_key(pid), []).append(pid)
    return out


def request(settings, client, day: date, *, queue=None) -> None:
    """Queue a run of the ratings up to ``day`` (its matchpoint board just became final) on the
    boards' queue, after the build that made it final."""
    connection = queue if queue is not None else settings.queue_connection(client)
    Queue(QUEUE, connection=connection).enqueue_call(
        JOB, args=(day.isoformat(),), result_ttl=0, failure_ttl=86400, description=f"ratings {day}")


class Ratings:
    def __init__(self, client) -> None:
        self.r = client
        self.raw = raw_client(client)
        self._append = load_script(self.raw, __file__, "append_day.lua")
        self._tails = load_script(self.raw, __file__, "tails.lua")
        self._pages: OrderedDict[tuple, dict] = OrderedDict()

    # -- rating the days -----------------------------------------------------------------

    def request_rebuild(self, day: date) -> None:
        """A counted game of ``day`` changed (ops): every rating from ``day`` on is computed again
        at the next run (the earliest day asked for wins)."""
        current = self.r.get(DIRTY)
        if current is None or int(current) > day.toordinal():
            self.r.set(DIRTY, str(day.toordinal()))

    def through(self) -> date | None:
        """The last day rated, or None before the first."""
        raw = self.r.get(THROUGH)
        return date.fromordinal(int(raw)) if raw else None

    def catch_up(self, settings, upto: date, *, start: date | None = None, queue=None) -> list[date]:
        """Rate every closed day not rated yet whose matchpoint board is final (after a rebuild asked
        for, from its day), in order, each once; a closed day whose board is not final yet has its
        build asked for, and the run stops there (that build asks for the next run).  ``upto``: a
        day just built final; ``start``: the first day when none was ever rated (default: the
        first day played, ``_first_day``).  The days rated; none if another run holds the lock
        (it rates the same days)."""
        if not self.r.set(LOCK, "1", nx=True, ex=LOCK_SECONDS):
            return []  # another run is at it; the days it rates are the same
        try:
            dirty = self.r.get(DIRTY)
            if dirty is not None:
                self._cut(date.fromordinal(int(dirty)))
                if self.r.get(DIRTY) == dirty:  # an earlier day asked for meanwhile is cut next run
                    self.r.delete(DIRTY)
            through = self.through()
            day = through + timedelta(days=1) if through else (start or self._first_day(upto))
            mp, now, rated = Matchpoints(self.r), settings.now(), []
            while settings.clock.phase(day, now) == "closed":
                if not mp.meta(day_board(day))["final"] or mp.stale(day, True):
                    request_build(settings, self.r, day, force=True, queue=queue)
                    break
                self.rate_day(day)
                rated.append(day)
                day += timedelta(days=1)
            return rated
        finally:
            self.r.delete(LOCK)

    def _first_day(self, upto: date) -> date:
        """Where the first run starts: the earliest day with a counted game within ``FIRST_LOOKBACK``
        days before ``upto`` (days closed while no worker ran, or built final out of order, are
        rated too), else ``upto``."""
        days = [upto - timedelta(days=back) for back in range(FIRST_LOOKBACK, -1, -1)]
        sizes = pipelined(self.r, lambda pipe: [pipe.zcard(day_board(d).key) for d in days])
        return next((d for d, n in zip(days, sizes) if n), upto)

    def rebuild(self, settings, start: date, upto: date, *, queue=None) -> list[date]:
        """``manille ratings rebuild --from``: every rating from ``start`` on computed again (every
        closed day since whose board is final, as ``catch_up``; ``upto``: where a first run ends
        its look for the first day played)."""
        self.request_rebuild(start)
        if self.through() is None:
            return self.catch_up(settings, upto, start=start, queue=queue)
        return self.catch_up(settings, upto, queue=queue)

    def rate_day(self, day: date) -> int:
        """Give every player on ``day``'s final matchpoint board the day's record, from the rating
        before it, against the day's field; a player whose record of ``day`` is written already
        (a retry) keeps it.  Then ``through`` is ``day``.  How many players were rated."""
        players = self._day_results(day)
        pids = sorted(players)
        priors: dict[str, DayRecord | None] = {}
        done: set[str] = set()
        for start in range(0, len(pids), CHUNK):
            chunk = pids[start:start + CHUNK]
            for pid, (tail, _length) in self._tails_of(chunk, 2 * RECORD.size).items():
                recs = records(tail)
                if recs and recs[-1].day == day:  # written by a run that died before ``through``
                    done.add(pid)
                    recs = recs[:-1]
                priors[pid] = recs[-1] if recs else None
        after = rate_field(day, players, priors)
        cutoff = (day - EPOCH).days - BOARD_DAYS
        for start in range(0, len(pids), CHUNK):
            chunk = pids[start:start + CHUNK]
            todo = [p for p in chunk if p not in done]
            number = (day - EPOCH).days
            pipelined(self.raw, lambda pipe: [
                evalsha_on(pipe, self._append, [key], [number, *(x for p in group for x in (p, after[p].pack()))])
                for key, group in _by_bucket(todo).items()], [self._append])
            on_board = {p: _composite(after[p]) for p in chunk if after[p].rating.deviation <= BOARD_DEVIATION}
            off_board = [p for p in chunk if p not in on_board]
            with self.r.pipeline(transaction=False) as pipe:
                if on_board:
                    pipe.zadd(BOARD, on_board)
                if off_board:
                    pipe.zrem(BOARD, *off_board)
                pipe.execute()
        self._sweep(cutoff)
        with self.r.pipeline(transaction=True) as pipe:
            pipe.set(THROUGH, str(day.toordinal()))
            pipe.incr(VERSION)
            pipe.execute()
        log.info("ratings %s: %d players", day, len(pids))
        return len(pids)

    def _tails_of(self, pids: list[str], size: int) -> dict[str, tuple[bytes, int]]:
        """Each pid's last ``size`` bytes of history and its length, a script call a bucket."""
        groups = _by_bucket(pids)
        replies = pipelined(self.raw, lambda pipe: [evalsha_on(pipe, self._tails, [key], [size, *group])
                                                    for key, group in groups.items()], [self._tails])
        out = {}
        for group, got in zip(groups.values(), replies):
            for j, pid in enumerate(group):
                out[pid] = (got[2 * j] or b"", int(got[2 * j + 1]))
        return out

    def _day_results(self, day: date) -> dict[str, float]:
        """Each player of ``day``'s matchpoint board: the day's matchpoints."""
        mp, board = Matchpoints(self.r), day_board(day)
        key, out = board.key_of("mp"), {}
        for start in range(0, self.r.zcard(key), CHUNK):
            for pid, composite in self.r.zrange(key, start, start + CHUNK - 1, withscores=True):
                out[pid] = mp.value_of(board, composite)
        return out

    def _sweep(self, cutoff: int) -> None:
        """Take off the rating board whoever last played before day ``cutoff`` (days since EPOCH)."""
        gone = []
        for start in range(0, self.r.zcard(BOARD), CHUNK):
            for pid, composite in self.r.zrange(BOARD, start, start + CHUNK - 1, withscores=True):
                if int(composite) % DAY_SHIFT < cutoff:
                    gone.append(pid)
        for start in range(0, len(gone), CHUNK):
            self.r.zrem(BOARD, *gone[start:start + CHUNK])

    def _cut(self, start: date) -> None:
        """Every history cut back to the days before ``start``; ``through`` the day before (none if
        nothing is left), the board as the histories say on that day."""
        first = (start - EPOCH).days
        board: dict[str, float] = {}
        for bucket in range(HISTORY_BUCKETS):
            key = bucket_key(bucket)
            for raw_pid, raw in self.raw.hgetall(key).items():
                keep = [rec for rec in records(raw) if (rec.day - EPOCH).days < first]
                if len(keep) * RECORD.size != len(raw):
                    if keep:
                        self.raw.hset(key, raw_pid, b"".join(rec.pack() for rec in keep))
                    else:
                        self.raw.hdel(key, raw_pid)
                if keep and keep[-1].rating.deviation <= BOARD_DEVIATION:
                    board[raw_pid.decode()] = _composite(keep[-1])
        with self.r.pipeline(transaction=True) as pipe:
            pipe.delete(BOARD)
            if board:
                pipe.zadd(BOARD, board)
            pipe.execute()
        previous = start - timedelta(days=1)
        through = self.through()
        if through is not None and through >= start:
            self.r.set(THROUGH, str(previous.toordinal()))
        self._sweep((previous - EPOCH).days - BOARD_DAYS)
        self.r.incr(VERSION)

    # -- reading -------------------------------------------------------------------------

    def history(self, pid: str) -> list[DayRecord]:
        return records(self.raw.hget(history_key(pid), pid))

    def current(self, last: DayRecord, through: date | None) -> Rating:
        """The rating now: the last day's, its deviation widened by the days rated since."""
        return widened(last.rating, ((through or last.day) - last.day).days)

    def player(self, pid: str) -> dict | None:
        """A player's rating now (``value``, ``deviation``, ``games``: days rated, ``provisional``)
        and history, or None for a player never rated."""
        recs = self.history(pid)
        if not recs:
            return None
        now = self.current(recs[-1], self.through())
        history, previous = [], None
        for rec in recs:
            history.append({"date": rec.day.isoformat(), "value": round(rec.rating.value),
                            "deviation": round(rec.rating.deviation), "mp": round(rec.mp, 2),
                            "change": None if previous is None else round(rec.rating.value) - round(previous)})
            previous = rec.rating.value
        best = sorted(history, key=lambda h: (-h["mp"], h["date"]))[:3]
        return {"rating": _shown(now, len(recs)), "history": history, "days_played": len(recs),
                "best_days": [{"date": h["date"], "mp": h["mp"], "value": h["value"]} for h in best]}

    @staticmethod
    def unrated() -> dict:
        """What ``player`` shows of a player with no day rated yet: Glicko-2's first rating."""
        return {"rating": _shown(Rating(), 0), "history": [], "days_played": 0, "best_days": []}

    def page(self, offset: int = 0, limit: int = 20) -> dict:
        """The rating board, best first, ``limit`` from ``offset``, equal values sharing a rank; a
        page this process read since the board last changed is answered again (one read: the
        board's version), as a day's board page is."""
        limit, offset = max(1, min(limit, MAX_PAGE)), max(0, offset)
        version = self.r.get(VERSION) or "0"
        key = (version, offset, limit)
        kept = self._pages.get(key)
        if kept is None:
            kept = self._pages[key] = self._page(offset, limit)
            while len(self._pages) > KEPT_PAGES:
                self._pages.popitem(last=False)
        self._pages.move_to_end(key)
        return kept

    def _page(self, offset: int, limit: int) -> dict:
        items, total, through = pipelined(self.r, lambda pipe: [
            pipe.zrevrange(BOARD, offset, offset + limit - 1, withscores=True), pipe.zcard(BOARD), pipe.get(THROUGH)])
        through = date.fromordinal(int(through)) if through else None
        return {"total": total, "offset": offset, "limit": limit, "through": through.isoformat() if through else None,
                "entries": self._entries(items, offset, through)}

    def entries_of(self, pids: list[str]) -> list[dict]:
        """The ratings of ``pids`` (a league's members) that have one, best first, ranked among them."""
        rows = [e for e in self._read(pids, self.through())[0] if e is not None]
        rows.sort(key=lambda e: (-e["value"], e["nickname"], e["player"]))
        for e, rank in zip(rows, shared_ranks([e["value"] for e in rows], 0, 0)):
            e["rank"] = rank
        return rows

    def _read(self, pids: list[str], through: date | None, above_value: int | None = None):
        """Each pid's rating now with its nickname (None for a pid never rated), in one round trip;
        with ``above_value``, also how many board entries have a higher value."""
        def queue(pipe):
            for key, group in _by_bucket(pids).items():
                pipe.hmget(key, group)
            pipe.hmget(ALL_NAMES, pids) if pids else pipe.echo(b"")
            if above_value is not None:
                pipe.zcount(BOARD, (above_value + 1) * DAY_SHIFT, "+inf")
        replies = pipelined(self.raw, queue)
        groups = _by_bucket(pids)
        histories = {p: h for group, got in zip(groups.values(), replies) for p, h in zip(group, got)}
        names = replies[len(groups)] or []
        out = []
        for i, pid in enumerate(pids):
            history = histories.get(pid) or b""
            tail, length = history[-RECORD.size:], len(history)
            if not tail:
                out.append(None)
                continue
            name = names[i].decode() if names[i] else ""
            out.append({"player": pid, "nickname": name,
                        **_shown(self.current(DayRecord.unpack(tail), through), length // RECORD.size)})
        return out, (replies[-1] if above_value is not None else 0)

    def _entries(self, items, offset: int, through: date | None) -> list[dict]:
        if not items:
            return []
        pids = [p for p, _ in items]
        values = [int(c) // DAY_SHIFT for _p, c in items]
        rows, above = self._read(pids, through, values[0])
        return [{"rank": rank, **row} for row, rank in zip(rows, shared_ranks(values, offset, above)) if row]


def _composite(rec: DayRecord) -> int:
    return round(rec.rating.value) * DAY_SHIFT + (rec.day - EPOCH).days


def _shown(rating: Rating, games: int) -> dict:
    return {"value": round(rating.value), "deviation": round(rating.deviation), "games": games,
            "provisional": rating.deviation > PROVISIONAL_DEVIATION}


__all__ = ["BOARD", "BOARD_DAYS", "BOARD_DEVIATION", "DIRTY", "INITIAL_DEVIATION", "JOB", "PROVISIONAL_DEVIATION",
           "RECORD", "THROUGH", "DayRecord", "Ratings", "history_key", "records", "request"]
