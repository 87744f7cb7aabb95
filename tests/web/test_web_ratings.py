"""A player's profile page: the rating now, its history as an SVG plot with a summary a screen
reader reads and a table of the same figures, days played, streak and best days; in English and
French, on a phone; the leaderboard's Ratings view lists the settled players, linked to their
profiles.  The days are scripted into the stack's Redis (closed days before the stack's today) and
rated as the worker rates them; every expectation is read from the API's answer."""

from __future__ import annotations

import re
import time
import uuid
from datetime import timedelta

import requests
from playwright.sync_api import expect

from support.live_stack import PHONE
from support.web_helpers import axe_serious

#: Four players who take turns at the top settle (deviation under the board's 75) in 15 days
#: alone: the board's view needs no other test's games on those days.
DAYS = 17


def _rated_days(live) -> list[str]:
    """Four new players' games on each of the DAYS days before the stack's today, the day's order
    turning round each day, their matchpoint boards built and the days rated; the players'
    nicknames."""
    from service import duplicate
    from service.leaderboard import Leaderboard
    from service.players import Players
    from service.ratings import Ratings
    from service.store import connect, shard_of

    settings = live.settings()
    client = connect(live.redis.url)
    today = settings.today()
    days = [today - timedelta(days=k) for k in range(DAYS, 0, -1)]
    tag = uuid.uuid4().hex[:6]
    pids = [f"{tag}{i:018x}" for i in range(4)]
    names = [f"rated{tag}{i}" for i in range(4)]
    players, lb = Players(client), Leaderboard(client)
    for pid, name in zip(pids, names):
        players.claim_nickname(pid, name)
        players.confirm_nickname(pid, name, valid=True)
    for k, day in enumerate(days):
        for i, pid in enumerate(pids):
            points = 45 - 6 * ((i + k) % 4) + (day.toordinal() + i) % 3
            lb.record(day, pid, names[i], 1000 + points, f"{day:%Y%m%d}-{shard_of(pid):02d}-{tag}{i:022d}",
                      deals=[points, 61 - points, points])
        duplicate.build(settings, client, day)
    Ratings(client).rebuild(settings, days[0], days[-1], queue=settings.queue_connection(client))
    return names


def test_a_players_profile_page_and_the_ratings_view(live, visitor):
    names = _rated_days(live)
    profile = requests.get(f"{live.base}/api/v1/players/{names[0]}", timeout=10).json()
    assert profile["days_played"] == DAYS
    page = visitor()
    page.goto(f"{live.base}/players/{names[0]}?lang=en")
    expect(page.locator("#profile-name")).to_have_text(names[0])
    box = page.locator("#profile")
    expect(box).not_to_have_attribute("aria-busy", "true")
    r = profile["rating"]
    expect(box.locator(".profile-facts")).to_contain_text(re.compile(
        rf"Rating\s*{r['value']:,}\??\s*±\s*{r['deviation']}"))
    expect(box.locator(".profile-facts")).to_contain_text(f"Days played{DAYS}")
    plot = box.locator("svg.rating-plot[role=img]")
    label = plot.get_attribute("aria-label")
    first, last = profile["history"][0], profile["history"][-1]
    assert f"over {DAYS} days" in label and f"from {first['value']:,}" in label and f"to {last['value']:,}" in label
    assert plot.locator("circle.dot").count() == DAYS
    rows = box.locator("table.rating-history tbody tr")
    expect(rows).to_have_count(DAYS)
    expect(rows.first).to_contain_text(f"{last['value']:,} ± {last['deviation']}")
    expect(box.locator(".best-days li")).to_have_count(len(profile["best_days"]))
    assert not axe_serious(page, "profile"), "profile"

    # French, on a phone: the same figures in French words
    phone = visitor(viewport=PHONE, has_touch=True, is_mobile=True, locale="fr-BE")
    phone.goto(f"{live.base}/players/{names[0]}?lang=fr")
    expect(phone.locator(".profile-facts")).to_contain_text("Jours joués")
    expect(phone.locator("table.rating-history tbody tr")).to_have_count(DAYS)
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")

    # the leaderboard's Ratings view: the settled players, each a link to their profile
    # a worker's own run of the ratings (the days' builds came out final) may hold the lock the
    # rebuild above found taken: its board is read once that run is done
    for _ in range(60):
        board = requests.get(f"{live.base}/api/v1/ratings?limit=100", timeout=10).json()
        if any(e["nickname"] in names for e in board["entries"]):
            break
        time.sleep(0.5)
    page.goto(f"{live.base}/leaderboard?view=ratings&lang=en")
    table = page.locator("table.rating-board")
    expect(table.locator("tbody tr")).to_have_count(max(1, min(50, board["total"])))
    shown = [e for e in board["entries"] if e["nickname"] in names]
    assert shown, board
    link = table.get_by_role("link", name=shown[0]["nickname"])
    expect(link).to_have_attribute("href", f"/players/{shown[0]['nickname']}")
    link.click()
    expect(page.locator("#profile-name")).to_have_text(shown[0]["nickname"])
