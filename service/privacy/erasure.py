"""A player's erasure (GDPR article 17): ``erase_player`` walks ``ERASERS``, each taking the
player out of one kind of data, so that a kind added later (devices, ratings, open data files)
is one more eraser in the list (the devices and passkeys, the ratings' kept pages).

What stays is what others' results need, under the pseudonym (``service.privacy.pseudonym``):
every game and its score on the boards, the field, the leagues and the duels, so that no other
player's rank or matchpoints move.  What goes: the nicknames (released for anyone to take, and
replaced wherever a value held them), the token of every device of the player (the player key
and each device: they answer 401 from then on), the passkeys,
the addresses and user agents of the player's runs and submissions (and the player under their
networks).  A game held or still waiting for its verdict keeps its client (the fair-play
evidence) until it is decided; the retention sweep (``service.privacy.retention``) erases it
then.  Ops' own records (restrictions, notes, reports, appeals, the audit log) name the player
by pid only and are kept.  Erasures are rare, so the kinds kept in slots of their own (a day's
runs, each board's names, each duel) are found by SCAN, not by an index kept for every player.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable

from service.limits import client_network
from service.players import ERASED_SECONDS, NICKNAME_CLAIMS, NICKNAME_OWNERS, Players
from service.players import nickname as nicknames
from service.players.devices import device_key, devices_key, trail_key
from service.players.passkeys import passkey_key, passkeys_key
from service.ratings import VERSION as RATINGS_VERSION
from service.leaderboard.keys import EPOCH
from service.leagues import Leagues
from service.runs.store import AGENTS
from service.store import key_for, pipelined
from service.submissions import Submissions, by_player, codec

from . import EVIDENCE, pseudonym

#: Verdicts still to come or held for ops: the game keeps its client (address, agent) meanwhile.
UNDECIDED = ("queued", "delayed", "held")
SCAN_COUNT = 1000
CLIENT_PARTS = ("run_ip", "run_agent", "ip", "agent")


@dataclass
class Erasure:
    """One erasure under way: who, the pseudonym, and what the erasers found and did."""
    client: object
    settings: object
    pid: str
    alias: str
    names: set = field(default_factory=set)
    agents: set = field(default_factory=set)
    addresses: set = field(default_factory=set)
    kept_evidence: list = field(default_factory=list)
    counts: dict = field(default_factory=dict)

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n


def _scan(client, pattern: str):
    return client.scan_iter(match=pattern, count=SCAN_COUNT)


def _player_key(pid: str) -> str:
    return Players._key(pid)


def erase_submissions(e: Erasure) -> None:
    """Each indexed game: the nickname replaced; its clients blanked unless undecided (kept as
    evidence).  Notes the names, addresses and agents found, for the erasers after it."""
    subs = Submissions(e.client, e.settings)
    ids = by_player.game_ids(e.client, e.pid)
    keys = [subs.key(i) for i in ids]
    stored = pipelined(e.client, lambda pipe: [pipe.hmget(k, ["nickname", codec.GAME, "status", "pid"]) for k in keys])
    with e.client.pipeline(transaction=False) as pipe:  # keys of several slots (a cluster)
        for sub_id, key, (name, game, status, pid) in zip(ids, keys, stored):
            if pid != e.pid:
                continue
            if name:
                e.names.add(name)
                pipe.hset(key, "nickname", e.alias)
                e.count("submissions")
            if game:
                parts = codec.unpack_game(game)
                e.addresses.update(parts.get(p) for p in ("run_ip", "ip") if parts.get(p))
                e.agents.update(parts.get(p) for p in ("run_agent", "agent") if parts.get(p) not in (None, "", "-"))
                if status in UNDECIDED:
                    e.kept_evidence.append(sub_id)
                else:
                    pipe.hset(key, codec.GAME, blank_clients(game))
        pipe.execute()


def blank_clients(game: str) -> str:
    """A submission's ``game`` line without its clients' addresses and agents."""
    parts = game.split(" ")
    for name in CLIENT_PARTS:
        parts[codec.GAME_PARTS.index(name)] = ""
    return " ".join(parts)


def erase_runs(e: Erasure) -> None:
    """The player's runs still kept (their day's shard): address and agent deleted."""
    from service.store import shard_of

    pattern = key_for("run", f"day:*/{shard_of(e.pid):02d}", "*")
    for key in _scan(e.client, pattern):
        pid, ip, agent = e.client.hmget(key, ["pid", "ip", "agent"])
        if pid != e.pid:
            continue
        if ip:
            e.addresses.add(ip)
        if agent:
            e.agents.add(agent)
        e.client.hdel(key, "ip", "agent")
        e.count("runs")


def erase_networks(e: Erasure) -> None:
    """The player off the list of players seen from each network they submitted from."""
    nets = {client_network(a) for a in e.addresses}
    if nets:
        removed = pipelined(e.client, lambda pipe: [pipe.zrem(by_player.network_key(n), e.pid) for n in sorted(nets)])
        e.count("networks", sum(removed))


def erase_agents(e: Erasure) -> None:
    """The text of the player's user agents: a run that names one again writes it again
    (``RunStore.remember_agent``), so another player's live runs keep theirs."""
    kept = set()
    if e.kept_evidence:
        subs = Submissions(e.client, e.settings)
        for game in pipelined(e.client, lambda pipe: [pipe.hget(subs.key(i), codec.GAME) for i in e.kept_evidence]):
            parts = codec.unpack_game(game) if game else {}
            kept.update(parts.get(p) for p in ("run_agent", "agent"))
    gone = sorted(e.agents - kept)
    if gone:
        e.count("agents", e.client.hdel(AGENTS, *gone))


