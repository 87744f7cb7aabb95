"""A rebuild of the boards from the stored submissions: its flag, the scores turned away while it
runs, and the wipe that begins it.

A wipe first raises the count of wipes and gives it to every week's and month's slot, then
deletes the boards; every change carries the count from its all-time step to the week's and
month's, so a change caught on the wrong side of a wipe is dropped there, and the rebuild records
its game again (``period_change.lua``).  The rebuild itself is
``service.verification.rebuild_boards``.
"""

from __future__ import annotations

import redis

from service.store import key_for

from .keys import BOARD_KINDS, BOARDS, DEFERRED, EPOCH, REBUILD_FLAG, WIPES, board_key


class BoardsRebuilding(Exception):
    """The boards are being rebuilt: the score was not recorded now; the rebuild will record it."""



class BoardRebuilds:
    """``Leaderboard``'s rebuild steps."""

    def begin_rebuild(self, ttl: int) -> bool:
        """Raise the rebuild flag (False if a rebuild already holds it); it lapses after ``ttl`` s
        unless kept up, so a rebuild that died does not stop the boards for ever."""
        return bool(self.r.set(REBUILD_FLAG, "1", nx=True, ex=ttl))

    def keep_rebuilding(self, ttl: int) -> None:
        self.r.expire(REBUILD_FLAG, ttl)

    def take_deferred(self, count: int = 1000) -> list[str]:
        """Submission ids whose scores were turned away during the rebuild (removed as taken)."""
        return self.r.spop(DEFERRED, count) or []

    def end_rebuild(self) -> bool:
        """Lower the flag, but only if nothing is deferred: the check and the lowering are one
        transaction (a deferral in between aborts it, and the caller drains again)."""
        with self.r.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(DEFERRED)
                if pipe.scard(DEFERRED):
                    return False
                pipe.multi()
                pipe.delete(REBUILD_FLAG)  # a string: DEL is as quick as UNLINK
                pipe.execute()
                return True
            except redis.WatchError:
                return False

    def wipe(self) -> int:
        """Delete every board of every period (the first step of a rebuild from the stored
        submissions); returns how many keys went.
        UNLINK: a board of a million entries is freed by Redis in the background, not while every
        other client waits."""
        # First the count of wipes, raised, and every week's and month's slot told it (kept, not
        # deleted): from there on a period step begun before the wipe is dropped, and one that
        # landed before is deleted below with the board it wrote (period_change.lua).
        wipes = self.r.incr(WIPES)
        counts = set(self.r.scan_iter(match=key_for("wipes", f"{BOARDS}:*", "*"), count=1000))
        for key in counts:
            self.r.set(key, wipes)
        deleted = 0
        patterns = [board_key(kind) + ":*" for kind in BOARD_KINDS]
        patterns.append(key_for("*", f"{BOARDS}:*"))  # a day's, week's or month's board, each in its own slot
        for pattern in patterns:
            batch = []
            for key in self.r.scan_iter(match=pattern, count=1000):
                if key in counts:
                    continue
                batch.append(key)
                if len(batch) == 1000:
                    deleted += self.r.unlink(*batch)
                    batch = []
            if batch:
                deleted += self.r.unlink(*batch)
        self.r.incr(EPOCH)  # after: a page read in the middle is kept under the old epoch
        return deleted
