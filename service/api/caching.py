"""What caches, browsers and other sites may do with an API answer, decided per route class, once,
after the view (``api_headers``):

- **public reads** (a view marked ``public_read``: boards, histograms, the closed days' fields and
  travellers, challenges, published records): asked without a token, the answer is the same for
  everyone.  Answered 200 it says ``Cache-Control: public, max-age=N`` with the N its view gives
  (``cacheable``, from ``service.freshness``), a strong ``ETag`` (the hash of its bytes, kept with a
  board page's body by its view rather than hashed again) and ``Vary: X-Player-Token,
  Authorization``; a request whose ``If-None-Match`` names the current ETag gets ``304`` with no
  body (``service.conditional``).  A process that answered a URL with an ETag less than
  ``MANILLE_BOARD_MAX_AGE`` ago (and within its max-age) answers a request holding it 304 before
  the view runs (``answer_held``): the view would answer the very page it keeps that long
  unchecked (``service.leaderboard``), so the 304 is as fresh as the 200, and costs less.  Any answer of such a read without a token, errors included, says
  ``Access-Control-Allow-Origin: *``, so that a page of another site can read the boards (no
  credentials: a token is never sent cross-origin, its custom header needs a preflight that no
  route grants).  A view that finds its answer is not public (an open day's field, a game's own
  deals) gives no ``cacheable``: ``no-store``.
- **everything else**: ``no-store``; and any answer to a request that carries a token
  (``X-Player-Token`` or ``Authorization``), whatever the route, ``private, no-store``, with no
  CORS and no ETag.  So a public answer never carries ``me``, and a route this module does not
  know (a new blueprint) is never cached.
- **limited routes**: ``RateLimit-Limit``, ``RateLimit-Remaining`` and ``RateLimit-Reset`` (the
  IETF httpapi draft's names) from the request's limits (``service.api.limits``), for the window
  with the fewest requests left.
"""

from __future__ import annotations

import time
from collections import OrderedDict

from flask import Flask, Response, current_app, g, request
from flask_smorest import Blueprint as SmorestBlueprint

from service.conditional import etag_of, keepable

from .blueprint import API_PREFIX
from .common import services

#: The endpoints whose view is marked ``public_read`` (filled by ``init_app``).
PUBLIC_READS: set[str] = set()
#: Validators a process answered lately, per URL, at most (the least recently used go first).
KEPT_VALIDATORS = 1024
#: A public answer differs from the answer to a token: a cache keys it by these.
VARY = "X-Player-Token, Authorization"
NO_STORE = "no-store"
PRIVATE = "private, no-store"

_HEADERS = {
    "Cache-Control": {"description": "public, max-age=N on a public read asked without a token (N: what the "
                                     "data allows, see docs/api.md); private, no-store with a token; "
                                     "no-store otherwise", "schema": {"type": "string"}},
    "ETag": {"description": "a strong validator of a public answer: send it back in If-None-Match",
             "schema": {"type": "string"}},
    "Vary": {"description": "X-Player-Token, Authorization", "schema": {"type": "string"}},
    "Access-Control-Allow-Origin": {"description": "* on a public read asked without a token",
                                    "schema": {"type": "string"}},
    "Retry-After": {"description": "seconds until the request may be sent again", "schema": {"type": "integer"}},
    "RateLimit-Limit": {"description": "requests the window of this route's limits with the fewest left allows",
                        "schema": {"type": "integer"}},
    "RateLimit-Remaining": {"description": "requests left in that window", "schema": {"type": "integer"}},
    "RateLimit-Reset": {"description": "seconds until requests leave that window (full: until one more fits, "
                                       "as Retry-After)", "schema": {"type": "integer"}},
}
_PUBLIC_HEADERS = ("Cache-Control", "ETag", "Vary", "Access-Control-Allow-Origin")
_RATE_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")


def _refs(names) -> dict:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}


def public_read(func):
    """Mark a GET view as a public read (see above), and document its headers and its 304 (not
    ``If-None-Match`` as a parameter: generated clients and fuzzers would send it on every call).
    Apply it under ``@blp.response``."""
    func = SmorestBlueprint.doc(
        responses={200: {"headers": _refs(_PUBLIC_HEADERS)},
                   304: {"description": "Not Modified: the ETag sent in If-None-Match (asked without a token) is "
                                        "still the answer's; no body",
                         "headers": _refs(("Cache-Control", "ETag", "Vary", "Access-Control-Allow-Origin"))}})(func)
    func.public_read = True
    return func


