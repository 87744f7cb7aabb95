"""Duplicate results on the page: each deal of a game against everyone who played it.

- The end of today's ranked game: a plain line while the verification waits (a verification queue
  with work ahead of it: a job on the stack's own worker that holds until the test lets it go),
  then each deal's field beside the player's result, as the API gives them; the leaderboard's
  Deals view meanwhile says the game is being verified, and shows the deals once it is.
- The Deals view refuses the field of the open day to a visitor who has not played (the API's 403
  ``play_first``): said kindly, with the way to play.
- A closed day (games played that day by the service's own classes, verified by the stack's
  worker): the Deals view, each deal's traveller, another player's play of a deal replayed beside
  one's own trick by trick with the four hands, the review of one's own game with its deals, and
  the boards by matchpoints (final, or how fresh).
- In English and French, on a desktop and on a phone; axe-core on each new view.

Every expectation is read from the API's own answers: nothing depends on which deals the day
brings, or on the clock."""

from __future__ import annotations

import re
import time
import uuid
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

import pytest
import requests
from playwright.sync_api import expect

from support.closed_day import build_matchpoints, play_closed_day
from support.live_stack import PHONE
from service.store import week_id
from support.web_helpers import axe_serious, open_ranked, play_game

#: seat 0 of the closed day's games: four players who play differently, so that results differ
SEAT0_BOTS = ["random-1", "greedy-1", "expert-1", "expert-2"]
VERIFIED_MS = 60_000


def _plain(text: str) -> str:
    return re.sub(r"[\u00a0\u202f]", " ", text).strip()


