"""Where runs live in Redis: their keys, the Lua scripts beside this file that open a run, play
on it and retire its path, how long runs are kept, and the reads a play makes.  ``Runs`` (this
package) opens and plays runs by the rules on top of it.

Stored in a Redis hash per run (``manille:{day:D/KK}:run:<id>``, in the shard ``KK`` of the day
that the run's player falls in, which the id names: ``YYYYMMDD-KK-…``; runs made before the days
were sharded, ``YYYYMMDD-…``, are under the day's own tag): the day, its kind, the bot id,
the player's cards (append-only), every card at the table (see ``table``), the time of each
play, the client's address and user agent.

Runs are not kept for good (a submission copies what stays): a ranked run, with the day's
indexes of runs (per player, per address, the tree of paths), expires ``run_keep_hours`` after
its day's seed is revealed, which is how long ops have the day's other runs to judge a flag by;
a practice run ``practice_keep_hours`` after its last play (or its opening).  The TTLs are set as
the run opens; a play sets a practice run's again.
"""

from __future__ import annotations

import hashlib
import math
import re
import secrets
from datetime import date, datetime, timedelta

import redis

from service.config import Settings
from service.errors import NotFound, ServiceError
from service.limits import Gate, Limits, client_network
from service.players import Players
from service.store import EVERY_SHARD, day_of_id, day_scope, key_for, load_script, pipelined, shard_of, shard_of_id


def path_hash(text: str) -> str:
    """The field of a sequence of cards in the day's paths: as play.lua computes it."""
    return hashlib.sha1(text.encode()).hexdigest()[:16]


#: The kinds of a day's keys that go with its ranked runs (``open_run.lua`` gives them their TTL;
#: ``paths:counted`` is ``retire_path``'s, ``paths:submitted`` written before issue 11).
RUN_KEY_KINDS = ("run:*", "ranked:*", "runs:addr:*", "paths", "paths:counted", "paths:submitted")
#: ``YYYYMMDD-KK-<16>``: the day, its shard (``store.shard_of``), random; ``YYYYMMDD-<16>`` before.
RUN_ID_RE = re.compile(r"([0-9]{8})-(?:([0-9]{2})-)?[A-Za-z0-9_-]{16}")  # [0-9]: \d takes other digits
#: What a play reads of its run (``Runs.play`` and the answer, ``run_json``): not the play times,
#: the client's address and agent or the opening time, which grow or weigh and are only written.
PLAY_FIELDS = ("id", "pid", "date", "ranked", "kind", "rules", "target", "bidder", "bots", "status", "cards",
               "plays", "seed", "submission", "duel")


def run_day(run_id: str) -> date | None:
    return day_of_id(RUN_ID_RE, run_id)


