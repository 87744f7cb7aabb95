"""The review of the top, on a real Redis with real RQ workers (verification, then the check's
analysis): an open-handed game at the top is held and listed in the review queue, counts for
nothing public, and is released (it ranks everywhere) or disqualified (it never shows); an honest
top game whose check is clean ranks at once; a held game is released by the sweep once its time is
up, under a frozen clock, and the audit log says so."""

from __future__ import annotations

import json
import os
from datetime import date, datetime, timedelta

import pytest
from freezegun import freeze_time

from bots import get_bot
from bots.oracle import pick
from bots.solver import Solver
from service.analysis import CHECK_QUEUE
from service.app import create_app
from service.config import Settings
from service.duplicate import Field
from service.leaderboard import ALL_TIME, Leaderboard, day_board, month_board, week_board
from service.replay import GameState, bot_move, decision_stream
from service.review.queue import RELEASE_AT, Reviews
from service.store import month_id, week_id
from service.submissions import Submissions

from support.svc_helpers import OPS, OPS_TOKENS, SECRET, TEST_BOTS, burst_worker, headers, queue_of

DAY = date(2026, 12, 3)  # a day where the open hands pay, over enough decisions for the oracle flag
NOON = "2026-12-03T11:00:00+00:00"  # noon in Brussels: the day is open
REVIEW = {"MANILLE_REVIEW_TOP": "20", "MANILLE_REVIEW_HOURS": "48", "MANILLE_REVIEW_Z": "2.5"}
BEARER = {"Authorization": f"Bearer {OPS}"}


@pytest.fixture
def review_client(redis_server, rclient, monkeypatch):
    for name, value in REVIEW.items():  # the workers, run in-process, read their settings from there
        monkeypatch.setenv(name, value)
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS,
                      "MANILLE_LIMIT_RANKED_RUNS": "off", **REVIEW})
    return app.test_client()


def check_worker(rclient):
    """The hidden-information check's analyses, run now in this process."""
    import worker.jobs
    worker.jobs._settings = None
    burst_worker([CHECK_QUEUE], queue_of(rclient)).work(burst=True)


def open_handed(seed: bytes, bots, where_it_pays: bool) -> list[str]:
    """Seat 0's cards by someone who saw every hand: the optimal card with open hands at every
    decision, or (``where_it_pays``) expert-1's unless it loses 2 card points or more."""
    state, expert, solver, deal = GameState(seed), get_bot("expert-1"), None, None
    cards = []
    while not state.is_over:
        if state.current_player != 0:
            bot_move(state, bots)
            continue
        if deal != state.deal_index:
            deal, solver = state.deal_index, Solver(int(state.trick.trump))
        obs = state.observation(0)
        card = expert.choose(obs, decision_stream(state.seed, obs.deal_index, 0, len(obs.tricks)))
        if len(state.legal_cards()) > 1:
            values = solver.card_values(list(state.hands), state.trick, state.points[0])
            best = max(values.values())
            if not where_it_pays or best - values[card.id] >= 2:
                card = pick(c for c in state.legal_cards() if values[c.id] == best)
        cards.append(str(card))
        state.apply(card)
    return cards


def honest(seed: bytes, bots) -> list[str]:
    """Seat 0's cards by expert-1 itself: what the seat knew, nothing more."""
    from service.replay import player_cards, simulate
    return player_cards(simulate(seed, bots, get_bot("expert-1")))


def ranked_game(client, addr: str, nickname: str, cards: list[str]) -> tuple[str, str, int]:
    """A ranked game of the day played with ``cards`` over the API and submitted: (submission id,
    token, the score the run showed)."""
    r = client.post("/api/v1/runs", json={}, environ_base={"REMOTE_ADDR": addr})
    assert r.status_code == 201, r.get_json()
    run = r.get_json()
    token = run["player_token"]
    for card in cards:
        assert card in run["view"]["legal"], (card, run["view"]["legal"])
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": run["turn"], "card": card},
                        headers=headers(token), environ_base={"REMOTE_ADDR": addr})
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
    assert run["status"] == "finished"
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                    headers=headers(token), environ_base={"REMOTE_ADDR": addr})
    assert r.status_code == 202, r.get_json()
    return r.get_json()["submission_id"], token, run["result"]["rank_score"]


def day_terms(day: date = DAY):
    settings = Settings.from_env(os.environ)
    return settings.seed(day), get_bot(TEST_BOTS), settings


def status(client, sub_id) -> dict:
    r = client.get(f"/api/v1/submissions/{sub_id}")
    assert r.status_code == 200
    return r.get_json()


