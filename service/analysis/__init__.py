"""Analyses of finished games in Redis: asked for, queued on RQ queues of their own, followed, kept.

An analysis is named by its game: ``analysis_id`` is a hash of (analysis settings id, seed,
rules, bots, seat 0's cards), so everyone who played the same game (a day's most common lines,
a shared archive game) gets the one document, computed once.  Its hash key holds what the job
needs (the day or the seed, the cards), its state (``queued``, ``started``, ``finished``,
``failed``), the progress (decisions done of decisions in the game) and, once finished, the
document, compressed.  Positions many games reach (every player of a day meets the same first
tricks) are kept per seed (``PositionCache``): a later game reaching one takes its values as
they are, the same bytes it would compute.  A free game's seed is its own: its positions are
kept by the job alone, and its analysis for days (``FREE_KEEP_SECONDS``), not a month.

Two queues, each with workers of its own: ``analysis`` for what players ask, at most
``Settings.analysis_queue_max`` of them waiting at once (past it a new one is refused: 503
``analysis_queue_full`` with Retry-After), and ``analysis-check`` for the hidden-information
check of strong verified games, never capped, so that no number of players' requests delays a
flag.  A game on both queues at once is computed by whichever job starts first; the other finds
it done (``start.lua``).

The documents are the server's: an analysis of a ranked game is computed while its day is open
when the worker checks a strong score for the hidden-information flag, but it is only handed
out by the API once the day's seed is public (``service.api.analysis``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import zlib
from datetime import date, datetime, timedelta

from rq import Callback, Queue

from analysis import ANALYSIS_ID
from service.config import Settings
from service.errors import NotFound, Unavailable
from service.store import key_for, load_script, raw_client

QUEUE = "analysis"
#: The hidden-information check's analyses: a queue no player's request reaches.
CHECK_QUEUE = "analysis-check"
JOB = "worker.jobs.analyse_game"
#: A finished analysis of a day's game (ranked, archive) is kept this long after it was last asked
#: for; a free game's (a seed no one else plays) this long; the positions of a day's seed this
#: long after one was last written.
KEEP_SECONDS = 30 * 86400
FREE_KEEP_SECONDS = 3 * 86400
POSITIONS_SECONDS = 7 * 86400
#: A job ``started`` this long ago with no progress is taken for dead: asking again queues it anew.
STALE_SECONDS = 600
#: A job taking longer than this is stopped by RQ (and the analysis marked failed).
JOB_TIMEOUT = 300
#: Players' analyses waiting for a worker: their ids (``admit.lua``); an entry older than this
#: is taken for lost (its job gone), and what a full queue's Retry-After says.
WAITING = key_for("analyses", "all", "waiting")
WAITING_LOST_SECONDS = 3600
FULL_RETRY_SECONDS = 30


def analysis_id(seed: bytes, rules: str, bots: str, cards: list[str]) -> str:
    text = "|".join((ANALYSIS_ID, seed.hex(), rules, bots, " ".join(cards)))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _pack(value) -> bytes:
    return zlib.compress(json.dumps(value, separators=(",", ":"), sort_keys=True).encode(), 6)


def _unpack(blob: bytes):
    return json.loads(zlib.decompress(blob))


class PositionCache:
    """Decision entries of one seed's games (``analysis.game``'s ``cache``), in one Redis hash."""

    def __init__(self, raw, seed: bytes) -> None:
        self.raw = raw
        self.key = key_for("analysis_positions", f"seed:{hashlib.sha256(seed).hexdigest()[:16]}")

    def get(self, field: str, default=None):
        blob = self.raw.hget(self.key, field)
        return default if blob is None else _unpack(blob)

    def __setitem__(self, field: str, entry: dict) -> None:
        pipe = self.raw.pipeline(transaction=False)
        pipe.hset(self.key, field, _pack(entry))
        pipe.expire(self.key, POSITIONS_SECONDS)
        pipe.execute()


class Analyses:
    def __init__(self, client, settings: Settings, queue=None) -> None:
        self.r = client
        self.raw = raw_client(client)  # the state's bytes (packed documents)
        self.settings = settings
        connection = queue if queue is not None else settings.queue_connection(client)
        self.queue = Queue(QUEUE, connection=connection)
        self.check_queue = Queue(CHECK_QUEUE, connection=connection)
        self._admit = load_script(client, __file__, "admit.lua")
        self._start = load_script(client, __file__, "start.lua")

    @staticmethod
    def key(aid: str) -> str:
        return key_for("analysis", f"analysis:{aid}")

    @staticmethod
    def keep_of(day) -> int:
        """Seconds an analysis is kept: a free game's (no day) days, a day's game's a month."""
        return KEEP_SECONDS if day else FREE_KEEP_SECONDS

    def request(self, *, seed: bytes, day: date | None, rules: str, bots: str, cards: list[str],
                purpose: str = "player", submission_id: str = "", admit=None,
                now: datetime | None = None) -> tuple[str, bool]:
        """The analysis of this game, queued unless it is queued, running or done already;
        returns (analysis id, queued now).  ``day``: a ranked day's game (its seed is not stored:
        the worker derives it), else the seed itself is kept with the job.  A player's
        (``purpose`` "player") goes on the players' queue: ``admit()`` is called before it is
        queued and may raise (the limits) to queue nothing, then Unavailable
        ``analysis_queue_full`` if that queue holds its cap.  The check's (``purpose`` "flag")
        goes on its own queue, and again there when the game waits on the players' queue."""
        aid = analysis_id(seed, rules, bots, cards)
        key = self.key(aid)
        now = now or self.settings.now()
        flag = purpose == "flag"
        status, touched, queue = self.r.hmget(key, "status", "touched_at", "queue")
        if status in ("queued", "started", "finished") and not self._stale(status, touched, now):
            if submission_id:
                self._watch(aid, submission_id)
            if flag and status == "queued" and queue != CHECK_QUEUE:  # behind players' requests: not there
                self.r.hset(key, "queue", CHECK_QUEUE)
                self._enqueue(self.check_queue, aid, now)
            return aid, False
        if admit is not None:
            admit()
        if not flag:
            self._take_place(aid, now)
        fields = {"status": "queued", "rules": rules, "bots": bots, "cards": " ".join(cards),
                  "done": 0, "total": 0, "error": "", "purpose": purpose,
                  "queue": CHECK_QUEUE if flag else QUEUE,
                  "created_at": now.isoformat(), "touched_at": now.isoformat()}
        if day is not None:
            fields["date"] = day.isoformat()
        else:
            fields["seed"] = seed.hex()
        pipe = self.r.pipeline()
        pipe.delete(key)
        pipe.hset(key, mapping=fields)
        pipe.expire(key, self.keep_of(day))
        pipe.execute()
        if submission_id:
            self._watch(aid, submission_id)
        try:
            self._enqueue(self.check_queue if flag else self.queue, aid, now)
        except Exception:
            if not flag:
                self.left_queue(aid)
            raise
        return aid, True

    def _take_place(self, aid: str, now: datetime) -> None:
        """A place among the players' analyses waiting (``admit.lua``); Unavailable
        ``analysis_queue_full`` when they are ``analysis_queue_max`` already."""
        ms = int(now.timestamp() * 1000)
        if not self._admit(keys=[WAITING], args=[ms, self.settings.analysis_queue_max, aid,
                                                 ms - WAITING_LOST_SECONDS * 1000]):
            raise Unavailable(f"{self.settings.analysis_queue_max} analyses are waiting for a worker already: "
                              "ask again in a moment", code="analysis_queue_full", retry_after=FULL_RETRY_SECONDS)

    def left_queue(self, aid: str) -> None:
        """The analysis is no longer waiting on the players' queue (its job started, or failed)."""
        self.r.zrem(WAITING, aid)

    def waiting(self) -> int:
        """How many players' analyses hold a place in the queue (lost ones included until dropped)."""
        return self.r.zcard(WAITING)

    @staticmethod
    def _enqueue(queue: Queue, aid: str, now: datetime) -> None:
        queue.enqueue_call(JOB, args=(aid,), job_id=f"analysis-{aid}-{queue.name}-{int(now.timestamp())}",
                           timeout=JOB_TIMEOUT, result_ttl=600, failure_ttl=86400,
                           on_failure=Callback("worker.jobs.analysis_failed"))

    @staticmethod
    def _stale(status: str, touched: str | None, now: datetime) -> bool:
        """A job taken for dead: started with no progress for ``STALE_SECONDS``, or queued for
        longer than a queue holds one (``WAITING_LOST_SECONDS``: its job was lost)."""
        if status not in ("started", "queued") or not touched:
            return False
        age = now - datetime.fromisoformat(touched)
        return age > timedelta(seconds=STALE_SECONDS if status == "started" else WAITING_LOST_SECONDS)

    def _watch(self, aid: str, submission_id: str) -> None:
        """The submissions whose hidden-information check waits for this analysis."""
        self.r.sadd(self.key(aid) + ":submissions", submission_id)
        self.r.expire(self.key(aid) + ":submissions", KEEP_SECONDS)

    def watchers(self, aid: str) -> list[str]:
        return sorted(self.r.smembers(self.key(aid) + ":submissions"))

    def job(self, aid: str) -> dict:
        """What the worker needs: rules, bots, cards, and the seed or the day (NotFound if gone)."""
        fields = self.r.hgetall(self.key(aid))
        if not fields:
            raise NotFound("no such analysis", code="analysis_not_found")
        seed = (bytes.fromhex(fields["seed"]) if fields.get("seed")
                else self.settings.seed(date.fromisoformat(fields["date"])))
        return {**fields, "seed_bytes": seed, "cards": fields["cards"].split()}

    def state(self, aid: str) -> dict:
        """State, progress, error and (a ranked game's) day, without the document; NotFound
        (``analysis_not_found``)."""
        status, done, total, error, day = self.r.hmget(self.key(aid), "status", "done", "total", "error", "date")
        if status is None:
            raise NotFound("no such analysis (or it expired: ask for it again)", code="analysis_not_found")
        return {"analysis_id": aid, "status": status, "date": day or None,
                "progress": {"done": int(done or 0), "total": int(total or 0)},
                "error": json.loads(error) if error else None}

    def get(self, aid: str) -> dict:
        """``state`` and the document (null until finished); a document read is kept as long
        again (``keep_of``)."""
        got = self.state(aid)
        doc = self.raw.hget(self.key(aid), "doc")
        if doc is not None:
            self.r.expire(self.key(aid), self.keep_of(got["date"]))
        return {**got, "analysis": _unpack(doc) if doc is not None else None}

    def positions(self, seed: bytes, day) -> "PositionCache | dict":
        """Where the job keeps the positions it analyses: a day's seed's in Redis, shared with every
        game of that day; a free game's in the job alone (no other game has its seed)."""
        return PositionCache(self.raw, seed) if day else {}

    def start(self, aid: str) -> str:
        """Take the analysis to compute it now: 'ok', or why not ('finished', 'started' by a
        job alive elsewhere, 'gone'); out of the players' waiting queue either way."""
        now = self.settings.now()
        self.left_queue(aid)
        return self._start(keys=[self.key(aid)], args=[
            now.isoformat(), (now - timedelta(seconds=STALE_SECONDS)).isoformat()])

    def progress(self, aid: str, done: int, total: int) -> None:
        self.r.hset(self.key(aid), mapping={"done": done, "total": total,
                                            "touched_at": self.settings.now().isoformat()})

    def finish(self, aid: str, doc: dict, day=None) -> None:
        pipe = self.raw.pipeline()
        pipe.hset(self.key(aid), mapping={"status": "finished", "doc": _pack(doc),
                                          "done": len(doc["decisions"]), "total": len(doc["decisions"]),
                                          "touched_at": self.settings.now().isoformat()})
        pipe.expire(self.key(aid), self.keep_of(day))
        pipe.execute()

    def fail(self, aid: str, error: dict) -> None:
        self.left_queue(aid)
        self.r.hset(self.key(aid), mapping={"status": "failed", "error": json.dumps(error),
                                            "touched_at": self.settings.now().isoformat()})


