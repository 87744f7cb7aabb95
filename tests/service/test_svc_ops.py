"""Ops over HTTP: the bearer token, the day's submissions with flags and evidence, the search of
the day's game caught whatever addresses it used, honest games left alone, disqualify and restore
across every board, the audit log, a closed day's seed."""

from __future__ import annotations

import json
import os
import random
from datetime import date, datetime, timedelta, timezone

import pytest

from service.app import create_app
from service.config import Settings
from service.verification import verify_submission as _verify
from service.leaderboard import ALL_TIME, Leaderboard, day_board

from support.svc_helpers import FLAGS, OPS, OPS_OTHER, OPS_TOKENS, SECRET, TEST_BOTS, headers

@pytest.fixture
def ops_client(redis_server, rclient, monkeypatch):
    for name, value in FLAGS.items():  # the worker (run in-process) reads its settings from there
        monkeypatch.setenv(name, value)
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS,
                      "MANILLE_LIMIT_RANKED_RUNS": "off", **FLAGS})
    return app.test_client()


def ops(token=OPS, user="alice"):
    return {"Authorization": f"Bearer {token}"}


def open_run(client, addr):
    r = client.post("/api/v1/runs", json={}, environ_base={"REMOTE_ADDR": addr})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def play(client, run, token, pick, addr, stop_after=None):
    """Play the run with ``pick(turn, legal)``; stop after ``stop_after`` cards if given."""
    while run["status"] != "finished" and (stop_after is None or run["turn"] < stop_after):
        card = pick(run["turn"], run["view"]["legal"])
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": run["turn"], "card": card},
                        headers=headers(token), environ_base={"REMOTE_ADDR": addr})
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
    return run


def submit(client, run, token, nickname, addr):
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                    headers=headers(token), environ_base={"REMOTE_ADDR": addr})
    assert r.status_code == 202, r.get_json()
    return r.get_json()["submission_id"]


def verified_game(client, run_worker, addr, nickname, pick=lambda turn, legal: legal[0]):
    """A whole ranked game from ``addr``, submitted and verified; (the last run body, its id)."""
    run = open_run(client, addr)
    done = play(client, run, run["player_token"], pick, addr)
    sub_id = submit(client, done, run["player_token"], nickname, addr)
    run_worker()
    return done, sub_id


def line_decisions(client, addr) -> list[int]:
    """Play the line of first legal cards once to the end, unsubmitted (the searcher's first
    look); the turns at which it had a choice."""
    run = open_run(client, addr)
    token, turns = run["player_token"], []
    while run["status"] != "finished":
        if len(run["view"]["legal"]) > 1:
            turns.append(run["turn"])
        run = play(client, run, token, lambda turn, legal: legal[0], addr, stop_after=run["turn"] + 1)
    return turns


def listing(client, day):
    r = client.get(f"/api/v1/ops/days/{day}/submissions", headers=ops())
    assert r.status_code == 200, r.get_json()
    return {s["submission_id"]: s for s in r.get_json()["submissions"]}


def test_ops_needs_the_bearer_token(ops_client, client, caplog):
    day = ops_client.get("/api/v1/challenges/today").get_json()["date"]
    path = f"/api/v1/ops/days/{day}/submissions"
    r = ops_client.get(path)
    assert r.status_code == 401 and r.get_json()["error"] == "ops_unauthorized"
    r = ops_client.get(path, headers=ops("wrong-token"))
    assert r.status_code == 403 and r.get_json()["error"] == "ops_forbidden"
    assert ops_client.get(path, headers=ops()).status_code == 200
    # no MANILLE_OPS_TOKEN configured: closed to every token
    assert client.get(path, headers=ops()).status_code == 403
    assert any("ops: wrong token" in m for m in caplog.messages)
    assert any("ops: no token" in m for m in caplog.messages)


