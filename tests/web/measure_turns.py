"""Click to your turn at the table (not a test): ``.venv/bin/python tests/web/measure_turns.py --against REV``

How long a player waits, in Debian's Chromium, from a click on a card to their next turn (the hand
has a playable card again): the other players' cards, the trick taken, the next deal dealt.

Starts the product (Redis, the workers, gunicorn, as the browser tests do) for this checkout and,
with ``--against REV``, a second one for the project as it was at REV (``git archive`` into a
temporary directory, run by the same virtualenv).  On each it plays the same game: an archive
day's (the same deals, the same bots), always the first playable card, so the two trees see the
very same plays; the trees take turns game by game, so that a busy moment of the machine falls on
both.  Prints, for each tree and pace: the plays timed, the median and the 90th percentile, and
the ratio of this checkout's median to REV's.

Options: ``--games N`` (2) games per tree and pace; ``--speeds normal,fast`` (normal: the pace a
visitor has by default).  About two minutes a game at the normal pace.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the support package

from playwright.sync_api import sync_playwright  # noqa: E402

from support.live_stack import CHROMIUM_ARGS, ROOT, LiveStack, chromium_available, chromium_path  # noqa: E402
from support.web_helpers import enabled_cards, hand_state  # noqa: E402

#: Times each click on a playable card of the hand until the hand has a playable card again,
#: whatever the page's own code (the same probe for both trees).
TURNS_JS = """
(() => {
  window.__turns = [];
  let clicked = null;
  const playable = (b) => b && b.getAttribute('aria-disabled') !== 'true' && !b.disabled;
  const hand = () => [...document.querySelectorAll('[role="toolbar"]')].find(bar =>
      /hand|main/i.test(bar.getAttribute('aria-label') || ''));
  document.addEventListener('click', (e) => {
    const card = e.target.closest && e.target.closest('button[data-card]');
    if (card && hand() && hand().contains(card) && playable(card)) clicked = performance.now();
  }, true);
  new MutationObserver(() => {
    const bar = hand();
    if (clicked !== null && bar && [...bar.querySelectorAll('button')].some(playable)) {
      window.__turns.push(performance.now() - clicked);
      clicked = null;
    }
  }).observe(document, { subtree: true, childList: true, attributes: true,
                         attributeFilter: ['aria-disabled', 'disabled'] });
})();
"""


def play_timed(browser, base: str, day: str, speed: str) -> list[float]:
    """One archive game of ``day`` at ``speed``, the first playable card each turn; the waits (ms)."""
    ctx = browser.new_context(base_url=base, viewport={"width": 1280, "height": 800}, locale="en-GB")
    ctx.add_init_script(TURNS_JS)
    page = ctx.new_page()
    page.goto(f"/archive/{day}?lang=en&speed={speed}")
    end = page.locator("#end")
    while True:
        enabled_cards(page).first.or_(end.get_by_role("button", name="Play again")).wait_for(timeout=120_000)
        if end.is_visible():
            break
        card = hand_state(page)["enabled"][0]
        page.locator(f'[role="toolbar"] button[data-card="{card}"]').click()
        page.wait_for_function("(n) => window.__turns.length >= n || document.querySelector('#end:not([hidden])')",
                               arg=len(page.evaluate("window.__turns")) + 1, timeout=120_000)
    turns = page.evaluate("window.__turns")
    ctx.close()
    return turns


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else values[0]


def export(rev: str, into: Path) -> Path:
    """The project at ``rev``, as files (no .git), under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def measure(trees: dict[str, LiveStack], games: int, speeds: list[str]) -> None:
    any_stack = next(iter(trees.values()))
    import requests

    today = requests.get(f"{any_stack.base}/api/v1/challenges/today", timeout=10).json()["date"]
    from datetime import date

    day = (date.fromisoformat(today) - timedelta(days=2)).isoformat()  # closed: its seed is public
    waits: dict[tuple[str, str], list[float]] = {(name, s): [] for name in trees for s in speeds}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        for speed in speeds:
            for _ in range(games):
                for name, stack in trees.items():  # turn by turn: a busy moment hits both
                    waits[(name, speed)] += play_timed(browser, stack.base, day, speed)
        browser.close()
    print(f"Click to your turn, Chromium {chromium_path()}, the archive game of {day}, first playable card "
          f"each turn, {games} game(s) per tree and pace")
    print(f"  {'tree':<12} {'pace':<8} {'plays':>5} {'median':>9} {'p90':>9}")
    for (name, speed), values in waits.items():
        print(f"  {name:<12} {speed:<8} {len(values):>5} {statistics.median(values):>7.0f} ms {p90(values):>6.0f} ms")
    if len(trees) == 2:
        here, there = trees
        for speed in speeds:
            ratio = statistics.median(waits[(here, speed)]) / statistics.median(waits[(there, speed)])
            print(f"  {speed}: median {here} / {there} = {ratio:.2f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", metavar="REV", help="also measure the project at this git revision")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--speeds", default="normal")
    args = ap.parse_args(argv)
    if not chromium_available():
        print(f"no Chromium found at {chromium_path()} (set $MANILLE_CHROMIUM)", file=sys.stderr)
        return 2
    speeds = [s for s in args.speeds.split(",") if s]
    with tempfile.TemporaryDirectory(prefix="manille-turns-") as tmp:
        for sub in ("this", "other"):
            (Path(tmp) / sub).mkdir()
        trees = {"this": LiveStack(Path(tmp) / "this", web_processes=1)}
        if args.against:
            rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.against], check=True,
                                 capture_output=True, text=True).stdout.strip()
            other = export(args.against, Path(tempfile.mkdtemp(dir=tmp)))
            trees[rev] = LiveStack(Path(tmp) / "other", web_processes=1, root=other)
        started = []
        try:
            for stack in trees.values():
                started.append(stack.start())
            measure(trees, args.games, speeds)
        finally:
            for stack in started:
                stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
