"""How a submission is stored: compactly, and read back in the one shape the service reads.

A submission stays in Redis for good (it is what the boards are rebuilt from), one hash a
player-day, so its form is what the service's memory grows by.  It keeps:

- ``game``, what is written once, in a line (``pack_game``): ``played``, seat 0's cards, one
  character each, and ``pace``, the time of each play as Base64 VLQ gaps, both as its run kept
  them (``service.store.compact``); the run's opening and finishing times and the submission's
  (µs, as VLQ differences); the run's client address and user agent (its digest: each agent's
  text is once in ``manille:{all}:agents``), and the submitting client's when they differ;
- the verdict's times (``verified_at``, ``checked_at``) as whole µs since the epoch, which Redis
  keeps as an 8-byte integer; no ``checked_at`` until a later verdict than the first (read:
  ``verified_at``);
- the hidden-information check's figures (``hindsight``, ``hindsight_player``) as numbers in a
  line (``pack_hindsight``, ``pack_together``), not JSON: the same figures, a fifth of the bytes;
- no ``flags`` when a valid game has none, no ``id``, ``date`` or ``run_id`` (the key names the day
  and the player's ranked run of a day has an id of its own: ``service.runs``), no ``bots`` or
  ``rules`` (the day's challenge keeps them), no game record (recomputed from the seed when asked:
  ``Submissions.record``) and no ``counted`` (the day's board has it).

Every value fits Redis's compact hash encoding (values up to ``hash-max-ziplist-value``, 1024 in
deploy/redis.conf), but for the evidence of a rare flag (``oracle`` lists its decisions).
``decode`` gives the service's shape: ``cards`` as text (two characters a card), ``times`` (ms
since the epoch, comma-separated), ISO times, the figures as the JSON text they were made as.
"""

from __future__ import annotations

import json

from service.runs import agent_id  # noqa: F401  (the digest of an agent: importable from here too)
from service.store.compact import pack_cards, unpack_cards, unpack_times, vlq

#: The fields holding a time: µs since the epoch.
TIME_FIELDS = ("created_at", "run_created_at", "run_finished_at", "verified_at", "checked_at", "delayed_at")
#: The fields naming a user agent by its digest (the run's, the submitting client's).
AGENT_FIELDS = ("run_agent", "agent")
#: The verdicts of a valid game: its flags were computed (no ``flags`` field: none).
VALID_GAME = ("verified", "held", "review", "disqualified", "restricted")
#: What the submission keeps of its game and its clients, written once: one field, ``game``, its
#: parts in this order, separated by spaces (``pack_game``).
GAME = "game"
GAME_PARTS = ("played", "pace", "run_created_at", "run_finished_at", "created_at", "run_ip", "run_agent", "ip",
              "agent")
#: The stored fields ``decode`` needs to give each field asked for.
NEEDS = {"cards": (GAME,), "times": (GAME,), "run_id": ("pid",), "ip": (GAME,), "run_ip": (GAME,),
         "user_agent": (GAME,), "run_user_agent": (GAME,), "created_at": (GAME,), "run_created_at": (GAME,),
         "run_finished_at": (GAME,), "checked_at": ("verified_at",)}
_JSON = {"separators": (",", ":")}


def unpack_time(text: str | None) -> str | None:
    """µs since the epoch to ISO text in UTC (``datetime.isoformat``); '' and None as they are."""
    from service.store.compact import unpack_instant

    return unpack_instant(text) if text else text


def pack_time(iso: str) -> str:
    """An ISO time (with its offset) to whole µs since the epoch; '' stays ''."""
    from datetime import datetime

    from service.store.compact import pack_instant

    return pack_instant(datetime.fromisoformat(iso)) if iso else ""


def encode(run: dict, *, pid: str, nickname: str, ip: str, user_agent: str, created_at: str) -> tuple[dict, dict]:
    """The fields stored for a new submission of ``run`` (``service.runs.run_dict``'s shape), and
    the user agent it names that the run did not (digest -> text) for the agents hash."""
    game = {
        "played": pack_cards([run["cards"][i:i + 2] for i in range(0, len(run["cards"]), 2)]),
        "pace": run.get("pace", ""),
        "run_created_at": pack_time(run.get("created_at", "")),
        "run_finished_at": pack_time(run.get("finished_at", "")),
        "run_ip": run.get("ip", ""), "created_at": pack_time(created_at), "run_agent": run.get("agent", ""),
    }
    agents = {}
    if ip != game["run_ip"]:
        game["ip"] = ip
    agent = agent_id(user_agent)
    if agent != game["run_agent"]:
        game["agent"] = agent
        if user_agent:
            agents[agent] = user_agent
    return {"pid": pid, "nickname": nickname, GAME: pack_game(game), "status": "queued"}, agents


