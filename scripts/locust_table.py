"""Locust users of the day's table under load (scripts/bench_table.py runs them, one mix at a
time): ranked players, watchers of the day's board, and free players at the day's strength.

- ``RankedPlayer`` (36): a new player each time round opens today's ranked run, plays it to the
  end a card every ``MANILLE_LOAD_THINK`` seconds (0.1) and submits it; its plays are counted
  apart, ``POST /runs/[id]/plays (ranked)``;
- ``Watcher`` (18): the day's board, the week's and the all-time one (scripts/locustfile.py's);
- ``StrongFreePlayer`` (6): free play at the strongest table (the day's bots), its plays counted
  as ``POST /runs/[id]/plays (free, strongest)``; a table that is full (503 ``bots_busy``) is
  asked again after its Retry-After, each refusal counted as ``POST /runs (free, pool full)``;
  each game finished is counted as ``a free game at the strongest table, finished``, its size
  the plays it took.

Every client is 127.0.0.1: the service runs with its limits off.
"""

from __future__ import annotations

import time

from locust import FastHttpUser, between, task

import locustfile as day

RANKED_PLAYS = "POST /runs/[id]/plays (ranked)"
FREE_PLAYS = "POST /runs/[id]/plays (free, strongest)"
FREE_GAME = "a free game at the strongest table, finished"


class RankedPlayer(FastHttpUser):
    fixed_count = 36
    wait_time = between(0.5, 2)

    @task
    def ranked_game(self):
        run = day.open_run(self, {}, "POST /runs (ranked)")
        if run is None:
            return
        token = run["player_token"]
        if day.play_through(self, run, token, RANKED_PLAYS):
            self.client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": f"t{token[:10]}"},
                             headers={"X-Player-Token": token}, name="POST /submissions")


class Watcher(day.Watcher):
    fixed_count = 18


class StrongFreePlayer(FastHttpUser):
    fixed_count = 6
    wait_time = between(0.5, 2)

    @task
    def free_game(self):
        for _ in range(30):
            with self.client.post("/api/v1/runs", json={"kind": "random"}, name="POST /runs (free, strongest)",
                                  catch_response=True) as r:
                if r.status_code == 201:
                    run = r.json()
                    break
                if r.status_code == 503 and r.json().get("error") == "bots_busy":
                    r.success()
                    self.environment.events.request.fire(
                        request_type="POST", name="POST /runs (free, pool full)", response_time=0,
                        response_length=0, exception=None, context={})
                    time.sleep(float(r.headers.get("Retry-After") or 1))
                    continue
                r.failure(f"open answered {r.status_code}: {r.text[:200]}")
                return
        else:
            return
        start, plays = time.monotonic(), run["turn"]
        if day.play_through(self, run, run["player_token"], FREE_PLAYS):
            # a finished game, its plays as its "size": the bench reads plays a game from it
            got = self.client.get(f"/api/v1/runs/{run['run_id']}", headers={"X-Player-Token": run["player_token"]},
                                  name="GET /runs/[id] (free, finished)")
            plays = got.json().get("turn", plays) if got.status_code == 200 else plays
            self.environment.events.request.fire(
                request_type="GAME", name=FREE_GAME, response_time=(time.monotonic() - start) * 1000,
                response_length=plays, exception=None, context={})
