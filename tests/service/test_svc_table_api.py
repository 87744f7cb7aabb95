"""What the web table needs from the API: random and archive runs, a view it can redraw from
(unplayable cards with their reasons, counts, scored deals), every event on GET, the record once
the seed is public, the player's own summary, and 'me' on the board pages."""

from __future__ import annotations

from datetime import date, timedelta

from bots import get_bot
from service.leaderboard import Leaderboard
from service.replay import Card, GameState, verify
from service.replay.record import player_cards
from service.replay.rules import broken_obligation

from support.svc_helpers import TEST_BOTS, headers


def _open(client, token=None, **body):
    r = client.post("/api/v1/runs", json=body, headers=headers(token) if token else {})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _play_all(client, run, token, pick=lambda legal: legal[0]):
    """Play to the end; returns every body answered, the opening one first."""
    bodies = [run]
    while run["status"] != "finished":
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays",
                        json={"turn": run["turn"], "card": pick(run["view"]["legal"])}, headers=headers(token))
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
        bodies.append(run)
    return bodies


def _state_of(seed_hex: str, events: list) -> GameState:
    state = GameState(seed_hex)
    for e in events:
        if e["type"] == "play":
            state.apply(Card.parse(e["card"]))
    return state


def test_a_random_deal_shows_its_seed_only_when_over_and_replays_to_its_record(client, rclient):
    run = _open(client, kind="random")
    token = run["player_token"]
    assert (run["kind"], run["ranked"], run["seed"], run["rules"]) == ("random", False, None, "muette-1")
    other = _open(client, token, kind="random")
    assert other["run_id"] != run["run_id"]
    bodies = _play_all(client, run, token, pick=lambda legal: legal[-1])
    assert all(b["seed"] is None for b in bodies[:-1])
    seed = bodies[-1]["seed"]
    assert len(seed) == 64 and seed != other["seed"]
    # the seed shown is really the deal's: the engine replays the player's cards to the same game
    r = client.get(f"/api/v1/runs/{run['run_id']}/record", headers=headers(token))
    assert r.status_code == 200, r.get_json()
    record = r.get_json()
    assert record["seed"] == seed and record["rank_score"] == bodies[-1]["result"]["rank_score"]
    assert verify(seed, player_cards(record), get_bot(TEST_BOTS)) == record
    # never on a board, never submitted
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "rnd"},
                    headers=headers(token))
    assert r.status_code == 409 and r.get_json()["error"] == "practice_run"
    assert not [k for k in rclient.keys("*") if ":board" in k or ":counted" in k]


def test_random_with_a_date_or_an_unknown_kind_is_refused_and_stores_nothing(client, rclient):
    before = set(rclient.keys("*"))
    for body in ({"kind": "random", "date": "2026-01-01"}, {"kind": "weekly"}, {"kind": None}):
        r = client.post("/api/v1/runs", json=body)
        assert r.status_code == 422 and r.get_json()["error"] == "validation_error", body
    assert set(rclient.keys("*")) == before


def _day_seed(day: str) -> str:
    """The open day's seed, derived here as the server does (the API never shows it)."""
    from service.seeds import daily_seed
    from support.svc_helpers import SECRET
    return daily_seed(SECRET.encode(), date.fromisoformat(day)).hex()


def test_the_view_says_why_each_other_card_is_refused_and_counts_the_cards(client):
    run = _open(client)
    token = run["player_token"]
    state = GameState(_day_seed(run["date"]))
    refused = set()
    for body in _play_all(client, run, token):
        for e in body["events"]:
            if e["type"] == "play":
                state.apply(Card.parse(e["card"]))
        view = body["view"]
        assert view["counts"] == [len(state.hand(s)) for s in range(4)]
        assert view["hand"] == [str(c) for c in state.hand(0)]
        if body["status"] == "finished" or view["to_move"] != 0:
            assert view["unplayable"] == {} and view["legal"] == []
            continue
        hand = sum(c.bit for c in state.hand(0))
        expected = {str(c): broken_obligation(hand, state.trick, 0, c).value
                    for c in state.hand(0) if str(c) not in view["legal"]}
        assert view["unplayable"] == expected
        assert set(view["unplayable"]) | set(view["legal"]) == set(view["hand"])
        refused |= set(expected.values())
    assert refused, "a whole game with no refused card: the test saw nothing"
    assert refused <= {"must_follow_suit", "must_beat", "must_trump", "must_overtrump"}


