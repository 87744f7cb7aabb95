"""What a player-day keeps in Redis: runs and the day's indexes of them expire after the day's
keep, a verified game's path leaves the day's tree, runs and submissions are stored compactly and
read back as they were played (a submission's record replayed byte for byte), board wipes UNLINK,
readiness reports Redis's memory, a full Redis answers 503."""

from __future__ import annotations

import json
import time
from datetime import date, datetime, timedelta, timezone

import pytest
from freezegun import freeze_time
from hypothesis import given, settings as hsettings, strategies as st
from rq import Queue, Worker

from bots import get_bot
from service.app import create_app
from service.config import QUEUE_NAME
from service.leaderboard import ALL_TIME, Board, Leaderboard, day_board
from service.replay import GameState, IllegalPlayError, dumps, player_cards, simulate, verify
from service.runs import Runs, path_hash, ranked_id, run_shard, unpack_actions
from service.seeds import daily_seed
from service.store import raw_client
from service.submissions import AGENTS, Submissions
from service.store import compact
from service.submissions import codec

from support.svc_helpers import LIMITS_OFF, OPS, OPS_TOKENS, SECRET, TEST_BOTS, headers, play_game, queue_of

DAY = date(2026, 12, 2)
# Europe/Brussels in December is UTC+1: the day closes at 23:00 UTC, its seed is public at 23:30.
BEFORE_MIDNIGHT = "2026-12-02T22:50:00+00:00"
AFTER_GRACE = "2026-12-02T23:31:00+00:00"
REVEAL = datetime(2026, 12, 2, 23, 30, tzinfo=timezone.utc)
BROWSER = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/126.0.0.0 Safari/537.36")


def make_app(redis_server, **config):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS, **LIMITS_OFF, **config})


@pytest.fixture
def app(redis_server, rclient):
    return make_app(redis_server)


def ops():
    return {"Authorization": f"Bearer {OPS}"}


def post(client, addr="192.0.2.1", agent=BROWSER):
    env = {"REMOTE_ADDR": addr, "HTTP_USER_AGENT": agent}

    def call(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs, environ_base=env)
        return r.status_code, r.get_json()
    return call


def open_run(client, body=None, addr="192.0.2.1", token=None):
    r = client.post("/api/v1/runs", json=body or {}, headers=headers(token) if token else {},
                    environ_base={"REMOTE_ADDR": addr, "HTTP_USER_AGENT": BROWSER})
    assert r.status_code == 201, r.get_json()
    run = r.get_json()
    return run, run.pop("player_token", token)


def play(client, run, token, n=None, addr="192.0.2.1", pick=lambda legal: legal[0]):
    call = post(client, addr)
    while run["status"] != "finished" and (n is None or n > 0):
        status, run = call(f"/api/v1/runs/{run['run_id']}/plays", {"turn": run["turn"], "card": pick(run["view"]["legal"])},
                           headers(token))
        assert status == 200, run
        n = None if n is None else n - 1
    return run


def submit(client, run, token, nickname, addr="192.0.2.1", agent=BROWSER):
    status, body = post(client, addr, agent)("/api/v1/submissions", {"run_id": run["run_id"], "nickname": nickname},
                                             headers(token))
    assert status == 202, body
    return body["submission_id"]


def sub_key(sub_id):
    return Submissions.key(sub_id)


# -- runs expire ----------------------------------------------------------------------------------

