"""How analyses are kept in Redis: no document stored, each rebuilt on read from its game's cards
and its seed's positions, byte for byte the one the worker computed; positions packed a few bytes
each, spread over compact buckets as a seed's entries grow, kept as long as the analyses that
need them; RQ keeps nothing of an analysis that succeeded."""

from __future__ import annotations

import json
import random
from datetime import date

import pytest

from postmortem import analyse, decision_keys, game_plays, game_record, replay_record
from bots import get_bot
from service.analysis import FREE_KEEP_SECONDS, POSITIONS_MARGIN_SECONDS, QUEUE, Analyses, analysis_id
from service.analysis.positions import (BUCKET_FILL, GENERATIONS, PositionCache, generations_for, pack_entry,
                                        unpack_entry)
from service.config import Settings
from service.replay import GameState, bot_move
from service.store import raw_client
from service.store.compact import unpack_plays

from support.svc_helpers import SECRET, TEST_BOTS, burst_worker, headers, play_game, queue_of

SEED = bytes.fromhex("5eed" * 16)


def random_game(seed: bytes, n: int, bots: str = "expert-1") -> list[str]:
    """Seat 0's cards of a game where it plays random legal cards (seeded by ``n``)."""
    rng, bot, state, cards = random.Random(n), get_bot(bots), GameState(seed), []
    while not state.is_over:
        if state.current_player == 0:
            card = rng.choice(list(state.legal_cards()))
            cards.append(str(card))
            state.apply(card)
        else:
            bot_move(state, bot)
    return cards


def _json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@pytest.fixture(scope="module")
def entries() -> dict:
    """Every decision entry of six games of one seed (a dict as ``analyse``'s cache)."""
    cache: dict = {}
    for n in range(6):
        analyse(SEED, random_game(SEED, n), cache=cache)
    return cache


def test_an_entry_packs_to_a_few_bytes_and_back_to_the_same_json(entries):
    sizes = {True: [], False: []}
    for entry in entries.values():
        blob = pack_entry(entry)
        assert _json(unpack_entry(blob)) == _json(entry)
        if blob[:1] != b"J":
            sizes[entry["forced"]].append(len(blob))
    assert max(sizes[True]) <= 4  # a forced card: its id and its value
    # a choice: a dozen bytes a legal card against a hundred and more of JSON
    assert sum(sizes[False]) / len(sizes[False]) < 60
    assert len(sizes[True]) + len(sizes[False]) >= 0.9 * len(entries)


def test_an_entry_the_packing_would_change_is_kept_as_its_json():
    entry = {"forced": False, "exact": False, "worlds": 3, "consistent": "420", "baseline": "TH",
             "open": {"TH": 28, "AH": 20}, "seat": {"TH": 24.667, "AH": -0.0},
             "seat_se": {"TH": 1.202, "AH": 0.5}, "pair_se": {"TH": 0.0, "AH": 0.333},
             "luck": {"TH": {"gain": 0.0, "var": 0.0}, "AH": {"gain": -0.0, "var": 1.5}}}
    blob = pack_entry(entry)
    assert blob[:1] == b"J" and _json(unpack_entry(blob)) == _json(entry)  # -0.0 kept as -0.0
    entry["seat"]["AH"] = 19.25
    entry["luck"]["AH"]["gain"] = -3.125
    assert pack_entry(entry)[:1] == b"C" and _json(unpack_entry(pack_entry(entry))) == _json(entry)


def test_a_seeds_entries_spread_to_wider_generations_and_are_all_found(rclient, entries):
    raw = raw_client(rclient)
    cache = PositionCache(raw, SEED, 3600)
    keys = list(entries)
    assert len(keys) > GENERATIONS[0] * BUCKET_FILL  # more than the first bucket is meant to hold
    for key in keys:
        cache[key] = entries[key]
    assert generations_for(len(keys)) == 2
    first = raw.hgetall(cache.first)
    assert int(first[b"n"]) == len(keys) and len(first) == GENERATIONS[0] * BUCKET_FILL + 1
    wider = [cache.bucket_key(1, b) for b in range(GENERATIONS[1])]
    assert sum(raw.hlen(k) for k in wider) == len(keys) - GENERATIONS[0] * BUCKET_FILL
    for key in [cache.first, *wider]:
        assert raw.object("encoding", key) in (b"ziplist", b"listpack")  # Redis's compact encoding
    # another process finds every one of them, in one round trip
    found = PositionCache(raw, SEED, 3600).get_many(keys)
    assert {k: _json(v) for k, v in found.items()} == {k: _json(entries[k]) for k in keys}
    assert PositionCache(raw, SEED, 3600).get("analysis-1:" + "0" * 32) is None


def test_the_first_bucket_bounds_every_buckets_ttl_and_touch_renews_them_all(rclient, entries):
    raw = raw_client(rclient)
    cache = PositionCache(raw, SEED, 3600)
    for key in list(entries):
        cache[key] = entries[key]
    every = [cache.first, *(cache.bucket_key(1, b) for b in range(GENERATIONS[1]))]
    for key in every:
        raw.expire(key, 100)  # as if written long ago
    raw.expire(cache.bucket_key(1, 3), 2000)  # a bucket written since: it outlives the first
    cache.touch(50)  # every bucket lives 50 s more at least: nothing to do
    assert raw.ttl(cache.first) <= 100
    cache.touch(500)  # not any more: all of them kept again
    assert all(3590 <= raw.ttl(k) <= 3600 for k in every)


