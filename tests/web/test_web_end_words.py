"""The words after a game: plural forms as each language has them (Intl.PluralRules: French says
"0 joueur", English "0 players"), a rank and a comparison that agree whatever the count, plain
words for the preview and the deal lines, and the table giving way to the results once over."""

from __future__ import annotations

import re
import uuid

import requests
from playwright.sync_api import expect

from support.live_stack import PHONE
from support.web_helpers import open_ranked, play_game, submit_nickname_and_wait_rank

#: The page's own catalogue and words, as the page has them loaded (its language is the page's).
WORDS_JS = """async ({cases}) => {
  const { t, loadCatalogue } = await import('/static/js/i18n.js');
  await loadCatalogue();  // the page's own call may still be on its way: the same language, loaded once more
  const { standingWords } = await import('/static/js/standing.js');
  return {
    plurals: cases.map(([key, count]) => t(key, { count, seat: 'W', lo: '620', hi: '690', from: '620', to: '630',
                                                   score: '620' })),
    standing: [[1, 1, 0], [1, 2, 1], [2, 2, 0], [1, 3, 2], [2, 3, 1], [3, 10, 7]].map(([rank, total, beaten]) =>
      standingWords({ rank, total, beaten })),
  };
}"""

CASES = [["histSummary", 0], ["histSummary", 1], ["histSummary", 2], ["histBar", 0], ["histBar", 1], ["histBar", 3],
         ["cardsLeft", 0], ["cardsLeft", 1], ["cardsLeft", 2], ["streak", 1], ["streak", 2],
         ["dayPlayers", 0], ["dayPlayers", 1], ["dayPlayers", 21]]

EXPECTED = {
    "en": {
        "plurals": ["Scores of 0 players, from 620 to 690.", "One score so far: 620.", "Scores of 2 players, from 620 to 690.",
                    "620 to 630: 0 players", "620 to 630: 1 player", "620 to 630: 3 players",
                    "W: 0 cards", "W: 1 card", "W: 2 cards", "Streak: 1 day", "Streak: 2 days in a row",
                    "No one played", "1 player", "21 players"],
        "standing": ["You are the first to play this day's game: no one to compare with yet.",
                     "Better than the other player so far.", "The other player so far did as well or better.",
                     "Better than all 2 other players so far.", "Better than 50% of the 2 other players so far.",
                     "Better than 77% of the 9 other players so far."],
        "ranks": ["Rank #1 of 1", "Rank #1 of 2", "Rank #2 of 2", "Rank #1 of 3", "Rank #2 of 3", "Rank #3 of 10"],
    },
    "fr": {  # French puts 0 with 1: "0 joueur", "0 carte"
        "plurals": ["Scores de 0 joueur, de 620 à 690.", "Un seul score pour l'instant : 620.",
                    "Scores de 2 joueurs, de 620 à 690.", "De 620 à 630 : 0 joueur", "De 620 à 630 : 1 joueur",
                    "De 620 à 630 : 3 joueurs", "W : 0 carte", "W : 1 carte", "W : 2 cartes", "Série : 1 jour",
                    "Série : 2 jours d'affilée", "Personne n'a joué", "1 joueur", "21 joueurs"],
        "standing": ["Vous êtes le premier à jouer la partie de ce jour : personne à qui vous comparer pour l'instant.",
                     "Mieux que l'autre joueur pour l'instant.", "L'autre joueur a fait aussi bien ou mieux pour l'instant.",
                     "Mieux que les 2 autres joueurs pour l'instant.", "Mieux que 50 % des 2 autres joueurs pour l'instant.",
                     "Mieux que 77 % des 9 autres joueurs pour l'instant."],
        "ranks": ["Rang #1 sur 1", "Rang #1 sur 2", "Rang #2 sur 2", "Rang #1 sur 3", "Rang #2 sur 3", "Rang #3 sur 10"],
    },
    "nl": {
        "plurals": ["Scores van 0 spelers, van 620 tot 690.", "Nog maar één score: 620.", "Scores van 2 spelers, van 620 tot 690.",
                    "620 tot 630: 0 spelers", "620 tot 630: 1 speler", "620 tot 630: 3 spelers",
                    "W: 0 kaarten", "W: 1 kaart", "W: 2 kaarten", "Reeks: 1 dag", "Reeks: 2 dagen op rij",
                    "Niemand speelde", "1 speler", "21 spelers"],
        "standing": ["U speelt de partij van deze dag als eerste: nog niemand om u mee te vergelijken.",
                     "Beter dan de andere speler tot nu toe.", "De andere speler deed het tot nu toe even goed of beter.",
                     "Beter dan beide andere spelers tot nu toe.", "Beter dan 50% van de 2 andere spelers tot nu toe.",
                     "Beter dan 77% van de 9 andere spelers tot nu toe."],
        "ranks": ["Rang #1 van 1", "Rang #1 van 2", "Rang #2 van 2", "Rang #1 van 3", "Rang #2 van 3", "Rang #3 van 10"],
    },
}


