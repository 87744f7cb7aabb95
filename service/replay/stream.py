"""The deterministic random stream of RULES §3: SHA-256 blocks read as big-endian uint32 values.

Every bit of chance in the project (shuffles, random bots) comes from one of these,
never from Python's global ``random``, so the same seed gives the same bytes forever.
"""

from __future__ import annotations

import hashlib
import struct

_U32 = struct.Struct(">I")
_BLOCK = struct.Struct(">8I")


def u32be(n: int) -> bytes:
    """``n`` as four big-endian bytes (the ``uint32be`` of RULES §3)."""
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

    def next_u32(self) -> int:
        if self._pos == len(self._values):
            h = self._hash.copy()
            h.update(_U32.pack(self._block))
            digest = h.digest()
            self._values = _BLOCK.unpack(digest)
            self._block += 1
            self._pos = 0
        value = self._values[self._pos]
        self._pos += 1
        return value

    def uniform(self, n: int) -> int:
        """A uniform integer in [0, n) by rejection (RULES §3); raises ValueError if n < 1."""
        if not 1 <= n <= 1 << 32:
            raise ValueError(f"uniform needs 1 <= n <= 2**32, got {n}")
        limit = ((1 << 32) // n) * n
        while True:
            u = self.next_u32()
            if u < limit:
                return u % n

    def choice(self, items):
        """One item of a non-empty sequence, uniformly."""
        return items[self.uniform(len(items))]
