"""The operator's desk on a real Redis and the worker's jobs: a player's case, a restriction that
takes every game of the player off every board and tells them why, lifted or lapsed; reports and
appeals reaching ops' lists, an appeal answered by another operator; the audit log's filters and
paging; operators' roles; the 429 on wrong ops tokens; the desk from the command line."""

from __future__ import annotations

import json
import os
from datetime import date, timedelta

import pytest

from cli.main import main as manille
from service.app import create_app
from service.config import Settings
from service.leaderboard import ALL_TIME, Leaderboard, day_board
from service.leaderboard.keys import Board
from service.ops import Ops
from service.ops.player import PlayerDesk
from service.store import month_id, week_id
from service.verification import verify_submission

from support.svc_helpers import OPS, OPS_OTHER, OPS_TOKENS, SECRET, TEST_BOTS, headers

#: A reviewer beside the two deciders of the service tests.
REVIEWER = "ops-token-of-rita-the-reviewer-for-tests"
TOKENS = f"{OPS_TOKENS}\nrita {REVIEWER} reviewer"


def app_client(redis_server, **extra):
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, "MANILLE_OPS_TOKENS": TOKENS,
                       "MANILLE_LIMIT_RANKED_RUNS": "off", **extra}).test_client()


@pytest.fixture
def desk(redis_server, rclient):
    return app_client(redis_server)


def ops(token=OPS):
    return {"Authorization": f"Bearer {token}"}


def game(client, run_worker, addr, nickname, pick=lambda legal: legal[0], submit=True, verify=True):
    """A whole ranked game from ``addr``; (token, the finished run, its submission id or None)."""
    r = client.post("/api/v1/runs", json={}, environ_base={"REMOTE_ADDR": addr},
                    headers={"User-Agent": f"agent-of-{nickname}"})
    assert r.status_code == 201, r.get_json()
    run = r.get_json()
    token = run["player_token"]
    while run["status"] != "finished":
        r = client.post(f"/api/v1/runs/{run['run_id']}/plays",
                        json={"turn": run["turn"], "card": pick(run["view"]["legal"])},
                        headers=headers(token), environ_base={"REMOTE_ADDR": addr})
        assert r.status_code == 200, r.get_json()
        run = r.get_json()
    if not submit:
        return token, run, None
    r = client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                    headers={**headers(token), "User-Agent": f"agent-of-{nickname}"},
                    environ_base={"REMOTE_ADDR": addr})
    assert r.status_code == 202, r.get_json()
    if verify:
        run_worker()
    return token, run, r.get_json()["submission_id"]


def boards_of(day: date):
    return [day_board(day), ALL_TIME, Board("week", week_id(day)), Board("month", month_id(day))]


def on_boards(rclient, day: date, pid: str) -> list[bool]:
    lb = Leaderboard(rclient)
    return [lb.rank_of(b, pid) is not None for b in boards_of(day)]