def pack_game(game: dict) -> str:
    """``GAME_PARTS`` in a line: the cards and the pace as they are, the three times (µs) as the
    first and then each one's difference from the one before, in Base64 VLQ, the addresses and
    the agents' digests; the submitting client's address and agent only when they are not the
    run's (``-``: an agent that is none)."""
    times, out, before = [], [], 0
    for name in ("run_created_at", "run_finished_at", "created_at"):
        t = int(game[name]) if game.get(name) else None
        times.append("" if t is None else vlq(t - before))
        before = t if t is not None else before
    agent = game.get("agent")
    out = [game["played"], game["pace"], *times, game.get("run_ip", ""), game.get("run_agent", ""),
           game.get("ip", ""), "" if agent is None else (agent or "-")]
    return " ".join(out)


def unpack_game(text: str) -> dict:
    """``pack_game`` undone: the parts it holds, times as µs text (``ip``, ``agent`` only when
    the submitting client's differ; ``agent`` '' for none)."""
    parts = text.split(" ")
    if len(parts) != len(GAME_PARTS):
        raise ValueError(f"not a submission's game: {text[:64]!r}")
    game = dict(zip(GAME_PARTS, parts))
    before = 0
    for name in ("run_created_at", "run_finished_at", "created_at"):
        if game[name]:
            before += unpack_times(game[name])[0]
            game[name] = str(before)
        else:
            game.pop(name)
    for name in ("ip", "agent"):
        if not game[name]:
            game.pop(name)
    if game.get("agent") == "-":
        game["agent"] = ""
    if not game["run_agent"]:
        game.pop("run_agent")
    return game


def agent_ids(stored: dict) -> list[str]:
    """The user-agent digests a stored submission names."""
    game = unpack_game(stored[GAME]) if stored.get(GAME) else {}
    return [game[f] for f in AGENT_FIELDS if game.get(f)]


def decode(sub_id: str, day: str, stored: dict, agents: dict | None = None, run_id: str | None = None) -> dict:
    """A stored submission (all its fields, or those asked for) in the one shape the service
    reads: ``id``, ``date``, ``run_id`` (given: ``service.runs``), ``cards`` as text (two characters
    a card), ``times`` (ms since the epoch, comma-separated), ISO times, the run's and the
    submitting client's address and user agent (``agents``: digest -> text, for those
    ``agent_ids`` names), ``flags`` ('[]' when none), the check's figures as JSON text."""
    sub = dict(stored)
    sub["id"], sub["date"] = sub_id, day
    if run_id is not None:
        sub["run_id"] = run_id
    agents = agents or {}
    if GAME in sub:
        sub.update(unpack_game(sub.pop(GAME)))
    if "played" in sub:
        sub["cards"] = "".join(unpack_cards(sub.pop("played") or ""))
    if "pace" in sub:
        sub["times"] = ",".join(str(t) for t in unpack_times(sub.pop("pace") or ""))
    if "run_agent" in sub or "agent" in sub:
        sub["run_user_agent"] = agents.get(sub.pop("run_agent", ""), "")
        sub["user_agent"] = agents.get(sub.pop("agent"), "") if "agent" in sub else sub["run_user_agent"]
    if sub.get("ip") is None and "run_ip" in sub:
        sub["ip"] = sub["run_ip"]
    if sub.get("status") in VALID_GAME and not sub.get("flags"):
        sub["flags"] = "[]"  # computed when first verified, and none
    if sub.get("hindsight"):
        sub["hindsight"] = json.dumps(unpack_hindsight(sub["hindsight"], sub.get("hindsight_analysis", "")), **_JSON)
    if sub.get("hindsight_player"):
        sub["hindsight_player"] = json.dumps(unpack_together(sub["hindsight_player"]), **_JSON)
    if sub.get("verified_at") and not sub.get("checked_at"):
        sub["checked_at"] = sub["verified_at"]
    for name in TIME_FIELDS:
        if name in sub:
            sub[name] = unpack_time(sub[name])
    return sub


