"""Driving the table page like a player would: find the hand by its role and name, wait for a
playable card, play it with the keyboard, the mouse or a tap, until the game-end appears.

Each play is checked against the server's own answer: once the POST /plays answer arrives, the
hand on the page must show exactly the answer's ``view.hand``, with exactly ``view.legal``
enabled (the rest aria-disabled), and every play is sent exactly once.
"""

from __future__ import annotations

import json
import random
import re
import time
from dataclasses import dataclass, field
from urllib.parse import urlparse

import requests
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page, expect

HAND_NAME = re.compile("hand|main", re.I)  # "Your hand", "Votre main", "Uw hand": the one toolbar
ENABLED = 'button:not([aria-disabled="true"]):not([disabled])'
PLAYS_PATH = re.compile(r"^/api/v1/runs/[^/]+/plays$")
RUN_PATH = re.compile(r"^/api/v1/runs(/[^/]+)?$")

RANKS = {"7": "seven", "8": "eight", "9": "nine", "J": "jack", "Q": "queen", "K": "king",
         "A": "ace", "T": "ten"}
SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def card_name_en(card: str) -> str:
    return f"{RANKS[card[0]]} of {SUITS[card[1]]}"


def number_text(n: int) -> re.Pattern:
    """``n`` as a page may write it in English: 1070, 1,070 (Intl.NumberFormat) or 1 070."""
    digits = f"{abs(n):,}".replace(",", "[,\u00a0\u202f ]?")
    return re.compile(("[-\u2212]" if n < 0 else "") + r"(?<![\d,.])" + digits + r"(?![\d])")


def hand(page: Page) -> Locator:
    """The one toolbar named "Your hand" (in French "Votre main", in Dutch "Uw hand")."""
    return page.get_by_role("toolbar", name=HAND_NAME)


def hand_cards(page: Page) -> Locator:
    return hand(page).get_by_role("button")


def enabled_cards(page: Page) -> Locator:
    return hand(page).locator(ENABLED)


def card_button(page: Page, card: str) -> Locator:
    return hand(page).locator(f'button[data-card="{card}"]')


def nickname_box(page: Page) -> Locator:
    return page.get_by_role("textbox", name=re.compile("nickname", re.I))


def play_again_button(page: Page) -> Locator:
    return page.get_by_role("button", name=re.compile("play again", re.I))


#: The first visit's button that starts today's game (welcome.js), in each language.
PLAY_TODAY = re.compile("play today's game|jouer la partie du jour|speel de partij van vandaag", re.I)


def open_ranked(page: Page, query: str = "lang=en&speed=instant") -> dict:
    """A visitor opens / and, a newcomer, asks for today's game from the welcome; returns the run
    the page opened (POST /api/v1/runs, 201).  (Whether a newcomer is welcomed is
    test_web_first_visit's to check: here a page that starts the game by itself will do too.)"""
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST", timeout=20_000) as info:
        page.goto(f"/?{query}")
        play = page.get_by_role("button", name=PLAY_TODAY)
        play.or_(hand(page).get_by_role("button").first).first.wait_for()
        if play.is_visible():
            play.click()
    assert info.value.status == 201, info.value.text()
    run = info.value.json()
    assert run["kind"] == "ranked" and run["player_token"], run
    return run


def is_plays_request(request) -> bool:
    return request.method == "POST" and bool(PLAYS_PATH.match(urlparse(request.url).path))


def is_plays_answer(response) -> bool:
    return is_plays_request(response.request)


def is_run_answer(response) -> bool:
    """POST /api/v1/runs (a new run) or GET /api/v1/runs/{id} (a resumed one)."""
    path = urlparse(response.url).path
    return bool(RUN_PATH.match(path)) and response.request.method in ("GET", "POST")


_HAND_STATE_JS = """
(bar) => {
  const btns = [...bar.querySelectorAll('button')];
  return {
    cards: btns.map(b => b.dataset.card || ''),
    enabled: btns.filter(b => b.getAttribute('aria-disabled') !== 'true' && !b.disabled)
                 .map(b => b.dataset.card || ''),
  };
}
"""

_HAND_MATCHES_JS = """
([bar, hand, legal]) => {
  const btns = [...bar.querySelectorAll('button')];
  const cards = btns.map(b => b.dataset.card || '').sort();
  const enabled = btns.filter(b => b.getAttribute('aria-disabled') !== 'true' && !b.disabled)
                      .map(b => b.dataset.card || '').sort();
  return JSON.stringify(cards) === JSON.stringify([...hand].sort())
      && JSON.stringify(enabled) === JSON.stringify([...legal].sort());
}
"""


