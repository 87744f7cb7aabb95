"""``random-1``: a uniformly random legal card from the decision stream."""

from __future__ import annotations

from service.replay import Card, HashStream, Observation


class RandomBot:
    """Frozen behaviour ``random-1``: ``legal[uniform(len(legal))]`` over legal cards in canonical order."""

    id = "random-1"

    def choose(self, obs: Observation, rng: HashStream) -> Card:
        return rng.choice(obs.legal)
