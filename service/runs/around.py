"""The day's runs around a game: every ranked run of its day, from any token or address, opened
before the game was submitted, that followed the game's cards and left them (where, with which
card), or played them whole, or stopped on them; each with its pace, whether it finished and was
submitted, its client's network and user agent, and its token's age.

Found through the shards' lines (``RunStore.lines_key``: each ranked run's cards so far, in a
sorted set read by prefix), so a search spread over many addresses shows as one.  Runs that share
only a few first cards with the game are the common case on a day where everyone gets the same
deals: the list holds every run that followed at least ``followed_from`` cards (0 on a day of
up to ``LISTED`` runs: every run), the shallowest depth at which there are at most ``LISTED`` of
them, and counts the others by where they left.

Runs and the day's lines expire ``run_keep_hours`` after the day's seed is revealed;
``keep_runs_around`` keeps a case's runs ``case_keep_days`` (their ids under the game, in its
submission's slot), and ``runs_around`` reads them from there once the day's lines are gone.
"""

from __future__ import annotations

import statistics
from datetime import date, datetime

from service.config import Settings
from service.errors import Conflict
from service.replay import SubmissionRejected
from service.limits import client_network
from service.players import Players
from service.store import EVERY_SHARD, day_scope, id_of, key_for, pipelined
from service.store.compact import unpack_instant, unpack_times
from service.store.keys import id_tail, shard_of_id
from service.submissions import SUB_ID_RE, Submissions, submission_day

from .store import AGENTS, RunStore, pack_actions, run_shard, unpack_actions

#: At most this many runs are listed (the deepest first): below the depth where more would be
#: listed, runs are only counted.
LISTED = 500
#: What is read of each run found.
_FIELDS = ("pid", "cards", "status", "submission", "created_at", "finished_at", "pace", "ip", "agent")
#: Above every character a line is stored with (base64 digits, and ' ' before a run's id): the
#: end of a prefix's range in ZRANGEBYLEX.
_AFTER = "\x7f"


def kept_key(submission_id: str) -> str:
    """The runs kept around a game once its case is opened (``keep_runs_around``): their ids,
    in the submission's slot."""
    return key_for("around", day_scope(submission_day(submission_id), shard_of_id(SUB_ID_RE, submission_id)),
                   id_tail(submission_id))


def game_points(record: dict) -> list[dict]:
    """Seat 0's cards in the game's order, each with its number, deal, trick (0-based, as the
    record's), the card played and the legal ones."""
    mine = [(d["index"], t_no, p) for d in record["deals"] for t_no, t in enumerate(d["tricks"])
            for p in t["plays"] if p["seat"] == 0]
    return [{"index": k, "deal": deal, "trick": trick, "card": p["card"], "legal": p["legal"]}
            for k, (deal, trick, p) in enumerate(mine)]


def around(client, settings: Settings, submission_id: str, *, sub: dict | None = None,
           record: dict | None = None) -> dict:
    """The runs around a game and the counts of those not listed: ``{"runs", "followed_from",
    "earlier"}``.  ``sub``/``record``: the submission and its game, when the caller has them (the
    verification).  Raises NotFound ``submission_not_found``, Conflict ``game_rejected``."""
    subs = Submissions(client, settings)
    sub = sub or subs.get(submission_id)
    if record is None:
        try:
            record = subs.record(sub)
        except SubmissionRejected:
            raise Conflict("a rejected game has no line to follow", code="game_rejected") from None
    points = game_points(record)
    line = pack_actions("".join(p["card"] for p in points))
    day = date.fromisoformat(sub["date"])
    store = RunStore(client, settings)
    n = len(line)

    def counts(pipe, shard):
        return [pipe.zlexcount(store.lines_key(day, shard), "[" + line[:k], "[" + line[:k] + _AFTER)
                for k in range(n + 1)]
    flat = _over(client, counts)
    reached = [sum(flat[k::n + 1]) for k in range(n + 1)]  # runs whose line begins with line[:k]
    followed_from = next((k for k in range(n + 1) if reached[k] <= LISTED), n)
    found = {}
    if reached[followed_from]:
        members = _over(client, lambda pipe, shard: pipe.zrangebylex(
            store.lines_key(day, shard), "[" + line[:followed_from], "[" + line[:followed_from] + _AFTER,
            start=0, num=LISTED + 1))
        for shard, names in zip(EVERY_SHARD, members):
            for member in names:
                found[f"{day:%Y%m%d}-{shard:02d}-{member.rsplit(' ', 1)[1]}"] = None
    for run_id in client.smembers(kept_key(submission_id)) or ():
        found.setdefault(run_id, None)
    found.pop(sub["run_id"], None)
    runs = _described(client, store, list(found), points, sub)
    runs.sort(key=lambda r: (-r["followed"], r["opened_at"], r["run_id"]))
    earlier = [{"index": k, "deal": points[k]["deal"], "trick": points[k]["trick"], "runs": reached[k] - reached[k + 1]}
               for k in range(followed_from) if reached[k] - reached[k + 1] > 0]
    return {"runs": runs, "followed_from": followed_from, "earlier": earlier}


