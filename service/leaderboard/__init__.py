"""Leaderboards in Redis sorted sets: the day's board of rank scores, and week (ISO), month and
all-time boards of summed margins (``score − 1000``) with the number of days played.

The days a player played in a week or a month are not stored: they are the days of the period
whose board holds the player, read with the page (one ZMSCORE a day of the period, in the page's
round trip).  Only the all-time board, whose days have no bound, counts them (``days:all``): a
count per player and week and month cost a new player 200 B for good (scripts/bench_memory.py).

Scores are stored as composites (see ``all_time_change.lua``) so that ``ZREVRANGE`` lists equal
scores earliest-verified first.  The rank shown is shared by equal scores (1, 2, 2, 4):
``1 + the number of entries with a strictly higher score``.

Each board has a hash tag of its own: a day's ``{boards:day:2026-12-02}`` (its entries, names,
histogram and sequence, and the field of its deals: ``service.duplicate``), a week's ``{boards:week:2026-W49}``, a month's ``{boards:month:2026-12}``;
closed periods' boards are kept for good, and at ten million players a day one slot holding them
all would grow by gigabytes a month.  The all-time board, its days played and the names that the
week's and month's boards show too share ``{boards}`` with the rebuild's flag, the epoch and the
count of wipes: they grow with the players, not with time.  A score is written in steps, each one
script in one slot (tests/service/test_svc_slots.py): the day's board (``day_change.lua``, which
notes the change as pending with its number in the day's sequence), the all-time board
(``all_time_change.lua``, once per number: a bit of the day's bitmap of changes carried; it also
turns records away while a rebuild runs), the week's and the month's (``period_change.lua``, once
per number each, in the same way, both in one round trip), then the note taken off
(``clear_pending.lua``).  A retry after a crash between the steps finds the note and carries the
same change, so a score is counted once on every board; a removal (ops) goes the same way.  A wipe
first raises the count of wipes and gives it to every week's and month's slot, then deletes the
boards; every change carries the count from its all-time step to the week's and month's, so a
change caught on the wrong side of a wipe is dropped there, and the rebuild records its game again
(``period_change.lua``).

A page is kept in this process with its board's version, read before the page in one round trip:
the epoch of wipes, the board's sequence and its size.  Every record raises the sequence, every
removal raises it or lowers the size, and the sequence never goes back within an epoch (a wipe,
which restarts it, raises the epoch): the same version is the same board, so a kept page checked
against the version is exactly what Redis holds.  It is answered without even that check for
``max_age`` seconds after the last one (``MANILLE_BOARD_MAX_AGE``, default 1; 0: always
checked): the round trip cost a hot page a third of its speed (scripts/bench_speed.py), and a
board a second old is no loss.
"""

from __future__ import annotations

import calendar
import json
import re
import time
from collections import OrderedDict
from dataclasses import dataclass
from collections.abc import Sequence
from datetime import date, timedelta

import redis

from service.errors import NotFound
from service.store import (evalsha_on, id_tail, key_for, load_script, month_id, pipelined, run_replicated,
                           run_replicated_each, week_id)

#: The hash tag of the all-time board's keys; a day's, week's or month's is ``boards:<scope>`` (see above).
BOARDS = "boards"
#: Every kind of key of the all-time board's slot (the scripts' KEYS): all derived data.
BOARD_KINDS = ("board", "names", "histogram", "seq", "days", "pending", "carried")
SHIFT = 2 ** 32  # every board: the tie-breaker is the board's own sequence (see all_time_change.lua)
BASE_SCORE = 1000
MAX_PAGE = 100
MAX_RADIUS = 50
MAX_DAYS = 90  # days of ``days_played`` in one request
#: Pages kept per process (the least recently read go first).
KEPT_PAGES = 512

WEEK_RE = re.compile(r"(2[0-9]{3}|[3-9][0-9]{3})-W([0-9]{2})")  # years of the service's days (2000 on)
MONTH_RE = re.compile(r"(2[0-9]{3}|[3-9][0-9]{3})-([0-9]{2})")


