"""A game's analysis in a few figures per seat: accuracy, points lost deal by deal, the costliest
decisions with the better card, the marks counted; each also with hindsight (open hands)."""

from __future__ import annotations

from . import hindsight
from .settings import MARKS


def accuracy(decisions, key: str) -> float | None:
    """Points kept of points available, in percent: over the decisions where the choice mattered,
    the played card's value above the worst legal card's, of the best one's above the worst's
    (``key``: ``seat`` or ``open``).  None when no decision mattered."""
    kept = available = 0.0
    for d in decisions:
        if d["forced"]:
            continue
        values = [v[key] for v in d["legal"].values()]
        lo, hi = min(values), max(values)
        if hi > lo:
            kept += d["legal"][d["played"]][key] - lo
            available += hi - lo
    return round(100 * kept / available, 1) if available else None


def summarise(decisions, seats, deals) -> dict:
    out = {}
    for seat in seats:
        rows = [d for d in decisions if d["seat"] == seat]
        chosen = [d for d in rows if not d["forced"]]
        by_deal = [{"deal": k,
                    "lost_seat": round(sum(d["lost_seat"] for d in chosen if d["deal"] == k), 2),
                    "lost_open": sum(d["lost_open"] for d in chosen if d["deal"] == k)} for k in deals]
        costly = sorted((i for i, d in enumerate(decisions) if d["seat"] == seat and not d["forced"]
                         and d["mark"] not in ("best", "good")),
                        key=lambda i: (-decisions[i]["lost_seat"], i))[:3]
        out[str(seat)] = {
            "decisions": len(chosen), "cards": len(rows),
            "accuracy": accuracy(rows, "seat"), "accuracy_open": accuracy(rows, "open"),
            "lost_seat": round(sum(d["lost_seat"] for d in chosen), 2),
            "lost_open": sum(d["lost_open"] for d in chosen),
            "marks": {m: sum(1 for d in rows if d["mark"] == m) for m in MARKS},
            "hindsight_marks": {m: sum(1 for d in rows if d["hindsight"] == m) for m in MARKS},
            "by_deal": by_deal,
            "costliest": [{"index": i, "deal": decisions[i]["deal"], "trick": decisions[i]["trick"],
                           "played": decisions[i]["played"], "better": decisions[i]["best_seat"][0],
                           "lost_seat": decisions[i]["lost_seat"], "mark": decisions[i]["mark"]}
                          for i in costly],
            "hindsight": hindsight.score(decisions, seat),
        }
    return out
