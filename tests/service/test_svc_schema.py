"""The API against its own OpenAPI document: schemathesis generates valid and invalid requests
from it, one operation at a time and in chains that follow the document's links (a run's id and
turn into its next play, a submission's id into its status).  No request may cause a server
error, every answer must be documented, and every error must be the one JSON envelope."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance, response_schema_conformance,
                                               status_code_conformance)

import service.runs.opening as opening_module
from service.app import create_app

from support.svc_helpers import LIMITS_OFF, OPS, OPS_TOKENS, SECRET, TEST_BOTS


def error_envelope(ctx, response, case):
    """Every answer of /api/v1 with status >= 400 is ``{"error": code, "message": text, ...}``
    in JSON, 404, 405 and 413 included."""
    if response.status_code < 400:
        return True
    ctype = response.headers.get("content-type", [""])
    ctype = ctype[0] if isinstance(ctype, list) else ctype
    assert ctype.startswith("application/json"), f"{response.status_code} answered as {ctype!r}"
    body = response.json() if case.method.upper() != "HEAD" else {"error": "x", "message": "x"}
    assert isinstance(body, dict) and isinstance(body.get("error"), str) and body["error"], body
    assert isinstance(body.get("message"), str), body
    return True


#: A 5xx, an undocumented status or content type, a body off its documented schema, or an error
#: outside the envelope fails.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          error_envelope]


@pytest.fixture
def app(rclient, redis_server):
    # limits off: the fuzzing opens far more runs than a person would (limits have their own tests)
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": OPS_TOKENS, **LIMITS_OFF})


def new_token(app) -> str:
    return app.test_client().post("/api/v1/runs", json={"kind": "random"}).get_json()["player_token"]


@pytest.mark.slow
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_api_matches_its_openapi_document(app, mode):
    token = new_token(app)
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
            # an operator's token on the ops routes, a player's on the rest
            credentials = {"Authorization": f"Bearer {OPS}"} if "/ops/" in case.path else {"X-Player-Token": token}
            headers = {} if set(credentials) & set(case.headers or {}) else credentials
            statuses.add(case.call_and_validate(headers=headers, checks=CHECKS).status_code)

        try:
            check()
        except Unsatisfiable:
            assert mode == GenerationMode.NEGATIVE  # nothing invalid to send (no parameters, no body)
    assert {200, 404} <= statuses and (mode == GenerationMode.POSITIVE or 422 in statuses)


def test_document_links_chain_a_game(app):
    """The links are real: following PlayFirstLegal from an opened run plays a whole game."""
    client = app.test_client()
    doc = client.get("/api/v1/openapi.json").get_json()
    link = doc["paths"]["/api/v1/runs"]["post"]["responses"]["201"]["links"]["PlayFirstLegal"]
    assert link["operationRef"] == "#/paths/~1api~1v1~1runs~1{run_id}~1plays/post"
    run = client.post("/api/v1/runs", json={"kind": "random"}).get_json()
    h = {"X-Player-Token": run["player_token"]}
    while run["status"] == "playing":
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays", headers=h,
                        json={"turn": run["turn"], "card": run["view"]["legal"][0]})
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
    assert run["status"] == "finished" and run["result"] is not None


@pytest.mark.slow
def test_stateful_chains_follow_the_links(app, monkeypatch):
    """Random walks along the links (open a run, play its legal cards, submit, follow the
    submission), with valid and invalid requests mixed in, one player per scenario."""
    # Every free game on one deal: the walks are derandomized, and a fresh random deal per run made
    # the answers, and so the walks that follow them, differ from one run to the next (hypothesis
    # then stops on an "inconsistent data generation", or the walks play fewer cards).
    monkeypatch.setattr(opening_module, "free_play_seed", lambda: bytes(range(32)))
    # The walks are about games: the analysis, league, duel, report, appeal, device and ops
    # endpoints (fuzzed one by one above; an ops route answers a player's token 401) would take
    # their steps without leading into a game, a duel's code, a league's id and a link's code are
    # fresh random bits on every run, which no derandomized walk can repeat, and a walk that
    # removes its own device ends its token for every step after.
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app).exclude(
        path_regex="analys|duel|league|report|appeal|/ops/|devices|passkeys|links")
    seen: list[tuple[str, int]] = []

    class Machine(schema.as_state_machine()):
        def setup(self):
            self.token = new_token(app)

        def before_call(self, case):
            case.headers = {**(case.headers or {}), "X-Player-Token": self.token}  # bad tokens: see above

        def after_call(self, response, case):
            super().after_call(response, case)
            seen.append((f"{case.method} {case.path}", response.status_code))

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs or None)

    # 100 walks: opening a run has rules and target too now, whose random combinations are mostly
    # refused (unknown_target, rules of a daily run), so fewer walks open a run to play in (80
    # played 8 cards alone once the public reads' headers came, with the modules they import).
    # Derandomized, on one deal: the same walks on every run of the same session.
    Machine.run(settings=settings(max_examples=100, stateful_step_count=30, deadline=None, database=None,
                                  derandomize=True, suppress_health_check=list(HealthCheck)))
    played = [s for op, s in seen if op == "POST /api/v1/runs/{run_id}/plays"]
    # The chains did reach into games.  How far is not the code's alone: hypothesis mixes into its
    # draws the constants of every module the session imported, so the same walks play 45 cards
    # run alone and 19-26 after other tests; 10 keeps the point (they play) without the draw.
    assert played.count(200) >= 10, seen[:50]
    assert ("POST /api/v1/runs", 201) in seen and {422, 404} <= set(played)
