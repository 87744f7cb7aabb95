"""Leagues on a real Redis (and, with MANILLE_TEST_CLUSTER=1, a real cluster): create, join by
invite (idempotently), leave, rename, remove a member, a new invite, delete; the limits (500
members, 20 leagues a player) as 409s; creating and joining rate-limited as runs are; privacy (404
to anyone who is no member, a wrong or old invite included; no token or player id of one member
in any answer to another); and the league's boards: the public boards read for its members, rank
in the league beside the public rank, the day's members who have not played, a score taken off
leaving them as it leaves the public board."""

from __future__ import annotations

import re
import threading
from datetime import date

import pytest
import redis
from freezegun import freeze_time
from redis.crc import key_slot

from service.app import Services, create_app
from service.leaderboard import Leaderboard, day_board, month_board, week_board, ALL_TIME
from service.leagues import MAX_LEAGUES, MAX_MEMBERS, SETTLE_MS, Leagues, league_keys, player_leagues_key
from service.players import pid_of
from service.store import shard_of

from support.svc_helpers import LIMITS_OFF, SECRET, TEST_BOTS, err, headers, snapshot

DAY = date(2026, 12, 2)  # a Wednesday of ISO week 49
NOON = "2026-12-02 11:00:00"  # UTC: the day is open in Brussels


@pytest.fixture
def app(rclient, redis_server):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF})


@pytest.fixture(autouse=True)
def clock():
    with freeze_time(NOON, tick=True) as frozen:
        yield frozen


def new_player(client, nickname: str | None = None) -> str:
    """A token, holding a nickname when one is given (as a submission under it, then its verified
    game, would make it)."""
    token = client.post("/api/v1/runs", json={"kind": "random"}).get_json()["player_token"]
    if nickname:
        hold(client, token, nickname)
    return token


def hold(client, token: str, nickname: str) -> None:
    """``token``'s player holds ``nickname``: claimed by a submission, its game verified."""
    players = client.application.extensions["manille"].players
    name = players.claim_nickname(pid_of(token), nickname)
    players.confirm_nickname(pid_of(token), name, valid=True)


def create(client, token, name="Famille", **body):
    return client.post("/api/v1/leagues", json={"name": name, **body}, headers=headers(token))


def join(client, token, invite, **body):
    return client.post("/api/v1/leagues/join", json={"invite": invite, **body},
                       headers=headers(token) if token else {})


