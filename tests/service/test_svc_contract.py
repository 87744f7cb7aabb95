"""The API's document says what the service does (``service.api.contract``): an operationId on
every operation, every status each answers with its error codes, no catch-all ``default``, the
codes the code raises all in the catalogue, ``servers``; and ``OPTIONS`` answers for the route the
path names.  (That every answer the suite sees is listed: tests/support/contract_check.py.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from service.api import contract
from service.app import create_app

from support.svc_helpers import SECRET

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def app(redis_server):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET})


@pytest.fixture
def doc(app):
    return app.test_client().get("/api/v1/openapi.json").get_json()


def operations(doc):
    return [(path, method, op) for path, item in doc["paths"].items() for method, op in item.items()
            if method in ("get", "post", "put", "patch", "delete")]


def test_every_operation_is_named_and_lists_its_statuses(doc):
    ops = operations(doc)
    ids = [op["operationId"] for _p, _m, op in ops]
    assert len(ids) == len(set(ids)) == len(contract.OPERATIONS)
    assert all(re.fullmatch(r"[a-z][A-Za-z]+", i) for i in ids)
    for path, method, op in ops:
        responses = op["responses"]
        assert "default" not in responses, (method, path)
        assert {"500", "503"} <= set(responses) and any(s.startswith("2") for s in responses), (method, path)
        for status, answer in responses.items():
            if int(status) < 400 or (path, status) == ("/api/v1/health/ready", "503"):
                continue
            codes = answer["x-error-codes"]
            assert codes and all(contract.CODES[c][0] == int(status) for c in codes), (method, path, status)
            assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
            assert all(f"`{c}`" in answer["description"] for c in codes)
        if op.get("requestBody"):
            assert {"400", "413", "415", "422"} <= set(responses), (method, path)
        if "playerToken" in str(op.get("security")):
            assert "invalid_token" in responses["401"]["x-error-codes"], (method, path)
        if "opsToken" in str(op.get("security")):
            assert {"401", "403", "429"} <= set(responses), (method, path)
        if "429" in responses:
            assert "Retry-After" in responses["429"]["headers"], (method, path)


def test_the_limited_routes_document_their_limits(doc):
    create = doc["paths"]["/api/v1/runs"]["post"]["responses"]
    assert set(create["429"]["headers"]) == {"Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"}
    assert "RateLimit-Remaining" in create["201"]["headers"]
    leagues = doc["paths"]["/api/v1/leagues"]["post"]["responses"]
    assert "RateLimit-Limit" in leagues["429"]["headers"] and "RateLimit-Limit" in leagues["201"]["headers"]


def test_the_error_schema_names_every_detail(doc):
    error = doc["components"]["schemas"]["Error"]
    assert error["properties"]["error"]["type"] == "string"
    assert {"limit", "retry_after", "character", "fields", "reveal_at", "legal", "allowed"} <= set(error["properties"])
    assert error["properties"]["allowed"]["items"] != {}


def _raised_codes() -> set[str]:
    """Every literal code= the service's code raises, and the codes built from a prefix."""
    found = set()
    for path in [*(ROOT / "service").rglob("*.py"), *(ROOT / "analysis").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.keyword) and node.arg == "code":
                if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                    found.add(node.value.value)
                elif isinstance(node.value, ast.JoinedStr):  # f"{prefix}_too_long", f"unknown_{kind}"
                    tail = "".join(p.value for p in node.value.values if isinstance(p, ast.Constant))
                    matches = [c for c in contract.CODES if c.endswith(tail) or c.startswith(tail)]
                    assert matches, f"{path}: no code in the catalogue is made like {ast.unparse(node.value)}"
    return found


def test_every_code_raised_is_in_the_catalogue_and_some_operation():
    raised = _raised_codes()
    assert raised - set(contract.CODES) == set()
    listed = {c for op in contract.OPERATIONS.values() for codes in op.errors.values() for c in codes}
    listed |= {*contract.EVERYWHERE, *contract.BODY, *contract.OPS, *contract.PLAYER_TOKEN, "not_found"}
    assert raised - listed == set(), "raised, yet no operation lists it"


def test_servers_is_the_public_url(redis_server):
    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_PUBLIC_URL": "https://manille.example"})
    assert app.test_client().get("/api/v1/openapi.json").get_json()["servers"][0]["url"] == "https://manille.example"


def test_options_lists_the_methods_of_the_route_the_path_names(app, doc):
    client = app.test_client()
    r = client.open("/api/v1/leagues/join", method="OPTIONS")
    assert r.status_code == 204 and r.headers["Allow"] == "OPTIONS, POST" and r.data == b""
    assert "Content-Type" not in r.headers and r.headers["X-Content-Type-Options"] == "nosniff"
    for path, item in doc["paths"].items():
        concrete = re.sub(r"\{[^}]+\}", "x", path)
        if "{kind}" in path:
            concrete = path.replace("{kind}", "weeks" if "matchpoints" not in path else "days")
            concrete = re.sub(r"\{[^}]+\}", "1", concrete)
        elif "{deal}" in path:
            concrete = re.sub(r"\{[^}]+\}", "1", path)
        documented = {m.upper() for m in item if m != "parameters"}
        allow = set(client.open(concrete, method="OPTIONS").headers["Allow"].split(", "))
        assert allow - {"HEAD", "OPTIONS"} == documented, (path, allow)
    assert client.open("/api/v1/nothing-here", method="OPTIONS").get_json()["error"] == "not_found"


