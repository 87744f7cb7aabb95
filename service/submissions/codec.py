"""How a submission is stored: compactly, and read back in one shape whatever its age.

A submission stays in Redis for good (it is what the boards are rebuilt from), one hash a
player-day, so its form is what the service's memory grows by.  Since issue 11 it keeps:

- ``played``: seat 0's cards, one character each: the card's id (RULES §2, 7C = 0 … TS = 31)
  as a base64 digit (``A`` … ``f``);
- ``pace``: the server time of each play, the first in ms since the epoch, then the ms since the
  one before (negative if a clock went back), each a Base64 VLQ (source maps' variable-length
  integers: the sign in the lowest bit, five bits a digit, lowest first, a digit from ``g`` on
  saying another follows) run together: 1764712800123, 1520, 830 is ``23vxih3mD`` ``g/C``
  ``8zB``: 9 digits for the first, 3 for a gap of 0.5–16 s.  Submissions stored before it have
  ``gaps`` instead, the same numbers in decimal with commas (``1764712800123,1520,830``): about 5
  characters a play where ``pace`` takes 3 (100 bytes a game);
- times (``created_at``, ``run_created_at``, ``run_finished_at``, ``verified_at``,
  ``checked_at``) as whole µs since the epoch, which Redis keeps as an 8-byte integer; no
  ``checked_at`` until a later verdict than the first (read: ``verified_at``);
- the client's user agent by its digest (``run_agent``; ``agent`` for the submitting client's,
  only when it differs from the run's), each agent's text once in ``manille:{all}:agents`` (a
  hundred-odd characters a browser, and few browsers);
- the submitting client's ``ip`` only when it differs from the run's;
- no ``id`` or ``date`` (in the key), no ``bots`` or ``rules`` (the day's challenge keeps them),
  no game record (recomputed from the seed when asked: ``Submissions.record``) and no ``counted``
  (the day's board has it).

Every value fits Redis's compact hash encoding (values up to ``hash-max-ziplist-value``, 1024 in
deploy/redis.conf), but for the evidence of a rare flag (``oracle`` lists its decisions).
Submissions stored before are read as they are: ``cards`` (two characters a card), ``times``
(ms since the epoch, comma-separated), ISO times, and the stored ``record``.  ``decode`` gives
both in the old shape, which is what the rest of the service reads.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone

from service.replay import Card

#: A card's id as one character: the base64 digits, in order.
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"
_ID_OF = {c: i for i, c in enumerate(ALPHABET)}
#: The digits of a Base64 VLQ (source maps'): 32 and up say that another digit follows.
VLQ = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_VLQ_OF = {c: i for i, c in enumerate(VLQ)}
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: The fields holding a time: µs since the epoch in the compact form, ISO text in the old one.
TIME_FIELDS = ("created_at", "run_created_at", "run_finished_at", "verified_at", "checked_at", "delayed_at")
#: A field of the compact form only: its presence is how a stored hash is told apart.
COMPACT_MARK = "played"
#: The fields naming a user agent by its digest (the run's, the submitting client's).
AGENT_FIELDS = ("run_agent", "agent")


def pack_cards(cards: list[str]) -> str:
    """Cards (``7S``…) to one character each; InvalidCardError for anything not a card."""
    return "".join(ALPHABET[Card.parse(c).id] for c in cards)


def unpack_cards(text: str) -> list[str]:
    """``pack_cards`` undone; ValueError for a character no card has (a damaged store)."""
    try:
        return [str(Card.from_id(_ID_OF[ch])) for ch in text]
    except KeyError:
        raise ValueError(f"not a packed card list: {text[:64]!r}") from None


def _gaps(times_ms: list[int]) -> list[int]:
    """The first time, then the gap before each next one (negative if a clock went back)."""
    return [t - prev for prev, t in zip([0] + times_ms, times_ms)]


def _sums(gaps) -> list[int]:
    out, t = [], 0
    for gap in gaps:
        t += gap
        out.append(t)
    return out


def pack_times(times_ms: list[int]) -> str:
    """Play times (ms since the epoch) as ``pace``: each gap a Base64 VLQ, run together."""
    out = []
    for gap in _gaps(times_ms):
        v = (-gap << 1) | 1 if gap < 0 else gap << 1
        while True:
            digit, v = v & 31, v >> 5
            out.append(VLQ[digit | 32 if v else digit])
            if not v:
                break
    return "".join(out)


def unpack_times(text: str) -> list[int]:
    """``pack_times`` undone ('' is no time); ValueError for a character that is no VLQ digit or a
    last number left unfinished (a damaged store)."""
    gaps, v, shift = [], 0, 0
    try:
        for ch in text:
            digit = _VLQ_OF[ch]
            v |= (digit & 31) << shift
            shift += 5
            if not digit & 32:
                gaps.append(-(v >> 1) if v & 1 else v >> 1)
                v = shift = 0
    except KeyError:
        raise ValueError(f"not packed play times: {text[:64]!r}") from None
    if shift:
        raise ValueError(f"packed play times cut short: {text[-64:]!r}")
    return _sums(gaps)


def unpack_decimal_times(text: str) -> list[int]:
    """The ``gaps`` of submissions stored before ``pace``: decimal, comma-separated ('' is none)."""
    return _sums(int(gap) for gap in text.split(",")) if text else []


def pack_time(iso: str) -> str:
    """An ISO time (with its offset) to whole µs since the epoch; '' stays ''."""
    if not iso:
        return ""
    return str((datetime.fromisoformat(iso) - EPOCH) // timedelta(microseconds=1))


def unpack_time(text: str | None) -> str | None:
    """µs since the epoch to ISO text in UTC (``datetime.isoformat``, as the old form stored it);
    ISO text, '' and None are given back as they are."""
    if not text or not text.lstrip("-").isdigit():
        return text
    return (EPOCH + timedelta(microseconds=int(text))).isoformat()


def agent_id(user_agent: str) -> str:
    """The digest a user agent is stored under (64 bits: no two of the world's agents share one)."""
    return hashlib.sha256(user_agent.encode("utf-8", "replace")).hexdigest()[:16]


def encode(run: dict, *, run_id: str, pid: str, nickname: str, ip: str, user_agent: str,
           created_at: str) -> tuple[dict, dict]:
    """The fields stored for a new submission of ``run`` (a run hash as ``Runs`` stores it), and
    the user agents they name (digest -> text) for the agents hash."""
    fields = {
        "run_id": run_id, "pid": pid, "nickname": nickname,
        COMPACT_MARK: pack_cards([run["cards"][i:i + 2] for i in range(0, len(run["cards"]), 2)]),
        "pace": pack_times([int(t) for t in run.get("times", "").split(",") if t]),
        "run_created_at": pack_time(run.get("created_at", "")),
        "run_finished_at": pack_time(run.get("finished_at", "")),
        "run_ip": run.get("ip", ""), "created_at": pack_time(created_at), "status": "queued",
    }
    agents = {}
    run_agent = run.get("user_agent", "")
    if run_agent:
        fields["run_agent"] = agent_id(run_agent)
        agents[fields["run_agent"]] = run_agent
    if ip != fields["run_ip"]:
        fields["ip"] = ip
    if user_agent != run_agent:
        fields["agent"] = agent_id(user_agent) if user_agent else ""
        if user_agent:
            agents[fields["agent"]] = user_agent
    return fields, agents


def agent_ids(stored: dict) -> list[str]:
    """The user-agent digests a stored submission names (none in the old form)."""
    return [stored[f] for f in AGENT_FIELDS if stored.get(f)]


def decode(sub_id: str, day: str, stored: dict, agents: dict | None = None) -> dict:
    """A stored submission (all its fields, or those asked for) in the one shape the service
    reads: ``id``, ``date``, ``cards`` as text (two characters a card), ``times`` (ms since the
    epoch, comma-separated), ISO times, the run's and the submitting client's address and user
    agent (``agents``: digest -> text, for those ``agent_ids`` names)."""
    sub = dict(stored)
    sub["id"], sub["date"] = sub_id, day
    agents = agents or {}
    if COMPACT_MARK in sub or "pace" in sub or "gaps" in sub:
        if COMPACT_MARK in sub:
            sub["cards"] = "".join(unpack_cards(sub.pop(COMPACT_MARK) or ""))
        if "pace" in sub:
            sub["times"] = ",".join(str(t) for t in unpack_times(sub.pop("pace") or ""))
        if "gaps" in sub:
            sub["times"] = ",".join(str(t) for t in unpack_decimal_times(sub.pop("gaps") or ""))
        if "run_agent" in sub or "agent" in sub:
            sub["run_user_agent"] = agents.get(sub.pop("run_agent", ""), "")
            sub["user_agent"] = agents.get(sub.pop("agent"), "") if "agent" in sub else sub["run_user_agent"]
        if sub.get("ip") is None and "run_ip" in sub:
            sub["ip"] = sub["run_ip"]
    if sub.get("verified_at") and not sub.get("checked_at"):
        sub["checked_at"] = sub["verified_at"]
    for name in TIME_FIELDS:
        if name in sub:
            sub[name] = unpack_time(sub[name])
    return sub
