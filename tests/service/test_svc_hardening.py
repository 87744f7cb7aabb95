"""Hardening (issue 45) on a real Redis: a name may not begin with a combining mark; the per-address
limits count an IPv6 client's /56 and /48 too, and a 6to4 or Teredo address as the IPv4 it
carries; /embed/board's links come from MANILLE_PUBLIC_URL, never the Host header; the secrets
paths carry never reach the app's log lines."""

from __future__ import annotations

import re
from datetime import date

import pytest
from freezegun import freeze_time

from service.app import create_app
from service.config import Settings
from service.telemetry.logs import Redactor

from support.svc_helpers import LIMITS_OFF, SECRET, TEST_BOTS, err, headers, snapshot

NOON = "2026-12-02 11:00:00"  # UTC: the day is open in Brussels


@pytest.fixture(autouse=True)
def clock():
    with freeze_time(NOON, tick=True) as frozen:
        yield frozen


def make_client(redis_server, **config):
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, **config})
    return app.test_client()


# -- a combining mark first ----------------------------------------------------------------------------

@pytest.mark.parametrize("text", [" \u0301", "\u0301", "\u0301Ada", "\u20dd", " \u0308 Zoe"])
def test_a_name_may_not_begin_with_a_combining_mark_nor_be_one(redis_server, rclient, text):
    client = make_client(redis_server, **LIMITS_OFF)
    token = client.post("/api/v1/runs", json={"kind": "random"}).get_json()["player_token"]
    league = client.post("/api/v1/leagues", json={"name": "Famille"}, headers=headers(token)).get_json()
    before = snapshot(rclient)
    body = err(client.patch(f"/api/v1/leagues/{league['league_id']}", json={"name": text}, headers=headers(token)),
               422, "league_name_mark_first")
    assert body["character"] == f"U+{ord(text.strip()[0]):04X}"
    err(client.post("/api/v1/leagues", json={"name": text}, headers=headers(token)), 422, "league_name_mark_first")
    err(client.post("/api/v1/leagues/join", json={"invite": league["invite"], "nickname": text},
                    headers=headers(token)), 422, "nickname_mark_first")
    err(client.post("/api/v1/submissions", json={"run_id": "x" * 16, "nickname": text}, headers=headers(token)),
        422, "nickname_mark_first")
    assert snapshot(rclient) == before
    # a mark after a letter is that letter's accent: fine
    renamed = client.patch(f"/api/v1/leagues/{league['league_id']}", json={"name": "Zoe\u0308"}, headers=headers(token))
    assert renamed.status_code == 200 and renamed.get_json()["name"] == "Zoë"


# -- the /56, the /48, 6to4 and Teredo ---------------------------------------------------------------

def open_run(client, forwarded):
    return client.post("/api/v1/runs", json={}, headers={"X-Forwarded-For": forwarded},
                       environ_base={"REMOTE_ADDR": "127.0.0.1"})


def test_a_48_is_two_clients_not_65536(redis_server, rclient):
    """Ranked runs at 3 an hour a /64: a /56 opens as many (3) whatever the number of its /64s, a
    /48 twice that (6) whatever the number of its /56s; each answer says where it leaves the
    fullest window, and another /48 is another client."""
    client = make_client(redis_server, MANILLE_TRUSTED_PROXIES=1, MANILLE_LIMIT_RANKED_RUNS="3 per hour")
    codes = [open_run(client, f"2001:db8:10:{n:x}::1").status_code for n in range(6)]  # 6 /64s of one /56
    assert codes == [201] * 3 + [429] * 3
    r = open_run(client, "2001:db8:10:ff::1")
    assert r.status_code == 429 and r.get_json()["limit"] == "ranked_runs" and int(r.headers["Retry-After"]) > 0
    codes = [open_run(client, f"2001:db8:10:{n << 8:x}::1").status_code for n in range(1, 7)]  # other /56s of the /48
    assert codes == [201] * 3 + [429] * 3
    ok = open_run(client, "2001:db8:11::1")  # another /48
    assert ok.status_code == 201 and ok.headers["RateLimit-Limit"] == "3" and ok.headers["RateLimit-Remaining"] == "2"