def test_get_gives_every_event_since_the_opening_and_the_scored_deals(client):
    run = _open(client)
    token = run["player_token"]
    bodies = _play_all(client, run, token)
    narrated = [e for b in bodies for e in b["events"]]
    got = client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token)).get_json()
    assert got["events"] == narrated
    ends = [e for e in narrated if e["type"] == "deal_end"]
    assert got["view"]["deals"] == [{"deal": e["deal"], "dealer": d["dealer"], "turned": d["turned"],
                                     "points": e["points"], "scored": e["scored"], "totals": e["totals"]}
                                    for e, d in zip(ends, [e for e in narrated if e["type"] == "deal_start"])]
    # halfway through, a reload gives the same table as the last answer did
    run2 = _open(client, token, kind="random")
    for _ in range(5):
        run2 = client.post(f"/api/v1/runs/{run2['run_id']}/plays", json={
            "turn": run2["turn"], "card": run2["view"]["legal"][0]}, headers=headers(token)).get_json()
    again = client.get(f"/api/v1/runs/{run2['run_id']}", headers=headers(token)).get_json()
    assert again["view"] == run2["view"] and again["turn"] == run2["turn"] == 5
    last = [e for e in run2["events"] if e["type"] == "play"]
    assert [e for e in again["events"] if e["type"] == "play"][-len(last):] == last


def test_the_record_of_a_ranked_run_stays_sealed_while_its_day_is_open(client):
    run = _open(client)
    token = run["player_token"]
    r = client.get(f"/api/v1/runs/{run['run_id']}/record", headers=headers(token))
    assert r.status_code == 409 and r.get_json()["error"] == "run_not_finished"
    _play_all(client, run, token)
    r = client.get(f"/api/v1/runs/{run['run_id']}/record", headers=headers(token))
    assert r.status_code == 409 and r.get_json()["error"] == "record_sealed" and r.get_json()["reveal_at"]
    assert "hands" not in r.get_data(as_text=True)
    other = _open(client)
    r = client.get(f"/api/v1/runs/{run['run_id']}/record", headers=headers(other["player_token"]))
    assert r.status_code == 404 and r.get_json()["error"] == "run_not_found"


def test_an_archive_run_shows_its_public_seed(client):
    today = date.fromisoformat(client.get("/api/v1/challenges/today").get_json()["date"])
    past = (today - timedelta(days=3)).isoformat()
    run = _open(client, date=past)
    assert (run["kind"], run["ranked"]) == ("archive", False)
    assert run["seed"] == client.get(f"/api/v1/challenges/{past}").get_json()["seed"] == _day_seed(past)


def test_players_me_tells_today_run_nickname_and_streak(client, run_worker, rclient):
    assert client.get("/api/v1/players/me").status_code == 401
    run = _open(client, kind="random")
    token = run["player_token"]
    me = client.get("/api/v1/players/me", headers=headers(token)).get_json()
    today = me["today"]["date"]
    assert me["nickname"] is None and me["streak"] == 0
    assert me["today"] == {"date": today, "run_id": None, "status": None, "submission_id": None}
    ranked = _open(client, token)
    me = client.get("/api/v1/players/me", headers=headers(token)).get_json()
    assert me["today"] == {"date": today, "run_id": ranked["run_id"], "status": "playing", "submission_id": None}
    _play_all(client, ranked, token)
    sub = client.post("/api/v1/submissions", json={"run_id": ranked["run_id"], "nickname": "Streaky"},
                      headers=headers(token)).get_json()
    run_worker()
    # two earlier days in a row, then a gap: the streak is 3 with today
    lb, day, pid = Leaderboard(rclient), date.fromisoformat(today), me["player"]
    for back in (1, 2, 4):
        lb.record(day - timedelta(days=back), pid, "Streaky", 1000, f"s{back}")
    me = client.get("/api/v1/players/me", headers=headers(token)).get_json()
    assert me["nickname"] == "Streaky" and me["streak"] == 3
    assert me["today"]["status"] == "finished" and me["today"]["submission_id"] == sub["submission_id"]


def test_streak_counts_up_to_yesterday_when_today_is_not_played_yet(rclient):
    lb, day = Leaderboard(rclient), date(2026, 12, 2)
    for back in range(1, 40):  # longer than one pipelined chunk
        lb.record(day - timedelta(days=back), "p", "P", 1000, f"s{back}")
    assert lb.streak("p", day) == 39
    assert lb.streak("p", day - timedelta(days=1)) == 39
    assert lb.streak("p", day + timedelta(days=1)) == 0
    assert lb.streak("nobody", day) == 0


def test_board_pages_carry_me_only_for_a_token(client, rclient):
    today = client.get("/api/v1/challenges/today").get_json()["date"]
    run = _open(client, kind="random")
    token = run["player_token"]
    pid = client.get("/api/v1/players/me", headers=headers(token)).get_json()["player"]
    path = f"/api/v1/leaderboards/days/{today}"
    assert "me" not in client.get(path).get_json()
    assert "me" not in client.get(path, headers=headers("x" * 30)).get_json()  # a bad token: a public read
    assert client.get(path, headers=headers(token)).get_json()["me"] is None
    Leaderboard(rclient).record(date.fromisoformat(today), pid, "Mine", 1120, "s1")
    for p in (path, "/api/v1/leaderboards/all-time", f"/api/v1/leaderboards/months/{today[:7]}"):
        me = client.get(p, headers=headers(token)).get_json()["me"]
        assert me["player"] == pid and me["rank"] == 1 and me["nickname"] == "Mine", p
