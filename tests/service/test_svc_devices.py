"""One player on every device, on a real Redis (and, with MANILLE_TEST_CLUSTER=1, a real cluster):
a link's code makes another device a device of the same player with its own token, which goes on
with the player's game of the day at the same turn; a code serves once, for 10 minutes, and is
rate-limited; a device removed is refused at once, by every web process; a device that was
another player keeps that player's games under their name; passkeys (a Python authenticator:
tests/support/authenticator.py) register, sign in, check their challenge and counter, and the last
one is not removed while it is the only way back; every step in the player's trail."""

from __future__ import annotations

import time

import pytest
from freezegun import freeze_time

from service.app import create_app
from service.players import Players, pid_of
from service.players.devices import LINK_SECONDS, code_digest, link_key, trail
from service.telemetry.logs import Redactor

from support.authenticator import Authenticator
from support.svc_helpers import LIMITS_OFF, SECRET, TEST_BOTS, err, headers, play_game

NOON = "2026-12-02 11:00:00"  # UTC: the day is open in Brussels
PHONE = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36"
COMPUTER = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"


def _app(redis_server, **config):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF, **config})


@pytest.fixture
def app(rclient, redis_server):
    return _app(redis_server)


@pytest.fixture(autouse=True)
def clock():
    with freeze_time(NOON, tick=True) as frozen:
        yield frozen


def _post(client):
    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()
    return post


def _h(token, agent=PHONE):
    return {**headers(token), "User-Agent": agent}


def _started(client, cards=3):
    """A player's ranked run of the day with ``cards`` played: (token, the run's last answer)."""
    run = client.post("/api/v1/runs", json={}, headers={"User-Agent": PHONE}).get_json()
    token = run.pop("player_token")
    for _ in range(cards):
        run = client.post(f"/api/v1/runs/{run['run_id']}/plays", headers=_h(token),
                          json={"turn": run["turn"], "card": run["view"]["legal"][0]}).get_json()
    return token, run


def _link(client, token):
    r = client.post("/api/v1/players/me/links", headers=_h(token))
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _join(client, code, token=None, agent=COMPUTER):
    hdrs = {"User-Agent": agent, **(headers(token) if token else {})}
    return client.post(f"/api/v1/players/links/{code}", headers=hdrs)


def test_a_link_makes_a_device_of_the_same_player_that_goes_on_with_its_game(client, rclient):
    phone, run = _started(client)
    held = Players(rclient)  # the name is the phone's: a game of theirs under it was verified
    held.claim_nickname(pid_of(phone), "Zoé")
    held.confirm_nickname(pid_of(phone), "Zoé", valid=True)
    league = client.post("/api/v1/leagues", json={"name": "Famille", "nickname": "Zoé"}, headers=_h(phone))
    assert league.status_code == 201, league.get_json()
    link = _link(client, phone)
    code = link["code"]
    assert len(code) == 10 and link["url"] == f"http://localhost/link/{code}"
    assert link["qr_svg"].startswith("data:image/svg+xml")
    assert code not in str(rclient.keys("*"))  # Redis keeps its digest only
    assert rclient.ttl(f"manille:{{player:{pid_of(phone)}}}:player") == -1  # a player with a link is kept
    assert 0 < rclient.ttl(link_key(code_digest(code))) <= LINK_SECONDS

    r = _join(client, code.lower()[:5] + "-" + code[5:])  # typed as shown, in lower case
    assert r.status_code == 200, r.get_json()
    joined = r.get_json()
    computer = joined["player_token"]
    assert computer != phone and joined["device_id"] == pid_of(computer) and joined["nickname"] == "Zoé"
    mine = client.get("/api/v1/players/me/leagues", headers=_h(computer, COMPUTER)).get_json()["leagues"]
    assert [(lg["name"], lg["owner"]) for lg in mine] == [("Famille", True)]

    me = client.get("/api/v1/players/me", headers=_h(computer, COMPUTER)).get_json()
    assert me["player"] == pid_of(phone) and me["today"]["run_id"] == run["run_id"]
    same = client.get(f"/api/v1/runs/{run['run_id']}", headers=_h(computer, COMPUTER)).get_json()
    assert same["turn"] == run["turn"] == 3 and same["view"]["hand"] == run["view"]["hand"]
    # the computer plays the next card; the phone sees it, and may not play it again
    nxt = client.post(f"/api/v1/runs/{run['run_id']}/plays", headers=_h(computer, COMPUTER),
                      json={"turn": 3, "card": same["view"]["legal"][0]}).get_json()
    assert nxt["turn"] == 4
    assert client.get(f"/api/v1/runs/{run['run_id']}", headers=_h(phone)).get_json()["turn"] == 4
    # the day's ranked game stays one per player, from either device
    again = client.post("/api/v1/runs", json={}, headers=_h(computer, COMPUTER))
    assert err(again, 409, "already_played")["run_id"] == run["run_id"]

    # single use: the code is gone for everyone
    err(_join(client, code), 404, "unknown_link")
    err(_join(client, code, phone), 404, "unknown_link")

    devices = client.get("/api/v1/players/me/devices", headers=_h(computer, COMPUTER)).get_json()
    assert [(d["device_id"], d["label"], d["current"]) for d in devices["devices"]] == [
        (pid_of(phone), "Chrome on Android", False), (pid_of(computer), "Firefox on Linux", True)]
    assert devices["passkeys"] == []
    assert [e["action"] for e in trail(rclient, pid_of(phone))] == ["joined_by_link", "link_made"]


