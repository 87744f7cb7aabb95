"""The day's runs around a game, on a real Redis with a real worker: the shallow search of issue
52 (twelve throwaway runs, each from its own address and token, each leaving the line at one
decision and finished in a blink, then the line played again at a person's pace from a
thirteenth address and submitted) is listed around the game and flagged ``probed`` though
``explored`` misses it; honest games at a person's pace beside it are not; a case keeps its runs
past the day's keep.  The clock is driven (freezegun), so the pace is what the test says."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from freezegun import freeze_time

from service.app import create_app
from service.config import Settings
from service.flags import FlagSettings
from service.runs import RunStore
from service.runs.around import keep_runs_around, kept_key, runs_around

from support.svc_helpers import OPS, OPS_TOKENS, SECRET, TEST_BOTS, headers

#: Brussels 11:00 on a day of the test secret's: the day is open.
MORNING = datetime(2026, 12, 2, 10, 0, tzinfo=timezone.utc)
SETTINGS = Settings.from_env({"MANILLE_SECRET": SECRET, "MANILLE_BOTS": TEST_BOTS})
PERSON = 2.5    # seconds a card at a person's pace
BLINK = 0.002   # a scripted throwaway run: 48 cards in 0.1 s


@pytest.fixture
def client(redis_server, rclient):
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS,
                      "MANILLE_TRUSTED_PROXIES": "0"})
    return app.test_client()


def ops():
    return {"Authorization": f"Bearer {OPS}"}


class Player:
    """One client: a token and an address; plays on the driven clock."""

    def __init__(self, client, clock, addr, agent="Mozilla/5.0 (test)"):
        self.client, self.clock, self.addr, self.agent = client, clock, addr, agent
        r = client.post("/api/v1/runs", json={}, environ_base={"REMOTE_ADDR": addr},
                        headers={"User-Agent": agent})
        assert r.status_code == 201, r.get_json()
        self.run = r.get_json()
        self.token = self.run["player_token"]

    def play(self, pick, pace, stop_after=None):
        turns = []
        while self.run["status"] != "finished" and (stop_after is None or self.run["turn"] < stop_after):
            legal = self.run["view"]["legal"]
            if len(legal) > 1:
                turns.append(self.run["turn"])
            self.clock.tick(pace)
            r = self.client.post(f"/api/v1/runs/{self.run['run_id']}/plays",
                                 json={"turn": self.run["turn"], "card": pick(self.run["turn"], legal)},
                                 headers={**headers(self.token), "User-Agent": self.agent},
                                 environ_base={"REMOTE_ADDR": self.addr})
            assert r.status_code == 200, r.get_json()
            self.run = r.get_json()
        return turns

    def submit(self, nickname):
        r = self.client.post("/api/v1/submissions", json={"run_id": self.run["run_id"], "nickname": nickname},
                             headers=headers(self.token), environ_base={"REMOTE_ADDR": self.addr})
        assert r.status_code == 202, r.get_json()
        return r.get_json()["submission_id"]


def first(turn, legal):
    return legal[0]


def leave_at(k):
    return lambda turn, legal: legal[-1] if turn == k else legal[0]


def codes(client, sub_id):
    day = sub_id[:4] + "-" + sub_id[4:6] + "-" + sub_id[6:8]
    listed = client.get(f"/api/v1/ops/days/{day}/submissions", headers=ops()).get_json()["submissions"]
    entry = next(s for s in listed if s["submission_id"] == sub_id)
    return {f["code"]: f["evidence"] for f in entry["flags"]}


def test_a_shallow_search_from_many_addresses_is_listed_and_flagged_and_honest_games_are_not(client, run_worker,
                                                                                            rclient):
    with freeze_time(MORNING, tick=False) as clock:
        # honest players of the day, each from their own address, at a person's pace; two of them
        # follow the same first cards (by chance) and part later; one gives up part-way
        honest = []
        for i, pick in enumerate([first, leave_at(9), lambda t, legal: legal[t % len(legal)]]):
            p = Player(client, clock, f"192.0.2.{10 + i}")
            p.play(pick, PERSON)
            honest.append(p.submit(f"Honest{i}"))
            clock.tick(60)
        quitter = Player(client, clock, "192.0.2.40")
        quitter.play(first, PERSON, stop_after=12)
        run_worker()
        # the search: twelve throwaway runs, each from its own address, each leaving the plain
        # line at one turn (where the card is forced it plays the line whole), finished in 0.1 s
        probes = []
        for k in range(12):
            probe = Player(client, clock, f"198.51.100.{20 + k}", agent="python-requests/2.32")
            probe.play(leave_at(k), BLINK)
            probes.append(probe.run["run_id"])
            clock.tick(1)
        # the line played again from a thirteenth address at a person's pace, and submitted
        searcher = Player(client, clock, "203.0.113.77")
        decisions = searcher.play(first, PERSON)
        cheat = searcher.submit("Searcher")
        # an honest player after the search, on another line: the probes are around it too, but
        # they all left it where it left theirs
        late = Player(client, clock, "192.0.2.50")
        late.play(lambda t, legal: legal[-1], PERSON)
        honest.append(late.submit("Late"))
        run_worker()

    found = codes(client, cheat)
    assert "probed" in found and "explored" not in found, found
    evidence = found["probed"]
    left = [k for k in range(12) if k in decisions]  # the probes that met a choice left there
    # on a quiet day each probe is the only fast throwaway run where it left: each is a point
    # (two honest runs left the line too, at a person's pace: they count in the binomial's n)
    assert [b["index"] for b in evidence["branches"]] == left
    assert all(b["p"] < FlagSettings().probed_alpha for b in evidence["branches"])
    assert evidence["points"] == len(left) + 1 and len(evidence["whole"]) == 12 - len(left)
    for sub_id in honest:
        assert "probed" not in codes(client, sub_id), sub_id

    r = client.get(f"/api/v1/ops/submissions/{cheat}/runs", headers=ops())
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["followed_from"] == 0 and body["earlier"] == []
    listed = {run["run_id"]: run for run in body["runs"]}
    assert searcher.run["run_id"] not in listed  # the game's own run is no run around it
    for k, run_id in enumerate(probes):
        run = listed[run_id]
        assert run["finished"] and not run["submitted"] and run["network"] == f"198.51.100.{20 + k}"
        assert run["user_agent"] == "python-requests/2.32" and run["pace"]["median_ms"] == 2
        assert run["token_age_seconds"] == 0
        if k in decisions:
            assert run["left"]["index"] == k and run["followed"] == k and run["left"]["decision"]
            assert run["left"]["tried"] != run["left"]["played"]
        else:
            assert run["whole"] and run["left"] is None
    # the honest game on the same line, submitted before, and the one that parted at turn 9
    same = listed[RunStore(rclient, SETTINGS).ranked_id(date(2026, 12, 2), _pid(client, honest[0]))]
    assert same["whole"] and same["submitted"] and same["submission_id"] == honest[0]
    assert same["pace"]["median_ms"] == PERSON * 1000
    stopped = [run for run in body["runs"] if run["cards"] == 12 and not run["finished"]]
    assert len(stopped) == 1 and stopped[0]["left"] is None and stopped[0]["followed"] == 12
    # deepest first
    assert [run["followed"] for run in body["runs"]] == sorted((run["followed"] for run in body["runs"]), reverse=True)


def _pid(client, sub_id):
    return client.get(f"/api/v1/ops/submissions/{sub_id}", headers=ops()).get_json()["player"]


def test_an_opened_case_keeps_its_runs_past_the_days_keep(client, run_worker, rclient):
    settings = SETTINGS
    with freeze_time(MORNING, tick=False) as clock:
        probe = Player(client, clock, "198.51.100.5")
        probe.play(leave_at(3), BLINK)
        other = Player(client, clock, "198.51.100.6")
        other.play(leave_at(5), BLINK)
        searcher = Player(client, clock, "203.0.113.9")
        searcher.play(first, PERSON)
        cheat = searcher.submit("Kept")
        run_worker()
        before = {r["run_id"] for r in runs_around(rclient, settings, cheat)}
        assert before == {probe.run["run_id"], other.run["run_id"]}
        assert set(keep_runs_around(rclient, settings, cheat)) == before
    store = RunStore(rclient, settings)
    day = date(2026, 12, 2)
    for run_id in (probe.run["run_id"], other.run["run_id"]):  # the lines go with the day's runs, never stay
        assert rclient.ttl(store.lines_key(day, int(run_id[9:11]))) > 0
    assert rclient.ttl(store.key(probe.run["run_id"])) > settings.case_keep_days * 86400 - 60
    # the day's keep passes: its lines go (as their TTL would take them); the kept runs stay
    rclient.delete(*[store.lines_key(day, shard) for shard in range(16)])
    assert {r["run_id"] for r in runs_around(rclient, settings, cheat)} == before
    assert rclient.ttl(kept_key(cheat)) > 0


def test_runs_around_an_unknown_game_is_a_404(client):
    r = client.get("/api/v1/ops/submissions/20261202-03-0000000000000000000000000000/runs", headers=ops())
    assert r.status_code == 404 and r.get_json()["error"] == "submission_not_found"
    assert client.get("/api/v1/ops/submissions/x/runs").status_code == 401
