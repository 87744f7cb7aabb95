"""The compiled double-dummy search (``dds.c``) and the inference's model of expert-1
(``model.c``), loaded with ctypes; None where they cannot be.

Each answers exactly what its Python reference answers (``bots.alphabeta``; ``bots.expert``'s
rules of thumb over ``bots.knowledge``): tests compare the two on hundreds of positions and
thousands of candidate deals, so a bot or an analysis gives the same bytes with them or without
them.  Where no C compiler is found, Python answers and is merely slower.

The library is built once per source text (its name carries the sources' digest, so an edited
``dds.c``, ``model.c`` or ``rules.h`` is never served by an old build) with the machine's ``cc``,
into this folder or, if that is read-only, ``$XDG_CACHE_HOME/manille``; ``make install`` builds it
ahead (``python -m bots.native``).  ``MANILLE_NATIVE=0`` turns it off (the reference search, for comparisons).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from service.replay.rules import trump_forced

SOURCES = (Path(__file__).with_name("dds.c"), Path(__file__).with_name("model.c"))
#: What both include: the card rules, written once (part of the build's digest, not compiled alone).
HEADERS = (Path(__file__).with_name("rules.h"),)
CFLAGS = ("-O3", "-shared", "-fPIC", "-std=c99")
#: Entries of a table (2 ** this, 16 bytes each: 1 MiB), one a key.  Larger tables keep
#: a few more positions of a whole deal but lose more to the memory than they save in nodes.
TABLE_LOG2 = 16


def _library_name() -> str:
    text = b"".join(p.read_bytes() for p in SOURCES + HEADERS) + " ".join(CFLAGS).encode()
    digest = hashlib.sha256(text).hexdigest()[:12]
    return f"_dds-{digest}.so"


def _places() -> list[Path]:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "manille"
    return [SOURCES[0].parent, cache]


def build() -> Path | None:
    """The library, built if it is not yet; None when no compiler can build it."""
    name = _library_name()
    for place in _places():
        if (place / name).exists():
            return place / name
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        return None
    for place in _places():
        try:
            place.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".dds-", suffix=".so", dir=place)
            os.close(fd)
        except OSError:
            continue
        try:
            done = subprocess.run([compiler, *CFLAGS, "-o", tmp, *map(str, SOURCES)], capture_output=True, text=True,
                                  timeout=120)
            if done.returncode != 0:
                print(f"bots.native: {compiler} failed, the Python search is used:\n{done.stderr[-2000:]}",
                      file=sys.stderr)
                return None
            os.replace(tmp, place / name)  # atomic: processes building at once each get a whole file
            return place / name
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return None


def _load():
    if os.environ.get("MANILLE_NATIVE", "1") == "0":
        return None
    try:
        path = build()
        if path is None:
            return None
        lib = ctypes.CDLL(str(path))
    except OSError as e:
        print(f"bots.native: cannot load the compiled search ({e}); the Python search is used", file=sys.stderr)
        return None
    lib.dds_new.restype = ctypes.c_void_p
    lib.dds_new.argtypes = (ctypes.c_int, ctypes.c_int)
    lib.dds_free.argtypes = (ctypes.c_void_p,)
    lib.dds_clear.argtypes = (ctypes.c_void_p,)
    lib.dds_nodes.restype = ctypes.c_long
    lib.dds_nodes.argtypes = (ctypes.c_void_p,)
    for name in ("dds_card_values", "dds_card_bounds"):
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int
        fn.argtypes = (ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32), ctypes.c_int, ctypes.c_int,
                       ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.POINTER(ctypes.c_int))
    lib.dds_card_exact.restype = ctypes.c_int
    lib.dds_card_exact.argtypes = (ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32), ctypes.c_int, ctypes.c_int,
                                   ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int)
    lib.model_card.restype = ctypes.c_int
    lib.model_card.argtypes = (ctypes.POINTER(PastStruct), ctypes.c_uint32)
    lib.model_misses.restype = ctypes.c_int
    lib.model_misses.argtypes = (ctypes.POINTER(PastStruct), ctypes.c_int, *[ctypes.c_uint32] * 4, ctypes.c_int)
    return lib


class PastStruct(ctypes.Structure):
    """``model.c``'s ``past_t``: one earlier card and the table as its seat saw it."""

    _fields_ = [("seat", ctypes.c_int32), ("trump", ctypes.c_int32), ("forced", ctypes.c_int32),
                ("dealer", ctypes.c_int32), ("played", ctypes.c_uint32), ("turned", ctypes.c_uint32),
                ("shown", ctypes.c_uint32 * 4), ("left", ctypes.c_int32 * 4), ("n_trick", ctypes.c_int32),
                ("trick_ids", ctypes.c_int32 * 3), ("win_id", ctypes.c_int32), ("win_seat", ctypes.c_int32),
                ("card", ctypes.c_int32), ("since", ctypes.c_uint32)]


