"""Runs opened: a ranked or archive run of a day, free play (its rules, target and table), a duel's
game; each checked before anything is stored, then created in one script with the bots' first
cards (``open_run.lua``)."""

from __future__ import annotations

import secrets
from datetime import date, datetime

from bots import get_bot
from service.errors import Conflict, NotFound, Unprocessable
from service.limits import client_network
from service.replay import RULES, RULES_ID, UnknownRulesError, rules_for
from service.seeds import free_play_seed
from service.store import run_replicated, shard_of

from . import table as tbl
from .store import path_hash, stored_actions, stored_run
from .terms import BEGINNER_BOTS, CLUB_BOTS, game_terms


class RunOpening:
    """``Runs``' opening of runs (its store's keys and scripts: ``RunStore``; the bots' first cards:
    ``Runs.move_bots``)."""

    def open(self, day: date, pid: str, *, ip: str = "", user_agent: str = "",
             now: datetime | None = None) -> tuple[dict, tbl.Table]:
        """Open a run on ``day``: ranked while the day is open, archive once its seed is public."""
        now = now or self.settings.now()
        phase = self.settings.clock.phase(day, now)
        if phase == "upcoming":
            raise NotFound(f"no challenge for {day.isoformat()} yet", code="unknown_date")
        if phase == "closing":
            reveal = self.settings.clock.reveals_at(day).isoformat()
            raise Conflict(f"the day {day.isoformat()} has closed; its seed is published at {reveal}",
                           code="day_closed", reveal_at=reveal)
        kind = "ranked" if phase == "open" else "archive"
        return self._create(day, pid, kind, self.settings.seed(day), ip=ip, user_agent=user_agent, now=now)

    def open_random(self, pid: str, *, rules: str | None = None, target: int | None = None,
                    bots: str | None = None, ip: str = "", user_agent: str = "",
                    now: datetime | None = None) -> tuple[dict, tbl.Table]:
        """Open a free-play run on a fresh random seed, never ranked: under the day's rules
        (``rules`` None or the day's), or under ``rules`` to ``target`` (None: its default) with
        ``Settings.variant_bidder``; against ``bots``, one of ``free_strengths`` for those rules
        (None: the strongest).  Raises Unprocessable ``unknown_rules`` / ``unknown_target`` /
        ``unknown_bots`` (with the allowed values) before anything is stored."""
        now = now or self.settings.now()
        day = self.settings.today(now)
        terms = self.free_terms(day, rules, target, bots)
        if self.pool is not None and getattr(get_bot(terms["bots"]), "searches", None) is not None:
            self.pool.admit()  # full: bots_busy, before anything is stored
        return self._create(day, pid, "random", free_play_seed(), ip=ip, user_agent=user_agent, now=now,
                            terms=terms)

    def free_strengths(self, day: date) -> dict[str, dict[str, str]]:
        """Free play's tables on ``day``, by rules id: the bot id of each strength (``STRENGTHS``).
        The strongest is the day's bot under its rules, ``Settings.variant_bots`` under the rules
        with an auction (the searching bots play those as expert-1 does)."""
        day_bots = self.challenges.stored_terms(day, create=False)["bots"]
        return {rid: {"beginner": BEGINNER_BOTS, "club": CLUB_BOTS,
                      "strongest": self.settings.variant_bots if r.has_auction else day_bots}
                for rid, r in RULES.items()}

    def free_terms(self, day: date, rules: str | None, target: int | None, bots: str | None) -> dict:
        """The run fields of free play on ``day`` under ``rules`` to ``target`` against ``bots``;
        raises Unprocessable ``unknown_rules``, ``unknown_target`` or ``unknown_bots``."""
        terms = self.variant_terms(rules, target) or {"rules": RULES_ID}
        tables = self.free_strengths(day)[terms["rules"]]
        allowed = list(dict.fromkeys(tables.values()))
        if bots is None:
            bots = tables["strongest"]
        elif bots not in allowed:
            raise Unprocessable(f"free play under {terms['rules']} offers the bots {', '.join(allowed)}, "
                                f"not {str(bots)[:32]!r}", code="unknown_bots", allowed=allowed)
        return {**terms, "bots": bots}

    def open_duel(self, pid: str, code: str, terms: dict, *, ip: str = "", user_agent: str = "",
                  now: datetime | None = None) -> tuple[dict, tbl.Table]:
        """Open a run of the duel ``code``'s game (``terms``: ``service.duels.TERMS``): its seed (a
        random deal's, kept with the run as free play keeps it) or its archive day's, against the
        same bots under the same rules; unranked, kept as practice runs are."""
        now = now or self.settings.now()
        if terms.get("seed"):
            day, seed, extra = self.settings.today(now), bytes.fromhex(terms["seed"]), {"seed": terms["seed"]}
        else:
            day = date.fromisoformat(terms["date"])
            seed, extra = self.settings.seed(day), {}
        game = {k: terms[k] for k in ("rules", "target", "bots", "bidder") if terms.get(k)}
        return self._create(day, pid, "duel", seed, ip=ip, user_agent=user_agent, now=now, terms=game,
                            extra={"duel": code, **extra})

    def variant_terms(self, rules: str | None, target: int | None) -> dict | None:
        """The run fields of free play under ``rules`` to ``target``: None for the day's own rules
        (muette-1 to its one target); raises Unprocessable ``unknown_rules`` or ``unknown_target``."""
        try:
            chosen = rules_for(rules)
        except UnknownRulesError:
            raise Unprocessable(f"unknown rules {str(rules)[:32]!r}", code="unknown_rules",
                                allowed=list(RULES)) from None
        try:
            target = chosen.check_target(target)
        except UnknownRulesError:
            raise Unprocessable(f"{chosen.id} plays to {' or '.join(map(str, chosen.targets))}",
                                code="unknown_target", allowed=list(chosen.targets)) from None
        if not chosen.has_auction:
            return None
        return {"rules": chosen.id, "target": str(target), "bots": self.settings.variant_bots,
                "bidder": self.settings.variant_bidder}

    def _create(self, day: date, pid: str, kind: str, seed: bytes, *, ip: str, user_agent: str,
                now: datetime, terms: dict | None = None, extra: dict | None = None) -> tuple[dict, tbl.Table]:
        ranked = kind == "ranked"
        challenge = self.challenges.get(day, create=True, now=now)
        terms = terms or {"rules": challenge.rules, "bots": challenge.bots}
        shard = shard_of(pid)
        run_id = self.ranked_id(day, pid) if ranked else f"{day:%Y%m%d}-{shard:02d}-{secrets.token_urlsafe(12)}"
        table = tbl.replay(seed, [], deal_start=True, **game_terms(terms))
        bots_run = {"kind": kind, "date": day.isoformat(), **terms, **(extra or {})}
        if kind == "random":
            bots_run["seed"] = seed.hex()
        plays, _cpu_ms = self.move_bots(table, bots_run, seed, "")
        agent = self.remember_agent(user_agent[:256])
        run = {
            "id": run_id, "pid": pid, "date": day.isoformat(), "ranked": "1" if ranked else "0",
            "kind": kind, **terms, "status": "playing",
            "cards": "", "plays": stored_actions(plays),
            "created_at": now.isoformat(), "finished_at": "", "submission": "",
            "ip": ip[:64], "agent": agent,
        }
        if kind == "random":
            run["seed"] = seed.hex()  # a daily seed is never stored: it derives from the secret
        run.update(extra or {})
        ttl = self.ranked_ttl(day, now) if ranked else self.practice_ttl()
        args = ["1" if ranked else "0", run_id, ttl, path_hash(""), path_hash(client_network(ip))]
        for k, v in stored_run(run).items():
            args += [k, v]
        (created, got), _acked = run_replicated(
            self.r, self._open, [self.key(run_id), self.address_runs_key(day, shard), self.paths_key(day, shard),
                                 self.lines_key(day, shard)],
            args, self.settings.redis_wait_ms)
        if not created:
            raise Conflict(f"this player already has a ranked run on {day.isoformat()}",
                           code="already_played", run_id=got)
        self.games.put(run_id, seed, run["plays"], table.state)
        return run, table
