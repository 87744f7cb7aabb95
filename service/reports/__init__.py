"""Reports: a player tells ops a game looks wrong.  One per reporter and game (a second is 409
``already_reported``, nothing written), limited per token and per client network
(``reports_per_token``, ``reports_per_address``: ``service.api.limits``); never about one's own
game.  Ops read them newest first with the game's evidence and how many reported it
(``service.ops``), and on the reported player's case (``service.ops.player``).

Every key is in the reports' slot but the reported player's index, in the player's own.  Kept
for good, like the audit log: a handful a day, limited.
"""

from __future__ import annotations

import secrets

from service.errors import Conflict, Unprocessable
from service.store import key_for, load_script
from service.submissions import Submissions

SCOPE = "reports"
#: reporter pid | submission id, for each report made.
REPORTED = key_for("reports", SCOPE, "made")
#: report id -> ms, every report.
INDEX = key_for("reports", SCOPE)
#: submission id -> how many reports it has.
BY_GAME = key_for("reports", SCOPE, "games")
#: A report's public fields: what ops read.
FIELDS = ("report_id", "at", "reporter", "submission_id", "player", "reason")


def report_key(report_id: str) -> str:
    return key_for("report", SCOPE, report_id)


def on_player_key(pid: str) -> str:
    """The reports on a player's games (the player's own slot), by time."""
    return key_for("reported", f"player:{pid}")


class Reports:
    def __init__(self, client, settings) -> None:
        self.r = client
        self.settings = settings
        self._file = load_script(client, __file__, "report.lua")

    def file(self, reporter: str, submission_id: str, reason: str) -> dict:
        """Report ``submission_id`` (NotFound ``submission_not_found``); Unprocessable
        ``own_game`` for one's own, Conflict ``already_reported`` for a second time."""
        sub = Submissions(self.r, self.settings).get(submission_id)
        if sub["pid"] == reporter:
            raise Unprocessable("a player cannot report their own game", code="own_game")
        now = self.settings.now()
        ms = int(now.timestamp() * 1000)
        report_id = f"{ms:013d}-{secrets.token_hex(4)}"
        entry = {"report_id": report_id, "at": now.isoformat(), "reporter": reporter,
                 "submission_id": submission_id, "player": sub["pid"], "reason": reason}
        args = [f"{reporter}|{submission_id}", report_id, ms, submission_id]
        for name, value in entry.items():
            args += [name, value]
        if not self._file(keys=[REPORTED, report_key(report_id), INDEX, BY_GAME], args=args):
            raise Conflict("you have reported this game already", code="already_reported")
        self.r.zadd(on_player_key(sub["pid"]), {report_id: ms})
        return entry

    def _read(self, ids: list[str]) -> list[dict]:
        pipe = self.r.pipeline(transaction=False)
        for report_id in ids:
            pipe.hgetall(report_key(report_id))
        found = [r for r in pipe.execute() if r]
        counts = self.r.zmscore(BY_GAME, [r["submission_id"] for r in found]) if found else []
        return [{**r, "reports_on_game": int(c or 0)} for r, c in zip(found, counts)]

    def newest(self, limit: int = 100, offset: int = 0) -> tuple[list[dict], int]:
        """The reports newest first, and how many there are."""
        with self.r.pipeline(transaction=False) as pipe:
            pipe.zrevrange(INDEX, offset, offset + limit - 1)
            pipe.zcard(INDEX)
            ids, total = pipe.execute()
        return self._read(ids), total

    def on_player(self, pid: str) -> list[dict]:
        """The reports on the player's games, newest first."""
        return self._read(self.r.zrevrange(on_player_key(pid), 0, 999))
