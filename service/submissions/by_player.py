"""A player's games across days and the players seen from one client network: the indexes a
fair-play case is read from (``service.ops.player``).

A submission's key lives in its day's shard, so nothing of a day tells which days a player
played; each submission is noted, as it is stored, in the player's own slot (``service.players``,
as the hidden-information check's ``checked`` games are) and in its networks' (the run's and the
submission's, ``service.limits.client_network``).  The game index keeps the player's most recent
``GAMES_KEPT`` games for good, as the submissions are; a network's players are kept
``NETWORK_KEEP_SECONDS`` after the last game from it (an address is personal data, kept for the
time a case needs it).
"""

from __future__ import annotations

from datetime import date

from service.limits import client_network
from service.store import id_of, id_tail, key_for, shard_of

#: A player's most recent games indexed: more than a year of daily games.
GAMES_KEPT = 400
#: How long a network remembers the players that submitted from it after its last one.
NETWORK_KEEP_SECONDS = 90 * 86400


def games_key(pid: str) -> str:
    """The player's games, by day (the player's own slot)."""
    return key_for("games", f"player:{pid}")


def network_key(network: str) -> str:
    """The players that submitted from ``network`` (its own slot), by when they were last seen."""
    return key_for("seen_from", f"net:{network}")


def note(pipe, pid: str, day: date, sub_id: str, addresses, at: float) -> None:
    """Queue on ``pipe`` the index entries of a submission just made: the player's game (without
    the day and shard its id begins with: ``store.id_tail``) and the player under each network of
    ``addresses`` (the empty one skipped)."""
    key = games_key(pid)
    pipe.zadd(key, {id_tail(sub_id): day.toordinal()})
    pipe.zremrangebyrank(key, 0, -GAMES_KEPT - 1)
    for network in {client_network(a) for a in addresses if a}:
        pipe.zadd(network_key(network), {pid: at})
        pipe.expire(network_key(network), NETWORK_KEEP_SECONDS)


def game_ids(client, pid: str) -> list[str]:
    """The player's indexed submissions, newest first."""
    return [id_of(date.fromordinal(int(day)), shard_of(pid), tail)
            for tail, day in client.zrevrange(games_key(pid), 0, -1, withscores=True)]


def players_from(client, networks) -> dict[str, list[str]]:
    """Each network of ``networks`` -> the players that submitted from it, last seen first."""
    networks = list(dict.fromkeys(networks))
    pipe = client.pipeline(transaction=False)
    for network in networks:
        pipe.zrevrange(network_key(network), 0, 999)
    return dict(zip(networks, pipe.execute()))
