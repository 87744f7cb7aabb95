"""Glicko-2 (Glickman, "Example of the Glicko-2 system"), one rating period a day, with the day's
field as the opponent: pure, no I/O.

A player's day is a few games (``day.GAMES_A_DAY``) against one opponent, the field of the day (the
players rated that day, as one opponent: their mean rating, as uncertain as they are on average),
each scored by the day's matchpoints / 100, as lichess scores a puzzle attempt against the
puzzle.  A day with no game widens the deviation by the volatility (step 6 alone).  Everything is computed in a fixed order with a fixed number of
iterations at most, and what is stored is rounded (``record``), so a rating is the same bytes on
every machine and every rebuild.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Glicko-2's scale factor between the displayed scale and its own (400 / ln 10).
SCALE = 173.7178
INITIAL_RATING = 1500.0
INITIAL_DEVIATION = 350.0
INITIAL_VOLATILITY = 0.06
#: The system constant: how much the volatility may move in a period (Glickman: 0.3 to 1.2).
TAU = 0.5
#: The volatility's iteration stops at this precision, or after ``MAX_ITERATIONS``.
EPSILON = 1e-6
MAX_ITERATIONS = 60


@dataclass(frozen=True)
class Rating:
    value: float = INITIAL_RATING
    deviation: float = INITIAL_DEVIATION
    volatility: float = INITIAL_VOLATILITY

    @property
    def mu(self) -> float:
        return (self.value - INITIAL_RATING) / SCALE

    @property
    def phi(self) -> float:
        return self.deviation / SCALE


def widened(rating: Rating, periods: int) -> Rating:
    """The rating after ``periods`` days not played: the deviation widened by the volatility each
    day, never beyond the initial deviation; the same rating for 0 (or fewer) days."""
    if periods <= 0:
        return rating
    phi = min(math.sqrt(rating.phi ** 2 + periods * rating.volatility ** 2), INITIAL_DEVIATION / SCALE)
    return Rating(rating.value, phi * SCALE, rating.volatility)


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / math.pi ** 2)


def expected(rating: Rating, opponent: Rating) -> float:
    """The expected score of ``rating`` against ``opponent`` (0 to 1)."""
    return 1 / (1 + math.exp(-_g(opponent.phi) * (rating.mu - opponent.mu)))


def field_of(ratings: list[Rating]) -> Rating:
    """The day's field as one opponent: the mean of ``ratings`` (summed in the order given), as
    uncertain as they are on average (their root mean square deviation; not their spread: a
    matchpoint is a result against each of them, and a field's mean is known much better than
    any one of them); the initial rating for none."""
    if not ratings:
        return Rating()
    n = len(ratings)
    mean_mu = sum(r.mu for r in ratings) / n
    variance = sum(r.phi ** 2 for r in ratings) / n
    return Rating(INITIAL_RATING + mean_mu * SCALE, math.sqrt(variance) * SCALE, INITIAL_VOLATILITY)


def _volatility(sigma: float, phi: float, delta: float, v: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm (a fixed number of iterations at most)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / TAU ** 2

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * TAU) < 0 and k < MAX_ITERATIONS:
            k += 1
        big_b = a - k * TAU
    fa, fb = f(big_a), f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= EPSILON:
            break
        big_c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(big_c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = big_c, fc
    return math.exp(big_a / 2)


def update(rating: Rating, field: Rating, score: float, games: int) -> Rating:
    """The rating after a day of ``games`` games against ``field``, scoring ``score`` (0 to
    1, the day's matchpoints / 100) on average; ``games`` 0 is a day not played."""
    if games <= 0:
        return widened(rating, 1)
    g = _g(field.phi)
    e = expected(rating, field)
    v = 1 / (games * g * g * e * (1 - e))
    delta = v * games * g * (score - e)
    sigma = _volatility(rating.volatility, rating.phi, delta, v)
    phi_star = math.sqrt(rating.phi ** 2 + sigma * sigma)
    phi = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    mu = rating.mu + phi * phi * games * g * (score - e)
    return Rating(INITIAL_RATING + mu * SCALE, min(phi * SCALE, INITIAL_DEVIATION), sigma)
