"""Every answer an app of this process gives under /api/v1, held against the API's own document:
its status is listed for its operation, and an error's code is one of those the document lists for
that status (``x-error-codes``).  The whole suite's requests are the cases: a view that answers a
status or a code its operation does not document fails the run (tests/conftest.py)."""

from __future__ import annotations

import json

import flask

from service.api.contract import path_of

#: (rule, method, status, code) of every answer seen.
seen: set[tuple[str, str, int, str]] = set()
_apps: list = []


def _observe(app, response):
    req = flask.request
    rule = req.url_rule
    if (rule is None or not req.path.startswith("/api/v1/") or req.method in ("OPTIONS", "HEAD")
            or rule.endpoint == "api-docs.openapi_json" or response.status_code == 405):  # not an operation
        return response
    code = ""
    if response.status_code >= 400 and response.mimetype == "application/json" and not response.is_streamed:
        try:
            code = json.loads(response.get_data()).get("error", "")
        except ValueError:
            code = "(not JSON)"
    seen.add((rule.rule, req.method, response.status_code, code))
    if not _apps:
        _apps.append(app)
    return response


def install() -> None:
    """Watch every answer of every Flask app of this process."""
    original = flask.Flask.process_response

    def process_response(self, response):
        return _observe(self, original(self, response))

    flask.Flask.process_response = process_response


def problems() -> list[str]:
    """What the suite saw that the document does not say."""
    if not _apps:
        return []
    doc = _apps[0].test_client().get("/api/v1/openapi.json").get_json()
    out = []
    for rule, method, status, code in sorted(seen):
        operation = doc["paths"].get(path_of(rule), {}).get(method.lower())
        if operation is None:  # a route a test added: the document's own routes are checked elsewhere
            continue
        answer = operation["responses"].get(str(status))
        if answer is None:
            out.append(f"{method} {path_of(rule)} ({operation['operationId']}): {status} {code} not listed".rstrip())
        elif status >= 400 and "x-error-codes" in answer and code not in answer["x-error-codes"]:
            out.append(f"{method} {path_of(rule)} ({operation['operationId']}): {status} {code} not among "
                       f"{answer.get('x-error-codes')}")
    return out
