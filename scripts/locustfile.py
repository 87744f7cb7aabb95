"""Locust users of the Manille service: the day's realistic mix (scripts/load_test.py runs it).

- ``Player`` (most users): a new player each time round: opens today's ranked run (a new token),
  plays it to the end a card at a time, submits it, polls the submission until it is verified,
  then looks at the day's board around itself and the histogram, as the end-of-game page does;
- ``FreePlayer``: free play (a random deal), played to the end, never submitted;
- ``Watcher``: someone with the leaderboard page open, polling the day's board, the week's and
  the all-time one.

``MANILLE_LOAD_THINK`` (seconds between two cards, default 0.1) is the think time; a person takes
a second or two per card, so each simulated player is many people.  Every client is 127.0.0.1:
the service must run with its limits per address off (load_test.py does that).
"""

from __future__ import annotations

import os
import random
import secrets
import time
from datetime import date

from locust import FastHttpUser, between, task

THINK = float(os.environ.get("MANILLE_LOAD_THINK", "0.1"))
POLL = 0.5  # the web page polls a queued submission about this often


def today_iso(client) -> str:
    with client.get("/api/v1/challenges/today", name="GET /challenges/today") as r:
        return r.json()["date"]


def open_run(user, body: dict, name: str) -> dict | None:
    """A new run (``body``: ``{}`` today's ranked one, ``{"kind": "random"}`` free play), its
    request counted under ``name``; None, counted as failed, when it is not opened."""
    with user.client.post("/api/v1/runs", json=body, name=name, catch_response=True) as r:
        if r.status_code != 201:
            r.failure(f"open answered {r.status_code}: {r.text[:200]}")
            return None
        return r.json()


def play_through(user, run: dict, token: str, name: str = "POST /runs/[id]/plays") -> bool:
    """Play legal cards until the run is finished (each play counted under ``name``); False if a
    play failed."""
    hdrs = {"X-Player-Token": token}
    while run["status"] != "finished":
        time.sleep(THINK)
        card = random.choice(run["view"]["legal"])
        with user.client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": run["turn"], "card": card},
                              headers=hdrs, name=name, catch_response=True) as r:
            if r.status_code != 200:
                r.failure(f"play answered {r.status_code}: {r.text[:200]}")
                return False
            run = r.json()
    return True


class Player(FastHttpUser):
    weight = 6
    wait_time = between(0.5, 2)

    @task
    def one_player(self):
        run = open_run(self, {}, "POST /runs (ranked)")
        if run is None:
            return
        token = run["player_token"]
        hdrs = {"X-Player-Token": token}
        if not play_through(self, run, token):
            return
        nickname = "load" + secrets.token_hex(5)
        with self.client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                              headers=hdrs, name="POST /submissions", catch_response=True) as r:
            if r.status_code != 202:
                r.failure(f"submit answered {r.status_code}: {r.text[:200]}")
                return
            status_url = r.json()["status_url"]
        deadline, status = time.monotonic() + 60, "queued"
        while time.monotonic() < deadline:
            with self.client.get(status_url, headers=hdrs, name="GET /submissions/[id]") as r:
                status = r.json().get("status")
                if status != "queued":
                    break
            time.sleep(POLL)
        day = run.get("date") or today_iso(self.client)
        if status == "verified":  # a held game (every player here is 127.0.0.1: "explored") has no entry
            self.client.get(f"/api/v1/leaderboards/days/{day}/me?radius=5", headers=hdrs,
                            name="GET /leaderboards/days/[d]/me")
        self.client.get(f"/api/v1/leaderboards/days/{day}/histogram", name="GET /leaderboards/days/[d]/histogram")


class FreePlayer(FastHttpUser):
    weight = 1
    wait_time = between(0.5, 2)

    @task
    def free_game(self):
        run = open_run(self, {"kind": "random"}, "POST /runs (free)")
        if run is not None:
            play_through(self, run, run["player_token"])


class Watcher(FastHttpUser):
    weight = 3
    wait_time = between(1, 3)

    def on_start(self):
        self.day = today_iso(self.client)

    @task(4)
    def day_board(self):
        self.client.get(f"/api/v1/leaderboards/days/{self.day}?limit=20", name="GET /leaderboards/days/[d]")

    @task(1)
    def week_board(self):
        year, week, _ = date.fromisoformat(self.day).isocalendar()
        self.client.get(f"/api/v1/leaderboards/weeks/{year}-W{week:02d}", name="GET /leaderboards/weeks/[w]")

    @task(1)
    def all_time(self):
        self.client.get("/api/v1/leaderboards/all-time", name="GET /leaderboards/all-time")
