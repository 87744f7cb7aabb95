"""``manille ops …``: the ops actions from a terminal, on the service's Redis directly.

Needs ``REDIS_URL``, ``MANILLE_SECRET`` (or ``MANILLE_SECRET_FILE``) and ``MANILLE_OPS_TOKENS`` (or
its ``_FILE``) as the service has them, and ``MANILLE_OPS_TOKEN``: the token of the operator
running it, one of ``MANILLE_OPS_TOKENS``, whose name the audit log gives (``name@cli``).  Without
an operator's token nothing runs.  Standard output holds only the result (JSON with ``--json``);
progress goes to standard error.
"""

from __future__ import annotations

import json
import sys

from service.challenges import check_commitments
from service.config import Settings
from service.errors import ServiceError
from service.ops import Ops
from service.ops.desk_cli import DECISIONS, DESK_COMMANDS, add_desk_parsers, run_desk
from service.runs.around import around
from service.seeds import parse_date


def add_parser(sub) -> None:
    ops = sub.add_parser("ops", help="review submissions and act on them (needs your MANILLE_OPS_TOKEN)")
    osub = ops.add_subparsers(dest="ops_command", required=True)
    s = osub.add_parser("submissions", help="every submission of a day, with flags")
    s.add_argument("date")
    s.add_argument("--limit", type=int, default=100_000)
    s.add_argument("--json", action="store_true", help="the listing as JSON {\"submissions\": [...]}")
    s.add_argument("--status", help="only those of this status (e.g. delayed, held)")
    p = osub.add_parser("pending", help="every verification without a verdict, of any day, oldest first")
    p.add_argument("--delayed", action="store_true", help="only the delayed ones")
    p.add_argument("--json", action="store_true")
    q = osub.add_parser("requeue", help="run verifications again (delayed ones, or re-verify)")
    q.add_argument("submission_id", nargs="*")
    q.add_argument("--delayed", action="store_true", help="every delayed verification, of any day")
    q.add_argument("--reason", default="")
    v = osub.add_parser("review", help="the games at the top held for review, the highest score first")
    v.add_argument("--limit", type=int, default=200)
    v.add_argument("--json", action="store_true", help="the queue as JSON {\"submissions\": [...]}, with evidence")
    for name, text in (("disqualify", "take a game off every board"), ("restore", "put a game back on the boards"),
                       ("release", "rank a game held for review")):
        a = osub.add_parser(name, help=text)
        a.add_argument("submission_id")
        a.add_argument("--reason", required=True)
        if name == "disqualify":
            a.add_argument("--public-reason", help="what the player reads (the reason stays ops')")
    around = osub.add_parser("runs", help="the day's runs around a game: every run that followed its cards and left them")
    around.add_argument("submission_id")
    around.add_argument("--json", action="store_true", help="as GET /api/v1/ops/submissions/{id}/runs answers")
    add_desk_parsers(osub)
    r = osub.add_parser("reverify", help="replay every submission of a day again; report differences")
    r.add_argument("date")
    r.add_argument("--json", action="store_true")
    b = osub.add_parser("rebuild-day", help="take a day's scores off the boards and record them again")
    b.add_argument("date")
    b.add_argument("--reason", default="")
    d = osub.add_parser("seed", help="a closed day's seed")
    d.add_argument("date")
    k = osub.add_parser("rekey-nicknames", help="key every nickname claim by the current rules (after an upgrade of PyICU)")
    k.add_argument("--reason", default="")
    k.add_argument("--json", action="store_true")
    ops.set_defaults(func=cmd_ops)


def print_runs_around(found: dict) -> None:
    """``service.runs.around.around``'s answer as a table: a run a line, deepest first; where it
    left the game as deal.trick (0-based, as the API counts) and the cards played and tried."""
    print(f"{'run':<29} {'followed':>8}  {'left at':<16} {'pace':>8} {'finished':<8} {'submitted':<9} "
          f"{'token age':>9}  {'network':<22} user agent")
    for run in found["runs"]:
        left = run["left"]
        where = ("whole" if run["whole"] else "stopped on it") if left is None else \
            f"{left['deal']}.{left['trick']} {left['played']}>{left['tried']}{'' if left['decision'] else ' (forced)'}"
        pace = f"{run['pace']['median_ms']}ms" if run["pace"]["median_ms"] is not None else "-"
        age = f"{run['token_age_seconds']}s" if run["token_age_seconds"] is not None else "-"
        print(f"{run['run_id']:<29} {run['followed']:>8}  {where:<16} {pace:>8} {'yes' if run['finished'] else 'no':<8} "
              f"{'yes' if run['submitted'] else 'no':<9} {age:>9}  {run['network']:<22} {run['user_agent']}")
    for e in found["earlier"]:
        print(f"  and {e['runs']} runs that left at card {e['index']} (deal {e['deal']}, trick {e['trick']}), "
              "not listed", file=sys.stderr)


def progress_bar(done: int, total: int) -> None:
    """A progress bar on standard error (stdout stays the result alone)."""
    width = 30
    filled = width * done // max(total, 1)
    end = "\n" if done >= total else ""
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end=end, file=sys.stderr, flush=True)


