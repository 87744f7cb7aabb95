"""The compiled double-dummy search (``dds.c``), loaded with ctypes; None where it cannot be.

It answers exactly what the Python search of ``bots.alphabeta`` answers (tests compare the two on
hundreds of positions), only faster, so a bot or an analysis gives the same bytes with it or
without it: where no C compiler is found the solver falls back to Python and is merely slower.

The library is built once per source text (its name carries the source's digest, so an edited
``dds.c`` is never served by an old build) with the machine's ``cc``, into this folder or, if that
is read-only, ``$XDG_CACHE_HOME/manille``; ``make install`` builds it ahead (``python -m
bots.native``).  ``MANILLE_NATIVE=0`` turns it off (the reference search, for comparisons).
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

SOURCE = Path(__file__).with_name("dds.c")
CFLAGS = ("-O3", "-shared", "-fPIC", "-std=c99")
#: Entries of a table (2 ** this, 16 bytes each: 1 MiB), one a key.  Larger tables keep
#: a few more positions of a whole deal but lose more to the memory than they save in nodes.
TABLE_LOG2 = 16


def _library_name() -> str:
    digest = hashlib.sha256(SOURCE.read_bytes() + " ".join(CFLAGS).encode()).hexdigest()[:12]
    return f"_dds-{digest}.so"


def _places() -> list[Path]:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "manille"
    return [SOURCE.parent, cache]


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
            done = subprocess.run([compiler, *CFLAGS, "-o", tmp, str(SOURCE)], capture_output=True, text=True,
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
    return lib


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

