"""Did the cards turn out better with hindsight than the seat's own knowledge could expect?

For a decision where the seat played ``p`` and the best card from the seat (highest mean over the
consistent deals) was ``b``, the *gain* is

    (open(p) - open(b))  -  (seat(p) - seat(b))

the open-hand advantage of the card played over the seat's best card, less the advantage the seat
could expect.  Whoever chose on what the seat knew, good player or bad, lucky or not, has an
expected gain of zero at every decision: the true deal is, to them, one more draw from the
consistent deals.  Someone who knew the hidden cards leaves the seat's best card exactly where
the deal makes it pay, and gains.  The spread of the same difference over the consistent deals
is the gain's variance under that null (with the sampling error of the mean added), so a game's
gains add up to a z-score: ``z = sum(gain) / sqrt(sum(var))``.  A decision where the seat's best
card was played says nothing (gain 0, variance 0): only departures from it count.
"""

from __future__ import annotations

import math


def per_card(ev, open_values: dict[int, int]) -> dict[str, dict]:
    """For each legal card, were it the one played: its gain and the gain's variance (above)."""
    from service.replay.cards import DECK

    best = max(ev.cards, key=lambda c: (ev.mean(c), -c))
    top = ev.mean(best)
    n = ev.deals
    out = {}
    for p in ev.cards:
        if ev.mean(p) >= top:
            out[str(DECK[p])] = {"gain": 0.0, "var": 0.0}
            continue
        diffs = [x - y for x, y in zip(ev.values[p], ev.values[best])]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / n
        if not ev.exact:  # the mean is estimated too: its own variance adds to the null's
            var = var * n / max(n - 1, 1) * (1 + 1 / n)
        gain = (open_values[p] - open_values[best]) - mean
        out[str(DECK[p])] = {"gain": round(gain, 3), "var": round(var, 3)}
    return out


def score(decisions, seat: int, from_trick: int = 0) -> dict:
    """A seat's gains over the decisions of a game (those of trick ``from_trick`` of each deal on):
    the total, its null variance, the z-score and the decisions that drive it (largest first)."""
    rows = [d for d in decisions if d["seat"] == seat and not d["forced"] and d["trick"] >= from_trick]
    gain = sum(d["luck"]["gain"] for d in rows)
    var = sum(d["luck"]["var"] for d in rows)
    departures = [d for d in rows if d["luck"]["var"] > 0 or d["luck"]["gain"] != 0]
    z = gain / math.sqrt(var) if var > 0 else 0.0
    drivers = sorted(departures, key=lambda d: (-d["luck"]["gain"], d["deal"], d["trick"]))[:5]
    return {"gain": round(gain, 2), "var": round(var, 2), "z": round(z, 2), "from_trick": from_trick,
            "decisions": len(rows), "departures": len(departures),
            "drivers": [{"deal": d["deal"], "trick": d["trick"], "played": d["played"],
                         "seat_best": d["best_seat"][0], "gain": d["luck"]["gain"]} for d in drivers]}
