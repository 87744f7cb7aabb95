"""Analyses of finished games in Redis: asked for, queued on RQ queues of their own, followed, kept.

An analysis is named by its game: ``analysis_id`` is a hash of (analysis settings id, seed,
rules, bots, seat 0's cards), so everyone who played the same game (a day's most common lines,
a shared archive game) gets the one document, computed once.  Its hash key holds what the job
needs (the day or the seed, the cards), its state (``queued``, ``started``, ``finished``,
``failed``), the progress (decisions done of decisions in the game), the submissions whose
hidden-information check waits for it (a field ``w:<submission id>`` each) and, once finished,
every card of the game (``plays``, packed as each card's place among the legal ones), which
replays its record with no bot.
The document itself is not stored: it is a pure function of that record and of its decisions'
entries, which are kept per seed (``positions``: every player of a day meets the same first
tricks, so most entries are shared), and it is rebuilt from them when read (the last ones read
are kept in the process).  Positions are kept at least as long as the analyses that need them:
a day's game's a month from its last reading, a free game's (a seed no one else plays) days
(``FREE_KEEP_SECONDS``).

Two queues, each with workers of its own: ``analysis`` for what players ask, at most
``Settings.analysis_queue_max`` of them waiting at once (past it a new one is refused: 503
``analysis_queue_full`` with Retry-After), and ``analysis-check`` for the hidden-information
check of strong verified games, never capped, so that no number of players' requests delays a
flag.  A game on both queues at once is computed by whichever job starts first; the other finds
it done (``start.lua``).

The documents are the server's: an analysis of a ranked game is computed while its day is open
when the worker checks a strong score for the hidden-information flag, but it is only handed
out by the API once the day's seed is public (``service.api.analysis``).
The hidden-information check's side (what it asks for, what it notes) is ``check``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from datetime import date, datetime, timedelta

from rq import Callback, Queue

from postmortem import ANALYSIS_ID
from service.config import Settings
from service.errors import NotFound, Unavailable
from service.store import key_for, load_script, raw_client
from service.store.compact import pack_cards, pack_plays, unpack_cards, unpack_plays

from .check import note_check, request_check
from .positions import PositionCache, PositionsGone

QUEUE = "analysis"
#: The hidden-information check's analyses: a queue no player's request reaches.
CHECK_QUEUE = "analysis-check"
JOB = "worker.jobs.analyse_game"
#: A finished analysis of a day's game (ranked, archive) is kept this long after it was last asked
#: for; a free game's (a seed no one else plays) this long; the positions of a seed a day longer
#: than the last analysis of it that was read or finished (``PositionCache.touch``).
KEEP_SECONDS = 30 * 86400
FREE_KEEP_SECONDS = 3 * 86400
POSITIONS_MARGIN_SECONDS = 86400
#: The submissions waiting for an analysis: a field of its hash each, this prefix and the id.
WATCHER = "w:"
#: Documents rebuilt in this process, the last ones read (an analysis id names one document forever).
KEPT_DOCUMENTS = 32
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


_DOCUMENTS: OrderedDict[str, dict] = OrderedDict()
_DOCUMENTS_LOCK = threading.Lock()


def _kept_document(aid: str, make) -> dict:
    """The document of ``aid`` this process rebuilt last time it was read, else ``make()``'s."""
    with _DOCUMENTS_LOCK:
        doc = _DOCUMENTS.get(aid)
        if doc is not None:
            _DOCUMENTS.move_to_end(aid)
            return doc
    doc = make()
    with _DOCUMENTS_LOCK:
        _DOCUMENTS[aid] = doc
        while len(_DOCUMENTS) > KEPT_DOCUMENTS:
            _DOCUMENTS.popitem(last=False)
    return doc


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
            if submission_id and status != "finished":  # a finished one is checked by the caller
                self._watch(aid, submission_id)
            if flag and status == "queued" and queue != CHECK_QUEUE:  # behind players' requests: not there
                self.r.hset(key, "queue", CHECK_QUEUE)
                self._enqueue(self.check_queue, aid, now)
            return aid, False
        if admit is not None:
            admit()
        if not flag:
            self._take_place(aid, now)
        fields = {"status": "queued", "rules": rules, "bots": bots, "cards": pack_cards(cards),
                  "done": 0, "total": 0, "purpose": purpose, "queue": CHECK_QUEUE if flag else QUEUE,
                  "touched_at": now.isoformat()}
        if day is not None:
            fields["date"] = day.isoformat()
        else:
            fields["seed"] = seed.hex()
        pipe = self.r.pipeline()
        pipe.hdel(key, "error", "plays")  # asked again after it failed; its watchers stay
        pipe.hset(key, mapping=fields)
        pipe.expire(key, self.keep_of(day))
        if submission_id:
            pipe.hset(key, WATCHER + submission_id, "")
        pipe.execute()
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
                           timeout=JOB_TIMEOUT, result_ttl=0, failure_ttl=86400,
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
        """A submission whose hidden-information check waits for this analysis."""
        self.r.hset(self.key(aid), WATCHER + submission_id, "")

    def watchers(self, aid: str) -> list[str]:
        return sorted(f[len(WATCHER):] for f in self.r.hkeys(self.key(aid)) if f.startswith(WATCHER))

    def unwatch(self, aid: str, submission_ids: list[str]) -> None:
        """These submissions' checks are done: they wait no more."""
        if submission_ids:
            self.r.hdel(self.key(aid), *(WATCHER + sub_id for sub_id in submission_ids))

    def _seed(self, fields: dict) -> bytes:
        return (bytes.fromhex(fields["seed"]) if fields.get("seed")
                else self.settings.seed(date.fromisoformat(fields["date"])))

    def job(self, aid: str) -> dict:
        """What the worker needs: rules, bots, cards, and the seed or the day (NotFound if gone)."""
        fields = self.r.hgetall(self.key(aid))
        if not fields or not fields.get("cards"):
            raise NotFound("no such analysis", code="analysis_not_found")
        return {**fields, "seed_bytes": self._seed(fields), "cards": unpack_cards(fields["cards"])}

    @staticmethod
    def _state(aid: str, fields: dict) -> dict:
        if not fields.get("status"):
            raise NotFound("no such analysis (or it expired: ask for it again)", code="analysis_not_found")
        error = fields.get("error")
        return {"analysis_id": aid, "status": fields["status"], "date": fields.get("date") or None,
                "progress": {"done": int(fields.get("done") or 0), "total": int(fields.get("total") or 0)},
                "error": json.loads(error) if error else None}

    def state(self, aid: str) -> dict:
        """State, progress, error and (a ranked game's) day, without the document; NotFound
        (``analysis_not_found``)."""
        return self._state(aid, dict(zip(("status", "done", "total", "error", "date"),
                                         self.r.hmget(self.key(aid), "status", "done", "total", "error", "date"))))

    def get(self, aid: str) -> dict:
        """``state`` and the document (null until finished); a document read is kept as long again
        (``keep_of``), and the positions it is rebuilt from with it.  If they are gone (lost), the
        analysis is ``failed``, and asking for it again queues it anew."""
        fields = self.r.hgetall(self.key(aid))
        got = self._state(aid, fields)
        if got["status"] != "finished":
            return {**got, "analysis": None}
        seed, day = self._seed(fields), fields.get("date")
        try:
            doc = _kept_document(aid, lambda: self._rebuild(seed, fields))
        except PositionsGone as e:
            logging.getLogger(__name__).warning("analysis %s: %s", aid, e)
            self.fail(aid, {"error": "analysis_failed", "message": "its analysed positions are gone: ask again"})
            return {**self.state(aid), "analysis": None}
        self.r.expire(self.key(aid), self.keep_of(day))
        self.positions(seed, day).touch(self.keep_of(day))
        return {**got, "analysis": doc}

    def _rebuild(self, seed: bytes, fields: dict) -> dict:
        """The document of a finished analysis: its record replayed from its plays, every
        decision's entry read from the seed's positions, nothing computed (``postmortem.game``);
        in the shape JSON gives back (keys sorted)."""
        from postmortem import analyse, decision_keys, replay_record

        record = replay_record(seed, unpack_plays(seed, fields["plays"]), fields["bots"])
        keys = decision_keys(record)
        entries = self.positions(seed, fields.get("date")).get_many(keys)
        if len(entries) < len(set(keys)):
            raise PositionsGone(f"{len(set(keys)) - len(entries)} of its {len(set(keys))} positions are not stored")
        doc = analyse(seed, None, bots=fields["bots"], rules=fields["rules"], cache=entries, record=record)
        return json.loads(json.dumps(doc, sort_keys=True, separators=(",", ":")))

    def positions(self, seed: bytes, day=None) -> PositionCache:
        """The analysed positions of ``seed``, kept a day longer than its analyses (``keep_of``
        ``day``: a day's seed's a month, a free game's days; one small hash for a free game)."""
        return PositionCache(self.raw, seed, self.keep_of(day) + POSITIONS_MARGIN_SECONDS)

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

    def finish(self, aid: str, doc: dict, plays: list[str], day=None) -> None:
        """A finished analysis: every card of its game (``plays``, packed: ``compact.pack_plays``) in
        place of seat 0's, to rebuild ``doc`` from when read; its seed's positions kept at least as
        long (``keep_of`` ``day``)."""
        seed = bytes.fromhex(doc["seed"])
        pipe = self.r.pipeline()
        pipe.hset(self.key(aid), mapping={"status": "finished", "plays": pack_plays(seed, plays),
                                          "done": len(doc["decisions"]), "total": len(doc["decisions"])})
        pipe.hdel(self.key(aid), "cards", "touched_at")  # a finished one is never stale
        pipe.expire(self.key(aid), self.keep_of(day))
        pipe.execute()
        self.positions(seed, day).touch(self.keep_of(day))

    def fail(self, aid: str, error: dict) -> None:
        self.left_queue(aid)
        self.r.hset(self.key(aid), mapping={"status": "failed", "error": json.dumps(error),
                                            "touched_at": self.settings.now().isoformat()})