def _one_decimal(x: float, lang: str = "en") -> str:
    """At most one decimal, as the page's Intl.NumberFormat writes it (half away from zero, no '.0')."""
    text = str(Decimal(repr(x)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    text = text[:-2] if text.endswith(".0") else text
    return text.replace(".", ",") if lang == "fr" else text


def _pct(mp: float | None, lang: str = "en") -> str:
    """A matchpoint percentage as the page writes it (the API's value has its one or two decimals)."""
    if mp is None:
        return "—"
    text = format(mp, "g").replace(".", "," if lang == "fr" else ".")
    return f"{text} %" if lang == "fr" else f"{text}%"


def _get(base: str, path: str, token: str | None = None) -> dict:
    r = requests.get(f"{base}/api/v1{path}", headers={"X-Player-Token": token} if token else {}, timeout=10)
    assert r.status_code == 200, f"{path}: {r.status_code} {r.text}"
    return r.json()


#: Each deal card as the page shows it.
CARDS_JS = """(scope) => [...document.querySelectorAll(scope + ' .field-deal')].map((li) => ({
  deal: Number(li.dataset.deal),
  mp: li.querySelector('.field-mp-value') ? li.querySelector('.field-mp-value').textContent : null,
  you: li.querySelector('.field-you') ? li.querySelector('.field-you').innerText : null,
  facts: li.querySelector('.field-facts').innerText,
  label: li.querySelector('.field-img').getAttribute('aria-label'),
  bars: [...li.querySelectorAll('rect.field-bar')].map((r) => Math.round(Number(r.getAttribute('x')))),
  mine: [...li.querySelectorAll('rect.field-bar.mine')].map((r) => Math.round(Number(r.getAttribute('x')))),
}))"""

YOU_EN = re.compile(r"^You: (\d+) card points?")


def _check_cards(page, scope: str, field: dict, own: dict | None, lang: str = "en") -> None:
    """The deal cards under ``scope`` show the API's field and, if ``own``, the game's own deals."""
    got = {c["deal"]: c for c in page.evaluate(CARDS_JS, scope)}
    mine = {d["deal"]: d for d in (own or {}).get("deals", [])}
    expected = sorted({d["deal"] for d in field["deals"]} | set(mine))
    assert sorted(got) == expected, (sorted(got), expected)
    for d in field["deals"]:
        card, row = got[d["deal"]], mine.get(d["deal"])
        nonzero = [p for p, c in enumerate(d["counts"]) if c]
        assert card["bars"] == nonzero, (d["deal"], card["bars"], nonzero)  # one bar a result's card points
        mean = _one_decimal(d["mean"], lang)
        if lang == "en":
            assert _plain(card["facts"]) == f"{d['results']} played it · mean {mean}", card
            assert _plain(card["label"]).startswith(f"{d['results']} result"), card
        else:
            played = "l'a jouée" if d["results"] == 1 else "l'ont jouée"
            assert _plain(card["facts"]) == f"{d['results']} {played} · moyenne {mean}", card
        if row is None:
            assert card["mine"] == [] and card["mp"] is None, card
            if own is not None:  # the game ended before this deal
                assert card["you"], card
            continue
        assert card["mine"] == [row["us"]], (card, row)
        assert _plain(card["mp"] or "—") == _pct(row["mp"], lang), (card, row)
        you = _plain(card["you"])
        if lang == "en":
            m = YOU_EN.match(you)
            assert m and int(m.group(1)) == row["us"], (you, row)
            assert f"Yours: {row['us']};" in _plain(card["label"]), card
        else:
            assert you.startswith(f"Vous : {row['us']} point"), (you, row)
            assert f"Le vôtre : {row['us']} ;" in _plain(card["label"]), card


# --- the open day -----------------------------------------------------------------------------

@pytest.fixture
def busy_worker(live, tmp_path):
    """The stack's verification worker busy with a job ahead of any new submission, until
    ``release()``: a submission made meanwhile is really pending."""
    import redis
    from rq import Queue

    from service.config import QUEUE_NAME

    gate = tmp_path / "release"
    conn = redis.Redis.from_url(live.redis.url)
    job = Queue(QUEUE_NAME, connection=conn).enqueue_call(
        "subprocess.run", args=(["sh", "-c", f"while [ ! -e {gate} ]; do sleep 0.1; done"],), kwargs={"timeout": 170},
        timeout=180, result_ttl=0, description="tests: the worker is busy")
    deadline = time.monotonic() + 60
    while job.get_status(refresh=True) != "started":  # taken: whatever comes next waits behind it
        assert time.monotonic() < deadline, f"the worker never took the holding job ({job.get_status()})"
        time.sleep(0.05)
    try:
        yield gate.touch
    finally:
        gate.touch()
        conn.close()


def test_the_end_of_a_game_shows_each_deal_against_the_field_once_verified(visitor, live, busy_worker, shot):
    """French, on a phone, played by tap."""
    page = visitor(viewport=PHONE, has_touch=True, is_mobile=True, locale="fr-BE")
    run = open_ranked(page, "lang=fr&speed=instant")
    token = run["player_token"]
    play_game(page, "tap", page.locator("#nickname"))
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/api/v1/submissions")) as info:
        page.locator("#nickname").fill(f"Dupli-{uuid.uuid4().hex[:6]}")
        page.keyboard.press("Enter")
    sub_id = info.value.json()["submission_id"]
    end = page.locator("#end")
    # pending: the plain line, and no deal yet
    expect(end.locator(".verifying")).to_have_text("Vérification en cours…")
    expect(end).to_contain_text("Une fois vérifiée, chacune de vos donnes s'affiche à côté de celles de tous les autres.")
    expect(end.locator(".end-deals")).to_have_count(0)
    assert _get(live.base, f"/submissions/{sub_id}")["status"] == "queued"
    found = axe_serious(page, "end, verification pending")

    # the leaderboard's Deals view, meanwhile: the game is being verified
    board = visitor(viewport=PHONE, has_touch=True, is_mobile=True, locale="fr-BE")
    board.watch.allow(r"HTTP 403: GET \S+/api/v1/leaderboards/days/[-\d]+/deals$")
    board.watch.allow(r"console error: Failed to load resource: the server responded with a status of 403")
    board.add_init_script(f"localStorage.setItem('manille.token', {token!r})")
    board.goto("/leaderboard?lang=fr&view=deals")
    expect(board.locator(".field-refused")).to_have_text(
        "Votre partie du jour est en cours de vérification : les résultats de chaque donne s'affichent dès qu'elle l'est.")
    again = board.get_by_role("button", name="Regarder à nouveau")
    expect(again).to_be_visible()

    busy_worker()  # the verification goes ahead
    expect(end.get_by_text(re.compile(r"Rang #\d+ sur \d+"))).to_be_visible(timeout=VERIFIED_MS)
    deals = end.locator(".end-deals")
    expect(deals.get_by_role("heading", name="Vos donnes face aux autres joueurs")).to_be_visible()
    expect(deals.locator(".field-deal").first).to_be_visible()
    own = _get(live.base, f"/submissions/{sub_id}/deals", token)
    field = _get(live.base, f"/leaderboards/days/{own['date']}/deals", token)
    _check_cards(page, "#end .end-deals", field, own, "fr")
    game_line = _plain(deals.locator(".field-game").inner_text())
    assert game_line.startswith("Vos points de match : " + _pct(own["mp"], "fr")) or (
        own["mp"] is None and game_line.startswith("Pas encore de points de match")), game_line
    expect(deals.get_by_role("link", name="Toutes les donnes du jour, au classement")).to_have_attribute(
        "href", f"/leaderboard?view=deals&day={own['date']}")
    # the open day: no traveller yet
    expect(deals.get_by_role("button", name=re.compile("Tous les résultats"))).to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"
    deals.locator(".field-deal").first.scroll_into_view_if_needed()
    shot(page, "deals-end-phone-fr")
    found += axe_serious(page, "end, deals against the field")

    # the Deals view, looked at again: the same deals, the player's own marked, no traveller (open day)
    again.tap()
    expect(board.locator(".field-deals")).to_be_visible()
    _check_cards(board, "[data-view=deals]", field, own, "fr")
    expect(board.get_by_role("button", name=re.compile("Tous les résultats"))).to_have_count(0)
    expect(board.locator("[data-view=deals]")).to_contain_text("Le jour est encore ouvert")
    assert board.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"
    found += axe_serious(board, "deals view, open day")
    assert found == [], "axe: serious/critical violations:\n" + "\n".join(found)


def test_the_open_days_field_is_refused_kindly_to_a_visitor_who_has_not_played(visitor, shot):
    page = visitor()
    page.watch.allow(r"HTTP 403: GET \S+/api/v1/leaderboards/days/[-\d]+/deals$")
    page.watch.allow(r"console error: Failed to load resource: the server responded with a status of 403")
    with page.expect_response(lambda r: re.search(r"/api/v1/leaderboards/days/[-\d]+/deals$", r.url)) as info:
        page.goto("/leaderboard?lang=en&view=deals")
    assert info.value.status == 403 and info.value.json()["error"] == "play_first", info.value.text()
    view = page.locator("[data-view=deals]")
    expect(view.locator(".field-refused")).to_have_text(
        "Each deal's results are shown once you have played today's game and it is verified: knowing which deals "
        "are rich before playing them would be an unfair edge.")
    expect(view.get_by_role("link", name="Play today's game")).to_have_attribute("href", "/")
    expect(view.locator(".field-deal")).to_have_count(0)
    expect(page.get_by_role("group", name="View").get_by_role("button", name="Deals")).to_have_attribute(
        "aria-pressed", "true")
    expect(page.locator("[data-board=week]")).to_be_hidden()  # a day's deals: no week to choose
    shot(page, "deals-refused")
    found = axe_serious(page, "deals view, refused")
    assert found == [], "axe: serious/critical violations:\n" + "\n".join(found)


# --- a closed day -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def closed(live):
    """Four verified games of a closed day (five days back: no other test plays it), and the day's
    matchpoint board built as the worker builds it."""
    day = live.today() - timedelta(days=5)
    games = play_closed_day(live, day, SEAT0_BOTS, prefix="dup")
    build_matchpoints(live, day)
    return {"day": day.isoformat(), "games": games}


def _as(page, game: dict) -> None:
    """The page is that game's player, on the device that played it."""
    page.add_init_script(f"localStorage.setItem('manille.token', {game['token']!r});"
                         f"localStorage.setItem('manille.submissions', JSON.stringify({{{game['day']!r}: "
                         f"{game['submission_id']!r}}}))")


def _deals_view(page, day: str, lang: str, extra: str = "") -> None:
    page.goto(f"/leaderboard?lang={lang}&view=deals&day={day}{extra}")
    expect(page.locator("[data-view=deals] .field-deals")).to_be_visible()


def _traveller_rows(page) -> list[list[str]]:
    return page.locator("table.traveller tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].slice(0, 4).map(c => c.innerText))")


def _hand_counts(pane) -> list[int]:
    """Cards in each hand of a movie pane (North, West, East, South as drawn), from the visible suit lines."""
    return pane.locator(".hand-lines").evaluate_all("""lists => lists.map(ul => [...ul.querySelectorAll(
      'li > span[aria-hidden]')].reduce((n, s) => n + s.textContent.trim().split(/\\s+/).slice(1)
      .filter(x => x !== '—').length, 0))""")


def _seat_order(pane) -> list[str]:
    return pane.locator(".cmp").evaluate_all("els => els.map(e => e.className)")


def test_a_closed_days_deals_their_traveller_and_another_players_deal_replayed(visitor, live, closed, shot):
    me = closed["games"][0]
    day = closed["day"]
    page = visitor()
    _as(page, me)
    _deals_view(page, day, "en")
    field = _get(live.base, f"/leaderboards/days/{day}/deals")
    own = _get(live.base, f"/submissions/{me['submission_id']}/deals")
    _check_cards(page, "[data-view=deals]", field, own)
    view = page.locator("[data-view=deals]")
    expect(view.locator(".field-game strong")).to_have_text(
        f"Your matchpoints: {_pct(own['mp'])}, the mean over {sum(d['mp'] is not None for d in own['deals'])} deals.")
    shot(page, "deals-closed-desktop")

    # a deal that at least two of the day's games played: its traveller
    k = max(d["deal"] for d in field["deals"] if d["results"] >= 2)
    view.get_by_role("button", name=f"Every result on deal {k + 1}").click()
    travel = page.locator(".traveller-box")
    expect(travel.get_by_role("heading", name=f"Deal {k + 1}: every result")).to_be_focused()
    expect(page).to_have_url(re.compile(rf"[?&]deal={k}\b"))
    trav = _get(live.base, f"/leaderboards/days/{day}/deals/{k}?limit=20")
    expect(travel.locator("table.traveller tbody tr")).to_have_count(len(trav["entries"]))
    rows = _traveller_rows(page)
    for row, e in zip(rows, trav["entries"]):
        nick = f"{e['nickname']} (you)" if e["submission_id"] == me["submission_id"] else e["nickname"]
        assert [_plain(x) for x in row] == [str(e["rank"]), nick, f"{e['us']}–{e['them']}", _pct(e["mp"])], (row, e)
    ours = [e for e in trav["entries"] if e["submission_id"] == me["submission_id"]]
    expect(travel.locator("tr[aria-current=true]")).to_have_count(len(ours))
    assert [e["us"] for e in trav["entries"]] == sorted((e["us"] for e in trav["entries"]), reverse=True)

    # another player's result: replayed beside one's own, trick by trick, the four hands around
    other = next(e for e in trav["entries"] if e["submission_id"] != me["submission_id"])
    travel.get_by_role("button", name=f"Replay deal {k + 1} as {other['nickname']} played it").click()
    movie = page.locator("section.movie")
    expect(movie.get_by_role("heading", name=f"Deal {k + 1}, trick by trick")).to_be_visible()
    panes = movie.locator(".movie-pane")
    played_here = next((d for d in own["deals"] if d["deal"] == k), None)
    # yours beside theirs; or, where you did not play the deal, theirs beside the best (if not the best)
    expect(panes).to_have_count(2 if played_here or other is not trav["entries"][0] else 1)
    if played_here:
        expect(panes.nth(0).get_by_role("heading")).to_have_text(
            f"Yours: {played_here['us']} card points, {_pct(played_here['mp'])}")
        mine_pane, their_pane = panes.nth(0), panes.nth(1)
    else:
        mine_pane, their_pane = None, panes.nth(0)
    best = " the best" if other["rank"] == 1 else ""
    expect(their_pane.get_by_role("heading")).to_have_text(
        f"{other['nickname']},{best}: {other['us']} card points, {_pct(other['mp'])}".replace(",:", ":"))
    theirs = next(d for d in _get(live.base, f"/submissions/{other['submission_id']}/record")["deals"] if d["index"] == k)
    where = movie.locator(".movie-where")
    expect(where).to_have_text("As dealt")
    assert _hand_counts(their_pane) == [8, 8, 8, 8]
    if mine_pane is not None:  # the same four hands for everyone who reached the deal
        assert mine_pane.locator(".hand-lines").all_inner_texts() == their_pane.locator(".hand-lines").all_inner_texts()
    nxt = movie.get_by_role("button", name="Next")
    expect(nxt).to_be_focused()
    for trick in range(1, 9):
        page.keyboard.press("ArrowRight")
        expect(where).to_have_text(f"Trick {trick} of 8")
        cards = their_pane.locator(".trick-cross .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
        assert cards == [p["card"] for p in theirs["tricks"][trick - 1]["plays"]], (trick, cards)
        assert _hand_counts(their_pane) == [8 - trick] * 4
        if trick == 3:
            shot(page, "deals-movie-desktop")
    expect(nxt).to_be_disabled()
    after = _plain(their_pane.locator(".movie-after").inner_text())
    assert after.endswith(f"Card points: {other['nickname']} and North {other['us']}, West and East {other['them']}."), after
    page.keyboard.press("Home")
    expect(where).to_have_text("As dealt")
    found = axe_serious(page, "deals view, traveller and movie")
    assert found == [], "axe: serious/critical violations:\n" + "\n".join(found)


def test_a_closed_days_traveller_on_a_phone_in_french_by_its_link(visitor, live, closed, shot):
    """A link to a deal opens its traveller; the best result replayed; nothing scrolls sideways."""
    me = closed["games"][1]
    day = closed["day"]
    field = _get(live.base, f"/leaderboards/days/{day}/deals")
    k = field["deals"][0]["deal"]
    page = visitor(viewport=PHONE, has_touch=True, is_mobile=True, locale="fr-BE")
    _as(page, me)
    _deals_view(page, day, "fr", f"&deal={k}")
    travel = page.locator(".traveller-box")
    expect(travel.get_by_role("heading", name=f"Donne {k + 1} : tous les résultats")).to_be_visible()
    trav = _get(live.base, f"/leaderboards/days/{day}/deals/{k}?limit=20")
    expect(travel.locator("table.traveller tbody tr")).to_have_count(len(trav["entries"]))
    mine = travel.locator("tr[aria-current=true]")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text(f"{me['nickname']} (vous)")
    best = trav["entries"][0]
    travel.locator("table.traveller tbody tr").first.get_by_role("button", name=re.compile("^Revoir la donne")).tap()
    movie = page.locator("section.movie")
    expect(movie.locator(".movie-pane").first).to_be_visible()
    titles = movie.locator(".movie-pane h4").all_inner_texts()
    if best["submission_id"] == me["submission_id"]:
        assert _plain(titles[0]).startswith("Le vôtre : "), titles
    else:
        assert _plain(titles[0]).startswith("Le vôtre : ") and _plain(titles[1]).startswith(
            f"{best['nickname']}, le meilleur : {best['us']} points de cartes"), titles
    expect(movie.locator(".movie-where")).to_have_text("La distribution")
    movie.get_by_role("button", name="Suivant").tap()
    expect(movie.locator(".movie-where")).to_have_text("Pli 1 sur 8")
    expect(movie.locator(".movie-pane").first.locator(".trick-cross li")).to_have_count(4)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"
    shot(page, "deals-movie-phone-fr")


def test_the_review_of_ones_own_game_of_a_closed_day_shows_its_deals(visitor, live, closed):
    me = closed["games"][2]
    day = closed["day"]
    page = visitor()
    _as(page, me)
    _deals_view(page, day, "en")
    page.get_by_role("button", name="Review my game trick by trick").click()
    review = page.locator("#review")
    expect(review.get_by_role("heading", name="Review", exact=True)).to_be_visible()
    where = review.locator(".review-where")
    expect(where).to_have_text("Deal 1, trick 1 of 8")
    expect(review.locator(".review-hand")).to_have_count(4)  # the seed is public: all four hands
    own = _get(live.base, f"/submissions/{me['submission_id']}/deals")
    field = _get(live.base, f"/leaderboards/days/{day}/deals")
    _check_cards(page, "#review", field, own)
    last = own["deals"][-1]["deal"]
    review.get_by_role("button", name=f"The tricks of deal {last + 1}").click()
    expect(where).to_have_text(f"Deal {last + 1}, trick 1 of 8")
    expect(review.get_by_role("link", name=f"Every result on deal {last + 1}")).to_have_attribute(
        "href", f"/leaderboard?view=deals&day={day}&deal={last}")
    found = axe_serious(page, "review of a closed day's game")
    assert found == [], "axe: serious/critical violations:\n" + "\n".join(found)


def test_the_boards_by_matchpoints_say_final_or_how_fresh(visitor, live, closed):
    me = closed["games"][3]
    day = closed["day"]
    page = visitor()
    _as(page, me)
    page.goto(f"/leaderboard?lang=en&view=matchpoints&day={day}")
    view = page.locator("[data-view=matchpoints]")
    found = []
    for kind, period in (("day", day), ("week", None), ("month", day[:7])):
        if kind != "day":
            page.locator(f"[data-board={kind}]").click()
        # the view is busy from the click until the new board is drawn
        expect(view).not_to_have_attribute("aria-busy", "true")
        expect(view.locator("table.mp-board")).to_be_visible()
        if kind == "week":
            period = week_id(date.fromisoformat(day))
        board = _get(live.base, f"/leaderboards/{kind}s/{period}/matchpoints?limit=50", me["token"])
        # the freshness line is written with the board's page: wait for this board's words
        expect(view.locator(".mp-fresh")).to_have_text(
            re.compile(r"^\s*Final" if board["final"] else r"^\s*Provisional: computed "))
        fresh = _plain(view.locator(".mp-fresh").inner_text())
        if board["final"]:
            assert fresh == ("Final: every verified game of the day is counted." if kind == "day" else "Final."), fresh
        else:
            assert fresh.startswith("Provisional: computed "), fresh
            assert f"from {board['games']} {'game' if kind == 'day' else 'player'}" in fresh, fresh
        heads = view.locator("table.mp-board thead th").all_inner_texts()
        assert heads == ["Rank", "Player", "Matchpoints"] + (["Days"] if kind != "day" else []), heads
        rows = view.locator("table.mp-board tbody tr").evaluate_all(
            "rows => rows.map(r => [...r.cells].map(c => c.innerText))")
        want = [[str(e["rank"]), e["nickname"], _pct(e["mp"])] + ([str(e["days"])] if kind != "day" else [])
                for e in board["entries"]]
        assert [[_plain(c) for c in r] for r in rows] == want, (kind, rows, want)
        expect(view.locator("table.mp-board tr[aria-current=true]")).to_have_count(1)
        expect(view.locator(".board-me h2")).to_have_text(
            f"Your rank: #{board['me']['rank']} of {board['total']}, {_pct(board['me']['mp'])}")
        found += axe_serious(page, f"matchpoints, {kind}")
    assert _get(live.base, f"/leaderboards/days/{day}/matchpoints")["final"], "a closed day's board, built: final"

    # the open day's: provisional, and how fresh, or not computed yet
    page.locator("[data-board=day]").click()
    today = live.today().isoformat()
    page.locator("#board-date").fill(today)
    page.locator("#board-date").dispatch_event("change")
    expect(page).to_have_url(re.compile(rf"day={today}"))
    expect(view).not_to_have_attribute("aria-busy", "true")
    board = _get(live.base, f"/leaderboards/days/{today}/matchpoints")
    fresh = _plain(view.locator(".mp-fresh").inner_text())
    if board["built_at"] is None:
        assert fresh.startswith("Not computed yet"), fresh
    else:
        assert not board["final"] and fresh.startswith("Provisional: computed "), (board, fresh)
        assert re.search(rf"from {board['games']} games?;", fresh), fresh
    assert found == [], "axe: serious/critical violations:\n" + "\n".join(found)


def test_a_long_traveller_is_paged_and_takes_you_to_your_own_result(visitor, live):
    """A deal with more results than a page: one real game of a closed day (yours) and 24 others
    written onto the day's boards and field as the verification's step writes them, all better
    than yours on the deal where yours is lowest."""
    from service.leaderboard import Leaderboard
    from bulk_boards import record_many
    from service.store import connect

    day = live.today() - timedelta(days=6)
    me = play_closed_day(live, day, ["greedy-1"], prefix="long")[0]
    own = _get(live.base, f"/submissions/{me['submission_id']}/deals")
    low = min(own["deals"], key=lambda d: d["us"])
    k, us = low["deal"], low["us"]
    assert us < 61, own  # a side taking all 61 card points on every deal would end the game at once
    record_many(Leaderboard(connect(live.redis.url)), day, [  # deal k: from us + 1 to 61 card points
        (f"long-{i}", f"Long{i:02d}", 1000, f"sub-long-{i}", [0] * k + [us + 1 + i % (61 - us)]) for i in range(24)])
    trav = _get(live.base, f"/leaderboards/days/{day}/deals/{k}?limit=20")
    assert trav["results"] == 25 and all(e["submission_id"] != me["submission_id"] for e in trav["entries"])

    page = visitor()
    _as(page, me)
    _deals_view(page, day.isoformat(), "en", f"&deal={k}")
    travel = page.locator(".traveller-box")
    expect(travel.locator("table.traveller tbody tr")).to_have_count(20)
    pager = travel.get_by_role("navigation", name="Pages of results")
    expect(pager.locator(".range")).to_have_text("1–20 of 25")
    expect(travel.locator("tr[aria-current=true]")).to_have_count(0)
    travel.get_by_role("button", name="Go to my result").click()
    expect(pager.locator(".range")).to_have_text("21–25 of 25")
    mine = travel.locator("tr[aria-current=true]")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text(f"{me['nickname']} (you)")
    expect(mine.locator("td").nth(2)).to_have_text(f"{us}–{61 - us}")
    expect(travel.get_by_role("button", name="Go to my result")).to_have_count(0)
    pager.get_by_role("button", name="Previous 20").click()
    expect(pager.locator(".range")).to_have_text("1–20 of 25")
    rows = _traveller_rows(page)
    assert [_plain(r[1]) for r in rows] == [e["nickname"] for e in trav["entries"]], rows
