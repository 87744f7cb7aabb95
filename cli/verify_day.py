"""``manille verify-day FILE --seed HEX``: a closed day's file (``GET /api/v1/days/{date}/games``)
checked by anyone: every line replayed from the day's seed with the line's bots, its score and
card points recomputed; the games counted against the count the board had.

Exit 0: every line stands and the file holds exactly the board's games; 1: a line that does not
stand (a card changed: rejected, or another score or other card points), a game missing or one
extra (the lines against the first and the last line's counts), a seed that is not the day's
(its SHA-256 is not the commitment); 2: a file that is not a day's file, a bad seed.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
from collections.abc import Iterator

from bots import get_bot
from service.botcache import observation_digest
from service.replay import ManilleError, SubmissionRejected, check_seed, commitment_of, verify

FORMAT = "manille-day/1"
_BOTS: dict = {}  # each process's bots, made once a seed ("seed": the seed they are for)
#: Searched decisions each process remembers: a day's games share their deals and often their
#: first tricks, and a decision is a function of the observation alone once the seed is fixed.
REMEMBERED = 1 << 17


class Remembering:
    """``bot`` with its searched decisions remembered by observation (``service.botcache``'s
    digest): the same cards, each dear one computed once a process."""

    def __init__(self, bot) -> None:
        self.bot, self.id, self.seen = bot, bot.id, {}

    def choose(self, obs, rng):
        if not self.bot.searches(obs):
            return self.bot.choose(obs, rng)
        digest = observation_digest(self.id, obs, totals=getattr(self.bot, "reads_totals", True))
        card = self.seen.get(digest)
        if card is None:
            card = self.bot.choose(obs, rng)
            if len(self.seen) >= REMEMBERED:
                self.seen.clear()
            self.seen[digest] = card
        return card


def _bot(seed: bytes, bots: str):
    """The bot of ``bots`` for ``seed``'s games (what it remembers holds for one seed only)."""
    if _BOTS.get("seed") != seed:
        _BOTS.clear()
        _BOTS["seed"] = seed
    bot = _BOTS.get(bots)
    if bot is None:
        bot = get_bot(bots)
        bot = _BOTS[bots] = Remembering(bot) if getattr(bot, "searches", None) else bot
    return bot


def add_parser(sub) -> None:
    v = sub.add_parser("verify-day", help="check a closed day's games file line by line against its seed",
                       description=__doc__.split("\n\n")[1])
    v.add_argument("file", help="the day's file, as downloaded (gzip or not); - for stdin")
    v.add_argument("--seed", required=True, help="the day's seed, 64 hex digits (GET /challenges/{date})")
    v.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: every core)")
    v.add_argument("--json", action="store_true", help="one JSON object a line instead of text")
    v.set_defaults(func=cmd_verify_day)


def _lines(path: str) -> Iterator[tuple[int, str]]:
    """The file's non-empty lines with their numbers (1: the first); gzip read as such."""
    raw = sys.stdin.buffer if path == "-" else open(path, "rb")
    with raw:
        zipped = raw.peek(2)[:2] == b"\x1f\x8b"
        stream = gzip.open(raw, "rt", encoding="utf-8") if zipped else io.TextIOWrapper(raw, encoding="utf-8")
        for n, line in enumerate(stream, start=1):
            if line.strip():
                yield n, line


def check_game(seed: bytes, n: int, text: str) -> dict:
    """Line ``n``'s game replayed: ``{"line", "id", "stands", "score"[, "why"]}``."""
    out = {"line": n, "id": None, "stands": False}
    try:
        game = json.loads(text)
        out["id"] = game.get("submission_id")
        bots = game["bots"]
        bot = _bot(seed, bots)
        record = verify(seed, game["cards"], bot, rules=game["rules"])
    except SubmissionRejected as e:
        rej = e.rejection.to_json()
        out["why"] = f"the cards are not a game: {rej['code']}" + (f" at card {rej['index']}" if rej.get("index") is not None else "")
        return out
    except (ManilleError, ValueError, KeyError, TypeError, AttributeError) as e:
        out["why"] = f"not a game line: {e}"
        return out
    score, deals = record["rank_score"], [deal["points"][0] for deal in record["deals"]]
    out["score"] = score
    if game.get("score") != score:
        out["why"] = f"score {game.get('score')} but the cards give {score}"
    elif game.get("deals") != deals:
        out["why"] = f"card points {game.get('deals')} but the cards give {deals}"
    else:
        out["stands"] = True
    return out


