"""Ops' maintenance, run after a change to the code or its data rather than about one game: a day's
submissions replayed again (``reverify``), a day's boards rebuilt from its verdicts
(``rebuild_day``), every nickname claim keyed again (``rekey_nicknames``)."""

from __future__ import annotations

import json
from datetime import date

from service import duplicate
from service.players import Players
from service.store import key_for
from service.submissions import PENDING_STATUSES


class OpsMaintenance:
    """``Ops``' maintenance (its audit: ``Ops.audit``; its boards and submissions: ``Ops``)."""

    def nickname_claims(self):
        """Every (pid, nickname) a player was seen to hold, oldest first: each submission's name
        in submission order (a name is claimed before its submission is stored), then each
        player's last name (claimed even if its submission failed to be stored)."""
        for day in self.subs.days():
            ids = self.subs.for_day(day)
            pipe = self.r.pipeline(transaction=False)
            for sub_id in ids:
                pipe.hmget(self.subs.key(sub_id), "pid", "nickname")
            for pid, name in pipe.execute():
                if pid and name:
                    yield pid, name
        keys = list(self.r.scan_iter(match=key_for("player", "player:*"), count=1000))
        for start in range(0, len(keys), 1000):
            pipe = self.r.pipeline(transaction=False)
            for key in keys[start:start + 1000]:
                pipe.hget(key, "nickname")
            for key, name in zip(keys[start:start + 1000], pipe.execute()):
                if name:
                    yield key.split("{player:", 1)[1].split("}", 1)[0], name

    def rekey_nicknames(self, who: str, why: str = "") -> dict:
        """Key every nickname claim by the current rules (``Players.rekey``): after any upgrade of
        PyICU (its confusables data); audited."""
        report = Players(self.r).rekey(self.nickname_claims())
        self.audit(who, "rekey_nicknames", "nicknames", why, seen=report["seen"], keyed=report["keyed"],
                   refused=report["refused"], conflicts=len(report["conflicts"]))
        return report

    def reverify(self, day: date, progress=None) -> dict:
        """Replay every submission of ``day`` again from its seed and cards, changing nothing, and
        report each difference with what is stored (after a fix of the engine or a bot, whose
        results must not change: each difference is a bug or a deliberate new rules id)."""
        from bots import get_bot
        from service.challenges import Challenges
        from service.replay import SubmissionRejected, verify

        challenge = Challenges(self.r, self.settings).get(day)
        seed, bot = self.settings.seed(day), get_bot(challenge.bots)
        ids = self.subs.for_day(day)
        differences, checked = [], 0
        for i, sub_id in enumerate(ids):
            sub = self.subs.get(sub_id)
            if sub["status"] in PENDING_STATUSES:  # no verdict to compare with yet
                continue
            cards = [sub["cards"][j:j + 2] for j in range(0, len(sub["cards"]), 2)]
            try:
                now = {"valid": True, "score": verify(seed, cards, bot)["rank_score"]}
            except SubmissionRejected as e:
                now = {"valid": False, "reason": e.rejection.code}
            was = ({"valid": False, "reason": json.loads(sub["reason"]).get("code")} if sub["status"] == "rejected"
                   else {"valid": True, "score": int(sub["score"])})
            checked += 1
            if now != was:
                differences.append({"submission_id": sub_id, "status": sub["status"], "stored": was, "replayed": now})
            if progress:
                progress(i + 1, len(ids))
        return {"date": day.isoformat(), "submissions": len(ids), "checked": checked, "differences": differences}

    def rebuild_day(self, day: date, who: str, why: str = "", progress=None) -> dict:
        """Take every counted score of ``day`` off the boards and record again those that should be
        on them (verified, not held or disqualified), in the order first verified."""
        subs = [self.subs.get(s) for s in self.subs.for_day(day)]
        removed = 0
        for sub in subs:
            if sub.get("score"):
                removed += self.boards.remove(day, sub["pid"], int(sub["score"]))
        keep = sorted((s for s in subs if s["status"] == "verified"), key=lambda s: s.get("verified_at", ""))
        for i, sub in enumerate(keep):
            self.boards.record(day, sub["pid"], sub["nickname"], int(sub["score"]), sub["id"],
                               deals=duplicate.parse_points(sub.get("deals")))
            if progress:
                progress(i + 1, len(keep))
        self._rebuild_matchpoints(day)
        self.audit(who, "rebuild_day", day.isoformat(), why, removed=removed, recorded=len(keep))
        return self._changed({"date": day.isoformat(), "removed": removed, "recorded": len(keep)})
