"""Nicknames (issue 10, impersonation): the rules, each refusal's code, uniqueness by the UTS #39
skeleton folded to case, and claims made before the rules — through the API on a real Redis."""

from __future__ import annotations

import json
import time
import unicodedata

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from service.app import create_app
from cli.main import main as manille
from service.errors import Conflict
from service.players import NICKNAME_CLAIMS, NICKNAME_OWNERS, Players, pid_of
from service.players import nickname as nn

from support.svc_helpers import LIMITS_OFF, OPS, OPS_TOKENS, SECRET, TEST_BOTS, err, headers, play_game, snapshot

INTERNATIONAL = ["Zoë", "José", "Łukasz", "Ἀχιλλεύς", "Дмитрий", "山田太郎", "やまだ", "김민준", "عمر",
                 "O'Brien", "Jean-Luc", "Tarō 山田", "Nguyễn Văn An", "अनुष्का शर्मा", "👍🏽 Bob"]


@pytest.fixture
def client(redis_server, rclient):
    """The app with the limits off: these tests open and play many ranked runs from one address."""
    return create_app({"TESTING": True, "REDIS_URL": redis_server.url, "MANILLE_SECRET": SECRET,
                       "MANILLE_BOTS": TEST_BOTS, **LIMITS_OFF}).test_client()


@pytest.fixture
def finished(client):
    """A new player's finished ranked run: (run, token)."""
    def post(path, body, hdrs):
        r = client.post(path, json=body, headers=hdrs)
        return r.status_code, r.get_json()

    def make():
        run = client.post("/api/v1/runs", json={}).get_json()
        token = run.pop("player_token")
        return play_game(post, run, token), token
    return make


def submit(client, run, token, nickname):
    return client.post("/api/v1/submissions", json={"run_id": run["run_id"], "nickname": nickname},
                       headers=headers(token))


def accepted(client, run, token, nickname) -> dict:
    """Submit under ``nickname``; 202 expected; the submission as GET answers it."""
    r = submit(client, run, token, nickname)
    assert r.status_code == 202, (nickname, r.get_json())
    return client.get(r.get_json()["status_url"]).get_json()


def test_the_issue_look_alikes_of_a_claimed_name_are_refused_and_change_nothing(client, rclient, finished):
    alice_run, alice = finished()
    assert accepted(client, alice_run, alice, "alice")["nickname"] == "alice"
    run, token = finished()
    before = snapshot(rclient)
    refusals = [
        ("\u0410lice", 422, "nickname_mixed_script"),  # Cyrillic А + Latin
        ("al\u3164ice", 422, "nickname_invisible"),  # Hangul filler
        ("ALICE", 409, "nickname_taken"),
        ("ａｌｉｃｅ", 409, "nickname_taken"),  # full-width: NFKC
        ("  alice ", 409, "nickname_taken"),
        ("al\u200bice", 422, "nickname_invisible"),  # zero-width space
        ("a1ice", 409, "nickname_taken"),  # confusables.txt: 1 → l
        ("aIice", 409, "nickname_taken"),  # capital I → l: the skeleton before folding case
        ("\u0430\u04c0\u0456\u0441\u0435", 409, "nickname_taken"),  # all Cyrillic (Ӏ palochka): alice's skeleton
    ]
    for name, status, code in refusals:
        body = err(submit(client, run, token, name), status, code)
        assert snapshot(rclient) == before, name
        if status == 409:
            assert "another player" in body["message"]
    assert err(submit(client, run, token, "al\u3164ice"), 422, "nickname_invisible")["character"] == "U+1160"
    assert accepted(client, run, token, "Alicia")["nickname"] == "Alicia"


@pytest.mark.parametrize("name, code", [
    ("", "nickname_empty"), (" \u3000 ", "nickname_empty"),  # ideographic space: NFKC makes it a space
    ("x" * 25, "nickname_too_long"), ("e\u0301" * 25, "nickname_too_long"),  # 25 clusters of 2 code points
    ("a" + "\u0301\u0302\u0303\u0304" * 30, "nickname_too_long"),  # one cluster, 121 code points
    ("bad\x00name", "nickname_control"), ("tab\there", "nickname_control"), ("a\u2028b", "nickname_control"),
    ("a\u1680b", "nickname_control"),  # Ogham space mark: a space other than U+0020
    ("rtl\u202emark", "nickname_invisible"), ("\u2800", "nickname_invisible"), ("a\u115fb", "nickname_invisible"),
    ("\uffa0x", "nickname_invisible"), ("\U000e0041x", "nickname_invisible"),  # halfwidth filler; a tag
    ("\u2764\ufe0f", "nickname_invisible"), ("\U0001f469\u200d\U0001f4bb", "nickname_invisible"),  # VS16; ZWJ
    ("a\u0301\u0301", "nickname_invisible"), ("i\u0307", "nickname_invisible"),  # repeated mark; dot on i
    ("\ue000x", "nickname_unassigned"), ("x\U0010fffe", "nickname_unassigned"), ("x\u0378", "nickname_unassigned"),
    ("Ελληνικά abc", "nickname_mixed_script"), ("Иван Ivan", "nickname_mixed_script"),
    ("1\u0661", "nickname_mixed_script"),  # digits of two systems
])
def test_each_rule_has_its_code_and_a_refusal_changes_nothing(client, rclient, finished, name, code):
    run, token = finished()
    before = snapshot(rclient)
    body = err(submit(client, run, token, name), 422, code)
    assert code in nn.CODES and body["message"]
    assert snapshot(rclient) == before


