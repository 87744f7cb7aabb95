"""The monthly archive on a real Redis and worker, on fixed days: built once the month has ended,
its file the month's days' files one after another, listed with its size and SHA-256,
downloadable, and built again when a game of the month is disqualified."""

from __future__ import annotations

import gzip
import hashlib
from datetime import date, timedelta

import pytest
from freezegun import freeze_time

from service.config import Settings
from service.opendata import archive

from support.svc_helpers import LIMITS_OFF, SECRET, TEST_BOTS

from test_svc_day_games import ranked_game

OPS = {"Authorization": "Bearer ops-token-for-the-monthly-archive-tests"}
DAYS = (date(2026, 11, 29), date(2026, 11, 30))
MONTH_OPEN = "2026-11-30T11:00:00+00:00"   # the month's last day is being played
MONTH_OVER = "2026-12-01T11:00:00+00:00"   # its seed is published: the month has ended


@pytest.fixture
def api(redis_server, rclient, tmp_path, monkeypatch):
    from service.app import create_app
    monkeypatch.setenv("MANILLE_ARCHIVE_DIR", str(tmp_path / "archive"))
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": "alice ops-token-for-the-monthly-archive-tests",
                      "MANILLE_ARCHIVE_DIR": str(tmp_path / "archive"), **LIMITS_OFF})
    return app.test_client()


def test_a_month_is_archived_once_over_listed_and_rebuilt_after_a_disqualification(api, run_worker, rclient,
                                                                                     queue_conn, tmp_path):
    subs = []
    for n, day in enumerate(DAYS):
        with freeze_time(f"{day}T11:00:00+00:00"):
            for i in range(2):
                subs.append(ranked_game(api, f"10.8.{n}.{i}", 800 + 10 * n + i, f"arch{n}{i}")[1])
            run_worker()
    settings = Settings.from_env(archive_dir=str(tmp_path / "archive"))
    with freeze_time(MONTH_OPEN):
        assert archive.refresh(settings, rclient, queue=queue_conn) is None  # November is not over
        assert api.get("/api/v1/archive/months").get_json()["months"] == []
    with freeze_time(MONTH_OVER):
        assert archive.refresh(settings, rclient, queue=queue_conn) == "2026-11"
        assert archive.refresh(settings, rclient, queue=queue_conn) is None  # queued already
        run_worker()
        listing = api.get("/api/v1/archive/months").get_json()
        assert listing["licence"] == "CC0-1.0"
        (month,) = listing["months"]
        assert month["month"] == "2026-11" and month["days"] == 30 and month["games"] == 4
        r = api.get(month["url"])
        assert r.status_code == 200 and r.mimetype == "application/gzip"
        assert len(r.data) == month["bytes"] and hashlib.sha256(r.data).hexdigest() == month["sha256"]
        every_day = b"".join(api.get(f"/api/v1/days/{date(2026, 11, 1) + timedelta(days=d)}/games").data
                             for d in range(30))
        assert gzip.decompress(r.data) == every_day  # the month's days' files, one after another
        assert archive.refresh(settings, rclient, queue=queue_conn) is None  # built, and current
        r = api.post(f"/api/v1/ops/submissions/{subs[0]}/disqualify", json={"reason": "test"}, headers=OPS)
        assert r.status_code == 200, r.get_json()
        run_worker()
        assert archive.refresh(settings, rclient, queue=queue_conn) == "2026-11"  # a board changed
        run_worker()
        again = api.get("/api/v1/archive/months").get_json()["months"][0]
        assert again["games"] == 3 and again["sha256"] != month["sha256"]
        assert subs[0].encode() not in gzip.decompress(api.get(again["url"]).data)
        for bad in ("2026-13", "nope", "2026-10"):
            r = api.get(f"/api/v1/archive/months/{bad}")
            assert r.status_code == 404 and r.get_json()["error"] == "unknown_month", bad
