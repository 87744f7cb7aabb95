"""The API against its own OpenAPI document: schemathesis generates valid and invalid requests
from it; no request may cause a server error, and every answer must be documented."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance, response_schema_conformance,
                                               status_code_conformance)

from service.app import create_app

from svc_helpers import SECRET, TEST_BOTS

#: A 5xx, an undocumented status or content type, or a body off its documented schema fails.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def app(rclient, redis_server):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS})


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_api_matches_its_openapi_document(app, mode):
    token = app.test_client().post("/api/v1/runs", json={}).get_json()["player_token"]
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15
    # Readiness is 503 by design while no worker runs (as here); the e2e test checks it with one.
    operations = [op for op in operations if not op.path.endswith("/health/ready")]
    statuses = set()
    for operation in operations:
        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def check(case):
            headers = {"X-Player-Token": token} if "X-Player-Token" not in (case.headers or {}) else {}
            statuses.add(case.call_and_validate(headers=headers, checks=CHECKS).status_code)

        try:
            check()
        except Unsatisfiable:
            assert mode == GenerationMode.NEGATIVE  # nothing invalid to send (no parameters, no body)
    assert {200, 404} <= statuses and (mode == GenerationMode.POSITIVE or 422 in statuses)
