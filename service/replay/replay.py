"""Playing whole games: bots against bots, and the verifier that replays a player's submission.

The verifier trusts nothing but the seed and the submitted cards: it redeals every
deal, replays every bot decision and recomputes every trick and score.  A bad
submission is answered with a Rejection naming the first faulty card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from .cards import Card
from .deal import check_seed
from .errors import BotError, IllegalPlayError, InvalidCardError, ManilleError
from .observation import Observation
from .policy import Bot, decision_stream
from .record import build_record
from .rules import check_play
from .state import GameState

#: Each deal gives the scoring team at least one game point, so a game ends within 79 deals.
MAX_DEALS = 79
MAX_SUBMISSION = MAX_DEALS * 8


@dataclass(frozen=True)
class Rejection:
    """Why a submission is refused: a code of RULES §7 and where the first faulty card falls."""

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


def bot_move(state: GameState, bot: Bot) -> Card:
    """Let ``bot`` play for the seat to move: it sees only that seat's observation and its decision
    stream.  Returns the card played; raises BotError if the bot answers an illegal card."""
    seat = state.trick.next_seat
    obs = state.observation(seat)
    card = bot.choose(obs, decision_stream(state.seed, obs.deal_index, seat, len(obs.tricks)))
    if not isinstance(card, Card) or not obs.legal_mask >> card.id & 1:
        raise BotError(f"bot {bot.id!r} at seat {seat} answered {card!r}, "
                       f"not one of {' '.join(map(str, obs.legal))}")
    state._apply(card, obs.legal_mask)
    return card


def play_game(seed: bytes | str, seats: Sequence[Bot]) -> GameState:
    """Play a whole game with one policy per seat; raises BotError if a bot answers an illegal card."""
    state = GameState(seed)
    while not state.is_over:
        bot_move(state, seats[state.trick.next_seat])
    return state


def simulate(seed: bytes | str, bot: Bot, player: Bot | None = None) -> dict:
    """The record of a game where bots hold every seat (seat 0 ``player``, default ``bot``)."""
    state = play_game(seed, (player or bot, bot, bot, bot))
    return build_record(state, bot.id)


def answer_card(obs: Observation, answer) -> Card:
    """The card ``answer`` (a Card or its text) names, if ``obs``'s seat may play it now; raises
    InvalidCardError for what is not a card, IllegalPlayError naming the broken obligation."""
    card = answer if isinstance(answer, Card) else Card.parse(answer)
    check_play(obs.hand_mask, obs.trick, obs.seat, card)
    return card


def refusal(error: ManilleError, answer) -> tuple[str, str]:
    """The RULES §7 code of an answer ``answer_card`` refused, and why in words (answer cut short)."""
    if isinstance(error, IllegalPlayError):
        legal = " ".join(str(c) for c in error.legal)
        return error.obligation.value, f"{error.card} breaks {error.obligation.value}; legal: {legal}"
    return "unknown_card", f"{shown(answer)!r} is not a card"


def shown(answer) -> str:
    """An answer as text for an error, cut short so a huge bogus item cannot bloat it."""
    text = answer if isinstance(answer, str) else repr(answer)
    return text if len(text) <= 16 else text[:16] + "…"


class _Submission:
    """Seat 0 as a policy that plays the submitted cards in order, refusing the first faulty one."""

    id = "submission"

    def __init__(self, cards: Sequence) -> None:
        self.cards = cards
        self.index = 0

    def choose(self, obs: Observation, rng) -> Card:
        i = self.index
        where = {"index": i, "deal": obs.deal_index, "trick": len(obs.tricks)}
        legal = tuple(str(c) for c in obs.legal)
        if i >= len(self.cards):
            raise SubmissionRejected(Rejection(
                "game_incomplete", f"the game goes on after the {i} cards submitted", legal=legal, **where))
        try:
            card = answer_card(obs, self.cards[i])
        except (InvalidCardError, IllegalPlayError) as e:
            code, why = refusal(e, self.cards[i])
            raise SubmissionRejected(Rejection(
                code, f"card {i}: {why}", card=shown(self.cards[i]), legal=legal, **where)) from None
        self.index = i + 1
        return card


def verify(seed: bytes | str, cards: Sequence | str, bot: Bot, *, sealed: bool = False) -> dict:
    """Replay a submission (seat 0's cards in order) against ``bot``; returns the game record.

    Raises SubmissionRejected for the first faulty card, ``game_incomplete`` when the cards run
    out before the game ends, ``extra_cards`` when cards remain after it; InvalidSeedError for a bad
    seed.  A string of cards is split on spaces and commas.
    """
    seed = check_seed(seed)
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    if not isinstance(cards, Sequence):
        raise SubmissionRejected(Rejection("malformed", "a submission is a list of cards"))
    player = _Submission(cards)
    state = play_game(seed, (player, bot, bot, bot))
    if player.index < len(cards):
        n = player.index
        raise SubmissionRejected(Rejection(
            "extra_cards", f"the game ended after card {n - 1}; {len(cards) - n} more were submitted",
            index=n, card=shown(cards[n])))
    return build_record(state, bot.id, sealed=sealed)


__all__ = ["MAX_SUBMISSION", "Rejection", "SubmissionRejected", "answer_card", "bot_move", "play_game", "refusal",
           "shown", "simulate", "verify"]