def test_a_league_from_creation_to_deletion(client, rclient):
    ada = new_player(client, "Ada")
    r = create(client, ada, name="  Les   Dupont <b>&</b> ", nickname="Ada")
    assert r.status_code == 201, r.get_json()
    league = r.get_json()
    assert league["name"] == "Les Dupont <b>&</b>"  # normalised, kept as text
    assert league["owner"] is True and league["members"] == 1
    assert league["roster"] == [{"member": league["roster"][0]["member"], "nickname": "Ada", "owner": True, "me": True}]
    assert league["invite_url"] == f"/leagues/join/{league['invite']}"
    lid, invite = league["league_id"], league["invite"]
    # the invite's secret: 128 bits of token_urlsafe beside the id
    assert invite.startswith(lid) and len(invite) - len(lid) == 22
    assert client.get("/api/v1/players/me", headers=headers(ada)).get_json()["nickname"] == "Ada"

    # a friend arrives with the link and no token: a name they do not hold yet is refused, and
    # nothing is stored; without one they join, listed without a name until a game of theirs is verified
    before = snapshot(rclient)
    err(join(client, None, invite, nickname="Bob"), 409, "nickname_not_held")
    assert snapshot(rclient) == before
    r = join(client, None, invite)
    assert r.status_code == 200, r.get_json()
    bob = r.get_json()["player_token"]
    assert r.get_json()["owner"] is False and r.get_json()["members"] == 2
    assert [m["nickname"] for m in r.get_json()["roster"]] == ["Ada", None]
    # joining again is the same answer, and changes nothing
    before = snapshot(rclient)
    again = join(client, bob, invite)
    assert again.status_code == 200 and again.get_json() == {k: v for k, v in r.get_json().items() if k != "player_token"}
    assert snapshot(rclient) == before

    listed = client.get("/api/v1/players/me/leagues", headers=headers(bob)).get_json()
    assert listed == {"leagues": [{"league_id": lid, "name": "Les Dupont <b>&</b>", "members": 2, "owner": False}]}
    preview = client.get(f"/api/v1/leagues/invites/{invite}", headers=headers(bob)).get_json()
    assert preview == {"league_id": lid, "name": "Les Dupont <b>&</b>", "members": 2, "member": True, "full": False}

    # the owner's changes; a member may not make them
    err(client.patch(f"/api/v1/leagues/{lid}", json={"name": "Nope"}, headers=headers(bob)), 403, "not_league_owner")
    err(client.post(f"/api/v1/leagues/{lid}/invite", headers=headers(bob)), 403, "not_league_owner")
    err(client.delete(f"/api/v1/leagues/{lid}", headers=headers(bob)), 403, "not_league_owner")
    handle = {m["nickname"]: m["member"] for m in league["roster"]}
    err(client.delete(f"/api/v1/leagues/{lid}/members/{handle['Ada']}", headers=headers(bob)), 403, "not_league_owner")
    renamed = client.patch(f"/api/v1/leagues/{lid}", json={"name": "Dupont"}, headers=headers(ada))
    assert renamed.status_code == 200 and renamed.get_json()["name"] == "Dupont"
    assert client.get(f"/api/v1/leagues/{lid}", headers=headers(bob)).get_json()["name"] == "Dupont"

    # a new link: the old one stops working at once
    fresh = client.post(f"/api/v1/leagues/{lid}/invite", headers=headers(ada)).get_json()["invite"]
    assert fresh != invite and fresh.startswith(lid)
    cyd = new_player(client, "Cyd")
    err(join(client, cyd, invite), 404, "unknown_league")
    err(client.get(f"/api/v1/leagues/invites/{invite}"), 404, "unknown_league")
    assert join(client, cyd, fresh).status_code == 200

    # the owner removes a member (by handle): 404 to them from then on, even with the link
    handle = {m["nickname"]: m["member"] for m in client.get(f"/api/v1/leagues/{lid}", headers=headers(ada)).get_json()["roster"]}
    err(client.delete(f"/api/v1/leagues/{lid}/members/{'0' * 16}", headers=headers(ada)), 404, "unknown_member")
    err(client.delete(f"/api/v1/leagues/{lid}/members/{handle['Ada']}", headers=headers(ada)), 409, "cannot_remove_self")
    after = client.delete(f"/api/v1/leagues/{lid}/members/{handle['Cyd']}", headers=headers(ada))
    assert after.status_code == 200 and [m["nickname"] for m in after.get_json()["roster"]] == ["Ada", None]
    err(client.get(f"/api/v1/leagues/{lid}", headers=headers(cyd)), 404, "unknown_league")
    err(client.get(f"/api/v1/leagues/{lid}/leaderboards/days/{DAY}", headers=headers(cyd)), 404, "unknown_league")
    err(join(client, cyd, fresh), 404, "unknown_league")
    assert client.get("/api/v1/players/me/leagues", headers=headers(cyd)).get_json() == {"leagues": []}
    # a new link lets them back (the owner chose whom to give it)
    newest = client.post(f"/api/v1/leagues/{lid}/invite", headers=headers(ada)).get_json()["invite"]
    assert join(client, cyd, newest).status_code == 200

    # the owner deletes it: gone for every member, and from their lists
    assert client.delete(f"/api/v1/leagues/{lid}", headers=headers(ada)).status_code == 204
    for token in (ada, bob, cyd):
        err(client.get(f"/api/v1/leagues/{lid}", headers=headers(token)), 404, "unknown_league")
        assert client.get("/api/v1/players/me/leagues", headers=headers(token)).get_json() == {"leagues": []}
    err(join(client, bob, newest), 404, "unknown_league")
    assert not rclient.keys(f"manille:{{league:{lid}}}:*")


