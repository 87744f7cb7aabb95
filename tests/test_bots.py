"""The bots: registry, legality over many games, determinism, honesty, scripted expert positions."""

from __future__ import annotations

import hashlib

import pytest

from bots import BOTS, UnknownBotError, get_bot
from service.replay import dumps, play_game, simulate


def _seeds(n: int, tag: bytes = b"test-bots") -> list[bytes]:
    return [hashlib.sha256(tag + i.to_bytes(4, "big")).digest() for i in range(n)]


def test_registry_knows_the_bots():
    assert {"random-1", "greedy-1", "expert-1"} <= set(BOTS)
    for bot_id, bot in BOTS.items():
        assert bot.id == bot_id


@pytest.mark.parametrize("bad", ["expert-0", "", None, "EXPERT-1"])
def test_unknown_bot_id_is_a_clear_error(bad):
    with pytest.raises(UnknownBotError, match="unknown bot") as e:
        get_bot(bad)
    assert "expert-1" in str(e.value)


@pytest.mark.parametrize("bot_id", ["greedy-1", "expert-1"])
def test_always_legal_over_many_games(bot_id):
    # play_game raises BotError on any illegal answer; mix the bots so that every position occurs.
    bot, rnd = get_bot(bot_id), get_bot("random-1")
    for i, seed in enumerate(_seeds(30)):
        seats = (bot, bot, bot, bot) if i % 3 == 0 else (bot, rnd, bot, rnd) if i % 3 == 1 else (rnd, bot, rnd, bot)
        assert play_game(seed, seats).is_over


@pytest.mark.parametrize("bot_id", ["greedy-1", "expert-1"])
def test_same_seed_same_record_bytes(bot_id):
    bot = get_bot(bot_id)
    for seed in _seeds(3, b"determinism"):
        assert dumps(simulate(seed, bot)) == dumps(simulate(seed, bot))
