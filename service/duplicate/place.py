"""A verified game on its day's matchpoint board at once: its own matchpoints against the field
so far (provisional, as its result shows them), placed among the entries of the board's last
build.  The others' entries move only with the next build (``Matchpoints.build_day``, at most
every ``MANILLE_MATCHPOINTS_SECONDS``), which computes every game's again; until then the board
says how many games were placed since it was built (``placed``)."""

from __future__ import annotations

from datetime import date

from service.leaderboard import SHIFT, day_board
from service.store import load_script

from .field import Field
from .matchpoints import SCALE, _meta_key, _mp_key


def place(client, day: date, pid: str, points: list[int]) -> bool:
    """Put the player's verified game of ``day`` (``points``: its card points deal by deal) on the
    day's matchpoint board by its matchpoints against the field as it is; nothing for a game no
    longer on the day's board (held, disqualified meanwhile) or alone on every deal.  True if
    placed."""
    mp = Field(client).of_game(day, points, counted=True)["mp"]
    if mp is None:
        return False
    d = day_board(day)
    script = load_script(client, __file__, "place.lua")
    return bool(script(keys=[d.key, _mp_key(d), _meta_key(d)], args=[pid, round(mp * SCALE), SHIFT]))