LIB = _load()


class NativeSearch:
    """One solver's table in C, for one trump suit.  A new table each time: its zeroed pages cost
    nothing until written, where a table handed on from an earlier solver (tried) was slower."""

    __slots__ = ("_ctx",)

    def __init__(self, trump: int, table_log2: int = TABLE_LOG2) -> None:
        self._ctx = LIB.dds_new(int(trump), table_log2)
        if not self._ctx:
            raise MemoryError("the compiled solver could not allocate its table")

    def __del__(self) -> None:
        ctx, self._ctx = getattr(self, "_ctx", None), None
        if ctx:
            LIB.dds_free(ctx)

    @property
    def nodes(self) -> int:
        """Positions searched (not found in the table)."""
        return LIB.dds_nodes(self._ctx)

    def clear(self) -> None:
        LIB.dds_clear(self._ctx)

    def card_values(self, hands, leader: int, trick_ids, guess: int) -> dict[int, int]:
        """Card id -> exact points of the mover's team, every legal card (the position checked)."""
        return self._per_card(LIB.dds_card_values, hands, leader, trick_ids, guess)[0]

    def card_bounds(self, hands, leader: int, trick_ids, guess: int) -> tuple[dict[int, int], int]:
        """Card id -> the mover's team's points for the optimal cards, for the others an upper
        bound below the best (one null-window test each); and the best."""
        return self._per_card(LIB.dds_card_bounds, hands, leader, trick_ids, guess)

    def card_exact(self, hands, leader: int, trick_ids, card: int, upper: int) -> int:
        """The exact points of the mover's team after its legal ``card``, known to be ≤ ``upper``
        (-1 when the card is not legal)."""
        h = (ctypes.c_uint32 * 4)(*hands)
        t = (ctypes.c_int * 4)(*trick_ids)
        return LIB.dds_card_exact(self._ctx, h, leader, len(trick_ids), t, int(card), int(upper))

    def _per_card(self, fn, hands, leader, trick_ids, guess) -> tuple[dict[int, int], int]:
        h = (ctypes.c_uint32 * 4)(*hands)
        t = (ctypes.c_int * 4)(*trick_ids)
        out = (ctypes.c_int * 32)()
        best = fn(self._ctx, h, leader, len(trick_ids), t, int(guess), out)
        return {c: v for c, v in enumerate(out) if v >= 0}, best


class NativeModel:
    """Earlier cards of a deal (``bots.inference.Past``), each with the table its seat saw, for
    ``model.c`` to count how many expert-1's rules of thumb would not have played in a deal."""

    __slots__ = ("_pasts", "_n")

    def __init__(self, pasts) -> None:
        self._n = len(pasts)
        self._pasts = (PastStruct * max(1, self._n))()
        for out, p in zip(self._pasts, pasts):
            k = p.table
            out.seat, out.trump, out.forced = k.seat, k.trump, k.facing is trump_forced
            out.dealer = -1 if k.dealer is None else k.dealer
            out.played, out.turned = k.played, k._turned
            out.shown[:], out.left[:] = list(k._shown), list(k.left)
            out.n_trick = len(k.trick_ids)
            out.trick_ids[:len(k.trick_ids)] = k.trick_ids
            out.win_id, out.win_seat = k.win_id, k.win_seat
            out.card, out.since = p.card, p.since

    def misses(self, world, stop: int) -> int:
        """How many of the cards the rules of thumb would not have played in ``world``, up to ``stop``."""
        return LIB.model_misses(self._pasts, self._n, world[0], world[1], world[2], world[3], stop)

    def card(self, i: int, hand: int) -> int | None:
        """The card the rules of thumb play at the ``i``-th past card holding ``hand`` (None: forced)."""
        card = LIB.model_card(ctypes.byref(self._pasts[i]), hand)
        return None if card < 0 else card