def test_the_finished_game_nickname_and_streak_follow_the_player(client, run_worker):
    phone, run = _started(client, 0)
    computer = _join(client, _link(client, phone)["code"]).get_json()["player_token"]
    final = play_game(_post(client), run, computer)
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Zoé"}, headers=_h(computer))
    assert r.status_code == 202, r.get_json()
    run_worker()
    assert client.get(r.get_json()["status_url"]).get_json()["status"] == "verified"
    for token in (phone, computer):
        me = client.get("/api/v1/players/me", headers=_h(token)).get_json()
        assert me["nickname"] == "Zoé" and me["streak"] == 1 and me["today"]["status"] == "finished"
        err(client.post("/api/v1/runs", json={}, headers=_h(token)), 409, "already_played")
    assert final["status"] == "finished"
    # the archive's own game is found from a device that did not submit it, as from the one that did
    sub_id = r.get_json()["submission_id"]
    for token in (phone, computer):
        board = client.get(f"/api/v1/leaderboards/days/{run['date']}", headers=_h(token)).get_json()
        assert board["me"]["submission_id"] == sub_id and board["me"]["nickname"] == "Zoé"
    # a third device joins by a link made on the second: the nickname comes with the answer
    third = _join(client, _link(client, computer)["code"]).get_json()
    assert third["nickname"] == "Zoé"


def test_a_removed_device_is_refused_at_once_by_every_process(client, rclient, redis_server):
    phone, run = _started(client)
    computer = _join(client, _link(client, phone)["code"]).get_json()["player_token"]
    other_process = _app(redis_server).test_client()
    assert other_process.get("/api/v1/players/me", headers=_h(phone)).status_code == 200

    # the computer removes the phone (the player's first device: its id is the player's)
    assert client.delete(f"/api/v1/players/me/devices/{pid_of(phone)}", headers=_h(computer)).status_code == 204
    for c in (client, other_process):
        err(c.get("/api/v1/players/me", headers=_h(phone)), 401, "invalid_token")
        err(c.post(f"/api/v1/runs/{run['run_id']}/plays", headers=_h(phone),
                   json={"turn": run["turn"], "card": run["view"]["legal"][0]}), 401, "invalid_token")
        err(c.post("/api/v1/players/me/links", headers=_h(phone)), 401, "invalid_token")
    # the player and its game live on, on the computer
    assert client.get(f"/api/v1/runs/{run['run_id']}", headers=_h(computer)).get_json()["turn"] == run["turn"]
    listed = client.get("/api/v1/players/me/devices", headers=_h(computer)).get_json()["devices"]
    assert [d["device_id"] for d in listed] == [pid_of(computer)]
    err(client.delete(f"/api/v1/players/me/devices/{pid_of(phone)}", headers=_h(computer)), 404, "unknown_device")

    for bad in ("{x}", "A" * 24, "0" * 300):
        err(client.delete(f"/api/v1/players/me/devices/{bad}", headers=_h(computer)), 404, "unknown_device")
        err(client.delete(f"/api/v1/players/me/passkeys/{bad}", headers=_h(computer)), 404, "unknown_passkey")
    stranger, _ = _started(client, 0)
    err(client.delete(f"/api/v1/players/me/devices/{pid_of(computer)}", headers=_h(stranger)), 404, "unknown_device")
    # a device removes itself: its next request is refused
    assert client.delete(f"/api/v1/players/me/devices/{pid_of(computer)}", headers=_h(computer)).status_code == 204
    err(client.get("/api/v1/players/me", headers=_h(computer)), 401, "invalid_token")
    assert [e["action"] for e in trail(rclient, pid_of(phone))][:2] == ["device_removed", "device_removed"]


