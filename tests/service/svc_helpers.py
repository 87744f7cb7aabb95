"""Playing a whole game through the API, with any HTTP client that has get/post(json=, headers=)."""

from __future__ import annotations

import os

SECRET = "test-secret"
#: The product plays expert-1; MANILLE_TEST_BOTS=random-1 runs the suite against the random bot.
TEST_BOTS = os.environ.get("MANILLE_TEST_BOTS", "expert-1")


def headers(token: str) -> dict:
    return {"X-Player-Token": token}


def play_game(post, run: dict, token: str, pick=lambda legal: legal[0], bodies: list | None = None) -> dict:
    """Play legal cards from each view until the run is finished; returns the last run body.

    ``post(path, json, headers)`` returns (status, body); every body is kept in ``bodies``."""
    while run["status"] != "finished":
        legal = run["view"]["legal"]
        assert legal, run["view"]
        status, run = post(f"/api/v1/runs/{run['run_id']}/plays",
                           {"turn": run["turn"], "card": pick(legal)}, headers(token))
        assert status == 200, run
        if bodies is not None:
            bodies.append(run)
    return run
