"""Figures for a first visit of the table (not a test): ``.venv/bin/python tests/web/measure_first_visit.py``

Starts its own Redis + RQ worker + gunicorn (as the browser tests do), then with Debian's Chromium:

1. bytes transferred for a first visit of / (a new visitor, empty cache): the HTML, the JS, the CSS
   and the rest, from the Resource Timing entries (transferSize, encodedBodySize);
2. time to interactive: from navigation start to the welcome's "Play today's game" button (a new
   visitor's first view), and to the first enabled card in the hand once it is pressed at once (at
   the default pace, as a visitor sees it, and at ?speed=instant);
3. the play round trip: p50 / p90 of the ``performance.measure("play-rtt")`` entries the page
   records, over a whole game played with the mouse.

Options: --url BASE measures a server already running instead (no stack is started).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the support package

from playwright.sync_api import sync_playwright  # noqa: E402

from support.live_stack import CHROMIUM_ARGS, LiveStack, chromium_available, chromium_path  # noqa: E402
from support.web_helpers import PLAY_TODAY, Game, enabled_cards, nickname_box, play_game, watch_play_requests  # noqa: E402

#: Records when an enabled card first shows in the hand (before any page script runs).
FIRST_CARD_JS = """
(() => {
  const ready = () => [...document.querySelectorAll('[role="toolbar"]')].some(bar =>
      /hand|main/i.test(bar.getAttribute('aria-label') || '') &&
      [...bar.querySelectorAll('button')].some(b => b.getAttribute('aria-disabled') !== 'true' && !b.disabled));
  const obs = new MutationObserver(() => {
    if (window.__firstCard === undefined && ready()) {
      window.__firstCard = performance.now();
      obs.disconnect();
    }
  });
  obs.observe(document, { subtree: true, childList: true, attributes: true,
                          attributeFilter: ['aria-disabled', 'disabled'] });
})();
"""

RESOURCES_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const rows = [{ name: nav.name, type: 'document', transfer: nav.transferSize, body: nav.encodedBodySize,
                  decoded: nav.decodedBodySize }];
  for (const r of performance.getEntriesByType('resource')) {
    rows.push({ name: r.name, type: r.initiatorType, transfer: r.transferSize, body: r.encodedBodySize,
                decoded: r.decodedBodySize });
  }
  return rows;
}"""


def kind(row: dict) -> str:
    path = row["name"].split("?")[0]
    if row["type"] == "document":
        return "html"
    if path.endswith(".js"):
        return "js"
    if path.endswith(".css"):
        return "css"
    if "/api/" in path:
        return "api"
    return "other"


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1]


def first_visit(browser, base: str, query: str) -> tuple[list[dict], float, float]:
    """The resources of a first visit, when the welcome's button showed and when the first
    playable card did (pressing the button as soon as it shows)."""
    ctx = browser.new_context(base_url=base, viewport={"width": 1280, "height": 800}, locale="en-GB")
    ctx.add_init_script(FIRST_CARD_JS)
    page = ctx.new_page()
    page.goto(f"/?{query}")
    play = page.get_by_role("button", name=PLAY_TODAY)
    play.wait_for(timeout=60_000)
    welcome = page.evaluate("() => performance.now()")
    play.click()
    enabled_cards(page).first.wait_for(timeout=60_000)
    page.wait_for_function("() => window.__firstCard !== undefined")
    page.wait_for_load_state("networkidle")
    tti = page.evaluate("() => window.__firstCard")
    rows = page.evaluate(RESOURCES_JS)
    ctx.close()
    return rows, welcome, tti


def game_round_trips(browser, base: str) -> tuple[list[float], int]:
    ctx = browser.new_context(base_url=base, viewport={"width": 1280, "height": 800}, locale="en-GB")
    page = ctx.new_page()
    page.goto("/free?lang=en&speed=instant")
    game = Game()
    watch_play_requests(page, game)
    play_game(page, "mouse", page.get_by_role("button", name="Play again").or_(nickname_box(page)), game=game)
    rtts = page.evaluate("() => performance.getEntriesByType('measure')"
                         ".filter(m => m.name === 'play-rtt').map(m => m.duration)")
    ctx.close()
    return rtts, len(game.plays)


def measure(base: str) -> None:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        rows, welcome, tti_normal = first_visit(browser, base, "lang=en")
        _rows, _welcome, tti_instant = first_visit(browser, base, "lang=en&speed=instant")
        rtts, plays = game_round_trips(browser, base)
        browser.close()

    print(f"First visit of {base}/?lang=en (new visitor, empty cache, Chromium {chromium_path()})")
    totals: dict[str, list[int]] = {}
    for row in rows:
        t = totals.setdefault(kind(row), [0, 0, 0, 0])
        t[0] += 1
        t[1] += row["transfer"]
        t[2] += row["body"]
        t[3] += row["decoded"]
    print(f"  {'kind':<6} {'files':>5} {'transferred':>12} {'body (encoded)':>15} {'body (decoded)':>15}")
    for k in ("html", "js", "css", "other", "api"):
        if k in totals:
            n, tr, body, dec = totals[k]
            print(f"  {k:<6} {n:>5} {tr:>12,} {body:>15,} {dec:>15,}")
    page_kinds = [totals.get(k, [0, 0, 0, 0]) for k in ("html", "js", "css")]
    print(f"  HTML+JS+CSS: {sum(t[1] for t in page_kinds):,} bytes transferred "
          f"({sum(t[2] for t in page_kinds):,} encoded body, {sum(t[3] for t in page_kinds):,} decoded); "
          f"everything: {sum(t[1] for t in totals.values()):,} bytes in {sum(t[0] for t in totals.values())} files")
    print(f"The welcome's button shown (navigation start -> Play today's game, at most): {welcome:,.0f} ms")
    print(f"Time to interactive (navigation start -> first enabled card, the button pressed at once): "
          f"{tti_normal:,.0f} ms at the default pace, {tti_instant:,.0f} ms at ?speed=instant")
    if rtts:
        print(f"Play round trip ('play-rtt' measures, {len(rtts)} of {plays} plays, one whole free game): "
              f"p50 {percentile(rtts, 50):.1f} ms, p90 {percentile(rtts, 90):.1f} ms, max {max(rtts):.1f} ms")
    else:
        print(f"Play round trip: the page recorded no 'play-rtt' measure over {plays} plays")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="measure this running site instead of starting one")
    args = ap.parse_args(argv)
    if not chromium_available():
        print(f"no Chromium found at {chromium_path()} (set $MANILLE_CHROMIUM)", file=sys.stderr)
        return 2
    if args.url:
        measure(args.url.rstrip("/"))
    else:
        with LiveStack() as stack:
            measure(stack.base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
