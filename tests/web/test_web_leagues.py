"""Leagues and duels in a real Chromium, two visitors in two browser contexts (two players):
one creates a league and copies its link, the other (on a phone, in French) joins through it,
both play the day, both see the league's board; a duel's link played in a second context, then
both results side by side, and a result's analysis.  With axe-core on the new pages."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import expect

from support.live_stack import PHONE

from support.web_helpers import axe_serious, nickname_box, play_game, submit_nickname_and_wait_rank

CLIPBOARD = ["clipboard-read", "clipboard-write"]


def copied_link(page, label: re.Pattern) -> str:
    """Press the link box's Copy button and read the clipboard: what the visitor would paste."""
    page.get_by_role("button", name=label).first.click()
    expect(page.get_by_role("status").filter(has_text=re.compile("copied|copié", re.I)).first).to_be_visible()
    return page.evaluate("() => navigator.clipboard.readText()")


def tab_to(page, target, limit: int = 80) -> None:
    """Press Tab until ``target`` has the focus, as a keyboard user reaches it."""
    for _ in range(limit):
        if target.evaluate("e => e === document.activeElement"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{limit} presses of Tab never reached {target}")


def play_the_day(page, nickname: str, lang: str) -> None:
    page.goto(f"/?lang={lang}&speed=instant")
    box = nickname_box(page) if lang == "en" else page.get_by_role("textbox", name="Pseudo")
    play_game(page, "mouse", box)
    if lang == "en":
        submit_nickname_and_wait_rank(page, nickname)
        return
    box.fill(nickname)
    page.keyboard.press("Enter")
    # in the results (the table's ticker, hidden from view, says it too)
    expect(page.locator("#end").get_by_text(re.compile(r"Rang\s*#\s*\d+\s+sur\s+\d+")).first).to_be_visible(timeout=20_000)


def test_two_players_make_a_league_play_the_day_and_see_its_board(visitor, site, shot):
    tag = uuid.uuid4().hex[:6]
    ada_name, bob_name, league_name = f"Ada{tag}", f"Bob{tag}", f"Famille <b>{tag}</b>"
    ada = visitor(permissions=CLIPBOARD)
    ada.goto("/leagues?lang=en")
    expect(ada.get_by_text(re.compile("in no league yet", re.I))).to_be_visible()
    ada.get_by_role("textbox", name="Name of the league").fill(league_name)
    # no name is asked for: a league shows the nickname of a verified game, none before
    expect(ada.get_by_text(re.compile("nickname of your first verified game", re.I))).to_be_visible()
    assert ada.get_by_role("textbox", name=re.compile("your name", re.I)).count() == 0
    ada.get_by_role("button", name="Create the league").click()
    card = ada.locator("details.league-card[open]")
    expect(card.locator(":scope > summary")).to_contain_text(league_name)  # as text, never markup
    assert card.locator(":scope > summary b").count() == 0
    link = copied_link(ada, re.compile("copy the link", re.I))
    assert re.fullmatch(re.escape(site) + r"/leagues/join/[A-Za-z0-9_-]{38}", link), link
    assert link == card.get_by_role("textbox", name=re.compile("invitation link", re.I)).input_value()
    shot(ada, "leagues-created")
    assert not axe_serious(ada, "leagues page")

    # the friend opens the link on a phone, in French, never having played
    bob = visitor(viewport=PHONE, locale="fr-BE", has_touch=True, is_mobile=True)
    bob.goto(link + "?lang=fr")
    invite = bob.get_by_role("heading", name=re.compile("invité·e dans la ligue", re.I))
    expect(invite).to_contain_text(league_name)
    expect(bob.get_by_text("1 membre")).to_be_visible()
    assert not axe_serious(bob, "invite page, phone, fr")
    invited = bob.get_by_role("region", name=re.compile("invité·e dans la ligue", re.I))
    # by keyboard alone: Tab to the button, Enter joins
    tab_to(bob, invited.get_by_role("button", name=re.compile("rejoindre", re.I)))
    bob.keyboard.press("Enter")
    expect(bob.get_by_role("heading", name=re.compile("Vous avez rejoint", re.I))).to_be_visible()
    assert "/leagues/join/" not in bob.url
    mine = bob.locator("details.league-card[open]")
    expect(mine.locator(":scope > summary")).to_contain_text("2 membres")
    mine.get_by_text(re.compile(r"Membres \(2\)")).click()
    expect(mine.get_by_role("listitem").filter(has_text="propriétaire")).to_contain_text("(pas encore de nom)")
    assert mine.get_by_role("button", name=re.compile("retirer", re.I)).count() == 0  # not the owner
    shot(bob, "leagues-joined-phone-fr")

    # both play the day; each one's end of game says where they stand in the league
    play_the_day(ada, ada_name, "en")
    expect(ada.get_by_role("link", name=f"in {league_name}: 1st of 1 today")).to_be_visible(timeout=20_000)
    play_the_day(bob, bob_name, "fr")
    standing = bob.locator(".standings a").first
    expect(standing).to_contain_text(" sur 2 aujourd'hui", timeout=20_000)
    assert re.fullmatch(rf"dans {re.escape(league_name)} : (1er|2e) sur 2 aujourd'hui", standing.inner_text())

    # both see the league's board: a tab beside everyone's, its two members, their public ranks
    for page, lang, tab_everyone in ((ada, "en", "Everyone"), (bob, "fr", "Tout le monde")):
        page.goto(f"/leaderboard?lang={lang}")
        tabs = page.get_by_role("group", name=re.compile("board of|classement de", re.I))
        expect(tabs.get_by_role("button", name=tab_everyone)).to_have_attribute("aria-pressed", "true")
        if page is bob:  # by keyboard: Tab to the league's tab, Space presses it
            tab_to(page, tabs.get_by_role("button", name=league_name))
            page.keyboard.press("Space")
        else:
            tabs.get_by_role("button", name=league_name).click()
        expect(tabs.get_by_role("button", name=league_name)).to_have_attribute("aria-pressed", "true")
        assert "league=" in page.url
        table = page.locator("table.league-board")
        expect(table.get_by_role("row")).to_have_count(3)  # the heading and the two members
        for name in (ada_name, bob_name):
            expect(table.get_by_role("row").filter(has_text=name)).to_be_visible()
        expect(table.locator("tr.mine")).to_contain_text(ada_name if page is ada else bob_name)
        expect(table.locator("tbody tr").first).to_contain_text(re.compile(r"#?\d+\D+\d+"))
    shot(bob, "league-board-phone-fr")
    assert not axe_serious(ada, "league board") and not axe_serious(bob, "league board, phone, fr")
    # the page is reloaded on a league's tab and keeps it (a link to it can be sent too)
    ada.reload()
    expect(ada.locator("table.league-board")).to_be_visible()


def test_a_duel_played_in_a_second_context_then_both_results(visitor, site, live, shot):
    ada = visitor(permissions=CLIPBOARD)
    ada.goto("/free?lang=en&speed=instant")
    again = ada.get_by_role("button", name=re.compile("play again", re.I))
    first = play_game(ada, "mouse", again)
    seed = first.last["seed"]
    ada.get_by_role("button", name="Challenge a friend").click()
    expect(ada.get_by_role("heading", name="Your challenge")).to_be_focused()
    link = copied_link(ada, re.compile("copy the link", re.I))
    assert re.fullmatch(re.escape(site) + r"/duel/[A-Za-z0-9_-]{22}", link), link
    assert seed not in link and seed[:16] not in link
    assert not axe_serious(ada, "duel offer")

    bob = visitor()
    bob.goto(link + "?lang=en&speed=instant")
    expect(bob.locator("#mode-note")).to_contain_text(
        f"challenges you: {first.last['result']['rank_score']} to beat")
    game = play_game(bob, "mouse", bob.get_by_role("heading", name="Results side by side"))
    results = bob.locator("table.duel-table")
    heads = results.locator("thead th")
    expect(heads.nth(1)).to_contain_text("Your friend")
    expect(heads.nth(2)).to_contain_text("You")
    deals = max(len(first.last["view"]["deals"]), len(game.last["view"]["deals"]))
    expect(results.locator("tbody tr")).to_have_count(deals)
    # deal 1's card points, as each game scored them
    row = results.locator("tbody tr").first
    expect(row.locator("td").nth(0)).to_contain_text(str(first.last["view"]["deals"][0]["points"][0]))
    expect(row.locator("td").nth(1)).to_contain_text(str(game.last["view"]["deals"][0]["points"][0]))
    expect(results.locator("tfoot")).to_contain_text(str(game.last["result"]["rank_score"]))
    assert not bob.get_by_role("button", name=re.compile("play again", re.I)).count()  # played once
    shot(bob, "duel-results")
    assert not axe_serious(bob, "duel results")

    # the challenger's game, analysed from the friend's page
    bob.get_by_role("button", name="Analyse the game of your friend").click()
    expect(bob.get_by_role("heading", name="Analysis of your friend's game")).to_be_visible()
    expect(bob.locator("#analysis .an-body")).not_to_have_attribute("aria-busy", "true", timeout=120_000)
    expect(bob.locator("#analysis .error")).to_have_count(0)

    # the challenger opens the link again: the two results
    ada.goto(link + "?lang=en")
    expect(ada.get_by_role("heading", name="Your challenge")).to_be_visible()
    expect(ada.locator("table.duel-table thead th").nth(2)).to_contain_text("Your friend")
    expect(ada.locator("table.duel-table thead th").nth(1)).to_contain_text("You")
    assert ada.locator("#play-area").is_hidden()

    # a day later the friend's run has gone (practice runs are kept a day): the link still shows
    # what the duel kept of both games
    from service.runs import RunStore
    from service.store import connect

    connect(live.redis.url).delete(RunStore.key(game.last["run_id"]))
    bob.watch.allow(r"404.*/api/v1/runs/")  # the page asks for its run and is told it has gone
    bob.goto(link + "?lang=en")
    expect(bob.get_by_role("heading", name=f"Your friend's challenge: {first.last['result']['rank_score']} to beat")
           ).to_be_visible()
    expect(bob.locator("table.duel-table tbody tr")).to_have_count(deals)
    assert bob.locator("#play-area").is_hidden()
