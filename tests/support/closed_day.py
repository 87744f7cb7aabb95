"""Ranked games of a day that has closed, played as they would have been that day at noon (the
service's own classes, their clock given) and verified by the stack's worker as any submission
is.  No page can make one: the day has closed.

Each player's seat 0 is played by a bot of its own choosing (``random-1``, ``greedy-1``,
``expert-1``…) against the day's bots, so the games differ deal by deal as people's do.
"""

from __future__ import annotations

import time
import uuid
from datetime import date, datetime, timezone
from datetime import time as dt_time
from zoneinfo import ZoneInfo

import requests

from support.live_stack import BOTS, TZ


def play_closed_day(live, day: date, seat0_bots: list[str], prefix: str = "past") -> list[dict]:
    """One verified ranked game of ``day`` (closed) per bot of ``seat0_bots``, each by a new player;
    returns [{"token", "player", "submission_id", "nickname", "day"}] in the order verified."""
    from bots import get_bot
    from service.players import Players
    from service.replay import simulate
    from service.runs import Runs
    from service.store import connect
    from service.submissions import Submissions

    settings = live.settings()
    client = connect(live.redis.url)
    noon = datetime.combine(day, dt_time(12), ZoneInfo(TZ)).astimezone(timezone.utc)
    players, runs, subs = Players(client), Runs(client, settings), Submissions(client, settings)
    seed = settings.seed(day).hex()
    games = []
    for bot in seat0_bots:
        token, pid = Players.new_token()
        players.opened(pid, noon.isoformat())
        run, _ = runs.open(day, pid, now=noon)
        record = simulate(seed, get_bot(BOTS), player=get_bot(bot))  # a valid game: bots' cards in every seat
        cards = [p["card"] for d in record["deals"] for t in d["tricks"] for p in t["plays"] if p["seat"] == 0]
        for turn, card in enumerate(cards):
            runs.play(run["id"], pid, turn, card, now=noon)
        nickname = f"{prefix}-{uuid.uuid4().hex[:6]}"
        sub_id, _ = subs.submit(run["id"], pid, lambda: players.claim_nickname(pid, nickname), now=noon)
        _wait_verified(live.base, sub_id)  # one at a time: the order verified is the order listed
        games.append({"token": token, "player": pid, "submission_id": sub_id, "nickname": nickname,
                      "day": day.isoformat()})
    return games


def _wait_verified(base: str, sub_id: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        sub = requests.get(f"{base}/api/v1/submissions/{sub_id}", timeout=10).json()
        if sub["status"] not in ("queued", "delayed"):
            assert sub["status"] == "verified", sub
            return
        assert time.monotonic() < deadline, f"the closed day's submission {sub_id} was never verified"
        time.sleep(0.1)


def build_matchpoints(live, day: date) -> dict:
    """The day's matchpoint board (final: the day has closed, none of its games pending), with its
    week's and month's, built as the stack's worker builds them, now rather than within its minute."""
    from service import duplicate
    from service.store import connect

    return duplicate.build(live.settings(), connect(live.redis.url), day)
