"""What the views share: the app's services, the caller's token and client info, date parsing."""

from __future__ import annotations

from datetime import date

import orjson
from flask import Response, current_app, request

from service.errors import NotFound
from service.seeds import InvalidDateError, parse_date

TOKEN_HEADER = "X-Player-Token"


def services():
    return current_app.extensions["manille"]


def encode(data: dict) -> bytes:
    """A hot answer as JSON, by orjson: a play's answer (1–2.5 KB: the whole table) took the json
    module 40–60 µs, 5 % of a play's instructions in process, and orjson a tenth of that.  The
    views build it from str, int, bool, None, lists and dicts (non-str keys allowed); orjson
    writes them as json does, but for text outside ASCII: UTF-8, not \\u escapes."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)


def as_documented(data: dict | bytes, status: int = 200) -> Response:
    """``data`` as the JSON answer (or that JSON already encoded), sent as it is: it already has the
    shape of the schema that the view's ``@blp.response`` documents, so that schema is not run
    (flask-smorest passes a Response through).  For the hot paths, where marshmallow's dump cost
    more than the work: a play, a board page.  tests/service/test_svc_documented.py checks that
    dumping changes nothing."""
    return current_app.response_class(data if isinstance(data, bytes) else encode(data), status=status,
                                      mimetype="application/json")


def token_from_request() -> str | None:
    token = request.headers.get(TOKEN_HEADER)
    if token:
        return token.strip()
    auth = request.headers.get("Authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return None


def current_pid() -> str:
    """The pid of the caller's token; raises Unauthorized (401 invalid_token)."""
    return services().players.authenticate(token_from_request())


def client_info() -> dict:
    """The client's address (ProxyFix has applied MANILLE_TRUSTED_PROXIES) and user agent."""
    return {"ip": request.remote_addr or "", "user_agent": request.headers.get("User-Agent", "")}


def day_from(text: str) -> date:
    """The day named in a path, or by a body's date (its form already checked by its schema: 422);
    NotFound ``unknown_date`` for anything that is not a day of the service."""
    try:
        return parse_date(text)
    except InvalidDateError as e:
        raise NotFound(str(e), code="unknown_date") from None