def test_a_finished_analysis_stores_no_document_and_is_rebuilt_byte_for_byte(rclient):
    """What the worker computed and sent, and what a process that never saw it rebuilds from the
    game's cards and the seed's positions: the same document, in the same JSON."""
    from worker.jobs import analyse_game

    settings = Settings.from_env({"MANILLE_SECRET": SECRET})
    analyses = Analyses(rclient, settings, queue=queue_of(rclient))
    cards = random_game(SEED, 7, TEST_BOTS)
    aid, queued = analyses.request(seed=SEED, day=None, rules="muette-1", bots=TEST_BOTS, cards=cards)
    assert queued
    assert analyse_game(aid)["status"] == "finished"
    stored = rclient.hgetall(Analyses.key(aid))
    assert "doc" not in stored and "cards" not in stored and stored["status"] == "finished"
    record = game_record(SEED, cards, bots=TEST_BOTS)
    assert unpack_plays(SEED, stored["plays"]) == game_plays(record) and len(stored["plays"]) < 60  # every card
    computed = json.loads(_json(analyse(SEED, cards, bots=TEST_BOTS)))  # cold, no cache at all
    stored_positions_of = Analyses(rclient, settings).positions(SEED)
    assert len(stored_positions_of.get_many(decision_keys(record))) == len(set(decision_keys(record)))
    _forget_documents()
    doc = Analyses(rclient, settings).get(aid)["analysis"]
    assert json.dumps(doc) == json.dumps(computed)  # the same keys in the same order, the same values
    assert replay_record(SEED, game_plays(record), TEST_BOTS) == record
    # a free game's: kept days from this read, and its positions at least as long
    assert FREE_KEEP_SECONDS - 5 <= rclient.ttl(Analyses.key(aid)) <= FREE_KEEP_SECONDS
    assert FREE_KEEP_SECONDS <= raw_client(rclient).ttl(stored_positions_of.first) <= (
        FREE_KEEP_SECONDS + POSITIONS_MARGIN_SECONDS)


def _forget_documents():
    from service import analysis

    analysis._DOCUMENTS.clear()


def test_an_analysis_whose_positions_are_lost_fails_and_is_computed_again_when_asked(rclient):
    from worker.jobs import analyse_game

    settings = Settings.from_env({"MANILLE_SECRET": SECRET})
    analyses = Analyses(rclient, settings, queue=queue_of(rclient))
    cards = random_game(SEED, 8, TEST_BOTS)
    aid, _ = analyses.request(seed=SEED, day=None, rules="muette-1", bots=TEST_BOTS, cards=cards)
    analyse_game(aid)
    before = analyses.get(aid)["analysis"]
    for key in rclient.keys("manille:{seed:*}:positions:*"):
        rclient.delete(key)
    _forget_documents()
    got = analyses.get(aid)
    assert got["status"] == "failed" and got["analysis"] is None and got["error"]["error"] == "analysis_failed"
    assert analyses.request(seed=SEED, day=None, rules="muette-1", bots=TEST_BOTS, cards=cards) == (aid, True)
    analyse_game(aid)
    assert json.dumps(analyses.get(aid)["analysis"]) == json.dumps(before)


def test_rq_keeps_nothing_of_an_analysis_that_succeeded(client, rclient):
    r = client.post("/api/v1/runs", json={"kind": "random"})
    run = r.get_json()
    token = run["player_token"]

    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()
    run = play_game(post, run, token)
    aid = client.post(f"/api/v1/runs/{run['run_id']}/analysis", headers=headers(token)).get_json()["analysis_id"]
    conn = queue_of(rclient)
    import worker.jobs
    worker.jobs._settings = None
    burst_worker([QUEUE], conn).work(burst=True)
    assert client.get(f"/api/v1/analyses/{aid}").get_json()["status"] == "finished"
    assert not conn.keys("rq:results:*") and not conn.keys("rq:job:analysis-*")
    assert not conn.zcard("rq:finished:analysis")
    assert aid == analysis_id(bytes.fromhex(run["seed"]), "muette-1", TEST_BOTS,
                              [p["played"] for p in client.get(f"/api/v1/analyses/{aid}").get_json()["analysis"]
                               ["decisions"] if p["seat"] == 0])


def test_a_submission_waiting_for_an_analysis_is_a_field_of_its_hash(rclient):
    settings = Settings.from_env({"MANILLE_SECRET": SECRET})
    analyses = Analyses(rclient, settings, queue=queue_of(rclient))
    cards = random_game(SEED, 9, TEST_BOTS)
    day = date(2026, 12, 2)
    aid, _ = analyses.request(seed=settings.seed(day), day=day, rules="muette-1", bots=TEST_BOTS, cards=cards,
                              submission_id="20261202-03-0000aaaa" + "b" * 20)
    analyses.request(seed=settings.seed(day), day=day, rules="muette-1", bots=TEST_BOTS, cards=cards,
                     submission_id="20261202-05-0000cccc" + "d" * 20)
    assert analyses.watchers(aid) == ["20261202-03-0000aaaa" + "b" * 20, "20261202-05-0000cccc" + "d" * 20]
    assert rclient.keys(Analyses.key(aid) + "*") == [Analyses.key(aid)]  # no set beside it
