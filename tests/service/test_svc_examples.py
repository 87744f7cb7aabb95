"""The examples of the API's document (service/api/examples.json, written by
scripts/api_examples.py from real answers): one on every operation's JSON success answer and JSON
request body, each valid against its operation's schema in the served document, and still true:
the same operations driven again answer with the same shape (the same keys, recursively, and the
same JSON types; ids, tokens and times differ)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema_rs
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from api_examples import OUT, collect  # noqa: E402

REGENERATE = "run `python scripts/api_examples.py` and review the change to service/api/examples.json"


@pytest.fixture
def doc(client):
    return client.get("/api/v1/openapi.json").get_json()


def operations(doc):
    return [(f"{method.upper()} {path}", op) for path, item in doc["paths"].items() for method, op in item.items()
            if method in ("get", "post", "put", "patch", "delete")]


def json_media(content: dict) -> dict | None:
    return content.get("application/json")


def test_every_json_answer_and_body_has_an_example(doc):
    missing = []
    for where, op in operations(doc):
        for status, answer in op["responses"].items():
            media = json_media(answer.get("content", {}))
            if status.startswith("2") and media is not None and "example" not in media:
                missing.append(f"{where} ({op['operationId']}): its {status} answer")
        body = json_media(op.get("requestBody", {}).get("content", {}))
        if body is not None and "example" not in body:
            missing.append(f"{where} ({op['operationId']}): its request body")
    assert not missing, f"no example ({REGENERATE}):\n" + "\n".join(missing)


def test_every_example_fits_its_schema(doc):
    wrong, checked = [], 0
    for where, op in operations(doc):
        medias = [("answer " + status, answer.get("content", {})) for status, answer in op["responses"].items()]
        medias.append(("request body", op.get("requestBody", {}).get("content", {})))
        for what, content in medias:
            for media in content.values():
                if "example" not in media:
                    continue
                # the operation's schema, its references resolved against the document's components
                schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                          "components": doc["components"], **media["schema"]}
                errors = [f"{e.instance_path}: {e.message}" for e in
                          jsonschema_rs.validator_for(schema).iter_errors(media["example"])]
                checked += 1
                if errors:
                    wrong.append(f"{where} ({op['operationId']}) {what}: " + "; ".join(errors[:3]))
    assert checked > 100
    assert not wrong, "examples off their schema:\n" + "\n".join(wrong)


def test_a_wrong_example_is_caught(doc):
    """The check above can fail: a board's entry without its rank, a play's turn as text."""
    board = doc["paths"]["/api/v1/leaderboards/days/{period}"]["get"]["responses"]["200"]["content"]["application/json"]
    example = json.loads(json.dumps(board["example"]))
    assert example["entries"], "the day board's example has an entry"
    del example["entries"][0]["rank"]
    schema = {"components": doc["components"], **board["schema"]}
    assert not jsonschema_rs.validator_for(schema).is_valid(example)
    play = doc["paths"]["/api/v1/runs/{run_id}/plays"]["post"]["requestBody"]["content"]["application/json"]
    schema = {"components": doc["components"], **play["schema"]}
    assert jsonschema_rs.validator_for(schema).is_valid(play["example"])
    assert not jsonschema_rs.validator_for(schema).is_valid({**play["example"], "turn": "one"})


def kind(value) -> str:
    """The JSON type of ``value`` (integer and number alike: a mean may come out whole)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", type(None): "null", list: "array", dict: "object"}[type(value)]


def differences(stored, fresh, where: str = "") -> list[str]:
    """Where ``fresh`` does not have ``stored``'s shape, by JSON path: a key gone or new, another
    JSON type (null stands for any: a nullable field is null in one answer and set in another);
    each item of a list like some item of the other, both ways (lists hold two items or fewer)."""
    if stored is None or fresh is None:
        return []
    if kind(stored) != kind(fresh):
        return [f"{where or '.'}: {kind(stored)} in the example, {kind(fresh)} now"]
    if isinstance(stored, dict):
        out = [f"{where}.{k}: {'gone' if k in stored else 'new'}" for k in sorted(set(stored) ^ set(fresh))]
        for k in sorted(set(stored) & set(fresh)):
            out += differences(stored[k], fresh[k], f"{where}.{k}")
        return out
    if isinstance(stored, list):
        if bool(stored) != bool(fresh):
            return [f"{where}[]: {len(stored)} items in the example, {len(fresh)} now"]
        for mine, theirs in ((fresh, stored), (stored, fresh)):
            for item in mine:
                found = [differences(*((other, item) if mine is fresh else (item, other)), f"{where}[]")
                         for other in theirs]
                if all(found):
                    return min(found, key=len)
    return []


def test_differences_name_what_moved():
    stored = {"a": 1, "b": [{"c": "x"}], "d": None, "g": [{"h": None}, {"h": 1}]}
    assert differences(stored, {**stored, "a": 2.5, "b": [{"c": "y"}, {"c": "z"}], "d": [1], "g": [{"h": 2}]}) == []
    assert differences(stored, {"a": "1", "b": [{"c": "x", "e": 1}], "f": 0, "g": []}) == [
        ".d: gone", ".f: new", ".a: number in the example, string now", ".b[].e: new",
        ".g[]: 2 items in the example, 0 now"]
    assert differences(stored, {**stored, "g": [{"h": "1"}]}) == [".g[].h: number in the example, string now"]
    assert differences(stored, {**stored, "b": [{"c": "x"}, {"c": 1}]}) == [".b[].c: string in the example, number now"]


def test_the_examples_are_what_the_service_answers(rclient, redis_server):
    """The driver again, on this session's Redis: every operation answers as its example says."""
    stored = json.loads(OUT.read_text())
    fresh = collect(redis_server.url)
    assert set(fresh) == set(stored), f"operations driven and examples differ ({REGENERATE})"
    assert not moved(stored, fresh), f"answers no longer as their examples ({REGENERATE}):\n" + "\n".join(
        moved(stored, fresh))
    # an example that no longer says what the service answers is caught
    stale = json.loads(json.dumps(stored))
    del stale["getRun"]["response"]["turn"]
    stale["playCard"]["request"]["turn"] = "0"
    stale["createDuel"]["answers"]["200"]["players"] = None
    stale["createDuel"]["answers"]["200"]["expires_at"] = 7
    assert moved(stale, fresh) == ["createDuel answers 200 .expires_at: number in the example, string now",
                                   "getRun response .turn: new",
                                   "playCard request .turn: string in the example, number now"]


def moved(stored: dict, fresh: dict) -> list[str]:
    """Where the answers of ``fresh`` have left the shape of the examples ``stored``."""
    out = []
    for operation in sorted(stored):
        was, now = stored[operation], fresh[operation]
        if was["status"] != now["status"]:
            out.append(f"{operation}: status {was['status']} in the example, {now['status']} now")
        statuses = sorted({*was.get("answers", {}), *now.get("answers", {})})
        for part in ("request", "response", *(f"answers {status}" for status in statuses)):
            before, after = (_part(example, part) for example in (was, now))
            if (before is None) != (after is None):
                out.append(f"{operation}: {part} {'gone' if after is None else 'new'}")
            elif before is not None:
                out += [f"{operation} {part} {d}" for d in differences(before, after)]
    return out


def _part(example: dict, part: str):
    """An example's request, response or ``answers <status>``; None when it has none."""
    if part.startswith("answers "):
        return example.get("answers", {}).get(part.split()[1])
    return example.get(part)
