"""A run's terms: the rules and target it is played under, its bots and bidder, and free play's
strengths (the bots of each table a player may choose)."""

from __future__ import annotations

from bots import get_bidder


def game_terms(run: dict) -> dict:
    """The rules and target a run (or its ``terms``) is played under, as ``GameState`` takes them;
    runs stored before free play had variants name only the rules (muette-1, its one target)."""
    target = run.get("target")
    return {"rules": run.get("rules") or None, "target": int(target) if target else None}


def bidder_of(run: dict):
    """The bidder of a run under rules with an auction; None for muette-1 (no calls)."""
    return get_bidder(run["bidder"]) if run.get("bidder") else None


#: Free play's strengths, weakest first: the beginner's and the club's table are these bots under
#: every rules id; the strongest is the day's bot (``free_strengths``).
BEGINNER_BOTS = "greedy-1"
CLUB_BOTS = "expert-1"
STRENGTHS = ("beginner", "club", "strongest")
