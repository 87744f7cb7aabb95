"""A run's game, rebuilt on every request from the seed and the run's plays (pure, no I/O).

The run stores every action at the table in order (``plays``): the cards, and under rules with
an auction (``parlee-1``, ``manillen-1``) each deal's calls before them.  Seat 0's actions in it
are the player's, each checked with ``GameState.apply`` / ``call`` when it arrived; the others
were chosen by ``bot_move`` right after and are stored so that the bots need not think again on
the next request.  They are only a cache for play: the verifier replays the player's actions
alone and recomputes every bot decision.

Every action is two characters, so that the store's arithmetic (a turn is ``len(cards) // 2``)
holds for all rules: a card its notation (``TH``), a call ``=`` and one letter (``CALL_CODES``),
which no card begins with.  A muette-1 run holds only cards: its stored text is what it was.

Events narrate what happened at the table so that a client can animate it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.replay import TEAM_NAMES, Bot, Call, Card, GameState, bot_move, game_result, team_of
from service.replay.observation import calls_json, trick_json
from service.replay.rules import broken_obligation

PLAYER = 0
#: A call's stored form: ``=`` and one letter (a card's text never starts with ``=``).
CALL_CODES = {"C": "=C", "D": "=D", "H": "=H", "S": "=S", "NT": "=N", "pass": "=P", "double": "=X",
              "redouble": "=R"}
_CALL_OF_CODE = {code: Call.parse(text) for text, code in CALL_CODES.items()}


def encode_action(action: Card | Call) -> str:
    """An action's two stored characters: a card's notation, a call's ``CALL_CODES``."""
    return CALL_CODES[str(action)] if isinstance(action, Call) else str(action)


def decode_action(code: str) -> Card | Call:
    """``encode_action`` undone; InvalidCardError for two characters that are neither."""
    call = _CALL_OF_CODE.get(code)
    return call if call is not None else Card.parse(code)


def split_actions(text: str) -> list[str]:
    """Stored actions (two characters each) as their codes, in order."""
    return [text[i:i + 2] for i in range(0, len(text), 2)]


def action_text(code: str) -> str:
    """A stored action as the API writes it: a card's notation, a call's (``NT``, ``pass``…)."""
    return str(decode_action(code))


def parse_plays(text: str) -> list[Card | Call]:
    return [decode_action(code) for code in split_actions(text)]


@dataclass
class Table:
    """The state after replaying ``plays``, the events from a chosen point, and where seat 0 played."""

    state: GameState
    events: list[dict] = field(default_factory=list)
    player_positions: list[int] = field(default_factory=list)  # index in plays of seat 0's k-th card
    event_at: dict[int, int] = field(default_factory=dict)  # play index -> index of its first event


def _deal_start(state: GameState) -> dict:
    d = state.current_deal
    if state.rules.has_auction:  # no turned card: the trump comes from the calls that follow
        return {"type": "deal_start", "deal": d.index, "dealer": d.dealer, "turned": None, "trump": None,
                "leader": d.leader, "carry": state.carry}
    return {"type": "deal_start", "deal": d.index, "dealer": d.dealer, "turned": str(d.turned),
            "trump": str(d.trump), "leader": d.leader}


def step(state: GameState, action: Card | Call, events: list | None, *, checked: bool) -> None:
    """Play ``action`` (a card, or a call) for the seat to move (a card through ``apply`` if
    ``checked``; a call is always checked: it is cheap), narrating into ``events``."""
    seat = state.current_player
    deal_index, tricks_before = state.deal_index, state.trick_index
    if isinstance(action, Call):
        state.call(action)
    elif checked:
        state.apply(action)
    else:
        state._apply(action)
    if events is not None:
        _narrate(state, seat, action, deal_index, tricks_before, events)


def replay(seed: bytes, plays: list, *, rules: str | None = None, target: int | None = None,
           events_from: int | None = None, deal_start: bool = False) -> Table:
    """Rebuild the game (``rules`` to ``target``; muette-1 by default) from ``plays``; narrate the
    plays from index ``events_from`` on, after the first deal's ``deal_start`` event if asked (a
    new run)."""
    table = Table(GameState(seed, rules, target))
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


