"""``manille play``: a line protocol that lets an outside program hold seats (docs/protocol.md).

The engine plays the other seats with a bot.  For each seat held from outside, at each of its
turns, it writes the seat's observation as one JSON line and reads one line back: the card.
A seat held from outside is just another policy object for ``play_game``/``bot_move``, so the
game goes exactly as the verifier would replay it.  A missing, unparseable or illegal answer
ends the game with a ``PlayProtocolError`` naming it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO

from service.replay import (Bidder, Bot, Call, Card, IllegalCallError, IllegalPlayError, InvalidCallError,
                            InvalidCardError, ManilleError, Observation, answer_action, build_record,
                            play_game, refusal, rules_for, shown)

#: Longest answer line read; anything longer is refused as not a card.
MAX_LINE = 64


class PlayProtocolError(ManilleError):
    """An outside player's answer ended the game: ``code`` is ``no_answer``, ``unknown_card`` or
    the obligation the card broke (``not_in_hand``, ``must_follow_suit``, ``must_beat``,
    ``must_trump``, ``must_overtrump``), as in docs/spec.md §10.3; where a call was due (rules with an
    auction), ``unknown_call`` or ``illegal_call``."""

    def __init__(self, code: str, message: str, obs: Observation, answer: str | None) -> None:
        self.code = code
        self.seat = obs.seat
        self.deal = obs.deal_index
        self.trick = len(obs.tricks)
        self.answer = answer
        self.legal = tuple(str(c) for c in (obs.legal_calls or obs.legal))
        super().__init__(message)

    def to_json(self) -> dict:
        return {"type": "error", "code": self.code, "message": str(self), "seat": self.seat,
                "deal": self.deal, "trick": self.trick, "answer": self.answer, "legal": list(self.legal)}


def observation_line(obs: Observation) -> str:
    """The message the engine sends a seat when it is to play: one JSON object on one line."""
    return json.dumps({"type": "observation", **obs.to_json()}, separators=(",", ":"))


def record_line(record: dict) -> str:
    """The last message of a game: the game record of docs/spec.md §9."""
    return json.dumps({"type": "record", "record": record}, separators=(",", ":"), ensure_ascii=True)


class LineSeat:
    """A seat played by whoever is at the other end of two text streams: it answers a card when its
    observation has ``legal`` cards, a call when it has ``legal_calls``."""

    id = "line"

    def __init__(self, inp: IO[str], out: IO[str]) -> None:
        self.inp = inp
        self.out = out
        self.cards: list[Card | Call] = []

    def choose(self, obs: Observation, rng=None) -> Card | Call:
        self.out.write(observation_line(obs) + "\n")
        self.out.flush()
        line = self.inp.readline(MAX_LINE + 1)
        where = f"seat {obs.seat}, deal {obs.deal_index}, trick {len(obs.tricks)}"
        if not line:
            raise PlayProtocolError("no_answer", f"no answer for {where} (end of input)", obs, None)
        text = line.strip()
        try:
            if len(line) > MAX_LINE:
                raise InvalidCardError(text)
            action = answer_action(obs, text)
        except (InvalidCardError, IllegalPlayError, InvalidCallError, IllegalCallError) as e:
            code, why = refusal(e, text)
            raise PlayProtocolError(code, f"answer for {where}: {why}", obs, shown(text)) from None
        self.cards.append(action)
        return action

    call = choose


def play(seed: bytes | str, outside: Iterable[int], bot: Bot, inp: IO[str], out: IO[str], *,
         rules=None, target: int | None = None, bidder: Bidder | None = None) -> dict:
    """Play a game where the seats in ``outside`` answer on ``inp``/``out`` and ``bot`` holds the
    others (calling with ``bidder`` under rules with an auction); returns the game record (its
    ``bots`` is ``bot.id``).  Raises PlayProtocolError."""
    rules = rules_for(rules)
    line = LineSeat(inp, out)
    held = set(outside)
    seats = tuple(line if s in held else bot for s in range(4))
    bidders = None
    if rules.has_auction:
        if bidder is None:
            raise ManilleError(f"{rules.id} has an auction: name a bidder")
        bidders = tuple(line if s in held else bidder for s in range(4))
    state = play_game(seed, seats, rules=rules, target=target, bidders=bidders)
    return build_record(state, bot.id, bidders=bidder.id if bidders else None)


def parse_seats(text: str) -> tuple[int, ...]:
    """``"0,2"`` → (0, 2); raises ManilleError for anything but distinct seats 0-3."""
    try:
        seats = tuple(int(x) for x in text.replace(" ", "").split(",") if x != "")
    except ValueError:
        raise ManilleError(f"seats are a comma-separated list of 0-3, not {text!r}") from None
    if not seats or any(not 0 <= s <= 3 for s in seats) or len(set(seats)) != len(seats):
        raise ManilleError(f"seats are distinct numbers 0-3 separated by commas, not {text!r}")
    return tuple(sorted(seats))