def test_a_ranked_run_and_the_days_indexes_expire_48_hours_after_the_reveal_practice_runs_after_a_day(
        app, rclient):
    client = app.test_client()
    with freeze_time(BEFORE_MIDNIGHT):
        run, token = open_run(client)
        run = play(client, run, token, 3)
        keep = int((REVEAL + timedelta(hours=48) - datetime.fromisoformat(BEFORE_MIDNIGHT)).total_seconds())
        shard = run_shard(run["run_id"])
        ranked_keys = [Runs.key(run["run_id"]), Runs.address_runs_key(DAY, shard), Runs.paths_key(DAY, shard)]
        for key in ranked_keys:
            assert keep - 5 <= rclient.ttl(key) <= keep, key  # the plays (HINCRBY, HSET) kept it
        # another player from the same address: the shard's index keeps its TTL, now set again
        other, other_token = open_run(client)
        assert keep - 5 <= rclient.ttl(Runs.address_runs_key(DAY, run_shard(other["run_id"]))) <= keep
        runs = Runs(rclient, app.extensions["manille"].settings)
        assert sorted(runs.address_runs(DAY, "192.0.2.1")) == sorted([run["run_id"], other["run_id"]])
        # practice runs: a day from their opening
        free, _ = open_run(client, {"kind": "random"}, token=token)
        past, _ = open_run(client, {"date": "2026-11-30"}, token=token)
        assert not free["ranked"] and not past["ranked"]
        for practice in (free, past):
            assert 86400 - 5 <= rclient.ttl(Runs.key(practice["run_id"])) <= 86400
        # no key of the day's runs is left without a TTL
        persistent = [k for k in rclient.keys("manille:{day:2026-12-02*}:*")
                      if rclient.ttl(k) == -1 and ":challenge" not in k]
        assert persistent == []


def test_a_play_keeps_a_practice_run_a_day_longer_a_ranked_runs_ttl_stays_its_days(app, rclient):
    """A practice game played across a day is not lost under the player: each play sets its
    TTL again; a ranked run's stays its day's (a play does not move it)."""
    client = app.test_client()
    with freeze_time(BEFORE_MIDNIGHT) as clock:
        ranked, token = open_run(client)
        free, _ = open_run(client, {"kind": "random"}, token=token)
        past, _ = open_run(client, {"date": "2026-11-30"}, token=token)
        rclient.expire(Runs.key(free["run_id"]), 600)  # as if opened 23 h 50 min ago
        rclient.expire(Runs.key(past["run_id"]), 600)
        ranked_ttl = rclient.ttl(Runs.key(ranked["run_id"]))
        clock.tick(60)
        for practice in (free, past):
            play(client, practice, token, 1)
            assert 86400 - 5 <= rclient.ttl(Runs.key(practice["run_id"])) <= 86400, practice["kind"]
        play(client, ranked, token, 1)  # Redis's clock is not frozen: the same TTL, seconds later
        assert ranked_ttl - 5 <= rclient.ttl(Runs.key(ranked["run_id"])) <= ranked_ttl
        # a repeat of the last play stores nothing and sets nothing
        rclient.expire(Runs.key(free["run_id"]), 600)
        again = client.post(f"/api/v1/runs/{free['run_id']}/plays", headers=headers(token),
                            json={"turn": 0, "card": free["view"]["legal"][0]})
        assert again.status_code == 200 and again.get_json()["turn"] == 1
        assert rclient.ttl(Runs.key(free["run_id"])) <= 600


def _pid(rclient, run):
    return rclient.hget(Runs.key(run["run_id"]), "pid")


