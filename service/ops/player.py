"""The fair-play case of a player (the unit ops act on, not a game): every game over the days
indexed (``service.submissions.by_player``) with scores, flags and decisions; the notes ops keep
on the player; the addresses and user agents the games came from and the other players seen
from those networks; the reports on the player's games and the player's appeals; and the
restriction (``service.restrictions``) that ops put and lift, each action audited.

A restriction takes every verified game of the player off every public board as a
disqualification does (the boards, the field, the week's, month's and all-time boards, and so
the leagues and the embed, which read them; the matchpoints built again now), marking it
``restricted``; a lift (by ops, an appeal granted, or its end) puts each back, in the order they
were first verified.  A game disqualified or held is left to its own decision.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta

from service.errors import Conflict, NotFound, Unprocessable
from service.freshness import Freshness
from service.limits import client_network
from service.players import NICKNAME_CLAIMS, NICKNAME_OWNERS
from service.players import nickname as nicknames
from service.restrictions import Restrictions
from service.store import key_for
from service.submissions import by_player
from service import duplicate

PID_RE = re.compile(r"[0-9a-f]{24}")
#: The notes kept on a player, newest first.
NOTES_KEPT = 1000
GAME_FIELDS = ["status", "score", "date", "nickname", "deals", "verified_at", "pid", "ip", "run_ip",
               "user_agent", "run_user_agent"]


def notes_key(pid: str) -> str:
    """Ops' notes on a player (the player's own slot), newest first."""
    return key_for("notes", f"player:{pid}")


class PlayerDesk:
    def __init__(self, ops) -> None:
        self.ops = ops
        self.r = ops.r
        self.settings = ops.settings
        self.restrictions = Restrictions(ops.r, ops.settings)

    # -- finding a player ------------------------------------------------------

    def resolve(self, text: str) -> str:
        """The pid ``text`` names: a player id (as on a submission and the boards) or a nickname
        held or claimed; NotFound ``player_not_found`` when it is neither."""
        text = (text or "").strip()
        if PID_RE.fullmatch(text) and (self.r.exists(by_player.games_key(text))
                                       or self.r.exists(key_for("player", f"player:{text}"))):
            return text
        try:
            keys = nicknames.keys(nicknames.normalise(text)) if text else ()
        except Exception:  # noqa: BLE001 - a text no name can be: no such player
            keys = ()
        for index in (NICKNAME_OWNERS, NICKNAME_CLAIMS[0]):
            for key in keys:
                pid = self.r.hget(index, key)
                if pid:
                    return pid
        raise NotFound(f"no player is {text[:64]!r} (a player id or a nickname)", code="player_not_found")

    def _games(self, pid: str) -> list[tuple[str, dict]]:
        ids = by_player.game_ids(self.r, pid)
        return [(i, g) for i, g in zip(ids, self.ops.subs.get_fields(ids, GAME_FIELDS)) if g]

    # -- reading ---------------------------------------------------------------

    def view(self, pid: str) -> dict:
        """Everything ops know of the player (see the module's docstring); NotFound
        ``player_not_found`` for a player with no game and no key."""
        from service.appeals import Appeals
        from service.reports import Reports

        games = self._games(pid)
        profile = self.r.hgetall(key_for("player", f"player:{pid}"))
        if not games and not profile:
            raise NotFound("no such player", code="player_not_found")
        listed = self.ops._listed([i for i, _g in games], None, 0, None)
        addresses: dict[str, dict] = {}
        agents: dict[str, dict] = {}
        for sub_id, g in games:
            for address in dict.fromkeys(a for a in (g.get("run_ip"), g.get("ip")) if a):
                seen = addresses.setdefault(address, {"address": address, "network": client_network(address),
                                                      "games": 0, "first": g["date"], "last": g["date"]})
                seen["games"] += 1
                seen["first"], seen["last"] = min(seen["first"], g["date"]), max(seen["last"], g["date"])
            for agent in dict.fromkeys(a for a in (g.get("run_user_agent"), g.get("user_agent")) if a):
                seen = agents.setdefault(agent, {"user_agent": agent, "games": 0, "last": g["date"]})
                seen["games"] += 1
                seen["last"] = max(seen["last"], g["date"])
        others: dict[str, dict] = {}
        for network, pids in by_player.players_from(self.r, (a["network"] for a in addresses.values())).items():
            for other in pids:
                if other != pid:
                    others.setdefault(other, {"player": other, "networks": []})["networks"].append(network)
        for other in others.values():
            other["nickname"] = self.r.hget(key_for("player", f"player:{other['player']}"), "nickname")
            other["restricted"] = self.restrictions.get(other["player"]) is not None
        return {
            "player": pid, "nickname": profile.get("nickname") or None,
            "restricted": self.restrictions.get(pid),
            "games": listed, "notes": self.notes(pid),
            "addresses": sorted(addresses.values(), key=lambda a: a["last"], reverse=True),
            "user_agents": sorted(agents.values(), key=lambda a: a["last"], reverse=True),
            "others": list(others.values()),
            "reports": Reports(self.r, self.settings).on_player(pid),
            "appeals": Appeals(self.r, self.settings).of_player(pid),
        }

    def notes(self, pid: str) -> list[dict]:
        return [json.loads(n) for n in self.r.lrange(notes_key(pid), 0, -1)]

    # -- actions ---------------------------------------------------------------

    def note(self, pid: str, who: str, text: str) -> dict:
        """A note on the player, kept and audited (``note``); NotFound for no such player."""
        self._exists(pid)
        entry = {"who": who, "at": self.settings.now().isoformat(), "text": text}
        with self.r.pipeline(transaction=True) as pipe:
            pipe.lpush(notes_key(pid), json.dumps(entry, ensure_ascii=False))
            pipe.ltrim(notes_key(pid), 0, NOTES_KEPT - 1)
            pipe.execute()
        self.ops.audit(who, "note", pid, text)
        return entry

    def _exists(self, pid: str) -> None:
        if not (self.r.exists(by_player.games_key(pid)) or self.r.exists(key_for("player", f"player:{pid}"))):
            raise NotFound("no such player", code="player_not_found")

    def restrict(self, pid: str, who: str, reason: str, days: int | None = None) -> dict:
        """Restrict the player (for ``days`` days, else until lifted): their verified games off
        every board now, their new ones not ranked; a restriction in force is replaced (new reason
        and end).  Audited (``restrict``).  NotFound ``player_not_found``."""
        self._exists(pid)
        if days is not None and not 1 <= days <= 3650:
            raise Unprocessable("days: 1 to 3650", code="bad_days")
        now = self.settings.now()
        until = now + timedelta(days=days) if days else None
        self.restrictions.put(pid, reason, until, who, now)
        taken, touched = [], set()
        for sub_id, g in self._games(pid):
            if g.get("status") != "verified":
                continue
            day = date.fromisoformat(g["date"])
            self.ops.boards.remove(day, pid, int(g["score"]))
            self.r.hset(self.ops.subs.key(sub_id), "status", "restricted")
            taken.append(sub_id)
            touched.add(day)
        for day in touched:
            self.ops._rebuild_matchpoints(day)
        self.ops.audit(who, "restrict", pid, reason, until=until.isoformat() if until else None, games=taken)
        return self._changed(self.view(pid), touched)

    def lift(self, pid: str, who: str, why: str, action: str = "lift") -> dict:
        """Lift the player's restriction: their restricted games back on the boards, in the order
        first verified; audited (``action``).  Conflict ``not_restricted`` if there is none."""
        games = [(i, g) for i, g in self._games(pid) if g.get("status") == "restricted"]
        if self.restrictions.recorded(pid) is None and not games:
            raise Conflict("this player is not restricted", code="not_restricted")
        self.restrictions.clear(pid)
        touched = set()
        for sub_id, g in sorted(games, key=lambda ig: ig[1].get("verified_at") or ""):
            day = date.fromisoformat(g["date"])
            self.ops.boards.record(day, pid, g["nickname"], int(g["score"]), sub_id,
                                   deals=duplicate.parse_points(g.get("deals")))
            self.r.hset(self.ops.subs.key(sub_id), "status", "verified")
            touched.add(day)
        for day in touched:
            self.ops._rebuild_matchpoints(day)
        self.ops.audit(who, action, pid, why, games=[i for i, _g in games])
        return self._changed(self.view(pid), touched)

    def lapse(self, now: datetime | None = None) -> list[str]:
        """Lift every restriction whose end has come (the worker's maintenance); the players."""
        done = []
        for pid in self.restrictions.lapsed(now or self.settings.now()):
            try:
                self.lift(pid, "manille@worker", "its end came", action="restriction_lapsed")
            except Conflict:
                self.restrictions.clear(pid)
            done.append(pid)
        return done

    def _changed(self, answer: dict, days) -> dict:
        """An action's answer with when every public copy of the boards it changed shows it."""
        fresh = Freshness(self.settings)
        at = max((fresh.catch_up_at(d) for d in days), default=None)
        return {**answer, "caches_catch_up_at": at.isoformat() if at else None}
