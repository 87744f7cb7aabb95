"""Runs: one player's game on one day, driven by the server one card at a time.

Stored in Redis as ``store`` says (the keys, the scripts, how long runs are kept).  Redis is the
truth: a play starts from the game this process kept after the run's last play when it still
matches the stored plays (``cache``), else rebuilds it from the seed and the stored plays.

Four kinds of run:

- ``ranked``: today's challenge, one per player and day, the only kind that may be submitted;
- ``archive``: a past day whose seed is public, as often as wanted;
- ``random``: free play on a fresh random seed (docs/spec.md §4.2), kept with the run and shown once the
  game is over, so that the player can replay or check it;
- ``duel``: the game of a duel (``service.duels``), a free or archive game sent to a friend: the
  same terms and seed (kept with the run for a random deal, derived from the day for an archive
  one), shown once the game is over.  Only free play may be played under
  other rules than the day's (``parlee-1``, ``manillen-1``: ``open_random(rules=, target=)``);
  such a run keeps its ``rules``, ``target``, ``bots`` and ``bidder`` (``Settings.variant_bots``,
  ``variant_bidder``), and its plays hold the calls beside the cards (``table``).  Free play
  chooses its table's strength too (``open_random(bots=)``, ``free_strengths``): a beginner's
  (greedy-1), the club's (expert-1) or the strongest, today's bots (under the rules with an
  auction, ``Settings.variant_bots``); every run keeps the bot id it was opened with.

The searching bots' decisions of a day's runs go through the day's decision cache
(``service.botcache``), which the worker fills ahead (``service.botcache.warm``); a free deal's
are computed as met and not kept: no other game meets its seed.  A search no cache holds is the
bots' pool's (``service.botpool``: workers of their own) when the service has one (``pool``).
"""

from __future__ import annotations
import json
import time
from dataclasses import dataclass
from datetime import date, datetime

import redis
from redis.exceptions import RedisError

from bots import get_bidder, get_bot
from service.botcache import cached
from service.botpool import Probe, SearchNeeded, job_terms
from service.challenges import Challenges
from service.config import Settings
from service.errors import Conflict, Unavailable, Unprocessable
from service.limits import Gate, now_ms
from service.players import Players
from service.replay import (Call, Card, GameOverError, GameState, IllegalCallError, IllegalPlayError,
                            InvalidCallError, InvalidCardError, build_record, dumps, verify)
from service.store import run_replicated
from service.store.compact import pack_instant, vlq

from . import table as tbl
from .cache import GameCache
from .opening import RunOpening

# The storage's names stay importable from here, where the service, the worker and the tests find them.
from .store import (AGENTS, PLAY_FIELDS, RUN_ID_RE, RunStore, agent_id, pack_actions,  # noqa: F401
                    parse_stored, path_hash, ranked_id, run_day, run_dict, run_shard, stored_actions, stored_run,
                    unpack_actions)
from .terms import BEGINNER_BOTS, CLUB_BOTS, STRENGTHS, bidder_of, game_terms  # noqa: F401


def parse_action(text: str, kind: str) -> Card | Call:
    """The card or call (``kind``) ``text`` names; raises Unprocessable ``unknown_card`` or
    ``unknown_call``."""
    try:
        return Call.parse(text) if kind == "call" else Card.parse(text)
    except (InvalidCardError, InvalidCallError):
        raise Unprocessable(f"not a {kind}: {text[:16]!r}", code=f"unknown_{kind}") from None


def check_phase(state: GameState, action: Card | Call) -> None:
    """Raise Unprocessable ``call_expected`` (a card while seat 0 must call) or ``card_expected``
    (a call while a card is due), with the legal actions, so the player hears which kind is due."""
    calls = state.legal_calls()
    if isinstance(action, Card) and calls:
        raise Unprocessable("a call is due before any card is played", code="call_expected",
                            card=str(action), legal=[str(c) for c in calls])
    if isinstance(action, Call) and not calls:
        raise Unprocessable("no call is due: play a card", code="card_expected", call=str(action),
                            legal=[str(c) for c in state.legal_cards()])


