"""Debian's nginx running deploy/nginx.conf made local (its ports, certificate, logs and cache in a
test's directory), with a certificate made for the test: for the proxy tests
(tests/service/test_svc_nginx*.py)."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import ssl
import subprocess
from pathlib import Path

from service.redis_server import free_port

from support.svc_helpers import ROOT

NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
OPENSSL = shutil.which("openssl")
HEADER_TIMEOUT = 2  # deploy/nginx.conf says 10 s; shortened so that the test waits little


def certificate(tmp: Path) -> Path:
    """A self-signed ECDSA P-256 certificate for 127.0.0.1, ::1 and localhost, made once in ``tmp``
    (ten years: no test meets its end); its path, which clients also trust as their CA."""
    cert, key = tmp / "tls" / "fullchain.pem", tmp / "tls" / "privkey.pem"
    if not cert.exists():
        cert.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([OPENSSL, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "3650", "-subj", "/CN=manille-test",
                        "-addext", "subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost"],
                       check=True, capture_output=True)
    return cert


def site_config(upstream: int | str, port: int, tmp: Path, *, http_port: int | None = None,
                ipv6: bool = False, body_timeout: int = 10) -> str:
    """deploy/nginx.conf made local: HTTPS on ``port`` (of ::1 with ``ipv6``, else of 127.0.0.1)
    with ``tmp``'s certificate, HTTP on ``http_port``, the upstream ``upstream`` (a port, or
    "unix:/path"), the access log, the certificates' webroot and the cache in ``tmp``, a short
    header timeout; each line swapped must be there."""
    cert = certificate(tmp)
    host = "[::1]" if ipv6 else "127.0.0.1"
    server = f"server 127.0.0.1:{upstream};" if isinstance(upstream, int) else f"server {upstream};"
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    for old, new, count in (
            ("listen 443 ssl http2;", "" if ipv6 else f"listen 127.0.0.1:{port} ssl http2;", 1),
            ("listen [::]:443 ssl http2;", f"listen [::1]:{port} ssl http2;" if ipv6 else "", 1),
            ("listen 80;", f"listen {host}:{http_port or free_port()};", 1), ("listen [::]:80;", "", 1),
            ("ssl_certificate /etc/manille/tls/fullchain.pem;", f"ssl_certificate {cert};", 1),
            ("ssl_certificate_key /etc/manille/tls/privkey.pem;", f"ssl_certificate_key {cert.parent / 'privkey.pem'};", 1),
            ("/var/log/nginx/access.log", str(tmp / "logs" / "access.log"), 2), ("root /var/www/acme;", f"root {tmp / 'acme'};", 1),
            ("server 127.0.0.1:8000;", server, 1),
            ("client_header_timeout 10s;", f"client_header_timeout {HEADER_TIMEOUT}s;", 1),
            ("proxy_cache_path /var/cache/nginx/manille ", f"proxy_cache_path {tmp / 'cache'} ", 1),
            ("client_body_timeout 10s;", f"client_body_timeout {body_timeout}s;", 1)):
        assert text.count(old) == count, f"deploy/nginx.conf no longer has {old!r} {count} time(s)"
        text = text.replace(old, new)
    return text


def client_context(tmp: Path) -> ssl.SSLContext:
    """A client that trusts the test's certificate alone."""
    return ssl.create_default_context(cafile=str(certificate(tmp)))


MAIN = """daemon off;
worker_processes {workers};
pid {tmp}/nginx.pid;
error_log {tmp}/logs/nginx-error.log warn;
{user}
events {{ worker_connections 512; }}
http {{
    access_log {tmp}/logs/nginx-access.log;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/manille.conf;
}}
"""


@contextlib.contextmanager
def running_nginx(tmp, site: str, prefix: list[str] | None = None, workers: int = 1):
    """Debian's nginx with ``site`` (deploy/nginx.conf made local) in the directory ``tmp``
    (its logs in ``tmp/logs``), started by ``prefix`` (e.g. nsenter into a namespace) if given,
    with ``workers`` processes; yields the process, stopped after."""
    (tmp / "logs").mkdir(exist_ok=True)
    (tmp / "manille.conf").write_text(site)
    # as root, nginx would hand its workers to "nobody", who may not enter this directory
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
    (tmp / "nginx.conf").write_text(MAIN.format(tmp=tmp, user=user, workers=workers))
    nginx = subprocess.Popen([*(prefix or []), NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf"), "-e",
                              str(tmp / "logs" / "nginx-error.log")],
                             stdout=open(tmp / "logs" / "nginx.log", "w"), stderr=subprocess.STDOUT)
    try:
        yield nginx
    finally:
        nginx.terminate()
        nginx.wait(15)
