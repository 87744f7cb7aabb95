"""End to end over real HTTP (gunicorn) with a real, separate RQ worker process."""

from __future__ import annotations

import time
from datetime import date

import pytest
import requests

from bots import get_bot
from service.config import QUEUE_NAME
from service.replay import verify
from service.seeds import DayClock, daily_seed

from support.svc_helpers import BIN, SECRET, TEST_BOTS, headers, play_game, flush_state
from support.svc_helpers import live_service as svc_live_service

pytestmark = pytest.mark.stack  # starts the product's processes (pyproject.toml's markers)

@pytest.fixture(scope="module")
def live_service(redis_server, tmp_path_factory):
    from service.store import connect
    flush_state(redis_server.url)
    with svc_live_service(redis_server.url, tmp_path_factory.mktemp("e2e"),
                          [str(BIN / "rq"), "worker", "--url", redis_server.url, "--quiet", QUEUE_NAME]) as base:
        yield base


def test_whole_game_over_http_verified_by_a_worker_process(live_service):
    base = live_service
    s = requests.Session()
    texts: list[str] = []

    def get(path, hdrs=None):
        r = s.get(base + path, headers=hdrs or {}, timeout=10)
        texts.append(r.text)
        return r.status_code, r.json()

    def post(path, body, hdrs=None):
        r = s.post(base + path, json=body, headers=hdrs or {}, timeout=10)
        texts.append(r.text)
        return r.status_code, r.json()

    status, challenge = get("/api/v1/challenges/today")
    assert status == 200 and challenge["seed"] is None and challenge["bots"] == TEST_BOTS
    day = date.fromisoformat(challenge["date"])
    assert day == DayClock("Europe/Brussels").today()
    seed = daily_seed(SECRET.encode(), day)

    status, run = post("/api/v1/runs", {})
    assert status == 201, run
    token = run["player_token"]
    cards: list[str] = []

    def pick(legal):
        cards.append(legal[-1])
        return legal[-1]

    final = play_game(post, run, token, pick=pick)
    assert final["status"] == "finished"
    get(f"/api/v1/runs/{run['run_id']}", headers(token))

    status, accepted = post("/api/v1/submissions", {"run_id": run["run_id"], "nickname": "e2e"}, headers(token))
    assert status == 202, accepted
    deadline = time.monotonic() + 60
    while True:
        status, sub = get(accepted["status_url"])
        if sub["status"] != "queued" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert sub["status"] == "verified", sub

    expected = verify(seed, cards, get_bot(TEST_BOTS))["rank_score"]
    assert sub["score"] == expected == final["result"]["rank_score"]
    assert sub["rank"] == 1

    status, board = get(f"/api/v1/leaderboards/days/{day}")
    assert board["total"] == 1 and board["entries"][0]["score"] == expected

    status, again = post("/api/v1/runs", {}, headers(token))
    assert status == 409 and again["error"] == "already_played"

    status, sealed = get(f"/api/v1/submissions/{accepted['submission_id']}/record")
    assert status == 409 and sealed["error"] == "record_sealed"

    status, ready = get("/api/v1/health/ready")
    assert status == 200 and ready["workers"] >= 1, ready
    status, spec = get("/api/v1/openapi.json")
    assert status == 200 and "/api/v1/runs/{run_id}/plays" in spec["paths"]

    # The day is open: no answer contained its seed.
    assert len(texts) > 20
    for text in texts:
        assert seed.hex() not in text.lower()
