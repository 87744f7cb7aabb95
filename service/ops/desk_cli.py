"""``manille ops player|restrict|lift|note|audit|export|reports|appeals|answer``: the operator's
desk from a terminal (``service.ops.cli`` runs them), as the routes of /api/v1/ops/players,
/ops/audit, /ops/export, /ops/reports and /ops/appeals answer: ``--json`` prints that JSON, else
a few lines for people; progress and notices on standard error."""

from __future__ import annotations

import json
import sys

from service.appeals import Appeals
from service.reports import Reports

from .case import case_file
from .player import PlayerDesk

DESK_COMMANDS = ("player", "restrict", "lift", "note", "audit", "export", "reports", "appeals", "answer")
#: The commands (here and in ``service.ops.cli``) only a decider runs.
DECISIONS = ("disqualify", "restore", "release", "rebuild-day", "restrict", "lift", "answer")


def add_desk_parsers(osub) -> None:
    p = osub.add_parser("player", help="a player's case: games, notes, addresses, others seen, reports, appeals")
    p.add_argument("player", help="a player id (as on a submission) or a nickname")
    p.add_argument("--json", action="store_true")
    r = osub.add_parser("restrict", help="take a player's games off every board; new ones not ranked")
    r.add_argument("player")
    r.add_argument("--reason", required=True, help="what the player reads")
    r.add_argument("--days", type=int, help="lapses after this many days (default: until lifted)")
    r.add_argument("--json", action="store_true")
    lift = osub.add_parser("lift", help="lift a player's restriction: their games rank again")
    lift.add_argument("player")
    lift.add_argument("--reason", default="")
    lift.add_argument("--json", action="store_true")
    n = osub.add_parser("note", help="a note on a player's case")
    n.add_argument("player")
    n.add_argument("text")
    a = osub.add_parser("audit", help="the audit log, newest first, filtered")
    a.add_argument("--who", help="an operator's name, or name@address")
    a.add_argument("--target", help="a submission, a player, a day…")
    a.add_argument("--action", help="disqualify, restrict, note…")
    a.add_argument("--since", help="a day or an ISO time")
    a.add_argument("--limit", type=int, default=100)
    a.add_argument("--offset", type=int, default=0)
    a.add_argument("--before", help="an entry id: only older ones (a page's next)")
    a.add_argument("--json", action="store_true", help="{\"entries\": [...], \"next\": …} as the API's")
    e = osub.add_parser("export", help="the case file of a game or a player, as JSON")
    e.add_argument("subject", help="a submission id, a player id or a nickname")
    rp = osub.add_parser("reports", help="the players' reports, newest first")
    rp.add_argument("--limit", type=int, default=100)
    rp.add_argument("--json", action="store_true")
    ap = osub.add_parser("appeals", help="the players' appeals, newest first")
    ap.add_argument("--status", choices=("open", "answered"))
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--json", action="store_true")
    an = osub.add_parser("answer", help="answer an appeal (another operator than the one who decided)")
    an.add_argument("appeal_id")
    an.add_argument("decision", choices=("upheld", "granted"))
    an.add_argument("--text", required=True, help="what the player reads")


def run_desk(ops, args, who: str) -> int:
    c, desk = args.ops_command, PlayerDesk(ops)
    if c in ("player", "restrict", "lift"):
        pid = desk.resolve(args.player)
        if c == "restrict":
            case = desk.restrict(pid, who, args.reason, args.days)
        elif c == "lift":
            case = desk.lift(pid, who, args.reason)
        else:
            case = desk.view(pid)
        print(json.dumps(case, ensure_ascii=False) if args.json else _case_text(case))
        return 0
    if c == "note":
        print(json.dumps(desk.note(desk.resolve(args.player), who, args.text), ensure_ascii=False))
        return 0
    if c == "audit":
        page = ops.audit_log(args.limit, who=args.who, target=args.target, action=args.action, since=args.since,
                             offset=args.offset, before=args.before)
        if args.json:
            print(json.dumps(page, ensure_ascii=False))
            return 0
        print(f"{'at':<32} {'who':<24} {'action':<18} {'target':<40} why")
        for x in page["entries"]:
            print(f"{x['at']:<32} {x['who']:<24} {x['action']:<18} {x['target']:<40} {x.get('why', '')}")
        if page["next"]:
            print(f"more: --before {page['next']}", file=sys.stderr)
        return 0
    if c == "export":
        print(json.dumps(case_file(ops, args.subject, who), ensure_ascii=False))
        return 0
    if c == "reports":
        reports, total = Reports(ops.r, ops.settings).newest(args.limit)
        if args.json:
            print(json.dumps({"reports": reports, "total": total}, ensure_ascii=False))
        else:
            print(f"{'at':<32} {'submission':<42} {'reports':>7}  reason")
            for x in reports:
                print(f"{x['at']:<32} {x['submission_id']:<42} {x['reports_on_game']:>7}  {x['reason']}")
        return 0
    if c == "appeals":
        found = Appeals(ops.r, ops.settings).newest(args.status, args.limit)
        if args.json:
            print(json.dumps({"appeals": found}, ensure_ascii=False))
        else:
            print(f"{'appeal':<24} {'status':<9} {'kind':<17} {'player':<25} {'decided by':<24} text")
            for x in found:
                print(f"{x['appeal_id']:<24} {x['status']:<9} {x['kind']:<17} {x['player']:<25} "
                      f"{x.get('decided_by', ''):<24} {x['text']}")
        return 0
    if c == "answer":
        print(json.dumps(Appeals(ops.r, ops.settings).answer(args.appeal_id, who, args.decision, args.text, desk),
                         ensure_ascii=False))
        return 0
    raise AssertionError(c)  # pragma: no cover


def _case_text(case: dict) -> str:
    """A player's case in a few lines for people."""
    r = case["restricted"]
    lines = [f"player {case['player']}  {case['nickname'] or '-'}  "
             + (f"RESTRICTED until {r['until'] or 'lifted'} by {r['by']}: {r['reason']}" if r else "not restricted"),
             f"{'date':<11} {'submission':<42} {'status':<12} {'score':>5}  flags"]
    for g in case["games"]:
        flags = ",".join(f["code"] for f in g["flags"]) or "-"
        decision = f"  ({g['decision']}: {g['decision_reason']})" if g.get("decision") else ""
        lines.append(f"{g['date']:<11} {g['submission_id']:<42} {g['status']:<12} "
                     f"{g['score'] if g['score'] is not None else '-':>5}  {flags}{decision}")
    lines += ["addresses:"] + [f"  {a['address']} ({a['network']}): {a['games']} games, {a['first']} to {a['last']}"
                               for a in case["addresses"]]
    lines += ["user agents:"] + [f"  {a['user_agent']}: {a['games']} games" for a in case["user_agents"]]
    lines += ["others seen from those networks:"] + [
        f"  {o['player']} {o['nickname'] or '-'}{' (restricted)' if o['restricted'] else ''}: {', '.join(o['networks'])}"
        for o in case["others"]]
    lines += ["notes:"] + [f"  {n['at']} {n['who']}: {n['text']}" for n in case["notes"]]
    lines += [f"reports: {len(case['reports'])}, appeals: {len(case['appeals'])}"]
    return "\n".join(lines)