def test_a_run_is_stored_a_character_an_action_with_its_times_as_gaps(app, rclient):
    """What a run keeps while its day is open, and nothing more: no id or day (its key), an action
    a character, the play times as the gaps a submission keeps, the agent by its digest; the
    player's ranked run has the id the day's seed gives the player, so no marker key names it."""
    client = app.test_client()
    with freeze_time(BEFORE_MIDNIGHT) as clock:
        run, token = open_run(client)
        for _ in range(3):
            clock.tick(2.5)
            run = play(client, run, token, 1)
        stored = rclient.hgetall(Runs.key(run["run_id"]))
        assert set(stored) == {"pid", "kind", "rules", "bots", "status", "ip", "agent", "plays", "cards", "pace",
                               "last", "created_at"}
        assert stored["kind"] == "ranked" and stored["status"] == "playing" and stored["ip"] == "192.0.2.1"
        assert rclient.hget(AGENTS, stored["agent"]) == BROWSER
        assert len(stored["cards"]) == 3 and unpack_actions(stored["cards"]) == "".join(_cards(rclient, run["run_id"]))
        times = compact.unpack_times(stored["pace"])
        assert len(times) == 3 and times[-1] == int(stored["last"]) and times[1] - times[0] == 2500
        assert len(stored["plays"]) == len(unpack_actions(stored["plays"])) // 2 >= 3 * 4 - 3
        assert rclient.object("encoding", Runs.key(run["run_id"])) in ("ziplist", "listpack")
        settings = app.extensions["manille"].settings
        pid = stored["pid"]
        assert run["run_id"] == Runs(rclient, settings).ranked_id(DAY, pid) == ranked_id(settings.seed(DAY), DAY, pid)
        assert not [k for k in rclient.keys("manille:{day:2026-12-02*}") if ":ranked" in k]
        again = client.post("/api/v1/runs", json={}, headers=headers(token))
        assert again.status_code == 409 and again.get_json()["run_id"] == run["run_id"]
        # read back as it was played
        seen = client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token)).get_json()
        assert seen["turn"] == 3 and seen["status"] == "playing" and seen["submission_id"] is None
        done = play(client, run, token)
        finished = rclient.hgetall(Runs.key(run["run_id"]))
        assert finished["status"] == "finished"
        assert codec.unpack_time(finished["finished_at"]) == (datetime.fromisoformat(BEFORE_MIDNIGHT)
                                                              + timedelta(seconds=7.5)).isoformat()
        assert len(compact.unpack_times(finished["pace"])) == len(finished["cards"]) == done["turn"]


def test_the_keep_is_configurable(redis_server, rclient):
    client = make_app(redis_server, MANILLE_RUN_KEEP_HOURS="1", MANILLE_PRACTICE_KEEP_HOURS="2").test_client()
    with freeze_time(BEFORE_MIDNIGHT):
        run, token = open_run(client)
        assert 6000 - 5 <= rclient.ttl(Runs.key(run["run_id"])) <= 6000  # 40 min to the reveal, 1 h
        free, _ = open_run(client, {"kind": "random"}, token=token)
        assert 7200 - 5 <= rclient.ttl(Runs.key(free["run_id"])) <= 7200


