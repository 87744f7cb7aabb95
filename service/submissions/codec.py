"""How a submission is stored: compactly, and read back in one shape whatever its age.

A submission stays in Redis for good (it is what the boards are rebuilt from), one hash a
player-day, so its form is what the service's memory grows by.  Since issue 11 it keeps:

- ``played``: seat 0's cards, one character each: the card's id (RULES §2, 7C = 0 … TS = 31)
  as a base64 digit (``A`` … ``f``);
- ``gaps``: the server time of each play, the first in ms since the epoch, then the ms since the
  one before (``1764712800123,1520,830,…``);
- times (``created_at``, ``run_created_at``, ``run_finished_at``, ``verified_at``,
  ``checked_at``) as whole µs since the epoch, which Redis keeps as an 8-byte integer;
- the submitting client's ``ip`` and ``user_agent`` only when they differ from the run's;
- no ``id`` or ``date`` (in the key), no ``bots`` or ``rules`` (the day's challenge keeps them),
  no game record (recomputed from the seed when asked: ``Submissions.record``) and no ``counted``
  (the day's board has it).

Every value fits Redis's compact hash encoding (``hash-max-ziplist-value`` in deploy/redis.conf).
Submissions stored before are read as they are: ``cards`` (two characters a card), ``times``
(ms since the epoch, comma-separated), ISO times, and the stored ``record``.  ``decode`` gives
both in the old shape, which is what the rest of the service reads.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from service.replay import Card

#: A card's id as one character: the base64 digits, in order.
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"
_ID_OF = {c: i for i, c in enumerate(ALPHABET)}
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: The fields holding a time: µs since the epoch in the compact form, ISO text in the old one.
TIME_FIELDS = ("created_at", "run_created_at", "run_finished_at", "verified_at", "checked_at", "delayed_at")
#: Fields of the compact form; their presence is how a stored hash is told apart.
COMPACT_MARK = "played"


def pack_cards(cards: list[str]) -> str:
    """Cards (``7S``…) to one character each; InvalidCardError for anything not a card."""
    return "".join(ALPHABET[Card.parse(c).id] for c in cards)


def unpack_cards(text: str) -> list[str]:
    """``pack_cards`` undone; ValueError for a character no card has (a damaged store)."""
    try:
        return [str(Card.from_id(_ID_OF[ch])) for ch in text]
    except KeyError:
        raise ValueError(f"not a packed card list: {text[:64]!r}") from None


def pack_times(times_ms: list[int]) -> str:
    """Play times (ms since the epoch) as the first one, then the gap before each next one."""
    return ",".join(str(t - prev) for prev, t in zip([0] + times_ms, times_ms))


def unpack_times(text: str) -> list[int]:
    """``pack_times`` undone ('' is no time)."""
    out, t = [], 0
    for gap in text.split(",") if text else ():
        t += int(gap)
        out.append(t)
    return out


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


def encode(run: dict, *, run_id: str, pid: str, nickname: str, ip: str, user_agent: str,
           created_at: str) -> dict:
    """The fields stored for a new submission of ``run`` (a run hash as ``Runs`` stores it)."""
    fields = {
        "run_id": run_id, "pid": pid, "nickname": nickname,
        COMPACT_MARK: pack_cards([run["cards"][i:i + 2] for i in range(0, len(run["cards"]), 2)]),
        "gaps": pack_times([int(t) for t in run.get("times", "").split(",") if t]),
        "run_created_at": pack_time(run.get("created_at", "")),
        "run_finished_at": pack_time(run.get("finished_at", "")),
        "run_ip": run.get("ip", ""), "run_user_agent": run.get("user_agent", ""),
        "created_at": pack_time(created_at), "status": "queued",
    }
    if ip != fields["run_ip"]:
        fields["ip"] = ip
    if user_agent != fields["run_user_agent"]:
        fields["user_agent"] = user_agent
    return fields


def decode(sub_id: str, day: str, stored: dict) -> dict:
    """A stored submission (all its fields, or those asked for) in the one shape the service
    reads: ``id``, ``date``, ``cards`` as text (two characters a card), ``times`` (ms since the
    epoch, comma-separated), ISO times, and the submitting client's address and user agent."""
    sub = dict(stored)
    sub["id"], sub["date"] = sub_id, day
    if COMPACT_MARK in sub or "gaps" in sub:
        if COMPACT_MARK in sub:
            sub["cards"] = "".join(unpack_cards(sub.pop(COMPACT_MARK) or ""))
        if "gaps" in sub:
            sub["times"] = ",".join(str(t) for t in unpack_times(sub.pop("gaps") or ""))
        if sub.get("ip") is None and "run_ip" in sub:
            sub["ip"] = sub["run_ip"]
        if sub.get("user_agent") is None and "run_user_agent" in sub:
            sub["user_agent"] = sub["run_user_agent"]
    for name in TIME_FIELDS:
        if name in sub:
            sub[name] = unpack_time(sub[name])
    return sub