def stored_fields(fields: list[str]) -> list[str]:
    """The stored fields to read for ``decode`` to give ``fields``."""
    return list(dict.fromkeys([f for name in fields for f in (name, *NEEDS.get(name, ()))] + ["status"]))


# -- the hidden-information check's figures -------------------------------------------------------
#
# ``postmortem.hindsight.score`` of a game, with its analysis and thresholds, is a line of numbers:
# ``gain var z from_trick decisions departures z_threshold gain_threshold`` then, for each decision
# that drives it, ``|deal trick played baseline seat_best gain``; its ``analysis_id`` is the
# submission's ``hindsight_analysis``.  The player's games together: ``gain var z z_threshold
# gain_threshold`` then ``|submission_id z gain`` for each game (its date is its id's).  A number
# is written as Python writes it and read back by the type it has there; figures that would not
# come back as the same JSON are kept as their JSON (a line starting with ``{``).

_SCORE = (("gain", float), ("var", float), ("z", float), ("from_trick", int), ("decisions", int),
          ("departures", int))
_THRESHOLDS = (("z_threshold", float), ("gain_threshold", float))
_DRIVER = (("deal", int), ("trick", int), ("played", str), ("baseline", str), ("seat_best", str), ("gain", float))
_TOGETHER = (("gain", float), ("var", float), ("z", float), ("z_threshold", float), ("gain_threshold", float))
_GAME = (("submission_id", str), ("z", float), ("gain", float))


def _line(values: dict, names) -> str:
    return " ".join(repr(values[name]) if typ is float else str(values[name]) for name, typ in names)


def _read(text: str, names) -> dict:
    parts = text.split(" ")
    if len(parts) != len(names):
        raise ValueError(f"not {len(names)} figures: {text[:64]!r}")
    return {name: typ(part) for (name, typ), part in zip(names, parts)}


def _packed(figures: dict, text: str, unpack) -> str:
    """``text`` if it gives back ``figures`` as the same JSON, else their JSON."""
    try:
        if json.dumps(unpack(text), **_JSON) == json.dumps(figures, **_JSON):
            return text
    except (KeyError, TypeError, ValueError):
        pass
    return json.dumps(figures, **_JSON)


def pack_hindsight(evidence: dict) -> str:
    """The check's figures of one game (``service.analysis.note_check``'s ``evidence``) as stored."""
    try:
        text = "|".join([_line(evidence, _SCORE + _THRESHOLDS),
                         *(_line(d, _DRIVER) for d in evidence["drivers"])])
    except (KeyError, TypeError):
        return json.dumps(evidence, **_JSON)
    return _packed(evidence, text, lambda t: unpack_hindsight(t, evidence.get("analysis_id")))


def unpack_hindsight(text: str, analysis_id: str | None) -> dict:
    """``pack_hindsight`` undone (``analysis_id``: the submission's ``hindsight_analysis``)."""
    if text.startswith("{"):
        return json.loads(text)
    head, *drivers = text.split("|")
    figures = _read(head, _SCORE + _THRESHOLDS)
    out = {name: figures[name] for name, _ in _SCORE}
    out["drivers"] = [_read(d, _DRIVER) for d in drivers]
    if analysis_id is not None:
        out["analysis_id"] = analysis_id
    out.update((name, figures[name]) for name, _ in _THRESHOLDS)
    return out


def pack_together(together: dict) -> str:
    """The player's checked games together (``service.flags.hindsight_together``) as stored."""
    try:
        text = "|".join([_line(together, _TOGETHER), *(_line(g, _GAME) for g in together["games"])])
    except (KeyError, TypeError):
        return json.dumps(together, **_JSON)
    return _packed(together, text, unpack_together)


def unpack_together(text: str) -> dict:
    """``pack_together`` undone."""
    from . import submission_day

    if text.startswith("{"):
        return json.loads(text)
    head, *games = text.split("|")
    figures = _read(head, _TOGETHER)
    listed = []
    for g in games:
        game = _read(g, _GAME)
        listed.append({"submission_id": game["submission_id"], "date": submission_day(game["submission_id"]).isoformat(),
                       "z": game["z"], "gain": game["gain"]})
    return {"games": listed, **figures}