def test_an_owner_who_leaves_hands_it_on_and_the_last_member_deletes_it(client, rclient):
    ada, bob, cyd = new_player(client, "Ada"), new_player(client, "Bob"), new_player(client, "Cyd")
    league = create(client, ada).get_json()
    lid = league["league_id"]
    for token in (bob, cyd):
        assert join(client, token, league["invite"]).status_code == 200
    assert client.post(f"/api/v1/leagues/{lid}/leave", headers=headers(ada)).status_code == 204
    err(client.post(f"/api/v1/leagues/{lid}/leave", headers=headers(ada)), 404, "unknown_league")
    seen = client.get(f"/api/v1/leagues/{lid}", headers=headers(bob)).get_json()
    assert seen["owner"] is True and [m["nickname"] for m in seen["roster"] if m["owner"]] == ["Bob"]
    assert client.patch(f"/api/v1/leagues/{lid}", json={"name": "Bob's"}, headers=headers(bob)).status_code == 200
    for token in (bob, cyd):
        assert client.post(f"/api/v1/leagues/{lid}/leave", headers=headers(token)).status_code == 204
    assert not rclient.keys(f"manille:{{league:{lid}}}:*")
    err(join(client, ada, league["invite"]), 404, "unknown_league")


def test_a_member_is_removed_by_handle_whatever_their_name(client):
    """The owner names a member by the roster's handle: members without a name, and a nickname of
    any script, are removed alike; a nickname (an old client's) is a 404 that says what to send."""
    from urllib.parse import quote

    ada = new_player(client, "Ada")
    league = create(client, ada).get_json()
    names = ["AC/DC", "Zoë B", "Дмитрий", "山田太郎", "O'Brien?#", None, None]
    for name in names:
        assert join(client, new_player(client, name), league["invite"]).status_code == 200
    roster = client.get(f"/api/v1/leagues/{league['league_id']}", headers=headers(ada)).get_json()["roster"]
    assert [m["nickname"] for m in roster] == ["Ada", *names]
    handles = [m["member"] for m in roster]
    assert len(set(handles)) == len(handles) and all(re.fullmatch(r"[0-9a-f]{16}", h) for h in handles)
    for name in ("Ada", "AC/DC", "Zoë B"):  # an old client's nickname: a clear 404, nothing removed
        body = err(client.delete(f"/api/v1/leagues/{league['league_id']}/members/{quote(name, safe='')}",
                                 headers=headers(ada)), 404, "unknown_member")
        assert "handle" in body["message"]
    err(client.delete(f"/api/v1/leagues/{league['league_id']}/members/{handles[0]}", headers=headers(ada)),
        409, "cannot_remove_self")
    for handle in handles[1:]:
        r = client.delete(f"/api/v1/leagues/{league['league_id']}/members/{handle}", headers=headers(ada))
        assert r.status_code == 200, r.get_json()
        assert handle not in [m["member"] for m in r.get_json()["roster"]]
    assert [m["nickname"] for m in r.get_json()["roster"]] == ["Ada"]
    # the same player has another handle in another league
    other = create(client, ada, name="Other").get_json()
    assert other["roster"][0]["member"] != handles[0]


def test_nobody_but_a_member_sees_a_league(client):
    ada = new_player(client, "Ada")
    league = create(client, ada).get_json()
    lid = league["league_id"]
    stranger = new_player(client, "Eve")
    paths = [f"/api/v1/leagues/{lid}", f"/api/v1/leagues/{lid}/leaderboards/days/{DAY}",
             f"/api/v1/leagues/{lid}/leaderboards/weeks/2026-W49", f"/api/v1/leagues/{lid}/leaderboards/months/2026-12",
             f"/api/v1/leagues/{lid}/leaderboards/all-time"]
    for path in paths:
        err(client.get(path, headers=headers(stranger)), 404, "unknown_league")
        err(client.get(path), 401, "invalid_token")
    err(client.post(f"/api/v1/leagues/{lid}/leave", headers=headers(stranger)), 404, "unknown_league")
    err(client.patch(f"/api/v1/leagues/{lid}", json={"name": "X"}, headers=headers(stranger)), 404, "unknown_league")
    err(client.delete(f"/api/v1/leagues/{lid}", headers=headers(stranger)), 404, "unknown_league")
    err(client.post(f"/api/v1/leagues/{lid}/invite", headers=headers(stranger)), 404, "unknown_league")
    err(client.delete(f"/api/v1/leagues/{lid}/members/Ada", headers=headers(stranger)), 404, "unknown_league")
    # an id that is none, and invites that are wrong: the same answer
    err(client.get("/api/v1/leagues/not-an-id", headers=headers(ada)), 404, "unknown_league")
    wrong = league["invite"][:-1] + ("A" if league["invite"][-1] != "A" else "B")
    for code in (wrong, "short", league["league_id"] + "x" * 22, "{" * 38):
        err(join(client, stranger, code), 404, "unknown_league")
    assert client.get("/api/v1/players/me/leagues", headers=headers(stranger)).get_json() == {"leagues": []}