def compute(settings: Settings, client, analysis_id: str) -> dict:
    """Analyse a finished game card by card (``postmortem.analyse``), with the positions already
    analysed for its seed taken from Redis, progress written as it goes; then, for each submission
    waiting on it, the hidden-information check (``service.flags.hindsight``)."""
    from postmortem import AnalysisError, analyse, game_plays, game_record
    from bots import get_bot
    from service.botcache import cached
    from service.replay import SubmissionRejected

    analyses = Analyses(client, settings)
    started = analyses.start(analysis_id)
    if started != "ok":  # done, or being done, by its job on the other queue; or expired
        return {"status": started}
    job = analyses.job(analysis_id)
    seed, day = job["seed_bytes"], job.get("date")
    try:
        # a day's bots through the day's decision cache, read only (a free deal's: nothing there)
        bot = cached(get_bot(job["bots"]), client, seed, write=False)
        record = game_record(seed, job["cards"], bots=job["bots"], rules=job["rules"], bot=bot)
        doc = analyse(seed, job["cards"], bots=job["bots"], rules=job["rules"], record=record,
                      cache=analyses.positions(seed, day),
                      progress=lambda done, total: analyses.progress(analysis_id, done, total))
    except SubmissionRejected as e:
        analyses.fail(analysis_id, {"error": "invalid_game", "message": e.rejection.message,
                                    "rejection": e.rejection.to_json()})
        return {"status": "failed", "reason": e.rejection.code}
    except AnalysisError as e:
        analyses.fail(analysis_id, {"error": "analysis_unsupported", "message": str(e)})
        return {"status": "failed", "reason": "analysis_unsupported"}
    analyses.finish(analysis_id, doc, game_plays(record), day)
    watchers = analyses.watchers(analysis_id)
    checked = [sub_id for sub_id in watchers if note_check(settings, client, sub_id, analysis_id, doc)]
    analyses.unwatch(analysis_id, watchers)
    return {"status": "finished", "decisions": len(doc["decisions"]), "checked": checked}


__all__ = ["Analyses", "CHECK_QUEUE", "JOB", "PositionCache", "PositionsGone", "QUEUE", "analysis_id", "compute",
           "note_check", "request_check"]
