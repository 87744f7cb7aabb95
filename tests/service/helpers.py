"""Playing a whole game through the API, with any HTTP client that has get/post(json=, headers=)."""

from __future__ import annotations


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
