"""The /api/v1 blueprints: one per resource, ``MethodView`` classes, schemas in ``schemas``.

Every API answer, errors included, says ``X-Content-Type-Options: nosniff`` and carries the
``Cache-Control`` that ``cache_control`` decides for it, the one place that does.
"""

from __future__ import annotations

from flask import Flask, Response, request

from service.errors_http import ManilleApi

from .blueprint import API_PREFIX, check_body

#: Answers a cache may keep: endpoint -> Cache-Control, for a GET answered 200 to a request that
#: carries no credentials.  None yet: every answer is ``no-store``.
PUBLIC_CACHE: dict[str, str] = {}


def cache_control(endpoint: str | None, method: str, status: int, credentials: bool) -> str:
    """The Cache-Control of an API answer.  An answer that depends on a token, or to a write, is
    never stored anywhere (``no-store``); a public read of an endpoint in ``PUBLIC_CACHE`` gets
    that endpoint's."""
    if method in ("GET", "HEAD") and status == 200 and not credentials and endpoint in PUBLIC_CACHE:
        return PUBLIC_CACHE[endpoint]
    return "no-store"


def _api_headers(resp: Response) -> Response:
    req = request._get_current_object()
    if req.path.startswith(API_PREFIX):
        headers = resp.headers
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Cache-Control"] = cache_control(
            req.endpoint, req.method, resp.status_code,
            "Authorization" in req.headers or "X-Player-Token" in req.headers)
    return resp

from . import (analysis, challenges, duels, duplicate, health, leaderboards, leagues, ops, players, runs, schemas,
               submissions)


def init_app(app: Flask) -> ManilleApi:
    ManilleApi.ERROR_SCHEMA = schemas.ErrorSchema
    api = ManilleApi(app, spec_kwargs={"info": {"description": (
        "Manille muette daily challenge. Every error is JSON "
        "{\"error\": <stable code>, \"message\": ...}. Player requests carry the token from "
        "POST /runs in the X-Player-Token header.")}})
    api.spec.components.security_scheme(
        "playerToken", {"type": "apiKey", "in": "header", "name": "X-Player-Token"})
    api.spec.components.security_scheme("opsToken", {"type": "http", "scheme": "bearer"})
    for module in (challenges, runs, submissions, analysis, leaderboards, duplicate, leagues, duels, players, health,
                   ops):
        api.register_blueprint(module.blp, url_prefix=f"/api/v1{module.PREFIX}")
    app.before_request(check_body)
    app.after_request(_api_headers)
    app.extensions["manille_api"] = api
    return api
