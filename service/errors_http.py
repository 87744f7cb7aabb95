"""The one JSON error envelope: ``{"error": "<stable_code>", "message": "...", ...details}``.

Every error leaves through here: our ServiceErrors, werkzeug's HTTP errors (404, 405, 413 …),
webargs/marshmallow validation (422) and malformed JSON (400), Redis being down or full (503) and any
bug (500).  ``ManilleApi`` replaces flask-smorest's own error format with this one.
"""

from __future__ import annotations

import logging

import redis
from flask import Flask, current_app, jsonify, request
from markupsafe import escape
from flask_smorest import Api
from werkzeug.exceptions import HTTPException, InternalServerError

from service.errors import ServiceError

log = logging.getLogger("service.errors")

HTTP_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 406: "not_acceptable", 409: "conflict", 413: "body_too_large",
    414: "uri_too_long", 415: "unsupported_media_type", 417: "expectation_failed", 422: "validation_error",
    429: "too_many_requests", 431: "header_fields_too_large", 500: "internal_error",
    501: "not_implemented", 503: "unavailable",
}


def envelope(status: int, code: str, message: str, **details):
    resp = jsonify({"error": code, "message": message, **details})
    resp.status_code = status
    return resp


def write_server_error(sock, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's answer to a request it could not parse (a request line or headers too long, a
    bad method, a broken chunked body…), in the envelope instead of its HTML page: such a request
    never reaches the app, and a client of /api/v1 reads JSON.  Installed by
    ``deploy/gunicorn.conf.py`` in place of ``gunicorn.util.write_error``."""
    import json

    from gunicorn.util import write_nonblock

    body = json.dumps({"error": HTTP_CODES.get(status_int, f"http_{status_int}"),
                       "message": f"{reason}: {mesg}" if mesg else reason}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nContent-Length: {len(body)}\r\n\r\n")
    write_nonblock(sock, head.encode("latin1") + body)
    linger(sock)


#: What is read and dropped of a refused request before its connection closes, at most.
DRAIN_BYTES, DRAIN_SECONDS = 1 << 20, 1.0


def linger(sock) -> None:
    """Read and drop what the client is still sending before the socket closes: closing with
    unread bytes makes the kernel send a reset, which can destroy the answer before the client
    reads it (a client that sent a 9 KB request line saw "connection reset", not the 414)."""
    import socket
    import time

    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(DRAIN_SECONDS)
        deadline, drained = time.monotonic() + DRAIN_SECONDS, 0
        while drained < DRAIN_BYTES and time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                break
            drained += len(chunk)
    except OSError:
        pass


def handle_http_exception(error: HTTPException):
    status = error.code or 500
    if not request.path.startswith("/api/"):
        return page_error(error)
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    if status == 400 and messages and "json" in messages and "Invalid JSON" in str(messages["json"]):
        return envelope(400, "malformed_json", "the body is not valid JSON")
    if status == 422 and messages is not None:
        # webargs: {"json": {"field": ["msg"]}} or {"query": {...}}
        flat = {}
        for location, errs in messages.items():
            if isinstance(errs, dict):
                flat.update(errs)
            else:
                flat[location] = errs
        return envelope(422, "validation_error", "the request does not match its schema", fields=flat)
    code = HTTP_CODES.get(status, f"http_{status}")
    message = data.get("message") or error.description or error.name
    if status == 413 and current_app.config.get("MAX_CONTENT_LENGTH"):
        message = f"the body is larger than the {current_app.config['MAX_CONTENT_LENGTH']} bytes accepted"
    resp = envelope(status, code, message)
    if status == 405 and getattr(error, "valid_methods", None):
        resp.headers["Allow"] = ", ".join(error.valid_methods)
    return resp


def page_error(error: HTTPException):
    """Outside the API a person is reading: the site's own page, in its style and the reader's
    language, where the web pages are installed (``service.web`` puts its renderer in
    ``app.extensions["manille_error_page"]``); else, or should that page itself fail, a short
    HTML page.  Never JSON."""
    status = error.code or 500
    render = current_app.extensions.get("manille_error_page")
    if render is not None:
        try:
            return render(error)
        except Exception:  # noqa: BLE001 - the plain page below still answers
            log.exception("the error page could not be rendered")
    body = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width, initial-scale=1"><title>{status} {escape(error.name)}</title>'
            f'</head><body><h1>{status} {escape(error.name)}</h1><p><a href="/">Manille</a></p></body></html>')
    return body, status, {"Content-Type": "text/html; charset=utf-8"}


def handle_service_error(error: ServiceError):
    resp = jsonify(error.to_json())
    resp.status_code = error.status
    resp.headers.update(error.headers)
    return resp


def handle_redis_error(error: redis.RedisError):
    log.error("redis error: %s", error)
    return envelope(503, "store_unavailable", "the data store is unavailable; try again")


def handle_redis_response(error: redis.ResponseError):
    """Redis at its maxmemory refuses writes (``noeviction``: no score is ever evicted): a command
    with OOM (OutOfMemoryError), a script with an error that says OOM (Redis 6; 7 refuses the
    script itself).  Any other error answer is a bug."""
    if isinstance(error, redis.OutOfMemoryError) or "OOM command not allowed" in str(error):
        log.error("redis is full: %s", error)
        return envelope(503, "store_full", "the data store is full and refuses writes; try again later")
    return handle_unexpected(error)


def handle_unexpected(error: Exception):
    if isinstance(error, HTTPException):
        return handle_http_exception(error)
    log.exception("unhandled error")
    if not request.path.startswith("/api/"):
        return page_error(InternalServerError())
    return envelope(500, "internal_error", "an unexpected error occurred")


class ManilleApi(Api):
    """flask-smorest's Api with our error envelope instead of its own."""

    def handle_http_exception(self, error):
        return handle_http_exception(error)


def init_app(app: Flask) -> None:
    app.register_error_handler(ServiceError, handle_service_error)
    app.register_error_handler(redis.ConnectionError, handle_redis_error)
    app.register_error_handler(redis.TimeoutError, handle_redis_error)
    # a cluster failing over (no master yet for a slot, a slot moving): as a Redis down, for a moment
    app.register_error_handler(redis.exceptions.ClusterDownError, handle_redis_error)
    app.register_error_handler(redis.exceptions.TryAgainError, handle_redis_error)
    app.register_error_handler(redis.ResponseError, handle_redis_response)
    app.register_error_handler(Exception, handle_unexpected)