def test_a_restricted_player_leaves_every_board_sees_why_and_comes_back_when_lifted(desk, run_worker, rclient):
    token, run, sub_id = game(desk, run_worker, "10.7.0.1", "Suspect", lambda legal: legal[-1])
    _, _, honest_id = game(desk, run_worker, "10.7.0.2", "Honest")
    day = date.fromisoformat(run["date"])
    me = desk.get("/api/v1/players/me", headers=headers(token)).get_json()
    pid = me["player"]
    assert me["restricted"] is None and all(on_boards(rclient, day, pid))
    case = desk.get(f"/api/v1/ops/players/{pid}", headers=ops()).get_json()
    assert [g["submission_id"] for g in case["games"]] == [sub_id] and case["games"][0]["status"] == "verified"
    assert case["addresses"][0]["address"] == "10.7.0.1" and case["user_agents"][0]["user_agent"] == "agent-of-Suspect"
    # by nickname too
    assert desk.get("/api/v1/ops/players/Suspect", headers=ops()).get_json()["player"] == pid
    assert desk.get("/api/v1/ops/players/nobody-at-all", headers=ops()).status_code == 404

    r = desk.post(f"/api/v1/ops/players/{pid}/restrict", json={"reason": "played with the hands known", "days": 30},
                  headers=ops())
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["restricted"]["by"].startswith("tess@") and r.get_json()["caches_catch_up_at"]
    assert not any(on_boards(rclient, day, pid))
    assert Leaderboard(rclient).total(day_board(day)) == 1  # the honest game stays, ranked first
    assert desk.get(f"/api/v1/submissions/{honest_id}").get_json()["rank"] == 1
    status = desk.get(f"/api/v1/submissions/{sub_id}").get_json()
    assert status["status"] == "restricted" and status["rank"] is None
    me = desk.get("/api/v1/players/me", headers=headers(token)).get_json()
    assert me["restricted"]["reason"] == "played with the hands known" and me["restricted"]["appeal"] is None
    assert date.fromisoformat(me["restricted"]["until"][:10]) >= day + timedelta(days=29)
    # a re-verification and a day's rebuild keep it off
    verify_submission(Settings.from_env(os.environ), rclient, sub_id)
    desk.post(f"/api/v1/ops/days/{day.isoformat()}/rebuild", json={}, headers=ops())
    run_worker()
    assert not any(on_boards(rclient, day, pid))

    r = desk.post(f"/api/v1/ops/players/{pid}/lift", json={"reason": "cleared"}, headers=ops(OPS_OTHER))
    assert r.status_code == 200 and r.get_json()["restricted"] is None
    assert all(on_boards(rclient, day, pid))
    assert desk.get(f"/api/v1/submissions/{sub_id}").get_json()["status"] == "verified"
    assert desk.get("/api/v1/players/me", headers=headers(token)).get_json()["restricted"] is None
    again = desk.post(f"/api/v1/ops/players/{pid}/lift", json={}, headers=ops())
    assert again.status_code == 409 and again.get_json()["error"] == "not_restricted"
    actions = [(e["action"], e["target"]) for e in desk.get("/api/v1/ops/audit?target=" + pid,
                                                            headers=ops()).get_json()["entries"]]
    assert actions == [("lift", pid), ("restrict", pid)]


def test_a_restricted_players_new_game_is_verified_not_ranked_and_the_restriction_lapses(desk, run_worker,
                                                                                        rclient):
    token, run, _ = game(desk, run_worker, "10.8.0.1", "Late", submit=False)
    pid = desk.get("/api/v1/players/me", headers=headers(token)).get_json()["player"]
    r = desk.post(f"/api/v1/ops/players/{pid}/restrict", json={"reason": "alt of a cheat", "days": 2}, headers=ops())
    assert r.status_code == 200 and r.get_json()["caches_catch_up_at"] is None  # nothing was on a board
    r = desk.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": "Late"}, headers=headers(token))
    sub_id = r.get_json()["submission_id"]
    run_worker()
    day = date.fromisoformat(run["date"])
    status = desk.get(f"/api/v1/submissions/{sub_id}").get_json()
    assert status["status"] == "restricted" and status["score"] is not None and status["rank"] is None
    assert not any(on_boards(rclient, day, pid))
    settings = Settings.from_env(os.environ)
    office = PlayerDesk(Ops(rclient, settings))
    assert office.lapse(settings.now()) == []  # not yet
    assert office.lapse(settings.now() + timedelta(days=2, seconds=1)) == [pid]
    assert all(on_boards(rclient, day, pid))
    entry = desk.get("/api/v1/ops/audit?action=restriction_lapsed", headers=ops()).get_json()["entries"][0]
    assert entry["target"] == pid and entry["who"] == "manille@worker"


