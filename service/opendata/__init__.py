"""A closed day's games as open data: one JSON line a game on the day's board, under a licence,
immutable once final, checkable line by line by anyone with the day's seed (``manille verify-day``).

The file is the day's board exactly (verified games; a held, disqualified or rejected one is on no
board): a first line naming the format, the licence, the day, its rules, bots and commitment, the
board's version and how many games it holds; one line a game in board order; a last line saying
how many were written.  A board that changed while the file streamed (ops disqualified a game)
gives a last line whose count is not the first's: the reader fetches it again.

``version`` is ``<epoch>.<changes>``: the boards' wipes and the day board's changes (every game
recorded or removed is one), so a disqualification after the day was final is a new version, and
a new ETag.  Read in pages of ``PAGE`` games: memory does not grow with the day.

The nickname is read when the file is built, from where the boards read it, so a name changed
there later (a pseudonym) is the name the files built after carry.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Iterator
from datetime import date

from service.challenges import Challenges
from service.config import Settings
from service.leaderboard import Leaderboard
from service.replay import FORMAT as GAME_FORMAT
from service.seeds import commitment
from service.submissions import Submissions, submission_day

#: The file's format: its first line's ``format``.
FORMAT = "manille-day/1"
#: CC0: a game is a sequence of facts with no author to credit; public domain lets anyone check,
#: mirror and build on the files with no terms to carry along (lichess's database, likewise).
LICENCE = "CC0-1.0"
LICENCE_URL = "https://creativecommons.org/publicdomain/zero/1.0/"
#: Games read per round trip.
PAGE = 1000
_JSON = {"separators": (",", ":"), "ensure_ascii": False}


def _line(obj: dict) -> bytes:
    return (json.dumps(obj, **_JSON) + "\n").encode()


def gaps_of(times: str) -> list[int]:
    """The milliseconds between each play and the next ('' or one time: [])."""
    t = [int(x) for x in times.split(",") if x]
    return [b - a for a, b in zip(t, t[1:])]


class DayGames:
    def __init__(self, client, settings: Settings) -> None:
        self.r = client
        self.settings = settings
        self.boards = Leaderboard(client)
        self.subs = Submissions(client, settings)

    def state(self, day: date) -> dict:
        """The first line of ``day``'s file as it is now (its version, whether final) and the
        file's ``etag`` (the same state, the same bytes).  ``final``: the day has closed and none
        of its verifications is pending."""
        terms = Challenges(self.r, self.settings).stored_terms(day, create=False)
        version = self.boards.day_games_version(day)
        closed = self.settings.clock.phase(day) == "closed"
        final = closed and not any(submission_day(sub_id) == day for sub_id, _at in self.subs.pending())
        head = {"format": FORMAT, "licence": LICENCE, "licence_url": LICENCE_URL, "date": day.isoformat(),
                "rules": terms["rules"], "bots": terms["bots"], "commitment": commitment(self.settings.seed(day)),
                "version": f"{version['epoch']}.{version['changes']}", "final": final, "games": version["games"]}
        etag = hashlib.blake2b(_line(head), digest_size=16).hexdigest()
        return {"head": head, "etag": etag}

    def lines(self, day: date, head: dict) -> Iterator[bytes]:
        """The file's lines (bytes, each ending in a newline), read ``PAGE`` games at a time."""
        yield _line(head)
        written, offset = 0, 0
        common = {"rules": head["rules"], "bots": head["bots"], "verification": GAME_FORMAT}
        while True:
            page = self.boards.day_games(day, offset, PAGE)
            if not page:
                break
            offset += len(page)
            ids = [g["submission_id"] for g in page]
            subs = self.subs.get_fields([i for i in ids if i], ["cards", "times"])
            stored = dict(zip([i for i in ids if i], subs))
            for game in page:
                sub = stored.get(game["submission_id"]) or {}
                cards = sub.get("cards", "")
                yield _line({"submission_id": game["submission_id"], "nickname": game["nickname"],
                             "cards": [cards[i:i + 2] for i in range(0, len(cards), 2)],
                             "gaps": gaps_of(sub.get("times", "")), "score": game["score"],
                             "deals": game["deals"], **common})
                written += 1
        yield _line({"end": FORMAT, "games": written})


def gzipped(chunks: Iterator[bytes], level: int = 6) -> Iterator[bytes]:
    """``chunks`` as one gzip stream (no name, time 0: the same bytes in, the same bytes out)."""
    z = zlib.compressobj(level, zlib.DEFLATED, 31)
    for chunk in chunks:
        out = z.compress(chunk)
        if out:
            yield out
    yield z.flush()
