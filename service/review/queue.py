"""The review queue: the games at the top of a day held for review, and what moves them.

A game due for review (``service.review.due``) is marked ``review`` by its verification
(``begin``) and put in the queue, ordered by score (the highest first: what would lead is looked
at first), with the time it is released at if nobody acts.  Its check (``checking``) runs on the
analysis queue for the check; when it lands (``judge``), a clean game is ranked at once and leaves
the queue, one whose evidence passes the review's bar stays, ``held``.  Ops ``release`` it (ranked,
as if clean) or disqualify it (``service.ops``); ``sweep`` releases those whose time is up.  Every
hold and release is written to the audit log.
"""

from __future__ import annotations

import json
import logging
from datetime import date, datetime, timedelta

from service import duplicate
from service.config import Settings
from service.errors import Conflict
from service.leaderboard import BoardsRebuilding, Leaderboard
from service.restrictions import Restrictions
from service.store import key_for
from service.submissions import Submissions

from . import held_for

#: The games in review, scored by their score (the highest first) ...
QUEUE = key_for("review", "all")
#: ... and by when they are released with no action (epoch seconds).
RELEASE_AT = key_for("review", "all", "release_at")
#: Who the audit log names for what the review does by itself.
SYSTEM = "review"

log = logging.getLogger("service.review")