@dataclass(frozen=True)
class Board:
    kind: str  # day | week | month | all
    id: str    # 2026-12-02 | 2026-W49 | 2026-12 | all

    @property
    def scope(self) -> str:
        return "all" if self.kind == "all" else f"{self.kind}:{self.id}"

    @property
    def shift(self) -> int:
        return SHIFT

    @property
    def tag(self) -> str:
        """The hash tag of the board's keys: a day's, a week's or a month's board has one of its own
        (kept for good: their slots spread over the masters); the all-time board's is ``{boards}``."""
        return BOARDS if self.kind == "all" else f"{BOARDS}:{self.scope}"

    def key_of(self, kind: str, *parts: str) -> str:
        return key_for(kind, self.tag, self.scope, *parts)

    @property
    def key(self) -> str:
        return self.key_of("board")

    @property
    def names_key(self) -> str:
        """A day's board keeps each player's name of that day; the week, month and all-time boards
        show the latest, so they share the all-time board's (one entry a player, not three)."""
        return self.key_of("names") if self.kind == "day" else ALL_NAMES

    @property
    def days_key(self) -> str | None:
        """Days played are counted for the all-time board only (see above)."""
        return board_key("days", self.scope) if self.kind == "all" else None

    @property
    def days(self) -> list[date]:
        """The days of a week or a month, whose boards say who played which (none for the others)."""
        if self.kind == "week":
            year, week = self.id.split("-W")
            return [date.fromisocalendar(int(year), int(week), d) for d in range(1, 8)]
        if self.kind == "month":
            year, month = map(int, self.id.split("-"))
            return [date(year, month, d) for d in range(1, calendar.monthrange(year, month)[1] + 1)]
        return []

    @property
    def seq_key(self) -> str:
        return self.key_of("seq")

    # A day's field of each deal (service.duplicate reads it; day_change.lua writes it).
    @property
    def field_key(self) -> str:
        """The deals' histogram: ``<deal>:<points>`` -> counted games that took those card points."""
        return self.key_of("field")

    @property
    def games_key(self) -> str:
        """Each counted game by its number (the tie of its entry on the day's board): its player,
        its submission (the id without the day and the player's shard: ``store.id_tail``) and its
        card points a deal, ``<pid>|<sub>|51,22,33`` (``games_of``)."""
        return self.key_of("games")

    def deal_key(self, deal: int, points: int) -> str:
        """The counted games (their numbers: ``games_key``) that took ``points`` on ``deal``, in the
        order recorded."""
        return self.key_of("deal", str(deal), str(points))

    def value_of(self, composite: float) -> int:
        return int(composite) // self.shift


def shared_ranks(values: list[int], offset: int, above: int) -> list[int]:
    """The ranks of a page's entries, best first, whose values are ``values``: equal values share
    a rank (1, 2, 2, 4); ``offset``: the page's first position; ``above``: the entries above the
    page's first value."""
    ranks, rank = [], above + 1
    for i, value in enumerate(values):
        if i and value != values[i - 1]:
            rank = offset + i + 1
        ranks.append(rank)
    return ranks


def board_key(kind: str, *parts: str) -> str:
    """``manille:{boards}:<kind>[:<part>…]``: a key of the all-time board's slot."""
    return key_for(kind, BOARDS, *parts)


ALL_NAMES = board_key("names", "all")


def day_board(day: date) -> Board:
    return Board("day", day.isoformat())


def week_board(text: str) -> Board:
    m = WEEK_RE.fullmatch(text or "")
    if not m or not 1 <= int(m.group(2)) <= 53:
        raise NotFound(f"not an ISO week (YYYY-Www): {text!r}", code="unknown_period")
    try:
        date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
    except ValueError:
        raise NotFound(f"no such ISO week: {text!r}", code="unknown_period") from None
    return Board("week", text)


def month_board(text: str) -> Board:
    m = MONTH_RE.fullmatch(text or "")
    if not m or not 1 <= int(m.group(2)) <= 12:
        raise NotFound(f"not a month (YYYY-MM): {text!r}", code="unknown_period")
    return Board("month", text)


ALL_TIME = Board("all", "all")
REBUILD_FLAG = board_key("rebuilding")
DEFERRED = board_key("deferred")
#: Raised by every wipe of boards, after it: their sequences start again from nothing (a board
#: page kept in a process must not match again; the benchmarks' clean-up raises it too).
EPOCH = board_key("epoch")
#: Wipes of the boards (raised after each, as EPOCH): the week's and month's steps of a change
#: carry it, so that one begun before a wipe does not land after it (``period_change.lua``).
WIPES = board_key("wipes")


class BoardsRebuilding(Exception):
    """The boards are being rebuilt: the score was not recorded now; the rebuild will record it."""


