"""The day's searched decisions computed ahead: every position a player can meet in its first deals.

A searching bot's card is a pure function of the seed and the seat's observation, and its choice
never reads the score before the deal (``reads_totals``): each deal of a day is a tree of its own,
the same for every player whatever the earlier deals gave, which branches only at the player's
cards.  Walking the tree of each of the day's first ``MANILLE_WARM_DEALS`` deals (12: 99.5 % of
games end within them) and every card the player may choose at each turn, the bots' searched
decisions go into the day's decision cache (``service.botcache``) before the day opens: a play
and a verification then read them instead of computing them (a whole deal's tree is a few
hundred to some tens of thousands of searched positions, most of them cheap ones late in the
deal: seconds to a minute or two of a core, measured in docs/performance.md).  The cards are the
very ones the bot computes in a play, by the same code (``bot_move`` through ``CachedBot``).

The worker's maintenance (every minute) queues the warm of today and of tomorrow once per day and
bot (``refresh``), as jobs of one deal and one first card of the player each, on the queue
``warm``, which the verification workers take only when no verification or board build waits:
a job is a part of one deal's tree (its largest's time is in docs/performance.md), so work that
arrives waits for one job at most.  A warm that did not finish (a worker died, Redis was
restarted) is queued again after ``REQUEUE_SECONDS``; what is in the cache already is read, not
computed again.
"""

from __future__ import annotations

import logging
import time
from datetime import date, timedelta

from rq import Queue

from bots import get_bot
from service.replay import RULES_ID, Card, GameState, bot_move, cards_of, deal, dealer_of
from service.store import key_for

from . import KEEP_SECONDS, CachedBot, DecisionCache, seed_scope

#: The queue of the warm's jobs: after ``verify`` and ``boards`` in a worker's list.
QUEUE = "warm"
JOB = "worker.jobs.warm_decisions"
#: A warm queued this long ago and not done is queued again (its jobs find what was done).
REQUEUE_SECONDS = 3 * 3600
#: A job's decisions are written together, this many at a time.
BATCH = 256
#: A job's RQ timeout: a deal's largest first card, on a busy core, is a few minutes at most.
JOB_TIMEOUT = 1800

log = logging.getLogger(__name__)


def status_key(seed: bytes) -> str:
    """The warm's progress for a seed (beside its decisions, in their slot): per bot id, when it
    was queued, its jobs, those done, and the decisions they computed and found."""
    return key_for("decisions", seed_scope(seed), "warm")


def searches(bot) -> bool:
    """Whether ``bot`` has decisions worth computing ahead (a searching bot under muette-1)."""
    return getattr(bot, "searches", None) is not None


def first_cards(seed: bytes, index: int) -> list[Card]:
    """The player's (seat 0's) cards of deal ``index`` as dealt: the warm's jobs, one per card
    the player may lead or follow with first (those it may not find nothing to do)."""
    return sorted(deal(seed, index, dealer_of(seed, index)).hands[0], key=lambda c: c.id)


def walk(state: GameState, bot, index: int, first: Card | None = None) -> int:
    """Play every line of deal ``index`` from ``state``: the bots (``bot``, usually a
    ``CachedBot``) at their seats, every legal card of seat 0 in turn at its; ``first``: only that
    card at seat 0's first turn.  Returns the player's lines walked (leaves)."""
    while not state.is_over and state.deal_index == index and state.current_player != 0:
        bot_move(state, bot)
    if state.is_over or state.deal_index != index:
        return 1
    legal = state.legal_mask()
    lines = 0
    for card in cards_of(legal) if first is None else [first] if legal >> first.id & 1 else []:
        child = state.clone()
        child._apply(card, legal)
        lines += walk(child, bot, index)
    return lines


def warm_deal(client, seed: bytes, bot_id: str, index: int, first: Card | None = None) -> dict:
    """Compute (or find) every searched decision of deal ``index``'s tree (under ``first``, the
    player's first card, when given) into the seed's decision cache; the counts."""
    cache = DecisionCache(client, seed, batch=BATCH, kept=False)  # each position is met once here
    t0 = time.process_time()
    lines = walk(GameState.at_deal(seed, index), CachedBot(get_bot(bot_id), cache), index, first)
    cache.flush()
    return {"lines": lines, "computed": cache.misses, "found": cache.hits,
            "cpu_s": round(time.process_time() - t0, 3), "broken": cache.broken}