def test_names_follow_the_rules_and_are_text(client):
    ada = new_player(client, "Ada")
    for name, code in [("", "league_name_empty"), ("   ", "league_name_empty"), ("x" * 41, "league_name_too_long"),
                       ("a\tb", "league_name_control"), ("a\nb", "league_name_control"),
                       ("a\u200bb", "league_name_invisible"), ("ab\u202e", "league_name_invisible"),
                       ("a\ue000", "league_name_unassigned"), ("e\u0301\u0301", "league_name_invisible")]:
        err(create(client, ada, name=name), 422, code)
    err(create(client, ada, name="ok", nickname="a\u200bb"), 422, "nickname_invisible")
    # 40 characters as a reader counts them, in any script, emoji and marks included
    for name in ("x" * 40, "é" * 40, "Familie Müller & Пётр 🂡", "<script>alert(1)</script>"):
        r = create(client, ada, name=name)
        assert r.status_code == 201 and r.get_json()["name"] == name, (name, r.get_json())
    lid = r.get_json()["league_id"]
    err(client.patch(f"/api/v1/leagues/{lid}", json={"name": "y" * 41}, headers=headers(ada)), 422,
        "league_name_too_long")


@pytest.mark.slow  # 500 joins, each a real request
def test_at_most_20_leagues_a_player_and_500_members_a_league(client, rclient, clock):
    ada = new_player(client, "Ada")
    leagues = [create(client, ada, name=f"L{i}").get_json() for i in range(MAX_LEAGUES)]
    assert all(lg["league_id"] for lg in leagues)
    refused = create(client, ada, name="one more")
    body = err(refused, 409, "too_many_leagues")
    assert body["limit"] == MAX_LEAGUES
    bob = new_player(client, "Bob")
    other = create(client, bob, name="Bob's").get_json()
    before = snapshot(rclient)
    err(join(client, ada, other["invite"]), 409, "too_many_leagues")
    assert snapshot(rclient) == before
    # a league deleted while its member was away (its last step lost: the member's list still names
    # it) is not counted once that is older than any join under way: its place is free again
    rclient.delete(*league_keys(leagues[0]["league_id"]))
    err(join(client, ada, other["invite"]), 409, "too_many_leagues")  # it might be a join still under way
    clock.tick(SETTLE_MS / 1000 + 1)
    assert join(client, ada, other["invite"]).status_code == 200
    assert len(client.get("/api/v1/players/me/leagues", headers=headers(ada)).get_json()["leagues"]) == MAX_LEAGUES

    # 500 members, each joining by the link for real; the 501st is told it is full, and nothing changes
    league = create(client, bob, name="Big").get_json()
    for i in range(MAX_MEMBERS - 1):
        r = join(client, None, league["invite"])  # a new player, listed without a name
        assert r.status_code == 200, r.get_json()
    assert client.get(f"/api/v1/leagues/{league['league_id']}", headers=headers(bob)).get_json()["members"] == MAX_MEMBERS
    late = new_player(client, "Late")
    assert client.get(f"/api/v1/leagues/invites/{league['invite']}", headers=headers(late)).get_json()["full"] is True
    before = snapshot(rclient)
    assert err(join(client, late, league["invite"]), 409, "league_full")["limit"] == MAX_MEMBERS
    assert snapshot(rclient) == before