def test_a_device_of_another_player_joins_and_its_games_keep_their_name(client, rclient, run_worker):
    carla, run = _started(client, 0)
    play_game(_post(client), run, carla)
    client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Carla"}, headers=_h(carla))
    run_worker()
    phone, _ = _started(client, 0)
    joined = _join(client, _link(client, phone)["code"], token=carla).get_json()
    assert joined["player_token"] not in (carla, phone)
    assert client.get("/api/v1/players/me", headers=_h(joined["player_token"])).get_json()["player"] == pid_of(phone)
    board = client.get(f"/api/v1/leaderboards/days/{run['date']}").get_json()
    assert [e["nickname"] for e in board["entries"]] == ["Carla"]
    assert trail(rclient, pid_of(carla))[0]["action"] == "device_left"
    # a device of the same player that opens a link keeps its own token
    again = _join(client, _link(client, phone)["code"], token=phone).get_json()
    assert again["player_token"] == phone and again["device_id"] == pid_of(phone)


def test_a_code_is_gone_after_ten_minutes_and_malformed_ones_are_unknown(client, rclient, caplog):
    phone, _ = _started(client, 0)
    code = _link(client, phone)["code"]
    assert _join(client, code + "0").status_code == 404
    rclient.pexpire(link_key(code_digest(code)), 1)  # as Redis ends it at 10 minutes
    time.sleep(0.05)
    err(_join(client, code), 404, "unknown_link")
    for bad in ("QQQ", "0" * 10, "I" * 64, "%00"):
        body = err(_join(client, bad), 404, "unknown_link")
        assert bad not in body["message"]
    assert "/link" in caplog.text and code not in caplog.text  # the app logs the route, never the code


def test_links_and_tries_are_rate_limited(rclient, redis_server):
    c = _app(redis_server, MANILLE_LIMIT_LINKS_PER_PLAYER="2 per hour",
             MANILLE_LIMIT_JOINS_PER_ADDRESS="3 per hour").test_client()
    phone, _ = _started(c, 0)
    codes = [_link(c, phone)["code"] for _ in range(2)]
    r = c.post("/api/v1/players/me/links", headers=_h(phone))
    err(r, 429, "too_many_requests")
    assert int(r.headers["Retry-After"]) > 0
    for guess in ("AAAAAAAAAA", "BBBBBBBBBB"):
        err(_join(c, guess), 404, "unknown_link")
    assert _join(c, codes[0]).status_code == 200
    r = _join(c, codes[1])  # the fourth try from this address, a right one too
    err(r, 429, "too_many_requests")
    assert int(r.headers["Retry-After"]) > 0
    assert _join(c, codes[1], agent=PHONE).status_code == 429  # and the code is not used by it
    assert rclient.exists(link_key(code_digest(codes[1])))


def test_passkeys_register_sign_in_and_keep_the_last_way_back(client, rclient):
    phone, run = _started(client)
    key = Authenticator("http://localhost")
    options = client.post("/api/v1/players/me/passkeys/options", headers=_h(phone)).get_json()
    assert options["rp"]["id"] == "localhost" and options["user"]["id"]
    assert options["authenticatorSelection"] == {"residentKey": "required", "requireResidentKey": True,
                                                 "userVerification": "preferred"}
    credential = key.create(options)
    r = client.post("/api/v1/players/me/passkeys", json={"credential": credential, "name": "Phone"}, headers=_h(phone))
    assert r.status_code == 201, r.get_json()
    passkey = r.get_json()
    assert passkey["name"] == "Phone" and passkey["last_used"] is None
    # its challenge served once
    err(client.post("/api/v1/players/me/passkeys", json={"credential": credential}, headers=_h(phone)),
        422, "invalid_credential")

    # the last passkey of a player with one device is its only way back
    body = err(client.delete(f"/api/v1/players/me/passkeys/{passkey['passkey_id']}", headers=_h(phone)),
               409, "last_way_back")
    assert "only" in body["message"]

    # a new device signs in with it: the same player, its own token, the same game
    options = client.post("/api/v1/players/passkeys/sign-in/options").get_json()
    assert options["rpId"] == "localhost" and options["allowCredentials"] == []
    r = client.post("/api/v1/players/passkeys/sign-in", json={"credential": key.get(options)},
                    headers={"User-Agent": COMPUTER})
    assert r.status_code == 200, r.get_json()
    computer = r.get_json()["player_token"]
    assert computer != phone
    me = client.get("/api/v1/players/me", headers=_h(computer)).get_json()
    assert me["player"] == pid_of(phone) and me["today"]["run_id"] == run["run_id"]

    # a replayed answer (its challenge used), a counter that went back, a registration challenge
    err(client.post("/api/v1/players/passkeys/sign-in", json={"credential": key.get(options)}), 401, "passkey_refused")
    stale = key.get(client.post("/api/v1/players/passkeys/sign-in/options").get_json(), counter=1)
    err(client.post("/api/v1/players/passkeys/sign-in", json={"credential": stale}), 401, "passkey_refused")
    made = client.post("/api/v1/players/me/passkeys/options", headers=_h(phone)).get_json()
    made["rpId"] = made["rp"]["id"]
    err(client.post("/api/v1/players/passkeys/sign-in", json={"credential": key.get(made)}), 401, "passkey_refused")
    # an answer that names another player than the passkey's
    foreign = key.get(client.post("/api/v1/players/passkeys/sign-in/options").get_json())
    foreign["response"]["userHandle"] = "c29tZW9uZS1lbHNlLTAwMDAwMDAw"
    err(client.post("/api/v1/players/passkeys/sign-in", json={"credential": foreign}), 401, "passkey_refused")
    # an answer for another site
    elsewhere = key.get(client.post("/api/v1/players/passkeys/sign-in/options").get_json(), origin="http://evil")
    err(client.post("/api/v1/players/passkeys/sign-in", json={"credential": elsewhere}), 401, "passkey_refused")
    err(client.post("/api/v1/players/passkeys/sign-in", json={"credential": {}}), 422, "invalid_credential")
    err(client.post("/api/v1/players/passkeys/sign-in", json={}), 422, "validation_error")

    listed = client.get("/api/v1/players/me/devices", headers=_h(phone)).get_json()
    assert len(listed["devices"]) == 2 and listed["passkeys"][0]["last_used"]
    # with another device, the passkey may go; then it signs in no more
    assert client.delete(f"/api/v1/players/me/passkeys/{passkey['passkey_id']}", headers=_h(phone)).status_code == 204
    err(client.post("/api/v1/players/passkeys/sign-in",
                    json={"credential": key.get(client.post("/api/v1/players/passkeys/sign-in/options").get_json())}),
        401, "passkey_refused")
    err(client.delete(f"/api/v1/players/me/passkeys/{passkey['passkey_id']}", headers=_h(phone)), 404, "unknown_passkey")
    assert [e["action"] for e in trail(rclient, pid_of(phone))][:3] == ["passkey_removed", "passkey_sign_in",
                                                                      "passkey_added"]


