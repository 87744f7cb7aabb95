"""Redis for the data modules: key names, connections, Lua scripts, pipelines and replicated writes.

Every key is built by :func:`key_for` (``keys``) and carries a hash tag naming the scope it
belongs to: a day (``{day:2026-12-02}``: what is one a day, its challenge) or one of its sixteen
shards (``{day:2026-12-02/03}``: the runs and submissions of the players whose pid falls in it),
a board (``{boards:day:2026-12-02}``, ``{boards:week:2026-W49}``, ``{boards:month:2026-12}``,
and ``{boards}`` for the all-time board), a player (``{player:…}``), a league, a duel, an
analysis, a seed's positions, the nicknames (``{nicks}``), a rate limit's window, the service's
own (``{all}``, ``{metrics}``). The keys of each Lua script call and each MULTI share one Redis
Cluster slot (tests/service/test_svc_slots.py computes them); what spans slots is done in steps,
each in one: a score goes to the day's board, then the all-time board, then the week's and the
month's, then its pending note is taken off (``service/leaderboard/writes.py``).
Every key is listed in docs/operations.md, "Data in Redis".

The modules, each named after what it holds: ``keys`` (``key_for``, the scopes of days and
shards, the ids that name them), ``connection`` (one Redis, Sentinel, a cluster; bytes or text
replies), ``scripts`` (the ``.lua`` files, loaded for EVALSHA), ``pipeline`` (reads and script
calls in one round trip, on one Redis or a cluster), ``replicated`` (a write answered once a
replica has it: WAIT on a cluster), and ``compact`` (the compact forms runs, submissions and
analyses are stored in).  The data modules use them through the names this package exports.
"""

from __future__ import annotations

from .connection import connect, connect_cluster, is_cluster, parse_nodes, parse_sentinels, raw_client, text_client
from .keys import (DAY_SHARDS, EVERY_SHARD, PREFIX, day_of_id, day_scope, id_of, id_tail, key_for, month_id,
                   shard_of, shard_of_id, week_id)
from .pipeline import pipelined
from .replicated import run_replicated, run_replicated_each
from .scripts import evalsha_on, load_script, script_needs, script_source

__all__ = ["PREFIX", "connect", "connect_cluster", "is_cluster", "parse_nodes", "run_replicated", "run_replicated_each", "evalsha_on", "parse_sentinels", "pipelined", "raw_client", "text_client", "day_of_id",
           "day_scope", "EVERY_SHARD", "shard_of", "shard_of_id", "DAY_SHARDS", "id_of", "id_tail", "key_for", "load_script", "script_needs", "script_source", "month_id", "week_id"]