def hand_state(page: Page) -> dict:
    """{"cards": [...], "enabled": [...]} as the page shows them (data-card, in page order)."""
    return hand(page).evaluate(_HAND_STATE_JS)


def wait_hand_matches(page: Page, view: dict, timeout: float = 15_000) -> None:
    """Wait until the hand shows exactly view.hand with exactly view.legal enabled."""
    bar = hand(page).element_handle(timeout=timeout)
    try:
        page.wait_for_function(_HAND_MATCHES_JS, arg=[bar, view["hand"], view["legal"]], timeout=timeout)
    except PlaywrightError as exc:
        shown = hand_state(page)
        raise AssertionError(
            f"the hand never showed the server's view: expected hand {sorted(view['hand'])} "
            f"with enabled {sorted(view['legal'])}; the page shows {shown}") from exc


def focused_card(page: Page) -> str | None:
    """data-card of the focused element when focus is inside the hand toolbar, else None."""
    return page.evaluate("""() => {
      const a = document.activeElement;
      if (!a || !a.closest) return null;
      const bar = a.closest('[role="toolbar"]');
      if (!bar || !/hand/i.test(bar.getAttribute('aria-label') || '')) return null;
      return a.dataset ? (a.dataset.card || '') : '';
    }""")


def tab_into_hand(page: Page, limit: int = 60) -> int:
    """Press Tab until the focus is on a card of the hand; returns how many presses it took."""
    for n in range(limit + 1):
        if focused_card(page):
            return n
        page.keyboard.press("Tab")
    raise AssertionError(f"{limit} presses of Tab never reached the hand toolbar")


def keyboard_focus(page: Page, card: str) -> None:
    """With the focus in the hand: Home, then ArrowRight until ``card`` has the focus."""
    tab_into_hand(page)
    page.keyboard.press("Home")
    n = hand_cards(page).count()
    for _ in range(n + 1):
        if focused_card(page) == card:
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"Home + ArrowRight never focused {card}; focus on {focused_card(page)!r}, "
                         f"hand {hand_state(page)}")


def do_play(page: Page, card: str, how: str) -> None:
    if how == "keyboard":
        keyboard_focus(page, card)
        page.keyboard.press("Enter")
    elif how == "mouse":
        card_button(page, card).click()
    elif how == "tap":
        card_button(page, card).tap()
    else:
        raise ValueError(how)


@dataclass
class Game:
    """What happened while a game was played from the page."""
    plays: list[str] = field(default_factory=list)     # cards the page played, in order
    answers: list[dict] = field(default_factory=list)  # the bodies of the POST /plays answers
    play_requests: int = 0                              # POST /plays requests the page sent

    @property
    def last(self) -> dict | None:
        return self.answers[-1] if self.answers else None


def watch_play_requests(page: Page, game: Game) -> None:
    page.on("request", lambda r: setattr(game, "play_requests", game.play_requests + 1)
            if is_plays_request(r) else None)


def play_one(page: Page, game: Game, how: str, choose=None, timeout: float = 15_000) -> dict:
    """Play one enabled card (``choose(enabled) -> card``; default: a random one) and check the
    page's hand against the server's answer.  Returns the answer (a Run)."""
    expect(enabled_cards(page).first).to_be_visible(timeout=timeout)
    enabled = hand_state(page)["enabled"]
    card = choose(enabled) if choose else random.choice(enabled)
    sent_before = game.play_requests
    try:
        with page.expect_response(is_plays_answer, timeout=timeout) as info:
            do_play(page, card, how)
        answer = info.value
    except PlaywrightError as exc:
        raise AssertionError(
            f"play #{len(game.plays) + 1}: a {how} on {card} sent no play within {timeout / 1000:.0f}s "
            f"(hand before: {enabled}; now {hand_state(page)}; POST /plays sent: "
            f"{game.play_requests - sent_before})") from exc
    assert answer.status == 200, f"POST /plays answered {answer.status}: {answer.text()}"
    run = answer.json()
    body = json.loads(answer.request.post_data or "{}")
    assert body.get("card") == card, f"the page sent {body} after {how} on {card}"
    game.plays.append(card)
    game.answers.append(run)
    assert game.play_requests == sent_before + 1, (
        f"one {how} on {card} sent {game.play_requests - sent_before} POST /plays requests")
    if run["status"] == "playing":
        wait_hand_matches(page, run["view"], timeout)
    return run


