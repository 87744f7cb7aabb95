"""The analysed positions of a seed, kept in Redis: what every analysis of that seed is rebuilt from.

An analysis document is a pure function of its game's record and of the entries of its decisions
(``postmortem.game``), so the entries are the one home of what an analysis found: a document is
not stored but rebuilt from them when read.  Every player of a day meets the same first tricks,
so the entries of a day's games are shared, and a game's own ones are a dozen or so.

How an entry is stored (``pack_entry``), a few bytes where its JSON takes a few hundred:

- a forced card: ``F``, the card's id (docs/spec.md §3.3) and its value with open hands;
- a choice: ``C`` (values sampled) or ``E`` (exact), the deals solved, the consistent deals, the
  baseline card's id, how many legal cards, then for each in the order of their ids: the id, its
  value with open hands, and its seat value, standard error, paired standard error, hindsight gain
  and that gain's variance, each in thousandths (the analysis rounds them to three decimals);
- any entry that this does not give back exactly (``-0.0``, say): ``J`` and its JSON, compressed.

Numbers are zigzag varints (7 bits a byte, the sign in the lowest bit).  An entry is checked
when packed: what ``unpack_entry`` gives back is the same JSON, or the entry is stored as ``J``.

Where: a seed's entries are spread by their digest over small hashes (buckets) that Redis keeps in
its compact encoding (``hash-max-ziplist-entries``, 512 by default: a bucket is filled to about
half, as hashing fills them unevenly).  A seed starts with one bucket; once its entries outgrow
a generation of buckets, new ones go to the next, sixteen times wider (1, 16, 256, 4,096
buckets), so a free game's seed is one small hash and a day's best games of a million players
stay compact.  A lookup asks every generation the seed has reached.  The first bucket also
counts the seed's entries (field ``n``), which says which generations exist.

How long: an entry outlives every analysis that needs it.  The first bucket's TTL is a lower bound
of every bucket's (a bucket written gets the full ``KEEP``; the first bucket only when it is made
or ``touch``ed), and ``touch`` (called as an analysis finishes or is read) gives every bucket the
full keep again once that bound falls below the analysis's own.
"""

from __future__ import annotations

import hashlib
import json
import zlib

from service.replay import Card
from service.store import key_for

#: Buckets of each generation, and how many entries a bucket is meant to hold on average.
GENERATIONS = (1, 16, 256, 4096)
BUCKET_FILL = 256
#: The first bucket's field that counts the seed's entries (an entry's field is 8 bytes).
COUNT = b"n"


class PositionsGone(LookupError):
    """An entry a stored analysis needs is not in Redis (its seed's positions expired or were lost)."""


# -- the codec -----------------------------------------------------------------------------------


def _varint(n: int, out: bytearray) -> None:
    n = n << 1 if n >= 0 else (-n << 1) - 1
    while n > 127:
        out.append(n & 127 | 128)
        n >>= 7
    out.append(n)


class _Reader:
    def __init__(self, blob: bytes) -> None:
        self.blob, self.i = blob, 1

    def byte(self) -> int:
        self.i += 1
        return self.blob[self.i - 1]

    def int(self) -> int:
        n = shift = 0
        while True:
            b = self.byte()
            n |= (b & 127) << shift
            shift += 7
            if b < 128:
                return n >> 1 if not n & 1 else -((n + 1) >> 1)

    def thousandths(self) -> float:
        return self.int() / 1000


def _card(text: str) -> int:
    return Card.parse(text).id


def _milli(x: float) -> int:
    return round(x * 1000)


def _pack(entry: dict) -> bytes:
    out = bytearray()
    if entry["forced"]:
        (card, value), = entry["open"].items()
        out += b"F"
        out.append(_card(card))
        _varint(value, out)
        return bytes(out)
    out += b"E" if entry["exact"] else b"C"
    _varint(entry["worlds"], out)
    _varint(int(entry["consistent"]), out)
    out.append(_card(entry["baseline"]))
    cards = sorted(entry["open"], key=_card)
    out.append(len(cards))
    for c in cards:
        out.append(_card(c))
        _varint(entry["open"][c], out)
        for x in (entry["seat"][c], entry["seat_se"][c], entry["pair_se"][c], entry["luck"][c]["gain"],
                  entry["luck"][c]["var"]):
            _varint(_milli(x), out)
    return bytes(out)


def unpack_entry(blob: bytes) -> dict:
    """An entry as ``postmortem.game`` made it, from ``pack_entry``'s bytes."""
    kind = blob[:1]
    if kind == b"J":
        return json.loads(zlib.decompress(blob[1:]))
    r = _Reader(blob)
    if kind == b"F":
        card = str(Card.from_id(r.byte()))
        return {"forced": True, "open": {card: r.int()}}
    worlds, consistent, baseline = r.int(), r.int(), str(Card.from_id(r.byte()))
    opens, seat, seat_se, pair_se, luck = {}, {}, {}, {}, {}
    for _ in range(r.byte()):
        c = str(Card.from_id(r.byte()))
        opens[c] = r.int()
        seat[c], seat_se[c], pair_se[c] = r.thousandths(), r.thousandths(), r.thousandths()
        luck[c] = {"gain": r.thousandths(), "var": r.thousandths()}
    return {"forced": False, "exact": kind == b"E", "worlds": worlds, "consistent": str(consistent),
            "open": opens, "seat": seat, "seat_se": seat_se, "pair_se": pair_se, "baseline": baseline,
            "luck": luck}


