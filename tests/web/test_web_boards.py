"""The boards and the archive as a person reads them: the histogram's axis labels under its bars,
one unit (points) on every board, a week named by its days, paging and "around you" only when
they add something, an empty day that says so; the archive saying, day by day, whether you played
(your points and rank) and how many did.

The days are set up on the stack's Redis by the service's own classes (no page can make a past
day's board): a crowded day (61 players, you last), a day you alone played, a day two others
played, and a day no one played; far enough back not to meet the other tests' days."""

from __future__ import annotations

import math
import re
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from support.live_stack import PHONE


@pytest.fixture(scope="module")
def days(live):
    from service.leaderboard import Leaderboard
    from bulk_boards import record_many
    from service.players import Players
    from service.store import connect

    settings = live.settings()
    client = connect(live.redis.url)
    today = settings.today()
    crowded, lone, others, empty = (today - timedelta(days=n) for n in (20, 21, 22, 23))
    players = Players(client)
    token, pid = Players.new_token()
    players.opened(pid, settings.now().isoformat())
    boards = Leaderboard(client)
    record_many(boards, crowded, [(f"crowd-{i}", f"Crowd{i:02d}", 1000 + 10 * (i % 40), f"sub-crowd-{i}")
                                 for i in range(60)] + [(pid, "Boards-me", 905, "sub-me-1")])
    record_many(boards, lone, [(pid, "Boards-me", 1130, "sub-me-2")])
    record_many(boards, others, [("other-1", "Other1", 1010, "sub-o1"), ("other-2", "Other2", 990, "sub-o2")])
    return {"token": token, "crowded": crowded, "lone": lone, "others": others, "empty": empty}


def _number(text: str) -> int | None:
    """A number as a board writes it ("+1 250", "−95", "905"); None for a name."""
    digits = re.sub(r"[\s\u00a0\u202f.,+]", "", text).replace("\u2212", "-")
    return int(digits) if re.fullmatch(r"-?\d+", digits) else None


def _with_token(page, token: str) -> None:
    page.add_init_script(f"localStorage.setItem('manille.token', {token!r})")


def _board(page, day: date, lang: str) -> None:
    page.goto(f"/leaderboard?lang={lang}&day={day.isoformat()}")
    expect(page.locator("#board-list table.board")).to_be_visible()
    expect(page.locator("#board-list")).not_to_have_attribute("aria-busy", "true")


#: Each bar's and each axis label's box, left to right.
AXIS_JS = """(fig) => ({
  bars: [...fig.querySelectorAll('.bar')].map(b => b.getBoundingClientRect().toJSON()),
  ticks: [...fig.querySelectorAll('.tick')].map(t => ({ text: t.textContent, ...t.getBoundingClientRect().toJSON() })),
})"""


def _labels_under_bars(page) -> None:
    figure = page.locator("#board-hist figure.histogram")
    expect(figure).to_be_visible()
    got = figure.evaluate(AXIS_JS)
    bars, ticks = got["bars"], got["ticks"]
    assert bars and ticks, got
    first, last = bars[0], bars[-1]
    for tick in ticks:
        assert tick["top"] >= first["bottom"] - 1, f"an axis label above the bars' foot: {tick}, {first}"
        assert tick["text"].strip(), tick
    if len(bars) == 1:
        assert len(ticks) == 1, ticks
        middle = (ticks[0]["left"] + ticks[0]["right"]) / 2
        assert first["left"] - 1 <= middle <= first["right"] + 1, f"the lone bar's label is not under it: {got}"
        return
    lo, hi = ticks[0], ticks[-1]
    assert len(ticks) == 2, ticks
    assert abs(lo["left"] - first["left"]) <= 1.5, f"the low label starts at {lo['left']}, the first bar at {first['left']}"
    assert abs(hi["right"] - last["right"]) <= 1.5, f"the high label ends at {hi['right']}, the last bar at {last['right']}"


def test_the_histograms_axis_labels_sit_under_its_bars(visitor, days):
    for page, lang in ((visitor(), "en"), (visitor(viewport=PHONE, has_touch=True, is_mobile=True), "fr")):
        for day in (days["crowded"], days["lone"], days["others"]):
            _board(page, day, lang)
            _labels_under_bars(page)