def test_reports_reach_ops_once_per_player_and_game_limited_per_address(redis_server, rclient, run_worker):
    client = app_client(redis_server, MANILLE_LIMIT_REPORTS_PER_ADDRESS="2 per hour")
    owner, _, sub_id = game(client, run_worker, "10.9.0.1", "Reported")
    reporters = [game(client, run_worker, "10.9.0.2", f"Watcher{i}", submit=False)[0] for i in range(3)]
    r = client.post("/api/v1/reports", json={"submission_id": sub_id, "reason": "too good"},
                    headers=headers(reporters[0]), environ_base={"REMOTE_ADDR": "10.9.0.2"})
    assert r.status_code == 201, r.get_json()
    again = client.post("/api/v1/reports", json={"submission_id": sub_id, "reason": "really"},
                        headers=headers(reporters[0]), environ_base={"REMOTE_ADDR": "10.9.0.3"})
    assert again.status_code == 409 and again.get_json()["error"] == "already_reported"
    own = client.post("/api/v1/reports", json={"submission_id": sub_id, "reason": "me"}, headers=headers(owner))
    assert own.status_code == 422 and own.get_json()["error"] == "own_game"
    missing = client.post("/api/v1/reports", json={"submission_id": "20261207-03-" + "0" * 28, "reason": "x"},
                          headers=headers(reporters[1]))
    assert missing.status_code == 404
    assert client.post("/api/v1/reports", json={"submission_id": sub_id, "reason": "x"}).status_code == 401
    r = client.post("/api/v1/reports", json={"submission_id": sub_id, "reason": "same line as yesterday"},
                    headers=headers(reporters[1]), environ_base={"REMOTE_ADDR": "10.9.0.2"})
    assert r.status_code == 201
    limited = client.post("/api/v1/reports", json={"submission_id": sub_id, "reason": "me too"},
                          headers=headers(reporters[2]), environ_base={"REMOTE_ADDR": "10.9.0.2"})
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) > 0
    listed = client.get("/api/v1/ops/reports", headers=ops(REVIEWER)).get_json()
    assert listed["total"] == 2 and [x["reason"] for x in listed["reports"]] == ["same line as yesterday", "too good"]
    first = listed["reports"][0]
    assert first["reports_on_game"] == 2 and first["game"]["submission_id"] == sub_id
    assert first["game"]["status"] == "verified" and isinstance(first["game"]["flags"], list)
    pid = first["player"]
    assert len(client.get(f"/api/v1/ops/players/{pid}", headers=ops()).get_json()["reports"]) == 2
    assert client.get("/api/v1/ops/reports?page=2", headers=ops()).status_code == 422


def test_an_appeal_is_answered_by_another_operator_and_the_player_reads_it(desk, run_worker, rclient):
    token, run, sub_id = game(desk, run_worker, "10.10.0.1", "Appellant")
    pid = desk.get("/api/v1/players/me", headers=headers(token)).get_json()["player"]
    nothing = desk.post("/api/v1/appeals", json={"text": "why?"}, headers=headers(token))
    assert nothing.status_code == 409 and nothing.get_json()["error"] == "nothing_to_appeal"
    # a disqualification with the reason ops give the player
    r = desk.post(f"/api/v1/ops/submissions/{sub_id}/disqualify",
                  json={"reason": "private: matches a known solver line", "public_reason": "fair-play review"},
                  headers=ops())
    assert r.status_code == 200 and r.get_json()["public_reason"] == "fair-play review"
    reason = desk.get(f"/api/v1/submissions/{sub_id}").get_json()["reason"]
    assert reason == {"code": "disqualified", "message": "fair-play review"}
    r = desk.post("/api/v1/appeals", json={"text": "I played it myself"}, headers=headers(token))
    assert r.status_code == 201, r.get_json()
    appeal = r.get_json()
    assert appeal["kind"] == "disqualification" and appeal["submission_id"] == sub_id and appeal["status"] == "open"
    assert "decided_by" not in appeal
    second = desk.post("/api/v1/appeals", json={"text": "again"}, headers=headers(token))
    assert second.status_code == 409 and second.get_json()["error"] == "appeal_open"
    listed = desk.get("/api/v1/ops/appeals?status=open", headers=ops()).get_json()["appeals"]
    assert [a["appeal_id"] for a in listed] == [appeal["appeal_id"]]
    assert listed[0]["decided_by"].startswith("tess@") and listed[0]["game"]["status"] == "disqualified"
    path = f"/api/v1/ops/appeals/{appeal['appeal_id']}/answer"
    same = desk.post(path, json={"decision": "granted", "text": "ok"}, headers=ops())
    assert same.status_code == 403 and same.get_json()["error"] == "same_operator"
    reviewer = desk.post(path, json={"decision": "granted", "text": "ok"}, headers=ops(REVIEWER))
    assert reviewer.status_code == 403 and reviewer.get_json()["error"] == "ops_decider_only"
    r = desk.post(path, json={"decision": "granted", "text": "Reviewed again: your game stands."},
                  headers=ops(OPS_OTHER))
    assert r.status_code == 200 and r.get_json()["answered_by"].startswith("omar@")
    assert desk.post(path, json={"decision": "upheld", "text": "no"}, headers=ops(OPS_OTHER)).status_code == 409
    mine = desk.get("/api/v1/appeals", headers=headers(token)).get_json()["appeals"]
    assert mine[0]["decision"] == "granted" and mine[0]["answer"] == "Reviewed again: your game stands."
    status = desk.get(f"/api/v1/submissions/{sub_id}").get_json()
    assert status["status"] == "verified" and status["rank"] == 1 and status["reason"] is None
    # a restriction's appeal shows on /players/me; upheld, the restriction stays
    desk.post(f"/api/v1/ops/players/{pid}/restrict", json={"reason": "second look"}, headers=ops(OPS_OTHER))
    r = desk.post("/api/v1/appeals", json={"text": "please"}, headers=headers(token))
    assert r.status_code == 201 and r.get_json()["kind"] == "restriction"
    r = desk.post(f"/api/v1/ops/appeals/{r.get_json()['appeal_id']}/answer",
                  json={"decision": "upheld", "text": "The restriction stays."}, headers=ops())
    assert r.status_code == 200
    restricted = desk.get("/api/v1/players/me", headers=headers(token)).get_json()["restricted"]
    assert restricted["until"] is None and restricted["appeal"]["answer"] == "The restriction stays."
    assert restricted["appeal"]["decision"] == "upheld"


