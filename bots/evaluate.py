"""The value of each legal card from what a seat knew: the mean, over the deals of the hidden
cards that agree with its observation, of the card's exact open-hand value in each.

For a decision of seat ``s``: the consistent deals (``bots.worlds``) are listed when there are at
most ``enumerate_up_to`` of them, else ``samples`` are drawn uniformly from the stream; every legal
card is solved exactly in every deal (``bots.oracle``'s double-dummy solver: the card points the
seat's team takes from the trick in progress to the end of the deal, last-trick point included),
the same deals for every card (common random numbers: what decides between two cards is their
difference, and that is measured on the same deals).  ``Evaluation`` keeps the per-deal values,
so means, standard errors and the spread of any difference between cards come from one place.

A pure function of the observation and the stream: fixed counts, no clock, ints until the mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from service.replay import HashStream, Observation
from service.replay.cards import iter_ids

from .knowledge import Knowledge
from .oracle import OracleError, Solver
from .worlds import Constraints, World

#: Default sample count and enumeration bound (the analysis states its own: see postmortem.settings).
SAMPLES = 24
ENUMERATE_UP_TO = 64


@dataclass(frozen=True)
class Evaluation:
    """Per legal card id, its value in each deal (``values[c][i]`` for deal ``i``)."""

    cards: tuple[int, ...]
    values: dict[int, tuple[int, ...]]
    exact: bool  # every consistent deal was solved (no sampling error)
    consistent: int  # how many consistent deals there are

    @property
    def deals(self) -> int:
        return len(self.values[self.cards[0]])

    def mean(self, c: int) -> float:
        v = self.values[c]
        return sum(v) / len(v)

    def se(self, c: int) -> float:
        """Standard error of ``mean(c)``: 0 when exact."""
        return 0.0 if self.exact else _se(self.values[c])

    def diff_se(self, a: int, b: int) -> float:
        """Standard error of ``mean(a) - mean(b)`` on the shared deals (paired)."""
        if self.exact:
            return 0.0
        return _se([x - y for x, y in zip(self.values[a], self.values[b])])


def _se(xs) -> float:
    n = len(xs)
    if n < 2:
        return 0.0
    m = sum(xs) / n
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1) / n)


def muette_position(obs: Observation) -> None:
    """Raise OracleError unless ``obs`` is a muette-1 card decision (the solver's rules)."""
    if obs.rules != "muette-1":
        raise OracleError(f"from-the-seat values are computed for muette-1 only, not {obs.rules}")
    if not obs.legal_mask:
        raise OracleError("the seat has no card to play")


def seat_values(obs: Observation, rng: HashStream, *, samples: int = SAMPLES,
                enumerate_up_to: int = ENUMERATE_UP_TO, solver: Solver | None = None) -> Evaluation:
    """Every legal card of ``obs`` valued over the deals consistent with it (see the module)."""
    muette_position(obs)
    k = Knowledge(obs)
    constraints = Constraints(k)
    count = constraints.count
    if not count:
        raise OracleError("no deal of the hidden cards agrees with this observation")
    exact = count <= enumerate_up_to
    worlds = constraints.every() if exact else [constraints.draw(rng) for _ in range(samples)]
    return evaluate_worlds(obs, worlds, exact, count, solver)


def evaluate_worlds(obs: Observation, worlds: list[World], exact: bool, count: int,
                    solver: Solver | None = None) -> Evaluation:
    """The legal cards of ``obs`` solved in each of ``worlds`` (hands as masks, the seat's own
    hand in its place)."""
    trick = obs.trick
    if solver is None or solver.trump != int(trick.trump):
        solver = Solver(int(trick.trump))
    legal = tuple(iter_ids(obs.legal_mask))
    per_card: dict[int, list[int]] = {c: [] for c in legal}
    banked = obs.points[0]
    for world in worlds:
        if len(legal) == 1:
            per_card[legal[0]].append(solver.card_value(world, trick, legal[0], banked))
            continue
        got = solver.card_values(world, trick, banked)
        for c in legal:
            per_card[c].append(got[c])
    return Evaluation(legal, {c: tuple(v) for c, v in per_card.items()}, exact, count)
