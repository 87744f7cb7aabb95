"""Positions and decisions for the bots' tests: a random layout in mid-deal, and each decision of
whole games with the seat's observation (tests/test_bots_*.py)."""

from __future__ import annotations

import random

from service.replay import DECK, GameState, Trick, legal_mask

def random_position(rng: random.Random, tricks: int, in_trick: int) -> tuple[list[int], Trick]:
    """A random layout: ``tricks`` cards for each seat, a random trump and leader, then
    ``in_trick`` random legal cards of the trick in progress."""
    deck = list(range(32))
    rng.shuffle(deck)
    hands = [0, 0, 0, 0]
    for i in range(4 * tricks):
        hands[i % 4] |= 1 << deck[i]
    trick = Trick(rng.randrange(4), rng.randrange(4))
    for _ in range(in_trick):
        seat = trick.next_seat
        legal = legal_mask(hands[seat], trick, seat)
        c = rng.choice([c for c in range(32) if legal >> c & 1])
        hands[seat] ^= 1 << c
        trick = trick.play(DECK[c])
    return hands, trick
def decisions(seeds: list[bytes], deals: int = 1 << 30):
    """Each decision of each seed's game, of its first ``deals`` deals: the game, the observation
    of the seat to play and its decision stream's arguments.  The caller plays a card into the
    game before asking for the next."""
    for seed in seeds:
        state = GameState(seed)
        while not state.is_over and state.deal_index < deals:
            obs = state.observation(state.trick.next_seat)
            yield state, obs, (seed, obs.deal_index, obs.seat, len(obs.tricks))
