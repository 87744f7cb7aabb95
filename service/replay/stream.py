"""The deterministic random stream of docs/spec.md §5.1: SHA-256 blocks read as big-endian uint32 values.

Every bit of chance in the project (shuffles, random bots) comes from one of these,
never from Python's global ``random``, so the same seed gives the same bytes forever.
"""

from __future__ import annotations

import hashlib
import struct

_U32 = struct.Struct(">I")
_BLOCK = struct.Struct(">8I")
_SPAN = 1 << 32


def u32be(n: int) -> bytes:
    """``n`` as four big-endian bytes (the ``uint32be`` of docs/spec.md §5.1)."""
    return _U32.pack(n)


class HashStream:
    """Values ``u`` from blocks ``SHA-256(prefix ‖ uint32be(j))``, j = 0, 1, …; blocks made lazily.

    The prefix is kept only inside a hash object, which cannot give it back: a bot holding its
    decision stream (whose prefix starts with the seed) cannot read the seed from it.
    """

    __slots__ = ("_hash", "_block", "_values", "_pos")

    def __init__(self, prefix: bytes) -> None:
        self._hash = hashlib.sha256(bytes(prefix))
        self._block = 0
        self._values: tuple[int, ...] = ()
        self._pos = 0

    def _refill(self) -> tuple[int, ...]:
        h = self._hash.copy()
        h.update(_U32.pack(self._block))
        self._values = _BLOCK.unpack(h.digest())
        self._block += 1
        self._pos = 0
        return self._values

    def next_u32(self) -> int:
        if self._pos == len(self._values):
            self._refill()
        value = self._values[self._pos]
        self._pos += 1
        return value

    def uniform(self, n: int) -> int:
        """A uniform integer in [0, n) by rejection (docs/spec.md §5.2); raises ValueError if n < 1."""
        if not 1 <= n <= _SPAN:
            raise ValueError(f"uniform needs 1 <= n <= 2**32, got {n}")
        limit = _SPAN - _SPAN % n  # the largest multiple of n up to 2**32
        while True:
            u = self.next_u32()
            if u < limit:
                return u % n

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place (docs/spec.md §5.3): for i from the last index down to 1, swap item i with
        item ``uniform(i + 1)``; the same values as those calls, read without a call each (the
        bots' deal draws shuffle hundreds of thousands of times a game)."""
        values, pos = self._values, self._pos
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = _SPAN - _SPAN % n
            while True:
                if pos == len(values):
                    values, pos = self._refill(), 0
                u = values[pos]
                pos += 1
                if u < limit:
                    break
            j = u % n
            items[i], items[j] = items[j], items[i]
        self._pos = pos

    def choice(self, items):
        """One item of a non-empty sequence, uniformly."""
        return items[self.uniform(len(items))]