def test_two_joins_at_once_cannot_pass_the_limit(rclient):
    """The player's place is taken in the player's slot first (atomically), so of two joins at the
    limit's edge, whatever their order, exactly one passes."""
    from datetime import datetime, timezone

    leagues, now = Leagues(rclient), datetime(2026, 12, 2, 11, tzinfo=timezone.utc)
    owner = "o" * 24
    views = [leagues.create(owner, f"L{i}", "Owner", now) for i in range(2)]
    player = "p" * 24
    for i in range(MAX_LEAGUES - 1):
        leagues.create(player, f"mine {i}", "Pat", now)
    outcomes = []

    def join_one(view):
        try:
            leagues.join(view.to_json()["invite"], player, "Pat", now)
            outcomes.append("joined")
        except Exception as e:  # noqa: BLE001 - the Conflict is the outcome looked for
            outcomes.append(getattr(e, "code", repr(e)))

    threads = [threading.Thread(target=join_one, args=(v,)) for v in views]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["joined", "too_many_leagues"]
    assert rclient.zcard(player_leagues_key(player)) == MAX_LEAGUES


def test_a_join_under_way_keeps_its_place_when_the_list_is_read_meanwhile(rclient):
    """Between a join's two steps (the place in the player's slot, then the league's), a read of the
    player's leagues sees a place whose league does not have them yet: it must stay (else two
    joins at the limit could both pass), and be dropped only once older than any join takes."""
    from datetime import datetime, timezone

    leagues, now = Leagues(rclient), datetime(2026, 12, 2, 11, tzinfo=timezone.utc)
    view = leagues.create("o" * 24, "L", "Owner", now)
    player, key = "p" * 24, player_leagues_key("p" * 24)
    leagues._take_place(player, view.id)  # a join's first step, its second not yet run
    taken = rclient.zscore(key, view.id)
    assert leagues.mine(player, now_ms=int(taken) + SETTLE_MS) == [] and rclient.zscore(key, view.id) == taken
    assert leagues.join(view.to_json()["invite"], player, "Pat", now)[1] is True
    assert [lg["league_id"] for lg in leagues.mine(player, now_ms=int(taken) + 10 * SETTLE_MS)] == [view.id]
    # a place left by a join that never finished goes once it is older than SETTLE_MS
    other = leagues.create("o" * 24, "M", "Owner", now)
    leagues._take_place(player, other.id)
    left = int(rclient.zscore(key, other.id))
    leagues.mine(player, now_ms=left + SETTLE_MS + 1)
    assert rclient.zscore(key, other.id) is None and rclient.zscore(key, view.id) is not None