def public_places(client, rclient, token: str, pid: str, lid: str) -> dict:
    """Where the player's game of the day shows: each public board, the field, the league's day."""
    lb = Leaderboard(rclient)
    shown = {name: lb.rank_of(board, pid) is not None
             for name, board in (("day", day_board(DAY)), ("week", week_board(week_id(DAY))),
                                 ("month", month_board(month_id(DAY))), ("all-time", ALL_TIME))}
    shown["field"] = Field(rclient).game_of(DAY, pid) is not None
    league = client.get(f"/api/v1/leagues/{lid}/leaderboards/days/{DAY}", headers=headers(token)).get_json()
    shown["league"] = any(e["me"] for e in league["entries"])
    return shown


def test_an_open_handed_game_at_the_top_is_held_then_released_or_disqualified(review_client, rclient, run_worker):
    client = review_client
    seed, bots, settings = day_terms()
    with freeze_time(NOON, tick=True):
        # an honest player first: the top of the day, checked, clean, ranked at once
        fair, fair_token, fair_score = ranked_game(client, "10.9.0.1", "Fair", honest(seed, bots))
        run_worker()
        got = status(client, fair)
        assert got["status"] == "review" and got["review"]["phase"] == "checking" and got["rank"] is None
        assert Leaderboard(rclient).total(day_board(DAY)) == 0  # nothing public before its check
        check_worker(rclient)
        got = status(client, fair)
        assert got["status"] == "verified" and got["rank"] == 1 and got["review"] is None
        assert Submissions(rclient, settings).get(fair)["review_outcome"] == "clean"

        # two players who saw every hand, in a league with the honest one
        cheat_cards = open_handed(seed, bots, where_it_pays=False)
        one, one_token, one_score = ranked_game(client, "10.9.0.2", "Seer", cheat_cards)
        two, two_token, two_score = ranked_game(client, "10.9.0.3", "Peek", cheat_cards)
        assert one_score == two_score > fair_score  # the open hands paid
        r = client.post("/api/v1/leagues", json={"name": "Club"}, headers=headers(one_token))
        assert r.status_code == 201, r.get_json()
        league = r.get_json()
        for token in (two_token, fair_token):
            assert client.post("/api/v1/leagues/join", json={"invite": league["invite"]},
                               headers=headers(token)).status_code == 200
        run_worker()
        check_worker(rclient)
        for sub_id in (one, two):
            got = status(client, sub_id)
            # held, and the player is told until when (MANILLE_REVIEW_HOURS after its verdict)
            assert got["status"] == "review" and got["review"]["phase"] == "held" and got["rank"] is None
            until = datetime.fromisoformat(got["review"]["until"])
            assert until - datetime.fromisoformat(got["verified_at"]) == timedelta(hours=48)
        pids = {sub_id: Submissions(rclient, settings).get(sub_id)["pid"] for sub_id in (one, two, fair)}
        assert not any(public_places(client, rclient, one_token, pids[one], league["league_id"]).values())
        assert Field(rclient).deals(DAY)["results"] == 1  # the field is the honest game's alone

        # the queue: the open-handed games first (the highest score), with the evidence
        r = client.get("/api/v1/ops/review", headers=BEARER)
        assert r.status_code == 200, r.get_json()
        queue = r.get_json()["submissions"]
        assert {q["submission_id"] for q in queue} == {one, two} and queue[0]["score"] == one_score
        entry = queue[0]
        assert entry["review"]["phase"] == "held" and entry["review"]["why"]
        assert set(entry["review"]["why"]) <= set(settings.review.flags) | {"z"}
        assert entry["hindsight"] is not None and entry["hindsight"]["drivers"]  # the decisions that drove it
        assert entry["pace"]["cards"] == len(cheat_cards) and entry["fast_runs"] == []
        assert client.get("/api/v1/ops/review").status_code == 401

        # released: it ranks on every board, the field and the league; audited
        r = client.post(f"/api/v1/ops/submissions/{one}/release", json={"reason": "a strong player, known"},
                        headers=BEARER)
        assert r.status_code == 200, r.get_json()
        assert r.get_json()["status"] == "verified" and r.get_json()["review"]["outcome"] == "released"
        assert status(client, one)["rank"] == 1
        assert all(public_places(client, rclient, one_token, pids[one], league["league_id"]).values())
        again = client.post(f"/api/v1/ops/submissions/{one}/release", json={"reason": "twice"}, headers=BEARER)
        assert again.status_code == 409 and again.get_json()["error"] == "not_in_review"

        # disqualified: it never shows anywhere; a verification run again leaves it so
        r = client.post(f"/api/v1/ops/submissions/{two}/disqualify", json={"reason": "saw the hands"},
                        headers=BEARER)
        assert r.status_code == 200 and r.get_json()["status"] == "disqualified"
        assert not any(public_places(client, rclient, two_token, pids[two], league["league_id"]).values())
        from service.verification import verify_submission
        assert verify_submission(Settings.from_env(os.environ), rclient, two)["status"] == "disqualified"
        assert verify_submission(Settings.from_env(os.environ), rclient, one)["status"] == "verified"
        assert Field(rclient).deals(DAY)["results"] == 2
        assert client.get("/api/v1/ops/review", headers=BEARER).get_json()["submissions"] == []
        audit = client.get("/api/v1/ops/audit", headers=BEARER).get_json()["entries"]
        actions = [(e["action"], e["target"]) for e in audit]
        assert actions[:2] == [("disqualify", two), ("release", one)]
        assert ("review_hold", one) in actions and ("review_hold", two) in actions

        # the released one found out later: disqualified, it leaves every board, the field, the league
        r = client.post(f"/api/v1/ops/submissions/{one}/disqualify", json={"reason": "a second look"},
                        headers=BEARER)
        assert r.status_code == 200 and r.get_json()["status"] == "disqualified"
        assert not any(public_places(client, rclient, one_token, pids[one], league["league_id"]).values())
        assert Field(rclient).deals(DAY)["results"] == 1 and status(client, fair)["rank"] == 1


