"""The benchmarks' and measurements' summary figures of a sample, one definition each."""

from __future__ import annotations

import math
import statistics
import time


def pct(values, p: float) -> float:
    """The ``p``-th percentile (0 to 100) of ``values``: the sorted value nearest ``p`` % of the way
    from the smallest to the largest; IndexError for an empty sample."""
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def quantile(values, q: float) -> float:
    """The ``q`` quantile (0 to 1) of ``values`` by nearest rank: the smallest value with at least
    ``q`` of the sample at or below it (so with 100 values or fewer, p99 is the largest); IndexError
    for an empty sample."""
    xs = sorted(values)
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]


def median_ms(fn, times: int) -> float:
    """The median of ``times`` calls of ``fn``, in milliseconds of the wall clock."""
    samples = []
    for _ in range(times):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)
