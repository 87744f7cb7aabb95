"""The ``manille`` command line: simulate, verify, seed, bench, play, tournament, analyse, ops, verify-day.

Exit codes: 0 done (and, for verify, every game valid), 1 a submission rejected, or (play) an
outside player's answer missing, not a card or illegal, 2 bad arguments or input (unknown bot,
bad seed, bad seats, odd --games, missing secret …).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from bots import get_bidder, get_bot
from cli import analyse as analyse_cli
from cli import play as line_play
from cli import tournament
from cli import verify_day
from service.replay import (MUETTE, RULES, ManilleError, SubmissionRejected, dumps, player_cards, rules_for,
                            simulate, verify)
from service.ops import cli as ops_cli
from service.ratings import cli as ratings_cli
from service.seeds import DayClock, commitment, parse_date, schedule_from_env

DEFAULT_BOT = "random-1"
DEFAULT_BIDDER = "bidder-1"


def _print_json(obj) -> None:
    print(json.dumps(obj, separators=(",", ":")))


def _game(args) -> dict:
    """The rules options of a command (``--rules``, ``--target``, ``--bidder``) as keyword arguments
    for simulate/verify/play; the bidder only where the rules have an auction."""
    rules = rules_for(args.rules)
    target = rules.check_target(args.target)
    return {"rules": rules, "target": target, "bidder": get_bidder(args.bidder) if rules.has_auction else None}


def cmd_simulate(args) -> int:
    bot = get_bot(args.bots)
    record = simulate(args.seed, bot, get_bot(args.player_bot) if args.player_bot else None, **_game(args))
    if args.json:
        print(dumps(record))
    else:
        print(_summary(record))
    return 0


def _summary(record: dict) -> str:
    us, them = record["totals"]
    return (f"valid: {len(record['deals'])} deals, us {us} – them {them}, {record['winner']} win, "
            f"rank score {record['rank_score']}")


def _rejection_text(rej: dict) -> str:
    where = ", ".join(f"{k} {rej[k]}" for k in ("index", "deal", "trick") if rej.get(k) is not None)
    legal = f"; legal: {' '.join(rej['legal'])}" if rej.get("legal") else ""
    return f"rejected: {rej['code']} ({where}){legal}" if where else f"rejected: {rej['code']}"


def cmd_verify(args) -> int:
    if args.batch:
        return _verify_batch(args)
    if args.seed is None or args.cards is None:
        raise ManilleError("verify needs --seed and --cards, or --batch FILE")
    bot = get_bot(args.bots)
    try:
        record = verify(args.seed, args.cards, bot, **_game(args))
    except SubmissionRejected as e:
        rej = e.rejection.to_json()
        print(json.dumps(rej, separators=(",", ":")) if args.json else _rejection_text(rej))
        return 1
    print(dumps(record) if args.json else _summary(record))
    return 0


def _verify_batch(args) -> int:
    stream = sys.stdin if args.batch == "-" else open(args.batch, encoding="utf-8")
    all_valid = True
    game = _game(args)
    with stream:
        for n, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            out = {"line": n}
            try:
                item = json.loads(line)
                if not isinstance(item, dict) or "seed" not in item or "cards" not in item:
                    raise ManilleError('each line is an object {"seed": HEX, "cards": [...]}')
                if "id" in item:
                    out["id"] = item["id"]
                record = verify(item["seed"], item["cards"], get_bot(item.get("bots", args.bots)), **game)
                out.update(valid=True, rank_score=record["rank_score"], totals=record["totals"],
                           winner=record["winner"])
                if args.records:
                    out["record"] = record
            except SubmissionRejected as e:
                out.update(valid=False, rejection=e.rejection.to_json())
            except (ManilleError, ValueError) as e:  # json.JSONDecodeError is a ValueError
                out.update(valid=False, error={"code": "bad_input", "message": str(e)})
            all_valid &= out["valid"]
            _print_json(out)
            sys.stdout.flush()
    return 0 if all_valid else 1


def cmd_seed(args) -> int:
    clock = DayClock(args.tz)
    day = clock.today() if args.date == "today" else parse_date(args.date)
    secrets = schedule_from_env()  # the day's own secret, as the service would use it
    seed = secrets.seed(day)
    out = {"date": day.isoformat(), "opens_at": clock.opens_at(day).isoformat(),
           "closes_at": clock.closes_at(day).isoformat(), "reveals_at": clock.reveals_at(day).isoformat(),
           "commitment": commitment(seed)}
    if args.reveal:
        out["seed"] = clock.revealed_seed(secrets, day).hex()
    _print_json(out)
    return 0


def bench_seeds(n: int) -> list[bytes]:
    """The fixed seeds the benchmarks use: SHA-256("manille-bench" ‖ uint32be(i))."""
    return tournament.fixed_seeds(b"manille-bench", n)


def cmd_bench(args) -> int:
    ids = args.bots.split(",")
    bots = [get_bot(b) for b in ids]
    seeds = bench_seeds(args.games)
    figures = {}
    for bot in bots:
        games = [(seed, player_cards(simulate(seed, bot))) for seed in seeds]
        verify_runs, simulate_runs = [], []
        for _ in range(args.repeat):  # interleaved so that machine noise hits both alike
            t0 = time.perf_counter()
            for seed, cards in games:
                verify(seed, cards, bot)
            t1 = time.perf_counter()
            for seed, _cards in games:
                simulate(seed, bot)
            t2 = time.perf_counter()
            verify_runs.append((t1 - t0) / len(games))
            simulate_runs.append((t2 - t1) / len(games))
        v, s = statistics.median(verify_runs), statistics.median(simulate_runs)
        figures[bot.id] = v
        deals = sum(len(simulate(seed, bot)["deals"]) for seed in seeds)
        print(f"bench: {args.games} games ({deals} deals), bots {bot.id}, median of {args.repeat} runs")
        print(f"verify:   {1 / v:8.1f} games/s  {v * 1000:7.3f} ms/game  "
              f"(runs: {', '.join(f'{r * 1000:.3f}' for r in verify_runs)} ms)")
        print(f"simulate: {1 / s:8.1f} games/s  {s * 1000:7.3f} ms/game  (bots only, same record)")
        print(f"verify / simulate: {v / s:.2f}")
    if len(bots) > 1:
        first = bots[0].id
        print("verification time against " + first + ": " + ", ".join(
            f"{b} {figures[b] / figures[first]:.1f}x" for b in figures if b != first))
    return 0


def cmd_play(args) -> int:
    seats = line_play.parse_seats(args.seats)
    bot = get_bot(args.bots)
    try:
        record = line_play.play(args.seed, seats, bot, sys.stdin, sys.stdout, **_game(args))
    except line_play.PlayProtocolError as e:
        print(json.dumps(e.to_json(), separators=(",", ":")), flush=True)
        print(f"manille: play: {e}", file=sys.stderr)
        return 1
    print(line_play.record_line(record), flush=True)
    return 0


def cmd_tournament(args) -> int:
    a, b = (tuple(get_bot(x) for x in team.split(",")) if "," in team else get_bot(team)
            for team in (args.a, args.b))
    for team, name in ((a, "--a"), (b, "--b")):
        if isinstance(team, tuple) and len(team) != 2:
            raise ManilleError(f"{name} is one bot id, or two (the team's first seat, then its second), "
                               f"comma-separated")
    rules = rules_for(args.rules) if args.rules is not None else None
    bidders = {}
    if rules is not None and rules.has_auction:
        bidders = {"bidder_a": get_bidder(args.bidder_a or DEFAULT_BIDDER),
                   "bidder_b": get_bidder(args.bidder_b or DEFAULT_BIDDER)}
    elif args.bidder_a or args.bidder_b:
        raise ManilleError(f"{rules_for(rules).id} has no auction: --bidder-a/--bidder-b need "
                           "--rules parlee-1 or manillen-1")
    tag = args.seed_tag.encode() if args.seed_tag is not None else tournament.TOURNAMENT_TAG
    result = tournament.run(a, b, args.games, rules=rules, target=args.target, tag=tag, jobs=args.jobs,
                            **bidders)
    print(json.dumps(result, separators=(",", ":")) if args.json else tournament.summary(result))
    return 0


def _rules_options(parser) -> None:
    """--rules, --target and --bidder: which game to play, to what total, who calls for the bots."""
    parser.add_argument("--rules", default=MUETTE.id,
                        help=f"rules id: {', '.join(RULES)} (default %(default)s; docs/variants.md)")
    parser.add_argument("--target", type=int,
                        help="game target, where the rules allow more than one (parlee-1: 101 or 51)")
    parser.add_argument("--bidder", default=DEFAULT_BIDDER,
                        help="bidder id of the bots under rules with an auction (default %(default)s)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="manille", description="Manille: engine, verifier, seeds.")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("simulate", help="play a whole game with bots in every seat, print the record")
    s.add_argument("--seed", required=True, help="64 hex digits")
    s.add_argument("--bots", default=DEFAULT_BOT, help="bot id for seats 1-3 (default %(default)s)")
    s.add_argument("--player-bot", help="bot id for seat 0 (default: the same as --bots)")
    s.add_argument("--json", action="store_true", help="print the game record as JSON")
    _rules_options(s)
    s.set_defaults(func=cmd_simulate)

    v = sub.add_parser("verify", help="replay a player's cards; exit 0 valid, 1 rejected")
    v.add_argument("--seed", help="64 hex digits")
    v.add_argument("--cards", help='the player\'s cards in play order, e.g. "TH 7S ..."; under rules with an auction its calls too, each deal\'s before its cards')
    v.add_argument("--bots", default=DEFAULT_BOT, help="bot id for seats 1-3 (default %(default)s)")
    v.add_argument("--json", action="store_true", help="print the record, or the rejection, as JSON")
    v.add_argument("--batch", metavar="FILE",
                   help='JSON lines {"seed":…,"cards":[…]} ("-" for stdin); one result line each')
    v.add_argument("--records", action="store_true", help="with --batch: include each full record")
    _rules_options(v)
    v.set_defaults(func=cmd_verify)

    d = sub.add_parser("seed", help="a day's commitment (MANILLE_SECRET), and its seed once closed")
    d.add_argument("date", help="YYYY-MM-DD or 'today'")
    d.add_argument("--reveal", action="store_true", help="also print the seed (closed days only)")
    d.add_argument("--tz", help="time zone of the day boundaries (default MANILLE_TZ or Europe/Brussels)")
    d.set_defaults(func=cmd_seed)

    b = sub.add_parser("bench", help="verification speed over a fixed set of seeds")
    b.add_argument("--games", type=int, default=200)
    b.add_argument("--repeat", type=int, default=5)
    b.add_argument("--bots", default=DEFAULT_BOT, help="a bot id, or several comma-separated "
                   "(expert-1,expert-2,expert-4: their figures side by side)")
    b.set_defaults(func=cmd_bench)

    pl = sub.add_parser("play", help="hold seats from outside over a JSON-lines protocol (docs/protocol.md)",
                        description="For each listed seat, at each of its turns, write its observation as "
                        "one JSON line on stdout and read the card as one line on stdin; the other seats "
                        "are played by the bot. Ends with the game record, or an error line (exit 1) "
                        "for a missing, unparseable or illegal answer.")
    pl.add_argument("--seed", required=True, help="64 hex digits")
    pl.add_argument("--seats", default="0", help="seats played from outside, e.g. 0 or 0,2 (default %(default)s)")
    pl.add_argument("--bots", default="expert-1", help="bot id for the other seats (default %(default)s)")
    _rules_options(pl)
    pl.set_defaults(func=cmd_play)

    t = sub.add_parser("tournament", help="team A (seats 0, 2) against team B (seats 1, 3)",
                       description="Play --games games: --games/2 fixed seeds, each played twice with "
                       "the teams swapped. Reports A's games won, mean margin and mean rank score with "
                       "95%% intervals, and the mean ms per decision of each bot.")
    t.add_argument("--a", required=True, help="bot id of team A, or two (seat 0's, seat 2's: "
                   "expert-2,expert-1)")
    t.add_argument("--b", required=True, help="bot id of team B, or two (seat 1's, seat 3's)")
    t.add_argument("--jobs", type=int, default=1, help="processes sharing the seeds (default 1)")
    t.add_argument("--games", type=int, default=100,
                   help="number of games, even: games/2 seeds x 2 (default %(default)s)")
    t.add_argument("--rules", choices=sorted(RULES),
                   help="rules id (default muette-1; with an auction, each team has a bidder)")
    t.add_argument("--target", type=int, help="game target the rules allow (default: the rules' own)")
    t.add_argument("--bidder-a", help=f"bidder id of team A under --rules with an auction (default {DEFAULT_BIDDER})")
    t.add_argument("--bidder-b", help=f"bidder id of team B under --rules with an auction (default {DEFAULT_BIDDER})")
    t.add_argument("--seed-tag", help="play the seeds SHA-256(TAG ‖ i) instead of the tournament's "
                   "(tuning on a set kept apart from the measurement)")
    t.add_argument("--json", action="store_true", help="print one JSON object")
    t.set_defaults(func=cmd_tournament)
    analyse_cli.add_parser(sub)
    ops_cli.add_parser(sub)
    ratings_cli.add_parser(sub)
    verify_day.add_parser(sub)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ManilleError, OSError) as e:
        print(f"manille: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
