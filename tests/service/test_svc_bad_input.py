"""Bad input everywhere: a JSON error with a stable code, nothing stored, nothing lost."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.svc_helpers import SECRET, err, headers, snapshot


@pytest.fixture
def opened(client):
    r = client.post("/api/v1/runs", json={})
    assert r.status_code == 201
    run = r.get_json()
    return run, run.pop("player_token")


def play_until_illegal_exists(client, run, token):
    while set(run["view"]["hand"]) == set(run["view"]["legal"]):
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays",
                        json={"turn": run["turn"], "card": run["view"]["legal"][0]}, headers=headers(token))
        run = r.get_json()
        assert run["status"] == "playing"
    return run


def test_play_errors_store_nothing(client, rclient, opened):
    run, token = opened
    run = play_until_illegal_exists(client, run, token)
    url, h = f"/api/v1/runs/{run['run_id']}/plays", headers(token)
    before = snapshot(rclient)
    illegal = sorted(set(run["view"]["hand"]) - set(run["view"]["legal"]))[0]
    body = err(client.post(url, json={"turn": run["turn"], "card": illegal}, headers=h), 422, "illegal_card")
    assert body["obligation"] in {"must_follow_suit", "must_beat", "must_trump", "must_overtrump"}
    assert sorted(body["legal"]) == sorted(run["view"]["legal"]) and body["card"] == illegal
    not_held = sorted({f"{r}{s}" for r in "789JQKAT" for s in "CDHS"} - set(run["view"]["hand"])
                      - {p["card"] for t in run["view"]["tricks"] for p in t["plays"]}
                      - {p["card"] for p in run["view"]["trick"]["plays"]})[0]
    body = err(client.post(url, json={"turn": run["turn"], "card": not_held}, headers=h), 422, "illegal_card")
    assert body["obligation"] == "not_in_hand"
    err(client.post(url, json={"turn": run["turn"], "card": "ZZ"}, headers=h), 422, "unknown_card")
    err(client.post(url, json={"turn": run["turn"], "card": "1" * 16}, headers=h), 422, "unknown_card")
    err(client.post(url, json={"turn": run["turn"] + 1, "card": run["view"]["legal"][0]}, headers=h),
        409, "wrong_turn")
    err(client.post(url, json={"turn": 0, "card": "XX"}, headers=h), 422, "unknown_card")
    err(client.post(url, data="{not json", content_type="application/json", headers=h), 400, "malformed_json")
    err(client.post(url, data="[1, 2]", content_type="application/json", headers=h), 422, "validation_error")
    body = err(client.post(url, json={"turn": "1", "card": "TH"}, headers=h), 422, "validation_error")
    assert "turn" in body["fields"]
    body = err(client.post(url, json={"turn": 0, "card": "TH", "extra": 1}, headers=h), 422, "validation_error")
    assert "extra" in body["fields"]
    err(client.post(url, json={"turn": 0}, headers=h), 422, "validation_error")
    err(client.post(url, json={"turn": -1, "card": "TH"}, headers=h), 422, "validation_error")
    err(client.post(url, data="x" * 20000, content_type="application/json", headers=h), 413, "body_too_large")
    err(client.post(url, json={"turn": run["turn"], "card": run["view"]["legal"][0]}), 401, "invalid_token")
    err(client.post(url, json={"turn": run["turn"], "card": run["view"]["legal"][0]},
                    headers=headers("A" * 32)), 401, "invalid_token")
    err(client.post(url, json={"turn": run["turn"], "card": run["view"]["legal"][0]},
                    headers=headers("bad token!")), 401, "invalid_token")
    err(client.post("/api/v1/runs/nope/plays", json={"turn": 0, "card": "TH"}, headers=h), 404, "run_not_found")
    err(client.get(url, headers=h), 405, "method_not_allowed")
    err(client.get("/api/v1/nowhere"), 404, "not_found")
    assert snapshot(rclient) == before
    # and the run plays on from where it was
    r = client.post(url, json={"turn": run["turn"], "card": run["view"]["legal"][0]}, headers=h)
    assert r.status_code == 200 and r.get_json()["turn"] == run["turn"] + 1


def test_foreign_run_is_not_found(client, rclient, opened):
    run, token = opened
    other = client.post("/api/v1/runs", json={}).get_json()["player_token"]
    before = snapshot(rclient)
    err(client.get(f"/api/v1/runs/{run['run_id']}", headers=headers(other)), 404, "run_not_found")
    err(client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": 0, "card": run["view"]["legal"][0]},
                    headers=headers(other)), 404, "run_not_found")
    err(client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "thief"},
                    headers=headers(other)), 404, "run_not_found")
    assert snapshot(rclient) == before


def test_retried_play_is_answered_again_not_played_twice(client, opened):
    run, token = opened
    url, h = f"/api/v1/runs/{run['run_id']}/plays", headers(token)
    body = {"turn": 0, "card": run["view"]["legal"][0]}
    first = client.post(url, json=body, headers=h).get_json()
    second = client.post(url, json=body, headers=h).get_json()
    assert first == second and first["turn"] == 1
    assert first["events"][0] == {"type": "play", "seat": 0, "card": body["card"]}
    other = [c for c in run["view"]["hand"] if c != body["card"]][0]
    err(client.post(url, json={"turn": 0, "card": other}, headers=h), 409, "wrong_turn")


def test_dates(client, rclient):
    before = snapshot(rclient)
    err(client.get("/api/v1/challenges/2999-01-01"), 404, "unknown_date")
    err(client.get("/api/v1/challenges/2026-02-30"), 404, "unknown_date")
    err(client.get("/api/v1/challenges/yesterday"), 404, "unknown_date")
    err(client.post("/api/v1/runs", json={"date": "2999-01-01"}), 404, "unknown_date")
    err(client.post("/api/v1/runs", json={"date": "12/02/2026"}), 422, "validation_error")  # a body's field
    err(client.post("/api/v1/runs", json={"date": "0999-12-31"}), 404, "unknown_date")  # a day, with no challenge
    err(client.post("/api/v1/runs", json={"date": "2026-13-01"}), 422, "validation_error")
    for day in ("0001-01-01", "1999-12-31", "9999-12-31"):  # outside the service's days: no 500
        for path in (f"/api/v1/challenges/{day}", f"/api/v1/leaderboards/days/{day}",
                     f"/api/v1/leaderboards/days/{day}/histogram", f"/api/v1/leaderboards/days/{day}/me"):
            err(client.get(path), 404, "unknown_date")
    err(client.get("/api/v1/leaderboards/weeks/0001-W01"), 404, "unknown_period")
    err(client.get("/api/v1/leaderboards/months/0000-01"), 404, "unknown_period")
    err(client.get("/api/v1/leaderboards/days/2999-01-01"), 404, "unknown_date")
    err(client.get("/api/v1/leaderboards/weeks/2026-W54"), 404, "unknown_period")
    err(client.get("/api/v1/leaderboards/months/2026-13"), 404, "unknown_period")
    err(client.get("/api/v1/leaderboards/all-time?limit=1000"), 422, "validation_error")
    err(client.get("/api/v1/leaderboards/all-time?offset=-1"), 422, "validation_error")
    err(client.get("/api/v1/submissions/nope"), 404, "submission_not_found")
    err(client.get("/api/v1/submissions/20261202-00-" + "0" * 28), 404, "submission_not_found")
    # a refused request issued no token either
    assert snapshot(rclient) == before


def finish(client, run, token):
    while run["status"] != "finished":
        run = client.post(f"/api/v1/runs/{run['run_id']}/plays",
                          json={"turn": run["turn"], "card": run["view"]["legal"][0]},
                          headers=headers(token)).get_json()
    return run


@pytest.mark.parametrize("nickname, code", [
    ("", "nickname_empty"), ("   ", "nickname_empty"), ("x" * 25, "nickname_too_long"),
    ("bad\x00name", "nickname_control"), ("tab\there", "nickname_control"), ("new\nline", "nickname_control"),
    ("zero\u200bwidth", "nickname_invisible"), ("rtl\u202emark", "nickname_invisible")])
def test_bad_nicknames(client, rclient, opened, nickname, code):
    run, token = opened
    run = finish(client, run, token)
    before = snapshot(rclient)
    err(client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                    headers=headers(token)), 422, code)
    assert snapshot(rclient) == before


def test_submission_rules(client, rclient, opened, run_worker):
    run, token = opened
    h = headers(token)
    before = snapshot(rclient)
    err(client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "early"}, headers=h),
        409, "run_not_finished")
    assert snapshot(rclient) == before  # a refused submission claims no nickname either
    err(client.post("/api/v1/submissions", json={"run_id": run["run_id"]}, headers=h), 422, "validation_error")
    err(client.post("/api/v1/submissions", data="nope", content_type="application/json", headers=h),
        400, "malformed_json")
    run = finish(client, run, token)
    err(client.post(f"/api/v1/runs/{run['run_id']}/plays", json={"turn": run["turn"], "card": "TH"}, headers=h),
        409, "run_finished")
    # a nickname belongs to the token that claimed it (case and width folded)
    other_run = client.post("/api/v1/runs", json={}).get_json()
    other = other_run.pop("player_token")
    other_run = finish(client, other_run, other)
    assert client.post("/api/v1/submissions", json={"run_id": other_run["run_id"], "nickname": "Ｍarie"},
                       headers=headers(other)).status_code == 202
    before = snapshot(rclient)
    err(client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "MARIE"}, headers=h),
        409, "nickname_taken")
    assert snapshot(rclient) == before
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Paul"}, headers=h)
    assert r.status_code == 202
    run_worker()
    assert client.get(r.get_json()["status_url"]).get_json()["status"] == "verified"


def test_retried_first_play_when_the_player_leads_is_answered_exactly_again(client):
    """Seat 0 leads the first trick when seat 3 deals: the retried answer must not gain the
    deal_start event that only opening the run narrates."""
    from datetime import date, timedelta

    from service.replay import first_dealer
    from service.seeds import daily_seed

    day = date(2026, 1, 1)
    while first_dealer(daily_seed(SECRET.encode(), day)) != 3:
        day -= timedelta(days=1)
    r = client.post("/api/v1/runs", json={"date": day.isoformat()})
    assert r.status_code == 201
    run = r.get_json()
    assert run["ranked"] is False and run["view"]["trick"]["plays"] == []  # a practice run, seat 0 leads
    url, h = f"/api/v1/runs/{run['run_id']}/plays", headers(run["player_token"])
    body = {"turn": 0, "card": run["view"]["legal"][0]}
    first = client.post(url, json=body, headers=h).get_json()
    second = client.post(url, json=body, headers=h).get_json()
    assert first == second and first["events"][0] == {"type": "play", "seat": 0, "card": body["card"]}


def test_bodies_json_cannot_hold_are_malformed_not_500(client, rclient):
    run = client.post("/api/v1/runs", json={}).get_json()
    hdrs = {"X-Player-Token": run["player_token"], "Content-Type": "application/json"}
    before = snapshot(rclient)
    deep = "[" * 7000 + "]" * 7000  # within the size limit, beyond what json nests
    err(client.post("/api/v1/runs", data=deep, headers=hdrs), 400, "malformed_json")
    err(client.post("/api/v1/submissions", data='{"run_id": ' + deep + "}", headers=hdrs), 400, "malformed_json")
    huge = '{"turn": ' + "9" * 5000 + ', "card": "TS"}'  # beyond Python's integer conversion limit
    err(client.post(f"/api/v1/runs/{run['run_id']}/plays", data=huge, headers=hdrs), 400, "malformed_json")
    assert snapshot(rclient) == before


def test_a_body_is_plain_json_or_refused_with_415(client, rclient, opened):
    """A body in another media type used to be read as "no fields" (422 for fields it did send);
    a compressed one would be parsed as text.  Both are 415, and change nothing."""
    run, token = opened
    url, h = f"/api/v1/runs/{run['run_id']}/plays", headers(token)
    body = '{"turn": %d, "card": "%s"}' % (run["turn"], run["view"]["legal"][0])
    before = snapshot(rclient)
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                  "application/xml", None):
        r = client.post(url, data=body, headers={**h, **({"Content-Type": ctype} if ctype else {})})
        err(r, 415, "unsupported_media_type")
    for encoding in ("gzip", "deflate", "br"):
        err(client.post(url, data=body, headers={**h, "Content-Type": "application/json",
                                                   "Content-Encoding": encoding}), 415, "unsupported_encoding")
    err(client.post("/api/v1/runs", data="kind=random", content_type="application/x-www-form-urlencoded"),
        415, "unsupported_media_type")
    err(client.post("/api/v1/submissions", data=b"\xff\xfe{", headers=h, content_type="application/json"),
        400, "malformed_json")  # not UTF-8
    assert snapshot(rclient) == before
    # the same body as JSON, with a charset or a +json type, is played
    r = client.post(url, data=body, headers={**h, "Content-Type": "application/json; charset=utf-8"})
    assert r.status_code == 200, r.get_json()


@pytest.mark.parametrize("field,value", [
    ("turn", -1), ("turn", 1e308), ("turn", 10.5), ("turn", "0"), ("turn", True), ("turn", None), ("turn", [0]),
    ("turn", 10_001), ("card", None), ("card", ["TH"]), ("card", {"rank": "T"}), ("card", 7), ("card", ""),
    ("card", "T\u0000"), ("card", "x" * 17), ("card", "Tſ"),
])
def test_play_fields_of_the_wrong_type_or_range_are_422(client, rclient, opened, field, value):
    run, token = opened
    body = {"turn": run["turn"], "card": run["view"]["legal"][0], field: value}
    before = snapshot(rclient)
    r = client.post(f"/api/v1/runs/{run['run_id']}/plays", json=body, headers=headers(token))
    assert r.status_code == 422 and r.get_json()["error"] in {"validation_error", "unknown_card"}, r.get_json()
    assert snapshot(rclient) == before


def test_huge_and_control_filled_fields_are_422(client, rclient, opened):
    run, token = opened
    run = finish(client, run, token)
    before = snapshot(rclient)
    for nickname in ("n" * 10_000, "\x00" * 200, "a\x07b", "é" * 2000):
        r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                        headers=headers(token))
        assert r.status_code == 422, r.get_json()
    err(client.post("/api/v1/submissions", json={"run_id": "r" * 10_000, "nickname": "ok"}, headers=headers(token)),
        422, "validation_error")
    err(client.post("/api/v1/runs", json={"date": "2026-01-0\x00"}), 422, "validation_error")
    err(client.get("/api/v1/challenges/2026-01-0%00"), 404, "unknown_date")
    err(client.get("/api/v1/runs/%00%ff", headers=headers(token)), 404, "run_not_found")
    assert snapshot(rclient) == before


POSTS = ["/api/v1/runs", "/api/v1/runs/{run}/plays", "/api/v1/submissions"]
JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                       lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                           st.sampled_from(["turn", "card", "run_id", "nickname", "kind", "date", "x"]) | st.text(max_size=8),
                           inner, max_size=4), max_leaves=10)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(path=st.sampled_from(POSTS),
       body=st.binary(max_size=64) | JSONISH.map(lambda v: json.dumps(v).encode()),
       ctype=st.sampled_from(["application/json", "application/json; charset=latin-1", "text/plain",
                              "application/problem+json", "", "application/x-www-form-urlencoded"]))
def test_any_body_is_answered_in_the_envelope_and_a_refusal_stores_nothing(app, rclient, path, body, ctype):
    client = app.test_client()
    run = client.post("/api/v1/runs", json={"kind": "random"}).get_json()
    h = {"X-Player-Token": run["player_token"], **({"Content-Type": ctype} if ctype else {})}
    before = snapshot(rclient)
    r = client.post(path.format(run=run["run_id"]), data=body, headers=h)
    assert r.status_code < 500, r.get_data()
    if r.status_code >= 400:
        out = r.get_json()
        assert r.is_json and isinstance(out["error"], str) and isinstance(out["message"], str), r.get_data()
        assert snapshot(rclient) == before, (r.status_code, out)
