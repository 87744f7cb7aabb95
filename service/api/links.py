"""OpenAPI links: how an answer's fields feed the next request (a run's id and turn into its
next play, a submission's id into its status).  Clients read them to chain calls; the stateful
fuzzing follows them to reach deep into a game instead of guessing ids."""

from __future__ import annotations

API = "/api/v1"


def _ref(method: str, path: str) -> str:
    return "#/paths/" + (API + path).replace("~", "~0").replace("/", "~1") + "/" + method


def link(method: str, path: str, description: str, *, parameters: dict | None = None,
         body: dict | None = None) -> dict:
    out = {"operationRef": _ref(method, path), "description": description}
    if parameters:
        out["parameters"] = parameters
    if body:
        out["requestBody"] = body
    return out


def responds(status: int, **links: dict) -> dict:
    """For ``@blp.doc(**responds(201, Name=link(...)))``: links added to a documented response."""
    return {"responses": {status: {"links": links}}}


def run_links(run_id: str) -> dict:
    """From any answer that carries a run: see it, play its first legal card, submit it."""
    return {
        "GetRun": link("get", "/runs/{run_id}", "the run again", parameters={"run_id": run_id}),
        "PlayFirstLegal": link("post", "/runs/{run_id}/plays", "play the first legal card at this turn",
                               parameters={"run_id": run_id},
                               body={"turn": "$response.body#/turn", "card": "$response.body#/view/legal/0"}),
        "CallFirstLegal": link("post", "/runs/{run_id}/plays",
                               "say the first legal call at this turn (rules with an auction, during one)",
                               parameters={"run_id": run_id},
                               body={"turn": "$response.body#/turn", "call": "$response.body#/view/legal_calls/0"}),
        "GetRecord": link("get", "/runs/{run_id}/record", "its record, once finished and public",
                          parameters={"run_id": run_id}),
        "Submit": link("post", "/submissions", "submit it once finished (ranked runs)",
                       body={"run_id": "$response.body#/run_id", "nickname": "fuzz"}),
    }