def limited(*statuses: int):
    """Document the RateLimit headers on ``statuses`` and on the 429 of a route with limits."""
    refused = {"description": "too_many_requests: one of the route's limits is full (Retry-After; nothing counted)",
               "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
               "headers": _refs(("Retry-After", *_RATE_HEADERS))}
    return SmorestBlueprint.doc(responses={**{status: {"headers": _refs(_RATE_HEADERS)} for status in statuses},
                                           429: refused})


def cacheable(max_age: int, etag: str | None = None) -> None:
    """Called by a public read's view: its answer (if 200 and public) may be kept ``max_age``
    seconds; ``etag``: its body's, when the view keeps it (else the body is hashed)."""
    req_g = g._get_current_object()
    req_g.max_age = max_age
    req_g.etag = etag


def cache_control(endpoint: str | None, method: str, status: int, credentials: bool,
                  max_age: int | None = None) -> str:
    """The Cache-Control of an API answer (see above): ``max_age``, the view's ``cacheable``."""
    if credentials:
        return PRIVATE
    if (max_age is not None and status in (200, 304) and method in ("GET", "HEAD")
            and endpoint in PUBLIC_READS):
        return f"public, max-age={max_age}"
    return NO_STORE


def _validators() -> OrderedDict:
    """This app's URL -> (ETag, max-age, when answered: ``time.monotonic``)."""
    return current_app.extensions.setdefault("manille_validators", OrderedDict())


def answer_held() -> Response | None:
    """``before_request`` of the app: 304 at once to a public read whose ``If-None-Match`` holds
    the ETag this process answered for its URL within ``MANILLE_BOARD_MAX_AGE`` and its max-age
    (see above); None (the view runs) otherwise."""
    req = request._get_current_object()
    headers = req.headers
    if ("If-None-Match" not in headers or req.endpoint not in PUBLIC_READS or req.method not in ("GET", "HEAD")
            or "X-Player-Token" in headers or "Authorization" in headers):
        return None
    kept = _validators().get(req.full_path)
    if kept is None:
        return None
    etag, max_age, made = kept
    age = time.monotonic() - made
    if age >= services().settings.board_max_age or age >= max_age or not req.if_none_match.contains_weak(etag):
        return None
    req_g = g._get_current_object()
    req_g.max_age, req_g.etag = max_age - int(age), etag
    return current_app.response_class(status=304)


def api_headers(resp: Response) -> Response:
    """``after_request`` of the app: the headers above on every answer under /api/."""
    req = request._get_current_object()
    if not req.path.startswith(API_PREFIX):
        return resp
    req_g = g._get_current_object()
    headers = resp.headers
    headers["X-Content-Type-Options"] = "nosniff"
    req_headers = req.headers
    credentials = "X-Player-Token" in req_headers or "Authorization" in req_headers
    status = resp.status_code
    max_age = req_g.get("max_age")
    control = cache_control(req.endpoint, req.method, status, credentials, max_age)
    if not credentials and req.method in ("GET", "HEAD") and req.endpoint in PUBLIC_READS:
        headers["Access-Control-Allow-Origin"] = "*"
    if control.startswith("public"):
        headers["Vary"] = f"{VARY}, {headers['Vary']}" if headers.get("Vary") else VARY  # the view's own (gzip)
        etag = req_g.get("etag") or etag_of(resp.get_data())
        if status == 200 and max_age:
            kept = _validators()
            kept[req.full_path] = (etag, max_age, time.monotonic())
            kept.move_to_end(req.full_path)
            if len(kept) > KEPT_VALIDATORS:
                kept.popitem(last=False)
        keepable(resp, req, max_age, etag)
    else:
        headers["Cache-Control"] = control
    gate = req_g.get("rate_gate")
    if gate is not None:
        quota = gate.quota()
        if quota is not None:
            headers["RateLimit-Limit"] = str(quota.limit)
            headers["RateLimit-Remaining"] = str(quota.remaining)
            headers["RateLimit-Reset"] = str(quota.reset)
    return resp


def init_app(app: Flask, api) -> None:
    """Find the public reads among the registered views; document the headers; install the hook."""
    for name, spec in _HEADERS.items():
        api.spec.components.header(name, spec)
    for endpoint, view in app.view_functions.items():
        cls = getattr(view, "view_class", None)
        if getattr(getattr(cls, "get", None), "public_read", False):
            PUBLIC_READS.add(endpoint)
    app.before_request(answer_held)
    app.after_request(api_headers)
