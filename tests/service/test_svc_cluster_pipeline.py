"""``store.pipelined`` on a real Redis Cluster (three masters, three replicas): a pipeline's
commands go to the masters that hold their keys, each master's on one connection, and the
replies come back in the order queued; a client whose slot map is wrong (the slot is on another
master: MOVED) or whose scripts a master lost (NOSCRIPT) still gets every reply, each write done
once; a script and its WAIT reach the same master (again together after a NOSCRIPT), and a
replica acknowledges."""

from __future__ import annotations

import pytest
import redis

from service.redis_server import LocalCluster
from service.store import connect_cluster, evalsha_on, key_for, pipelined, run_replicated, run_replicated_each

pytestmark = pytest.mark.stack  # starts the product's processes (pyproject.toml's markers)

COUNT = "return redis.call('INCRBY', KEYS[1], ARGV[1])"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    cluster = LocalCluster(tmp_path_factory.mktemp("pipeline-cluster")).start()
    yield cluster
    cluster.stop()


@pytest.fixture
def client(cluster):
    client = connect_cluster(cluster.seeds)
    client.flushall()
    return client


def keys_on_every_master(client, n=9) -> list[str]:
    """``n`` keys of different hash tags, spread so that every master holds some."""
    keys = [key_for("probe", f"tag{i}") for i in range(200)]
    by_node: dict[str, list[str]] = {}
    for k in keys:
        by_node.setdefault(client.get_node_from_key(k).name, []).append(k)
    assert len(by_node) == 3
    out = []
    while len(out) < n:
        for group in by_node.values():
            out.append(group.pop())
    return out[:n]


def test_replies_come_in_the_order_queued_from_every_master(client):
    keys = keys_on_every_master(client)
    for i, k in enumerate(keys):
        client.hset(k, mapping={"n": str(i), "name": k})
    count = client.register_script(COUNT)

    def queue(pipe):
        for k in keys:
            pipe.hmget(k, ["n", "name"])
            pipe.exists(k + ":none")
            evalsha_on(pipe, count, [k + ":count"], [3])
    replies = pipelined(client, queue, [count])
    want = []
    for i, k in enumerate(keys):
        want += [[str(i), k], 0, 3]
    assert replies == want
    assert [client.get(k + ":count") for k in keys] == ["3"] * len(keys)


def test_a_wrong_slot_map_is_followed_and_each_write_done_once(client):
    keys = keys_on_every_master(client, 3)
    count = client.register_script(COUNT)
    slot = client.keyslot(keys[0])
    right = client.nodes_manager.slots_cache[slot]
    wrong = next(n for n in client.get_primaries() if n.name != right[0].name)
    client.nodes_manager.slots_cache[slot] = [wrong]  # as if the slot had moved since the map was read
    assert client.get_node_from_key(keys[0]).name == wrong.name

    def queue(pipe):
        for k in keys:
            evalsha_on(pipe, count, [k], [1])
        pipe.get(keys[0])
    assert pipelined(client, queue, [count]) == [1, 1, 1, "1"]
    assert [client.get(k) for k in keys] == ["1", "1", "1"]
    assert client.get_node_from_key(keys[0]).name == right[0].name  # the map was mended on the way


def test_a_master_that_lost_its_scripts_gets_them_again(client):
    keys = keys_on_every_master(client, 3)
    count = client.register_script(COUNT)
    assert pipelined(client, lambda pipe: [evalsha_on(pipe, count, [k], [2]) for k in keys], [count]) == [2, 2, 2]
    forgetful = client.get_node_from_key(keys[1])  # as a replica promoted in a failover: no scripts
    client.get_redis_connection(forgetful).script_flush()
    assert pipelined(client, lambda pipe: [evalsha_on(pipe, count, [k], [2]) for k in keys], [count]) == [4, 4, 4]
    assert [client.get(k) for k in keys] == ["4", "4", "4"]


def test_a_script_is_answered_once_a_replica_has_it(client, cluster):
    key = key_for("probe", "replicated")
    count = client.register_script(COUNT)
    client.script_load(COUNT)
    assert run_replicated(client, count, [key], [5], wait_ms=2000) == (5, 1)
    client.get_redis_connection(client.get_node_from_key(key)).script_flush()
    # NOSCRIPT: the script goes again, and its WAIT with it, after the script is loaded
    assert run_replicated(client, count, [key], [5], wait_ms=2000) == (10, 1)
    replica = next(n for n in cluster.nodes if n.port != client.get_node_from_key(key).port
                   and cluster.client(n.port).execute_command("ROLE")[0] == "slave"
                   and int(cluster.client(n.port).execute_command("ROLE")[2]) == client.get_node_from_key(key).port)
    plain = redis.Redis(port=replica.port, decode_responses=True)
    plain.execute_command("READONLY")
    assert plain.get(key) == "10"


def test_scripts_on_several_masters_are_each_answered_once_a_replica_has_them(client):
    keys = keys_on_every_master(client, 4)  # two on one master: two WAITs on one connection
    count = client.register_script(COUNT)
    calls = [(count, [k], [i + 1]) for i, k in enumerate(keys)]
    assert run_replicated_each(client, calls, wait_ms=2000) == [(1, 1), (2, 1), (3, 1), (4, 1)]
    client.get_redis_connection(client.get_node_from_key(keys[2])).script_flush()
    assert run_replicated_each(client, calls, wait_ms=2000) == [(2, 1), (4, 1), (6, 1), (8, 1)]
    assert run_replicated_each(client, calls, wait_ms=0) == [(3, None), (6, None), (9, None), (12, None)]


def test_a_cluster_that_lost_a_master_for_good_answers_503_not_500(tmp_path, redis_server):
    """A master gone with no replica to take over: the cluster says CLUSTERDOWN to every command
    (slots not covered); the web answers 503 store_unavailable, as for a Redis down, not a 500."""
    import time

    from service.app import create_app

    lone = LocalCluster(tmp_path / "lone", replicas=0).start()
    try:
        app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": "s" * 32,
                          "MANILLE_REDIS_CLUSTER": lone.seeds})
        client = app.test_client()
        assert client.get("/api/v1/leaderboards/all-time").status_code == 200
        lone.nodes[0].kill()
        deadline = time.monotonic() + 20
        while lone.client(lone.nodes[1].port).execute_command("CLUSTER INFO")["cluster_state"] != "fail":
            assert time.monotonic() < deadline, "the cluster never said it was down"
            time.sleep(0.2)
        for path in ("/api/v1/leaderboards/all-time", "/api/v1/leaderboards/days/2025-01-06"):
            r = client.get(path)
            assert r.status_code == 503 and r.get_json()["error"] == "store_unavailable", (path, r.get_data())
    finally:
        lone.stop()
