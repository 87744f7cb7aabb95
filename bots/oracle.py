"""A double-dummy solver for the rest of a deal, and ``oracle-1``, the bot that plays by it.

**What it computes.**  With all four hands open, the exact number of card points (the +1 of the
last trick included) that the team of the seat to move takes from the trick in progress (the
cards already in it included) to the end of the *current* deal, when both teams play perfectly.
A deal is scored from its own points only and the next deal is new hands, so the deal is the
whole game tree.  ``solve`` gives that value for each legal card of the seat to move,
``best_cards`` the set of cards that reach the best one, ``value`` the best value.
**How.**  With ``bots.solver`` (its docstring says how the search goes).

**oracle-1** plays, among the optimal cards, the one with the fewest card points, ties to the
lowest canonical index (docs/spec.md §3.3): deterministic, and a pure function of the full game state
(the caches change the time it takes, never the card).
It reads every hand, so it is *not* a ``Bot`` in the sense of docs/spec.md §8.2: it has ``choose_open``
(the whole ``GameState``), and its ``choose`` (an observation) always raises.  It is therefore
never in ``bots.BOTS`` and can never play a daily challenge or verify a submission; the
tournament (``cli.tournament``) and measurement scripts hand it the state.
"""

from __future__ import annotations

from service.replay import GameState, Trick
from service.replay.cards import DECK, Card
from service.replay.rules import RULES_ID

from .solver import OracleError, Solver

# -- questions about a game state ----------------------------------------------------------------


def _position(state) -> tuple[list[int], Trick, int | None]:
    """The four hands, the trick in progress and team 0's points banked in the deal of a
    GameState, or of a ``(hands, trick)`` pair (banked unknown)."""
    if isinstance(state, GameState):
        if state.is_over:
            raise OracleError("the game is over")
        return list(state.hands), state.trick, state.points[0]
    hands, trick = state
    return list(hands), trick, None


def _solver_for(trick: Trick, solver: Solver | None) -> Solver:
    if solver is not None and solver.trump == int(trick.trump):
        return solver
    return Solver(int(trick.trump))


def solve(state, solver: Solver | None = None) -> dict[Card, int]:
    """Every legal card of the seat to move -> the exact card points (last-trick point included)
    its team takes from the trick in progress to the end of the current deal under perfect play
    by both teams.  ``state`` is a GameState or a ``(hands, trick)`` pair (hands as 4 masks);
    ``solver`` (same trump) may be passed to reuse its table across questions of one deal."""
    hands, trick, banked = _position(state)
    values = _solver_for(trick, solver).card_values(hands, trick, banked)
    return {DECK[c]: v for c, v in sorted(values.items())}


def best_cards(state, solver: Solver | None = None) -> frozenset[Card]:
    """The legal cards of the seat to move that reach the best value (``solve``'s maximum)."""
    hands, trick, banked = _position(state)
    _, ids = _solver_for(trick, solver).best(hands, trick, banked)
    return frozenset(DECK[c] for c in ids)


def value(state, solver: Solver | None = None) -> int:
    """The exact points the team to move takes from the trick in progress to the end of the deal."""
    hands, trick, banked = _position(state)
    return _solver_for(trick, solver).value(hands, trick, banked)


def card_value(state, card: Card, solver: Solver | None = None) -> int:
    """``solve(state)[card]`` for one legal card, without solving the others."""
    hands, trick, banked = _position(state)
    return _solver_for(trick, solver).card_value(hands, trick, card.id, banked)


def pick(cards) -> Card:
    """oracle-1's tie-break among optimal cards: the fewest card points, then the lowest index."""
    return min(cards, key=lambda c: (c.points, c.id))


# -- oracle-1 --------------------------------------------------------------------------------------


class OracleBot:
    """``oracle-1``: plays an optimal card of the double-dummy solution (see ``pick``).

    A measurement bot: it reads every hand through ``choose_open(state)``.  ``choose`` (the Bot
    protocol, an observation only) always raises OracleError, so wherever the product plays a
    bot from observations (daily challenges, verification, ``manille play``) it cannot play.
    Its solver (and table) is kept for the deal in progress only.
    """

    id = "oracle-1"
    #: Needs the full GameState: drivers call ``choose_open``, never ``choose``.
    sees_all = True

    def __init__(self) -> None:
        self._deal: tuple | None = None
        self._solver: Solver | None = None

    def choose(self, obs, rng) -> Card:
        raise OracleError(
            "oracle-1 reads every hand: it is a measurement bot (tournaments, anti-cheat analysis), "
            "it cannot play from an observation and can never be the bot of a challenge")

    def solver_for(self, state: GameState) -> Solver:
        """The solver of ``state``'s deal (a new one, empty, when the deal changed)."""
        deal = (state.seed, state.deal_index)
        if deal != self._deal or self._solver is None:
            self._deal = deal
            self._solver = Solver(int(state.trick.trump))
        return self._solver

    def choose_open(self, state: GameState) -> Card:
        """An optimal card for the seat to move; raises OracleError under rules other than
        muette-1 (its solver knows only muette-1's legal cards, trump suits and last-trick point)."""
        if state.rules.id != RULES_ID:
            raise OracleError(f"oracle-1 plays {RULES_ID} only, not {state.rules.id}: its solver knows "
                              f"only {RULES_ID}'s legal cards, a trump suit and the last-trick point")
        legal = state.legal_mask()
        if not legal & (legal - 1):
            return DECK[legal.bit_length() - 1]
        return pick(best_cards(state, self.solver_for(state)))
