"""The auction of a free game as the tests meet it (tests/web/test_web_auction*.py): each language's
words for the calls, seats and prompts, a free game opened on a phone, and "New game" until the
server's answer puts the player at the call a test wants."""

from __future__ import annotations

import re

from support.live_stack import PHONE
from support.web_helpers import is_run_answer

NAMING = ("C", "D", "H", "S", "NT")


WORDS = {
    "en": {
        "seats": ["You", "West", "North", "East"],
        "calls": {"C": "Clubs", "D": "Diamonds", "H": "Hearts", "S": "Spades", "NT": "No trump",
                  "pass": "Pass", "double": "Double", "redouble": "Redouble"},
        "suits": {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades", "NT": "no trump"},
        "your_call": "Your call", "new_game": "New game", "parlee101": "Manille with bidding, to 101",
        "manillen": "Flemish manillen (to 21)", "muette": "Silent manille", "parlee": "Manille with bidding", "game_to": "Game (to {n})",
        "doubled": "doubled", "redoubled": "redoubled", "muette_start": re.compile(r"turns? up"),
    },
    "fr": {
        "seats": ["Vous", "Ouest", "Nord", "Est"],
        "calls": {"C": "Trèfle", "D": "Carreau", "H": "Cœur", "S": "Pique", "NT": "Sans atout",
                  "pass": "Passe", "double": "Contre", "redouble": "Surcontre"},
        "suits": {"C": "trèfle", "D": "carreau", "H": "cœur", "S": "pique", "NT": "sans-atout"},
        "your_call": "Votre annonce", "new_game": "Nouvelle partie", "parlee101": "Parlée, en 101",
        "manillen": "Manillen (en 21)", "muette": "Muette", "parlee": "Parlée", "game_to": "Partie (en {n})",
        "doubled": "contré", "redoubled": "surcontré", "muette_start": re.compile(r"retourne"),
    },
    "nl": {
        "seats": ["U", "West", "Noord", "Oost"],
        "calls": {"C": "Klaveren", "D": "Ruiten", "H": "Harten", "S": "Schoppen", "NT": "Zonder troef",
                  "pass": "Pas", "double": "Kontra", "redouble": "Rekontra"},
        "suits": {"C": "klaveren", "D": "ruiten", "H": "harten", "S": "schoppen", "NT": "zonder troef"},
        "your_call": "Uw bod", "new_game": "Nieuwe partij", "parlee101": "Manille met bieden, tot 101",
        "manillen": "Vlaams manillen (tot 21)", "muette": "Stille manille", "parlee": "Manille met bieden", "game_to": "Partij (tot {n})",
        "doubled": "gekontreerd", "redoubled": "gerekontreerd", "muette_start": re.compile(r"draai(t|en)? .* om"),
    },
}


LOCALES = {"en": "en-GB", "fr": "fr-BE", "nl": "nl-BE"}


def is_new_run(response) -> bool:
    return is_run_answer(response) and response.request.method == "POST"


def open_free(visitor, lang: str, speed: str = "instant", viewport=PHONE):
    page = visitor(viewport=viewport, locale=LOCALES[lang], has_touch=True, is_mobile=True)
    with page.expect_response(is_new_run) as info:
        page.goto(f"/free?lang={lang}&speed={speed}")
    return page, info.value.json()


def unfold_choices(page) -> None:
    """Free play's choices, folded on a phone (and again after each "New game" there), unfolded."""
    box = page.locator("details.variant-box")
    if not box.evaluate("d => d.open"):
        box.locator("summary").click()


def choose(page, label: str) -> None:
    """Check the variant ``label`` in free play's choices."""
    unfold_choices(page)
    page.get_by_role("radio", name=re.compile("^" + re.escape(label))).check()


def new_game(page, lang: str) -> dict:
    unfold_choices(page)
    with page.expect_response(is_new_run) as info:
        page.get_by_role("button", name=WORDS[lang]["new_game"]).click()
    assert info.value.status == 201, info.value.text()
    return info.value.json()


#: Each line the log is given, with the score panel's contract as it reads at that moment.
WATCH_LOG = """() => {
  window.__seen = [];
  new MutationObserver((records) => {
    const panel = document.querySelector('#scores .trump').textContent;
    for (const r of records) for (const n of r.addedNodes) window.__seen.push([n.textContent, panel]);
  }).observe(document.getElementById('log'), { childList: true });
}"""


def deal_until(visitor, lang: str, label: str, wanted, per_context: int = 45, contexts: int = 6):
    """"New game" of the variant ``label`` until the server's answer satisfies ``wanted(view)``;
    ``window.__seen`` then holds that game's log lines, each with the panel's contract then."""
    for _ in range(contexts):
        page, _ = open_free(visitor, lang)
        page.evaluate(WATCH_LOG)
        choose(page, label)
        for _ in range(per_context):
            page.evaluate("() => { window.__seen = []; }")
            run = new_game(page, lang)
            if run["status"] == "playing" and wanted(run["view"]):
                return page, run
        page.close()
    raise AssertionError(f"no deal of {label} came to {wanted.__doc__} in {contexts * per_context} games")


def call_group(page, lang: str):
    return page.get_by_role("group", name=WORDS[lang]["your_call"])
