"""The game record of docs/spec.md §9: the verifier's output and the ops audit trail."""

from __future__ import annotations

import hashlib
import json

from .cards import cards_of
from .observation import calls_json, trick_json
from .rules import RULES_ID, TRICKS_PER_DEAL, game_result

FORMAT = "manille-game/1"


def commitment_of(seed: bytes) -> str:
    """The public commitment to a seed: lowercase hex of SHA-256(seed)."""
    return hashlib.sha256(seed).hexdigest()


def build_record(state, bots: str, *, sealed: bool = False, bidders: str | None = None) -> dict:
    """The record of a finished game; the seed is null when ``sealed`` (its day is still open).
    Under rules with an auction, ``bidders`` names the bots' callers, and each deal has its calls,
    contract and score factor in place of a turned card."""
    rules = state.rules
    auction = rules.has_auction
    bonus = rules.last_trick_bonus
    deals = []
    for log in state.deals:
        d = log.deal
        tricks = []
        for i, (trick, legals) in enumerate(log.tricks):
            t = trick_json(trick, last=i == TRICKS_PER_DEAL - 1, bonus=bonus)
            for play, legal in zip(t["plays"], legals):
                play["legal"] = [str(c) for c in cards_of(legal)]
            tricks.append(t)
        if not auction:
            head = {"index": d.index, "dealer": d.dealer, "turned": str(d.turned), "trump": str(d.trump)}
        else:
            contract = log.contract
            head = {"index": d.index, "dealer": d.dealer,
                    "trump": None if contract.trump is None else str(contract.trump),
                    "calls": calls_json(log.auction.calls), "contract": contract.to_json(),
                    "factor": log.factor}
        deals.append({
            **head,
            "hands": {str(s): [str(c) for c in d.hands[s]] for s in range(4)},
            "tricks": tricks,
            "points": list(log.points), "scored": list(log.scored), "totals": list(log.totals),
        })
    head = {"format": FORMAT, "rules": RULES_ID, "bots": bots}
    if auction:
        head = {"format": FORMAT, "rules": rules.id, "target": state.target, "bots": bots, "bidders": bidders}
    return {
        **head,
        "commitment": commitment_of(state.seed), "seed": None if sealed else state.seed.hex(),
        "deals": deals,
        **game_result(state.totals),
    }


def dumps(record: dict) -> str:
    """Canonical text of a record: compact, key order as built, so equal games give equal bytes."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=True)


def player_cards(record: dict, seat: int = 0) -> list[str]:
    """The actions of ``seat`` in order, each deal's calls before its cards: for seat 0, exactly the
    submission that replays to ``record``."""
    out = []
    for d in record["deals"]:
        out.extend(c["call"] for c in d.get("calls", ()) if c["seat"] == seat)
        out.extend(p["card"] for t in d["tricks"] for p in t["plays"] if p["seat"] == seat)
    return out