def test_a_search_of_the_day_from_many_addresses_is_flagged_and_held(ops_client, run_worker, rclient):
    client = ops_client
    first = lambda turn, legal: legal[0]  # noqa: E731  the line the searcher settles on
    decisions = line_decisions(client, "203.0.113.1")
    assert len(decisions) >= 7
    # probes: each from its own address and token, follow the line, branch off at one decision
    # and play on (some to the end, some a few cards more); never submitted
    probed = decisions[2:7]
    for i, k in enumerate(probed):
        addr = f"198.51.100.{i + 10}"
        probe = open_run(client, addr)
        alt = lambda turn, legal, k=k: legal[-1] if turn == k else legal[0]  # noqa: E731
        play(client, probe, probe["player_token"], alt, addr, stop_after=None if i % 2 else k + 3)
    # a player who went another way early on is no probe: the branch points count from the 3rd decision
    early = open_run(client, "198.51.100.99")
    play(client, early, early["player_token"], lambda turn, legal: legal[-1] if turn == decisions[1] else legal[0],
         "198.51.100.99")
    # the searcher submits the line from a fresh token and address
    final = open_run(client, "192.0.2.77")
    done = play(client, final, final["player_token"], first, "192.0.2.77")
    sub_id = submit(client, done, final["player_token"], "Searcher", "192.0.2.77")
    run_worker()
    status = client.get(f"/api/v1/submissions/{sub_id}").get_json()
    assert status["status"] == "held" and status["rank"] is None and status["score"] is not None
    day = status["date"]
    entry = listing(client, day)[sub_id]
    explored = [f for f in entry["flags"] if f["code"] == "explored"]
    assert explored, entry["flags"]
    evidence = explored[0]["evidence"]
    assert evidence["points"] == len(probed) and evidence["runs"] == len(probed)
    assert [b["index"] for b in evidence["branches"]] == probed
    assert Leaderboard(rclient).total(day_board(date.fromisoformat(day))) == 0
    # ops look, decide it is honest after all, restore it: on the board; the audit log says who
    r = client.post(f"/api/v1/ops/submissions/{sub_id}/restore", json={"reason": "checked by hand"},
                    headers=ops())
    assert r.status_code == 200 and r.get_json()["status"] == "verified"
    assert client.get(f"/api/v1/submissions/{sub_id}").get_json()["rank"] == 1
    audit = client.get("/api/v1/ops/audit", headers=ops()).get_json()["entries"]
    assert audit[0]["action"] == "restore" and audit[0]["target"] == sub_id
    assert audit[0]["who"].startswith("tess@") and audit[0]["why"] == "checked by hand"
    # a re-verification keeps the flags computed the first time, and the ops decision
    _verify(Settings.from_env(os.environ), rclient, sub_id)
    after = listing(client, day)[sub_id]
    assert after["flags"] == entry["flags"] and after["status"] == "verified"


def test_honest_players_on_the_same_day_are_not_flagged(ops_client, run_worker):
    client = ops_client
    subs = []
    for i in range(8):
        addr = f"10.1.0.{i}"
        rng = random.Random(i)
        run = open_run(client, addr)
        if i % 3 == 2:  # some give up halfway
            play(client, run, run["player_token"], lambda turn, legal, rng=rng: rng.choice(legal), addr,
                 stop_after=10)
            continue
        done = play(client, run, run["player_token"], lambda turn, legal, rng=rng: rng.choice(legal), addr)
        subs.append(submit(client, done, run["player_token"], f"Honest{i}", addr))
    run_worker()
    day = client.get("/api/v1/challenges/today").get_json()["date"]
    listed = listing(client, day)
    for sub_id in subs:
        codes = [f["code"] for f in listed[sub_id]["flags"] if f["code"] != "speed"]  # bots play fast
        assert codes == [] and listed[sub_id]["status"] == "verified", listed[sub_id]


def test_many_runs_from_one_address_is_flagged_but_not_held(ops_client, run_worker):
    client = ops_client
    for _ in range(5):
        open_run(client, "10.2.0.1")
    done, sub_id = verified_game(client, run_worker, "10.2.0.1", "Busy")
    entry = listing(client, done["date"])[sub_id]
    many = [f for f in entry["flags"] if f["code"] == "many_runs"]
    assert many and many[0]["evidence"]["runs"] == 6 and len(many[0]["evidence"]["other_runs"]) == 5
    assert entry["status"] == "verified"
    detail = client.get(f"/api/v1/ops/submissions/{sub_id}", headers=ops()).get_json()
    assert len(detail["address_runs"]) == 5 and len(detail["play_times_ms"]) == len(detail["cards"])
    assert detail["record"] is None and detail["hands_sealed"] is True  # the day is open
    detail = client.post(f"/api/v1/ops/submissions/{sub_id}/hands", json={"reason": "many runs: look"},
                         headers=ops()).get_json()
    assert detail["record"]["rank_score"] == entry["score"]
    mine = [p for d in detail["record"]["deals"] for t in d["tricks"] for p in t["plays"] if p["seat"] == 0]
    judged = [p for p in mine if "oracle" in p]
    assert judged and all(p["oracle"] in p["oracle_best"] and set(p["oracle_best"]) < set(p["legal"])
                          for p in judged)


