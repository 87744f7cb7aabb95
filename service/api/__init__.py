"""The /api/v1 blueprints: one per resource, ``MethodView`` classes, schemas in ``schemas``.

Every API answer, errors included, says ``X-Content-Type-Options: nosniff`` and carries the
``Cache-Control`` that ``cache_control`` decides for it by its route's class, the one place that
does, with the headers that go with that class (``caching``: ETag, CORS, RateLimit).
"""

from __future__ import annotations

from flask import Flask

from service.errors_http import ManilleApi

from .blueprint import answer_options, check_body, refuse_shadowed
from .caching import cache_control

from . import (analysis, archive, caching, challenges, days, devices, duels, duplicate, health, leaderboards,  # noqa: E402
               leagues, ops, players, runs,
               schemas, submissions)
from . import appeals, ops_appeals, ops_cases, ops_players, ops_reports, reports  # noqa: E402
from . import contract, ratings  # noqa: E402


def init_app(app: Flask) -> ManilleApi:
    ManilleApi.ERROR_SCHEMA = schemas.ErrorSchema
    api = ManilleApi(app, spec_kwargs={"info": {"description": (
        "Manille muette daily challenge. Every error is JSON "
        "{\"error\": <stable code>, \"message\": ...}. Player requests carry the token from "
        "POST /runs in the X-Player-Token header.")}})
    api.spec.components.security_scheme(
        "playerToken", {"type": "apiKey", "in": "header", "name": "X-Player-Token"})
    api.spec.components.security_scheme("opsToken", {"type": "http", "scheme": "bearer"})
    for module in (challenges, runs, submissions, analysis, leaderboards, duplicate, leagues, duels, players, devices, health,
                   ops, reports, appeals, ops_players, ops_reports, ops_appeals, ops_cases, ratings, days, archive):
        api.register_blueprint(module.blp, url_prefix=f"/api/v1{module.PREFIX}")
    app.before_request(answer_options)
    app.before_request(refuse_shadowed)
    app.before_request(check_body)
    caching.init_app(app, api)
    contract.init_app(app, api)
    app.extensions["manille_api"] = api
    return api
