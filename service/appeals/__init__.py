"""Appeals: a restricted or disqualified player asks ops to look again.  The appeal is about the
player's restriction if one is in force, else their latest disqualified game; one open at a
time (409 ``appeal_open``), none with nothing to appeal (409 ``nothing_to_appeal``).

It is answered by another operator than the one who decided (lichess's rule: 403
``same_operator``), once (409 ``appeal_answered``): ``upheld`` leaves the decision, ``granted``
undoes it (the restriction lifted, the game restored).  The player reads the answer
(``GET /appeals``, and ``/players/me`` while restricted); ops read the operator names, the
player does not.  Every key in the appeals' slot; kept for good, like the audit log.
"""

from __future__ import annotations

import secrets

from service.errors import Conflict, Forbidden, NotFound
from service.ops.audit import latest as latest_audit, operator_of
from service.restrictions import Restrictions
from service.store import key_for
from service.submissions import Submissions, by_player

SCOPE = "appeals"
#: appeal id -> ms, every appeal.
INDEX = key_for("appeals", SCOPE)
#: pid -> its open appeal.
OPEN = key_for("appeals", SCOPE, "open")
DECISIONS = ("upheld", "granted")
#: What the player reads of an appeal (ops read every field).
PUBLIC = ("appeal_id", "at", "text", "kind", "submission_id", "status", "decision", "answer", "answered_at")


def appeal_key(appeal_id: str) -> str:
    return key_for("appeal", SCOPE, appeal_id)


def of_key(pid: str) -> str:
    """A player's appeals, by time (in the appeals' slot, beside their open one)."""
    return key_for("appeals", SCOPE, "of", pid)


def public(appeal: dict | None) -> dict | None:
    """An appeal as its player reads it (no operator named; absent fields null)."""
    return {k: appeal.get(k) or None for k in PUBLIC} if appeal else None


class Appeals:
    def __init__(self, client, settings) -> None:
        self.r = client
        self.settings = settings

    def file(self, pid: str, text: str) -> dict:
        """Appeal the player's restriction, else their latest disqualified game (see above)."""
        restriction = Restrictions(self.r, self.settings).get(pid)
        if restriction is not None:
            about = {"kind": "restriction", "submission_id": "", "decided_by": restriction["by"]}
        else:
            about = self._disqualified(pid)
        now = self.settings.now()
        ms = int(now.timestamp() * 1000)
        appeal_id = f"{ms:013d}-{secrets.token_hex(4)}"
        if not self.r.hsetnx(OPEN, pid, appeal_id):
            raise Conflict("your appeal is open: ops answer it before another", code="appeal_open")
        entry = {"appeal_id": appeal_id, "at": now.isoformat(), "player": pid, "text": text, "status": "open",
                 **about}
        with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(appeal_key(appeal_id), mapping=entry)
            pipe.zadd(INDEX, {appeal_id: ms})
            pipe.zadd(of_key(pid), {appeal_id: ms})
            pipe.execute()
        return entry

    def _disqualified(self, pid: str) -> dict:
        ids = by_player.game_ids(self.r, pid)
        for sub_id, got in zip(ids, Submissions(self.r, self.settings).get_fields(ids, ["status"])):
            if got.get("status") == "disqualified":
                decided = latest_audit(self.r, sub_id, "disqualify")
                return {"kind": "disqualification", "submission_id": sub_id,
                        "decided_by": decided["who"] if decided else ""}
        raise Conflict("there is nothing to appeal: no restriction and no disqualified game",
                       code="nothing_to_appeal")

    def get(self, appeal_id: str) -> dict:
        got = self.r.hgetall(appeal_key(appeal_id)) if len(appeal_id) < 64 else {}
        if not got:
            raise NotFound("no such appeal", code="appeal_not_found")
        return got

    def _read(self, ids: list[str]) -> list[dict]:
        pipe = self.r.pipeline(transaction=False)
        for appeal_id in ids:
            pipe.hgetall(appeal_key(appeal_id))
        return [a for a in pipe.execute() if a]

    def of_player(self, pid: str) -> list[dict]:
        """The player's appeals, newest first (every field: for ops)."""
        return self._read(self.r.zrevrange(of_key(pid), 0, -1))

    def latest(self, pid: str) -> dict | None:
        ids = self.r.zrevrange(of_key(pid), 0, 0)
        return self._read(ids)[0] if ids else None

    def newest(self, status: str | None = None, limit: int = 100, offset: int = 0) -> list[dict]:
        """The appeals newest first, only those ``open`` or ``answered`` if ``status``."""
        if status is None:
            return self._read(self.r.zrevrange(INDEX, offset, offset + limit - 1))
        out, start, batch = [], 0, 500
        while len(out) < offset + limit:
            ids = self.r.zrevrange(INDEX, start, start + batch - 1)
            out += [a for a in self._read(ids) if a["status"] == status]
            if len(ids) < batch:
                break
            start += batch
        return out[offset:offset + limit]

    def answer(self, appeal_id: str, who: str, decision: str, text: str, desk) -> dict:
        """Answer an appeal as ``who`` (see above); ``granted`` undoes the decision through
        ``desk`` (``service.ops.player.PlayerDesk``).  Audited (``answer_appeal``)."""
        appeal = self.get(appeal_id)
        if appeal["status"] != "open":
            raise Conflict("this appeal is answered already", code="appeal_answered")
        if appeal.get("decided_by") and operator_of(appeal["decided_by"]) == operator_of(who):
            raise Forbidden("an appeal is answered by another operator than the one who decided",
                            code="same_operator")
        fields = {"status": "answered", "decision": decision, "answer": text, "answered_by": who,
                  "answered_at": self.settings.now().isoformat()}
        with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(appeal_key(appeal_id), mapping=fields)
            pipe.hdel(OPEN, appeal["player"])
            pipe.execute()
        desk.ops.audit(who, "answer_appeal", appeal_id, text, player=appeal["player"], decision=decision,
                       kind=appeal["kind"], submission_id=appeal.get("submission_id") or None)
        if decision == "granted":
            try:
                if appeal["kind"] == "restriction":
                    desk.lift(appeal["player"], who, f"appeal {appeal_id} granted")
                else:
                    desk.ops.restore(appeal["submission_id"], who, f"appeal {appeal_id} granted")
            except Conflict:  # undone meanwhile (lifted, lapsed, restored): nothing left to undo
                pass
        return {**appeal, **fields}
