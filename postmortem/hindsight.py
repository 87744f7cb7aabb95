"""Did the cards turn out better with hindsight than the seat's own knowledge could expect?

At a decision where the seat played ``p`` and the baseline policy (``game.BASELINE``, expert-1
whatever bots the game was played against: a pure function of the observation, applied to every
player alike, as DIVAT does in poker) would have played ``u``, the *gain* is

    (open(p) - open(u))  -  mean over the consistent deals of (value(p) - value(u))

the open-hand advantage of the card played over the baseline's, less the advantage the seat
could expect from what it knew.  Whoever chose on what the seat knew, good player or bad, lucky
or not, has an expected gain of zero at every decision: the true deal is, to them, one more draw
from the consistent deals, and neither ``p`` nor ``u`` depends on it.  (A reference chosen from
the sampled deals, such as the card with the best mean, would not do: its mean is the largest of
several noisy ones, too high on average, which makes every departure from it look lucky.)
Someone who knew the hidden cards leaves the baseline's card exactly where the deal makes it pay,
and gains.  The spread of the same difference over the consistent deals is the gain's variance
under that null (with the sampling error of the mean added), so a game's gains add up to a
z-score: ``z = sum(gain) / sqrt(sum(var))``.  A decision where the baseline's card was played
says nothing (gain 0, variance 0): only departures from it count.

The spread is measured on few deals early in a deal (3 at its first trick, 6 at its second:
``postmortem.settings``), and a variance from so few is often far below the truth (all three deals
alike: 0), which gave the z heavy tails.  ``score`` therefore takes each departure's variance
shrunk towards the pooled one of its stage (``null_var``): its own, over ``n`` drawn deals, weighs
``n - 1``, the pooled one ``POOLED_WEIGHT``; exact values (every consistent deal solved) are taken
as they are.  The decisions' stored figures (``per_card``, in the analysis document) are unchanged:
``CHECK_ID`` names the statistic computed from them.
"""

from __future__ import annotations

import math

from service.replay.cards import DECK


def per_card(ev, open_values: dict[int, int], baseline: int) -> dict[str, dict]:
    """For each legal card, were it the one played: its gain over ``baseline`` (the baseline
    policy's card, by id) and the gain's variance (above)."""
    n = ev.deals
    out = {}
    for p in ev.cards:
        if p == baseline:
            out[str(DECK[p])] = {"gain": 0.0, "var": 0.0}
            continue
        diffs = [x - y for x, y in zip(ev.values[p], ev.values[baseline])]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / n
        if not ev.exact:  # the mean is estimated too: its own variance adds to the null's
            var = var * n / max(n - 1, 1) * (1 + 1 / n)
        gain = (open_values[p] - open_values[baseline]) - mean
        out[str(DECK[p])] = {"gain": round(gain, 3), "var": round(var, 3)}
    return out


#: The statistic ``score`` computes: a changed estimator is a new id (kept with a check's figures).
CHECK_ID = "hindsight-2"
#: The pooled variance of a departure's difference (played less baseline) over the consistent deals,
#: by trick of the deal (fewer cards in hand: a narrower spread), measured on the honest and
#: open-handed games of ``scripts/hindsight_rates.py`` (the drawn deals never depend on the true one,
#: so every kind's departures measure it alike); past the last trick listed, the last one's.
POOLED_VAR = {1: 23.7, 2: 23.3, 3: 19.3, 4: 17.3, 5: 11.0, 6: 9.6}
#: The pooled variance's weight, in deals (docs/performance.md#the-flags measures the z it gives).
POOLED_WEIGHT = 8.0


def null_var(trick: int, worlds: int, exact: bool, var: float) -> float:
    """The null variance ``score`` counts for a departure whose decision's own (``per_card``'s
    ``var``, over ``worlds`` drawn deals) is ``var``: as it is when ``exact``, else its sample
    variance shrunk towards the stage's pooled one, the mean's sampling error added."""
    if exact:
        return var
    n = max(worlds, 1)
    own = var / (1 + 1 / n)  # per_card's unbiased sample variance, before the mean's error
    pooled = POOLED_VAR.get(trick, POOLED_VAR[max(POOLED_VAR)])
    return (max(n - 1, 0) * own + POOLED_WEIGHT * pooled) / (max(n - 1, 0) + POOLED_WEIGHT) * (1 + 1 / n)


def total(rows) -> tuple[float, float]:
    """The gain and null variance of a game's decisions, each ``(trick, worlds, exact, gain, var,
    departure)``: a decision where the baseline's card was played adds nothing."""
    gain = var = 0.0
    for trick, worlds, exact, g, v, departure in rows:
        if departure:
            gain += g
            var += null_var(trick, worlds, exact, v)
    return gain, var


def score(decisions, seat: int, from_trick: int = 0) -> dict:
    """A seat's gains over the decisions of a game (those of trick ``from_trick`` of each deal on):
    the total, its null variance (``null_var``), the z-score and the decisions that drive it
    (largest first)."""
    rows = [d for d in decisions if d["seat"] == seat and not d["forced"] and d["trick"] >= from_trick]
    departures = [d for d in rows if d["played"] != d["baseline"]]
    gain, var = total((d["trick"], d["worlds"], d["exact"], d["luck"]["gain"], d["luck"]["var"], True)
                      for d in departures)
    z = gain / math.sqrt(var) if var > 0 else 0.0
    drivers = sorted(departures, key=lambda d: (-d["luck"]["gain"], d["deal"], d["trick"]))[:5]
    return {"gain": round(gain, 2), "var": round(var, 2), "z": round(z, 2), "from_trick": from_trick,
            "decisions": len(rows), "departures": len(departures),
            "drivers": [{"deal": d["deal"], "trick": d["trick"], "played": d["played"],
                         "baseline": d["baseline"], "seat_best": d["best_seat"][0], "gain": d["luck"]["gain"]}
                        for d in drivers]}
