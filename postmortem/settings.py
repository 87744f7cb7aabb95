"""The frozen settings of an analysis: how many deals each decision is valued over, and the bands
of the marks.  An id names them, as a bot id names a behaviour: a cached or published analysis
is always of one id, and new settings are a new id.

Samples depend on the cards left in the seat's hand because a deal's exact solve costs a few
hundred times more with eight cards in each hand than with four (bench_analysis prints it):
a fixed count per stage of the deal keeps a whole game near its time budget, and the standard
errors shown with each value say how much the early decisions' estimates are worth.  Once the
consistent deals are few, all are solved and the values are exact.
"""

from __future__ import annotations

from dataclasses import dataclass

ANALYSIS_ID = "analysis-1"

#: Deals drawn per decision by the cards in the seat's hand (8 at a deal's first trick).
SAMPLES_BY_HAND = {8: 3, 7: 6, 6: 10, 5: 24, 4: 32, 3: 32, 2: 32, 1: 32}
#: Every consistent deal is solved when there are at most this many.
ENUMERATE_UP_TO = 64

#: Marks by expected card points lost from the seat: (upper bound of the band, mark), in order;
#: above the last bound, ``blunder``.  A loss counts only when it is beyond the two-sided 95 %
#: Student t interval of the difference (best minus played) on the shared deals, ``clear(n)``
#: standard errors for ``n`` deals (few deals early in a deal: a wider margin); otherwise the
#: card is ``best``.  Exact values (every deal solved) need no margin.
BANDS = ((0.0, "best"), (1.0, "good"), (3.0, "inaccuracy"), (6.0, "mistake"))
WORST = "blunder"
#: t quantiles (0.975) by degrees of freedom.
_T975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
         12: 2.18, 15: 2.13, 20: 2.09, 23: 2.07, 31: 2.04}
MARKS = ("forced", "best", "good", "inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class AnalysisSettings:
    id: str = ANALYSIS_ID
    enumerate_up_to: int = ENUMERATE_UP_TO

    def samples(self, cards_in_hand: int) -> int:
        return SAMPLES_BY_HAND[cards_in_hand]


def band(lost: float) -> str:
    """The mark of a loss already known to be real (or exact); 0 is ``best``."""
    for bound, mark in BANDS:
        if lost <= bound:
            return mark
    return WORST


def clear(n: int) -> float:
    """How many standard errors a loss measured on ``n`` sampled deals must exceed to count: the
    t quantile of the largest tabulated degrees of freedom not above ``n - 1`` (conservative)."""
    df = n - 1
    if df < 1:
        return float("inf")
    return _T975[max(k for k in _T975 if k <= df)]


def mark(lost: float, se: float, n: int | None = None) -> str:
    """The mark of ``lost`` expected points with standard error ``se`` over ``n`` sampled deals
    (None: exact values): ``best`` unless the loss is clearly beyond the sampling error."""
    margin = 0.0 if n is None else clear(n) * se
    if lost <= margin or lost <= 1e-9:
        return "best"
    return band(lost)
