"""A player's copy of what is kept about them (GDPR articles 15 and 20), as JSON: the player key
(when made, the nickname last claimed and the one held), the nicknames they played under (the
history, from their games), every game indexed with its cards, times, verdict and the clients
(addresses and user agents) it was played and submitted from, the runs still kept with theirs,
the leagues and duels they are in, their devices, passkeys and the devices' trail, their rating
and its history, and what ops decided about them that they may read (restriction, appeals).  A game's record (docs/spec.md §9) is replayed on request: its link.
"""
from __future__ import annotations

import json

from service.appeals import Appeals, public
from service.leagues import Leagues
from service.players.devices import TRAIL_KEPT, Devices, trail
from service.players.passkeys import Passkeys
from service.ratings import Ratings
from service.restrictions import Restrictions
from service.store import key_for, shard_of
from service.submissions import Submissions, by_player

#: The export's format: a field added keeps it, one changed or removed raises it.
FORMAT = 1
SCAN_COUNT = 1000
RUN_FIELDS = ("kind", "status", "created_at", "ip", "agent")


def export_player(client, settings, pid: str, players) -> dict:
    """Everything kept about ``pid`` (see the module); an erased or unknown pid's copy is empty."""
    subs = Submissions(client, settings)
    games = []
    for sub_id in by_player.game_ids(client, pid):
        try:
            sub = subs.get(sub_id)
        except Exception:  # noqa: BLE001 - an index entry whose submission is gone: nothing kept
            continue
        sub["record"] = f"/api/v1/submissions/{sub_id}/record"
        games.append(sub)
    history: list[dict] = []
    for game in sorted(games, key=lambda g: g.get("created_at") or ""):
        if game.get("nickname") and (not history or history[-1]["nickname"] != game["nickname"]):
            history.append({"nickname": game["nickname"], "first_used": game.get("created_at")})
    profile = players.profile(pid)
    restriction = Restrictions(client, settings).get(pid)
    devices = Devices(client)
    return {
        "format": FORMAT, "player": pid, "exported_at": settings.now().isoformat(),
        "profile": {"created_at": profile.get("created_at"), "nickname": players.name_of(pid),
                    "held": profile.get("held")},
        "nickname_history": history,
        "games": games,
        "runs": _runs(client, pid),
        "leagues": Leagues(client).mine(pid),
        "duels": _duels(client, pid),
        "restriction": restriction,
        "appeals": [public(a) for a in Appeals(client, settings).of_player(pid)],
        "devices": devices.listed(pid, current=""),
        "passkeys": Passkeys(client, devices).listed(pid),
        "device_trail": trail(client, pid, count=TRAIL_KEPT),
        "rating": Ratings(client).player(pid),
    }


def _runs(client, pid: str) -> list[dict]:
    """The player's runs still kept (their day's shard), with the client each was opened from."""
    from service.runs.store import AGENTS

    out = []
    for key in client.scan_iter(match=key_for("run", f"day:*/{shard_of(pid):02d}", "*"), count=SCAN_COUNT):
        values = client.hmget(key, ["pid", *RUN_FIELDS])
        if values[0] != pid:
            continue
        run = dict(zip(RUN_FIELDS, values[1:]))
        run["user_agent"] = client.hget(AGENTS, run.pop("agent")) if run.get("agent") else None
        day, shard = key.split("{day:", 1)[1].split("}", 1)[0].split("/")
        run["run_id"] = f"{day.replace('-', '')}-{shard}-{key.rsplit(':', 1)[1]}"
        out.append(run)
    return sorted(out, key=lambda r: r["run_id"])


def _duels(client, pid: str) -> list[dict]:
    """The player's results in the duels still kept, by duel code."""
    out = []
    for key in client.scan_iter(match=key_for("duel", "duel:*"), count=SCAN_COUNT):
        result = client.hget(key, f"result:{pid}")
        if result is not None:
            code = key.split("{duel:", 1)[1].split("}", 1)[0]
            out.append({"duel": code, "result": json.loads(result)})
    return sorted(out, key=lambda d: d["duel"])