def test_the_docs_table_of_errors_is_the_catalogue():
    text = (ROOT / "docs" / "api.md").read_text()
    table = text[text.index("| status | codes |"):]
    table = table[:table.index("\n\n")]
    rows = {int(m[1]): re.findall(r"`([a-z_]+)`", m[2]) for m in re.finditer(r"^\| (\d+) \| (.*) \|$", table, re.M)}
    by_status: dict[int, list[str]] = {}
    for code, (status, _meaning) in contract.CODES.items():
        by_status.setdefault(status, []).append(code)
    assert rows == by_status


def test_a_path_named_by_one_route_is_405_for_the_methods_of_another(app):
    """A path a route without a variable names is that route's, even where a route with a variable
    (``/leagues/{league_id}``, ``/players/{nickname}``) would also match it."""
    client = app.test_client()
    for method, path, allow in [("GET", "/api/v1/leagues/join", "OPTIONS, POST"),
                                ("DELETE", "/api/v1/leagues/join", "OPTIONS, POST"),
                                ("GET", "/api/v1/players/me/links", "OPTIONS, POST"),
                                ("GET", "/api/v1/players/passkeys/sign-in/options", "OPTIONS, POST"),
                                ("GET", "/api/v1/players/me/devices/d1", "DELETE, OPTIONS")]:
        r = client.open(path, method=method)
        assert r.status_code == 405 and r.get_json()["error"] == "method_not_allowed", (method, path)
        assert r.headers["Allow"] == allow, (method, path)
    r = client.get("/api/v1/players/somebody")
    assert r.status_code == 404 and r.get_json()["error"] == "unknown_player"


def test_no_path_value_is_a_server_error(redis_server, rclient):
    """Every operation, its path's variables each an odd value (a digit, a dot, a space, a long
    one), with the right token and a body of ``{}``: refused or answered, never a 5xx."""
    from support.svc_helpers import OPS, OPS_TOKENS

    app = create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                      "MANILLE_OPS_TOKENS": OPS_TOKENS})
    client = app.test_client()
    token = client.post("/api/v1/runs", json={"kind": "random"}).get_json()["player_token"]
    doc = client.get("/api/v1/openapi.json").get_json()
    for path, method, op in operations(doc):
        if "{" not in path:
            continue
        headers = {"Authorization": f"Bearer {OPS}"} if "/ops/" in path else {"X-Player-Token": token}
        for odd in ("0", "a.b", "x y", "z" * 300, "é"):
            concrete = re.sub(r"\{[^}]+\}", odd, path)
            r = client.open(concrete, method=method.upper(), headers=headers,
                            json={} if op.get("requestBody") else None)
            assert r.status_code < 500, (method, concrete, r.get_json())


#: A route a page names in full: ``METHOD /path`` in backticks (``{a,b}`` names each of a and b).
NAMED_ROUTE = re.compile(r"`(GET|POST|PUT|PATCH|DELETE) (/[^`\s?]*)")


def named_routes(text: str) -> set[tuple[str, str]]:
    """The routes ``text`` names, each variable written ``{}``."""
    out = set()
    for method, path in NAMED_ROUTE.findall(text):
        path = path.removeprefix("/api/v1").rstrip(".,;:")
        choices = re.search(r"\{([a-z-]+(?:,[a-z-]+)+)\}", path)
        for choice in (choices[1].split(",") if choices else [None]):
            concrete = path.replace(choices[0], choice) if choice else path
            out.add((method, re.sub(r"\{[^}]*\}", "{}", concrete)))
    return out


def test_the_pages_name_every_route_and_only_routes(app, doc):
    """docs/api.md (a client's routes) and docs/operations.md (the ops API) name every operation of
    the document in full, and every route they name is one."""
    routes = {(method.upper(), re.sub(r"\{[^}]*\}", "{}", path.removeprefix("/api/v1")))
              for path, method, _op in operations(doc)}
    # a {kind} the document spells as a variable is days, weeks or months on the pages
    routes = {(m, p.replace("/leaderboards/{}/{}", "/leaderboards/weeks/{}")) for m, p in routes} | \
             {(m, p.replace("/leaderboards/{}/{}", f"/leaderboards/{kind}/{{}}")) for m, p in routes
              for kind in ("days", "weeks", "months") if "/leaderboards/{}/{}" in p}
    pages = [(ROOT / "docs" / name).read_text() for name in ("api.md", "operations.md")]
    named = set().union(*map(named_routes, pages))
    assert {r for r in routes if "/leaderboards/{}/{}" not in r[1]} - named == set(), "routes no page names"
    outside = {(m, re.sub(r"<[^>]*>", "{}", rule.rule)) for rule in app.url_map.iter_rules() for m in rule.methods
               if not rule.rule.startswith("/api/")}  # /metrics, the pages
    assert named - routes - outside == set(), "pages name routes that do not exist"


def test_the_route_check_sees_a_planted_name():
    assert named_routes("see `GET /leaderboards/{days,weeks}/{period}/matchpoints` and `POST /runs/{id}/plays`") == {
        ("GET", "/leaderboards/days/{}/matchpoints"), ("GET", "/leaderboards/weeks/{}/matchpoints"),
        ("POST", "/runs/{}/plays")}
    assert ("GET", "/runs/{}/nowhere") in named_routes("`GET /runs/{id}/nowhere`")