def plan(seed: bytes, deals: int) -> list[tuple[int, str]]:
    """The warm's jobs for a seed: (deal, the player's first card) for each of the first ``deals``."""
    return [(index, str(card)) for index in range(deals) for card in first_cards(seed, index)]


def request(settings, client, day: date, *, queue=None, now: float | None = None) -> int:
    """Queue the warm of ``day`` for the bot it is (or will be) played with, unless that warm is
    done, or was queued less than ``REQUEUE_SECONDS`` ago (by any worker: a claim with that
    expiry), or the bot computes nothing dear; the jobs queued."""
    from service.challenges import Challenges

    terms = Challenges(client, settings).stored_terms(day, create=False)
    bot_id = terms["bots"]
    if terms["rules"] != RULES_ID or not searches(get_bot(bot_id)) or settings.warm_deals <= 0:
        return 0
    seed = settings.seed(day)
    key = status_key(seed)
    jobs, finished = client.hmget(key, [f"{bot_id}:jobs", f"{bot_id}:done"])
    if jobs is not None and int(finished or 0) >= int(jobs):
        return 0
    if not client.set(key_for("decisions", seed_scope(seed), "warm", bot_id), "1", nx=True, ex=REQUEUE_SECONDS):
        return 0
    todo = plan(seed, settings.warm_deals)
    now = time.time() if now is None else now
    with client.pipeline(transaction=True) as pipe:
        pipe.hset(key, mapping={f"{bot_id}:queued": f"{now:.0f}", f"{bot_id}:jobs": len(todo), f"{bot_id}:done": 0})
        pipe.expire(key, KEEP_SECONDS)
        pipe.execute()
    q = Queue(QUEUE, connection=queue if queue is not None else settings.queue_connection(client))
    q.enqueue_many([Queue.prepare_data(JOB, args=(day.isoformat(), bot_id, index, card), result_ttl=0,
                                       failure_ttl=86400, timeout=JOB_TIMEOUT,
                                       description=f"warm {day} {bot_id} deal {index} {card}")
                    for index, card in todo])
    log.info("warm of %s (%s): %d jobs queued", day, bot_id, len(todo))
    return len(todo)


def done(client, seed: bytes, bot_id: str, counts: dict) -> None:
    """A job of the warm has finished: counted in its progress."""
    with client.pipeline(transaction=True) as pipe:
        key = status_key(seed)
        pipe.hincrby(key, f"{bot_id}:done", 1)
        pipe.hincrby(key, f"{bot_id}:computed", counts["computed"])
        pipe.hincrby(key, f"{bot_id}:found", counts["found"])
        pipe.hincrbyfloat(key, f"{bot_id}:cpu_s", counts["cpu_s"])
        pipe.execute()


def progress(client, seed: bytes, bot_id: str) -> dict:
    """The warm of a seed for ``bot_id``: jobs, done, decisions computed and found, CPU seconds
    (zeros when never queued)."""
    got = client.hgetall(status_key(seed))
    return {"queued": bool(got.get(f"{bot_id}:queued")), "jobs": int(got.get(f"{bot_id}:jobs") or 0),
            "done": int(got.get(f"{bot_id}:done") or 0), "computed": int(got.get(f"{bot_id}:computed") or 0),
            "found": int(got.get(f"{bot_id}:found") or 0), "cpu_s": float(got.get(f"{bot_id}:cpu_s") or 0)}


def health(settings, client, queue_conn) -> dict:
    """The warm as readiness reports it: the queue's ``workers`` and ``queued`` jobs, and today's
    ``bots``, ``jobs`` and ``done`` (jobs 0: nothing to warm, or not queued yet)."""
    from rq import Worker

    from service.challenges import Challenges

    today = settings.today()
    bot_id = Challenges(client, settings).stored_terms(today, create=False)["bots"]
    q = Queue(QUEUE, connection=queue_conn)
    got = progress(client, settings.seed(today), bot_id)
    return {"workers": len(Worker.all(connection=queue_conn, queue=q)), "queued": q.count, "bots": bot_id,
            "jobs": got["jobs"], "done": got["done"]}


def refresh(settings, client, queue=None) -> list[date]:
    """Queue the warm of today and of tomorrow where it is due (the worker's maintenance, every
    minute): tomorrow's is done while today is played, so that a day opens warm."""
    today = settings.today()
    return [day for day in (today, today + timedelta(days=1))
            if request(settings, client, day, queue=queue)]