def refused(error: Exception, action: Card | Call) -> Unprocessable:
    """The 422 of an action the rules refused (an Unprocessable as it is)."""
    if isinstance(error, Unprocessable):
        return error
    if isinstance(error, IllegalPlayError):
        return Unprocessable(str(error), code="illegal_card", card=str(action),
                             obligation=error.obligation.value, legal=[str(c) for c in error.legal])
    return Unprocessable(str(error), code="illegal_call", call=str(action),
                         legal=[str(c) for c in error.legal])


NO_LIMITS = Gate(())
#: How long a record being built keeps other readers waiting for it (a parlee-1 game's takes
#: 30-50 ms with expert-1): past it they build it themselves.
RECORD_BUILD_MS = 10_000
KINDS = ("ranked", "archive", "random", "duel")
def run_kind(run: dict) -> str:
    """The run's kind; runs stored before kinds existed were ranked or archive."""
    return run.get("kind") or ("ranked" if run.get("ranked") == "1" else "archive")


@dataclass
class PlayResult:
    run: dict
    table: tbl.Table
    replayed: bool = False  # the answer to a play already made, sent again (nothing new stored)


class Runs(RunOpening, RunStore):
    """Runs opened and played by the rules (RULES), stored as ``RunStore`` says."""

    def __init__(self, client, settings: Settings) -> None:
        super().__init__(client, settings)
        self.challenges = Challenges(client, settings)
        self.games = GameCache(settings.play_cache)
        #: The bots' pool (``service.botpool.BotPool``) the searches go to; None: computed here.
        self.pool = None

    def move_bots(self, table: tbl.Table, run: dict, seed: bytes, plays: str,
                  cpu: Gate = NO_LIMITS) -> tuple[list, int]:
        """Let the run's bots play on ``table`` (the game after ``plays``, as stored) until seat 0's
        turn; returns their actions and the ms of CPU their searches took.  What costs no search
        is played here; from the first search no cache holds, ``cpu`` (the search limits) must
        have room (else TooManyRequests, nothing stored) and the rest is the pool's (``self.pool``:
        ``BotPool.think``, which may raise Unavailable ``bots_busy``), or computed here without one."""
        bot = self.bots_of(run["bots"], run_kind(run), seed)
        bidder = bidder_of(run)
        played: list = []
        try:
            tbl.bots_until_player(table, Probe(bot), bidder, played=played)
            return played, 0
        except SearchNeeded:
            pass
        if cpu:
            self.limits.check(cpu)
        if self.pool is None:
            start = time.thread_time()
            tbl.bots_until_player(table, bot, bidder, played=played)
            return played, round((time.thread_time() - start) * 1000)
        kind = run_kind(run)
        got = self.pool.think(job_terms({**run, "kind": kind}), plays + stored_actions(played), urgent=kind == "ranked")
        for action in parse_stored(got["actions"]):
            played.append(action)
            tbl.step(table.state, action, table.events, checked=True)
        return played, int(got["cpu_ms"])

    def charge(self, cpu: Gate, cpu_ms: int) -> None:
        """Count a stored play's ``cpu_ms`` of search in the search limits ``cpu`` (best effort:
        Redis failing now leaves them emptier)."""
        if cpu and cpu_ms > 0:
            try:
                self.limits.count(cpu, now_ms(), weight=cpu_ms)
            except RedisError:
                pass

    def bots_of(self, bots: str, kind: str, seed: bytes):
        """The bots of a run: a day's through the day's decision cache; a free deal's bare (its
        seed is met by this game alone: keeping its decisions would only fill Redis)."""
        return get_bot(bots) if kind == "random" else cached(get_bot(bots), self.r, seed)

    # -- reading -------------------------------------------------------------

    def seed_of(self, run: dict) -> bytes:
        """The run's seed: its own for free play, else its day's."""
        if run.get("seed"):
            return bytes.fromhex(run["seed"])
        return self.settings.seed(date.fromisoformat(run["date"]))

    def public_seed(self, run: dict, now: datetime | None = None) -> str | None:
        """The run's seed in hex when the player may see it: an archive day's (public), a random
        deal's and a duel's once its game is over, a ranked day's once revealed; else None."""
        kind = run_kind(run)
        if kind in ("random", "duel"):
            return self.seed_of(run).hex() if run["status"] == "finished" else None
        day = date.fromisoformat(run["date"])
        if self.settings.clock.phase(day, now or self.settings.now()) == "closed":
            return self.seed_of(run).hex()
        return None

    def rebuild(self, run: dict, *, events_from: int | None = None, deal_start: bool = False) -> tbl.Table:
        return tbl.replay(self.seed_of(run), parse_stored(run["plays"]), events_from=events_from,
                          deal_start=deal_start, **game_terms(run))

    # -- playing -------------------------------------------------------------

    def game(self, run: dict, seed: bytes, plays: str) -> GameState:
        """The game after ``plays`` (as stored): the one this process kept if it matches, else
        replayed; the caller's to play on (``games.put`` it back once the plays it reached are
        stored)."""
        return (self.games.take(run["id"], seed, plays)
                or tbl.replay(seed, parse_stored(plays), **game_terms(run)).state)

    def play(self, run_id: str, pid: str, turn: int, text: str, *, kind: str = "card",
             now: datetime | None = None, limits: Gate = NO_LIMITS,
             players: Players | None = None, cpu: Gate = NO_LIMITS) -> PlayResult:
        """Play seat 0's action number ``turn`` (0-based; ``kind`` card, or call under rules with an
        auction) and let the bots answer.

        The same action asked again for the turn just played is answered again, not played twice.
        Refused (422, nothing stored): ``unknown_card`` / ``unknown_call`` (not one), ``illegal_card``
        (with the obligation), ``illegal_call``, ``call_expected`` (a card while seat 0 must call),
        ``card_expected`` (a call while a card is due), each with the ``legal`` actions.
        ``limits``: a new, legal play must find room in them, else TooManyRequests before the bots
        move, and nothing is stored.  It is counted in them as the run is read (``take``: no
        round trip of its own), and the count given back if the play is then refused (whatever
        for), a repeat, or not stored because the run changed: a repeat is neither refused nor
        counted.  A play Redis did not confirm (503 ``play_unconfirmed``) keeps its count.
        ``players``: ``pid`` is a token's claim (its device id), resolved to its player (else
        Unauthorized) as the run is read; None: the caller resolved it.
        ``cpu``: the search limits (``move_bots``), charged with the CPU of the bots' searches once
        the play is stored.
        """
        now = now or self.settings.now()
        for _attempt in range(3):
            stamp = now_ms()
            run, room = self._load_for_play(run_id, pid, limits, stamp, players)
            counted, keep = (limits.counted(room) if room is not None else NO_LIMITS), False
            try:
                result = self._play_once(run_id, run, turn, text, kind, now, stamp, limits, room, cpu)
                keep = result is not None and not result.replayed
            except Unavailable:
                keep = True  # the play may have been stored: its count stays
                raise
            finally:
                if counted and not keep:
                    self._give_back(counted, stamp)
            if result is not None:
                return result
            # somebody else appended in between: look again (it may be this very play, retried)
        raise Conflict("the run changed while playing; try again", code="wrong_turn")

    def _play_once(self, run_id: str, run: dict, turn: int, text: str, kind: str, now: datetime, stamp: int,
                   limits: Gate, room: list | None, cpu: Gate = NO_LIMITS) -> PlayResult | None:
        """``play`` on the run as read: the result (the play stored, or a repeat answered again),
        or None if the run changed before the play could be stored; raises what ``play`` does."""
        action = parse_action(text, kind)
        code = tbl.encode_action(action)
        played = len(run["cards"]) // 2
        if turn == played - 1 and run["cards"][-2:] == code:
            return self._replayed(run, turn)
        if run["status"] == "finished":
            raise Conflict("the game of this run is over", code="run_finished")
        if turn != played:
            raise Conflict(f"turn {turn} is not the turn to play; expected {played}",
                           code="wrong_turn", expected_turn=played)
        day = date.fromisoformat(run["date"])
        if run["ranked"] == "1" and now >= self.settings.clock.reveals_at(day):
            raise Conflict("this ranked run was not finished before its day's seed was published",
                           code="day_closed", reveal_at=self.settings.clock.reveals_at(day).isoformat())
        seed = self.seed_of(run)
        state = self.game(run, seed, run["plays"])
        table = tbl.Table(state)
        try:
            check_phase(state, action)
            tbl.step(state, action, table.events, checked=True)
        except (IllegalPlayError, IllegalCallError, Unprocessable) as e:  # refused before the state changed
            self.games.put(run_id, seed, run["plays"], state)
            raise refused(e, action) from None
        except GameOverError:  # pragma: no cover - status says finished first
            raise Conflict("the game of this run is over", code="run_finished") from None
        if room is not None:
            limits.verdict(room)  # full: TooManyRequests before the bots think
        mine = stored_actions((action,))
        bots, cpu_ms = self.move_bots(table, run, seed, run["plays"] + mine, cpu)
        added = mine + stored_actions(bots)
        new_plays = run["plays"] + added
        new_cards = run["cards"] + code
        over = state.is_over
        keys = [self.key(run_id), self.paths_key(day, run_shard(run_id)), self.lines_key(day, run_shard(run_id))]
        args = [len(run["plays"]), added, mine, vlq(stamp - int(run.get("last") or 0)),
                stamp, "1" if over else "0", pack_instant(now) if over else "", run["ranked"],
                0 if run["ranked"] == "1" else self.practice_ttl(), run_id[12:]]
        try:
            # loads play.lua if Redis lacks it; on a cluster, answered once a replica has the play
            stored, _acked = run_replicated(self.r, self._play, keys, args, self.settings.redis_wait_ms)
        except (redis.ConnectionError, redis.TimeoutError) as e:
            # The script was sent and no answer came: Redis may run it yet (a paused server
            # reads it when it resumes).  The same turn and action again answers either way.
            raise Unavailable(
                "the data store did not confirm this play: it may have been played; send the "
                "same turn and action again (the stored answer comes back if it was)",
                code="play_unconfirmed", turn=turn, **{kind: str(action)}, retry_after=1) from e
        if not stored:
            return None
        self.charge(cpu, cpu_ms)
        if not over:
            self.games.put(run_id, seed, new_plays, state)
        run.update(plays=new_plays, cards=new_cards, last=str(stamp))
        if over:
            run.update(status="finished", finished_at=now.isoformat())
        return PlayResult(run, table)

    def record(self, run: dict) -> dict:
        """The finished run's game record.  Under rules with an auction it is the verifier's: seat
        0's actions alone replayed from the seed, every bot decision and score recomputed (as a
        submission is), which costs as much as the bots' whole game: it is built once, on its
        first reading, and kept beside the run for as long as the run (``record_key``).  A
        muette-1 run's is built from its stored plays (a replay without the bots)."""
        if not run.get("bidder"):
            return build_record(self.rebuild(run).state, run["bots"])
        key = self.record_key(run["id"])
        stored = self.r.get(key)
        if stored is None:
            stored = self._build_record(run, key)
        return json.loads(stored)

    def _build_record(self, run: dict, key: str) -> str:
        """The verifier's record of ``run`` (finished, under rules with an auction) as text, stored
        at ``key`` with the run's time to live.  Requests that ask for it at once wait for the one
        that builds it (a mark that lapses, should that one die), rather than each build it."""
        building = key + ":building"
        if not self.r.set(building, "1", nx=True, px=RECORD_BUILD_MS):
            deadline = time.monotonic() + RECORD_BUILD_MS / 1000
            while time.monotonic() < deadline:
                time.sleep(0.05)
                stored = self.r.get(key)
                if stored is not None:
                    return stored
        else:
            stored = self.r.get(key)  # built and stored since this request looked
            if stored is not None:
                self.r.delete(building)
                return stored
        actions = [tbl.action_text(c) for c in tbl.split_actions(run["cards"])]
        text = dumps(verify(self.seed_of(run), actions, get_bot(run["bots"]), bidder=get_bidder(run["bidder"]),
                            **game_terms(run)))
        ttl = self.r.pttl(self.key(run["id"]))
        with self.r.pipeline(transaction=False) as pipe:
            pipe.set(key, text, px=ttl if ttl > 0 else self.practice_ttl() * 1000)
            pipe.delete(building)
            pipe.execute()
        return text

    def _replayed(self, run: dict, turn: int) -> PlayResult:
        """The answer to the play of ``turn`` again: the events from that card on, as first sent."""
        table = self.rebuild(run, events_from=0)
        table.events = table.events[table.event_at[table.player_positions[turn]]:]
        return PlayResult(run, table, replayed=True)