def test_an_open_days_hands_are_read_only_by_an_audited_action_naming_who_and_why(ops_client, run_worker,
                                                                                   rclient):
    """While the day is open its hands are its secret: the detail holds no record and the oracle
    flag's evidence no oracle choices; reading them takes a reason, and the audit log names the
    operator whose token asked (each operator has their own).  Once the seed is public the detail
    holds the record again, unasked."""
    from freezegun import freeze_time
    from service.submissions import Submissions

    client = ops_client
    done, sub_id = verified_game(client, run_worker, "10.6.0.1", "Sealed")
    oracle = {"code": "oracle", "evidence": {"decisive": 9, "agreed": 9, "rate": 1.0, "choices": [
        {"deal": 0, "trick": 3, "card": "TH", "oracle": ["TH"], "agreed": True}]}}
    rclient.hset(Submissions.key(sub_id), "flags", json.dumps([oracle]))  # as a verification would keep it

    sealed = client.get(f"/api/v1/ops/submissions/{sub_id}", headers=ops()).get_json()
    assert sealed["hands_sealed"] is True and sealed["record"] is None
    assert sealed["flags"][0]["evidence"] == {"decisive": 9, "agreed": 9, "rate": 1.0, "choices_sealed": True}
    assert listing(client, done["date"])[sub_id]["flags"] == sealed["flags"]
    assert client.get("/api/v1/ops/audit", headers=ops()).get_json()["entries"] == []  # reading that is no action

    for body in ({}, {"reason": ""}):  # no reason, no hands
        r = client.post(f"/api/v1/ops/submissions/{sub_id}/hands", json=body, headers=ops())
        assert r.status_code == 422 and r.get_json()["error"] == "validation_error"
    r = client.post(f"/api/v1/ops/submissions/{sub_id}/hands", json={"reason": "a player's complaint"},
                    headers=ops(OPS_OTHER))
    assert r.status_code == 200, r.get_json()
    full = r.get_json()
    assert full["hands_sealed"] is False and full["record"]["rank_score"] == done["result"]["rank_score"]
    assert all(len(d["hands"][str(seat)]) == 8 for d in full["record"]["deals"] for seat in range(4))
    assert full["flags"][0]["evidence"]["choices"] == oracle["evidence"]["choices"]
    entry = client.get("/api/v1/ops/audit", headers=ops()).get_json()["entries"][0]
    assert (entry["action"], entry["target"], entry["why"]) == ("read_hands", sub_id, "a player's complaint")
    assert entry["who"] == "omar@127.0.0.1"  # the operator of that token, not a name the client gave
    assert json.loads(entry["details"]) == {"day": done["date"], "day_open": True}

    with freeze_time(datetime.now(timezone.utc) + timedelta(days=2)):  # the day's seed is public now
        closed = client.get(f"/api/v1/ops/submissions/{sub_id}", headers=ops()).get_json()
    assert closed["hands_sealed"] is False and closed["record"]["rank_score"] == done["result"]["rank_score"]
    assert closed["flags"][0]["evidence"]["choices"] == oracle["evidence"]["choices"]


def test_disqualify_takes_a_game_off_every_board_and_restore_puts_it_back(ops_client, run_worker, rclient):
    client = ops_client
    done, sub_id = verified_game(client, run_worker, "10.3.0.1", "Cheat", lambda turn, legal: legal[-1])
    day = date.fromisoformat(done["date"])
    lb = Leaderboard(rclient)
    boards = [day_board(day), ALL_TIME]
    assert all(lb.total(b) == 1 for b in boards)
    r = client.post(f"/api/v1/ops/submissions/{sub_id}/disqualify", json={}, headers=ops())
    assert r.status_code == 422  # a reason is required
    r = client.post(f"/api/v1/ops/submissions/{sub_id}/disqualify", json={"reason": "used a solver"},
                    headers=ops())
    assert r.status_code == 200 and r.get_json()["status"] == "disqualified"
    assert all(lb.total(b) == 0 for b in boards) and lb.histogram(day) == []
    status = client.get(f"/api/v1/submissions/{sub_id}").get_json()
    assert status["status"] == "disqualified" and status["rank"] is None
    _verify(Settings.from_env(os.environ), rclient, sub_id)  # a re-verification must not put it back
    assert lb.total(day_board(day)) == 0
    again = client.post(f"/api/v1/ops/submissions/{sub_id}/disqualify", json={"reason": "twice"}, headers=ops())
    assert again.status_code == 409
    r = client.post(f"/api/v1/ops/submissions/{sub_id}/restore", json={"reason": "appeal upheld"}, headers=ops())
    assert r.status_code == 200 and all(lb.total(b) == 1 for b in boards)
    actions = [e["action"] for e in client.get("/api/v1/ops/audit", headers=ops()).get_json()["entries"]]
    assert actions[:2] == ["restore", "disqualify"]


