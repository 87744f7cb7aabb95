"""Rotating the server secret on a real Redis with real processes: the days before
MANILLE_SECRET_SINCE keep their seeds, the days from it take the new secret, a game played and
verified before the rotation still re-verifies after it (``manille ops reverify``), a run in play
across the restart still verifies, ``manille seed`` follows the schedule, and every process (web,
worker, ops) refuses a configuration that would change a day already committed."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from datetime import date, timedelta

import pytest

from service.app import create_app
from service.challenges import Challenges, check_commitments
from service.config import Settings
from service.ops import Ops
from service.seeds import SecretScheduleError, ShortSecretError, commitment, daily_seed

from support.svc_helpers import LIMITS_OFF, OPS, OPS_TOKENS, ROOT, SECRET, TEST_BOTS, headers

NEW = "rotated-secret-0123456789abcdef-0123"
OLD_A, OLD_B, OLD_C = ("older-secret-a-0123456789abcdef-0123", "older-secret-b-0123456789abcdef-0123",
                       "older-secret-c-0123456789abcdef-0123")


def config(**env) -> dict:
    return {"TESTING": True, "MANILLE_SECRET": SECRET, "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS,
            **LIMITS_OFF, **env}


def rotated(since: date, previous: str = SECRET, secret: str = NEW) -> dict:
    return {"MANILLE_SECRET": secret, "MANILLE_SECRET_SINCE": since.isoformat(), "MANILLE_SECRET_PREVIOUS": previous}


def process_env(redis_server, **env) -> dict:
    out = {k: v for k, v in os.environ.items() if not k.startswith("MANILLE_SECRET")}
    out.update(REDIS_URL=redis_server.url, MANILLE_SECRET=SECRET, MANILLE_BOTS=TEST_BOTS, MANILLE_OPS_TOKENS=OPS_TOKENS,
               MANILLE_OPS_TOKEN=OPS, PYTHONPATH=os.pathsep.join(sys.path))
    out.update(env)
    return out


def run(*argv, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)


def today_of(client) -> date:
    return date.fromisoformat(client.get("/api/v1/challenges/today").get_json()["date"])


def play_out(client, run_body, stop_after=None):
    token = run_body["player_token"]
    while run_body["status"] != "finished" and (stop_after is None or run_body["turn"] < stop_after):
        r = client.post(f"/api/v1/runs/{run_body['run_id']}/plays",
                        json={"turn": run_body["turn"], "card": run_body["view"]["legal"][0]}, headers=headers(token))
        assert r.status_code == 200, r.get_json()
        run_body = {**r.get_json(), "player_token": token}
    return run_body


def submit(client, run_body) -> str:
    r = client.post("/api/v1/submissions", json={"run_id": run_body["run_id"], "nickname": "Rota"},
                    headers=headers(run_body["player_token"]))
    assert r.status_code == 202, r.get_json()
    return r.get_json()["submission_id"]


def test_a_day_stores_the_commitment_it_published(rclient, redis_server):
    client = create_app(config(REDIS_URL=redis_server.url)).test_client()
    today = today_of(client)
    published = client.get("/api/v1/challenges/today").get_json()["commitment"]
    stored = json.loads(rclient.get(Challenges.key(today)))
    assert stored["commitment"] == published == commitment(daily_seed(SECRET.encode(), today))


def test_a_rotation_from_tomorrow_keeps_every_committed_day_and_changes_the_days_from_since(rclient, redis_server):
    before = create_app(config(REDIS_URL=redis_server.url)).test_client()
    today = today_of(before)
    past = today - timedelta(days=3)
    published = {d: before.get(f"/api/v1/challenges/{d.isoformat()}").get_json() for d in (past, today)}
    after = create_app(config(REDIS_URL=redis_server.url, **rotated(today + timedelta(days=1)))).test_client()
    for d, was in published.items():  # the days before SINCE: their seeds under the old single secret
        now = after.get(f"/api/v1/challenges/{d.isoformat()}").get_json()
        assert now["commitment"] == was["commitment"] and now["seed"] == was["seed"]
    assert published[past]["seed"] == daily_seed(SECRET.encode(), past).hex()
    settings = Settings.from_env(dict(os.environ, REDIS_URL=redis_server.url, **rotated(today + timedelta(days=1))))
    for d in (today + timedelta(days=1), today + timedelta(days=40)):  # from SINCE: the new secret
        assert settings.seed(d) == daily_seed(NEW.encode(), d) != daily_seed(SECRET.encode(), d)


@pytest.mark.stack
def test_a_game_verified_before_the_rotation_reverifies_after_it_and_a_bare_new_secret_is_refused(
        rclient, redis_server, run_worker):
    client = create_app(config(REDIS_URL=redis_server.url)).test_client()
    done = play_out(client, client.post("/api/v1/runs", json={}).get_json())
    sub_id = submit(client, done)
    run_worker()
    assert client.get(f"/api/v1/submissions/{sub_id}").get_json()["status"] == "verified"
    day = date.fromisoformat(done["date"])

    # The rotation as the runbook says: SINCE tomorrow, the old secret kept; `manille ops reverify`.
    env = process_env(redis_server, **rotated(day + timedelta(days=1)))
    out = run("-m", "cli", "ops", "reverify", day.isoformat(), "--json", env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["checked"] == 1 and report["differences"] == []
    # A chain: an older secret before the one rotated out, which served from today on.
    chain = f"ancient-secret-0123456789abcdef-0123\n{day.isoformat()} {SECRET}"
    out = run("-m", "cli", "ops", "reverify", day.isoformat(), "--json",
              env=process_env(redis_server, **rotated(day + timedelta(days=1), previous=chain)))
    assert out.returncode == 0 and json.loads(out.stdout)["differences"] == [], out.stderr

    # The new secret alone would reject the game (what the start check prevents) …
    bare = Settings.from_env(dict(os.environ, REDIS_URL=redis_server.url, MANILLE_SECRET=NEW))
    assert [d["submission_id"] for d in Ops(rclient, bare).reverify(day)["differences"]] == [sub_id]
    # … so every process refuses to start with it: ops, the worker, the web app.
    out = run("-m", "cli", "ops", "reverify", day.isoformat(), env=process_env(redis_server, MANILLE_SECRET=NEW))
    assert out.returncode == 2 and out.stdout == ""
    assert f"would change the seed of {day.isoformat()}" in out.stderr and "MANILLE_SECRET_SINCE" in out.stderr
    out = run("-m", "worker", "--burst", env=process_env(redis_server, MANILLE_SECRET=NEW))
    assert out.returncode != 0 and "SecretScheduleError" in out.stderr and day.isoformat() in out.stderr
    with pytest.raises(SecretScheduleError, match="MANILLE_SECRET"):
        create_app(config(REDIS_URL=redis_server.url, MANILLE_SECRET=NEW))
    # The same with a worker on the rotated configuration: it starts (and finds nothing to do).
    assert run("-m", "worker", "--burst", env=env).returncode == 0


@pytest.mark.stack
def test_a_run_in_play_across_the_rotation_verifies_in_a_worker_process(rclient, redis_server):
    before = create_app(config(REDIS_URL=redis_server.url)).test_client()
    half = play_out(before, before.post("/api/v1/runs", json={}).get_json(), stop_after=10)
    day = date.fromisoformat(half["date"])
    since = rotated(day + timedelta(days=1))
    after = create_app(config(REDIS_URL=redis_server.url, **since)).test_client()  # the restart
    done = play_out(after, half)
    sub_id = submit(after, done)
    out = run("-m", "worker", "--burst", env=process_env(redis_server, **since))
    assert out.returncode == 0, out.stderr
    body = after.get(f"/api/v1/submissions/{sub_id}").get_json()
    assert body["status"] == "verified" and body["score"] == done["result"]["rank_score"]


def test_a_since_of_an_already_committed_day_is_refused_and_a_settled_rotation_restarts(rclient, redis_server):
    today = today_of(create_app(config(REDIS_URL=redis_server.url)).test_client())  # today committed
    for since in (today, today - timedelta(days=5)):
        with pytest.raises(SecretScheduleError,
                           match=rf"MANILLE_SECRET \(from MANILLE_SECRET_SINCE {since}\) would change the seed of {today}"):
            create_app(config(REDIS_URL=redis_server.url, **rotated(since)))
    # A rotation whose SINCE came while it was configured: today committed under the new secret, so
    # the same configuration starts again, and going back to the old secret alone is refused.
    rclient.flushall()
    settled = config(REDIS_URL=redis_server.url, **rotated(today))
    client = create_app(settled).test_client()
    assert client.get("/api/v1/challenges/today").get_json()["commitment"] == commitment(daily_seed(NEW.encode(), today))
    client = create_app(settled).test_client()
    assert check_commitments(rclient, Settings.from_env(dict(os.environ, **rotated(today)))) >= 1
    with pytest.raises(SecretScheduleError, match="no MANILLE_SECRET_SINCE"):
        create_app(config(REDIS_URL=redis_server.url))
    # A wrong older secret shows on the days it serves.
    rclient.flushall()
    create_app(config(REDIS_URL=redis_server.url)).test_client().get("/api/v1/challenges/today")
    with pytest.raises(SecretScheduleError, match="MANILLE_SECRET_PREVIOUS"):
        create_app(config(REDIS_URL=redis_server.url, **rotated(today + timedelta(days=1), previous="typo-secret-0123456789abcdef-0123")))


def test_days_opened_before_commitments_were_stored_are_not_held_against_a_rotation(rclient, redis_server):
    settings = Settings.from_env(dict(os.environ, REDIS_URL=redis_server.url))
    today = settings.today()
    rclient.set(Challenges.key(today), json.dumps({"rules": "manille-1", "bots": TEST_BOTS, "created_at": "x"}))
    assert check_commitments(rclient, Settings.from_env(dict(os.environ, MANILLE_SECRET=NEW))) == 0
    assert create_app(config(REDIS_URL=redis_server.url, MANILLE_SECRET=NEW))


@pytest.mark.parametrize("env, message", [
    ({"MANILLE_SECRET_SINCE": "2030-01-01"}, "MANILLE_SECRET_SINCE is 2030-01-01 but MANILLE_SECRET_PREVIOUS"),
    ({"MANILLE_SECRET_PREVIOUS": OLD_A}, "MANILLE_SECRET_PREVIOUS is set but MANILLE_SECRET_SINCE is not"),
    ({"MANILLE_SECRET_SINCE": "2030-02-30", "MANILLE_SECRET_PREVIOUS": OLD_A}, "MANILLE_SECRET_SINCE: not a date"),
    ({"MANILLE_SECRET_SINCE": "2030-01-01", "MANILLE_SECRET_PREVIOUS": f"{OLD_A}\n2030-01-01 {OLD_B}"},
     "MANILLE_SECRET_SINCE 2030-01-01 is not after MANILLE_SECRET_PREVIOUS's last date 2030-01-01"),
    ({"MANILLE_SECRET_SINCE": "2030-01-01", "MANILLE_SECRET_PREVIOUS": f"{OLD_A}\n2029-05-01 {OLD_B}\n2029-04-01 {OLD_C}"},
     "MANILLE_SECRET_PREVIOUS line 3: 2029-04-01 is not after"),
    ({"MANILLE_SECRET_SINCE": "2030-01-01", "MANILLE_SECRET_PREVIOUS": f"2029-01-01 {OLD_A}"},
     "MANILLE_SECRET_PREVIOUS line 1: the oldest secret comes first"),
    ({"MANILLE_SECRET_SINCE": "2030-01-01", "MANILLE_SECRET_PREVIOUS": f"{OLD_A}\n{OLD_B}"}, "MANILLE_SECRET_PREVIOUS line 2"),
    ({"MANILLE_SECRET_SINCE": "2030-01-01", "MANILLE_SECRET_PREVIOUS": NEW}, "nothing would rotate"),
])
@pytest.mark.stack
def test_inconsistent_rotations_are_refused_by_every_process(redis_server, rclient, env, message):
    with pytest.raises(SecretScheduleError, match=message.replace("(", r"\(")):
        create_app(config(REDIS_URL=redis_server.url, MANILLE_SECRET=NEW, **env))
    for argv in (["-m", "cli", "seed", "2030-01-01"], ["-m", "cli", "ops", "pending"]):
        out = run(*argv, env=process_env(redis_server, MANILLE_SECRET=NEW, **env))
        assert out.returncode == 2 and out.stdout == "" and message in out.stderr, out.stderr
    assert rclient.keys("*") == []  # refused before anything was written


SHORT = "s" * 31


@pytest.mark.parametrize("env, message", [
    ({"MANILLE_SECRET": SHORT}, "MANILLE_SECRET is 31 bytes long"),
    ({"MANILLE_SECRET_SINCE": "2030-01-01", "MANILLE_SECRET_PREVIOUS": f"{OLD_A}\n2029-01-01 {SHORT}"},
     "MANILLE_SECRET_PREVIOUS line 2 is 31 bytes long"),
    ({"MANILLE_METRICS_TOKEN": SHORT}, "MANILLE_METRICS_TOKEN is 31 bytes long"),
    ({"MANILLE_OPS_TOKENS": f"tess {OLD_A}\nomar {SHORT}"}, "MANILLE_OPS_TOKENS line 2 (the token of omar) is 31 bytes"),
    ({"MANILLE_OPS_TOKEN": SHORT}, "MANILLE_OPS_TOKEN is 31 bytes long"),
])
@pytest.mark.stack
def test_every_process_refuses_a_secret_or_token_under_32_bytes_naming_it(redis_server, rclient, env, message):
    """A published seed lets anyone test guesses of the secret offline, and a token is a password:
    the web app, the worker and the command line refuse one under 32 bytes at start, saying where
    it is (never what it is), before anything is written."""
    with pytest.raises(ShortSecretError, match=re.escape(message)):
        create_app(config(REDIS_URL=redis_server.url, **env))
    for argv in (["-m", "worker", "--burst"], ["-m", "cli", "ops", "pending"], ["-m", "cli", "seed", "2030-01-01"]):
        out = run(*argv, env=process_env(redis_server, **env))
        if argv[-1] == "2030-01-01" and "SECRET" not in message:  # manille seed reads the secrets only
            assert out.returncode == 0, out.stderr
            continue
        assert out.returncode != 0 and out.stdout == "" and message in out.stderr, (argv, out.stderr)
        assert SHORT not in out.stderr
    assert rclient.keys("*") == []


def test_no_secret_is_in_the_settings_repr():
    """A repr reaches logs and tracebacks: it names the settings, never a secret or a password."""
    from service.config import Settings

    settings = Settings.from_env({"MANILLE_SECRET": NEW, "MANILLE_SECRET_SINCE": "2030-01-01",
                                  "MANILLE_SECRET_PREVIOUS": OLD_A, "MANILLE_OPS_TOKENS": f"tess {OLD_B}",
                                  "MANILLE_OPS_TOKEN": OLD_B, "MANILLE_METRICS_TOKEN": OLD_C,
                                  "REDIS_URL": "redis://:hunter2-redis-password@10.0.0.5:6379/0"})
    text = repr(settings) + str(settings) + repr(settings.operators) + repr(settings.secrets)
    for secret in (NEW, OLD_A, OLD_B, OLD_C, "hunter2-redis-password"):
        assert secret not in text
    assert "redis_url='redis://:***@10.0.0.5:6379/0'" in text and "OpsTokens(operators=['tess'])" in text


@pytest.mark.stack
def test_manille_seed_follows_the_schedule(tmp_path, redis_server):
    since = date(2031, 3, 1)
    previous = tmp_path / "previous"  # the _FILE form: every line
    previous.write_text(f"ancient-secret-0123456789abcdef-4567\n2030-01-01 {SECRET}\n")
    env = process_env(redis_server, MANILLE_SECRET=NEW, MANILLE_SECRET_SINCE=since.isoformat(),
                      MANILLE_SECRET_PREVIOUS_FILE=str(previous))
    for day, secret in ((date(2029, 12, 31), "ancient-secret-0123456789abcdef-4567"), (date(2030, 1, 1), SECRET),
                        (since - timedelta(days=1), SECRET), (since, NEW)):
        out = run("-m", "cli", "seed", day.isoformat(), env=env)
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["commitment"] == commitment(daily_seed(secret.encode(), day)), day
    env = process_env(redis_server, MANILLE_SECRET=NEW, MANILLE_SECRET_SINCE="2020-06-01",
                      MANILLE_SECRET_PREVIOUS=SECRET)
    out = run("-m", "cli", "seed", "2020-05-31", "--reveal", env=env)
    assert json.loads(out.stdout)["seed"] == daily_seed(SECRET.encode(), date(2020, 5, 31)).hex()


def test_the_older_secrets_are_scrubbed_from_log_lines():
    from service.telemetry.logs import Redactor, secrets_from_env
    found = secrets_from_env({"MANILLE_SECRET": NEW, "MANILLE_SECRET_SINCE": "2030-01-01",
                              "MANILLE_SECRET_PREVIOUS": "first old secret\n2029-01-01 second-old-secret"})
    line = Redactor(found)(f"a={NEW} b=first old secret c=second-old-secret")
    assert NEW not in line and "first old secret" not in line and "second-old-secret" not in line


@pytest.mark.parametrize("text, message", [
    (f"tess {OLD_A}\ntess {OLD_B}", "line 2: the name tess appears twice"),
    (f"tess {OLD_A}\nomar {OLD_A}", "line 2: the token appears twice"),
    (f"tess@home {OLD_A}", "line 1: \"name token\" expected"),
    (f"{OLD_A}", "line 1: \"name token\" expected"),
])
def test_the_operators_tokens_are_one_a_named_operator(text, message):
    """One token per operator, each named once, so that the audit log's name is a person's."""
    from service.config import OpsTokens

    with pytest.raises(ValueError, match=re.escape(message)):
        OpsTokens(text)
    ops = OpsTokens(f"# the operators\n\ntess {OLD_A}\n  omar {OLD_B}  \n")
    assert ops.names() == ["tess", "omar"] and ops.name_of(OLD_B) == "omar" and ops.name_of(OLD_C) is None
    assert not OpsTokens("") and OpsTokens("").name_of(OLD_A) is None