def test_a_huge_or_broken_nickname_is_a_clear_422_at_once(client, rclient, finished):
    run, token = finished()
    before = snapshot(rclient)
    t0 = time.perf_counter()
    body = err(submit(client, run, token, "x" * 10_000), 422, "nickname_too_long")
    assert body["limit"] == nn.MAX_CLUSTERS and time.perf_counter() - t0 < 1.0
    # a lone surrogate, which JSON can carry and UTF-8 cannot
    r = client.post("/api/v1/submissions", data=json.dumps({"run_id": run["run_id"], "nickname": "a\ud800b"}),
                    content_type="application/json", headers=headers(token))
    assert err(r, 422, "nickname_unassigned")["character"] == "U+D800"
    assert snapshot(rclient) == before


def test_international_names_are_accepted_as_typed(client, finished):
    for name in INTERNATIONAL:
        run, token = finished()
        sub = accepted(client, run, token, f"  {name}  ")
        assert sub["nickname"] == unicodedata.normalize("NFKC", name)
        me = client.get("/api/v1/players/me", headers=headers(token)).get_json()
        assert me["nickname"] == sub["nickname"]


def test_markup_is_kept_as_text(client, finished):
    run, token = finished()
    name = "<b>Zo\u00eb</b> & \"co\""
    r = submit(client, run, token, name)
    assert r.status_code == 202 and r.headers["Content-Type"].startswith("application/json")
    assert client.get(r.get_json()["status_url"]).get_json()["nickname"] == name


def test_a_player_may_use_the_case_and_look_alikes_of_their_own_name(rclient):
    players = Players(rclient)
    assert players.claim_nickname("p1", "alice") == "alice"
    assert players.claim_nickname("p1", "ALICE") == "ALICE" and rclient.hget(Players._key("p1"), "nickname") == "ALICE"
    assert players.claim_nickname("p1", "a1ice") == "a1ice"
    with pytest.raises(Conflict, match="taken"):
        players.claim_nickname("p2", "Alice")


# -- a name is held by a verified game -------------------------------------------------------

def _holders(rclient, name: str) -> tuple[set, set]:
    """Who holds ``name``'s keys for good, and who claims them pending a verdict."""
    keys = nn.keys(name)
    return ({rclient.hget(NICKNAME_OWNERS, k) for k in keys} - {None},
            {rclient.hget(NICKNAME_CLAIMS[0], k) for k in keys} - {None})


def test_a_name_is_held_once_its_game_is_verified_and_taken_for_others_meanwhile(client, rclient, finished,
                                                                                 run_worker):
    run, token = finished()
    other_run, other = finished()
    accepted(client, run, token, "Quill")
    assert _holders(rclient, "Quill") == (set(), {pid_of(token)})  # claimed, not held
    err(submit(client, other_run, other, "QUILL"), 409, "nickname_taken")  # nobody else meanwhile
    run_worker()
    assert client.get(f"/api/v1/players/me", headers=headers(token)).get_json()["nickname"] == "Quill"
    assert _holders(rclient, "Quill") == ({pid_of(token)}, set())  # verified: held, nothing pending
    assert rclient.hlen(NICKNAME_CLAIMS[1]) == 0 and rclient.zcard(NICKNAME_CLAIMS[2]) == 0
    err(submit(client, other_run, other, "qui11"), 409, "nickname_taken")


def test_a_claim_never_verified_is_released_after_a_day_and_a_player_has_one_pending(rclient):
    """One address could reserve a name with every submission it made, verified or not: a claim
    whose game is never verified lapses after a day, a player's new claim replaces their pending
    one, a rejected game's is released at once; only a valid game's name is kept for good."""
    players, t0 = Players(rclient), 1_800_000_000
    assert players.claim_nickname("p1", "Mallow", now=t0) == "Mallow"
    with pytest.raises(Conflict, match="taken"):
        players.claim_nickname("p2", "mallow", now=t0 + 3600)
    players.claim_nickname("p1", "Thistle", now=t0 + 60)  # p1's one pending claim is this one now
    assert players.claim_nickname("p2", "MALLOW", now=t0 + 120) == "MALLOW"
    with pytest.raises(Conflict, match="taken"):
        players.claim_nickname("p3", "Thistle", now=t0 + 60 + 86399)
    assert players.claim_nickname("p3", "Thistle", now=t0 + 60 + 86401) == "Thistle"  # a day, unverified
    assert _holders(rclient, "Thistle") == (set(), {"p3"})
    players.confirm_nickname("p3", "Thistle", valid=True)
    with pytest.raises(Conflict, match="taken"):
        players.claim_nickname("p4", "thistle", now=t0 + 400 * 86400)  # held for good
    players.claim_nickname("p5", "Sorrel", now=t0 + 200)
    players.confirm_nickname("p5", "Sorrel", valid=False)  # its game was rejected
    assert players.claim_nickname("p6", "sorrel", now=t0 + 201) == "sorrel"
    assert _holders(rclient, "Sorrel") == (set(), {"p6"})