def test_a_verified_games_path_leaves_the_days_tree_once(app, rclient, run_worker):
    """The tree counts runs not submitted: a verified game's cards are taken out (its own prefixes
    go), an abandoned run's stay, and a second verification takes nothing out again."""
    client = app.test_client()
    runs = Runs(rclient, app.extensions["manille"].settings)
    with freeze_time(BEFORE_MIDNIGHT):
        honest, honest_token = open_run(client, addr="192.0.2.1")
        honest = play(client, honest, honest_token, addr="192.0.2.1")
        probe, probe_token = open_run(client, addr="192.0.2.2")
        play(client, probe, probe_token, 6, addr="192.0.2.2")
        cards, probe_cards = _cards(rclient, honest["run_id"]), _cards(rclient, probe["run_id"])
        prefixes = ["".join(cards[:k]) for k in range(1, len(cards) + 1)]
        before = runs.path_counts(DAY, prefixes)
        assert before == [1 + (p == "".join(probe_cards[:len(p) // 2])) for p in prefixes]
        sub_id = submit(client, honest, honest_token, "Honest")
        run_worker()
        assert client.get(f"/api/v1/submissions/{sub_id}").get_json()["status"] == "verified"
        shared = [int(p == "".join(probe_cards[:len(p) // 2])) for p in prefixes]
        assert runs.path_counts(DAY, prefixes) == shared  # only the probe's run is left
        probe_prefixes = ["".join(probe_cards[:k]) for k in range(1, 7)]
        assert runs.path_counts(DAY, probe_prefixes) == [1] * 6
        assert runs.path_counts(DAY, [""]) == [2]  # the root: runs opened, over the shards
        assert rclient.hget(Runs.key(honest["run_id"]), "retired") == "1"  # the run keeps the mark
        # verified again (ops requeue): nothing taken out twice
        assert runs.retire_path(honest["run_id"], cards, sub_id) is False
        assert runs.path_counts(DAY, probe_prefixes) == [1] * 6
        shards = {run_shard(honest["run_id"]), run_shard(probe["run_id"])}
        fields = [f for k in shards for f in rclient.hkeys(Runs.paths_key(DAY, k))]
        # every shard's root and the probe's six prefixes: nothing at 0 is kept
        assert len(fields) == len(shards) + 6


def _cards(rclient, run_id):
    text = unpack_actions(rclient.hget(Runs.key(run_id), "cards"))
    return [text[i:i + 2] for i in range(0, len(text), 2)]


def without_oracle(record: dict) -> dict:
    """An ops record without the oracle's notes on the player's decisions."""
    plain = json.loads(json.dumps(record))
    for play in (p for d in plain["deals"] for t in d["tricks"] for p in t["plays"]):
        play.pop("oracle", None)
        play.pop("oracle_best", None)
    return plain


# -- the compact form ------------------------------------------------------------------------------

@hsettings(max_examples=40, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_any_legal_games_cards_pack_a_byte_each_and_replay_to_the_same_record(seed):
    bot = get_bot("random-1")
    record = simulate(seed, bot)
    cards = player_cards(record)
    packed = compact.pack_cards(cards)
    assert len(packed) == len(cards) and packed.isascii() and packed.isalpha()
    assert compact.unpack_cards(packed) == cards
    assert dumps(verify(seed, compact.unpack_cards(packed), bot)) == dumps(record)


@given(st.lists(st.integers(min_value=0, max_value=2 ** 48)))
def test_play_times_pack_as_gaps_and_unpack(times):
    packed = compact.pack_times(times)
    assert compact.unpack_times(packed) == times and set(packed) <= set(compact.VLQ)
    # appended a gap at a time, as a run's plays append them, it is the same text
    assert "".join(compact.vlq(t - prev) for prev, t in zip([0] + times, times)) == packed


@given(st.integers(min_value=10 ** 12, max_value=2 ** 42), st.lists(st.integers(min_value=-10 ** 9, max_value=10 ** 9)))
def test_a_clock_that_went_back_packs_too(first, gaps):
    times = [first + sum(gaps[:i]) for i in range(len(gaps) + 1)]
    assert compact.unpack_times(compact.pack_times(times)) == times


def test_play_times_pack_in_three_characters_a_play_at_a_persons_pace():
    """1–16 s between cards: 3 digits each, 9 for the first time (a decimal list took 5 and 14)."""
    gaps = [1000 + 15000 * i // 46 for i in range(47)]  # 1 s to 16 s
    times = [1764712800123 + sum(gaps[:i]) for i in range(48)]
    assert len(compact.pack_times(times)) == 9 + 47 * 3
    assert compact.pack_times([1764712800123, 1764712801643, 1764712802473]) == "23vxih3mDg/C8zB"


@pytest.mark.parametrize("ip, agent", [("192.0.2.1", BROWSER), ("198.51.100.9", BROWSER), ("192.0.2.1", "curl/8.5.0"),
                                       ("192.0.2.1", ""), ("2001:db8::7", "")])
def test_what_a_submission_writes_once_is_one_line_and_reads_back_the_same(ip, agent):
    """The cards, the pace, three times and the two clients in ``game``; decoded as they were."""
    run = {"cards": "ADTH7C", "pace": compact.pack_times([1796244000123, 1796244002623, 1796244004000]),
           "created_at": "2026-12-02T22:40:00.000001+00:00", "finished_at": "2026-12-02T22:55:00+00:00",
           "ip": "192.0.2.1", "agent": codec.agent_id(BROWSER)}
    fields, agents = codec.encode(run, pid="p" * 24, nickname="Zoé", ip=ip, user_agent=agent,
                                  created_at="2026-12-02T22:55:01.5+00:00")
    assert set(fields) == {"pid", "nickname", "game", "status"} and len(fields["game"]) < 100
    texts = {codec.agent_id(BROWSER): BROWSER, **agents}
    sub = codec.decode("20261202-05-" + "0" * 28, "2026-12-02", fields, texts, "20261202-05-runrunrunrunrunr")
    assert sub["cards"] == "ADTH7C" and sub["times"] == "1796244000123,1796244002623,1796244004000"
    assert (sub["run_created_at"], sub["run_finished_at"], sub["created_at"]) == (
        "2026-12-02T22:40:00.000001+00:00", "2026-12-02T22:55:00+00:00", "2026-12-02T22:55:01.500000+00:00")
    assert (sub["run_ip"], sub["ip"], sub["run_user_agent"], sub["user_agent"]) == ("192.0.2.1", ip, BROWSER, agent)
    assert sub["run_id"] == "20261202-05-runrunrunrunrunr" and "game" not in sub and "flags" not in sub


@hsettings(max_examples=30, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.integers(min_value=0, max_value=2 ** 32))
def test_a_whole_game_packs_as_its_cards_places_among_the_legal_ones(seed, pick):
    """An analysed game's every card (``compact.pack_plays``): forty-odd characters, back as played."""
    import random as _random

    rng, state, cards = _random.Random(pick), GameState(seed), []
    while not state.is_over:
        card = rng.choice(state.legal_cards())
        cards.append(str(card))
        state.apply(card)
    packed = compact.pack_plays(seed, cards)
    assert compact.unpack_plays(seed, packed) == cards and len(packed) < 80
    with pytest.raises(IllegalPlayError):
        compact.pack_plays(seed, [cards[0], cards[0]])


@pytest.mark.parametrize("damaged", ["23vx!", "23vxih3mDg"])
def test_damaged_play_times_are_an_error_not_times(damaged):
    with pytest.raises(ValueError):
        compact.unpack_times(damaged)


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(9000, 1, 1), timezones=st.just(timezone.utc)))
def test_times_pack_as_integers_and_unpack_to_the_same_iso_text(moment):
    packed = codec.pack_time(moment.isoformat())
    assert packed.isdigit() and codec.unpack_time(packed) == moment.isoformat()


def test_a_damaged_card_list_is_an_error_not_a_game():
    with pytest.raises(ValueError):
        compact.unpack_cards("ABz")


def test_a_submission_stores_no_record_and_its_record_is_the_game_played_byte_for_byte(app, rclient, run_worker):
    client = app.test_client()
    with freeze_time(BEFORE_MIDNIGHT):
        run, token = open_run(client)
        done = play(client, run, token)
        sub_id = submit(client, done, token, "Exact", agent="curl/8.5.0")
        run_worker()
        stored = rclient.hgetall(sub_key(sub_id))
        assert stored["status"] == "verified" and "record" not in stored and "cards" not in stored
        assert "reason" not in stored and "counted" not in stored and "id" not in stored
        assert "run_id" not in stored  # its run's id is the player's ranked run's of the day
        assert set(stored) <= {"pid", "nickname", "game", "status", "verified_at", "score", "deals", "flags",
                               "hindsight_analysis", "hindsight", "hindsight_player"}
        game = codec.unpack_game(stored["game"])  # what is written once, in one field
        assert len(game["played"]) == len(_cards(rclient, run["run_id"]))
        assert len(compact.unpack_times(game["pace"])) == len(game["played"])
        assert rclient.hget(AGENTS, game["run_agent"]) == BROWSER  # the run's, kept once
        assert rclient.hget(AGENTS, game["agent"]) == "curl/8.5.0"  # the submitting client's differs
        assert "ip" not in game  # the same address as the run's
        assert rclient.object("encoding", sub_key(sub_id)) in ("ziplist", "listpack")
        sealed = client.get(f"/api/v1/submissions/{sub_id}/record")
        assert sealed.status_code == 409 and sealed.get_json()["error"] == "record_sealed"
    with freeze_time(AFTER_GRACE):
        replayed = client.get(f"/api/v1/submissions/{sub_id}/record")
        played = client.get(f"/api/v1/runs/{run['run_id']}/record", headers=headers(token))
        assert replayed.status_code == 200 and played.status_code == 200
        # the server's own game, as played card by card, and the replay of the stored cards: the same bytes
        assert dumps(replayed.get_json()) == dumps(played.get_json())
        seed = daily_seed(SECRET.encode(), DAY)
        cards = _cards(rclient, run["run_id"])
        # what verification produced (sealed, as while the day was open), with the seed shown
        assert dumps(replayed.get_json()) == dumps({**verify(seed, cards, get_bot(TEST_BOTS), sealed=True),
                                                    "seed": seed.hex()})
        assert replayed.get_json()["rank_score"] == done["result"]["rank_score"]
        detail = client.get(f"/api/v1/ops/submissions/{sub_id}", headers=ops()).get_json()
        assert detail["user_agent"] == BROWSER and detail["submit_user_agent"] == "curl/8.5.0"
        assert detail["submit_address"] == detail["address"] == "192.0.2.1"
        assert detail["run_created_at"] == BEFORE_MIDNIGHT and detail["run_finished_at"] == BEFORE_MIDNIGHT
        assert detail["cards"] == cards and len(detail["play_times_ms"]) == len(cards)
        assert without_oracle(detail["record"]) == verify(seed, cards, get_bot(TEST_BOTS), sealed=True)


# -- after the keep ------------------------------------------------------------------------------

def expire_now(rclient) -> int:
    """What Redis does once the keep is over: every key with a TTL goes."""
    doomed = [k for k in rclient.keys("*") if rclient.ttl(k) > 0]
    for key in doomed:
        rclient.pexpire(key, 1)
    time.sleep(0.02)
    return sum(rclient.exists(k) == 0 for k in doomed)


def test_after_the_keep_ops_see_what_the_submission_kept_and_that_the_runs_expired(app, rclient, run_worker):
    client = app.test_client()
    with freeze_time(BEFORE_MIDNIGHT):
        mine, token = open_run(client, addr="203.0.113.5")
        sibling, _ = open_run(client, addr="203.0.113.5")  # another player at the same address
        done = play(client, mine, token, addr="203.0.113.5")
        sub_id = submit(client, done, token, "Kept", addr="203.0.113.5")
        run_worker()
        during = client.get(f"/api/v1/ops/submissions/{sub_id}", headers=ops()).get_json()
        assert during["address_runs"] == [sibling["run_id"]] and during["runs_expired"] is False
        assert during["runs_kept_until"] == (REVEAL + timedelta(hours=48)).isoformat()
    assert expire_now(rclient) > 0
    with freeze_time(REVEAL + timedelta(hours=48, minutes=1)):
        after = client.get(f"/api/v1/ops/submissions/{sub_id}", headers=ops()).get_json()
        assert after["runs_expired"] is True and after["address_runs"] == [] and after["token_runs"] == []
        for kept in ("cards", "play_times_ms", "flags", "address", "user_agent", "score", "status", "nickname"):
            assert after[kept] == during[kept], kept
        assert player_cards(after["record"]) == during["cards"]
        gone = client.get(f"/api/v1/runs/{mine['run_id']}", headers=headers(token))
        assert gone.status_code == 404 and gone.get_json()["error"] == "run_not_found"
        status = client.get(f"/api/v1/submissions/{sub_id}").get_json()
        assert status["status"] == "verified" and status["rank"] == 1
        assert client.get(f"/api/v1/submissions/{sub_id}/record").get_json()["rank_score"] == status["score"]
        # a re-verification once the day's tree is gone: the same verdict, and no key made again
        assert client.post(f"/api/v1/ops/submissions/{sub_id}/requeue", json={"reason": "late look"},
                           headers=ops()).get_json()["requeued"]
        run_worker()
        assert client.get(f"/api/v1/submissions/{sub_id}").get_json()["status"] == "verified"
        shard = run_shard(mine["run_id"])
        assert not rclient.exists(Runs.paths_key(DAY, shard)) and not rclient.exists(Runs.key(mine["run_id"]))


# -- boards ----------------------------------------------------------------------------------------

def everywhere(rclient, method: str, *args):
    """``rclient.method(*args)`` on the one Redis, or on every node of a cluster."""
    from redis.cluster import RedisCluster

    from service.store import is_cluster

    if is_cluster(rclient):
        return getattr(rclient, method)(*args, target_nodes=RedisCluster.ALL_NODES)
    return getattr(rclient, method)(*args)


def info_of(rclient, section: str) -> list[dict]:
    """INFO ``section`` of the one Redis, or of each master of a cluster."""
    from redis.cluster import RedisCluster

    from service.store import is_cluster

    if is_cluster(rclient):
        return list(rclient.info(section, target_nodes=RedisCluster.PRIMARIES).values())
    return [rclient.info(section)]


def test_a_wipe_of_a_board_of_100000_entries_unlinks_it(rclient):
    board = day_board(DAY)
    pipe = rclient.pipeline(transaction=False)
    for start in range(0, 100_000, 5000):
        pipe.zadd(board.key, {f"p{i:06d}": 1000 * 2 ** 32 + i for i in range(start, start + 5000)})
        pipe.hset(board.names_key, mapping={f"p{i:06d}": f"n{i}" for i in range(start, start + 5000)})
    pipe.execute()
    assert rclient.zcard(board.key) == 100_000
    everywhere(rclient, "config_resetstat")
    assert Leaderboard(rclient).wipe() == 2
    assert not rclient.exists(board.key) and not rclient.exists(board.names_key)
    stats = info_of(rclient, "commandstats")
    assert sum(s.get("cmdstat_unlink", {}).get("calls", 0) for s in stats) >= 1
    assert not any("cmdstat_del" in s for s in stats)


def test_the_period_boards_share_one_name_a_player(rclient):
    lb = Leaderboard(rclient)
    lb.record(DAY, "a", "Ann", 1100, "s1")
    lb.record(DAY + timedelta(days=1), "a", "Anna", 1040, "s2")  # renamed the next day
    names = set(rclient.keys("manille:{boards*}:names:*"))
    assert names == {day_board(DAY).names_key, day_board(DAY + timedelta(days=1)).names_key, ALL_TIME.names_key}
    for board in (Board("week", "2026-W49"), Board("month", "2026-12"), ALL_TIME):
        assert lb.page(board)["entries"][0]["nickname"] == "Anna"
    assert lb.page(day_board(DAY))["entries"][0]["nickname"] == "Ann"  # a day keeps that day's name
    # the second day taken off: the week and month entries stay, and so does the name
    assert lb.remove(DAY + timedelta(days=1), "a", 1040)
    assert lb.page(Board("week", "2026-W49"))["entries"][0] == {"rank": 1, "player": "a", "nickname": "Anna",
                                                                 "margin": 100, "days": 1}
    assert lb.remove(DAY, "a", 1100)  # the last day gone: off every board, the name too
    assert lb.page(ALL_TIME)["total"] == 0 and not rclient.hexists(ALL_TIME.names_key, "a")
    assert not rclient.keys("manille:*:counted") and not rclient.keys("manille:*:entries")


# -- memory ----------------------------------------------------------------------------------------

@pytest.fixture
def a_worker(rclient):
    """A verification worker seen alive (readiness wants one)."""
    conn = queue_of(rclient)
    worker = Worker([Queue(QUEUE_NAME, connection=conn)], connection=conn)
    worker.register_birth()
    worker.heartbeat()
    yield worker
    worker.register_death()


def test_readiness_reports_redis_memory_and_warns_near_maxmemory(app, rclient, a_worker):
    client = app.test_client()
    try:
        body = client.get("/api/v1/health/ready").get_json()
        assert body["status"] == "ok" and body["redis_memory_bytes"] > 0
        assert body["redis_maxmemory_bytes"] is None and body["warnings"] == []
        used = max(i["used_memory"] for i in info_of(rclient, "memory"))  # a cluster: its fullest master
        everywhere(rclient, "config_set", "maxmemory", int(used / 0.85))  # 85 % used: past the 0.8 warning
        r = client.get("/api/v1/health/ready")
        body = r.get_json()
        assert r.status_code == 200 and body["status"] == "ok" and body["warnings"] == ["redis_memory"]
        assert body["redis_maxmemory_bytes"] == int(used / 0.85)
        everywhere(rclient, "config_set", "maxmemory", used * 4)
        assert client.get("/api/v1/health/ready").get_json()["warnings"] == []
    finally:
        everywhere(rclient, "config_set", "maxmemory", 0)


def test_a_full_redis_refuses_writes_with_503_store_full_and_still_reads(app, rclient):
    client = app.test_client()
    with freeze_time(BEFORE_MIDNIGHT):
        run, token = open_run(client)
        try:
            everywhere(rclient, "config_set", "maxmemory", 1)
            r = client.post("/api/v1/runs", json={})
            assert r.status_code == 503 and r.get_json()["error"] == "store_full", r.get_json()
            r = client.post(f"/api/v1/runs/{run['run_id']}/plays", headers=headers(token),
                            json={"turn": run["turn"], "card": run["view"]["legal"][0]})
            assert r.status_code == 503 and r.get_json()["error"] == "store_full", r.get_json()
            assert client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(token)).get_json()["turn"] == run["turn"]
            assert client.get(f"/api/v1/leaderboards/days/{DAY}").status_code == 200
        finally:
            everywhere(rclient, "config_set", "maxmemory", 0)


def test_the_deployed_redis_never_evicts_and_keeps_hashes_compact(redis_server, rclient):
    from pathlib import Path

    conf = (Path(__file__).resolve().parents[2] / "deploy" / "redis.conf").read_text()
    settings = dict(line.split(None, 1) for line in conf.splitlines() if line.strip() and not line.startswith("#"))
    assert settings["maxmemory-policy"] == "noeviction" and settings["maxmemory"].endswith("gb")
    assert settings["hash-max-ziplist-value"] == "1024"
    # the Redis of make run and of the tests is configured the same
    assert rclient.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
    assert rclient.config_get("hash-max-ziplist-value")["hash-max-ziplist-value"] == "1024"


def test_a_token_that_never_submitted_is_forgotten_and_one_that_did_is_kept(redis_server, rclient):
    """A token costs nothing (a first run makes one): its player key is kept MANILLE_PLAYER_KEEP_DAYS
    after its player last opened a run, and for good once they submit a game; a token whose key
    has gone is unknown (401, and the page starts afresh with a new one)."""
    from service.players import Players, pid_of

    client = make_app(redis_server, MANILLE_PLAYER_KEEP_DAYS="2").test_client()
    _free, idle = open_run(client, {"kind": "random"})
    key = Players._key(pid_of(idle))
    assert 2 * 86400 - 60 < rclient.ttl(key) <= 2 * 86400
    rclient.expire(key, 3600)  # as if the two days had nearly run out
    open_run(client, {"kind": "random"}, token=idle)
    assert rclient.ttl(key) > 86400  # opening a run keeps it on

    run, player = open_run(client)
    done = play(client, run, player)
    submit(client, done, player, "Keeper")
    assert rclient.ttl(Players._key(pid_of(player))) == -1  # submitted: kept for good
    open_run(client, {"kind": "random"}, token=player)
    assert rclient.ttl(Players._key(pid_of(player))) == -1  # and stays so

    rclient.delete(key)  # the idle token's two days are over
    fresh = make_app(redis_server).test_client()  # a process that never saw it
    r = fresh.post("/api/v1/runs", json={"kind": "random"}, headers=headers(idle))
    assert r.status_code == 401 and r.get_json()["error"] == "invalid_token"
