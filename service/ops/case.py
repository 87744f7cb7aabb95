"""A case file: one JSON document with everything ops hold on a game or a player, to keep beside
a decision or hand to a colleague: the game in full (its record replayed once its day is
closed), flags and evidence, the day's runs around it, the player's case (every game, notes,
addresses, reports, appeals: ``service.ops.player``) and every audit entry on any of it.
Opening one (an export) is audited (``export``) and keeps the runs around the game (around each
of the player's games, for a player's) past ``MANILLE_RUN_KEEP_HOURS``.
"""

from __future__ import annotations

from service.store import day_of_id
from service.submissions import SUB_ID_RE

from .audit import read as read_audit
from .player import PlayerDesk


def runs_around(ops, sub_id: str, keep: bool):
    """The day's runs around a game (``service.runs.around``), kept for good first when ``keep``;
    None where the service has no such index.  The one place the case file reads them."""
    try:
        from service.runs.around import keep_runs_around, runs_around as around
    except ImportError:
        return None
    if keep:
        keep_runs_around(ops.r, ops.settings, sub_id)
    return around(ops.r, ops.settings, sub_id)


def audit_on(ops, targets: set[str]) -> list[dict]:
    """Every audit entry whose target is one of ``targets``, newest first."""
    out, before = [], None
    while True:
        page = read_audit(ops.r, limit=1000, before=before)
        out += [e for e in page["entries"] if e.get("target") in targets]
        if page["next"] is None:
            return out
        before = page["next"]


def case_file(ops, what: str, who: str) -> dict:
    """The case file of ``what``, a submission id or a player (id or nickname: NotFound
    ``player_not_found``); audited before anything is read."""
    desk = PlayerDesk(ops)
    if day_of_id(SUB_ID_RE, what) is not None:
        sub = ops.submission(what)  # NotFound submission_not_found
        ops.audit(who, "export", what)
        pid, subject = sub["player"], {"kind": "submission", "submission": sub,
                                       "runs_around": runs_around(ops, what, keep=True)}
    else:
        pid = desk.resolve(what)
        ops.audit(who, "export", pid)
        subject = {"kind": "player", "submission": None, "runs_around": None}
    player = desk.view(pid)
    targets = {pid, *(g["submission_id"] for g in player["games"]), *(a["appeal_id"] for a in player["appeals"])}
    if subject["kind"] == "player":
        subject["runs_around"] = {g["submission_id"]: runs_around(ops, g["submission_id"], keep=True)
                                  for g in player["games"]}
    return {**subject, "exported_at": ops.settings.now().isoformat(), "exported_by": who, "player": player,
            "audit": audit_on(ops, targets)}