def cmd_ops(args) -> int:
    settings = Settings.from_env()
    if not settings.ops_token:
        print("manille ops: MANILLE_OPS_TOKEN is not set: ops actions need your own operator's token "
              "(one of MANILLE_OPS_TOKENS)", file=sys.stderr)
        return 2
    operator = settings.operators.name_of(settings.ops_token)
    if operator is None:
        print("manille ops: MANILLE_OPS_TOKEN is no operator's token of MANILLE_OPS_TOKENS", file=sys.stderr)
        return 2
    if args.ops_command in DECISIONS and settings.operators.role_of(operator) != "decider":
        print(f"manille ops {args.ops_command}: {operator} reviews; this decision is a decider's "
              "(MANILLE_OPS_TOKENS)", file=sys.stderr)
        return 2
    ops = Ops(settings.redis(timeout=settings.redis_timeout), settings)
    try:
        check_commitments(ops.r, settings)  # re-verifying under a wrong secret would reject good games
        return _run(ops, args, f"{operator}@cli")
    except ServiceError as e:
        print(f"manille ops: {e.code}: {e.message}", file=sys.stderr)
        return 1


def _run(ops: Ops, args, who: str) -> int:
    """The command ``args`` names; ``who`` (the operator) is what the audit log records."""
    c = args.ops_command
    if c in DESK_COMMANDS:
        return run_desk(ops, args, who)
    if c in ("submissions", "pending"):
        if c == "submissions":
            day = parse_date(args.date)
            print(f"reading the submissions of {day.isoformat()}…", file=sys.stderr)
            subs = ops.submissions(day, limit=args.limit, status=args.status)
        else:
            subs = ops.pending("delayed" if args.delayed else None)
        if args.json:
            print(json.dumps({"submissions": subs}, ensure_ascii=False))
        else:
            print(f"{'submission':<40}  {'status':<12} {'score':>5}  {'flags':<24} nickname")
            for s in subs:
                flags = ",".join(f["code"] for f in s["flags"]) or "-"
                why = f"  ({s['delay_reason']})" if s["status"] == "delayed" and s["delay_reason"] else ""
                print(f"{s['submission_id']}  {s['status']:<12} {s['score'] if s['score'] is not None else '-':>5}  "
                      f"{flags:<24} {s['nickname']}{why}")
        sys.stdout.flush()  # the rows before the count, however the two streams are shown
        print(f"{len(subs)} submissions", file=sys.stderr)
        return 0
    if c == "runs":
        found = around(ops.r, ops.settings, args.submission_id)
        if args.json:
            print(json.dumps({"submission_id": args.submission_id, **found}, ensure_ascii=False))
        else:
            print_runs_around(found)
        return 0
    if c == "requeue":
        if bool(args.submission_id) == args.delayed:
            print("manille ops requeue: give submission ids, or --delayed", file=sys.stderr)
            return 2
        if args.delayed:
            done = ops.requeue_delayed(who, args.reason)
        else:
            done = [ops.requeue(sub_id, who, args.reason) for sub_id in args.submission_id]
        for d in done:
            print(json.dumps(d))
        print(f"{sum(d['requeued'] for d in done)} requeued, {sum(not d['requeued'] for d in done)} "
              "already on their way", file=sys.stderr)
        return 0
    if c == "review":
        subs = ops.review_queue(args.limit)
        if args.json:
            print(json.dumps({"submissions": subs}, ensure_ascii=False))
        else:
            for s in subs:
                review, check = s["review"] or {}, s["hindsight"] or {}
                why = ",".join(review.get("why") or []) or "-"
                print(f"{s['submission_id']}  {s['date']}  {s['score']:>5}  {review.get('phase') or '-':<8} "
                      f"until {review.get('until') or '-'}  why {why:<16} z {check.get('z', '-')}  "
                      f"fast runs {len(s['fast_runs'])}  {s['nickname']}")
        return 0
    if c == "disqualify":
        print(json.dumps(ops.disqualify(args.submission_id, who, args.reason, args.public_reason), ensure_ascii=False))
        return 0
    if c in ("restore", "release"):
        print(json.dumps(getattr(ops, c)(args.submission_id, who, args.reason), ensure_ascii=False))
        return 0
    if c == "reverify":
        report = ops.reverify(parse_date(args.date), progress=progress_bar)
        if args.json:
            print(json.dumps(report))
        else:
            print(f"{report['checked']} replayed, {len(report['differences'])} differences")
            for d in report["differences"]:
                print(f"  {d['submission_id']}: stored {d['stored']}, replayed {d['replayed']}")
        return 1 if report["differences"] else 0
    if c == "rebuild-day":
        print(json.dumps(ops.rebuild_day(parse_date(args.date), who, args.reason, progress=progress_bar)))
        return 0
    if c == "seed":
        print(ops.seed(parse_date(args.date), who))
        return 0
    if c == "rekey-nicknames":
        print("reading every submission and player…", file=sys.stderr)
        report = ops.rekey_nicknames(who, args.reason)
        if args.json:
            print(json.dumps(report, ensure_ascii=False))
        else:
            print(f"{report['seen']} claims seen, {report['keyed']} keyed now, {report['refused']} refused by "
                  f"the rules (their players choose again), {len(report['conflicts'])} conflicts")
            for x in report["conflicts"]:
                print(f"  {x['nickname']!r} of {x['player']}: looks like a name of {x['holder']}, who keeps it")
        return 0
    raise AssertionError(c)  # pragma: no cover - argparse allows nothing else