def test_the_audit_log_filters_and_pages_every_entry(desk, run_worker, rclient):
    tokens = [game(desk, run_worker, f"10.11.0.{i}", f"Noted{i}", submit=False)[0] for i in range(2)]
    pids = [desk.get("/api/v1/players/me", headers=headers(t)).get_json()["player"] for t in tokens]
    for i in range(7):
        r = desk.post(f"/api/v1/ops/players/{pids[i % 2]}/notes", json={"text": f"note {i}"},
                      headers=ops(OPS if i % 3 else OPS_OTHER))
        assert r.status_code == 201
    everything = desk.get("/api/v1/ops/audit", headers=ops()).get_json()
    assert [e["why"] for e in everything["entries"]] == [f"note {i}" for i in reversed(range(7))]
    assert everything["next"] is None
    # paging: every entry once, in order, by the cursor; and by offset
    seen, before = [], None
    while True:
        page = desk.get("/api/v1/ops/audit?limit=2" + (f"&before={before}" if before else ""), headers=ops()).get_json()
        seen += [e["why"] for e in page["entries"]]
        before = page["next"]
        if before is None:
            break
    assert seen == [e["why"] for e in everything["entries"]]
    page = desk.get("/api/v1/ops/audit?limit=1&offset=2", headers=ops()).get_json()
    assert [e["why"] for e in page["entries"]] == ["note 4"]
    # the filters filter, and together
    by_omar = desk.get("/api/v1/ops/audit?who=omar", headers=ops()).get_json()["entries"]
    assert [e["why"] for e in by_omar] == ["note 6", "note 3", "note 0"]
    on_first = desk.get(f"/api/v1/ops/audit?target={pids[0]}&who=tess", headers=ops()).get_json()["entries"]
    assert [e["why"] for e in on_first] == ["note 4", "note 2"]
    assert desk.get("/api/v1/ops/audit?action=restrict", headers=ops()).get_json()["entries"] == []
    at = everything["entries"][3]["at"]
    since = desk.get("/api/v1/ops/audit", query_string={"since": at}, headers=ops()).get_json()["entries"]
    assert [e["why"] for e in since] == [f"note {i}" for i in reversed(range(3, 7))]
    assert desk.get("/api/v1/ops/audit?since=2999-01-01", headers=ops()).get_json()["entries"] == []
    # nothing unknown or meaningless is ignored
    for bad in ("whom=omar", "since=yesterday", "before=abc", "limit=0"):
        r = desk.get(f"/api/v1/ops/audit?{bad}", headers=ops())
        assert r.status_code == 422, (bad, r.get_json())
        assert set(r.get_json()) >= {"error", "message"}


def test_a_reviewer_reads_and_notes_and_decides_nothing(desk, run_worker, rclient):
    token, run, sub_id = game(desk, run_worker, "10.12.0.1", "Watched")
    pid = desk.get("/api/v1/players/me", headers=headers(token)).get_json()["player"]
    rita = ops(REVIEWER)
    assert desk.get(f"/api/v1/ops/players/{pid}", headers=rita).status_code == 200
    assert desk.get(f"/api/v1/ops/submissions/{sub_id}", headers=rita).status_code == 200
    assert desk.post(f"/api/v1/ops/players/{pid}/notes", json={"text": "keep an eye"}, headers=rita).status_code == 201
    for path, body in ((f"/api/v1/ops/players/{pid}/restrict", {"reason": "x"}),
                       (f"/api/v1/ops/players/{pid}/lift", {}),
                       (f"/api/v1/ops/submissions/{sub_id}/disqualify", {"reason": "x"}),
                       (f"/api/v1/ops/submissions/{sub_id}/restore", {"reason": "x"}),
                       (f"/api/v1/ops/days/{run['date']}/rebuild", {})):
        r = desk.post(path, json=body, headers=rita)
        assert r.status_code == 403 and r.get_json()["error"] == "ops_decider_only", path
    assert desk.get(f"/api/v1/submissions/{sub_id}").get_json()["status"] == "verified"
    assert [e["action"] for e in desk.get("/api/v1/ops/audit", headers=rita).get_json()["entries"]] == ["note"]


