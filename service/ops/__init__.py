"""Ops: what a submission keeps for review, the actions ops take on it, and the audit log.

Every action is written to an append-only Redis stream (``manille:{all}:audit``): who, when,
what, on what, why.  Nothing in the code deletes from it.

While a day is open its hands are the day's secret: a submission's detail then holds no record
(``hands_sealed``) and the oracle flag's evidence no oracle choices.  Reading them is an action of
its own (``hands``), which needs a reason and is audited like the others.  What ops run after a
change to the code rather than about one game (a day replayed, its boards rebuilt, the nicknames
keyed again) is ``maintenance``.
"""

from __future__ import annotations

import json
from datetime import date

from service import duplicate
from service.config import Settings
from service.errors import Conflict, NotFound
from service.flags import described
from service.freshness import Freshness
from service.leaderboard import Leaderboard
from service.review.queue import Reviews
from service.ratings import Ratings
from service.runs import Runs
from service.submissions import Submissions

from .audit import AUDIT, read as read_audit
from .maintenance import OpsMaintenance

#: The statuses of a game that verification found valid: it has a score and a record.
VALID_GAME = ("verified", "held", "review", "disqualified", "restricted")
LIST_FIELDS = ("id", "run_id", "pid", "nickname", "date", "status", "score", "flags", "created_at",
               "verified_at", "ip", "run_ip", "user_agent", "run_user_agent", "ops_decision", "ops_reason", "delayed_at",
               "delay_reason", "review_phase", "review_until", "review_why", "review_outcome")
#: A run of the day that was played to its end this fast and never submitted is shown with a game
#: in review: a person takes minutes over 48 cards, a throwaway run that looks at the hands seconds.
FAST_RUN_SECONDS = 120


