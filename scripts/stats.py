"""The benchmarks' and measurements' summary figures of a sample, one definition each."""

from __future__ import annotations

import math


def pct(values, p: float) -> float:
    """The ``p``-th percentile (0 to 100) of ``values``: the sorted value nearest ``p`` % of the way
    from the smallest to the largest; ValueError-free for one value, IndexError for none."""
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def quantile(values, q: float) -> float:
    """The ``q`` quantile (0 to 1) of ``values`` by nearest rank: the smallest value with at least
    ``q`` of the sample at or below it (so with 100 values or fewer, p99 is the largest); IndexError
    for none."""
    xs = sorted(values)
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]
