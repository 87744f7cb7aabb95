"""The bots: registry, legality over many games, determinism, honesty, scripted expert positions."""

from __future__ import annotations

import hashlib

import pytest

from bots import BOTS, UnknownBotError, get_bot
from service.replay import dumps, play_game, simulate


def _seeds(n: int, tag: bytes = b"test-bots") -> list[bytes]:
    return [hashlib.sha256(tag + i.to_bytes(4, "big")).digest() for i in range(n)]


def test_registry_knows_the_bots():
    assert {"random-1", "greedy-1", "expert-1", "expert-2", "expert-3", "expert-4", "expert-5", "expert-6"} <= set(BOTS)
    for bot_id, bot in BOTS.items():
        assert bot.id == bot_id


@pytest.mark.parametrize("bad", ["expert-0", "", None, "EXPERT-1"])
def test_unknown_bot_id_is_a_clear_error(bad):
    with pytest.raises(UnknownBotError, match="unknown bot") as e:
        get_bot(bad)
    assert "expert-1" in str(e.value)


@pytest.mark.parametrize("bot_id", ["greedy-1", "expert-1", "expert-2"])
def test_always_legal_over_many_games(bot_id):
    # play_game raises BotError on any illegal answer; mix the bots so that every position occurs.
    bot, rnd = get_bot(bot_id), get_bot("random-1")
    for i, seed in enumerate(_seeds(30)):
        seats = (bot, bot, bot, bot) if i % 3 == 0 else (bot, rnd, bot, rnd) if i % 3 == 1 else (rnd, bot, rnd, bot)
        assert play_game(seed, seats).is_over


@pytest.mark.parametrize("bot_id", ["greedy-1", "expert-1", "expert-2"])
def test_same_seed_same_record_bytes(bot_id):
    bot = get_bot(bot_id)
    for seed in _seeds(3, b"determinism"):
        assert dumps(simulate(seed, bot)) == dumps(simulate(seed, bot))


# -- honesty: a bot's choice cannot depend on cards it has not seen ----------------------------

import dataclasses  # noqa: E402
import random  # noqa: E402

from service.replay import GameState, bot_move, cards_of  # noqa: E402

from support.scripted import plays_legal  # noqa: E402


def _history_legal(log, hands_at_start: list[int]) -> bool:
    """Whether every play of the deal so far is legal when the deal's hands were ``hands_at_start``."""
    return plays_legal(hands_at_start, [t for t, _ in log.tricks])


def _alternative_world(state: GameState, seat: int, rnd: random.Random) -> GameState | None:
    """The same game seen from ``seat``, with the other seats' unseen cards dealt differently but
    consistently with everything ``seat`` has seen (sizes, voids, monter, the turned card)."""
    log = state.deals[-1]
    others = [s for s in range(4) if s != seat]
    played_by = [0, 0, 0, 0]
    for trick in [t for t, _ in log.tricks] + [state.trick]:
        for play in trick.plays:
            played_by[play.seat] |= play.card.bit
    pool = [c for s in others for c in cards_of(state.hands[s])]
    sizes = [bin(state.hands[s]).count("1") for s in others]
    turned = log.deal.turned
    for _ in range(300):
        rnd.shuffle(pool)
        alt = list(state.hands)
        pos = 0
        for s, n in zip(others, sizes):
            alt[s] = sum(c.bit for c in pool[pos:pos + n])
            pos += n
        if alt == state.hands:
            continue
        dealer = log.deal.dealer
        if not ((alt[dealer] | played_by[dealer]) >> turned.id & 1):
            continue  # everyone knows the dealer holds the turned card
        start = [alt[s] | played_by[s] for s in range(4)]
        # the current trick's plays must be legal too
        trick_log = dataclasses.replace(log, tricks=list(log.tricks) + [(state.trick, ())])
        if not _history_legal(trick_log, start):
            continue
        world = state.clone()
        world.hands = alt
        new_deal = dataclasses.replace(log.deal, hands=tuple(tuple(cards_of(start[s])) for s in range(4)))
        world.deals[-1] = dataclasses.replace(world.deals[-1], deal=new_deal)
        return world
    return None


@pytest.mark.parametrize("bot_id", ["greedy-1", "expert-1", "expert-2",
                                    *(pytest.param(b, marks=pytest.mark.slow) for b in ("expert-3", "expert-4", "expert-5", "expert-6"))])
def test_honest_by_construction(bot_id):
    """Deal the unseen cards differently among the other seats, consistently with what the bot has
    seen, at many decision points: the bot's card never changes."""
    bot, rnd = get_bot(bot_id), random.Random(1234)
    checked = 0
    for seed in _seeds(6, b"honesty"):
        state = GameState(seed)
        step = 0
        while not state.is_over:
            seat = state.trick.next_seat
            step += 1
            if step % 3 == 0 and bin(state.legal_mask()).count("1") > 1:
                world = _alternative_world(state, seat, rnd)
                if world is not None:
                    assert world.observation(seat) == state.observation(seat)
                    assert bot_move(world, bot) == bot_move(state.clone(), bot)
                    checked += 1
            bot_move(state, bot)
    assert checked >= 150


def test_bots_import_only_the_engine_types():
    """Bots see service.replay and nothing else of the project (never service.seeds, never the app)."""
    import ast
    import pathlib

    for path in pathlib.Path(__file__).resolve().parents[1].joinpath("bots").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                assert node.module.split(".")[0] not in {"service", "worker"} or \
                    node.module.startswith("service.replay"), (path.name, node.module)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name.split(".")[0] in {"itertools", "math", "__future__"}, (path.name, alias.name)


@pytest.mark.parametrize("bot_id", ["greedy-1", "expert-1", "expert-2",
                                    *(pytest.param(b, marks=pytest.mark.slow) for b in ("expert-3", "expert-4", "expert-5", "expert-6"))])
def test_same_observation_same_stream_same_card(bot_id):
    from service.replay import decision_stream

    bot = get_bot(bot_id)
    for seed in _seeds(2, b"same-obs"):
        state = GameState(seed)
        while not state.is_over:
            seat = state.trick.next_seat
            obs = state.observation(seat)
            args = (seed, obs.deal_index, seat, len(obs.tricks))
            assert bot.choose(obs, decision_stream(*args)) == bot.choose(obs, decision_stream(*args))
            bot_move(state, bot)


def test_a_bot_cannot_read_the_seed_from_its_stream():
    """The decision stream is derived from the seed; nothing reachable from it holds the seed."""
    import gc

    from service.replay import decision_stream

    seed = bytes(range(32))
    rng = decision_stream(seed, 0, 1, 0)
    rng.next_u32()
    reachable = [getattr(rng, name) for name in rng.__slots__] + gc.get_referents(rng)
    for value in reachable:
        for blob in (value if isinstance(value, tuple) else (value,)):
            assert not (isinstance(blob, (bytes, bytearray)) and seed in blob)
    assert seed.hex() not in repr([repr(v) for v in reachable])
