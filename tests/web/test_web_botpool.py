"""The bots' pool through the page, on a stack whose day is dealt with the default searching bot
and whose searches go to the pool (``MANILLE_BOT_POOL=1``): the strongest table full, the page
says in French how many games wait before this one and offers the club's table, which a click
opens; in English it waits its turn and opens the strongest table once there is room; while the
pool's worker is held, a played card's answer is awaited with the bots said to be thinking (the
felt busy), and the game goes on once it answers."""

from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest
from playwright.sync_api import expect
from rq import Queue

from service.botpool import JOB, QUEUE as BOTS_QUEUE
from service.config import DEFAULT_BOTS
from service.store import connect, raw_client
from support.live_stack import SECRET, TZ, LiveStack
from support.web_helpers import enabled_cards, is_plays_answer, is_run_answer

#: A first free game is at the club's table: these visitors have chosen the strongest before.
STRONGEST = "localStorage.setItem('manille.strength', 'strongest');"
#: One bots' turn waiting fills the pool (MANILLE_BOT_POOL=1).
BUSY = {"kind": "random", "date": "2026-12-02", "seed": "ab" * 32, "bots": DEFAULT_BOTS, "rules": "muette-1"}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """A stack of its own: the day dealt with the default bot, no warm, the bots' pool on (its
    worker started by the tests that need one)."""
    stack = LiveStack(tmp_path_factory.mktemp("pool-stack"),
                      env={"MANILLE_BOTS": DEFAULT_BOTS, "MANILLE_WARM_DEALS": "0", "MANILLE_BOT_POOL": "1",
                           "MANILLE_BOT_POOL_WAIT": "60"}).start()
    try:
        yield stack
    finally:
        stack.stop()


@pytest.fixture
def pool_worker(live):
    """``start()``: the pool's worker (``python -m worker bots``, under faketime: a process group of
    its own, signalled whole), stopped after the test."""
    started = []

    def start() -> subprocess.Popen:
        env = dict(os.environ, MANILLE_SECRET=SECRET, MANILLE_TZ=TZ, MANILLE_BOTS=DEFAULT_BOTS)
        started.append(subprocess.Popen(live._python("worker", "--url", live.redis.url, BOTS_QUEUE), env=env,
                                        cwd=live.root, stdout=open(live.dir / "bots.log", "a"),
                                        stderr=subprocess.STDOUT, start_new_session=True))
        return started[-1]
    yield start
    for worker in started:
        os.killpg(worker.pid, signal.SIGCONT)
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


@pytest.fixture
def bots_queue(live):
    queue = Queue(BOTS_QUEUE, connection=raw_client(connect(live.redis.url)))
    yield queue
    queue.empty()


def test_a_full_strongest_table_shows_the_games_waiting_and_offers_the_club(visitor, bots_queue):
    bots_queue.enqueue_call(JOB, args=(BUSY, ""))  # no worker: it waits, the pool is full
    page = visitor(locale="fr-BE")
    page.add_init_script(STRONGEST)
    page.watch.allow(r"503")  # the refused openings are the test's
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST") as refused:
        page.goto("/free?lang=fr&speed=instant")
    assert refused.value.status == 503 and refused.value.json()["error"] == "bots_busy"
    notice = page.locator(".busy-table")
    expect(notice).to_have_attribute("role", "status")
    expect(notice).to_contain_text("La table la plus forte est occupée. Parties en attente avant la vôtre : 1.")
    button = page.get_by_role("button", name="Jouer maintenant à la table du club")
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST"
                              and r.status == 201) as opened:
        button.click()
    assert json.loads(opened.value.request.post_data)["bots"] == "expert-1"
    assert opened.value.json()["bots"] == "expert-1"
    expect(notice).to_have_count(0)
    expect(enabled_cards(page).first).to_be_visible()


def test_the_page_waits_its_turn_then_opens_the_strongest_table(visitor, bots_queue, pool_worker):
    bots_queue.enqueue_call(JOB, args=(BUSY, ""))
    page = visitor()
    page.add_init_script(STRONGEST)
    page.watch.allow(r"503")
    page.goto("/free?lang=en&speed=instant")
    expect(page.locator(".busy-table")).to_contain_text("Games waiting before yours: 1.")
    with page.expect_response(lambda r: is_run_answer(r) and r.request.method == "POST" and r.status == 201,
                              timeout=90_000) as opened:
        bots_queue.empty()  # room: the page's next try opens the table it asked for
        pool_worker()  # whose first bots' turn the pool may have to search
    assert opened.value.json()["bots"] == DEFAULT_BOTS
    expect(page.locator(".busy-table")).to_have_count(0)


def test_the_bots_are_said_to_think_while_the_pool_answers(visitor, pool_worker):
    worker = pool_worker()
    page = visitor()
    page.add_init_script(STRONGEST)
    page.goto("/free?lang=en&speed=instant")
    felt = page.locator("#felt")
    status = page.get_by_role("status").filter(has_text="The bots are thinking…")
    # the opening answered first (the bots may lead, their searches in the pool): then held
    expect(enabled_cards(page).first).to_be_visible(timeout=60_000)
    os.killpg(worker.pid, signal.SIGSTOP)  # held: the next search waits for it
    held = False
    try:
        for _ in range(20):  # until a card's bots' turn is a search (most are, at this table)
            expect(enabled_cards(page).first).to_be_visible(timeout=60_000)
            with page.expect_response(is_plays_answer, timeout=90_000) as answer:
                enabled_cards(page).first.click()
                try:
                    expect(status).to_be_visible(timeout=3_000)
                    expect(felt).to_have_attribute("aria-busy", "true")
                    held = True
                    os.killpg(worker.pid, signal.SIGCONT)
                except AssertionError:
                    pass  # answered without a search: the next card
            assert answer.value.status == 200
            if held:
                break
    finally:
        os.killpg(worker.pid, signal.SIGCONT)
    assert held, "no card's answer waited for the pool"
    expect(status).to_have_count(0)
    expect(felt).to_have_attribute("aria-busy", "false")
    expect(enabled_cards(page).first).to_be_visible(timeout=60_000)