def run_shard(run_id: str) -> int | None:
    """The shard of its day a run's keys are in; None for a run made before the days were sharded."""
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
        return key_for("run", day_scope(run_day(run_id), run_shard(run_id)), run_id)

    @staticmethod
    def ranked_key(day: date, pid: str, *, sharded: bool = True) -> str:
        """The id of the player's ranked run of the day, in the player's shard (``sharded``) or
        where it was before the days were sharded."""
        return key_for("ranked", day_scope(day, shard_of(pid) if sharded else None), pid)

    @staticmethod
    def address_runs_key(day: date, ip: str, shard: int | None = None) -> str:
        """The day's ranked runs opened from one client's network (``limits.client_network``: an
        IPv4 address, an IPv6 /64; hashed: a key is no log), of the players of one shard (None:
        before the days were sharded)."""
        return key_for("runs", day_scope(day, shard), "addr", path_hash(client_network(ip)))

    @staticmethod
    def record_key(run_id: str) -> str:
        """A finished free game's record under rules with an auction, once built (``Runs.record``),
        in its run's slot, kept as long as the run."""
        return key_for("record", day_scope(run_day(run_id), run_shard(run_id)), run_id)

    @staticmethod
    def paths_key(day: date, shard: int | None = None) -> str:
        """How many ranked runs of the day's ``shard``, not submitted, played each sequence of
        first cards (play.lua counts a run in, ``retire_path`` a verified one out; the empty
        sequence, set at opening, is every ranked run opened, and makes the key with its TTL).
        The day's tree is the sum over its shards (``path_counts``)."""
        return key_for("paths", day_scope(day, shard))

    def _over_shards(self, read) -> list:
        """``read(pipe, shard)`` queued for every shard of a day (``store.EVERY_SHARD``), in one
        round trip; the replies in that order."""
        return pipelined(self.r, lambda pipe: [read(pipe, shard) for shard in EVERY_SHARD])

    def address_runs(self, day: date, ip: str) -> list[str]:
        """The day's ranked runs opened from ``ip``'s network (its /64 for IPv6), over every shard."""
        lists = self._over_shards(lambda pipe, shard: pipe.lrange(self.address_runs_key(day, ip, shard), 0, -1))
        return [run_id for ids in lists for run_id in ids]

    def unsubmitted_cards(self, run_ids: list[str]) -> dict[str, list[str]]:
        """The player's cards of each run not submitted, by run id."""
        pipe = self.r.pipeline(transaction=False)
        for run_id in run_ids:
            pipe.hmget(self.key(run_id), ["cards", "submission"])
        return {run_id: [cards[i:i + 2] for i in range(0, len(cards), 2)]
                for run_id, (cards, submission) in zip(run_ids, pipe.execute()) if cards and not submission}

    def path_counts(self, day: date, prefixes: list[str], *, of: str = "runs") -> list[int]:
        """How many ranked runs of ``day`` began with each of ``prefixes`` (card strings): of the
        ``runs`` not submitted (a verified game's path is retired: ``retire_path``), or of the
        ``submitted`` ones counted apart on days verified before that (0 on later days)."""
        if not prefixes:
            return []
        fields = [path_hash(p) for p in prefixes]
        if of == "submitted":
            return [int(v or 0) for v in self.r.hmget(self.submitted_paths_key(day), fields)]
        counts = self._over_shards(lambda pipe, shard: pipe.hmget(self.paths_key(day, shard), fields))
        return [sum(int(v or 0) for v in column) for column in zip(*counts)]

    @staticmethod
    def submitted_paths_key(day: date) -> str:
        """Days verified before issue 11 counted the submitted games' paths here, apart (read only)."""
        return key_for("paths", day_scope(day), "submitted")

    def note_duel(self, run_id: str, code: str) -> str | None:
        """Note the duel made of a finished run, once: the run's duel (``code`` if noted now, else
        the one noted before), or None if the run is gone."""
        return self._note_duel(keys=[self.key(run_id)], args=[code])

    def retire_path(self, run_id: str, cards: list[str], submission_id: str) -> bool:
        """Take a verified game's path (its run's) out of the day's tree, once per submission, so
        that the tree counts only runs not (yet) submitted, which is what ``explored`` looks for;
        a prefix left at 0 goes.  Nothing once the day's tree has expired (a re-verification
        after the keep)."""
        day, shard = run_day(run_id), run_shard(run_id)
        ttl = self.ranked_ttl(day)
        if ttl <= 0:  # the keep is over: the tree is gone, or goes with the next compaction
            return False
        return bool(self._retire(keys=[self.paths_key(day, shard), self.retired_key(day, shard)],
                                 args=[submission_id, ttl]
                                 + [path_hash("".join(cards[:k])) for k in range(1, len(cards) + 1)]))

    @staticmethod
    def retired_key(day: date, shard: int | None = None) -> str:
        """The submissions whose paths ``retire_path`` took out of the shard's tree."""
        return key_for("paths", day_scope(day, shard), "counted")

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

    def expire_untimed(self, batch: int = 500) -> dict:
        """Keys of days' runs stored before runs expired (issue 11) have no TTL: give each the
        TTL of its day's ranked runs, or UNLINK it when that keep is over (a practice run of those
        days included).  Idempotent; returns how many keys got a TTL and how many went."""
        counts = {"expiring": 0, "unlinked": 0}
        for kind in RUN_KEY_KINDS:
            keys = list(self.r.scan_iter(match=key_for(kind, "day:*"), count=1000))
            for start in range(0, len(keys), batch):
                chunk = keys[start:start + batch]
                with self.r.pipeline(transaction=False) as pipe:
                    for key in chunk:
                        pipe.ttl(key)
                    untimed = [k for k, ttl in zip(chunk, pipe.execute()) if ttl == -1]
                    for key in untimed:
                        ttl = self.ranked_ttl(date.fromisoformat(key.split("{day:", 1)[1][:10]))
                        if ttl > 0:
                            pipe.expire(key, ttl)
                            counts["expiring"] += 1
                        else:
                            pipe.unlink(key)
                            counts["unlinked"] += 1
                    pipe.execute()
        return counts

    # -- reading -------------------------------------------------------------

    def ranked_run_id(self, day: date, pid: str) -> str | None:
        """The id of the player's ranked run of ``day``, if any (in the player's shard, or where
        it was before the days were sharded)."""
        sharded, before = pipelined(self.r, lambda pipe: (pipe.get(self.ranked_key(day, pid)),
                                                          pipe.get(self.ranked_key(day, pid, sharded=False))))
        return sharded or before

    def load(self, run_id: str, pid: str) -> dict:
        """The run, if it exists and belongs to ``pid``; else NotFound ``run_not_found`` (a foreign
        run is answered exactly like a missing one)."""
        return self._owned(self.r.hgetall(self.key(run_id)) if run_day(run_id) else None, pid)

    @staticmethod
    def _owned(run: dict | None, pid: str) -> dict:
        if not run or not secrets.compare_digest(run.get("pid", ""), pid):
            raise NotFound("no such run for this player", code="run_not_found")
        return run

    def _load_for_play(self, run_id: str, pid: str, gate: Gate, now: int,
                       players: Players | None) -> tuple[dict, list | None]:
        """``load`` (of ``PLAY_FIELDS``) in one round trip with what a play also does first: check
        that the player is known (with ``players``: Unauthorized first if not), and take the play
        in its limits at ``now`` (the replies, None for no limits: ``Gate.verdict``, ``counted``),
        given back if the token or the run is refused."""
        day = run_day(run_id)
        ask = players is not None and not players.seen(pid)

        def queue(pipe):
            if ask:
                players.queue_known(pid, pipe)
            if day:
                pipe.hmget(self.key(run_id), PLAY_FIELDS)
                self.limits.queue(gate, pipe, "take", now)
        replies = pipelined(self.r, queue, [self.limits.script])
        known = replies.pop(0) if ask else True
        run = {k: v for k, v in zip(PLAY_FIELDS, replies[0]) if v is not None} if day else None
        room = replies[1:] if day and gate else None
        try:
            Players.known(known)
            if ask:
                players.remember(pid)
            return self._owned(run, pid), room
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
