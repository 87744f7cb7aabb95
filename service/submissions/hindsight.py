"""What the hidden-information check notes on a submission and beside it (``service.flags``): the
check's figures and flags on the submission, the player's checked games (in the player's own
slot), the day's best games that the check looks at.  A part of ``Submissions``, apart from the
storing, queueing and verdicts of a submission."""

from __future__ import annotations

import json
from datetime import date

from service.leaderboard import Leaderboard
from service.store import day_scope, id_of, id_tail, key_for, shard_of

from . import codec

#: A player's most recent checked games kept for ``service.flags.hindsight_player``.
CHECKED_KEPT = 60


class HindsightNotes:
    """Mixed into ``Submissions``: uses its client ``r``, ``key`` and ``get_fields``."""

    def note_hindsight(self, sub_id: str, *, analysis_id: str, evidence: dict | None = None,
                       flag: bool = False, check: str = "") -> None:
        """The hidden-information check of a verified game (``service.flags.hindsight``): the
        analysis it waits for, then its figures (``hindsight``, kept whether or not they flag,
        compactly: ``codec.pack_hindsight``) and, when they do, the ``hindsight`` flag with them as
        evidence; ``check``, the statistic's id (``postmortem.hindsight.CHECK_ID``), kept beside them.
        Idempotent."""
        key = self.key(sub_id)
        fields = {"hindsight_analysis": analysis_id}
        if evidence is not None:
            fields["hindsight"] = codec.pack_hindsight(evidence)
            if check:
                fields["hindsight_check"] = check
        self._note(key, fields, "hindsight", evidence if flag else None, evidence is not None)

    def note_together(self, sub_id: str, together: dict, flag: bool) -> None:
        """The player's checked games together, as of ``sub_id``'s check
        (``service.flags.hindsight_player``): the figures, and the flag when they pass."""
        self._note(self.key(sub_id), {"hindsight_player": codec.pack_together(together)}, "hindsight_player",
                    together if flag else None, True)

    def _note(self, key: str, fields: dict, code: str, evidence: dict | None, judged: bool) -> None:
        """``fields`` stored; once ``judged``, the submission's flags with ``code``'s replaced by
        ``evidence`` (dropped when None; no field while there is no flag)."""
        with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping=fields)
            if judged:
                flags = [f for f in json.loads(self.r.hget(key, "flags") or "[]") if f["code"] != code]
                if evidence is not None:
                    flags.append({"code": code, "evidence": evidence})
                if flags:
                    pipe.hset(key, "flags", json.dumps(flags, separators=(",", ":")))
                else:
                    pipe.hdel(key, "flags")
            pipe.execute()

    @staticmethod
    def checked_key(pid: str) -> str:
        """The player's checked games, by day (the player's own slot: ``service.players``)."""
        return key_for("checked", f"player:{pid}")

    def note_checked(self, pid: str, day: date, sub_id: str) -> None:
        """``sub_id`` (of ``day``) is one of the player's games with a hidden-information check;
        the most recent CHECKED_KEPT are kept (without the day, the score, and the player's shard,
        which its id begins with: ``store.id_tail``)."""
        key = self.checked_key(pid)
        with self.r.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {id_tail(sub_id): day.toordinal()})
            pipe.zremrangebyrank(key, 0, -CHECKED_KEPT - 1)
            pipe.execute()

    def checked_games(self, pid: str, limit: int) -> list[dict]:
        """The check's figures of the player's ``limit`` most recent checked games, newest first
        (a game whose figures are not there yet, or gone, is skipped)."""
        ids = [id_of(date.fromordinal(int(day)), shard_of(pid), tail)
               for tail, day in self.r.zrevrange(self.checked_key(pid), 0, limit * 2, withscores=True)]
        out = []
        for sub_id, got in zip(ids, self.get_fields(ids, ["hindsight", "date"])):
            if got.get("hindsight"):
                out.append({**json.loads(got["hindsight"]), "submission_id": sub_id, "date": got["date"]})
        return out[:limit]

    @staticmethod
    def strong_games_key(day: date) -> str:
        return key_for("strong_games", day_scope(day))

    def note_strong_game(self, day: date, pid: str, sub_id: str) -> None:
        """A game of the day's best (the ones the hidden-information check looks at): the board
        names its submission once the day has closed, so that anyone can open it in the analysis.
        Only the player is noted: a counted game's submission is in the day's games hash."""
        self.r.hset(self.strong_games_key(day), pid, "1")

    def strong_games(self, day: date, pids: list[str]) -> list[str | None]:
        """The submissions of these players' counted games of ``day`` that the check looked at
        (None for the others)."""
        if not pids:
            return []
        strong = [pid for pid, flag in zip(pids, self.r.hmget(self.strong_games_key(day), pids)) if flag]
        games = dict(zip(strong, Leaderboard(self.r).games_of(day, strong)))
        return [id_of(day, shard_of(pid), games[pid].split("|", 1)[0]) if games.get(pid) else None for pid in pids]