def test_a_closed_days_seed_and_a_sealed_one(ops_client):
    today = date.fromisoformat(ops_client.get("/api/v1/challenges/today").get_json()["date"])
    past = (today - timedelta(days=2)).isoformat()
    r = ops_client.get(f"/api/v1/ops/days/{past}/seed", headers=ops())
    assert r.status_code == 200 and r.get_json()["seed"] == ops_client.get(f"/api/v1/challenges/{past}").get_json()["seed"]
    r = ops_client.get(f"/api/v1/ops/days/{today.isoformat()}/seed", headers=ops())
    assert r.status_code == 409 and r.get_json()["error"] == "seed_sealed"


def _manille(*args, env):
    import subprocess
    import sys
    from pathlib import Path
    return subprocess.run([sys.executable, "-m", "cli", *args], env=env, capture_output=True,
                          text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])


@pytest.mark.stack
def test_the_ops_command_line(ops_client, run_worker, redis_server, monkeypatch):
    import json
    client = ops_client
    done, sub_id = verified_game(client, run_worker, "10.4.0.1", "Termi")
    env = dict(os.environ, REDIS_URL=redis_server.url, MANILLE_SECRET=SECRET, MANILLE_OPS_TOKENS=OPS_TOKENS,
               MANILLE_OPS_TOKEN=OPS_OTHER, PYTHONPATH=os.pathsep.join(__import__("sys").path))
    out = _manille("ops", "submissions", done["date"], "--json", env=env)
    assert out.returncode == 0, out.stderr
    listed = json.loads(out.stdout)["submissions"]  # stdout is the JSON alone
    assert [(s["submission_id"], s["nickname"], s["status"]) for s in listed] == [(sub_id, "Termi", "verified")]
    assert isinstance(listed[0]["flags"], list) and listed[0]["score"] == done["result"]["rank_score"]
    no_token = dict(env, MANILLE_OPS_TOKEN="")
    refused = _manille("ops", "submissions", done["date"], "--json", env=no_token)
    assert refused.returncode == 2 and refused.stdout == "" and "MANILLE_OPS_TOKEN" in refused.stderr
    # a token of no operator, one too short: refused, naming the variable, before anything runs
    stranger = _manille("ops", "submissions", done["date"], env=dict(env, MANILLE_OPS_TOKEN="x" * 40))
    assert stranger.returncode == 2 and stranger.stdout == "" and "no operator's token" in stranger.stderr
    short = _manille("ops", "submissions", done["date"], env=dict(env, MANILLE_OPS_TOKEN="short"))
    assert short.returncode != 0 and short.stdout == "" and "MANILLE_OPS_TOKEN is 5 bytes long" in short.stderr
    out = _manille("ops", "disqualify", sub_id, "--reason", "test", env=env)
    assert out.returncode == 0 and json.loads(out.stdout)["status"] == "disqualified"
    out = _manille("ops", "reverify", done["date"], "--json", env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert json.loads(out.stdout)["differences"] == [] and "1/1" in out.stderr  # the progress bar
    who = client.get("/api/v1/ops/audit", headers=ops()).get_json()["entries"][0]["who"]
    assert who == "omar@cli"  # the operator whose token ran it


def test_reverify_reports_what_a_rules_change_would_change(ops_client, run_worker, rclient, monkeypatch):
    from service.ops import Ops
    from service.replay import rules, state
    client = ops_client
    done, sub_id = verified_game(client, run_worker, "10.5.0.1", "Rulesy")
    settings = Settings.from_env(dict(os.environ, MANILLE_OPS_TOKENS=OPS_TOKENS))
    day = date.fromisoformat(done["date"])
    assert Ops(rclient, settings).reverify(day)["differences"] == []
    # a deliberate change of the rules: a deal's winners score every point, not those beyond 30
    monkeypatch.setattr(state, "deal_score", lambda points: (points[0], 0) if points[0] > 30 else (0, points[1]))
    report = Ops(rclient, settings).reverify(day)
    assert [d["submission_id"] for d in report["differences"]] == [sub_id]
    assert report["differences"][0]["stored"]["score"] == done["result"]["rank_score"]
    assert rules.deal_score((31, 30)) == (1, 0)  # the engine itself was left as it was


def test_reverify_and_rebuild_a_day_over_http_as_worker_jobs(ops_client, run_worker, rclient):
    client = ops_client
    done, sub_id = verified_game(client, run_worker, "10.6.0.1", "Jobby")
    day = done["date"]
    lb = Leaderboard(rclient)
    lb.remove(date.fromisoformat(day), client.get(f"/api/v1/ops/submissions/{sub_id}",
                                                   headers=ops()).get_json()["player"], done["result"]["rank_score"])
    assert lb.total(day_board(date.fromisoformat(day))) == 0  # the board lost it (a bad manual edit, say)
    r = client.post(f"/api/v1/ops/days/{day}/reverify", headers=ops())
    assert r.status_code == 202 and r.get_json()["status"] == "queued"
    reverify = r.get_json()["status_url"]
    r = client.post(f"/api/v1/ops/days/{day}/rebuild", json={"reason": "board lost an entry"}, headers=ops())
    assert r.status_code == 202
    rebuild = r.get_json()["status_url"]
    run_worker()
    report = client.get(reverify, headers=ops()).get_json()
    assert report["status"] == "finished" and report["result"]["differences"] == []
    assert report["result"]["checked"] == 1
    assert client.get(rebuild, headers=ops()).get_json()["result"]["recorded"] == 1
    assert lb.total(day_board(date.fromisoformat(day))) == 1
    assert client.get("/api/v1/ops/jobs/nope", headers=ops()).status_code == 404
    for impossible in ("a.b", "x y", "é"):  # ids no job can have (RQ refuses them): an unknown id all the same
        r = client.get(f"/api/v1/ops/jobs/{impossible}", headers=ops())
        assert r.status_code == 404 and r.get_json()["error"] == "job_not_found", impossible
    actions = [e["action"] for e in client.get("/api/v1/ops/audit", headers=ops()).get_json()["entries"]]
    assert actions[:3] == ["rebuild_day", "queue_rebuild_day", "reverify_day"]


@pytest.mark.parametrize("bots", ["oracle-1", "no-such-bot"])
def test_a_challenge_bot_must_be_a_real_one_from_the_start(redis_server, bots):
    from bots.registry import UnknownBotError
    with pytest.raises(UnknownBotError):
        create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                    "MANILLE_BOTS": bots})