def _json(entry: dict) -> str:
    return json.dumps(entry, sort_keys=True, separators=(",", ":"))


def pack_entry(entry: dict) -> bytes:
    """An entry's stored bytes: packed, or ``J`` and its compressed JSON when packing would not
    give back the very same JSON (``unpack_entry``)."""
    try:
        blob = _pack(entry)
        if _json(unpack_entry(blob)) == _json(entry):
            return blob
    except (KeyError, TypeError, ValueError, OverflowError):
        pass
    return b"J" + zlib.compress(_json(entry).encode(), 9)


# -- in Redis ------------------------------------------------------------------------------------


def seed_tag(seed: bytes) -> str:
    """The hash tag of a seed's positions (one cluster slot a seed)."""
    return f"seed:{hashlib.sha256(seed).hexdigest()[:16]}"


def generations_for(count: int) -> int:
    """How many generations a seed with ``count`` entries has reached (at least the first)."""
    n, capacity = 1, GENERATIONS[0] * BUCKET_FILL
    while n < len(GENERATIONS) and count >= capacity:
        capacity += GENERATIONS[n] * BUCKET_FILL
        n += 1
    return n


class PositionCache:
    """Decision entries of one seed (``postmortem.game``'s ``cache``: key -> entry), in Redis."""

    def __init__(self, raw, seed: bytes, keep_seconds: int, settings_id: str | None = None) -> None:
        from postmortem import ANALYSIS_ID

        self.raw = raw  # bytes replies
        self.tag = seed_tag(seed)
        self.settings_id = settings_id or ANALYSIS_ID
        self.keep = keep_seconds
        self.count: int | None = None  # the seed's entries as last seen

    def bucket_key(self, generation: int, bucket: int) -> str:
        return key_for("positions", self.tag, self.settings_id, str(generation), f"{bucket:x}")

    @property
    def first(self) -> str:
        return self.bucket_key(0, 0)

    def _place(self, key: str, generation: int) -> tuple[str, bytes]:
        """The bucket of ``key`` (``<settings id>:<32 hex>``) in ``generation``, and its field."""
        settings_id, digest = key.rsplit(":", 1)
        if settings_id != self.settings_id:
            raise ValueError(f"a key of {settings_id}, not {self.settings_id}: {key}")
        return self.bucket_key(generation, int(digest[:8], 16) % GENERATIONS[generation]), bytes.fromhex(digest[8:24])

    def _generations(self) -> int:
        if self.count is None:
            self.count = int(self.raw.hget(self.first, COUNT) or 0)
        return generations_for(self.count)

    def get(self, key: str, default=None):
        found = self.get_many([key]).get(key)
        return default if found is None else found

    def get_many(self, keys: list[str]) -> dict[str, dict]:
        """The entries of ``keys`` that are stored (key -> entry), in one round trip."""
        gens = self._generations()
        with self.raw.pipeline(transaction=False) as pipe:
            for key in keys:
                for g in range(gens):
                    pipe.hget(*self._place(key, g))
            replies = pipe.execute()
        out = {}
        for i, key in enumerate(keys):
            blob = next((b for b in replies[i * gens:(i + 1) * gens] if b is not None), None)
            if blob is not None:
                out[key] = unpack_entry(blob)
        return out

    def __setitem__(self, key: str, entry: dict) -> None:
        generation = self._generations() - 1
        bucket, field = self._place(key, generation)
        with self.raw.pipeline(transaction=False) as pipe:
            pipe.hset(bucket, field, pack_entry(entry))
            if generation:
                pipe.expire(bucket, self.keep)
            pipe.hincrby(self.first, COUNT, 1)
            self.count = pipe.execute()[-1]
        if self.count == 1:
            self.raw.expire(self.first, self.keep)  # made now: its TTL bounds the others'

    def touch(self, at_least: int) -> None:
        """Every bucket kept ``keep`` seconds from now if the least of their TTLs is below
        ``at_least`` seconds (at most once in ``keep - at_least`` seconds, however often read)."""
        ttl = self.raw.ttl(self.first)
        if ttl == -2 or 0 <= at_least <= ttl:
            return
        self.count = None
        gens = self._generations()
        with self.raw.pipeline(transaction=False) as pipe:
            for g in range(gens):
                for b in range(GENERATIONS[g]):
                    pipe.expire(self.bucket_key(g, b), self.keep)
            pipe.execute()
