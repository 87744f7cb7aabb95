"""Where each board lives: its keys, their hash tags, and the board named by a day, a week or a month.

Each board has a hash tag of its own: a day's ``{boards:day:2026-12-02}`` (its entries, names,
histogram and sequence, and the field of its deals: ``service.duplicate``), a week's
``{boards:week:2026-W49}``, a month's ``{boards:month:2026-12}``; closed periods' boards are kept
for good, and at ten million players a day one slot holding them all would grow by gigabytes a
month.  The all-time board, its days played and the names that the week's and month's boards show
too share ``{boards}`` with the rebuild's flag, the epoch and the count of wipes: they grow with
the players, not with time.

Scores are stored as composites (see ``all_time_change.lua``) so that ``ZREVRANGE`` lists equal
scores earliest-verified first: the value times ``SHIFT`` plus a tie-breaker from the board's
own sequence.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

from service.errors import NotFound
from service.store import key_for

#: The hash tag of the all-time board's keys; a day's, week's or month's is ``boards:<scope>``.
BOARDS = "boards"
#: Every kind of key of the all-time board's slot (the scripts' KEYS): all derived data.
BOARD_KINDS = ("board", "names", "histogram", "seq", "days", "pending", "carried")
SHIFT = 2 ** 32  # every board: the tie-breaker is the board's own sequence (see all_time_change.lua)
BASE_SCORE = 1000

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

