"""Where runs live in Redis: their keys, the Lua scripts beside this file that open a run, play
on it and retire its path, how long runs are kept, and the reads a play makes.  ``Runs`` (this
package) opens and plays runs by the rules on top of it.

Stored in a Redis hash per run (``manille:{day:D/KK}:run:<id>``, in the shard ``KK`` of the day
that the run's player falls in, which the id names: ``YYYYMMDD-KK-…``), compactly (it is most of
an open day's memory): its kind, rules and bots, every action at the table (``plays``) and the
player's (``cards``), a character each (``service.store.compact``: a card's id as a base64 digit,
a call a letter after them), the time of each play as Base64 VLQ gaps (``pace``, the form a
submission keeps, and ``last``, the last one in ms, which the next gap is counted from), the
opening and finishing times in µs, the client's address and its user agent's digest (the text
once in the agents hash, ``service.submissions.AGENTS``).  Nothing the key already says (the id,
the day) and no empty field (``submission``, ``finished_at`` until there is one).  ``run_dict``
gives the rest of the service the run in one shape: two characters an action (``table``), ISO
times, the id and the day.

A player's ranked run of a day has an id of its own: a digest of the player under the day's
seed (``ranked_id``), so the one ranked run a player may open is found, and refused a second
time, by its key alone.  The day's ranked runs from a client address are a field of a hash per
shard (the address's digest -> the run ids), which ``many_runs`` and ops read.

Runs are not kept for good (a submission copies what stays): a ranked run, with the day's
indexes of runs (per address, the tree of paths), expires ``run_keep_hours`` after its day's
seed is revealed, which is how long ops have the day's other runs to judge a flag by; a practice
run ``practice_keep_hours`` after its last play (or its opening).  The TTLs are set as the run
opens; a play sets a practice run's again.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import re
import secrets
from datetime import date, datetime, timedelta

import redis

from service.config import Settings
from service.errors import NotFound, ServiceError
from service.limits import Gate, Limits, client_network
from service.players import KNOWN_REPLIES, Players
from service.store import (EVERY_SHARD, day_of_id, day_scope, id_of, key_for, load_script, pipelined, shard_of,
                           shard_of_id)
from service.replay import Card
from service.store.compact import ALPHABET, CALLS, pack_instant, unpack_instant

from .table import CALL_CODES, decode_action


def path_hash(text: str) -> str:
    """The field of a sequence of cards in the day's paths: as play.lua computes it."""
    return hashlib.sha1(text.encode()).hexdigest()[:16]


#: ``YYYYMMDD-KK-<16>``: the day, its shard (``store.shard_of``), random (a ranked run's: a digest,
#: ``ranked_id``).
RUN_ID_RE = re.compile(r"([0-9]{8})-([0-9]{2})-[A-Za-z0-9_-]{16}")  # [0-9]: \d takes other digits
#: What a play reads of its run (``Runs.play`` and the answer, ``run_json``): not the play times,
#: the client's address and agent or the opening time, which grow or weigh and are only written
#: (``last``: the last play's time, the next gap's start).
PLAY_FIELDS = ("pid", "kind", "rules", "target", "bidder", "bots", "status", "cards", "plays", "seed",
               "submission", "last", "duel")
#: An action's two characters (``table``) and its stored one.
_STORED = {**{str(Card.from_id(i)): ch for i, ch in enumerate(ALPHABET)}, **{CALL_CODES[t]: ch for t, ch in CALLS.items()}}
_SHOWN = str.maketrans({ch: code for code, ch in _STORED.items()})


#: Every user agent a run (and so a submission) names, once: digest -> text (``agent_id``).
AGENTS = key_for("agents", "all")


def agent_id(user_agent: str) -> str:
    """The digest a user agent is stored under (64 bits: no two of the world's agents share one);
    '' for none."""
    return hashlib.sha256(user_agent.encode("utf-8", "replace")).hexdigest()[:16] if user_agent else ""


_ACTION_OF = {ch: decode_action(code) for code, ch in _STORED.items()}
_CHAR_OF = {action: ch for ch, action in _ACTION_OF.items()}


def pack_actions(text: str) -> str:
    """Actions as ``table`` writes them (two characters each) to a character each."""
    return "".join(_STORED[text[i:i + 2]] for i in range(0, len(text), 2))


