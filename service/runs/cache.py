"""The games in play in this process, so that a play need not replay every card stored before it.

A game's state is a pure function of its seed and its plays (``table.replay``), so an entry holds
the seed and the plays it was built from, and serves a request only when both equal what that
request has just read from Redis: an entry that is stale (another process played since, Redis was
restored, the run is another's) is never used, only dropped, and the request replays, as every
request did before this cache.  Several web processes each keep their own; one that did not
serve a run's last play replays it (``scripts/bench_speed.py`` measures both).

``take`` removes the entry: the request that took it owns the state and may play on it; a request
for the same run in another greenlet meanwhile finds nothing and replays.  ``put`` stores a
clone, never a state the caller still reads or changes.  Least recently used entries go first
beyond ``size`` (``MANILLE_PLAY_CACHE``, default 1024; 0 turns the cache off): an entry holds
about 20 KB (a game's tricks as objects), 1024 of them about 20 MB a process.  A finished game
is not kept: nothing more is played on it.  No locks: under gevent the
dict operations never switch greenlets, and under threads each is atomic.
"""

from __future__ import annotations

from collections import OrderedDict

from service.replay import GameState


class GameCache:
    def __init__(self, size: int) -> None:
        self.size = size
        self._games: OrderedDict[str, tuple[bytes, str, GameState]] = OrderedDict()
        self.hits = self.misses = 0  # since the process started
        #: Called with True for a hit, False for a miss: the app counts them for /metrics (a
        #: run's plays spread over processes miss; nginx's hash on the run id keeps them on one).
        self.on_take = None

    def __len__(self) -> int:
        return len(self._games)

    def take(self, run_id: str, seed: bytes, plays: str) -> GameState | None:
        """The state after ``plays`` from ``seed`` if held, now the caller's; else None."""
        entry = self._games.pop(run_id, None)
        if entry is None or entry[0] != seed or entry[1] != plays:
            self.misses += 1
            if self.on_take is not None:
                self.on_take(False)
            return None
        self.hits += 1
        if self.on_take is not None:
            self.on_take(True)
        return entry[2]

    def put(self, run_id: str, seed: bytes, plays: str, state: GameState) -> None:
        """Keep a copy of ``state``, the game after ``plays`` from ``seed``."""
        if self.size <= 0:
            return
        self._games.pop(run_id, None)
        self._games[run_id] = (seed, plays, state.clone())
        while len(self._games) > self.size:
            self._games.popitem(last=False)
