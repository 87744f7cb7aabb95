"""``manille ops`` for the operator: ``runs`` prints the day's runs around a game (``--json``: the
API's answer), ``submissions`` a header before its rows and its count on standard error,
``disqualify`` the action's whole answer with ``caches_catch_up_at``.  A real Redis, a real
worker, the command run as a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.app import create_app

from support.svc_helpers import OPS, OPS_OTHER, OPS_TOKENS, SECRET, TEST_BOTS, headers

pytestmark = pytest.mark.stack  # starts the command as a process


def manille(*args, env):
    return subprocess.run([sys.executable, "-m", "cli", *args], env=env, capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).resolve().parents[2])


def play(client, addr, pick):
    run = client.post("/api/v1/runs", json={}, environ_base={"REMOTE_ADDR": addr}).get_json()
    token = run["player_token"]
    while run["status"] != "finished":
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays",
                        json={"turn": run["turn"], "card": pick(run["turn"], run["view"]["legal"])},
                        headers=headers(token), environ_base={"REMOTE_ADDR": addr})
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
    return run, token


def test_the_operators_commands_print_what_they_say(redis_server, rclient, run_worker):
    client = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                         "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS}).test_client()
    probe, _ = play(client, "198.51.100.7", lambda t, legal: legal[-1] if t == 3 else legal[0])
    run, token = play(client, "192.0.2.7", lambda t, legal: legal[0])
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Cli"},
                    headers=headers(token), environ_base={"REMOTE_ADDR": "192.0.2.7"})
    sub_id = r.get_json()["submission_id"]
    run_worker()
    env = dict(os.environ, REDIS_URL=redis_server.url, MANILLE_SECRET=SECRET, MANILLE_OPS_TOKENS=OPS_TOKENS,
               MANILLE_OPS_TOKEN=OPS_OTHER, PYTHONPATH=os.pathsep.join(sys.path))

    out = manille("ops", "runs", sub_id, "--json", env=env)
    assert out.returncode == 0, out.stderr
    api = client.get(f"/api/v1/ops/submissions/{sub_id}/runs", headers={"Authorization": f"Bearer {OPS}"}).get_json()
    assert json.loads(out.stdout) == api and [x["run_id"] for x in api["runs"]] == [probe["run_id"]]
    out = manille("ops", "runs", sub_id, env=env)
    lines = out.stdout.splitlines()
    assert out.returncode == 0 and lines[0].split()[:3] == ["run", "followed", "left"]
    assert lines[1].startswith(probe["run_id"]) and "198.51.100.7" in lines[1]

    out = manille("ops", "submissions", run["date"], env=env)
    lines = out.stdout.splitlines()
    assert out.returncode == 0 and lines[0].split() == ["submission", "status", "score", "flags", "nickname"]
    assert len(lines) == 2 and lines[1].startswith(sub_id) and lines[1].rstrip().endswith("Cli")
    assert out.stderr.splitlines()[-1] == "1 submissions"  # the count on stderr, never among the rows

    out = manille("ops", "disqualify", sub_id, "--reason", "a test", env=env)
    answer = json.loads(out.stdout)
    assert out.returncode == 0 and answer["status"] == "disqualified" and answer["submission_id"] == sub_id
    assert answer["caches_catch_up_at"] and answer["decision_reason"] == "a test"
