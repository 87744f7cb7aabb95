"""What every /api/v1 request body must be, checked once before any view reads it.

- A body is JSON: any other ``Content-Type`` is 415 ``unsupported_media_type`` (a form or text
  body used to be read as "no fields" and answered 422 for fields that were in fact sent).
- It is not compressed: a ``Content-Encoding`` other than identity is 415 ``unsupported_encoding``
  (the app would otherwise parse the compressed bytes as text).
- It can be read in full: a broken chunked encoding, or a client gone mid-body, is 400
  ``malformed_body``; beyond ``MAX_CONTENT_LENGTH`` it is 413 ``body_too_large`` (werkzeug).
- It is JSON that Python can hold: a document nested thousands deep (RecursionError) or a number
  of thousands of digits (the long-integer conversion limit, ValueError) is 400 ``malformed_json``
  like any malformed body, never a 500.
"""

from __future__ import annotations

import functools
import json

import flask_smorest
from flask import current_app, request
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException, MethodNotAllowed, RequestEntityTooLarge
from werkzeug.routing import PathConverter

from service.errors import ServiceError
from service.errors_http import DRAIN_BYTES

from .schemas.common import OneOfSchema

API_PREFIX = "/api/"


class JsonParser(FlaskParser):
    def _raw_load_json(self, req):
        try:
            return super()._raw_load_json(req)
        except json.JSONDecodeError:
            raise
        except (RecursionError, ValueError) as e:  # too deep, or a number too long to convert
            # a non-empty document: webargs reads an empty one as "no body at all"
            raise json.JSONDecodeError(f"unreadable JSON: {type(e).__name__}", "(body)", 0) from None


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = JsonParser()

    def arguments(self, schema, *args, **kwargs):
        """flask-smorest's, with one instance of a schema class for every request: webargs makes a
        new one from a class on each (0.1 ms, a tenth of a board page).  Loading keeps no state.
        A ``OneOfSchema`` body is documented as ``oneOf`` its schemas (components, by apispec)."""
        schema = schema() if isinstance(schema, type) else schema
        decorator = super().arguments(schema, *args, **kwargs)
        if kwargs.get("location", "json") == "json" and kwargs.get("required", True):
            decorator = _body_required(decorator)
        if not isinstance(schema, OneOfSchema):
            return decorator
        body = {"required": kwargs.get("required", True), "description": schema.DESCRIPTION,
                "content": {"application/json": {"schema": {"oneOf": [type(s) for s in schema.ONE_OF]}}}}
        return lambda func: self.doc(requestBody=body)(decorator(func))


def _body_required(decorator):
    """A body the document says is required is refused when none is sent, even where ``{}`` would
    do (``POST /runs``): 422 ``validation_error`` naming the body."""
    def wrap(func):
        loaded = decorator(func)

        @functools.wraps(loaded)
        def view(*args, **kwargs):
            if not request.get_data(cache=True):
                raise ServiceError("this operation needs a JSON body ({} at least)", code="validation_error",
                                   status=422, fields={"json": ["a body is required"]})
            return loaded(*args, **kwargs)
        return view
    return wrap


def drain(stream) -> None:
    """Read and drop the rest of a refused body (up to DRAIN_BYTES), so that the connection does
    not close on unread bytes, which resets it and can lose the 413 on its way to the client."""
    left = DRAIN_BYTES
    try:
        while left > 0 and (chunk := stream.read(min(65536, left))):
            left -= len(chunk)
    except Exception:  # noqa: BLE001 - a broken body: the answer is sent all the same
        pass


def check_body() -> None:
    """``before_request`` of the API: refuse a body that is not plain, readable JSON (see above)."""
    req = request._get_current_object()  # once: every request comes here
    if not req.path.startswith(API_PREFIX):
        return
    headers = req.headers
    if "Content-Length" not in headers and "Transfer-Encoding" not in headers:
        return  # no body (RFC 9112 §6.3): nothing to read, as most GETs (a tenth of a board page)
    try:
        body = req.get_data(cache=True)
        limit = req.max_content_length
        # werkzeug stops a chunked body (no Content-Length) at the limit without a word: whatever
        # lies beyond would be cut off silently and the rest parsed as if it were the whole
        if req.content_length is None and limit is not None and len(body) >= limit \
                and req.environ["wsgi.input"].read(1):
            raise RequestEntityTooLarge()
    except RequestEntityTooLarge:
        drain(req.environ["wsgi.input"])
        raise
    except HTTPException:
        raise
    except Exception as e:  # noqa: BLE001 - the server's body reader: bad chunk sizes, early EOF…
        raise ServiceError(f"the request body could not be read: {type(e).__name__}", code="malformed_body",
                           status=400) from None
    if not body:
        return
    encoding = headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise ServiceError(f"Content-Encoding {encoding[:40]!r} is not accepted: send the body uncompressed",
                           code="unsupported_encoding", status=415)
    if not req.is_json:
        raise ServiceError("the body must be JSON, sent with Content-Type: application/json "
                           f"(not {req.mimetype[:60]!r})", code="unsupported_media_type", status=415)


def answer_options():
    """``before_request`` of the API: ``OPTIONS`` answers 204 with ``Allow`` listing the methods of
    the route the path names (Flask's own answer lists those of every route the path could match:
    ``/leagues/join`` then took ``/leagues/{league_id}``'s GET, PATCH and DELETE), and no body."""
    req = request._get_current_object()
    if req.method != "OPTIONS" or not req.path.startswith(API_PREFIX) or req.url_rule is None:
        return None
    methods = sorted(req.url_rule.methods | {"OPTIONS"})
    resp = current_app.response_class(status=204, headers={"Allow": ", ".join(methods)})
    del resp.headers["Content-Type"]  # no body, so no type (Flask gives every answer text/html)
    return resp


def refuse_shadowed():
    """``before_request`` of the API: a path that names one route, asked with a method only a route
    with a variable matches, is 405 with that route's ``Allow`` (``GET /leagues/join`` is the join's,
    not the league ``join``'s; ``GET /players/me/links`` the link's, not the player ``me/links``'s),
    as for any method a path does not take."""
    req = request._get_current_object()
    rule = req.url_rule
    if rule is None or not rule.arguments or not req.path.startswith(API_PREFIX):
        return None
    named = _named_routes(current_app)
    methods = named.get(req.path)
    if methods is None and _takes_slashes(rule):
        adapter = current_app.url_map.bind("")
        for method in ("GET", "POST", "PATCH", "DELETE", "PUT"):
            try:
                other, _args = adapter.match(req.path, method=method, return_rule=True)
            except HTTPException:
                continue
            if other.endpoint != rule.endpoint and len(other.arguments) <= len(rule.arguments) \
                    and not _takes_slashes(other):
                methods = other.methods
                break
    if methods is not None:
        raise MethodNotAllowed(valid_methods=sorted(methods | {"OPTIONS"}))
    return None


def _takes_slashes(rule) -> bool:
    """Whether a variable of ``rule`` takes a path (``<path:nickname>``): only such a rule can match
    a path that another route names with more segments."""
    return any(isinstance(c, PathConverter) for c in rule._converters.values())


def _named_routes(app) -> dict[str, set[str]]:
    """The API's paths without a variable, with their methods (kept on the app)."""
    named = app.extensions.get("manille_named_routes")
    if named is None:
        named = app.extensions["manille_named_routes"] = {
            rule.rule: set(rule.methods) for rule in app.url_map.iter_rules()
            if rule.rule.startswith(API_PREFIX) and not rule.arguments}
    return named
