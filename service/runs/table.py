"""A run's game, rebuilt on every request from the seed and the run's plays (pure, no I/O).

The run stores every card played at the table in order (``plays``).  Seat 0's cards in it
are the player's, each checked with ``GameState.apply`` when it arrived; the others were
chosen by ``bot_move`` right after and are stored so that the bots need not think again on
the next request.  They are only a cache for play: the verifier replays the player's cards
alone and recomputes every bot decision.

Events narrate what happened at the table so that a client can animate it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.replay import TEAM_NAMES, Bot, Card, GameState, bot_move, game_result, team_of
from service.replay.observation import trick_json
from service.replay.rules import broken_obligation

PLAYER = 0


def parse_plays(text: str) -> list[Card]:
    return [Card.parse(text[i:i + 2]) for i in range(0, len(text), 2)]


def format_plays(cards) -> str:
    return "".join(str(c) for c in cards)


@dataclass
class Table:
    """The state after replaying ``plays``, the events from a chosen point, and where seat 0 played."""

    state: GameState
    events: list[dict] = field(default_factory=list)
    player_positions: list[int] = field(default_factory=list)  # index in plays of seat 0's k-th card
    event_at: dict[int, int] = field(default_factory=dict)  # play index -> index of its first event


def _deal_start(state: GameState) -> dict:
    d = state.current_deal
    return {"type": "deal_start", "deal": d.index, "dealer": d.dealer, "turned": str(d.turned),
            "trump": str(d.trump), "leader": d.leader}


def step(state: GameState, card: Card, events: list | None, *, checked: bool) -> None:
    """Play ``card`` for the seat to move (through ``apply`` if ``checked``), narrating into ``events``."""
    seat = state.current_player
    deal_index, tricks_before = state.deal_index, state.trick_index
    if checked:
        state.apply(card)
    else:
        state._apply(card)
    if events is not None:
        _narrate(state, seat, card, deal_index, tricks_before, events)


def replay(seed: bytes, plays: list[Card], *, events_from: int | None = None,
           deal_start: bool = False) -> Table:
    """Rebuild the game from ``plays``; narrate the plays from index ``events_from`` on, after the
    first deal's ``deal_start`` event if asked (a new run)."""
    table = Table(GameState(seed))
    if deal_start:
        table.events.append(_deal_start(table.state))
    for i, card in enumerate(plays):
        if table.state.current_player == PLAYER:
            table.player_positions.append(i)
        narrate = events_from is not None and i >= events_from
        if narrate:
            table.event_at[i] = len(table.events)
        step(table.state, card, table.events if narrate else None, checked=False)
    return table


def bots_until_player(table: Table, bot: Bot) -> list[Card]:
    """Let the bots play until seat 0 is to move or the game is over; returns their cards."""
    played = []
    state = table.state
    while not state.is_over and state.current_player != PLAYER:
        seat = state.current_player
        deal_index, tricks_before = state.deal_index, state.trick_index
        card = bot_move(state, bot)
        played.append(card)
        _narrate(state, seat, card, deal_index, tricks_before, table.events)
    return played


def _narrate(state, seat, card, deal_index, tricks_before, events) -> None:
    """The events of ``card``, just applied by ``seat``: the play, and the trick, deal and game
    it ended, read back from the state's logs."""
    events.append({"type": "play", "seat": seat, "card": str(card)})
    log = state.deals[deal_index]
    if len(log.tricks) == tricks_before:
        return
    trick, _ = log.tricks[-1]
    t = trick_json(trick, last=len(log.tricks) == 8)
    events.append({"type": "trick", "deal": deal_index, "trick": len(log.tricks) - 1,
                   "winner": t["winner"], "team": TEAM_NAMES[team_of(t["winner"])],
                   "points": t["points"]})
    if log.totals is None:
        return
    events.append({"type": "deal_end", "deal": deal_index, "points": list(log.points),
                   "scored": list(log.scored), "totals": list(log.totals)})
    if state.is_over:
        events.append({"type": "game_end", **result_of(state)})
    else:
        events.append(_deal_start(state))


def result_of(state: GameState) -> dict:
    return game_result(state.totals)


def last_trick(state: GameState) -> dict | None:
    """The last completed trick, of this deal or, at a deal's start, of the previous one."""
    for log in reversed(state.deals):
        if log.tricks:
            trick, _ = log.tricks[-1]
            return {"deal": log.deal.index, **trick_json(trick, last=len(log.tricks) == 8)}
    return None


def unplayable(state: GameState) -> dict[str, str]:
    """Each card of seat 0's hand that it may not play now, with the obligation it would break
    (empty when seat 0 is not to move), so that a client can say why without trying the card."""
    if state.is_over or state.current_player != PLAYER:
        return {}
    hand = state.hands[PLAYER]
    legal = state.legal_mask()
    return {str(c): broken_obligation(hand, state.trick, PLAYER, c).value
            for c in state.hand(PLAYER) if not legal & c.bit}


def card_counts(state: GameState) -> list[int]:
    """How many cards each seat holds: public, since every card played is seen (RULES §6)."""
    return [h.bit_count() for h in state.hands]


def finished_deals(state: GameState) -> list[dict]:
    """The deals already scored: dealer, turned card, card points, game points scored, totals."""
    return [{"deal": log.deal.index, "dealer": log.deal.dealer, "turned": str(log.deal.turned),
             "points": list(log.points), "scored": list(log.scored), "totals": list(log.totals)}
            for log in state.deals if log.totals is not None]


def view(state: GameState) -> dict:
    """What seat 0 may see (RULES §6), as JSON values, with what a table needs to be drawn
    again from nothing: the cards each seat holds, the finished deals, why a card is refused."""
    obs = state.observation(PLAYER).to_json()
    return {
        "seat": PLAYER,
        "deal": obs["deal"],
        "dealer": obs["dealer"],
        "turned": obs["turned"],
        "trump": obs["trump"],
        "turned_holder": obs["dealer"] if obs["turned_in_hand"] else None,
        "hand": obs["hand"],
        "legal": obs["legal"],
        "unplayable": unplayable(state),
        "to_move": state.current_player if not state.is_over else None,
        "trick": obs["trick"],
        "last_trick": last_trick(state),
        "tricks": obs["tricks"],
        "points": obs["points"],
        "totals": obs["totals"],
        "counts": card_counts(state),
        "deals": finished_deals(state),
    }
