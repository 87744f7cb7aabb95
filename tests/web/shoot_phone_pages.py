"""The phone's pages as docs/screenshots shows them (not a test):
``.venv/bin/python tests/web/shoot_phone_pages.py``

Starts its own stack on its fixed day (as the browser tests do) and, in each language, on a
360×740 touch phone in Chromium: today's table after a few cards (table-phone-LANG.png), the
result once the game is verified (result-phone-LANG.png), the day's board (board-phone-LANG.png)
and free play with its choices unfolded above the table (free-phone-LANG.png).  Each picture is
one screen, as the phone shows it; look at them before committing them.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the support package

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from support.live_stack import CHROMIUM_ARGS, LiveStack, chromium_path  # noqa: E402
from support.web_helpers import PLAY_TODAY, Game, hand, is_run_answer, play_game, play_one, watch_play_requests  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PHONE = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True}
NICKNAME = re.compile("nickname|pseudo|bijnaam", re.I)


def shoot(browser, stack, lang: str) -> None:
    ctx = browser.new_context(base_url=stack.base, locale={"fr": "fr-BE", "nl": "nl-BE", "en": "en-GB"}[lang], **PHONE)
    ctx.add_init_script(stack.browser_clock())
    page = ctx.new_page()
    page.goto(f"/?lang={lang}&speed=instant")
    page.get_by_role("button", name=PLAY_TODAY).tap()
    random.seed(7)
    game = Game()
    watch_play_requests(page, game)
    for _ in range(3):
        play_one(page, game, "tap")
    page.wait_for_timeout(300)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(OUT / f"table-phone-{lang}.png"))
    box = page.get_by_role("textbox", name=NICKNAME)
    play_game(page, "tap", box, game=game)
    box.fill(f"Shot{lang.upper()}")
    page.keyboard.press("Enter")
    expect(page.locator("#end .rank-line")).to_contain_text(re.compile(r"\d"), timeout=30_000)
    page.locator("#end").evaluate("e => e.scrollIntoView()")
    page.wait_for_timeout(300)
    page.screenshot(path=str(OUT / f"result-phone-{lang}.png"))
    page.goto(f"/leaderboard?lang={lang}")
    expect(page.locator("#board-list table.board")).to_be_visible()
    page.locator("#board-period").evaluate("e => e.scrollIntoView()")
    page.screenshot(path=str(OUT / f"board-phone-{lang}.png"))
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST"):
        page.goto(f"/free?lang={lang}&speed=instant")
    expect(hand(page).get_by_role("button").first).to_be_visible()
    page.locator("details.variant-box summary").tap()
    page.wait_for_timeout(200)
    page.screenshot(path=str(OUT / f"free-phone-{lang}.png"))
    ctx.close()


def main() -> None:
    OUT.mkdir(exist_ok=True)
    with LiveStack() as stack, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        for lang in ("fr", "nl", "en"):
            shoot(browser, stack, lang)
            print(f"{lang}: table, result, board and free play saved in {OUT}")
        browser.close()


if __name__ == "__main__":
    main()