def note_check(settings: Settings, client, sub_id: str, analysis_id: str, doc: dict) -> bool:
    """The hidden-information check of ``sub_id`` from its game's finished analysis ``doc``: its
    figures kept with the submission, and the ``hindsight`` flag when they pass the thresholds; then
    the player's recent checked games together, and ``hindsight_player`` when they pass."""
    from analysis.hindsight import score
    from service import flags as suspicion
    from service.runs.table import parse_plays
    from service.submissions import Submissions

    fs = settings.flags
    subs = Submissions(client, settings)
    try:
        sub = subs.get(sub_id)
    except NotFound:  # the submission is gone: nothing to note
        return False
    if " ".join(str(c) for c in parse_plays(sub["cards"])) != " ".join(
            p["played"] for p in doc["decisions"] if p["seat"] == 0):
        logging.getLogger(__name__).warning("analysis %s is not submission %s's game", analysis_id, sub_id)
        return False
    evidence = score(doc["decisions"], 0, fs.hindsight_from_trick)
    evidence.update(analysis_id=analysis_id, z_threshold=fs.hindsight_z, gain_threshold=fs.hindsight_gain)
    subs.note_hindsight(sub_id, analysis_id=analysis_id, evidence=evidence,
                        flag=suspicion.hindsight(evidence, fs))
    # One game says little (service.flags): the player's recent checked games are tested together.
    subs.note_checked(sub["pid"], date.fromisoformat(sub["date"]), sub_id)
    together = suspicion.hindsight_together(subs.checked_games(sub["pid"], fs.hindsight_player_games), fs)
    if together is not None:
        subs.note_together(sub_id, together, suspicion.hindsight_player(together, fs))
    return True