def erase_boards(e: Erasure) -> None:
    """Every board's name of the player (day, week, month, all-time) and the changes waiting to
    be carried (``pending``) show the pseudonym; scores and ranks are left as they are."""
    for key in _scan(e.client, key_for("names", "boards*") + "*"):
        name = e.client.hget(key, e.pid)
        if name is not None:
            e.names.add(name)
            e.client.hset(key, e.pid, e.alias)
            e.count("boards")
    for key in _scan(e.client, key_for("pending", "boards*") + "*"):
        note = e.client.hget(key, e.pid)
        if note is not None:
            change = json.loads(note)
            change[3] = e.alias
            e.client.hset(key, e.pid, json.dumps(change, separators=(",", ":")))
    # the pages web processes keep are checked against the epoch: no kept page shows the name
    e.client.incr(EPOCH)


def erase_leagues(e: Erasure) -> None:
    """Every league the player is in shows the pseudonym."""
    Leagues(e.client).member_renamed(e.pid, e.alias)


def erase_duels(e: Erasure) -> None:
    """The player's results in every duel still kept carry the pseudonym."""
    field_name = f"result:{e.pid}"
    for key in _scan(e.client, key_for("duel", "duel:*")):
        result = e.client.hget(key, field_name)
        if result is None:
            continue
        doc = json.loads(result)
        if doc.get("nickname"):
            e.names.add(doc["nickname"])
            doc["nickname"] = e.alias
            e.client.hset(key, field_name, json.dumps(doc, separators=(",", ":")))
        e.count("duels")


def erase_devices(e: Erasure) -> None:
    """Every device of the player ended (a tombstone: its token answers 401 at once, in every web
    process), its passkeys deleted (none signs the player in again), its trail deleted (device
    labels are read from user agents)."""
    dids = set(e.client.hkeys(devices_key(e.pid))) | {e.pid}
    passkey_ids = e.client.hkeys(passkeys_key(e.pid))
    now = int(e.settings.now().timestamp())
    with e.client.pipeline(transaction=False) as pipe:
        for did in sorted(dids):
            # the tombstone keeps no label, no user agent: only what refuses the token
            pipe.delete(device_key(did))
            pipe.hset(device_key(did), mapping={"pid": e.pid, "removed_at": now})
        for passkey_id in passkey_ids:
            pipe.delete(passkey_key(passkey_id))
        for key in (devices_key(e.pid), passkeys_key(e.pid), trail_key(e.pid)):
            pipe.delete(key)  # one by one: a cluster's pipeline deletes one key a command
        pipe.execute()
    e.count("devices", len(dids))
    e.count("passkeys", len(passkey_ids))


def erase_ratings(e: Erasure) -> None:
    """A rating keeps no name of its own (it reads the boards' names, renamed above), but each web
    process keeps the rating board's pages: a new version makes them read again."""
    e.client.incr(RATINGS_VERSION)


def erase_player_key(e: Erasure) -> None:
    """The nicknames released (held and claimed) and the player key gone: the token answers 401."""
    last, held = e.client.hmget(_player_key(e.pid), ["nickname", "held"])
    e.names.update(n for n in (last, held) if n)
    claim_keys = set()
    for name in e.names:
        try:
            claim_keys.update(nicknames.keys(nicknames.normalise(name)))
        except Exception:  # noqa: BLE001 - a name the rules now refuse has no keys to release
            pass
    claim_keys.update((e.client.hget(NICKNAME_CLAIMS[1], e.pid) or "").split())
    claim_keys = sorted(claim_keys)
    owners = e.client.hmget(NICKNAME_OWNERS, claim_keys) if claim_keys else []
    pending = e.client.hmget(NICKNAME_CLAIMS[0], claim_keys) if claim_keys else []
    with e.client.pipeline(transaction=False) as pipe:  # keys of several slots (a cluster)
        for key, owner, claim in zip(claim_keys, owners, pending):
            if owner == e.pid:
                pipe.hdel(NICKNAME_OWNERS, key)
            if claim == e.pid:
                pipe.hdel(NICKNAME_CLAIMS[0], key)
        pipe.hdel(NICKNAME_CLAIMS[1], e.pid)
        pipe.zrem(NICKNAME_CLAIMS[2], e.pid)
        pipe.delete(_player_key(e.pid))
        pipe.set(Players.erased_key(e.pid), "1", ex=ERASED_SECONDS)
        pipe.execute()
    e.count("nicknames", len(e.names))


#: In order: the submissions and runs first (they find the names, addresses and agents the others
#: erase), the player key last (it releases every name found).
ERASERS: list[Callable[[Erasure], None]] = [
    erase_submissions, erase_runs, erase_networks, erase_agents, erase_boards, erase_leagues, erase_duels,
    erase_devices, erase_ratings, erase_player_key,
]


def erase_player(client, settings, pid: str) -> dict:
    """Erase ``pid`` (see the module); idempotent.  Returns the pseudonym, what each eraser
    counted and the games whose evidence is kept until decided; the caller audits it by pid."""
    e = Erasure(client, settings, pid, pseudonym(settings.secret, pid))
    for eraser in ERASERS:
        eraser(e)
    if e.kept_evidence:
        client.zadd(EVIDENCE, {sub_id: settings.now().timestamp() for sub_id in e.kept_evidence})
    return {"player": pid, "pseudonym": e.alias, "erased": e.counts, "evidence_kept": e.kept_evidence}