def bots_until_player(table: Table, bot: Bot, bidder=None, played: list | None = None) -> list:
    """Let the bots play (and ``bidder`` call) until seat 0 is to move or the game is over;
    returns their actions (appended to ``played``, which keeps those made if a bot raises)."""
    played = [] if played is None else played
    state = table.state
    while not state.is_over and state.current_player != PLAYER:
        seat = state.current_player
        deal_index, tricks_before = state.deal_index, state.trick_index
        action = bot_move(state, bot, bidder)
        played.append(action)
        _narrate(state, seat, action, deal_index, tricks_before, table.events)
    return played


def contract_json(state: GameState, log) -> dict:
    """A deal's contract as the table shows it: ``contract`` (the call, its declarer, doubled 0–2
    times, its own factor), ``carry`` (2 per 30–30 deal just before, else 1) and ``factor``, what
    the deal's score is multiplied by (both together)."""
    contract = log.contract
    carry = log.factor // contract.factor if log.totals is not None else state.carry
    return {"contract": contract.to_json(), "carry": carry, "factor": contract.factor * carry}


def _narrate(state, seat, action, deal_index, tricks_before, events) -> None:
    """The events of ``action``, just taken by ``seat``: the call, and the contract it settled; or
    the play, and the trick, deal and game it ended, read back from the state's logs."""
    log = state.deals[deal_index]
    if isinstance(action, Call):
        events.append({"type": "call", "deal": deal_index, "seat": seat, "call": str(action)})
        if log.contract is not None:
            events.append({"type": "contract", "deal": deal_index, **contract_json(state, log)})
        return
    card = action
    events.append({"type": "play", "seat": seat, "card": str(card)})
    if len(log.tricks) == tricks_before:
        return
    trick, _ = log.tricks[-1]
    t = trick_json(trick, last=len(log.tricks) == 8, bonus=state.rules.last_trick_bonus)
    events.append({"type": "trick", "deal": deal_index, "trick": len(log.tricks) - 1,
                   "winner": t["winner"], "team": TEAM_NAMES[team_of(t["winner"])],
                   "points": t["points"]})
    if log.totals is None:
        return
    end = {"type": "deal_end", "deal": deal_index, "points": list(log.points),
           "scored": list(log.scored), "totals": list(log.totals)}
    if log.contract is not None:  # the factor it was scored with; the 30–30 carry it leaves
        end.update(factor=log.factor, carry=state.carry if not state.is_over else 1)
    events.append(end)
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
            return {"deal": log.deal.index, **trick_json(trick, last=len(log.tricks) == 8,
                                                         bonus=state.rules.last_trick_bonus)}
    return None


def unplayable(state: GameState) -> dict[str, str]:
    """Each card of seat 0's hand that it may not play now, with the obligation it would break
    (empty when seat 0 is not to move, or is to call), so that a client can say why without trying the card."""
    if state.is_over or state.current_player != PLAYER or state.auction is not None:
        return {}
    hand = state.hands[PLAYER]
    legal = state.legal_mask()
    facing = state.rules.facing
    return {str(c): broken_obligation(hand, state.trick, PLAYER, c, facing).value
            for c in state.hand(PLAYER) if not legal & c.bit}


def card_counts(state: GameState) -> list[int]:
    """How many cards each seat holds: public, since every card played is seen (docs/spec.md §8.1)."""
    return [h.bit_count() for h in state.hands]


def finished_deals(state: GameState) -> list[dict]:
    """The deals already scored: dealer, turned card (or, under rules with an auction, the calls,
    contract and factor), card points, game points scored, totals."""
    out = []
    for log in state.deals:
        if log.totals is None:
            continue
        d = {"deal": log.deal.index, "dealer": log.deal.dealer, "turned": str(log.deal.turned),
             "points": list(log.points), "scored": list(log.scored), "totals": list(log.totals)}
        if log.contract is not None:
            d.update(turned=None, calls=calls_json(log.auction.calls), **contract_json(state, log))
        out.append(d)
    return out


def view(state: GameState) -> dict:
    """What seat 0 may see (docs/spec.md §8.1), as JSON values, with what a table needs to be drawn
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
        **(_auction_view(state, obs) if state.rules.has_auction else {}),
    }


def _auction_view(state: GameState, obs: dict) -> dict:
    """The view's part under rules with an auction: the rules and target, this deal's calls so far,
    seat 0's legal calls (when it is to speak), the contract once settled, the factor and carry."""
    log = state.deals[-1]
    return {"rules": state.rules.id, "target": state.target, "calls": obs["calls"],
            "legal_calls": obs["legal_calls"],
            "contract": contract_json(state, log)["contract"] if log.contract is not None else None,
            "factor": obs["factor"], "carry": state.carry if log.totals is None else 1}