def _is_end(text: str) -> bool:
    try:
        line = json.loads(text)
    except ValueError:
        return False
    return isinstance(line, dict) and "end" in line


def _check(task: tuple[bytes, int, str]) -> dict:
    return check_game(*task)


def verify_file(path: str, seed_hex: str, jobs: int = 1) -> Iterator[dict]:
    """Every finding, in the file's order: each game line's (``check_game``), then the counts'
    (``{"line", "stands": False, "why"}``, the line 0 for the file as a whole).  Raises ManilleError
    for a bad seed or a file with no first line."""
    seed = check_seed(seed_hex)
    lines = _lines(path)
    first = next(lines, None)
    try:
        head = json.loads(first[1]) if first else None
    except ValueError:
        head = None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise ManilleError(f"not a day's file: its first line is not a {FORMAT} head")
    if commitment_of(seed) != head.get("commitment"):
        yield {"line": first[0], "stands": False,
               "why": f"this seed is not the day's: its SHA-256 is not the commitment {head.get('commitment')}"}
        return
    end, games, seen, misplaced = None, 0, {}, []

    def tasks():
        nonlocal end
        for n, text in lines:
            if _is_end(text):
                end = (n, text)
                continue
            if end is not None:  # a game after a last line: that one was not the last
                misplaced.append(end[0])
                end = None
            yield seed, n, text

    def results():
        if jobs > 1:  # an executor, not a Pool: a process that dies is an error, not a wait for ever
            from concurrent.futures import ProcessPoolExecutor
            from concurrent.futures.process import BrokenProcessPool
            from multiprocessing import get_context
            try:
                # forked from a clean server process, not from this one, whose other threads (a
                # caller's: a Redis client's, a test's worker) may hold a lock the child would wait on
                with ProcessPoolExecutor(jobs, mp_context=get_context("forkserver")) as pool:
                    yield from pool.map(_check, tasks())  # one game a task: a replay outweighs its message
            except BrokenProcessPool as e:
                raise ManilleError(f"a checking process died: {e}") from None
        else:
            yield from map(_check, tasks())

    for found in results():
        games += 1
        if found["id"] in seen:
            found.update(stands=False, why=f"the same game as line {seen[found['id']]}")
        seen.setdefault(found["id"], found["line"])
        yield found
    for n in misplaced:
        yield {"line": n, "stands": False, "why": "a last line before the end of the file"}
    if end is None:
        yield {"line": 0, "stands": False, "why": "no last line: the file was cut short"}
        return
    written = json.loads(end[1]).get("games")
    if games != head.get("games") or games != written:
        what = "missing" if games < head.get("games", 0) else "extra"
        yield {"line": 0, "stands": False,
               "why": f"{games} games in the file, the board had {head.get('games')} (first line) and "
                      f"{written} were written (last line): {abs(games - head.get('games', 0))} {what}"}


def cmd_verify_day(args) -> int:
    ok, count = True, 0
    for found in verify_file(args.file, args.seed, max(1, args.jobs)):
        ok &= found["stands"]
        count += found["line"] > 0
        if args.json:
            print(json.dumps(found, separators=(",", ":")))
        elif found["line"] == 0:
            print(f"file: FAILS: {found['why']}")
        else:
            print(f"line {found['line']} ({found.get('id')}): "
                  + (f"stands, score {found['score']}" if found["stands"] else f"FAILS: {found['why']}"))
    if not args.json:
        print(f"{count} games: " + ("every one stands, and the file holds the board's games" if ok else "FAILED"))
    return 0 if ok else 1
