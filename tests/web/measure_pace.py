"""The bots' pace as the player sees it (not a test): ``.venv/bin/python tests/web/measure_pace.py``

Starts its own Redis + RQ workers + gunicorn (as the browser tests do) with the day dealt with
``--bots`` (default: the service's ``DEFAULT_BOTS``), then in Debian's Chromium plays at the chosen
``--speed``, a card of each in turn, ``--plays`` cards each: free games against the strongest
table (the day's bots: every decision computed when met, a free deal's seed is new, so the cache
is always cold) and against the club's (expert-1); with ``--day``, ranked games of the day too
(a new player each game), once the workers have warmed the day (its warm waited for).

For each card the player clicks where the next thing the table shows is a bot's card, it measures
the time from the click (``pointerdown``) to that card on the felt, and prints its p50 / p90 / max
for each table beside the pace's own beat there (the player's card moving in, then a bot's beat:
``move`` + ``card`` of ``settings.js``); and the play round trip (the page's ``play-rtt``
measures) p50 / p90 / max.  A decision's cost shows to the player only where the click-to-card
time exceeds the beat.

Options: --url BASE measures a server already running instead (no stack is started).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the support package
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))  # the summary figures

from playwright.sync_api import sync_playwright  # noqa: E402
from stats import pct  # noqa: E402

from support.live_stack import CHROMIUM_ARGS, DESKTOP, LiveStack, chromium_available, chromium_path  # noqa: E402
from support.web_helpers import Game, play_one, watch_play_requests  # noqa: E402

from service.config import DEFAULT_BOTS  # noqa: E402

#: settings.js's beats: the player's card moving in, then the wait before a bot's card.
BEATS = {"normal": 260 + 600, "fast": 120 + 150}

#: The times of each click on the page and of each bot's card put on the felt.
WATCH_JS = """
(() => {
  window.__clicks = [];
  window.__cards = [];
  document.addEventListener('pointerdown', () => window.__clicks.push(performance.now()), true);
  const start = () => new MutationObserver((records) => {
    const now = performance.now();
    for (const r of records) for (const n of r.addedNodes) {
      if (n.classList && /\\bslot-[123]\\b/.test(n.className)) window.__cards.push(now);
    }
  }).observe(document.getElementById('trick'), { childList: true });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
"""


class Table:
    """One page playing free games against one table's strength (``level``), or the day's ranked
    game ("day": a new visitor each game)."""

    def __init__(self, browser, base: str, level: str, speed: str) -> None:
        self.browser, self.base, self.level, self.speed = browser, base, level, speed
        self.delays: list[float] = []
        self.rtt: list[float] = []
        self.bots = None
        self.ctx = None
        self.open()

    def open(self) -> None:
        if self.ctx is not None:
            self.rtt += self.rtts()
            self.ctx.close()
        ctx = self.ctx = self.browser.new_context(base_url=self.base, viewport=DESKTOP, locale="en-GB")
        ctx.set_default_timeout(60_000)
        ctx.add_init_script(f"localStorage.setItem('manille.strength', '{self.level}');")
        ctx.add_init_script(WATCH_JS)
        self.page = ctx.new_page()
        self.page.goto(f"{'/' if self.level == 'day' else '/free'}?lang=en&speed={self.speed}")
        self.game = Game()
        watch_play_requests(self.page, self.game)

    def play(self, rng: random.Random) -> None:
        if self.game.last is not None and self.game.last["status"] == "finished":
            if self.level == "day":
                self.open()
            else:
                self.page.get_by_role("button", name="Play again").click()
                self.game = Game()
                watch_play_requests(self.page, self.game)
        page = self.page
        clicks = page.evaluate("window.__clicks.length")
        cards = page.evaluate("window.__cards.length")
        run = play_one(page, self.game, "mouse", choose=rng.choice, timeout=60_000)
        self.bots = run["bots"]
        events = run["events"]
        own = next((i for i, e in enumerate(events) if e["type"] == "play" and e["seat"] == 0), None)
        if own is None or own + 1 >= len(events) or events[own + 1]["type"] != "play":
            return  # the player's card ended a trick or a deal: the next beat is another one
        click = page.evaluate(f"window.__clicks[{clicks}]")
        card = page.evaluate(f"window.__cards[{cards}]")
        if click is not None and card is not None:
            self.delays.append(card - click)

    def rtts(self) -> list[float]:
        return self.page.evaluate("performance.getEntriesByName('play-rtt').map(e => e.duration)")


def wait_warm(base: str, timeout: float = 3600) -> None:
    """Until readiness says today's warm is done and no warm job waits (tomorrow's is queued too)."""
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        warm = requests.get(f"{base}/api/v1/health/ready", timeout=10).json().get("warm") or {}
        if warm.get("jobs") and warm.get("done", 0) >= warm["jobs"] and not warm.get("queued"):
            print(f"measure_pace: the day's warm is done ({warm['jobs']} jobs, {warm['bots']})")
            return
        time.sleep(5)
    raise RuntimeError("the day's warm did not finish")


def measure(base: str, plays: int, speed: str, day: bool = False) -> None:
    rng = random.Random(37)
    if day:
        wait_warm(base)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        tables = [Table(browser, base, level, speed) for level in ("strongest", "club") + (("day",) if day else ())]
        for _ in range(plays):
            for table in tables:
                table.play(rng)
        beat = BEATS[speed]
        print(f"measure_pace: {plays} cards a table, speed {speed} (the beat before a bot's card after "
              f"the player's: {beat} ms), a cold cache (free play: a new seed each game)")
        for table in tables:
            d, rtt = table.delays, table.rtt + table.rtts()
            print(f"  {'the day (ranked, warm)' if table.level == 'day' else table.level} ({table.bots}): click to the bots' first card p50 {pct(d, 50):.0f} ms, "
                  f"p90 {pct(d, 90):.0f} ms, max {max(d):.0f} ms over {len(d)} cards "
                  f"(p90 {pct(d, 90) - beat:+.0f} ms over the beat; {sum(x > beat + 50 for x in d)} more than "
                  f"50 ms over it); the play's round trip p50 {pct(rtt, 50):.0f} ms, p90 {pct(rtt, 90):.0f} ms, "
                  f"max {max(rtt):.0f} ms")
        browser.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="measure this running site instead of starting one")
    ap.add_argument("--bots", default=DEFAULT_BOTS, help="the day's bots of the stack started (the strongest table)")
    ap.add_argument("--plays", type=int, default=60, help="cards played against each table")
    ap.add_argument("--speed", choices=sorted(BEATS), default="normal")
    ap.add_argument("--day", action="store_true", help="the day's ranked games too, once its warm is done")
    args = ap.parse_args(argv)
    if not chromium_available():
        print(f"no Chromium at {chromium_path()}", file=sys.stderr)
        return 2
    if args.url:
        measure(args.url, args.plays, args.speed, args.day)
        return 0
    with tempfile.TemporaryDirectory(prefix="manille-pace-") as tmp:
        stack = LiveStack(tmp, env={"MANILLE_BOTS": args.bots, "MANILLE_WARM_DEALS": "12" if args.day else "0"}).start()
        try:
            measure(stack.base, args.plays, args.speed, args.day)
        finally:
            stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
