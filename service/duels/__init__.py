"""Duels ("Challenge a friend"): the same game sent to a friend, and both results side by side.

After a finished free or archive game, its player makes a duel: a code of 128 random bits that
names the game's terms (rules, target, bots, bidder, and the seed or the archive day) without
carrying them, so a friend cannot read the hands from the link.  Whoever opens the link plays the
same deals, unranked, once (their first run of it is theirs for good); once their game is over
they see every result of the duel deal by deal (the card points each took on each deal, and
their matchpoints against each other, as the day's field shows them) and may ask for the
analysis of each game.  A duel lasts ``KEEP_SECONDS`` (7 days) from its making, then is gone
with its results: a link older than that answers 404 ``unknown_duel``.

Stored in one hash under the duel's own tag (``{duel:<code>}``, one slot): the terms, who made
it and from which run, each player's run (``run:<pid>``) and result (``result:<pid>``: their
seat-0 actions, card points deal by deal, totals and rank score, nickname).  The challenger's
run notes its duel (``duel``), so that making it again answers the same one.  No answer carries a
player's token or pid: results are named by their ``result_id`` (a hash of the duel and the
player) and their nickname.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from datetime import datetime, timedelta

from service.duplicate.field import game_matchpoints, matchpoints, one_decimal, two_decimals
from service.errors import Conflict, NotFound
from service.replay import rank_score
from service.replay.rules import DEAL_POINTS
from service.store import key_for, load_script, run_replicated

KEEP_SECONDS = 7 * 86400
#: How many friends may play one duel (a link shared in a group chat; each result is ~200 B).
MAX_FRIENDS = 50
CODE_RE = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16): 128 bits
#: The page that plays a duel (``service.web``).
PAGE_PATH = "/duel/"
#: What a duel copies of its game's run: what makes the same game again.
TERMS = ("kind", "date", "seed", "rules", "target", "bots", "bidder")


def duel_full() -> Conflict:
    return Conflict(f"{MAX_FRIENDS} friends have played this duel already", code="duel_full", limit=MAX_FRIENDS)


def key(code: str) -> str:
    return key_for("duel", f"duel:{code}")


def unknown_duel() -> NotFound:
    return NotFound("no such duel (a duel lasts 7 days after it is made)", code="unknown_duel")


def check_code(code) -> str:
    if not isinstance(code, str) or not CODE_RE.fullmatch(code):
        raise unknown_duel()
    return code


def result_id(code: str, pid: str) -> str:
    """A result's public name: the same for the same player and duel, and no clue to the player."""
    return hashlib.sha256(f"{code}|{pid}".encode()).hexdigest()[:16]


def game_result(state, cards: str, nickname: str | None, now: datetime) -> dict:
    """What a duel keeps of a finished game: seat 0's stored actions, its side's card points deal by
    deal, the totals and rank score, the player's nickname (or None) and when it ended."""
    points = [log.points[0] for log in state.deals if log.totals is not None]
    totals = list(state.totals)
    return {"cards": cards, "points": points, "totals": totals, "score": rank_score(tuple(totals)),
            "nickname": nickname, "finished_at": now.isoformat()}


class Duels:
    def __init__(self, client, wait_ms: int = 0) -> None:
        self.r = client
        self.wait_ms = wait_ms
        self._open = load_script(client, __file__, "open_duel.lua")
        self._record = load_script(client, __file__, "record_result.lua")
        self._make = load_script(client, __file__, "make_duel.lua")

    def make(self, run: dict, terms: dict, result: dict, now: datetime) -> str:
        """A new duel of ``run``'s game (its ``terms``: ``TERMS``), with its player's ``result``
        recorded; returns its code.  The caller notes it on the run (``Runs.note_duel``), and
        ``drop``s it if another request noted one first."""
        code = secrets.token_urlsafe(16)
        expires = now + timedelta(seconds=KEEP_SECONDS)
        fields = {k: str(v) for k, v in terms.items() if v not in (None, "")}
        fields.update(by=run["pid"], run=run["id"], created_at=now.isoformat(), expires_at=expires.isoformat(),
                      friends="0")
        fields[f"result:{run['pid']}"] = json.dumps(result, separators=(",", ":"))
        run_replicated(self.r, self._make, [key(code)], [KEEP_SECONDS, *(x for kv in fields.items() for x in kv)],
                       self.wait_ms)
        return code

    def drop(self, code: str) -> None:
        """Delete a duel made in vain (its run noted another one first)."""
        self.r.unlink(key(code))

    def get(self, code: str) -> dict:
        """The duel's fields; NotFound ``unknown_duel`` once expired, or for a code that is none."""
        fields = self.r.hgetall(key(check_code(code)))
        if not fields:
            raise unknown_duel()
        return fields

    def claim_run(self, code: str, pid: str, run_id: str) -> str | None:
        """Make ``run_id`` the player's run of the duel; None if it is now, else the run the player
        opened before.  NotFound once expired; Conflict ``duel_full``."""
        got = run_replicated(self.r, self._open, [key(code)], [pid, run_id, MAX_FRIENDS], self.wait_ms)[0]
        if got == "ok":
            return None
        if got == "gone":
            raise unknown_duel()
        if got == "full":
            raise duel_full()
        return got

    def record(self, code: str, pid: str, result: dict) -> bool:
        """Keep the player's finished game on the duel, once; False if kept before or expired."""
        return bool(run_replicated(self.r, self._record, [key(code)],
                                   [pid, json.dumps(result, separators=(",", ":"))], self.wait_ms)[0])