def test_a_held_game_is_released_when_its_time_is_up(review_client, rclient, run_worker, capsys, monkeypatch):
    client = review_client
    seed, bots, settings = day_terms()
    with freeze_time(NOON, tick=True):
        sub_id, token, score = ranked_game(client, "10.9.1.1", "Patient", open_handed(seed, bots, where_it_pays=False))
        run_worker()
        check_worker(rclient)
        got = status(client, sub_id)
        assert got["status"] == "review" and got["review"]["phase"] == "held"
        until = datetime.fromisoformat(got["review"]["until"])
    # the command line lists it, with its evidence, as the API does
    from cli.main import main as manille
    monkeypatch.setenv("MANILLE_OPS_TOKENS", OPS_TOKENS)
    monkeypatch.setenv("MANILLE_OPS_TOKEN", OPS)
    assert manille(["ops", "review", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["submissions"]
    assert [(q["submission_id"], q["review"]["phase"]) for q in listed] == [(sub_id, "held")]
    assert listed[0]["pace"]["cards"] > 0 and "fast_runs" in listed[0]
    assert manille(["ops", "review"]) == 0
    assert sub_id in capsys.readouterr().out
    reviews = Reviews(rclient, Settings.from_env(os.environ))
    with freeze_time(until - timedelta(minutes=1)):
        assert reviews.sweep() == []  # not yet
    assert status(client, sub_id)["status"] == "review"
    with freeze_time(until + timedelta(minutes=1)):
        assert reviews.sweep() == [sub_id]
        assert reviews.sweep() == []  # once
    got = status(client, sub_id)
    assert got["status"] == "verified" and got["rank"] == 1
    assert rclient.zcard(RELEASE_AT) == 0
    entry = client.get("/api/v1/ops/audit", headers=BEARER).get_json()["entries"][0]
    assert (entry["action"], entry["target"], entry["who"]) == ("auto_release", sub_id, "review")
    assert "48 hours" in entry["why"]


def test_a_top_game_whose_check_passes_the_reviews_bar_is_held(review_client, rclient, run_worker):
    """No flag on it (too few decisive decisions for ``oracle``), but its check's z passes the
    review's bar, under the flag's: held for review, not ranked."""
    client = review_client
    day = date(2026, 12, 9)  # expert-1's card where it pays nothing, the open hands' best where it does
    seed, bots, settings = day_terms(day)
    with freeze_time("2026-12-09T11:00:00+00:00", tick=True):
        sub_id, _token, _score = ranked_game(client, "10.9.2.1", "Discreet", open_handed(seed, bots, where_it_pays=True))
        run_worker()
        assert status(client, sub_id)["review"]["phase"] == "checking"
        check_worker(rclient)
        got = status(client, sub_id)
        sub = Submissions(rclient, settings).get(sub_id)
        evidence = json.loads(sub["hindsight"])
        assert not [f for f in json.loads(sub["flags"]) if f["code"] in settings.review.flags]
        assert settings.review.z <= evidence["z"] < settings.flags.hindsight_z  # the review's bar, not the flag's
        assert sub["hindsight_check"] == "hindsight-2"
        assert got["status"] == "review" and got["review"]["phase"] == "held" and got["rank"] is None
        assert Leaderboard(rclient).total(day_board(day)) == 0
        queue = client.get("/api/v1/ops/review", headers=BEARER).get_json()["submissions"]
        assert [(q["submission_id"], q["review"]["why"]) for q in queue] == [(sub_id, ["z"])]
        assert queue[0]["hindsight"]["z"] == evidence["z"]
