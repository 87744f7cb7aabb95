"""A play starts from the game its web process kept (``service.runs.cache``) only when that game
matches what Redis holds: plays served by several processes in turn, a run rewound in Redis, an
illegal card, all answered exactly as a process without the cache answers them."""

from __future__ import annotations

import random

from service.app import create_app
from service.replay import GameState
from service.runs import Runs
from service.runs.cache import GameCache

from support.svc_helpers import SECRET, TEST_BOTS, headers


def make_app(redis_server, **config):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, **config})


def games(app):
    return app.extensions["manille"].runs.games


def open_ranked(client, addr):
    r = client.post("/api/v1/runs", json={}, environ_base={"REMOTE_ADDR": addr})
    assert r.status_code == 201, r.get_json()
    run = r.get_json()
    return run, run.pop("player_token")


def play(client, run, token, card, turn=None):
    return client.post(f"/api/v1/runs/{run['run_id']}/plays", headers=headers(token),
                       json={"turn": run["turn"] if turn is None else turn, "card": card})


def same_game(body):
    """What two runs of the same day and the same cards must answer alike."""
    return {k: v for k, v in body.items() if k != "run_id"}


def test_plays_served_by_any_process_answer_as_a_replay_does(redis_server, rclient):
    """Three runs of the day, the same cards: one always on the same process (its game kept from
    play to play), one on three processes in turn (each finds the game it kept stale, or none),
    one on a process without the cache (every play replays)."""
    procs = [make_app(redis_server) for _ in range(3)]
    no_cache = make_app(redis_server, MANILLE_PLAY_CACHE="0")
    clients = [a.test_client() for a in procs]
    steady, steady_token = open_ranked(clients[0], "10.0.0.1")
    moving, moving_token = open_ranked(clients[1], "10.0.0.2")
    replayed, replayed_token = open_ranked(no_cache.test_client(), "10.0.0.3")
    assert same_game(steady) == same_game(moving) == same_game(replayed)
    rng, order = random.Random(3), [0, 0, 1, 2, 2, 1, 0]
    turn = 0
    while steady["status"] != "finished":
        card = rng.choice(steady["view"]["legal"])
        steady = play(clients[0], steady, steady_token, card).get_json()
        moving = play(clients[order[turn % len(order)]], moving, moving_token, card).get_json()
        replayed = play(no_cache.test_client(), replayed, replayed_token, card).get_json()
        assert same_game(steady) == same_game(moving) == same_game(replayed), f"turn {turn}"
        if moving["status"] != "finished":
            # the process that played last holds the game as stored; the others hold older
            # ones, which a request there finds stale and drops
            stored = rclient.hget(Runs.key(moving["run_id"]), "plays")
            kept = [g._games.get(moving["run_id"]) for g in map(games, procs)]
            assert [k[1] == stored for k in kept if k].count(True) == 1
        turn += 1
    assert steady["result"] == replayed["result"]
    # the steady run was served from the kept game every time (its opening too): the cache did
    # the work; the moving one missed when it changed process and fell back to the replay
    assert games(procs[0]).hits >= turn
    assert games(procs[2]).misses >= 2
    assert games(no_cache).hits == 0 and len(games(no_cache)) == 0
    # a finished game is not kept: nothing more can be played on it
    assert all(steady["run_id"] not in g._games for g in map(games, procs))


def test_a_run_rewound_in_redis_is_replayed_not_answered_from_the_kept_game(redis_server, rclient):
    app, other = make_app(redis_server), make_app(redis_server, MANILLE_PLAY_CACHE="0")
    client = app.test_client()
    run, token = open_ranked(client, "10.0.0.1")
    first = play(client, run, token, run["view"]["legal"][0]).get_json()
    after_one = rclient.hgetall(Runs.key(run["run_id"]))
    second = play(client, first, token, first["view"]["legal"][0]).get_json()
    assert second["turn"] == 2 and games(app).hits == 2
    # Redis goes back to the game after one card (a restore from an older backup, say)
    rclient.delete(Runs.key(run["run_id"]))
    rclient.hset(Runs.key(run["run_id"]), mapping=after_one)
    card = first["view"]["legal"][-1]
    again = play(client, first, token, card).get_json()
    assert games(app).misses >= 1 and again["turn"] == 2
    # the answer is the replay's: a run of the same day with those two cards, on a process
    # without the cache
    check, check_token = open_ranked(other.test_client(), "10.0.0.2")
    check = play(other.test_client(), check, check_token, run["view"]["legal"][0]).get_json()
    check = play(other.test_client(), check, check_token, card).get_json()
    assert same_game(again) == same_game(check)


def test_an_illegal_card_keeps_the_game_and_a_repeat_leaves_it(redis_server, rclient):
    app = make_app(redis_server)
    client = app.test_client()
    run, token = open_ranked(client, "10.0.0.1")
    view = run["view"]
    illegal = sorted(set(view["hand"]) - set(view["legal"]))
    if illegal:
        assert play(client, run, token, illegal[0]).get_json()["error"] == "illegal_card"
    hits = games(app).hits
    body = play(client, run, token, view["legal"][0]).get_json()
    assert games(app).hits == hits + 1  # the refused card changed nothing kept
    assert play(client, run, token, view["legal"][0], turn=0).get_json() == body  # the repeat
    nxt = play(client, body, token, body["view"]["legal"][0])
    assert nxt.status_code == 200 and games(app).hits == hits + 2


def test_the_cache_keeps_the_most_recent_games_and_checks_seed_and_plays():
    cache = GameCache(2)
    seed = bytes(32)
    states = {name: GameState(seed) for name in "abc"}
    for name, state in states.items():
        cache.put(name, seed, "", state)
    assert len(cache) == 2 and cache.take("a", seed, "") is None  # the oldest went
    got = cache.take("b", seed, "")
    assert got is not None and got is not states["b"]  # a copy: the caller's own goes on changing
    assert cache.take("b", seed, "") is None  # taken: a second request for it replays
    assert cache.take("c", seed, "7H") is None and cache.take("c", seed, "") is None  # stale: dropped
    cache.put("c", seed, "", states["c"])
    assert cache.take("c", bytes([1] * 32), "") is None
    off = GameCache(0)
    off.put("a", seed, "", states["a"])
    assert len(off) == 0