def test_6to4_and_teredo_count_as_the_ipv4_they_carry(redis_server, rclient):
    client = make_client(redis_server, MANILLE_TRUSTED_PROXIES=1, MANILLE_LIMIT_RANKED_RUNS="3 per hour")
    assert open_run(client, "192.0.2.44").status_code == 201
    assert open_run(client, "2002:c000:22c::1").status_code == 201  # 6to4 of 192.0.2.44
    assert open_run(client, "2002:c000:22c:9:8::7").status_code == 201  # another /64 of its 6to4 /48
    err(open_run(client, "2002:c000:22c:ffff::2"), 429, "too_many_requests")
    # Teredo: 2001:0::/32, the client's IPv4 the last 32 bits inverted (192.0.2.45)
    assert open_run(client, "192.0.2.45").status_code == 201
    assert open_run(client, "2001:0:4136:e378:8000:63bf:3fff:fdd2").status_code == 201
    assert open_run(client, "2001:0:4136:e378:1234:1:3fff:fdd2").status_code == 201
    err(open_run(client, "2001:0:aaaa:bbbb:0:0:3fff:fdd2"), 429, "too_many_requests")
    assert open_run(client, "2002:c000:22e::1").status_code == 201  # 192.0.2.46: another client


# -- absolute links from the configured base URL ---------------------------------------------------------

def _links(html: str) -> list[str]:
    return re.findall(r'<a href="([^"]+)" target="_blank" rel="noopener">', html)


def test_the_embed_never_echoes_the_host_header(redis_server, rclient):
    plain = make_client(redis_server)
    r = plain.get("/embed/board?lang=en", headers={"Host": "evil.example"})
    assert r.status_code == 200 and "evil.example" not in r.get_data(as_text=True)
    assert _links(r.get_data(as_text=True)) == ["/", "/"]  # the page's own site, wherever it is framed
    public = make_client(redis_server, MANILLE_PUBLIC_URL="https://manille.example/")
    for host in ("evil.example", "manille.example", "localhost"):
        html = public.get("/embed/board?lang=en", headers={"Host": host}).get_data(as_text=True)
        assert _links(html) == ["https://manille.example/", "https://manille.example/"] and "evil" not in html


@pytest.mark.parametrize("url", ["manille.example", "javascript:alert(1)", "https://a@manille.example",
                                 "https://manille.example/?x=1", "https://manille.example/#top", "https://",
                                 'https://manille.example/"><script>'])
def test_a_public_url_that_is_no_base_url_stops_the_app_at_start(url):
    with pytest.raises(ValueError, match="MANILLE_PUBLIC_URL"):
        Settings.from_env({"MANILLE_SECRET": SECRET, "MANILLE_PUBLIC_URL": url})
    assert Settings.from_env({"MANILLE_SECRET": SECRET, "MANILLE_PUBLIC_URL": "http://x.example/manille/"}) \
        .public_url == "http://x.example/manille"


# -- secrets in paths, out of the app's lines ------------------------------------------------------------

def test_the_apps_log_lines_never_hold_a_secret_a_path_carries():
    """gunicorn's access line (MANILLE_ACCESS_LOG) writes the request line: an invite's code and a
    duel's go, the rest of the path stays."""
    invite, duel = "LgIdLgIdLgIdLgIdAbCdEfGhIjKlMnOpQrStUv", "DuelS3cr3tC0deDuelS3cr"
    line = Redactor([])(f'"GET /leagues/join/{invite} HTTP/1.1" "GET /api/v1/leagues/invites/{invite}" '
                        f'"GET /duel/{duel}?lang=fr" "GET /api/v1/duels/{duel}/results/0123456789abcdef/record"')
    assert invite not in line and duel not in line and "IjKlMnOp" not in line
    assert "/duel/[redacted]?lang=fr" in line and "/api/v1/duels/[redacted]/results/0123456789abcdef/record" in line
    assert date(2026, 12, 2).isoformat() in Redactor([])("day 2026-12-02 /api/v1/leaderboards/days/2026-12-02")
