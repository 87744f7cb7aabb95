"""Playing whole games: bots against bots, and the verifier that replays a player's submission.

The verifier trusts nothing but the seed and the submitted cards: it redeals every
deal, replays every bot decision and recomputes every trick and score.  A bad
submission is answered with a Rejection naming the first faulty card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from .calls import Call
from .cards import Card
from .deal import check_seed
from .errors import (BotError, IllegalCallError, IllegalPlayError, InvalidCallError, InvalidCardError,
                     ManilleError)
from .observation import Observation
from .policy import Bidder, Bot, call_stream, decision_stream
from .record import build_record
from .rules import check_play
from .state import GameState
from .variants import Rules, rules_for

#: Under muette-1 each deal gives the scoring team at least one game point, so a game ends within
#: 79 deals (the daily challenge's bound on a submission).  Not a bound under parlee-1, whose
#: 30–30 deals score nothing (docs/variants.md §5.4): its games are played turn by turn, never
#: submitted whole to the board.
MAX_DEALS = 79
MAX_SUBMISSION = MAX_DEALS * 8


@dataclass(frozen=True)
class Rejection:
    """Why a submission is refused: a code of docs/spec.md §10.3 and where the first faulty card falls."""

    code: str
    message: str
    index: int | None = None  # position in the submission
    deal: int | None = None
    trick: int | None = None
    card: str | None = None  # the text as submitted
    legal: tuple[str, ...] | None = None

    def to_json(self) -> dict:
        out = asdict(self)
        if self.legal is not None:
            out["legal"] = list(self.legal)
        return out


class SubmissionRejected(ManilleError):
    """The submission does not replay to a finished game; ``rejection`` says where and why."""

    def __init__(self, rejection: Rejection) -> None:
        self.rejection = rejection
        super().__init__(rejection.message)


def bot_move(state: GameState, bot: Bot, bidder: Bidder | None = None) -> Card | Call:
    """Let ``bot`` play (``bidder`` call, when a call is due) for the seat to move: it sees only that
    seat's observation and its decision stream.  Returns the card or call; raises BotError if the
    policy answers an illegal one."""
    seat = state.current_player
    obs = state.observation(seat)
    if obs.legal_calls:
        policy = bidder if bidder is not None else bot
        call = policy.call(obs, call_stream(state.seed, obs.deal_index, seat, len(obs.calls)))
        if not isinstance(call, Call) or call not in obs.legal_calls:
            raise BotError(f"bidder {getattr(policy, 'id', policy)!r} at seat {seat} answered {call!r}, "
                           f"not one of {' '.join(map(str, obs.legal_calls))}")
        state.call(call)
        return call
    card = bot.choose(obs, decision_stream(state.seed, obs.deal_index, seat, len(obs.tricks)))
    if not isinstance(card, Card) or not obs.legal_mask >> card.id & 1:
        raise BotError(f"bot {bot.id!r} at seat {seat} answered {card!r}, "
                       f"not one of {' '.join(map(str, obs.legal))}")
    state._apply(card, obs.legal_mask)
    return card


def play_game(seed: bytes | str, seats: Sequence[Bot], *, rules: Rules | str | None = None,
              target: int | None = None, bidders: Sequence[Bidder] | None = None) -> GameState:
    """Play a whole game with one policy per seat (and one bidder per seat under rules with an
    auction: ``bidders``, else the seat's policy calls too); raises BotError if a policy answers an
    illegal card or call."""
    state = GameState(seed, rules, target)
    while not state.is_over:
        seat = state.current_player
        bot_move(state, seats[seat], bidders[seat] if bidders is not None else None)
    return state


def simulate(seed: bytes | str, bot: Bot, player: Bot | None = None, *, rules: Rules | str | None = None,
             target: int | None = None, bidder: Bidder | None = None) -> dict:
    """The record of a game where bots hold every seat (seat 0 ``player``, default ``bot``); under
    rules with an auction every seat calls with ``bidder`` (required there)."""
    rules = rules_for(rules)
    bidders = _bidders(rules, bidder)
    state = play_game(seed, (player or bot, bot, bot, bot), rules=rules, target=target, bidders=bidders)
    return build_record(state, bot.id, bidders=bidders[0].id if bidders else None)


def _bidders(rules: Rules, bidder: Bidder | None, seat0=None) -> tuple | None:
    """The four seats' bidders under ``rules`` (``seat0`` in seat 0): None without an auction;
    raises ValueError if the rules have an auction and no bidder is given."""
    if not rules.has_auction:
        return None
    if bidder is None:
        raise ValueError(f"{rules.id} has an auction: name a bidder")
    return (seat0 or bidder, bidder, bidder, bidder)


def answer_card(obs: Observation, answer) -> Card:
    """The card ``answer`` (a Card or its text) names, if ``obs``'s seat may play it now; raises
    InvalidCardError for what is not a card, IllegalPlayError naming the broken obligation."""
    card = answer if isinstance(answer, Card) else Card.parse(answer)
    check_play(obs.hand_mask, obs.trick, obs.seat, card, rules_for(obs.rules).facing)
    return card


def answer_call(obs: Observation, answer) -> Call:
    """The call ``answer`` (a Call or its text) names, if ``obs``'s seat may say it now; raises
    InvalidCallError for what is not a call (a card included), IllegalCallError for one not allowed."""
    call = answer if isinstance(answer, Call) else Call.parse(answer)
    if call not in obs.legal_calls:
        raise IllegalCallError(call, f"{call} is not allowed now", obs.legal_calls)
    return call


def answer_action(obs: Observation, answer) -> Card | Call:
    """``answer_call`` when ``obs``'s seat is to call, else ``answer_card``."""
    return answer_call(obs, answer) if obs.legal_calls else answer_card(obs, answer)


def refusal(error: ManilleError, answer) -> tuple[str, str]:
    """The docs/spec.md §10.3 code of an answer ``answer_action`` refused, and why in words (answer cut short)."""
    if isinstance(error, IllegalPlayError):
        legal = " ".join(str(c) for c in error.legal)
        return error.obligation.value, f"{error.card} breaks {error.obligation.value}; legal: {legal}"
    if isinstance(error, IllegalCallError):
        return "illegal_call", str(error)
    if isinstance(error, InvalidCallError):
        return "unknown_call", f"{shown(answer)!r} is not a call"
    return "unknown_card", f"{shown(answer)!r} is not a card"


def shown(answer) -> str:
    """An answer as text for an error, cut short so a huge bogus item cannot bloat it."""
    text = answer if isinstance(answer, str) else repr(answer)
    return text if len(text) <= 16 else text[:16] + "…"


class _Submission:
    """Seat 0 as a policy that plays the submitted actions (cards, and calls under rules with an
    auction) in order, refusing the first faulty one."""

    id = "submission"

    def __init__(self, cards: Sequence) -> None:
        self.cards = cards
        self.index = 0

    def _next(self, obs: Observation, rng=None):
        i = self.index
        where = {"index": i, "deal": obs.deal_index, "trick": len(obs.tricks)}
        legal = tuple(str(c) for c in (obs.legal_calls or obs.legal))
        if i >= len(self.cards):
            raise SubmissionRejected(Rejection(
                "game_incomplete", f"the game goes on after the {i} cards submitted", legal=legal, **where))
        try:
            action = answer_action(obs, self.cards[i])
        except (InvalidCardError, IllegalPlayError, InvalidCallError, IllegalCallError) as e:
            code, why = refusal(e, self.cards[i])
            raise SubmissionRejected(Rejection(
                code, f"card {i}: {why}", card=shown(self.cards[i]), legal=legal, **where)) from None
        self.index = i + 1
        return action

    choose = call = _next


def verify(seed: bytes | str, cards: Sequence | str, bot: Bot, *, sealed: bool = False,
           rules: Rules | str | None = None, target: int | None = None, bidder: Bidder | None = None) -> dict:
    """Replay a submission (seat 0's actions in order: cards, and under rules with an auction each
    deal's calls before its cards) against ``bot`` (and ``bidder``); returns the game record.

    Raises SubmissionRejected for the first faulty action, ``game_incomplete`` when the actions run
    out before the game ends, ``extra_cards`` when some remain after it; InvalidSeedError for a bad
    seed; UnknownRulesError for bad rules or target.  A string is split on spaces and commas.
    """
    seed = check_seed(seed)
    rules = rules_for(rules)
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    if not isinstance(cards, Sequence):
        raise SubmissionRejected(Rejection("malformed", "a submission is a list of cards"))
    player = _Submission(cards)
    bidders = _bidders(rules, bidder, player)
    state = play_game(seed, (player, bot, bot, bot), rules=rules, target=target, bidders=bidders)
    if player.index < len(cards):
        n = player.index
        raise SubmissionRejected(Rejection(
            "extra_cards", f"the game ended after card {n - 1}; {len(cards) - n} more were submitted",
            index=n, card=shown(cards[n])))
    return build_record(state, bot.id, sealed=sealed, bidders=bidders[1].id if bidders else None)


__all__ = ["MAX_SUBMISSION", "Rejection", "SubmissionRejected", "answer_action", "answer_call", "answer_card",
           "bot_move", "play_game", "refusal", "shown", "simulate", "verify"]