def play_game(page: Page, how: str, end: Locator, choose=None, game: Game | None = None,
              max_plays: int = 400, on_turn=None, timeout: float = 15_000) -> Game:
    """Play enabled cards until the server says the game is finished, then wait for ``end``
    (the nickname form, the "Play again" button...) to be visible.

    ``on_turn(game)`` is called before each play (when a card is enabled)."""
    if game is None:
        game = Game()
        watch_play_requests(page, game)
    for _ in range(max_plays):
        if game.last is not None and game.last["status"] == "finished":
            expect(end).to_be_visible(timeout=timeout)
            return game
        if on_turn is not None:
            expect(enabled_cards(page).first).to_be_visible(timeout=timeout)
            on_turn(game)
        play_one(page, game, how, choose, timeout)
    raise AssertionError(f"the game did not end after {max_plays} plays")


def submit_nickname_and_wait_rank(page: Page, nickname: str, keyboard: bool = False,
                                  timeout: float = 20_000) -> tuple[int, int]:
    """Type the nickname in the end form, press Enter, wait for "Rank #N of M"; returns (N, M)."""
    box = nickname_box(page)
    expect(box).to_be_visible(timeout=timeout)
    if keyboard:
        for _ in range(60):
            if box.evaluate("e => e === document.activeElement"):
                break
            page.keyboard.press("Tab")
        else:
            raise AssertionError("Tab never reached the Nickname textbox")
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.type(nickname)
    else:
        box.fill(nickname)
    page.keyboard.press("Enter")
    return wait_rank(page, timeout)


RANK_TEXT = re.compile(r"Rank\s*#\s*([\d.,\u00a0\u202f ]*\d)\s+of\s+([\d.,\u00a0\u202f ]*\d)")


def wait_rank(page: Page, timeout: float = 20_000) -> tuple[int, int]:
    rank = page.locator("#end").get_by_text(RANK_TEXT).first  # the results (the table has given way)
    expect(rank).to_be_visible(timeout=timeout)
    m = RANK_TEXT.search(rank.inner_text())
    assert m, rank.inner_text()
    return int(re.sub(r"\D", "", m.group(1))), int(re.sub(r"\D", "", m.group(2)))


def axe_serious(page: Page, where: str) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    found = []
    for v in Axe().run(page).response["violations"]:
        if v.get("impact") in ("serious", "critical"):
            nodes = "; ".join(f"{n.get('target')}: {n.get('failureSummary', '').splitlines()[-1:]}"
                              for n in v["nodes"][:5])
            found.append(f"[{where}] {v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])} nodes) {nodes}")
    return found


# --- the API, straight, for set-up and for checking what the page did -----------------------------

def api_play_ranked_game(base: str, nickname: str, timeout: float = 60.0) -> dict:
    """A whole ranked game through the API with a new token, submitted and verified.
    Returns {"token", "run", "submission"}."""
    s = requests.Session()
    r = s.post(f"{base}/api/v1/runs", json={}, timeout=10)
    assert r.status_code == 201, r.text
    run = r.json()
    token = run["player_token"]
    h = {"X-Player-Token": token}
    while run["status"] != "finished":
        r = s.post(f"{base}/api/v1/runs/{run['run_id']}/plays",
                   json={"turn": run["turn"], "card": run["view"]["legal"][0]}, headers=h, timeout=10)
        assert r.status_code == 200, r.text
        run = r.json()
    r = s.post(f"{base}/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
               headers=h, timeout=10)
    assert r.status_code == 202, r.text
    url = base + r.json()["status_url"]
    deadline = time.monotonic() + timeout
    while True:
        sub = s.get(url, timeout=10).json()
        if sub["status"] != "queued":
            break
        assert time.monotonic() < deadline, f"submission still queued after {timeout}s"
        time.sleep(0.1)
    assert sub["status"] == "verified", sub
    return {"token": token, "run": run, "submission": sub}


ANALYSIS_MS = 120_000  # a whole game takes ~10 s on this machine; a busy one may take far longer
ASK = {"en": "Analyse this game", "fr": "Analyser cette partie"}


def finish_free_game(page, lang: str):
    """A free game played to its end at the instant speed; returns the end screen's button."""
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST"):
        page.goto(f"/free?lang={lang}&speed=instant")
    ask = page.locator("#end").get_by_role("button", name=ASK[lang])
    play_game(page, "mouse", ask)
    return ask