def test_a_household_behind_one_address_is_listed_not_held(ops_client, run_worker):
    client = ops_client
    subs = []
    for i in range(7):
        rng = random.Random(100 + i)
        pick = lambda turn, legal, rng=rng: rng.choice(legal)  # noqa: E731
        run = open_run(client, "10.7.0.1")
        if i in (2, 5):  # two give up
            play(client, run, run["player_token"], pick, "10.7.0.1", stop_after=6)
            continue
        done = play(client, run, run["player_token"], pick, "10.7.0.1")
        subs.append(submit(client, done, run["player_token"], f"Family{i}", "10.7.0.1"))
    run_worker()
    listed = listing(client, client.get("/api/v1/challenges/today").get_json()["date"])
    for sub_id in subs:
        codes = {f["code"] for f in listed[sub_id]["flags"]}
        assert "many_runs" in codes and "explored" not in codes and listed[sub_id]["status"] == "verified"


def test_a_search_from_one_address_within_the_limits_is_held(ops_client, run_worker):
    client = ops_client  # limits off here: the 20 runs a day one address may open
    decisions = line_decisions(client, "10.8.0.1")
    for k in decisions[:5]:  # a short search: early decisions only, stopped at the deal's end
        probe = open_run(client, "10.8.0.1")
        play(client, probe, probe["player_token"], lambda turn, legal, k=k: legal[-1] if turn == k else legal[0],
             "10.8.0.1", stop_after=k + 3)
    final = open_run(client, "10.8.0.1")
    done = play(client, final, final["player_token"], lambda turn, legal: legal[0], "10.8.0.1")
    sub_id = submit(client, done, final["player_token"], "Shorty", "10.8.0.1")
    run_worker()
    entry = listing(client, done["date"])[sub_id]
    explored = [f for f in entry["flags"] if f["code"] == "explored"]
    assert entry["status"] == "held" and explored and explored[0]["evidence"]["same_address"]
    assert [b["index"] for b in explored[0]["evidence"]["branches"]] == decisions[:5]