def request_check(settings: Settings, client, sub_id: str, sub: dict, *, force: bool = False) -> str | None:
    """Queue the analysis a verified game's hidden-information check needs, if it is due (a score
    in the day's top 1,000 or above its 99th percentile) or ``force`` (ops asked); the analysis id."""
    from service import flags as suspicion
    from service.challenges import Challenges
    from service.leaderboard import Leaderboard
    from service.runs.table import parse_plays
    from service.submissions import Submissions

    day = date.fromisoformat(sub["date"])
    if not force:
        if sub.get("hindsight_analysis"):
            return None
        hist = {b["score"]: b["count"] for b in Leaderboard(client).histogram(day)}
        if not suspicion.hindsight_due(int(sub["score"]), hist):
            return None
        Submissions(client, settings).note_strong_game(day, sub["pid"], sub_id)
    challenge = Challenges(client, settings).get(day)
    cards = [str(c) for c in parse_plays(sub["cards"])]
    analyses = Analyses(client, settings)
    aid, _ = analyses.request(seed=settings.seed(day), day=day, rules=challenge.rules, bots=challenge.bots,
                              cards=cards, purpose="flag", submission_id=sub_id)
    Submissions(client, settings).note_hindsight(sub_id, analysis_id=aid)
    if analyses.state(aid)["status"] == "finished":  # the same game was analysed before: check it now
        note_check(settings, client, sub_id, aid, analyses.get(aid)["analysis"])
    return aid


__all__ = ["Analyses", "CHECK_QUEUE", "JOB", "PositionCache", "QUEUE", "analysis_id", "note_check", "request_check"]