def unpack_actions(stored: str) -> str:
    """``pack_actions`` undone."""
    return stored.translate(_SHOWN)


def stored_actions(actions) -> str:
    """Cards and calls (``Card``, ``Call``) as stored, a character each."""
    return "".join(_CHAR_OF[a] for a in actions)


def parse_stored(stored: str) -> list:
    """The cards and calls of stored actions."""
    return [_ACTION_OF[ch] for ch in stored]


def stored_run(run: dict) -> dict:
    """The fields a new run (``run_dict``'s shape) is stored with: nothing empty, nothing its key
    says, the player's actions a character each, times as integers (the user agent: its digest,
    ``agent``)."""
    out = {k: v for k, v in run.items()
           if k not in ("id", "date", "ranked", "plays", "cards", "created_at", "finished_at", "user_agent")
           and v != ""}
    out.update(plays=run["plays"], created_at=pack_instant(datetime.fromisoformat(run["created_at"])))
    if run["cards"]:
        out["cards"] = pack_actions(run["cards"])
    return out


def run_dict(run_id: str, stored: dict, day: date | None = None) -> dict:
    """A run as the service reads it, from its stored fields (all of them, or ``PLAY_FIELDS``):
    ``id``, ``date`` (``day``: the run's, when the caller has it), ``ranked``, the player's
    actions two characters each (``cards``, as ``table`` writes them; ``plays``, every action,
    stays as stored: ``parse_stored``), ISO times, '' for a field not set yet."""
    run = dict(stored)
    day = day or run_day(run_id)
    submission = run.get("submission")
    run["id"], run["date"] = run_id, day.isoformat()
    run["ranked"] = "1" if run.get("kind") == "ranked" else "0"
    run.setdefault("plays", "")  # as stored, a character an action: only the play path reads it
    run["cards"] = stored["cards"].translate(_SHOWN) if "cards" in stored else ""
    run["submission"] = id_of(day, run_shard(run_id), submission) if submission else ""
    run.setdefault("status", "")
    run["finished_at"] = unpack_instant(run.get("finished_at", ""))
    if "created_at" in run:
        run["created_at"] = unpack_instant(run["created_at"])
    return run


def ranked_id(seed: bytes, day: date, pid: str) -> str:
    """The id of the player's ranked run of ``day`` (``seed``: the day's): a digest of the player
    under the seed, as secret as the seed until it is published, in the player's shard."""
    digest = hmac.new(seed, b"ranked run|" + pid.encode(), hashlib.sha256).digest()
    return f"{day:%Y%m%d}-{shard_of(pid):02d}-{base64.urlsafe_b64encode(digest).decode()[:16]}"


def run_day(run_id: str) -> date | None:
    return day_of_id(RUN_ID_RE, run_id)


def run_shard(run_id: str) -> int | None:
    """The shard of its day a run's keys are in (None for what is no run id)."""
    return shard_of_id(RUN_ID_RE, run_id)


