"""The web app's observability: a request id and an access line per request, and ``/metrics``.

One pair of request hooks serves both: the id (``X-Request-Id`` when the client or the proxy sent a
sane one, else a new one; echoed in the answer) goes on every log line written while the request
runs, and the answered request is logged once (``service.access``) and counted once (``metrics``).

``/metrics`` (Prometheus text) answers a bearer ``MANILLE_METRICS_TOKEN`` from anywhere, or, with no
token configured, only a loopback client (behind a proxy: the forwarded address, which ProxyFix
has put in ``remote_addr``); deploy/nginx.conf refuses it from outside anyway.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import re
import secrets
import time

from flask import Flask, Response, current_app, g, request

from . import metrics

access_log = logging.getLogger("service.access")

REQUEST_ID_HEADER = "X-Request-Id"
#: An id taken from the client: short, and nothing a log line could be confused by.
SANE_ID = re.compile(r"[A-Za-z0-9._:-]{8,64}")


# The hooks run on every request: each reads ``request`` and ``g`` through their proxies once
# (a proxy's look-up cost a tenth of the hooks' time when they went through it at every use).

def _begin() -> None:
    req_g = g._get_current_object()
    req_g.started = time.perf_counter()
    given = request.headers.get(REQUEST_ID_HEADER, "")
    req_g.request_id = given if SANE_ID.fullmatch(given) else secrets.token_hex(8)


def _end(response: Response) -> Response:
    req_g, req = g._get_current_object(), request._get_current_object()
    if "request_id" not in req_g:  # a request refused before the hooks ran (none today): still one
        _begin()
    seconds = time.perf_counter() - req_g.started
    response.headers[REQUEST_ID_HEADER] = req_g.request_id
    rule, method, status = req.url_rule, req.method, response.status_code
    route = rule.rule if rule is not None else "unmatched"
    metrics.observe(method, route, req.endpoint, status, seconds)
    if access_log.isEnabledFor(logging.INFO):
        access_log.info("%s %s %s", method, route, status, extra={
            "method": method, "route": route, "status": status, "duration_ms": round(seconds * 1000, 2)})
    return response


def trusted_reader() -> bool:
    """Whether the request may read the service's internals (``/metrics``, readiness's details):
    it carries the bearer ``MANILLE_METRICS_TOKEN``, or, with none configured, comes from loopback."""
    return _allowed(current_app.extensions["manille"].settings.metrics_token)


def _allowed(token: str) -> bool:
    if token:
        given = request.headers.get("Authorization", "")
        return given[:7].lower() == "bearer " and hmac.compare_digest(given[7:].strip().encode(), token.encode())
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


def metrics_view():
    """The Prometheus scrape; 401 without the token, 403 from elsewhere than loopback."""
    from service.errors_http import envelope

    s = current_app.extensions["manille"]
    if not _allowed(s.settings.metrics_token):
        if s.settings.metrics_token:
            resp = envelope(401, "unauthorized", "a bearer token (MANILLE_METRICS_TOKEN) is required")
            resp.headers["WWW-Authenticate"] = "Bearer"
            return resp
        return envelope(403, "forbidden", "/metrics answers loopback only unless MANILLE_METRICS_TOKEN is set")
    collector = current_app.extensions.get("manille_metrics")
    if collector is None:
        collector = current_app.extensions["manille_metrics"] = metrics.RedisCollector(
            s.redis, s.settings.queue_name, s.queue)
    body, content_type = metrics.exposition(collector)
    return Response(body, content_type=content_type)


def init_app(app: Flask) -> None:
    """Install the hooks first, so that every later hook and handler logs under the request's id."""
    app.before_request_funcs.setdefault(None, []).insert(0, _begin)
    app.after_request(_end)
    app.add_url_rule("/metrics", "metrics", metrics_view, methods=["GET"])
    services = app.extensions.get("manille")
    if services is not None:  # the games in play of this process, hit or missed, counted
        services.runs.games.on_take = metrics.play_cache_taken