def test_synced_passkeys_that_do_not_count_sign_in_again(client):
    phone, _ = _started(client, 0)
    key = Authenticator("http://localhost", counts=False)
    options = client.post("/api/v1/players/me/passkeys/options", headers=_h(phone)).get_json()
    client.post("/api/v1/players/me/passkeys", json={"credential": key.create(options)}, headers=_h(phone))
    for _ in range(2):
        options = client.post("/api/v1/players/passkeys/sign-in/options").get_json()
        assert client.post("/api/v1/players/passkeys/sign-in",
                           json={"credential": key.get(options)}).status_code == 200


def test_passkeys_need_the_public_url_in_production(rclient, redis_server):
    prod = create_app({"REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET, "MANILLE_BOTS": TEST_BOTS})
    c = prod.test_client()
    err(c.post("/api/v1/players/passkeys/sign-in/options", base_url="https://manille.example"),
        503, "passkeys_unconfigured")
    public = create_app({"REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET, "MANILLE_BOTS": TEST_BOTS,
                         "MANILLE_PUBLIC_URL": "https://manille.example"}).test_client()
    options = public.post("/api/v1/players/passkeys/sign-in/options", base_url="https://other.example").get_json()
    assert options["rpId"] == "manille.example"


def test_a_code_in_a_logged_path_is_redacted_whoever_writes_the_line(client):
    """gunicorn's own access lines (``MANILLE_ACCESS_LOG``) write paths: a code in one is scrubbed."""
    phone, _ = _started(client, 0)
    code = _link(client, phone)["code"]
    redact = Redactor([])
    for line in (f'127.0.0.1 "POST /api/v1/players/links/{code} HTTP/1.1" 200',
                 f'127.0.0.1 "GET /link/{code[:5]}-{code[5:]}?lang=fr HTTP/1.1" 200'):
        assert code[:5] not in redact(line) and "[redacted]" in redact(line)
    assert redact("GET /leagues HTTP/1.1") == "GET /leagues HTTP/1.1"


def test_the_public_url_is_a_base_url():
    from service.config import Settings

    env = {"MANILLE_SECRET": SECRET, "MANILLE_BOTS": TEST_BOTS}
    assert Settings.from_env({**env, "MANILLE_PUBLIC_URL": "https://manille.example/"}).public_url == "https://manille.example"
    assert Settings.from_env({**env, "MANILLE_PUBLIC_URL": "https://x.example/play/"}).public_url == "https://x.example/play"
    for bad in ("manille.example", "ftp://manille.example", "https://a b"):
        with pytest.raises(ValueError, match="MANILLE_PUBLIC_URL"):
            Settings.from_env({**env, "MANILLE_PUBLIC_URL": bad})
