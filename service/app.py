"""The Flask app factory: ``create_app(config=None)``; gunicorn runs ``service.app:create_app()``.

Configuration comes from the environment (see ``service.config``) and, for tests, a dict whose
keys override it: ``REDIS_URL``, ``MANILLE_SECRET``, ``MANILLE_TZ``, ``MANILLE_BOTS``,
``MANILLE_GRACE_SECONDS`` and any Flask setting.
"""

from __future__ import annotations

import logging
import os

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from service import api, errors_http, web
from service.telemetry import web as telemetry
from service.botpool import BotPool
from service.challenges import Challenges, check_commitments
from service.config import Settings
from service.duels import Duels
from service.leaderboard import Leaderboard
from service.leagues import Leagues
from service.ratings import Ratings
from service.limits import Limits, parse
from service.players import Players
from service.players.passkeys import Passkeys
from service.runs import Runs
from service.analysis import Analyses
from service.submissions import Submissions

MAX_BODY = 16 * 1024


class Services:
    """The data-owning modules of one app, sharing one client of the state (``redis``: the cluster,
    or the one Redis) and one of the queue's Redis (``queue``, bytes: RQ's; the same server as
    the state unless the state is on a cluster)."""

    def __init__(self, settings: Settings, client=None) -> None:
        self.settings = settings
        self.redis = client if client is not None else settings.redis(timeout=settings.redis_timeout)
        self.queue = settings.queue_connection(self.redis, timeout=settings.redis_timeout)
        self.players = Players(self.redis, settings.player_keep_days * 86400)
        self.passkeys = Passkeys(self.redis, self.players.devices)
        self.challenges = Challenges(self.redis, settings)
        self.runs = Runs(self.redis, settings)
        if settings.bot_pool:
            self.runs.pool = BotPool(self.queue, settings)
        self.submissions = Submissions(self.redis, settings, queue=self.queue)
        self.analyses = Analyses(self.redis, settings, queue=self.queue)
        self.leaderboard = Leaderboard(self.redis, settings.board_max_age)
        self.limits = Limits(self.redis)
        self.leagues = Leagues(self.redis, settings.redis_wait_ms)
        self.ratings = Ratings(self.redis)
        self.duels = Duels(self.redis, settings.redis_wait_ms)
        for text in settings.limits.values():
            parse(text)  # a limit that does not parse fails now, not on the first request it counts
        check_commitments(self.redis, settings)  # a secret rotation that would change a committed day: refused now


def init_services(app: Flask) -> None:
    """Settings from the environment, overridden by app config keys of the same names
    (``REDIS_…`` and every ``MANILLE_…``), which is how tests configure an app."""
    env = dict(os.environ)
    for name, value in app.config.items():
        if name.startswith(("REDIS_", "MANILLE_")) and value is not None:
            env[name] = str(value)
    app.extensions["manille"] = Services(Settings.from_env(env))


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__, static_folder=None)  # the web blueprint serves the static files
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY,
        API_TITLE="Manille daily challenge",
        API_VERSION="v1",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/api/v1",
        OPENAPI_JSON_PATH="openapi.json",
        JSON_SORT_KEYS=False,
    )
    if config:
        app.config.update(config)
    app.json.sort_keys = False
    init_services(app)
    proxies = app.extensions["manille"].settings.trusted_proxies
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)
    telemetry.init_app(app)  # first: its hooks wrap every other one
    errors_http.init_app(app)
    api.init_app(app)
    web.init_app(app)
    if not app.debug:  # MANILLE_LOG_LEVEL=warning also drops the access lines (a tenth of a play's time)
        logging.getLogger("service").setLevel((os.environ.get("MANILLE_LOG_LEVEL") or "info").upper())
    return app