def runs_around(client, settings: Settings, submission_id: str) -> list[dict]:
    """Every run of the game's day that followed its cards and left them, played them whole or
    stopped on them, opened before the game was submitted, the deepest first (``around``: at most
    ``LISTED``).  Raises NotFound ``submission_not_found``."""
    return around(client, settings, submission_id)["runs"]


def keep_runs_around(client, settings: Settings, submission_id: str) -> list[str]:
    """Keep the runs around a game ``case_keep_days`` from now (an opened case), and their ids
    under the game, so that ``runs_around`` finds them after the day's lines are gone; again
    later, it keeps them longer and adds the runs found since.  The ids kept; raises NotFound
    ``submission_not_found``."""
    ids = [r["run_id"] for r in runs_around(client, settings, submission_id)]
    ttl = settings.case_keep_days * 86400
    key = kept_key(submission_id)

    def queue(pipe):
        for run_id in ids:
            pipe.expire(RunStore.key(run_id), ttl)
        if ids:
            pipe.sadd(key, *ids)
            pipe.expire(key, ttl)
    pipelined(client, queue)
    return ids


def _over(client, read) -> list:
    return pipelined(client, lambda pipe: [read(pipe, shard) for shard in EVERY_SHARD])


def _described(client, store: RunStore, run_ids: list[str], points: list[dict], sub: dict) -> list[dict]:
    """Each run as ``runs_around`` lists it; runs gone, opened after the submission or with no card
    played left out."""
    stored = pipelined(client, lambda pipe: [pipe.hmget(store.key(r), _FIELDS) for r in run_ids])
    runs = [(r, dict(zip(_FIELDS, values))) for r, values in zip(run_ids, stored) if values[0] is not None]
    pids = list(dict.fromkeys(run["pid"] for _, run in runs))
    born = dict(zip(pids, pipelined(client, lambda pipe: [pipe.hget(Players._key(p), "created_at") for p in pids])))
    agents = list(dict.fromkeys(run["agent"] for _, run in runs if run["agent"]))
    agent_text = dict(zip(agents, client.hmget(AGENTS, agents))) if agents else {}
    submitted_at = datetime.fromisoformat(sub["created_at"])
    game = [p["card"] for p in points]
    out = []
    for run_id, run in runs:
        opened = datetime.fromisoformat(unpack_instant(run["created_at"] or ""))
        if opened > submitted_at:
            continue  # it could not have shown the game anything
        text = unpack_actions(run["cards"] or "")
        cards = [text[i:i + 2] for i in range(0, len(text), 2)]
        k = next((i for i, (a, b) in enumerate(zip(game, cards)) if a != b), min(len(game), len(cards)))
        if not cards:
            continue  # opened, nothing played: nothing followed or left
        left = None
        if k < len(cards):
            p = points[k]
            left = {"index": k, "deal": p["deal"], "trick": p["trick"], "played": p["card"], "tried": cards[k],
                    "decision": len(p["legal"]) > 1}
        times = unpack_times(run["pace"] or "")
        gaps = [b - a for a, b in zip(times, times[1:])]
        token_born = born.get(run["pid"])
        out.append({
            "run_id": run_id, "followed": k, "left": left, "whole": k == len(game) == len(cards),
            "cards": len(cards), "finished": run["status"] == "finished",
            "submitted": bool(run["submission"]),
            "submission_id": id_of(date.fromisoformat(sub["date"]), run_shard(run_id), run["submission"])
            if run["submission"] else None,
            "opened_at": opened.isoformat(), "finished_at": unpack_instant(run["finished_at"] or "") or None,
            "pace": {"median_ms": int(statistics.median(gaps)) if gaps else None,
                     "seconds": round((times[-1] - times[0]) / 1000, 1) if len(times) > 1 else 0.0},
            "network": client_network(run["ip"] or ""), "user_agent": agent_text.get(run["agent"]) or "",
            "token_age_seconds": max(0, int((opened - datetime.fromisoformat(token_born)).total_seconds()))
            if token_born else None,
        })
    return out