class Ops(OpsMaintenance):
    def __init__(self, client, settings: Settings) -> None:
        self.r = client
        self.settings = settings
        self.subs = Submissions(client, settings)
        self.runs = Runs(client, settings)
        self.boards = Leaderboard(client)

    # -- the audit log ---------------------------------------------------------

    def audit(self, who: str, action: str, target: str, why: str = "", **extra) -> str:
        fields = {"who": who or "unknown", "at": self.settings.now().isoformat(), "action": action,
                  "target": target, "why": why}
        if extra:
            fields["details"] = json.dumps(extra, separators=(",", ":"), sort_keys=True)
        return self.r.xadd(AUDIT, fields)

    def audit_log(self, count: int = 100, **filters) -> dict:
        """The latest entries, newest first, filtered and paged (``service.ops.audit.read``)."""
        return read_audit(self.r, limit=count, **filters)

    # -- reading ---------------------------------------------------------------

    def submissions(self, day: date, limit: int = 500, offset: int = 0, status: str | None = None) -> list[dict]:
        """Every submission of ``day`` (in submission order) as ops list them, with flags; only
        those of ``status`` if given (``limit`` and ``offset`` then count those)."""
        return self._listed(self.subs.for_day(day), limit, offset, status)

    def pending(self, status: str | None = None) -> list[dict]:
        """Every verification without a verdict, of any day, oldest first (``queued``, ``delayed``)."""
        return self._listed([sub_id for sub_id, _at in self.subs.pending()], None, 0, status)

    def _listed(self, ids: list[str], limit: int | None, offset: int, status: str | None) -> list[dict]:
        if status is None:
            ids = ids[offset:None if limit is None else offset + limit]
        out = []
        sealed: dict[str, bool] = {}
        for sub_id, sub in zip(ids, self.subs.get_fields(ids, list(LIST_FIELDS))):
            if not sub or (status is not None and sub["status"] != status):
                continue
            if sub["date"] not in sealed:
                sealed[sub["date"]] = self._open(date.fromisoformat(sub["date"]))
            out.append({
                "submission_id": sub_id, "run_id": sub["run_id"], "player": sub["pid"],
                "nickname": sub["nickname"], "date": sub["date"], "status": sub["status"],
                "score": int(sub["score"]) if sub.get("score") else None,
                "flags": self._flags(sub, sealed[sub["date"]]),
                "created_at": sub["created_at"], "verified_at": sub.get("verified_at") or None,
                "address": sub.get("run_ip") or "", "submit_address": sub.get("ip") or "",
                "user_agent": sub.get("user_agent") or "",
                "decision": sub.get("ops_decision") or None, "decision_reason": sub.get("ops_reason") or None,
                "delayed_at": sub.get("delayed_at") or None, "delay_reason": sub.get("delay_reason") or None,
                "review": self._review(sub),
            })
        return out if status is None else out[offset:None if limit is None else offset + limit]

    @staticmethod
    def _review(sub: dict) -> dict | None:
        """What the review of the top says of a game (``service.review``); None if never reviewed."""
        if not (sub.get("review_until") or sub.get("review_outcome")):
            return None
        return {"phase": sub.get("review_phase") or None, "until": sub.get("review_until") or None,
                "why": json.loads(sub.get("review_why") or "[]"), "outcome": sub.get("review_outcome") or None}

    def review_queue(self, limit: int = 200) -> list[dict]:
        """The games held for review or checked for it, the highest score first, each with its
        evidence: the check's figures and the decisions that drove them, the pace of its play, and
        the day's runs from its address (an IPv6 /64) that were never submitted and ended fast."""
        ids = Reviews(self.r, self.settings).queue(limit)
        out = []
        extra = self.subs.get_fields(ids, ["times", "hindsight", "hindsight_player", "run_ip", "date", "run_id"])
        for row, more in zip(self._listed(ids, None, 0, None), extra):
            day = date.fromisoformat(row["date"])
            times = [int(t) for t in (more.get("times") or "").split(",") if t]
            gaps = sorted(b - a for a, b in zip(times, times[1:]))
            others = [r for r in self.runs.address_runs(day, more.get("run_ip", "")) if r != more.get("run_id")]
            out.append({**row, "hindsight": json.loads(more["hindsight"]) if more.get("hindsight") else None,
                        "hindsight_player": json.loads(more["hindsight_player"]) if more.get("hindsight_player") else None,
                        "pace": {"cards": len(times), "median_ms": gaps[len(gaps) // 2] if gaps else None,
                                 "fastest_ms": gaps[0] if gaps else None,
                                 "game_seconds": round((times[-1] - times[0]) / 1000, 1) if times else None},
                        "fast_runs": [r for r in self.runs.unsubmitted_summaries(others)
                                      if r["seconds"] is not None and r["seconds"] <= FAST_RUN_SECONDS]})
        return out

    def _open(self, day: date) -> bool:
        """Whether ``day``'s hands are still secret (its seed not yet published)."""
        return self.settings.clock.phase(day) != "closed"

    @staticmethod
    def _flags(sub: dict, sealed: bool) -> list[dict]:
        """The submission's flags with their evidence; ``sealed``: without the oracle's choices,
        which are read from every hand of the day."""
        flags = json.loads(sub["flags"]) if sub.get("flags") else []
        if sealed:
            for f in flags:
                if "choices" in f.get("evidence", {}):
                    f["evidence"] = {**{k: v for k, v in f["evidence"].items() if k != "choices"}, "choices_sealed": True}
        return described(flags)

    def hands(self, sub_id: str, who: str, why: str) -> dict:
        """The submission in full, the record with every hand included, even while its day is open:
        audited (``read_hands``, who and why) before anything is read."""
        sub = self.subs.get(sub_id)
        self.audit(who, "read_hands", sub_id, why, day=sub["date"], day_open=self._open(date.fromisoformat(sub["date"])))
        return self.submission(sub_id, hands=True)

    def submission(self, sub_id: str, *, hands: bool = False) -> dict:
        """One submission with everything kept for review: the game record (replayed), the server
        time of every play, the client, and the day's other runs of its token and address while
        the day's runs are kept (``runs_expired`` after ``runs_kept_until``: then none are listed,
        and what the submission kept, flags with their evidence included, is all there is).
        While the day is open the record and the oracle's choices are left out (``hands_sealed``)
        unless ``hands`` (``Ops.hands``, the audited way)."""
        sub = self.subs.get(sub_id)
        day = date.fromisoformat(sub["date"])
        address = sub.get("run_ip", "")
        kept_until = self.runs.kept_until(day)
        sealed = self._open(day) and not hands
        return {
            "submission_id": sub_id, "run_id": sub["run_id"], "player": sub["pid"],
            "nickname": sub["nickname"], "date": sub["date"], "status": sub["status"],
            "score": int(sub["score"]) if sub.get("score") else None,
            "flags": self._flags(sub, sealed),
            "decision": sub.get("ops_decision") or None, "decision_reason": sub.get("ops_reason") or None,
            "public_reason": sub.get("ops_public_reason") or None,
            "delayed_at": sub.get("delayed_at") or None, "delay_reason": sub.get("delay_reason") or None,
            "cards": [sub["cards"][i:i + 2] for i in range(0, len(sub.get("cards", "")), 2)],
            "play_times_ms": [int(t) for t in sub.get("times", "").split(",") if t],
            "run_created_at": sub.get("run_created_at"), "run_finished_at": sub.get("run_finished_at"),
            "address": address, "user_agent": sub.get("run_user_agent", ""),
            "submit_address": sub.get("ip", ""), "submit_user_agent": sub.get("user_agent", ""),
            "address_runs": [r for r in self.runs.address_runs(day, address) if r != sub["run_id"]],
            "token_runs": [r for r in [self.runs.ranked_run_id(day, sub["pid"])] if r and r != sub["run_id"]],
            "runs_kept_until": kept_until.isoformat(), "runs_expired": self.settings.now() >= kept_until,
            "hands_sealed": sealed and sub["status"] in VALID_GAME,
            "record": (self._with_analysis(sub, self._with_oracle(day, self.subs.record(sub)))
                       if sub["status"] in VALID_GAME and not sealed else None),
            "reason": json.loads(sub["reason"]) if sub.get("reason") else None,
            "hindsight": json.loads(sub["hindsight"]) if sub.get("hindsight") else None,
            "hindsight_analysis": self._analysis_state(sub),
            "hindsight_player": json.loads(sub["hindsight_player"]) if sub.get("hindsight_player") else None,
            "review": self._review(sub),
        }

    def _analysis_state(self, sub: dict) -> dict | None:
        aid = sub.get("hindsight_analysis")
        if not aid:
            return None
        from service.analysis import Analyses
        try:
            got = Analyses(self.r, self.settings).state(aid)
        except NotFound:
            return {"analysis_id": aid, "status": "expired"}
        return {"analysis_id": aid, "status": got["status"], "progress": got["progress"], "error": got["error"]}

    def _with_analysis(self, sub: dict, record: dict) -> dict:
        """The record with, on each of the player's cards, its analysis once finished (``analysis``:
        mark, points lost from the seat and with hindsight, the seat's best card, the hindsight gain)."""
        aid = sub.get("hindsight_analysis")
        if not aid:
            return record
        from service.analysis import Analyses
        try:
            doc = Analyses(self.r, self.settings).get(aid)["analysis"]
        except NotFound:
            return record
        if not doc:
            return record
        by_place = {(d["deal"], d["trick"]): d for d in doc["decisions"] if d["seat"] == 0}
        for deal in record["deals"]:
            for t_index, trick in enumerate(deal["tricks"]):
                for play in trick["plays"]:
                    d = by_place.get((deal["index"], t_index)) if play["seat"] == 0 else None
                    if d is not None and not d["forced"]:
                        play["analysis"] = {"mark": d["mark"], "hindsight": d["hindsight"],
                                            "lost_seat": d["lost_seat"], "lost_open": d["lost_open"],
                                            "seat_best": d["best_seat"], "open_best": d["best_open"],
                                            "gain": d["luck"]["gain"]}
        return record

    def analyse(self, sub_id: str, who: str, why: str = "") -> dict:
        """Run the hidden-information check of a verified game now, whatever its score; audited."""
        from service.analysis import request_check

        sub = self.subs.get(sub_id)
        if sub["status"] not in VALID_GAME:
            raise Conflict("only a valid game is analysed", code="not_verified")
        aid = request_check(self.settings, self.r, sub_id, sub, force=True)
        self.audit(who, "analyse", sub_id, why, analysis_id=aid)
        return {"submission_id": sub_id, "analysis_id": aid, "analysis": self._analysis_state(self.subs.get(sub_id))}

    def _with_oracle(self, day: date, record: dict) -> dict:
        """The record with, on each of the player's decisive decisions the flags look at, the
        perfect-information choice (``oracle``: oracle-1's card, ``oracle_best``: every best card)."""
        from bots.oracle import pick
        from service.flags import agreement
        from service.replay import Card

        found = agreement(self.settings.seed(day), record, self.settings.flags.oracle_from_trick)["choices"]
        best = {(c["deal"], c["trick"]): c["oracle"] for c in found}
        for d in record["deals"]:
            for t_index, trick in enumerate(d["tricks"]):
                for play in trick["plays"]:
                    if play["seat"] == 0 and (d["index"], t_index) in best:
                        cards = best[(d["index"], t_index)]
                        play["oracle"] = str(pick(Card.parse(c) for c in cards))
                        play["oracle_best"] = cards
        return record

    # -- actions ---------------------------------------------------------------

    def disqualify(self, sub_id: str, who: str, why: str, public_reason: str | None = None) -> dict:
        """Take a verified (held, or restricted) game off every board, kept with the reason;
        ``public_reason``, if given, is what its player reads (``GET /submissions/{id}``)."""
        sub = self.subs.get(sub_id)
        if sub["status"] not in ("verified", "held", "review", "restricted"):
            raise Conflict(f"a {sub['status']} submission cannot be disqualified", code="not_disqualifiable")
        removed = self.boards.remove(date.fromisoformat(sub["date"]), sub["pid"], int(sub["score"]))
        self.r.hset(self.subs.key(sub_id), mapping={
            "status": "disqualified", "ops_decision": "disqualified", "ops_reason": why,
            "ops_public_reason": public_reason or ""})
        if sub["status"] == "review":
            self.subs.note_review(sub_id, outcome="disqualified")
            Reviews(self.r, self.settings).forget(sub_id)
        self._rebuild_matchpoints(sub["date"])
        self.audit(who, "disqualify", sub_id, why, was=sub["status"], removed_from_boards=removed,
                   public_reason=public_reason or None)
        return self._changed(self.submission(sub_id))

    def _changed(self, answer: dict) -> dict:
        """An action's answer on a game whose day's boards it changed, with when every public
        copy of them (a web process's, the proxy's, a reader's cache) shows the change at the
        latest (``service.freshness``); the boards by matchpoints follow their rebuild."""
        day = date.fromisoformat(answer["date"])
        return {**answer, "caches_catch_up_at": Freshness(self.settings).catch_up_at(day).isoformat()}

    def _rebuild_matchpoints(self, day: date | str) -> None:
        """A day's field changed by ops: its matchpoint board built again now, not in minutes."""
        day = date.fromisoformat(day) if isinstance(day, str) else day
        Ratings(self.r).request_rebuild(day)  # rated again from that day on, once its board is final
        duplicate.request_build(self.settings, self.r, day, force=True, queue=self.subs.raw)

    def restore(self, sub_id: str, who: str, why: str) -> dict:
        """Put a disqualified or held game on the boards (ops decided it is honest); one in review
        is released (``release``)."""
        sub = self.subs.get(sub_id)
        if sub["status"] == "review":
            return self.release(sub_id, who, why)
        if sub["status"] not in ("disqualified", "held"):
            raise Conflict(f"a {sub['status']} submission has nothing to restore", code="not_restorable")
        from service.restrictions import Restrictions

        # a restricted player's game stays off the boards until the restriction goes
        status = "restricted" if Restrictions(self.r, self.settings).get(sub["pid"]) else "verified"
        if status == "verified":
            self.boards.record(date.fromisoformat(sub["date"]), sub["pid"], sub["nickname"], int(sub["score"]),
                               sub_id, deals=duplicate.parse_points(sub.get("deals")))
        self.r.hset(self.subs.key(sub_id), mapping={
            "status": status, "ops_decision": "restored", "ops_reason": why, "ops_public_reason": ""})
        self._rebuild_matchpoints(sub["date"])
        self.audit(who, "restore", sub_id, why, was=sub["status"])
        return self._changed(self.submission(sub_id))

    def release(self, sub_id: str, who: str, why: str) -> dict:
        """Rank a game held for review (ops found it honest); audited (``release``); Conflict
        ``not_in_review`` for a game that is not in review."""
        Reviews(self.r, self.settings).release(sub_id, who, why)
        self._rebuild_matchpoints(self.subs.get(sub_id)["date"])
        return self._changed(self.submission(sub_id))

    def requeue(self, sub_id: str, who: str, why: str = "") -> dict:
        """Run a submission's verification again (a delayed one, typically); audited.  Nothing
        changes while RQ still has it queued, scheduled for a retry or running."""
        requeued = self.subs.requeue(sub_id)
        if requeued:
            self.audit(who, "requeue", sub_id, why)
        return {"submission_id": sub_id, "requeued": requeued, "status": self.subs.get(sub_id)["status"]}

    def requeue_delayed(self, who: str, why: str = "") -> list[dict]:
        """Requeue every delayed verification, of any day (see ``requeue``)."""
        return [self.requeue(s["submission_id"], who, why) for s in self.pending("delayed")]

    def enqueue(self, job: str, *args, who: str, action: str, target: str, why: str = "") -> str:
        """Queue a long ops job (a day's re-verification or rebuild) for a worker; audited."""
        from rq import Queue

        queued = Queue(self.settings.queue_name, connection=self.subs.raw).enqueue_call(
            job, args=args, timeout=86400, result_ttl=7 * 86400, failure_ttl=30 * 86400,
            description=f"{action} {target}")
        self.audit(who, action, target, why, job_id=queued.id)
        return queued.id

    def job(self, job_id: str) -> dict:
        """An ops job's state and, once finished, its result; NotFound ``job_not_found`` for an
        unknown id and for one no job can have (RQ's ids are ``[A-Za-z0-9_-]``: it refuses others
        with ValueError)."""
        from rq.exceptions import NoSuchJobError
        from rq.job import Job

        from service.errors import NotFound

        try:
            job = Job.fetch(job_id, connection=self.subs.raw)
        except (NoSuchJobError, ValueError):
            raise NotFound("no such ops job", code="job_not_found") from None
        status = job.get_status()
        return {"job_id": job_id, "status": getattr(status, "value", str(status)),
                "description": job.description, "result": job.return_value()}

    def seed(self, day: date, who: str) -> str:
        """A closed day's seed (hex); Conflict while its day is open or in its grace."""
        if self.settings.clock.phase(day) != "closed":
            raise Conflict(f"the seed of {day.isoformat()} is still sealed", code="seed_sealed",
                           reveal_at=self.settings.clock.reveals_at(day).isoformat())
        self.audit(who, "show_seed", day.isoformat())
        return self.settings.seed(day).hex()