def test_creating_and_joining_are_rate_limited_as_runs_are(redis_server, rclient):
    client = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                         "MANILLE_BOTS": TEST_BOTS, "MANILLE_LIMIT_LEAGUES_PER_TOKEN": "2 per hour",
                         "MANILLE_LIMIT_LEAGUES_PER_ADDRESS": "4 per hour"}).test_client()
    ada = new_player(client, "Ada")
    first = create(client, ada, name="One").get_json()
    assert create(client, ada, name="Two").status_code == 201
    before = snapshot(rclient)
    refused = create(client, ada, name="Three")
    body = err(refused, 429, "too_many_requests")
    assert body["limit"] == "leagues_per_token" and 0 < int(refused.headers["Retry-After"]) == body["retry_after"] <= 3600
    assert snapshot(rclient) == before  # nothing stored, nothing counted
    # a join answered as a member already counts nothing and is never refused
    assert join(client, ada, first["invite"]).status_code == 200
    # joining counts per token and per address: two new players, then the address is full
    assert join(client, None, first["invite"]).status_code == 200
    assert join(client, None, first["invite"]).status_code == 200
    limited = join(client, None, first["invite"])
    assert err(limited, 429, "too_many_requests")["limit"] == "leagues_per_address"
    assert "Retry-After" in limited.headers
    assert client.get(f"/api/v1/leagues/{first['league_id']}", headers=headers(ada)).get_json()["members"] == 3
    # another address is another household
    assert join(client, None, first["invite"]).status_code == 429
    other = client.post("/api/v1/leagues/join", json={"invite": first["invite"]},
                        environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert other.status_code == 200


def record(lb, day, pid, nickname, score, n):
    assert lb.record(day, pid, nickname, score, f"{day:%Y%m%d}-{shard_of(pid):02d}-{n:028d}")


def test_the_leagues_boards_are_the_public_boards_of_its_members(client, rclient):
    lb = Leaderboard(rclient)
    ada, bob, cyd, dan = (new_player(client, n) for n in ("Ada", "Bob", "Cyd", "Dan"))
    league = create(client, ada).get_json()
    lid = league["league_id"]
    for token in (bob, cyd, dan):
        assert join(client, token, league["invite"]).status_code == 200
    pid = {t: pid_of(t) for t in (ada, bob, cyd, dan)}
    # the public day board: 40 strangers and three members (Dan has not played)
    for i in range(40):
        record(lb, DAY, f"stranger{i:02d}", f"S{i}", 900 + 10 * i, i)
    record(lb, DAY, pid[bob], "Bob", 1200, 100)
    record(lb, DAY, pid[ada], "Ada", 1100, 101)
    record(lb, DAY, pid[cyd], "Cyd", 1200, 102)
    record(lb, date(2026, 11, 30), pid[ada], "Ada", 1300, 103)  # the Monday of the same week
    record(lb, date(2026, 11, 30), pid[dan], "Dan", 990, 104)

    def public_rank(board, p):
        return lb.rank_of(board, p)["rank"]

    day = client.get(f"/api/v1/leagues/{lid}/leaderboards/days/{DAY}", headers=headers(ada)).get_json()
    assert day["board"] == "day" and day["period"] == str(DAY) and day["members"] == 4
    assert day["public_total"] == 43
    assert [(e["rank"], e["nickname"], e["score"], e["me"]) for e in day["entries"]] == [
        (1, "Bob", 1200, False), (1, "Cyd", 1200, False), (3, "Ada", 1100, True)]
    assert [e["public_rank"] for e in day["entries"]] == [public_rank(day_board(DAY), pid[t]) for t in (bob, cyd, ada)]
    assert day["entries"][0]["public_rank"] == day["entries"][1]["public_rank"]  # shared, as on the public board
    assert day["not_played"] == ["Dan"]
    # the day's board tells no more than the public board: no player id, no game
    assert all(set(e) == {"rank", "member", "nickname", "score", "public_rank", "me"} for e in day["entries"])

    week = client.get(f"/api/v1/leagues/{lid}/leaderboards/weeks/2026-W49", headers=headers(bob)).get_json()
    assert [(e["nickname"], e["sum"], e["days"]) for e in week["entries"]] == [
        ("Ada", 400, 2), ("Bob", 200, 1), ("Cyd", 200, 1), ("Dan", -10, 1)]
    assert [e["rank"] for e in week["entries"]] == [1, 2, 2, 4]
    assert [e["public_rank"] for e in week["entries"]] == [public_rank(week_board("2026-W49"), pid[t])
                                                           for t in (ada, bob, cyd, dan)]
    assert week["not_played"] == [] and [e["me"] for e in week["entries"]] == [False, True, False, False]
    month = client.get(f"/api/v1/leagues/{lid}/leaderboards/months/2026-11", headers=headers(bob)).get_json()
    assert [(e["nickname"], e["sum"], e["days"]) for e in month["entries"]] == [("Ada", 300, 1), ("Dan", -10, 1)]
    assert month["not_played"] == ["Bob", "Cyd"]
    whole = client.get(f"/api/v1/leagues/{lid}/leaderboards/all-time", headers=headers(cyd)).get_json()
    assert [(e["nickname"], e["sum"], e["days"], e["public_rank"]) for e in whole["entries"]] == [
        (e["nickname"], e["margin"], e["days"], e["rank"])
        for e in lb.page(ALL_TIME, 0, 100)["entries"] if e["player"] in pid.values()]
    assert month_board("2026-11").kind == "month"

    # a game taken off the public boards (held, disqualified) leaves the league's the same way
    assert lb.remove(DAY, pid[bob], 1200)
    day = client.get(f"/api/v1/leagues/{lid}/leaderboards/days/{DAY}", headers=headers(ada)).get_json()
    assert [(e["rank"], e["nickname"]) for e in day["entries"]] == [(1, "Cyd"), (2, "Ada")]
    assert day["not_played"] == ["Bob", "Dan"]

    err(client.get(f"/api/v1/leagues/{lid}/leaderboards/days/2026-13-01", headers=headers(ada)), 404, "unknown_date")
    err(client.get(f"/api/v1/leagues/{lid}/leaderboards/days/2026-12-09", headers=headers(ada)), 404, "unknown_date")
    err(client.get(f"/api/v1/leagues/{lid}/leaderboards/weeks/2026-W60", headers=headers(ada)), 404, "unknown_period")


def test_a_rebuild_of_the_boards_leaves_every_league_as_it_was(client, rclient):
    """A rebuild wipes every board (its keys by pattern, the layouts before included): a league is
    no board, and its boards come back with the public ones."""
    lb = Leaderboard(rclient)
    ada = new_player(client, "Ada")
    league = create(client, ada).get_json()
    assert join(client, new_player(client, "Bob"), league["invite"]).status_code == 200
    record(lb, DAY, pid_of(ada), "Ada", 1100, 1)
    kept = {k: v for k, v in snapshot(rclient).items() if "{league:" in k or ":leagues" in k}
    assert len(kept) >= 4
    assert lb.wipe() > 0
    assert {k: v for k, v in snapshot(rclient).items() if "{league:" in k or ":leagues" in k} == kept
    record(lb, DAY, pid_of(ada), "Ada", 1100, 1)  # the rebuild records the game again
    board = client.get(f"/api/v1/leagues/{league['league_id']}/leaderboards/days/{DAY}", headers=headers(ada)).get_json()
    assert [e["nickname"] for e in board["entries"]] == ["Ada"] and board["not_played"] == ["Bob"]


def test_no_answer_to_a_member_carries_another_members_token_or_id(client, rclient):
    ada = new_player(client, "Ada")
    league = create(client, ada).get_json()
    lid = league["league_id"]
    bob = new_player(client, "Bob")
    assert join(client, bob, league["invite"]).status_code == 200
    lb = Leaderboard(rclient)
    record(lb, DAY, pid_of(ada), "Ada", 1100, 1)
    answers = [join(client, bob, league["invite"]).get_data(as_text=True)]
    for path in (f"/api/v1/leagues/{lid}", "/api/v1/players/me/leagues", f"/api/v1/leagues/invites/{league['invite']}",
                 f"/api/v1/leagues/{lid}/leaderboards/days/{DAY}", f"/api/v1/leagues/{lid}/leaderboards/weeks/2026-W49",
                 f"/api/v1/leagues/{lid}/leaderboards/months/2026-12", f"/api/v1/leagues/{lid}/leaderboards/all-time"):
        r = client.get(path, headers=headers(bob))
        assert r.status_code == 200, (path, r.get_json())
        answers.append(r.get_data(as_text=True))
    assert "Ada" in answers[-1]
    for text in answers:
        assert ada not in text and pid_of(ada) not in text


def test_a_members_new_nickname_is_shown_in_every_league(client, run_worker):
    """A league shows the name a member holds: none until a game of theirs is verified (a name
    only claimed by a submission is shown nowhere), then that name in every league of theirs."""
    ada = new_player(client, "Ada")
    one, two = create(client, ada, name="One").get_json(), create(client, ada, name="Two").get_json()
    r = client.post("/api/v1/runs", json={})
    bob = r.get_json()["player_token"]
    for league in (one, two):
        err(join(client, bob, league["invite"], nickname="Bob"), 409, "nickname_not_held")
        assert join(client, bob, league["invite"]).status_code == 200
    run = r.get_json()
    while run["status"] != "finished":
        run = client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": run["turn"], "card": run["view"]["legal"][0]},
                          headers=headers(bob)).get_json()
    assert client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Robert"},
                       headers=headers(bob)).status_code == 202
    seen = client.get(f"/api/v1/leagues/{one['league_id']}", headers=headers(ada)).get_json()
    assert [m["nickname"] for m in seen["roster"]] == ["Ada", None]  # claimed, not yet theirs
    assert client.get("/api/v1/players/me", headers=headers(bob)).get_json()["nickname"] == "Robert"  # their own view
    run_worker()
    for league in (one, two):
        seen = client.get(f"/api/v1/leagues/{league['league_id']}", headers=headers(ada)).get_json()
        assert [m["nickname"] for m in seen["roster"]] == ["Ada", "Robert"]
    board = client.get(f"/api/v1/leagues/{one['league_id']}/leaderboards/days/{DAY}", headers=headers(ada)).get_json()
    assert [e["nickname"] for e in board["entries"]] == ["Robert"] and board["not_played"] == ["Ada"]
    # joining with another name of theirs shows it everywhere; a look-alike of another's is taken
    hold(client, bob, "Bobby")
    assert join(client, bob, two["invite"], nickname="Bobby").status_code == 200
    assert [m["nickname"] for m in client.get(f"/api/v1/leagues/{one['league_id']}",
                                              headers=headers(ada)).get_json()["roster"]] == ["Ada", "Bobby"]
    err(join(client, ada, two["invite"], nickname="bobby"), 409, "nickname_taken")
    err(join(client, ada, two["invite"], nickname="Rob"), 409, "nickname_not_held")


