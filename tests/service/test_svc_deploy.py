"""deploy/: what can be checked without docker.  The compose file parses and agrees with the code
(its environment gives the Settings it means, its Sentinels and proxy point where the other
files say), the alert rules name metrics that /metrics really serves, and systemd itself verifies
the units when systemd-analyze is here.  Not checked: that docker runs the images (no docker
daemon where the tests run)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from service.analysis import CHECK_QUEUE, QUEUE as ANALYSIS_QUEUE
from service.config import Settings

from support.svc_helpers import ROOT

DEPLOY = ROOT / "deploy"
SOURCES = [ROOT / "service" / "config.py", ROOT / "service" / "seeds" / "__init__.py",
           ROOT / "service" / "telemetry" / "logs.py", DEPLOY / "gunicorn.conf.py"]


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def env_of(service: dict) -> dict:
    return {k: str(v) for k, v in service["environment"].items()}


def test_the_services_are_all_there_with_replicas(compose):
    services = compose["services"]
    assert {"proxy", "web", "worker", "redis-master", "redis-replica", "sentinel-1", "sentinel-2",
            "sentinel-3", "prometheus"} <= services.keys()
    assert services["web"]["deploy"]["replicas"] >= 2 and services["worker"]["deploy"]["replicas"] >= 2
    assert services["web"]["command"][:3] == ["gunicorn", "-c", "/app/deploy/gunicorn.conf.py"]
    assert services["worker"]["command"] == ["python", "-m", "worker"]
    # each analysis queue has workers of its own: the check's never waits behind players' requests
    assert services["analyst"]["command"] == ["python", "-m", "worker", ANALYSIS_QUEUE]
    assert services["checker"]["command"] == ["python", "-m", "worker", CHECK_QUEUE]
    assert env_of(services["analyst"]) == env_of(services["checker"]) == env_of(services["worker"])
    assert sorted(services["proxy"]["ports"]) == ["443:443", "80:80"]
    assert "./tls:/etc/manille/tls:ro" in services["proxy"]["volumes"]
    assert compose["networks"]["backend"]["internal"] is True
    header = (DEPLOY / "compose.yaml").read_text().split("\nname:", 1)[0]
    for name, service in services.items():  # every file a service mounts is in deploy/, or made as the header says
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source in ("./tls", "./acme"):  # the certificate, and its challenges: the operator's
                assert f"deploy/{source[2:]}" in header, f"compose.yaml's header does not say how to make {source}"
            elif source.startswith("./"):
                assert (DEPLOY / source).is_file(), f"{name} mounts {source}, which deploy/ lacks"


def test_the_environment_names_are_the_codes_and_give_the_settings_meant(compose, tmp_path):
    known = "\n".join(p.read_text() for p in SOURCES)
    web, worker = env_of(compose["services"]["web"]), env_of(compose["services"]["worker"])
    assert {k: v for k, v in web.items() if k not in ("MANILLE_BIND", "WEB_CONCURRENCY",
                                                      "MANILLE_TRUSTED_PROXIES")} == worker
    for name in web:
        base = name[:-len("_FILE")] if name.endswith("_FILE") else name
        assert f'"{base}"' in known or f"'{base}'" in known, f"{name}: no code reads it"
    # The secrets as files, where the containers find them; then the Settings the code makes.
    env = dict(web)
    for name, value in web.items():
        if name.endswith("_FILE"):
            secret = compose["secrets"][Path(value).name]["file"]
            assert secret.startswith("./secrets/")
            path = tmp_path / Path(value).name
            path.write_text(f"value-of-{path.name}-0123456789\n" if name != "MANILLE_OPS_TOKENS_FILE"
                            else "# name token, a line each\nalice value-of-alice-0123456789abcdef0\nbob value-of-bob-0123456789abcdef012\n")
            env[name] = str(path)
    settings = Settings.from_env(env)
    assert settings.secret == b"value-of-manille_secret-0123456789"
    assert settings.operators.names() == ["alice", "bob"]
    assert settings.operators.name_of("value-of-bob-0123456789abcdef012") == "bob"
    assert settings.metrics_token == "value-of-metrics_token-0123456789"
    assert settings.trusted_proxies == 1 and settings.tz == "Europe/Brussels"
    sentinels = [s.split(":") for s in settings.redis_sentinels.split(",")]
    assert {host for host, _ in sentinels} == {"sentinel-1", "sentinel-2", "sentinel-3"}
    sentinel_conf = (DEPLOY / "sentinel.conf").read_text()
    assert {int(port) for _, port in sentinels} == {int(re.search(r"^port (\d+)", sentinel_conf, re.M).group(1))}
    monitor = re.search(r"^sentinel monitor (\S+) (\S+) (\d+) (\d+)", sentinel_conf, re.M)
    assert monitor.group(1) == settings.redis_sentinel_service
    assert (monitor.group(2), monitor.group(3)) == ("redis-master", "6379")
    assert int(monitor.group(4)) == len(sentinels) // 2 + 1  # a majority


def test_redis_keeps_an_aof_and_the_replica_follows_the_master(compose):
    conf = (DEPLOY / "redis.conf").read_text()
    assert re.search(r"^appendonly yes$", conf, re.M) and re.search(r"^maxmemory-policy noeviction$", conf, re.M)
    services = compose["services"]
    assert "/etc/manille/redis.conf" in services["redis-master"]["command"]
    assert "--replicaof redis-master 6379" in services["redis-replica"]["command"]
    assert any(v.endswith(":/data") for v in services["redis-master"]["volumes"])


def test_the_proxy_is_deploy_nginx_conf_pointed_at_the_web_service(compose):
    command = compose["services"]["proxy"]["command"]
    old, new = re.search(r"sed 's/([^/]+)/([^/]+)/'", command).groups()
    assert (DEPLOY / "nginx.conf").read_text().count(old) == 1
    assert new == f"server web:{env_of(compose['services']['web'])['MANILLE_BIND'].rsplit(':', 1)[1]};"


def test_prometheus_scrapes_every_web_process_and_alerts_on_metrics_that_exist(compose, client, rclient):
    from service.telemetry.verdicts import count_verdict

    prom = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    job = prom["scrape_configs"][0]
    assert job["dns_sd_configs"][0]["names"] == ["web"] and job["dns_sd_configs"][0]["port"] == 8000
    assert job["authorization"]["credentials_file"] == "/run/secrets/metrics_token"
    assert "metrics_token" in compose["services"]["prometheus"]["secrets"]
    client.post("/api/v1/runs", json={})
    count_verdict(rclient, {"status": "rejected", "reason": "must_beat", "flags": ["explored"]})
    served = set()
    for family in text_string_to_metric_families(client.get("/metrics").get_data(as_text=True)):
        served |= {s.name for s in family.samples}
    rules = yaml.safe_load((DEPLOY / "alerts.yml").read_text())["groups"][0]["rules"]
    routes = {r.rule for r in client.application.url_map.iter_rules()}
    for rule in rules:
        for name in re.findall(r"\bmanille_[a-z_]+", rule["expr"]):
            assert name in served, f"{rule['alert']}: /metrics has no {name}"
        for route in re.findall(r'route="([^"]+)"', rule["expr"]):
            assert route in routes, f"{rule['alert']}: no route {route}"


def test_the_image_installs_the_package_and_runs_the_same_gunicorn_config():
    text = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", text, re.M)
    assert "pip install ." in text and "USER manille" in text
    assert '"/app/deploy/gunicorn.conf.py"' in text


@pytest.mark.stack
def test_a_gunicorn_worker_freezes_what_it_loaded_against_the_garbage_collector(tmp_path):
    """post_worker_init: the app loaded, the objects alive then go out of the collector's reach."""
    code = ("import gc, runpy, sys\n"
            "conf = runpy.run_path(sys.argv[1])\n"
            "from service.app import create_app\n"
            "create_app()  # the session's Redis and secret (service_env): its committed days match\n"
            "assert gc.get_freeze_count() == 0\n"
            "conf['post_worker_init'](None)\n"
            "print(gc.get_freeze_count())")
    done = subprocess.run([sys.executable, "-c", code, str(DEPLOY / "gunicorn.conf.py")], cwd=ROOT, text=True,
                          capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 20_000  # the modules, the app and its schemas


SYSTEMD = shutil.which("systemd-analyze")


def test_the_systemd_units_restart_and_are_hardened():
    for name in ("manille-web.service", "manille-worker@.service", "manille-analyst@.service"):
        text = (DEPLOY / "systemd" / name).read_text()
        for line in ("Restart=always", "NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes",
                     "EnvironmentFile=/etc/manille/manille.env", "User=manille"):
            assert re.search(rf"^{re.escape(line)}$", text, re.M), f"{name} lacks {line}"
    assert "/opt/manille/deploy/gunicorn.conf.py" in (DEPLOY / "systemd" / "manille-web.service").read_text()


@pytest.mark.stack
@pytest.mark.skipif(SYSTEMD is None, reason="no systemd-analyze")
def test_systemd_verifies_the_units(tmp_path):
    """The units with this checkout's paths in place of /opt/manille's: systemd reports unknown
    keys, bad values and missing executables."""
    import sys

    venv = Path(sys.executable).parent.parent
    for unit in (DEPLOY / "systemd").iterdir():
        text = unit.read_text().replace("/opt/manille/.venv", str(venv)).replace("/opt/manille", str(ROOT))
        (tmp_path / unit.name.replace("@.", "@1.")).write_text(text)
    out = subprocess.run([SYSTEMD, "verify", *sorted(str(p) for p in tmp_path.iterdir())],
                         capture_output=True, text=True, timeout=60)
    problems = [line for line in (out.stdout + out.stderr).splitlines()
                if "/etc/manille/manille.env" not in line]
    assert out.returncode == 0 and not problems, out.stdout + out.stderr


def test_the_cluster_layer_puts_the_state_on_six_nodes_and_keeps_the_queue_on_sentinel(compose, tmp_path):
    """deploy/compose.cluster.yaml over compose.yaml: web and worker name every node of the
    cluster as its seeds, the queue keeps its Sentinel Redis, each node runs deploy/redis-cluster.conf
    (cluster mode, an AOF, noeviction) on a volume of its own, and the nodes are joined once with
    one replica a master before web or worker starts."""
    layer = yaml.safe_load((DEPLOY / "compose.cluster.yaml").read_text())
    nodes = {name: s for name, s in layer["services"].items() if name.startswith("redis-node-")}
    assert len(nodes) == 6
    conf = (DEPLOY / "redis-cluster.conf").read_text()
    for line in ("cluster-enabled yes", "appendonly yes", "maxmemory-policy noeviction", "port 6379"):
        assert re.search(rf"^{line}$", conf, re.M), line
    for name, node in nodes.items():
        assert "/etc/manille/redis-cluster.conf" in node["command"]
        assert f"{name}-data:/data" in node["volumes"] and f"{name}-data" in layer["volumes"]
        assert any(v.startswith("./redis-cluster.conf:") for v in node["volumes"])
    for role in ("web", "worker", "analyst", "checker"):
        seeds = layer["services"][role]["environment"]["MANILLE_REDIS_CLUSTER"]
        env = {**env_of(compose["services"][role]), "MANILLE_REDIS_CLUSTER": seeds,
               "MANILLE_SECRET": "s" * 32}
        env = {k: v for k, v in env.items() if not k.endswith("_FILE")}
        settings = Settings.from_env(env)
        assert {h.split(":")[0] for h in settings.redis_cluster.split(",")} == set(nodes)
        assert settings.redis_sentinels  # the queue: still the Sentinels' master
        assert layer["services"][role]["depends_on"]["cluster-create"]["condition"] == "service_completed_successfully"
    create = "\n".join(layer["services"]["cluster-create"]["command"])
    assert "--cluster create" in create and "--cluster-replicas 1" in create
    assert "redis-node-$$n" in create and "for n in 1 2 3 4 5 6" in create


def test_the_proxy_hashes_a_runs_requests_to_one_single_process_server(compose):
    """nginx.conf hashes the run id of /api/v1/runs/<id>…; each server it reaches is one process."""
    conf = (DEPLOY / "nginx.conf").read_text()
    upstream = re.search(r"upstream manille \{(.*?)\}", conf, re.S).group(1)
    assert re.search(r"^\s*hash \$manille_run consistent;", upstream, re.M)
    assert "~^/api/v1/runs/(?<run_id>[^/]+) $run_id;" in conf
    assert env_of(compose["services"]["web"])["WEB_CONCURRENCY"] == "1"