class RunStore:
    """A run's keys, scripts and reads in Redis, with nothing of the rules of play."""

    def __init__(self, client, settings: Settings) -> None:
        self.r = client
        self.settings = settings
        self.limits = Limits(client)
        self._open = load_script(client, __file__, "open_run.lua")
        self._play = load_script(client, __file__, "play.lua")
        self._retire = load_script(client, __file__, "retire_path.lua")
        self._note_duel = load_script(client, __file__, "note_duel.lua")

    @staticmethod
    def key(run_id: str) -> str:
        """``manille:{day:D/KK}:run:<the id's last 16 characters>`` (the tag names the day and shard)."""
        return key_for("run", day_scope(run_day(run_id), run_shard(run_id)), run_id[12:])

    def remember_agent(self, user_agent: str) -> str:
        """The digest of ``user_agent``, its text stored once in the agents hash."""
        agent = agent_id(user_agent)
        if agent:
            self.r.hsetnx(AGENTS, agent, user_agent)
        return agent

    def ranked_id(self, day: date, pid: str) -> str:
        """The id the player's ranked run of ``day`` has, whether or not it was opened."""
        return ranked_id(self.settings.seed(day), day, pid)

    @staticmethod
    def address_runs_key(day: date, shard: int) -> str:
        """The day's ranked runs of the players of one shard, by client address: the address's
        digest (a key is no log) -> the ids, space-separated."""
        return key_for("runs", day_scope(day, shard), "addr")

    @staticmethod
    def record_key(run_id: str) -> str:
        """A finished free game's record under rules with an auction, once built (``Runs.record``),
        in its run's slot, kept as long as the run."""
        return key_for("record", day_scope(run_day(run_id), run_shard(run_id)), run_id[12:])

    @staticmethod
    def paths_key(day: date, shard: int) -> str:
        """How many ranked runs of the day's ``shard``, not submitted, played each sequence of
        first cards (play.lua counts a run in, ``retire_path`` a verified one out; the empty
        sequence, set at opening, is every ranked run opened, and makes the key with its TTL).
        The day's tree is the sum over its shards (``path_counts``)."""
        return key_for("paths", day_scope(day, shard))

    @staticmethod
    def lines_key(day: date, shard: int) -> str:
        """The lines of the day's ranked runs of ``shard``: a sorted set (every score 0, read by
        prefix, ``ZRANGEBYLEX``) of each run's cards so far a character each, then ' ' and its id's
        last 16 characters; open_run.lua adds a run, play.lua moves it along.  Kept as the paths
        are; ``service.runs.around`` reads it."""
        return key_for("lines", day_scope(day, shard))

    def _over_shards(self, read) -> list:
        """``read(pipe, shard)`` queued for every shard of a day (``store.EVERY_SHARD``), in one
        round trip; the replies in that order."""
        return pipelined(self.r, lambda pipe: [read(pipe, shard) for shard in EVERY_SHARD])

    def address_runs(self, day: date, ip: str) -> list[str]:
        """The day's ranked runs opened from ``ip``'s network (``limits.client_network``: an IPv4
        address, an IPv6 /64), over every shard."""
        field = path_hash(client_network(ip))
        found = self._over_shards(lambda pipe, shard: pipe.hget(self.address_runs_key(day, shard), field))
        return [run_id for ids in found if ids for run_id in ids.split()]

    def unsubmitted_cards(self, run_ids: list[str]) -> dict[str, list[str]]:
        """The player's cards of each run not submitted, by run id."""
        pipe = self.r.pipeline(transaction=False)
        for run_id in run_ids:
            pipe.hmget(self.key(run_id), ["cards", "submission"])
        out = {}
        for run_id, (cards, submission) in zip(run_ids, pipe.execute()):
            if cards and not submission:
                text = unpack_actions(cards)
                out[run_id] = [text[i:i + 2] for i in range(0, len(text), 2)]
        return out

    def unsubmitted_summaries(self, run_ids: list[str]) -> list[dict]:
        """Each run of ``run_ids`` never submitted, as review reads it: its cards played, its status,
        when it opened and finished, and the seconds between (None until it finished)."""
        pipe = self.r.pipeline(transaction=False)
        for run_id in run_ids:
            pipe.hmget(self.key(run_id), ["cards", "submission", "status", "created_at", "finished_at"])
        out = []
        for run_id, (cards, submission, status, opened, finished) in zip(run_ids, pipe.execute()):
            if submission or opened is None:
                continue
            opened, finished = unpack_instant(opened), unpack_instant(finished or "")
            out.append({"run_id": run_id, "cards": len(cards or ""), "status": status or "playing",
                        "created_at": opened, "finished_at": finished or None,
                        "seconds": round((datetime.fromisoformat(finished) - datetime.fromisoformat(opened))
                                         .total_seconds(), 1) if finished else None})
        return out

    def path_counts(self, day: date, prefixes: list[str]) -> list[int]:
        """How many ranked runs of ``day`` not submitted began with each of ``prefixes`` (card
        strings): a verified game's path is retired (``retire_path``)."""
        if not prefixes:
            return []
        fields = [path_hash(pack_actions(p)) for p in prefixes]
        counts = self._over_shards(lambda pipe, shard: pipe.hmget(self.paths_key(day, shard), fields))
        return [sum(int(v or 0) for v in column) for column in zip(*counts)]

    def note_duel(self, run_id: str, code: str) -> str | None:
        """Note the duel made of a finished run, once: the run's duel (``code`` if noted now, else
        the one noted before), or None if the run is gone."""
        return self._note_duel(keys=[self.key(run_id)], args=[code])

    def retire_path(self, run_id: str, cards: list[str], submission_id: str) -> bool:
        """Take a verified game's path (its run's) out of the day's tree, once (the run keeps the
        mark, ``retired``), so that the tree counts only runs not (yet) submitted, which is what
        ``explored`` looks for; a prefix left at 0 goes.  Nothing once the day's tree has expired
        (a re-verification after the keep)."""
        day, shard = run_day(run_id), run_shard(run_id)
        if self.ranked_ttl(day) <= 0:  # the keep is over: the tree is gone, or goes with the next compaction
            return False
        packed = pack_actions("".join(cards))
        return bool(self._retire(keys=[self.paths_key(day, shard), self.key(run_id)],
                                 args=[path_hash(packed[:k]) for k in range(1, len(packed) + 1)]))

    # -- how long runs are kept ------------------------------------------------

    def ranked_ttl(self, day: date, now: datetime | None = None) -> int:
        """Seconds the day's ranked runs and what indexes them are kept from ``now``: until the
        day's seed is revealed and ``run_keep_hours`` more (ops judge the flags with them); 0 or
        less once that has passed."""
        return math.ceil((self.kept_until(day) - (now or self.settings.now())).total_seconds())

    def kept_until(self, day: date) -> datetime:
        """When the day's ranked runs expire."""
        return self.settings.clock.reveals_at(day) + timedelta(hours=self.settings.run_keep_hours)

    def practice_ttl(self) -> int:
        """Seconds a practice run (archive or random) is kept from its opening, then from each play."""
        return max(1, self.settings.practice_keep_hours * 3600)

    # -- reading -------------------------------------------------------------

    def ranked_run_id(self, day: date, pid: str) -> str | None:
        """The id of the player's ranked run of ``day`` if it was opened (and is still kept)."""
        run_id = self.ranked_id(day, pid)
        return run_id if self.r.exists(self.key(run_id)) else None

    def submission_of(self, run_id: str) -> str | None:
        """The id of the run's submission, if it was submitted (and the run is still kept)."""
        tail = self.r.hget(self.key(run_id), "submission")
        return id_of(run_day(run_id), run_shard(run_id), tail) if tail else None

    def load(self, run_id: str, pid: str) -> dict:
        """The run, if it exists and belongs to ``pid``; else NotFound ``run_not_found`` (a foreign
        run is answered exactly like a missing one)."""
        return self._owned(run_id, self.r.hgetall(self.key(run_id)) if run_day(run_id) else None, pid)

    @staticmethod
    def _owned(run_id: str, stored: dict | None, pid: str, day: date | None = None) -> dict:
        if not stored or not secrets.compare_digest(stored.get("pid", ""), pid):
            raise NotFound("no such run for this player", code="run_not_found")
        return run_dict(run_id, stored, day)

    def _load_for_play(self, run_id: str, pid: str, gate: Gate, now: int,
                       players: Players | None) -> tuple[dict, list | None]:
        """``load`` (of ``PLAY_FIELDS``) in one round trip with what a play also does first: check
        that the token is a device's and find its player (with ``players``: ``pid`` is the device
        id, Unauthorized first for a removed or unknown one), and take the play
        in its limits at ``now`` (the replies, None for no limits: ``Gate.verdict``, ``counted``),
        given back if the token or the run is refused."""
        day = run_day(run_id)
        ask = players is not None

        def queue(pipe):
            if ask:
                players.queue_known(pid, pipe)
            if day:
                pipe.hmget(self.key(run_id), PLAY_FIELDS)
                self.limits.queue(gate, pipe, "take", now)
        replies = pipelined(self.r, queue, [self.limits.script])
        known = replies[:KNOWN_REPLIES] if ask else None
        replies = replies[KNOWN_REPLIES:] if ask else replies
        run = {k: v for k, v in zip(PLAY_FIELDS, replies[0]) if v is not None} if day else None
        room = replies[1:] if day and gate else None
        try:
            if ask:  # the device's player: a token of a removed device is refused here
                pid = players.known(pid, known)
            return self._owned(run_id, run, pid, day), room
        except ServiceError:  # an unknown token, a run not the player's: nothing to count
            if room is not None:
                self._give_back(gate.counted(room), now)
            raise

    def _give_back(self, counted: Gate, stamp: int) -> None:
        """Take back the hits a play counted at ``stamp`` and then did not store.  Best effort:
        Redis failing now leaves them counted, which only makes their windows one hit fuller."""
        try:
            self.limits.uncount(counted, stamp)
        except (redis.ConnectionError, redis.TimeoutError):
            pass
