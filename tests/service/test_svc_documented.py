"""The answers sent without their schema's dump (``service.api.common.as_documented``: a run, a
play, a board page) are exactly what the dump would have sent: dumping them changes nothing, for
every kind of event, view, entry and board."""

from __future__ import annotations

from datetime import date, timedelta

from service.api.schemas import BoardPageSchema, RunSchema
from service.leaderboard import Leaderboard
from bulk_boards import record_many
from service.players import pid_of

from support.svc_helpers import headers


def dumped_unchanged(schema, body: dict) -> None:
    assert schema.dump(body) == body


def test_runs_and_plays_are_their_schema_as_is(client):
    run_schema = RunSchema()
    variants = ({"kind": "random", "rules": "parlee-1", "target": 51}, {"kind": "random", "rules": "manillen-1"})
    for body in ({}, {"kind": "random"}, *variants):
        run = client.post("/api/v1/runs", json=body).get_json()
        dumped_unchanged(run_schema, run)
        token = run["player_token"]
        kinds = {e["type"] for e in run["events"]}
        while run["status"] != "finished":
            view = run["view"]
            action = {"call": view["legal_calls"][-1]} if view.get("legal_calls") else {"card": view["legal"][-1]}
            r = client.post(f"/api/v1/runs/{run['run_id']}/plays", headers=headers(token),
                            json={"turn": run["turn"], **action})
            assert r.status_code == 200, r.get_json()
            run = r.get_json()
            dumped_unchanged(run_schema, run)
            kinds |= {e["type"] for e in run["events"]}
        auction = {"call", "contract"} if "rules" in body else set()
        assert kinds == {"play", "trick", "deal_end", "deal_start", "game_end"} | auction
        assert run["result"] and run["view"]["deals"] and run["view"]["last_trick"]
        dumped_unchanged(run_schema, client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token)).get_json())


def test_board_pages_are_their_schema_as_is(client, rclient):
    day = date(2026, 11, 30)
    run = client.post("/api/v1/runs", json={"kind": "random"}).get_json()
    me = pid_of(run["player_token"])
    record_many(Leaderboard(rclient), day, [(f"p{i}", f"Name{i}", 1000 + 10 * (i % 7), f"s{i}") for i in range(30)]
                                     + [(me, "Me", 1020, "s-me")])
    schema, week = BoardPageSchema(), f"{day.isocalendar()[0]}-W{day.isocalendar()[1]:02d}"
    paths = [f"/api/v1/leaderboards/days/{day}?limit=25", f"/api/v1/leaderboards/days/{day}?offset=20",
             f"/api/v1/leaderboards/weeks/{week}", f"/api/v1/leaderboards/months/{day:%Y-%m}",
             "/api/v1/leaderboards/all-time?limit=3", f"/api/v1/leaderboards/days/{day + timedelta(days=1)}",
             f"/api/v1/leaderboards/days/{day}/me?radius=2", "/api/v1/leaderboards/all-time/me"]
    for path in paths:
        for hdrs in ({}, headers(run["player_token"])):
            r = client.get(path, headers=hdrs)
            if "/me" in path and not hdrs:
                assert r.status_code == 401
                continue
            assert r.status_code == 200, (path, r.get_json())
            body = r.get_json()
            dumped_unchanged(schema, body)
            assert ("me" in body) == bool(hdrs)
            if "me" in body and "2026-12-01" not in path:
                assert body["me"]["player"] == me


def test_leagues_and_duels_are_their_schema_as_is(client, rclient):
    """A league, its boards (day, week, month, all time) and a duel, all sent as built."""
    from service.api.schemas import DuelSchema, LeagueBoardSchema, LeagueSchema

    day = date(2026, 11, 30)
    league = client.post("/api/v1/leagues", json={"name": "Docs"}).get_json()
    token = league.pop("player_token")
    players = client.application.extensions["manille"].players  # Ann's name: her verified game's
    players.confirm_nickname(pid_of(token), players.claim_nickname(pid_of(token), "Ann"), valid=True)
    league = client.post("/api/v1/leagues/join", json={"invite": league["invite"], "nickname": "Ann"},
                         headers=headers(token)).get_json()
    dumped_unchanged(LeagueSchema(), league)
    friend = client.post("/api/v1/leagues/join", json={"invite": league["invite"]}).get_json()
    dumped_unchanged(LeagueSchema(), {k: v for k, v in friend.items() if k != "player_token"})
    record_many(Leaderboard(rclient), day, [(pid_of(token), "Ann", 1070, "s-ann")]
                                     + [(f"p{i}", f"Name{i}", 1000 + 10 * i, f"s{i}") for i in range(5)])
    week = f"{day.isocalendar()[0]}-W{day.isocalendar()[1]:02d}"
    for path in (f"days/{day}", f"weeks/{week}", f"months/{day:%Y-%m}", "all-time"):
        body = client.get(f"/api/v1/leagues/{league['league_id']}/leaderboards/{path}", headers=headers(token)).get_json()
        assert body["entries"] and body["not_played"] == [None], body  # Ben: no name of his yet
        dumped_unchanged(LeagueBoardSchema(), body)
    run = client.post("/api/v1/runs", json={"kind": "random"}, headers=headers(token)).get_json()
    while run["status"] != "finished":
        run = client.post(f"/api/v1/runs/{run['run_id']}/plays", headers=headers(token),
                          json={"turn": run["turn"], "card": run["view"]["legal"][0]}).get_json()
    duel = client.post(f"/api/v1/runs/{run['run_id']}/duel", headers=headers(token)).get_json()
    assert duel["results"]
    dumped_unchanged(DuelSchema(), duel)
    dumped_unchanged(DuelSchema(), client.get(f"/api/v1/duels/{duel['duel_id']}").get_json())
