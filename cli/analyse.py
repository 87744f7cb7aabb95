"""``manille analyse``: a finished game judged card by card (``postmortem.analyse``).

Prints, for the player (seat 0) and the partner (seat 2), the summary and every decision that
was not the best from the seat, or with ``--json`` the API's document.  A progress bar goes to
standard error when it is a terminal.  Exit 0 done, 1 the cards are not a valid game (the
verifier's rejection), 2 bad arguments (rules the analysis does not know, a bad seed).
"""

from __future__ import annotations

import json
import sys

from postmortem import AnalysisError, analyse
from service.replay import ManilleError, SubmissionRejected


def add_parser(sub) -> None:
    a = sub.add_parser("analyse", help="judge a finished game card by card: open hands and from the seat",
                       description=__doc__.split("\n\n")[1])
    a.add_argument("--seed", required=True, help="64 hex digits")
    a.add_argument("--cards", required=True, help='the player\'s cards in play order, e.g. "TH 7S ..."')
    a.add_argument("--bots", default="expert-1", help="bot id of seats 1-3 (default %(default)s)")
    a.add_argument("--rules", default="muette-1", help="rules id (the analysis knows muette-1)")
    a.add_argument("--seats", default="0,2", help="seats analysed (default %(default)s)")
    a.add_argument("--json", action="store_true", help="print the analysis document as JSON")
    a.set_defaults(func=cmd_analyse)


def _bar(done: int, total: int) -> None:
    width = 30
    full = width * done // max(total, 1)
    sys.stderr.write(f"\ranalysing [{'#' * full}{'.' * (width - full)}] {done}/{total} decisions")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def cmd_analyse(args) -> int:
    try:
        seats = tuple(sorted({int(s) for s in args.seats.split(",")}))
    except ValueError:
        raise ManilleError(f"--seats: seats as 0,2, not {args.seats!r}") from None
    if not seats or not set(seats) <= {0, 2}:
        raise ManilleError("--seats: the analysis judges seat 0 (the player) and seat 2 (the partner)")
    try:
        doc = analyse(args.seed, args.cards, bots=args.bots, rules=args.rules, seats=seats,
                      progress=_bar if sys.stderr.isatty() else None)
    except SubmissionRejected as e:
        rej = e.rejection.to_json()
        print(json.dumps(rej, separators=(",", ":")) if args.json else f"rejected: {rej['code']}: {rej['message']}")
        return 1
    except AnalysisError as e:
        raise ManilleError(str(e)) from None
    if args.json:
        print(json.dumps(doc, separators=(",", ":")))
        return 0
    print(text(doc))
    return 0


def text(doc: dict) -> str:
    """The document for a person: each seat's summary, then its cards that lost points."""
    names = {0: "you (seat 0)", 2: "partner (seat 2)"}
    lines = []
    for seat in doc["seats"]:
        s = doc["summary"][str(seat)]
        acc = "-" if s["accuracy"] is None else f"{s['accuracy']}%"
        acc_open = "-" if s["accuracy_open"] is None else f"{s['accuracy_open']}%"
        marks = ", ".join(f"{n} {m}" for m, n in s["marks"].items() if n and m != "forced")
        lines.append(f"{names[seat]}: accuracy {acc} from the seat ({acc_open} with hindsight), "
                     f"{s['lost_seat']} card points lost from the seat ({s['lost_open']} with hindsight); "
                     f"{s['decisions']} decisions: {marks}")
        lines.append("  by deal: " + "  ".join(f"{d['deal'] + 1}: -{d['lost_seat']}" for d in s["by_deal"]))
        for c in s["costliest"]:
            lines.append(f"  costliest: deal {c['deal'] + 1} trick {c['trick'] + 1}: {c['played']} ({c['mark']}, "
                         f"-{c['lost_seat']}); better {c['better']}")
        for d in doc["decisions"]:
            if d["seat"] != seat or d["forced"] or d["mark"] in ("best",):
                continue
            v = d["legal"][d["played"]]
            best = d["best_seat"][0]
            lines.append(f"  deal {d['deal'] + 1} trick {d['trick'] + 1}: {d['played']} {d['mark']}: "
                         f"{v['seat']:.2f} from the seat (±{v['seat_se']:.2f}), {best} {d['legal'][best]['seat']:.2f}; "
                         f"with hindsight {v['open']} vs {max(x['open'] for x in d['legal'].values())}")
    return "\n".join(lines)