def test_every_board_counts_in_points_and_a_week_is_named_by_its_days(visitor, days):
    day = days["crowded"]
    monday = day - timedelta(days=day.weekday())
    sunday = monday + timedelta(days=6)
    for page, lang, unit, old, mean in ((visitor(), "en", "Points", "Margin", "A day on average"),
                                        (visitor(viewport=PHONE, has_touch=True, is_mobile=True), "nl", "Punten",
                                         "Verschil", "Gemiddeld per dag")):
        _board(page, day, lang)
        heads = page.locator("#board-list table.board thead th")
        expect(heads.nth(2)).to_have_text(unit)
        for tab in ("week", "month", "all"):
            page.locator(f'[data-board="{tab}"]').click()
            expect(page.locator("#board-list")).not_to_have_attribute("aria-busy", "true")
            # the same unit as the day's, named the same, with what it sums; the mean day beside it
            expect(heads.nth(2)).to_contain_text(unit)
            expect(heads.nth(2)).to_contain_text("1000")
            expect(heads.nth(3)).to_have_text(mean)
            expect(page.locator("#board-list table.board thead")).not_to_contain_text(old)
            for row in page.locator("#board-list table.board tbody tr").all()[:5]:
                cells = [_number(c) for c in row.locator("td").all_inner_texts()]
                total, day_mean, played = cells[2], cells[3], cells[4]
                assert day_mean == math.floor(1000 + total / played + 0.5), (tab, cells)  # Math.round
            if tab == "week":
                period = page.locator("#board-period")
                expect(period).not_to_have_text(re.compile(r"W\d"))
                text = period.inner_text()
                assert re.search(rf"\b{monday.day}\b", text) and re.search(rf"\b{sunday.day}\b", text), (
                    f"the week of {monday}–{sunday} is named {text!r}")


def test_paging_and_around_you_only_when_they_add_rows(visitor, days):
    page = visitor()
    _with_token(page, days["token"])
    pager = page.get_by_role("navigation", name="Pages")
    me = page.locator("#board-me")
    # 61 players, you the last: a next page, and the rows around you that the first page lacks
    _board(page, days["crowded"], "en")
    expect(me.get_by_role("heading")).to_have_text("Your rank: #61 of 61")
    expect(me.get_by_role("table", name="Players around you")).to_be_visible()
    expect(pager.get_by_role("button")).to_have_text(["Next 11"])
    pager.get_by_role("button", name="Next 11").click()
    expect(pager.locator(".range")).to_have_text("51–61 of 61")
    expect(pager.get_by_role("button")).to_have_text(["Previous 50"])
    # your row is on this page: "around you" would repeat it
    expect(page.locator("#board-list tr.mine")).to_have_count(1)
    expect(me.get_by_role("heading")).to_have_text("Your rank: #61 of 61")
    expect(me.get_by_role("table")).to_have_count(0)
    # one player: no paging at all, nothing around
    _board(page, days["lone"], "en")
    expect(me.get_by_role("heading")).to_have_text("Your rank: #1 of 1")
    expect(me.get_by_role("table")).to_have_count(0)
    expect(pager).to_be_hidden()
    expect(page.get_by_role("button", name=re.compile("^(Next|Previous)"))).to_have_count(0)
    # no one: said, and no empty chart
    _board(page, days["empty"], "en")
    expect(page.locator("#board-list")).to_contain_text("No one played this day.")
    expect(page.locator("#board-hist figure")).to_have_count(0)
    expect(pager).to_be_hidden()

    phone = visitor(viewport=PHONE, has_touch=True, is_mobile=True)
    _board(phone, days["empty"], "fr")
    expect(phone.locator("#board-list")).to_contain_text("Personne n'a joué ce jour-là.")
    expect(phone.locator("#board-hist figure")).to_have_count(0)
    expect(phone.get_by_role("navigation", name="Pages")).to_be_hidden()


def _archive_day(page, day: date):
    return page.locator(f'.days li[data-day="{day.isoformat()}"]')


def test_the_archive_says_whether_you_played_each_day_and_how_many_did(visitor, days):
    page = visitor()
    _with_token(page, days["token"])
    page.goto("/archive?lang=en")
    crowded, lone, others, empty = (_archive_day(page, days[k]) for k in ("crowded", "lone", "others", "empty"))
    expect(crowded.locator(".day-facts")).to_have_text("You played it: 905 points, rank 61 · 61 players")
    expect(lone.locator(".day-facts")).to_have_text("You played it: 1130 points, rank 1 · 1 player")
    expect(others.locator(".day-facts")).to_have_text("You did not play it · 2 players")
    expect(empty.locator(".day-facts")).to_have_text("No one played")
    # a day no one played links no empty board; the others do
    expect(empty.get_by_role("link", name=re.compile("leaderboard", re.I))).to_be_hidden()
    expect(others.get_by_role("link", name=re.compile("leaderboard", re.I))).to_be_visible()

    phone = visitor(viewport=PHONE, has_touch=True, is_mobile=True)  # a device that never played
    phone.goto("/archive?lang=fr")
    crowded = _archive_day(phone, days["crowded"])
    expect(crowded.locator(".day-facts")).to_have_text("61 joueurs")
    expect(_archive_day(phone, days["lone"]).locator(".day-facts")).to_have_text("1 joueur")
    expect(_archive_day(phone, days["empty"]).locator(".day-facts")).to_have_text("Personne n'a joué")
    expect(_archive_day(phone, days["empty"]).get_by_role("link", name=re.compile("classement", re.I))).to_be_hidden()
