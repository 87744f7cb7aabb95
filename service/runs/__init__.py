"""Runs: one player's game on one day, driven by the server one card at a time.

Stored in a Redis hash per run (``manille:{day:D}:run:<id>``): the day, whether it is ranked,
the bot id, the player's cards (append-only), every card at the table (see ``table``), the
time of each play, the client's address and user agent.  Nothing is kept in memory between
requests: each request rebuilds the game from the seed and the stored plays.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from datetime import date, datetime

from bots import get_bot
from service.challenges import Challenges
from service.config import Settings
from service.errors import Conflict, NotFound, Unprocessable
from service.replay import Card, GameOverError, IllegalPlayError, InvalidCardError
from service.store import day_of_id, day_scope, key_for, load_script

from . import table as tbl

RUN_ID_RE = re.compile(r"(\d{8})-[A-Za-z0-9_-]{16}")


def run_day(run_id: str) -> date | None:
    return day_of_id(RUN_ID_RE, run_id)


@dataclass
class PlayResult:
    run: dict
    table: tbl.Table


class Runs:
    def __init__(self, client, settings: Settings) -> None:
        self.r = client
        self.settings = settings
        self.challenges = Challenges(client, settings)
        self._open = load_script(client, __file__, "open_run.lua")
        self._play = load_script(client, __file__, "play.lua")

    @staticmethod
    def key(run_id: str) -> str:
        return key_for("run", day_scope(run_day(run_id)), run_id)

    @staticmethod
    def ranked_key(day: date, pid: str) -> str:
        return key_for("ranked", day_scope(day), pid)

    # -- opening -------------------------------------------------------------

    def open(self, day: date, pid: str, *, ip: str = "", user_agent: str = "",
             now: datetime | None = None) -> tuple[dict, tbl.Table]:
        """Open a run on ``day``: ranked while the day is open, practice once its seed is public."""
        now = now or self.settings.now()
        phase = self.settings.clock.phase(day, now)
        if phase == "upcoming":
            raise NotFound(f"no challenge for {day.isoformat()} yet", code="unknown_date")
        if phase == "closing":
            reveal = self.settings.clock.reveals_at(day).isoformat()
            raise Conflict(f"the day {day.isoformat()} has closed; its seed is published at {reveal}",
                           code="day_closed", reveal_at=reveal)
        ranked = phase == "open"
        challenge = self.challenges.get(day, create=True, now=now)
        run_id = f"{day:%Y%m%d}-{secrets.token_urlsafe(12)}"
        seed = self.settings.seed(day)
        table = tbl.replay(seed, [], deal_start=True)
        plays = tbl.bots_until_player(table, get_bot(challenge.bots))
        run = {
            "id": run_id, "pid": pid, "date": day.isoformat(), "ranked": "1" if ranked else "0",
            "rules": challenge.rules, "bots": challenge.bots, "status": "playing",
            "cards": "", "plays": tbl.format_plays(plays), "times": "",
            "created_at": now.isoformat(), "finished_at": "", "submission": "",
            "ip": ip[:64], "user_agent": user_agent[:256],
        }
        args = ["1" if ranked else "0", run_id]
        for k, v in run.items():
            args += [k, v]
        created, existing = self._open(keys=[self.key(run_id), self.ranked_key(day, pid)], args=args)
        if not created:
            raise Conflict(f"this player already has a ranked run on {day.isoformat()}",
                           code="already_played", run_id=existing)
        return run, table

    # -- reading -------------------------------------------------------------

    def load(self, run_id: str, pid: str) -> dict:
        """The run, if it exists and belongs to ``pid``; else NotFound ``run_not_found`` (a foreign
        run is answered exactly like a missing one)."""
        run = self.r.hgetall(self.key(run_id)) if run_day(run_id) else None
        if not run or not secrets.compare_digest(run.get("pid", ""), pid):
            raise NotFound("no such run for this player", code="run_not_found")
        return run

    def rebuild(self, run: dict, *, events_from: int | None = None) -> tbl.Table:
        seed = self.settings.seed(date.fromisoformat(run["date"]))
        return tbl.replay(seed, tbl.parse_plays(run["plays"]), events_from=events_from)

    # -- playing -------------------------------------------------------------

    def play(self, run_id: str, pid: str, turn: int, card_text: str,
             now: datetime | None = None) -> PlayResult:
        """Play seat 0's card number ``turn`` (0-based) and let the bots answer.

        The same card asked again for the turn just played is answered again, not played twice.
        """
        now = now or self.settings.now()
        for _attempt in range(3):
            run = self.load(run_id, pid)
            try:
                card = Card.parse(card_text)
            except InvalidCardError:
                raise Unprocessable(f"not a card: {card_text[:16]!r}", code="unknown_card") from None
            played = len(run["cards"]) // 2
            if turn == played - 1 and run["cards"][-2:] == str(card):
                return self._replayed(run, turn)
            if run["status"] == "finished":
                raise Conflict("the game of this run is over", code="run_finished")
            if turn != played:
                raise Conflict(f"turn {turn} is not the turn to play; expected {played}",
                               code="wrong_turn", expected_turn=played)
            day = date.fromisoformat(run["date"])
            if run["ranked"] == "1" and now >= self.settings.clock.reveals_at(day):
                raise Conflict("this ranked run was not finished before its day's seed was published",
                               code="day_closed", reveal_at=self.settings.clock.reveals_at(day).isoformat())
            table = self.rebuild(run)
            state = table.state
            table.events = []
            try:
                tbl.step(state, card, table.events, checked=True)
            except IllegalPlayError as e:
                raise Unprocessable(str(e), code="illegal_card", card=str(card),
                                    obligation=e.obligation.value,
                                    legal=[str(c) for c in e.legal]) from None
            except GameOverError:  # pragma: no cover - status says finished first
                raise Conflict("the game of this run is over", code="run_finished") from None
            bots = tbl.bots_until_player(table, get_bot(run["bots"]))
            new_plays = run["plays"] + str(card) + tbl.format_plays(bots)
            new_cards = run["cards"] + str(card)
            over = state.is_over
            ok = self._play(keys=[self.key(run_id)], args=[
                len(run["plays"]), new_plays, new_cards, int(time.time() * 1000),
                "1" if over else "0", now.isoformat() if over else ""])
            if ok:
                run.update(plays=new_plays, cards=new_cards)
                if over:
                    run.update(status="finished", finished_at=now.isoformat())
                return PlayResult(run, table)
            # somebody else appended in between: look again (it may be this very play, retried)
        raise Conflict("the run changed while playing; try again", code="wrong_turn")

    def _replayed(self, run: dict, turn: int) -> PlayResult:
        """The answer to the play of ``turn`` again: the events from that card on, as first sent."""
        table = self.rebuild(run, events_from=0)
        table.events = table.events[table.event_at[table.player_positions[turn]]:]
        return PlayResult(run, table)