def _plain(text: str) -> str:
    return re.sub(r"[\u00a0\u202f]", " ", text)


def test_plural_forms_follow_each_languages_rules(visitor):
    for lang in ("en", "fr", "nl"):
        page = visitor()
        page.goto(f"/rules?lang={lang}")
        got = page.evaluate(WORDS_JS, {"cases": CASES})
        want = EXPECTED[lang]
        assert [_plain(x) for x in got["plurals"]] == want["plurals"], lang
        assert [_plain(x["compare"]) for x in got["standing"]] == want["standing"], lang
        assert [_plain(x["rank"]) for x in got["standing"]] == want["ranks"], lang


#: What the comparison says for a rank among `total`, `beaten` of them below (the day's histogram).
def _compare_en(total: int, beaten: int) -> str:
    others = total - 1
    if not others:
        return "You are the first to play this day's game"
    if beaten >= others:
        return "Better than the other player so far." if others == 1 else f"Better than all {others} other players so far."
    if beaten == 0:
        return ("The other player so far did as well or better." if others == 1
                else f"The {others} other players so far all did as well or better.")
    return f"Better than {100 * beaten // others}% of the {others} other players so far."


def _finished_ranked_game(page, lang: str, how: str):
    open_ranked(page, f"lang={lang}&speed=instant")
    box = page.get_by_role("textbox", name=re.compile("nickname|pseudo", re.I))
    return play_game(page, how, box), box


def test_the_end_of_a_ranked_game_speaks_plainly_and_the_table_gives_way(visitor, site):
    page = visitor()
    game, _box = _finished_ranked_game(page, "en", "mouse")
    end = page.locator("#end")
    expect(end).to_be_visible()
    # the table has given way: no felt, no hand, no last deal's banner above the results
    expect(page.locator("#felt")).to_be_hidden()
    expect(page.locator("#banner")).to_be_hidden()
    text = end.inner_text()
    assert not re.search(r"preview|margin", text, re.I), f"jargon on the end screen: {text!r}"
    score = game.last["result"]["rank_score"]
    expect(end.locator(".preview")).to_have_text(re.compile(rf"^Your score: {score}\. It counts once the server"))
    deals = game.last["view"]["deals"]
    lines = end.locator(".deal-lines li")
    expect(lines).to_have_count(len(deals))
    for d, line in zip(deals, lines.all()):
        side = 0 if d["scored"][0] > 0 else 1
        scored = d["scored"][side]
        words = f"{scored} game point{'' if scored == 1 else 's'}"
        expect(line).to_have_text(f"Deal {d['deal'] + 1}: we took {d['points'][0]} card point"
                                  f"{'' if d['points'][0] == 1 else 's'}, they took {d['points'][1]}; "
                                  f"{'we' if side == 0 else 'they'} score {words}")

    rank, total = submit_nickname_and_wait_rank(page, f"words-{uuid.uuid4().hex[:6]}")
    # the preview has become the score; the comparison agrees with the rank, whatever the count
    expect(end.locator(".preview")).to_have_text(f"Your score: {score}")
    day = requests.get(f"{site}/api/v1/challenges/today", timeout=10).json()["date"]
    bins = requests.get(f"{site}/api/v1/leaderboards/days/{day}/histogram", timeout=10).json()["bins"]
    beaten = sum(b["count"] for b in bins if b["score"] < score)
    shown_total = max(total, rank)
    expect(end.locator(".standing")).to_contain_text(_compare_en(shown_total, beaten))
    expect(end.locator(".histogram figcaption")).to_have_text(re.compile(r"^(One score so far|Scores of \d+ players)"))

    # a later visit: the results, not an empty table with the last deal's banner
    page.reload()
    expect(end.locator(".rank-line")).to_be_visible()
    expect(page.locator("#felt")).to_be_hidden()
    expect(page.locator("#banner")).to_be_hidden()


def test_the_end_on_a_phone_in_french(visitor):
    page = visitor(viewport=PHONE, has_touch=True, is_mobile=True, locale="fr-BE")
    _game, box = _finished_ranked_game(page, "fr", "tap")
    end = page.locator("#end")
    expect(page.locator("#felt")).to_be_hidden()
    text = end.inner_text()
    assert not re.search(r"aperçu|écart", text, re.I), f"jargon on the end screen: {text!r}"
    expect(end.locator(".deal-lines li").first).to_have_text(re.compile(
        r"^Donne 1\s: nous avons pris \d+ points? de cartes, eux \d+\s; (nous marquons|ils marquent) \d+ points? de partie$"))
    box.fill(f"mots-{uuid.uuid4().hex[:6]}")
    box.press("Enter")
    expect(end.locator(".rank-line")).to_have_text(re.compile(r"^Rang #\d+ sur \d+$"))
    expect(end.locator(".streak")).to_have_text(re.compile(r"^Série\s: (1 jour|\d+ jours d'affilée)$"))