class Reviews:
    def __init__(self, client, settings: Settings) -> None:
        self.r = client
        self.settings = settings
        self.subs = Submissions(client, settings)

    # -- into the queue ----------------------------------------------------------

    def begin(self, sub_id: str, sub: dict, score: int, flags: list[dict], deals: list[int]) -> dict:
        """A verified game due for review: ``review``, off the boards, in the queue, its check
        queued (and judged now if its game was analysed before); held at once when it carries a
        hidden-information flag.  A game already in review stays as it is (a verification run
        again changes nothing), its check asked for again while it has none."""
        now = self.settings.now()
        if sub.get("status") == "review":
            if sub.get("review_phase") == "checking" and not sub.get("hindsight"):
                self._check(sub_id, {**sub, "score": score})
            return {"status": "review", "score": score, "flags": [f["code"] for f in flags]}
        why = held_for(flags, None, self.settings.review)
        until = now + timedelta(hours=self.settings.review.hours)
        self.subs.mark_verified(sub_id, score, now, flags=flags, status="review", deals=deals)
        self.subs.note_review(sub_id, phase="held" if why else "checking", until=until.isoformat(),
                              why=why)
        with self.r.pipeline(transaction=True) as pipe:
            pipe.zadd(QUEUE, {sub_id: score})
            pipe.zadd(RELEASE_AT, {sub_id: until.timestamp()})
            pipe.execute()
        if why:
            self._audit("review_hold", sub_id, "a game at the top with " + ", ".join(why), reasons=why)
        self._check(sub_id, {**sub, "score": score})  # held or not, the check is the evidence ops read
        return {"status": "review", "score": score, "flags": [f["code"] for f in flags]}

    def _check(self, sub_id: str, sub: dict) -> None:
        from service.analysis import request_check

        try:
            request_check(self.settings, self.r, sub_id, sub, force=True)
        except Exception:  # the game stays in review: released by the sweep at its time if nothing else
            log.exception("submission %s: the review's check could not be queued", sub_id)

    def judge(self, sub_id: str) -> str | None:
        """The check of a game in review has landed: held when its evidence passes the review's bar
        or it carries a hidden-information flag, else ranked now; the phase it is in after
        (None: not a game waiting for its check)."""
        sub = self.subs.get(sub_id)
        if sub["status"] != "review" or sub.get("review_phase") not in ("checking", "held"):
            return None
        flags = json.loads(sub.get("flags") or "[]")
        evidence = json.loads(sub["hindsight"]) if sub.get("hindsight") else None
        why = held_for(flags, evidence, self.settings.review)
        if sub["review_phase"] == "held":  # held for its flags already: the check adds its reasons
            if set(why) - set(json.loads(sub.get("review_why") or "[]")):
                self.subs.note_review(sub_id, phase="held", why=why)
            return "held"
        if not why:
            self._rank(sub, outcome="clean")
            return "ranked"
        self.subs.note_review(sub_id, phase="held", why=why)
        self._audit("review_hold", sub_id, "its check at the top: " + ", ".join(why), reasons=why,
                    z=evidence.get("z") if evidence else None)
        return "held"

    # -- out of the queue ------------------------------------------------------------

    def release(self, sub_id: str, who: str, why: str, *, action: str = "release") -> dict:
        """Rank a game in review (ops found it honest, or its time is up: ``auto_release``),
        audited; Conflict ``not_in_review`` for any other."""
        sub = self.subs.get(sub_id)
        if sub["status"] != "review":
            raise Conflict(f"a {sub['status']} submission is not in review", code="not_in_review")
        self._rank(sub, outcome="released" if action == "release" else "auto_released", decision="released",
                   reason=why)
        self.audit(who, action, sub_id, why, was=sub.get("review_phase"),
                   reasons=json.loads(sub.get("review_why") or "[]"))
        return self.subs.get(sub_id)

    def _rank(self, sub: dict, *, outcome: str, decision: str = "", reason: str = "") -> None:
        """On every board now, out of the queue, its outcome kept (a verification run again leaves
        it ranked)."""
        day = date.fromisoformat(sub["date"])
        deals = duplicate.parse_points(sub.get("deals"))
        if Restrictions(self.r, self.settings).get(sub["pid"]) is not None:  # restricted meanwhile: not ranked
            self.subs.mark_verified(sub["id"], int(sub["score"]), self.settings.now(),
                                    flags=json.loads(sub.get("flags") or "[]"), status="restricted", deals=deals)
            self.subs.note_review(sub["id"], outcome=outcome, decision=decision, reason=reason)
            self.forget(sub["id"])
            return
        try:
            Leaderboard(self.r, wait_ms=self.settings.redis_wait_ms).record(
                day, sub["pid"], sub["nickname"], int(sub["score"]), sub["id"], deals=deals)
        except BoardsRebuilding:
            pass  # the rebuild in progress records it before it ends
        self.subs.mark_verified(sub["id"], int(sub["score"]), self.settings.now(),
                                flags=json.loads(sub.get("flags") or "[]"), deals=deals)
        self.subs.note_review(sub["id"], outcome=outcome, decision=decision, reason=reason)
        self.forget(sub["id"])
        try:
            duplicate.request_build(self.settings, self.r, day, force=bool(decision), queue=self.subs.raw)
        except Exception:  # the maintenance builds it later: never costs a release
            log.exception("submission %s: the matchpoint board's build could not be queued", sub["id"])

    def forget(self, sub_id: str) -> None:
        """Out of the queue (ranked, or disqualified by ops)."""
        with self.r.pipeline(transaction=True) as pipe:
            pipe.zrem(QUEUE, sub_id)
            pipe.zrem(RELEASE_AT, sub_id)
            pipe.execute()

    def sweep(self, now: datetime | None = None) -> list[str]:
        """Release every game whose time in review is up, with no action (``auto_release`` in the
        audit log); the workers' maintenance runs it.  Returns the ids released."""
        now = now or self.settings.now()
        released = []
        for sub_id in self.r.zrangebyscore(RELEASE_AT, "-inf", now.timestamp()):
            try:
                self.release(sub_id, SYSTEM, f"no decision within {self.settings.review.hours:g} hours",
                             action="auto_release")
            except Conflict:  # decided meanwhile (disqualified, released): only its entry was left
                self.forget(sub_id)
                continue
            released.append(sub_id)
        return released

    # -- reading -------------------------------------------------------------------

    def queue(self, limit: int = 200) -> list[str]:
        """The games in review, the highest score first (then the earliest to be released)."""
        ids = self.r.zrevrange(QUEUE, 0, -1, withscores=True)
        at = dict(zip([i for i, _ in ids], self.r.zmscore(RELEASE_AT, [i for i, _ in ids]))) if ids else {}
        return [i for i, _ in sorted(ids, key=lambda x: (-x[1], at.get(x[0]) or 0.0))][:limit]

    def _audit(self, action: str, sub_id: str, why: str, **extra) -> None:
        self.audit(SYSTEM, action, sub_id, why, **{k: v for k, v in extra.items() if v is not None})

    def audit(self, who: str, action: str, target: str, why: str = "", **extra) -> str:
        from service.ops import Ops

        return Ops(self.r, self.settings).audit(who, action, target, why, **extra)


__all__ = ["QUEUE", "RELEASE_AT", "Reviews", "SYSTEM"]
