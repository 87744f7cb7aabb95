"""The retention sweep of the players' personal data the rest of the service keeps past its use,
run by the workers' maintenance: a submission keeps the addresses and user agents of its clients
``MANILLE_CLIENT_KEEP_DAYS`` after its game's day, then they are deleted (the cards, times,
verdict and score stay: the boards are rebuilt from them).  A game held or awaiting its verdict
then keeps them until it is decided (``EVIDENCE``), as does one whose player erased themselves.

What else is personal expires by itself (docs/operations.md, "Data in Redis", its "kept" column):
runs and their indexes, idle player keys, networks' players, rate-limit windows.
"""

from __future__ import annotations

from datetime import date, timedelta

from service.store import EVERY_SHARD, id_of, pipelined
from service.submissions import Submissions, codec

from . import EVIDENCE, SWEPT
from .erasure import UNDECIDED, blank_clients

#: Days a sweep takes at most (the maintenance runs every minute): a first sweep on a year of
#: games catches up in hours without holding a worker.
DAYS_A_SWEEP = 3
#: Evidence entries a sweep looks at.
EVIDENCE_A_SWEEP = 500


def sweep(client, settings) -> dict:
    """Delete the clients of the submissions past their keep (days not swept yet, oldest first,
    at most ``DAYS_A_SWEEP``) and of the games in ``EVIDENCE`` decided since; returns the counts."""
    subs = Submissions(client, settings)
    last = settings.today() - timedelta(days=settings.client_keep_days + 1)  # day D keeps them through D + keep
    swept = client.get(SWEPT)
    day = date.fromisoformat(swept) + timedelta(days=1) if swept else _first_day(client)
    done = {"days": 0, "cleared": 0, "kept": 0, "decided": 0}
    while day is not None and day <= last and done["days"] < DAYS_A_SWEEP:
        ids = [id_of(day, shard, tail) for shard, tails in
               zip(EVERY_SHARD, pipelined(client, lambda pipe: [pipe.lrange(subs.day_list_key(day, k), 0, -1)
                                                               for k in EVERY_SHARD]))
               for tail in tails]
        cleared, kept = _clear(client, subs, ids)
        if kept:
            client.zadd(EVIDENCE, {sub_id: settings.now().timestamp() for sub_id in kept})
        client.set(SWEPT, day.isoformat())
        done["days"] += 1
        done["cleared"] += cleared
        done["kept"] += len(kept)
        day += timedelta(days=1)
    waiting = client.zrange(EVIDENCE, 0, EVIDENCE_A_SWEEP - 1)
    if waiting:
        cleared, kept = _clear(client, subs, waiting)
        decided = sorted(set(waiting) - set(kept))
        if decided:
            client.zrem(EVIDENCE, *decided)
        done["decided"] = len(decided)
    return done


def _first_day(client) -> date | None:
    """The first day any submission was stored (a first sweep starts there), None for none."""
    from service.store import key_for

    days = {key.split("{day:", 1)[1][:10] for key in client.scan_iter(match=key_for("submissions", "day:*"), count=1000)}
    return date.fromisoformat(min(days)) if days else None


def _clear(client, subs, ids: list[str]) -> tuple[int, list[str]]:
    """Blank the clients of ``ids`` (one round trip to read, one to write); (how many were
    blanked, the ids undecided, left as they are)."""
    stored = pipelined(client, lambda pipe: [pipe.hmget(subs.key(i), ["status", codec.GAME]) for i in ids])
    kept, writes = [], []
    for sub_id, (status, game) in zip(ids, stored):
        if not game:
            continue
        if status in UNDECIDED:
            kept.append(sub_id)
            continue
        blank = blank_clients(game)
        if blank != game:
            writes.append((subs.key(sub_id), blank))
    if writes:
        pipelined(client, lambda pipe: [pipe.hset(key, codec.GAME, blank) for key, blank in writes])
    return len(writes), kept