class Trips:
    """Round trips a client made to Redis (a command alone, or a pipeline's batch), with the keys
    of each (as the server reads them)."""

    def __init__(self, url: str) -> None:
        self.trips: list[list[str]] = []
        self.plain = redis.Redis.from_url(url, decode_responses=True)

    def keys_of(self, args) -> list[str]:
        if str(args[0]).upper() == "EVALSHA":
            return [str(k) for k in args[3:3 + int(args[2])]]
        try:
            return list(self.plain.command_getkeys(*args))
        except redis.ResponseError:
            return []

    def client(self):
        trips = self

        class CountedPipeline(redis.client.Pipeline):
            def execute(self, raise_on_error=True):
                trips.trips.append([k for args, _ in self.command_stack for k in trips.keys_of(args)])
                return super().execute(raise_on_error)

        class Counted(redis.Redis):
            def execute_command(self, *args, **options):
                trips.trips.append(trips.keys_of(args))
                return super().execute_command(*args, **options)

            def pipeline(self, transaction=True, shard_hint=None):
                return CountedPipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)

        return Counted


@pytest.mark.single_redis  # counts one server's round trips; on a cluster a pipeline is one round trip too
def test_a_board_read_is_two_round_trips_whatever_the_leagues_size(redis_server, rclient):
    """The league's members in its slot, then their entries on the public board in its slot: the
    same two round trips for 3 members as for 200, and no other slot touched (a week's board reads
    its day boards' too, as its public page does, in the same round trip)."""
    trips = Trips(redis_server.url)
    spy = trips.client().from_url(redis_server.url, decode_responses=True)
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF})
    app.extensions["manille"] = Services(app.extensions["manille"].settings, client=spy)
    client = app.test_client()
    lb = Leaderboard(rclient)
    owner_small, owner_big = new_player(client, "Small"), new_player(client, "Big")
    small, big = create(client, owner_small, name="small").get_json(), create(client, owner_big, name="big").get_json()
    for i in range(2):
        assert join(client, None, small["invite"]).status_code == 200
    for i in range(199):
        r = join(client, None, big["invite"])
        assert r.status_code == 200
        if i % 2:
            record(lb, DAY, pid_of(r.get_json()["player_token"]), f"b{i:03d}", 1000 + i, i)
    counts = {}
    for league, token in ((small, owner_small), (big, owner_big)):
        path = f"/api/v1/leagues/{league['league_id']}/leaderboards/days/{DAY}"
        assert client.get(path, headers=headers(token)).status_code == 200  # its scripts loaded from here on
        trips.trips.clear()
        body = client.get(path, headers=headers(token)).get_json()
        # the token's device, read on every request (a removed one is refused at once), in its own slot
        device = trips.trips.pop(0)
        assert {key_slot(k.encode()) for k in device} == {key_slot(f"player:{pid_of(token)}".encode())}
        counts[league["name"]] = len(trips.trips)
        slots = {key_slot(k.encode()) for trip in trips.trips for k in trip}
        assert slots == {key_slot(f"league:{league['league_id']}".encode()), key_slot(b"boards:day:2026-12-02")}
        # the league and its names (each key's lifetime renewed beside them); one script on the board
        assert [len(trip) for trip in trips.trips] == [6, 1]
    assert counts == {"small": 2, "big": 2}
    assert len(body["entries"]) == 99 and len(body["not_played"]) == 101