class Leaderboard:
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

    # -- writing -------------------------------------------------------------

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

    # -- rebuilding ----------------------------------------------------------

    def begin_rebuild(self, ttl: int) -> bool:
        """Raise the rebuild flag (False if a rebuild already holds it); it lapses after ``ttl`` s
        unless kept up, so a rebuild that died does not stop the boards for ever."""
        return bool(self.r.set(REBUILD_FLAG, "1", nx=True, ex=ttl))

    def keep_rebuilding(self, ttl: int) -> None:
        self.r.expire(REBUILD_FLAG, ttl)

    def take_deferred(self, count: int = 1000) -> list[str]:
        """Submission ids whose scores were turned away during the rebuild (removed as taken)."""
        return self.r.spop(DEFERRED, count) or []

    def end_rebuild(self) -> bool:
        """Lower the flag, but only if nothing is deferred: the check and the lowering are one
        transaction (a deferral in between aborts it, and the caller drains again)."""
        with self.r.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(DEFERRED)
                if pipe.scard(DEFERRED):
                    return False
                pipe.multi()
                pipe.delete(REBUILD_FLAG)  # a string: DEL is as quick as UNLINK
                pipe.execute()
                return True
            except redis.WatchError:
                return False

    def wipe(self) -> int:
        """Delete every board of every period (the first step of a rebuild from the stored
        submissions); returns how many keys went.
        UNLINK: a board of a million entries is freed by Redis in the background, not while every
        other client waits."""
        # First the count of wipes, raised, and every week's and month's slot told it (kept, not
        # deleted): from there on a period step begun before the wipe is dropped, and one that
        # landed before is deleted below with the board it wrote (period_change.lua).
        wipes = self.r.incr(WIPES)
        counts = set(self.r.scan_iter(match=key_for("wipes", f"{BOARDS}:*", "*"), count=1000))
        for key in counts:
            self.r.set(key, wipes)
        deleted = 0
        patterns = [board_key(kind) + ":*" for kind in BOARD_KINDS]
        patterns.append(key_for("*", f"{BOARDS}:*"))  # a day's, week's or month's board, each in its own slot
        for pattern in patterns:
            batch = []
            for key in self.r.scan_iter(match=pattern, count=1000):
                if key in counts:
                    continue
                batch.append(key)
                if len(batch) == 1000:
                    deleted += self.r.unlink(*batch)
                    batch = []
            if batch:
                deleted += self.r.unlink(*batch)
        self.r.incr(EPOCH)  # after: a page read in the middle is kept under the old epoch
        return deleted

    # -- reading -------------------------------------------------------------

    def games_of(self, day: date, pids: list[str]) -> list[str | None]:
        """The counted games of ``pids`` on ``day`` (``<sub>|51,22,33``: the submission's id
        without its day and the player's shard, the card points a deal), None for a player whose
        game is not counted."""
        if not pids:
            return []
        d = day_board(day)
        return self._games(keys=[d.key, d.games_key], args=[SHIFT, *pids])


    def total(self, board: Board) -> int:
        return self.r.zcard(board.key)

    def _rank_of_value(self, board: Board, value: int) -> int:
        return 1 + self.r.zcount(board.key, (value + 1) * board.shift, "+inf")

    def page(self, board: Board, offset: int = 0, limit: int = 20, *, cap: int = MAX_PAGE) -> dict:
        """Entries ``offset`` … ``offset + limit − 1`` in board order, with shared ranks; ``limit``
        is cut to ``cap``.  The very page kept from an earlier call while the board is unchanged:
        read it, never change it (its identity says it is unchanged: the API keeps its JSON)."""
        limit = max(1, min(limit, cap))
        offset = max(0, offset)
        at, key = time.monotonic(), (board.key, offset, limit)
        kept = self._pages.get(key)
        if kept is not None and at - kept[2] < self.max_age:
            return kept[1]
        pipe = self.r.pipeline(transaction=False)
        pipe.get(EPOCH)
        pipe.get(board.seq_key)
        pipe.zcard(board.key)
        version = tuple(pipe.execute())
        if kept is not None and kept[0] == version:
            page = kept[1]
        else:  # read after the version: the page is at least as new as the version it is kept with
            items = self.r.zrevrange(board.key, offset, offset + limit - 1, withscores=True)
            page = {"total": version[2], "offset": offset, "limit": limit,
                    "entries": self._entries(board, items, offset)}
        self._pages[key] = (version, page, at)
        self._pages.move_to_end(key)
        if len(self._pages) > KEPT_PAGES:
            self._pages.popitem(last=False)
        return page

    def _entries(self, board: Board, items, offset: int) -> list[dict]:
        if not items:
            return []
        pids = [p for p, _ in items]
        pipe = self.r.pipeline(transaction=False)
        pipe.hmget(board.names_key, pids)
        if board.days_key:
            pipe.hmget(board.days_key, pids)
        for d in board.days:
            pipe.zmscore(day_board(d).key, pids)
        pipe.zcount(board.key, (board.value_of(items[0][1]) + 1) * board.shift, "+inf")
        res = pipe.execute()
        names, above = res[0], res[-1]
        if board.days_key:
            days = res[1]
        elif board.days:  # the days of the period whose board holds each player
            days = [sum(on[i] is not None for on in res[1:-1]) for i in range(len(pids))]
        values = [board.value_of(composite) for _pid, composite in items]
        out = []
        for i, ((pid, _composite), value, rank) in enumerate(zip(items, values, shared_ranks(values, offset, above))):
            entry = {"rank": rank, "player": pid, "nickname": names[i] or ""}
            if board.kind == "day":
                entry["score"] = value
            else:
                entry["margin"] = value
                entry["days"] = int(days[i] or 0)
            out.append(entry)
        return out

    def entries_of(self, board: Board, pids: Sequence[str]) -> dict:
        """The entries of ``pids`` on ``board`` (a league's members), in one round trip whatever
        their number: ``{"total": the board's size, "entries": {pid: {"composite", "value",
        "public_rank"[, "days"]}}}`` for those on it.  The board's slot only (one script), and for a
        week's or a month's days played the day boards a page reads too, in the same round trip."""
        pids = list(pids)

        def queue(pipe):
            evalsha_on(pipe, self._entries_of, [board.key], [board.shift, *pids])
            if pids and board.days_key:
                pipe.hmget(board.days_key, pids)
            for d in board.days if pids else ():
                pipe.zmscore(day_board(d).key, pids)
        res = pipelined(self.r, queue, [self._entries_of])
        (total, found), rest = res[0], res[1:]
        out = {}
        for i, (pid, text) in enumerate(zip(pids, found.split(","))):
            if not text:
                continue
            composite, rank = text.split(" ")
            composite = float(composite)
            entry = {"composite": composite, "value": board.value_of(composite), "public_rank": int(rank)}
            if board.days_key:
                entry["days"] = int(rest[0][i] or 0)
            elif board.days:
                entry["days"] = sum(on[i] is not None for on in rest)
            out[pid] = entry
        return {"total": int(total), "entries": out}

    def rank_of(self, board: Board, pid: str) -> dict | None:
        """The player's entry (rank, score …) or None if not on the board."""
        composite = self.r.zscore(board.key, pid)
        if composite is None:
            return None
        pos = self.r.zrevrank(board.key, pid)
        return self._entries(board, [(pid, composite)], pos)[0] | {"position": pos + 1}

    def around(self, board: Board, pid: str, radius: int = 5) -> dict:
        """The player's entry with up to ``radius`` (at most MAX_RADIUS) entries on each side;
        NotFound ``not_on_board`` if the player has none."""
        radius = max(0, min(radius, MAX_RADIUS))
        for _attempt in range(5):
            pos = self.r.zrevrank(board.key, pid)
            if pos is None:
                break
            start = max(0, pos - radius)
            page = dict(self.page(board, start, pos - start + radius + 1, cap=2 * MAX_RADIUS + 1))
            me = next((e for e in page["entries"] if e["player"] == pid), None)
            if me is not None:
                page["me"] = me
                return page
            # the board moved between the two reads (scores landing): look again
        raise NotFound("this player has no entry on this board", code="not_on_board")

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

    def days_played(self, days: list[date], pid: str | None = None) -> list[dict]:
        """For each of ``days``: ``players``, how many its board holds, and with ``pid`` also
        ``me``, the player's ``{"rank", "score"}`` there or None.  One round trip, and one more
        for the ranks of the days the player has a score on."""
        boards = [day_board(d) for d in days]

        def sizes_and_scores(pipe):
            for b in boards:
                pipe.zcard(b.key)
                if pid:
                    pipe.zscore(b.key, pid)
        replies = pipelined(self.r, sizes_and_scores) if boards else []
        step = 2 if pid else 1
        out = [{"date": d.isoformat(), "players": int(n)} for d, n in zip(days, replies[::step])]
        if not pid:
            return out
        scored = [(i, c) for i, c in enumerate(replies[1::2]) if c is not None]
        above = pipelined(self.r, lambda pipe: [pipe.zcount(boards[i].key, (boards[i].value_of(c) + 1) * SHIFT, "+inf")
                                                for i, c in scored]) if scored else []
        for row in out:
            row["me"] = None
        for (i, c), n in zip(scored, above):
            out[i]["me"] = {"rank": n + 1, "score": boards[i].value_of(c)}
        return out

    def histogram(self, day: date) -> list[dict]:
        raw = self.r.hgetall(day_board(day).key_of("histogram"))
        return [{"score": int(s), "count": int(c)} for s, c in sorted(raw.items(), key=lambda kv: int(kv[0]))]