def test_wrong_ops_tokens_from_one_address_meet_a_429(desk, rclient):
    path = "/api/v1/ops/audit"
    for _ in range(20):
        r = desk.get(path, headers=ops("a-wrong-token-guessed-by-someone-0000"), environ_base={"REMOTE_ADDR": "10.13.0.9"})
        assert r.status_code == 403
    r = desk.get(path, headers=ops("a-wrong-token-guessed-by-someone-0001"), environ_base={"REMOTE_ADDR": "10.13.0.9"})
    assert r.status_code == 429 and r.get_json()["error"] == "too_many_requests"
    assert 0 < int(r.headers["Retry-After"]) <= 60
    # even the right token, from there: a guess answered 429 tells nothing
    assert desk.get(path, headers=ops(), environ_base={"REMOTE_ADDR": "10.13.0.9"}).status_code == 429
    assert desk.get(path, headers=ops(), environ_base={"REMOTE_ADDR": "10.13.0.10"}).status_code == 200


def test_a_case_file_and_the_desk_from_the_command_line(desk, run_worker, rclient, redis_server, monkeypatch, capsys):
    token, run, sub_id = game(desk, run_worker, "10.14.0.1", "Casefile")
    game(desk, run_worker, "10.14.0.1", "Sibling")  # another player from the same address
    pid = desk.get("/api/v1/players/me", headers=headers(token)).get_json()["player"]
    desk.post(f"/api/v1/ops/players/{pid}/notes", json={"text": "two names, one address"}, headers=ops())
    case = desk.get(f"/api/v1/ops/export/{sub_id}", headers=ops()).get_json()
    assert case["kind"] == "submission" and case["submission"]["submission_id"] == sub_id
    assert case["submission"]["cards"] and "flags" in case["submission"]
    assert case["player"]["notes"][0]["text"] == "two names, one address"
    assert [o["nickname"] for o in case["player"]["others"]] == ["Sibling"]
    assert [e["action"] for e in case["audit"]] == ["export", "note"]
    assert desk.get("/api/v1/ops/export/Casefile", headers=ops()).get_json()["kind"] == "player"
    for name, value in (("REDIS_URL", redis_server.url), ("MANILLE_SECRET", SECRET), ("MANILLE_OPS_TOKENS", TOKENS),
                        ("MANILLE_OPS_TOKEN", OPS_OTHER), ("MANILLE_BOTS", TEST_BOTS)):
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    assert manille(["ops", "player", "Casefile", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"][0]["submission_id"] == sub_id
    assert manille(["ops", "player", pid]) == 0
    text = capsys.readouterr().out
    assert "Sibling" in text and sub_id in text and "10.14.0.1" in text
    assert manille(["ops", "restrict", "Casefile", "--reason", "alts", "--days", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["restricted"]["by"] == "omar@cli"
    assert manille(["ops", "audit", "--who", "omar", "--json"]) == 0
    page = json.loads(capsys.readouterr().out)
    assert [e["action"] for e in page["entries"]] == ["restrict"] and page["next"] is None
    assert manille(["ops", "audit", "--action", "note"]) == 0
    assert "two names, one address" in capsys.readouterr().out
    assert manille(["ops", "export", sub_id]) == 0
    assert json.loads(capsys.readouterr().out)["player"]["restricted"]["reason"] == "alts"
    monkeypatch.setenv("MANILLE_OPS_TOKEN", REVIEWER)
    assert manille(["ops", "lift", pid]) == 2
    assert "decider" in capsys.readouterr().err


def test_an_operators_line_names_a_role_or_is_a_decider():
    from service.config import OpsTokens

    tokens = OpsTokens(TOKENS)
    assert [tokens.role_of(n) for n in ("tess", "omar", "rita")] == ["decider", "decider", "reviewer"]
    assert tokens.name_of(REVIEWER) == "rita" and tokens.role_of("nobody") is None
    with pytest.raises(ValueError, match="line 1: \"name token\" expected, or \"name token role\""):
        OpsTokens(f"rita {REVIEWER} admin")