# -- rekeying the names players hold (after an upgrade of PyICU) ------------------------------

def held_unkeyed(rclient, pid: str, name: str) -> None:
    """A name a player holds whose claim keys the current rules have not made."""
    rclient.hset(f"manille:{{player:{pid}}}:player", "nickname", name)


def test_rekeying_keys_the_names_players_hold_and_their_look_alikes_are_refused(
        client, rclient, finished, monkeypatch, capsys, redis_server):
    marie_run, marie = finished()
    paul_run, paul = finished()
    held_unkeyed(rclient, pid_of(marie), "Marie")
    held_unkeyed(rclient, pid_of(paul), "paul")
    run, token = finished()

    monkeypatch.setenv("REDIS_URL", redis_server.url)
    monkeypatch.setenv("MANILLE_SECRET", SECRET)
    monkeypatch.setenv("MANILLE_OPS_TOKENS", OPS_TOKENS)
    monkeypatch.setenv("MANILLE_OPS_TOKEN", OPS)
    assert manille(["ops", "rekey-nicknames", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {"seen": 2, "keyed": 2, "refused": 0, "conflicts": []}
    assert manille(["ops", "rekey-nicknames", "--json"]) == 0  # again: nothing new
    assert json.loads(capsys.readouterr().out)["keyed"] == 0
    audit = rclient.xrevrange("manille:{all}:audit", count=1)[0][1]
    assert audit["action"] == "rekey_nicknames"

    # after it: the look-alikes are taken
    before = snapshot(rclient)
    for name in ("PauI", "pau1", "MARIE", "Marіe"):  # capital I; digit one; case; Cyrillic і → mixed
        err(submit(client, run, token, name), 422 if name == "Marіe" else 409,
            "nickname_mixed_script" if name == "Marіe" else "nickname_taken")
    assert snapshot(rclient) == before
    # and the owners still submit under their names, in any case
    assert accepted(client, marie_run, marie, "Marie")["nickname"] == "Marie"
    assert accepted(client, paul_run, paul, "Paul")["nickname"] == "Paul"


def test_rekey_keeps_the_older_of_two_look_alikes_and_skips_names_the_rules_refuse(rclient):
    players = Players(rclient)
    report = players.rekey([("p1", "alice"), ("p2", "a1ice"), ("p3", "\u0410lice"), ("p1", "alice"), ("p4", "bob")])
    assert report == {"seen": 4, "keyed": 2, "refused": 1,
                      "conflicts": [{"nickname": "a1ice", "player": "p2", "holder": "p1"}]}
    assert set(rclient.hvals(NICKNAME_OWNERS)) == {"p1", "p4"}


# -- properties ------------------------------------------------------------------------------

names = st.text(st.characters(codec="utf-8"), max_size=40)
scripts = st.sampled_from(["abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéèëçñßøłİı",
                           "абвгдежзийклмнопрстуфхцчшщъыьэюяАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ",
                           "αβγδεζηθικλμνξοπρσςτυφχψωΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ",
                           "山田太郎花子やまだタロウ", "김민준이서연"])
plausible = scripts.flatmap(lambda letters: st.text(st.sampled_from(letters + "  -'0123456789"),
                                                      min_size=1, max_size=24))


@settings(max_examples=400, deadline=None)
@given(names)
def test_normalise_is_idempotent(text):
    once = nn.normalise(text)
    assert nn.normalise(once) == once


@settings(max_examples=400, deadline=None)
@given(st.one_of(names, plausible))
def test_an_accepted_name_parses_to_itself_and_keeps_its_keys_under_nfkc_and_case(text):
    try:
        name = nn.parse(text)
    except nn.NicknameError as e:
        assert e.code in nn.CODES
        return
    assert nn.parse(name) == name and 1 <= nn.clusters(name) <= nn.MAX_CLUSTERS
    keys = set(nn.keys(name))
    assert set(nn.keys(nn.normalise(unicodedata.normalize("NFKD", name)))) == keys
    for cased in (name.lower(), name.upper(), name.casefold()):
        try:
            other = nn.parse(cased)
        except nn.NicknameError:
            continue
        assert keys & set(nn.keys(other)), (name, cased)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(plausible)
def test_a_valid_nickname_round_trips_through_the_api_as_stored(client, rclient, finished, text):
    try:
        name = nn.parse(text)
    except nn.NicknameError:
        assume(False)
    rclient.delete(NICKNAME_OWNERS, *NICKNAME_CLAIMS)  # each example a first claim
    run, token = finished()
    sub = accepted(client, run, token, text)
    assert sub["nickname"] == name
    assert rclient.hget(Players._key(pid_of(token)), "nickname") == name