class DuelView:
    """A duel as ``pid`` (None: no token) reads it."""

    def __init__(self, code: str, fields: dict, pid: str | None) -> None:
        self.code = code
        self.fields = fields
        self.pid = pid
        self.results = {k.split(":", 1)[1]: json.loads(v) for k, v in fields.items() if k.startswith("result:")}

    @property
    def challenger(self) -> str:
        return self.fields["by"]

    @property
    def terms(self) -> dict:
        return {k: self.fields[k] for k in TERMS if self.fields.get(k)}

    def run_of(self, pid: str | None) -> str | None:
        return self.fields.get(f"run:{pid}") if pid else None

    @property
    def role(self) -> str | None:
        if self.pid is None:
            return None
        if self.pid == self.challenger:
            return "challenger"
        return "friend" if self.run_of(self.pid) else None

    @property
    def full(self) -> bool:
        return int(self.fields.get("friends") or 0) >= MAX_FRIENDS

    @property
    def done(self) -> bool:
        """Whether the reader may see every result: the challenger, or a friend whose game is over."""
        return self.pid is not None and self.pid in self.results

    def result(self, rid: str) -> tuple[str, dict]:
        """(pid, result) of the result named ``rid``; NotFound ``unknown_result``."""
        for pid, res in self.results.items():
            if result_id(self.code, pid) == rid:
                return pid, res
        raise NotFound("no such result in this duel", code="unknown_result")

    def ordered(self) -> list[tuple[str, dict]]:
        """The results: the challenger's, the reader's, then the others as they finished."""
        def order(item):
            pid, res = item
            return (pid != self.challenger, pid != self.pid, res.get("finished_at", ""), result_id(self.code, pid))
        return sorted(self.results.items(), key=order)

    def compared(self) -> list[dict]:
        """Every result deal by deal: the card points each took, and their matchpoints on each deal
        against the others who played it (100 × (beaten + tied / 2) / (results − 1)), with each
        game's mean, as the day's field has them."""
        ordered = self.ordered()
        deals = max((len(res["points"]) for _pid, res in ordered), default=0)
        per_deal: dict[str, list] = {pid: [] for pid, _ in ordered}
        for k in range(deals):
            on = [(pid, res["points"][k]) for pid, res in ordered if k < len(res["points"])]
            for pid, us in on:
                beaten = sum(1 for _p, other in on if other < us)
                tied = sum(1 for _p, other in on if other == us) - 1
                per_deal[pid].append({"deal": k, "us": us, "them": DEAL_POINTS - us,
                                      "mp": matchpoints(beaten, tied, len(on))})
        out = []
        for pid, res in ordered:
            mps = [d["mp"] for d in per_deal[pid]]
            out.append({"result_id": result_id(self.code, pid), "nickname": res.get("nickname"),
                        "challenger": pid == self.challenger, "you": pid == self.pid, "score": res["score"],
                        "totals": res["totals"], "winner": "us" if res["totals"][0] > res["totals"][1] else "them",
                        "mp": two_decimals(game_matchpoints(mps)),
                        "deals": [{**d, "mp": one_decimal(d["mp"])} for d in per_deal[pid]]})
        return out

    def to_json(self) -> dict:
        f = self.fields
        head = self.results.get(self.challenger, {})
        out = {"duel_id": self.code, "url": PAGE_PATH + self.code, "kind": f.get("kind"),
               "date": f.get("date") if f.get("kind") == "archive" else None,
               "rules": f.get("rules"), "target": int(f["target"]) if f.get("target") else None,
               "bots": f.get("bots"), "created_at": f.get("created_at"), "expires_at": f.get("expires_at"),
               "challenger": {"nickname": head.get("nickname"), "score": head.get("score")},
               "you": self.role, "run_id": self.run_of(self.pid), "done": self.done,
               "players": len(self.results), "results": self.compared() if self.done else []}
        return out


__all__ = ["CODE_RE", "DuelView", "Duels", "KEEP_SECONDS", "MAX_FRIENDS", "PAGE_PATH", "TERMS", "check_code", "duel_full",
           "game_result", "key", "result_id", "unknown_duel"]
