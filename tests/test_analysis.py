"""The analysis of a finished game (analysis/) and what it stands on: the consistent deals counted
and drawn uniformly (bots/worlds.py), the from-the-seat values (bots/evaluate.py), the marks and
the hidden-information statistic.

The references here are written independently of the code under test: the consistent deals are
listed by replaying the deal's tricks with every possible layout of the hidden cards and keeping
those in which every card played was legal; the values come from a plain minimax over the
engine's own ``Trick`` and ``legal_mask`` (no pruning, no table)."""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
from collections import Counter
from math import comb
from pathlib import Path

import pytest

import postmortem
from postmortem import AnalysisError, analyse, band, clear, mark
from postmortem import hindsight
from postmortem.settings import BANDS, MARKS
from bots import get_bot
from bots.evaluate import evaluate_worlds, seat_values
from bots.knowledge import Knowledge
from bots.oracle import OracleBot
from bots.search import drawn_deals
from bots.worlds import Constraints, uniform_big
from cli import tournament
from service.replay import (Card, GameState, HashStream, InvalidSeedError, SubmissionRejected, Trick,
                            bot_move, build_record, decision_stream, parse_cards, player_cards, simulate)
from service.replay.cards import DECK, FULL_MASK, iter_ids
from service.replay.deal import Deal
from service.replay.rules import legal_mask
from service.replay.state import DealLog

from support.scripted import plays_legal

ROOT = Path(__file__).resolve().parent.parent
EXPERT = get_bot("expert-1")
TAG = b"analysis-test"


def seed_of(i: int) -> bytes:
    return tournament.fixed_seeds(TAG, i + 1)[i]


# -- positions ---------------------------------------------------------------------------------------


def ending(i: int, trick: int, in_trick: int) -> GameState:
    """Deal 0 of seed ``i``, expert-1 in every seat, up to ``in_trick`` cards into trick ``trick``."""
    state = GameState(seed_of(i))
    while state.trick_index < trick or len(state.trick.plays) < in_trick:
        bot_move(state, EXPERT)
    return state


#: A scripted deal, trump hearts (the dealer, seat 3, turned the 9H), seat 0 leads; its first five
#: tricks show voids and caps: seat 1 discards on clubs and on hearts (void in both), seat 2
#: cannot beat the QS (no KS, AS, TS), seat 3 is void in spades, seat 0 in hearts; the turned 9H
#: is still with the dealer, who leads the sixth trick.  From seat 0 (AC TD AD left) the AS and
#: KS are surely seat 1's, the 9H seat 3's: 3 × C(5, 2) = 30 consistent deals.
SCRIPTED_HANDS = ("TC AC KC QC TD AD 7S 8S", "7D 8D 9D JD TS AS KS QS",
                  "JC 9C QD KD JS 9S 7H 8H", "8C 7C TH AH KH QH JH 9H")
SCRIPTED_PLAYS = "TC 7D 9C 7C  7S QS 9S 8C  TS JS JH 8S  TH QC 8D 7H  AH KC 9D 8H"


def scripted(extra: str = "") -> GameState:
    """The scripted deal after its five tricks (and ``extra`` cards of the sixth), every card
    checked by the engine."""
    state = GameState(bytes(32))
    hands = tuple(parse_cards(h) for h in SCRIPTED_HANDS)
    d = Deal(0, 3, hands, Card.parse("9H"))
    state.deals = [DealLog(d)]
    state.hands = [sum(c.bit for c in h) for h in hands]
    state.trick = Trick(d.leader, d.trump)
    state.points = (0, 0)
    state._legals = []
    for c in (SCRIPTED_PLAYS + " " + extra).split():
        state.apply(Card.parse(c))
    return state


#: (name, state builder): small endings, at a trick's lead and in the middle of one.
POSITIONS = [(f"seed{i}-t{t}+{k}", (lambda i=i, t=t, k=k: ending(i, t, k)))
             for i in (0, 1, 5) for t in (5, 6) for k in (0, 1, 2, 3)]
POSITIONS += [("scripted", scripted), ("scripted+KH", lambda: scripted("KH")),
              ("scripted+KH-AC", lambda: scripted("KH AC"))]


def replayed_worlds(state: GameState, seat: int) -> set[tuple[int, int, int, int]]:
    """Every layout of the cards ``seat`` has not seen, among the other seats with their true hand
    sizes, in which the dealer was dealt the turned card and every card of the deal so far was
    legal when played: the consistent deals, by definition."""
    log = state.deals[-1]
    tricks = [t for t, _ in log.tricks] + [state.trick]
    played_by = [0, 0, 0, 0]
    for t in tricks:
        for p in t.plays:
            played_by[p.seat] |= p.card.bit
    own = state.hands[seat]
    hidden = list(iter_ids(FULL_MASK & ~own & ~sum(played_by)))
    others = [s for s in range(4) if s != seat]
    sizes = [state.hands[s].bit_count() for s in others]
    out = set()
    for a in itertools.combinations(hidden, sizes[0]):
        rest = [c for c in hidden if c not in a]
        for b in itertools.combinations(rest, sizes[1]):
            hands = [0, 0, 0, 0]
            hands[seat] = own
            for s, part in zip(others, (a, b, [c for c in rest if c not in b])):
                hands[s] = sum(1 << c for c in part)
            dealt = [hands[s] | played_by[s] for s in range(4)]
            if not dealt[log.deal.dealer] & log.deal.turned.bit:
                continue
            if plays_legal(dealt, tricks):
                out.add(tuple(hands))
    return out


def _team_points(hands: list[int], trick: Trick, team: int) -> int:
    """Card points ``team`` takes from ``trick`` (in progress) to the end of the deal, plain minimax."""
    if trick.is_complete:
        last = not any(hands)
        gain = trick.points(last) if trick.winner & 1 == team else 0
        return gain if last else gain + _team_points(hands, Trick(trick.winner, trick.trump), team)
    seat = trick.next_seat
    values = []
    for c in iter_ids(legal_mask(hands[seat], trick, seat)):
        hands[seat] ^= 1 << c
        values.append(_team_points(hands, trick.play(DECK[c]), team))
        hands[seat] ^= 1 << c
    return max(values) if seat & 1 == team else min(values)


def minimax_values(hands, trick: Trick) -> dict[int, int]:
    """Each legal card id of the seat to move -> the points its team takes from this trick on."""
    hands = list(hands)
    seat = trick.next_seat
    out = {}
    for c in iter_ids(legal_mask(hands[seat], trick, seat)):
        hands[seat] ^= 1 << c
        out[c] = _team_points(hands, trick.play(DECK[c]), seat & 1)
        hands[seat] ^= 1 << c
    return out


def chi2_999(df: int) -> float:
    """The 0.999 quantile of chi-square with ``df`` degrees of freedom (Wilson–Hilferty; within 1 %
    of the exact quantile for df ≥ 2)."""
    z = 3.0902
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def chi2(counts: Counter, worlds, n: int) -> float:
    e = n / len(worlds)
    return sum((counts[w] - e) ** 2 / e for w in worlds)


# -- a. the consistent deals: counted, listed, drawn -------------------------------------------------


@pytest.mark.parametrize("name,build", POSITIONS, ids=[p[0] for p in POSITIONS])
def test_worlds_are_the_consistent_deals(name, build):
    state = build()
    seat = state.current_player
    k = Knowledge(state.observation(seat))
    cons = Constraints(k)
    worlds = cons.every()
    assert cons.count == len(worlds) == len(set(worlds)) > 0
    assert set(worlds) == replayed_worlds(state, seat)
    assert tuple(state.hands) in worlds
    for w in worlds:
        assert w[seat] == state.hands[seat]
        assert not w[0] & w[1] | w[0] & w[2] | w[0] & w[3] | w[1] & w[2] | w[1] & w[3] | w[2] & w[3]
        for s in range(4):
            if s != seat:
                assert w[s].bit_count() == k.left[s]
                assert not w[s] & ~k.possible[s]


def test_scripted_knowledge():
    """The scripted deal shows what it says: voids, a cap, the turned card, 30 deals."""
    k = Knowledge(scripted().observation(0))
    bits = lambda text: sum(c.bit for c in parse_cards(text))  # noqa: E731
    assert k.sure[1] & bits("AS KS") == bits("AS KS")
    assert k.sure[3] & bits("9H") == bits("9H")
    assert not k.possible[1] & bits("JC KH QH")  # void in clubs and hearts
    assert not k.possible[2] & bits("AS KS")  # could not beat the QS
    assert Constraints(k).count == 30
    assert len(Constraints(k).groups) >= 4


@pytest.mark.parametrize("i,trick", [(0, 4), (2, 4), (3, 3)])
def test_count_matches_the_list_on_larger_endings(i, trick):
    state = ending(i, trick, 1)
    seat = state.current_player
    cons = Constraints(Knowledge(state.observation(seat)))
    worlds = cons.every()
    assert cons.count == len(set(worlds)) == len(worlds)
    assert tuple(state.hands) in worlds


@pytest.mark.parametrize("i", range(4))
def test_count_at_the_first_lead(i):
    """Before any card, 24 hidden cards, 8 a seat, the turned card with the dealer (when another
    seat): 23! / (8! 8! 7!) deals, or 24! / (8!)³ for the dealer itself (beyond 2**32: the
    big-integer path of the draw)."""
    state = GameState(seed_of(i))
    seat = state.current_player
    dealer = state.current_deal.dealer
    want = comb(24, 8) * comb(16, 8) if seat == dealer else comb(23, 7) * comb(16, 8)
    assert Constraints(Knowledge(state.observation(seat))).count == want
    other = (seat + 1) % 4
    # Another seat, not to move: the same count from its side.
    want = comb(24, 8) * comb(16, 8) if other == dealer else comb(23, 7) * comb(16, 8)
    assert Constraints(Knowledge(state.observation(other))).count == want


#: Positions with 6 to 20 consistent deals, several holder groups, where the card-by-card draw of
#: bots.search is far from uniform.
UNIFORM = [("scripted+KH", lambda: scripted("KH")), ("seed5-t5+0", lambda: ending(5, 5, 0)),
           ("seed5-t5+1", lambda: ending(5, 5, 1)), ("seed0-t5+3", lambda: ending(0, 5, 3)),
           ("seed0-t6+0", lambda: ending(0, 6, 0))]


@pytest.mark.parametrize("name,build", UNIFORM, ids=[u[0] for u in UNIFORM])
def test_draw_is_uniform(name, build):
    state = build()
    seat = state.current_player
    k = Knowledge(state.observation(seat))
    cons = Constraints(k)
    worlds = cons.every()
    assert 6 <= len(worlds) <= 20
    n = 100 * len(worlds)
    bound = chi2_999(len(worlds) - 1)
    rng = HashStream(b"analysis-test uniform " + name.encode())
    got = Counter(cons.draw(rng) for _ in range(n))
    assert set(got) <= set(worlds)
    assert chi2(got, worlds, n) < bound
    # The same test, the same stream, on bots.search's draw (a card at a time to a random seat
    # with room): every deal consistent, but not uniform, and the bound says so.
    rng = HashStream(b"analysis-test uniform " + name.encode())
    biased = drawn_deals(k, rng, n)
    assert len(biased) == n and set(biased) <= set(worlds)
    assert chi2(Counter(biased), worlds, n) > 2 * bound


def test_draw_marginals_at_the_first_lead():
    """Before any card, one hidden card's holder: 8/23 for each non-dealer, 7/23 for the dealer
    (who holds the turned card); the turned card always with the dealer.  From the dealer's own
    seat (24! / (8!)³ deals, beyond 2**32: ``uniform_big``'s long path) every draw is a deal."""
    state = GameState(seed_of(0))
    seat = state.current_player
    dealer = state.current_deal.dealer
    assert seat != dealer
    k = Knowledge(state.observation(seat))
    cons = Constraints(k)
    turned = state.current_deal.turned.bit
    probe = [c for c in iter_ids(k.unseen & ~turned)][:3]
    n = 1500
    rng = HashStream(b"analysis-test marginals")
    holders = {c: Counter() for c in probe}
    for _ in range(n):
        w = cons.draw(rng)
        assert w[dealer] & turned and w[seat] == state.hands[seat]
        assert sorted(h.bit_count() for s, h in enumerate(w) if s != seat) == [8, 8, 8]
        for c in probe:
            holders[c][next(s for s in range(4) if w[s] >> c & 1)] += 1
    for c in probe:
        stat = 0.0
        for s in range(4):
            if s != seat:
                e = n * (7 if s == dealer else 8) / 23
                stat += (holders[c][s] - e) ** 2 / e
        assert stat < 13.82  # chi-square, 2 degrees of freedom, 0.999
    mine = Constraints(Knowledge(state.observation(dealer)))
    assert mine.count > 1 << 32
    for _ in range(20):
        w = mine.draw(rng)
        assert w[dealer] == state.hands[dealer] and sum(w) == FULL_MASK
        assert [h.bit_count() for h in w] == [8, 8, 8, 8]


def test_uniform_big():
    a, b = HashStream(b"u"), HashStream(b"u")
    assert [uniform_big(a, 1000) for _ in range(50)] == [b.uniform(1000) for _ in range(50)]
    n = 3 * (1 << 40) + 7
    rng = HashStream(b"u big")
    xs = [uniform_big(rng, n) for _ in range(4000)]
    assert all(0 <= x < n for x in xs)
    buckets = Counter(4 * x // n for x in xs)
    assert sum((buckets[i] - 1000) ** 2 / 1000 for i in range(4)) < 16.27  # 3 df, 0.999


def test_no_consistent_deal():
    k = Knowledge(scripted().observation(0))
    k.possible[1] &= ~sum(c.bit for c in parse_cards("AS KS"))  # nobody may hold them now
    cons = Constraints(k)
    assert cons.count == 0 and cons.every() == []
    with pytest.raises(ValueError):
        cons.draw(HashStream(b"x"))


# -- b. from-the-seat values: the exact mean over every consistent deal -------------------------------


#: The positions above with at most 150 consistent deals (the plain minimax solves every one).
SMALL = [p for p in POSITIONS if p[0] not in ("seed0-t5+0", "seed1-t5+1", "scripted")]


@pytest.mark.parametrize("name,build", SMALL, ids=[p[0] for p in SMALL])
def test_seat_values_are_the_mean_over_consistent_deals(name, build):
    state = build()
    seat = state.current_player
    obs = state.observation(seat)
    worlds = sorted(replayed_worlds(state, seat))
    assert len(worlds) <= 150
    brute = [minimax_values(w, state.trick) for w in worlds]
    ev = seat_values(obs, HashStream(b"unused"), enumerate_up_to=10 ** 6)
    assert ev.exact and ev.consistent == len(worlds) == ev.deals
    assert set(ev.cards) == set(iter_ids(obs.legal_mask))
    listed = Constraints(Knowledge(obs)).every()
    for c in ev.cards:
        by_world = dict(zip(listed, ev.values[c]))
        assert {w: by_world[w] for w in worlds} == {w: b[c] for w, b in zip(worlds, brute)}
        assert ev.mean(c) == pytest.approx(sum(b[c] for b in brute) / len(worlds), abs=1e-12)
        assert ev.se(c) == 0.0


def test_sampled_seat_values_estimate_the_exact_ones():
    """Forced to sample (enumerate_up_to=0), each mean is within 4 standard errors of the exact
    one, and every deal drawn is a consistent one."""
    state = scripted("KH")
    obs = state.observation(0)
    exact = seat_values(obs, HashStream(b"unused"), enumerate_up_to=10 ** 6)
    sampled = seat_values(obs, HashStream(b"analysis-test sampled"), samples=200, enumerate_up_to=0)
    assert not sampled.exact and sampled.deals == 200 and sampled.consistent == exact.consistent == 12
    spread = 0
    for c in exact.cards:
        assert set(sampled.values[c]) <= set(exact.values[c])
        assert abs(sampled.mean(c) - exact.mean(c)) <= 4 * sampled.se(c) + 1e-9
        spread += sampled.se(c) > 0
    assert spread  # the position has something hidden worth guessing


# -- c. a scripted mistake: the trump ace led into the turned ten --------------------------------------

#: Seed 32 of the tag, deal 1, trick 5: trump spades, the dealer (seat 1, an opponent) turned the
#: TS and has not played it.  Seat 0, on lead, holds QD 9S AS.  Leading the AS makes seat 1 beat
#: it ("monter": trump led, an opponent holding the trick), and the only card that can is the TS:
#: the ace goes.  Leading the QD keeps it.  20 consistent deals; the loss from the seat is exact.
MISTAKE_SEED = 32
MISTAKE_AT = (1, 5)


def play_deviating(seed: bytes, at, card: str | None) -> list[str]:
    """Seat 0's cards: expert-1's, except ``card`` at (deal, trick) ``at`` (None: expert-1's there too)."""
    state = GameState(seed)
    cards = []
    while not state.is_over:
        if state.current_player != 0:
            bot_move(state, EXPERT)
            continue
        obs = state.observation(0)
        chosen = EXPERT.choose(obs, decision_stream(state.seed, obs.deal_index, 0, len(obs.tricks)))
        if card is not None and (state.deal_index, state.trick_index) == at:
            chosen = Card.parse(card)
        cards.append(str(chosen))
        state.apply(chosen)
    return cards


@pytest.fixture(scope="module")
def mistake_game():
    seed = seed_of(MISTAKE_SEED)
    return seed, play_deviating(seed, MISTAKE_AT, "AS"), play_deviating(seed, MISTAKE_AT, None)


def _position_at(seed: bytes, cards: list[str], at) -> GameState:
    """The game of seat 0's ``cards`` (expert-1 elsewhere) at seat 0's decision at (deal, trick) ``at``."""
    state = GameState(seed)
    mine = iter(cards)
    while not (state.current_player == 0 and (state.deal_index, state.trick_index) == at):
        if state.current_player == 0:
            state.apply(Card.parse(next(mine)))
        else:
            bot_move(state, EXPERT)
    return state


def test_leading_the_ace_into_the_ten_is_the_one_mistake(mistake_game):
    seed, cards, expert_cards = mistake_game
    state = _position_at(seed, cards, MISTAKE_AT)
    assert not state.trick.plays and int(state.trick.trump) == 3  # seat 0 leads, trump spades
    assert state.current_deal.dealer == 1 and str(state.current_deal.turned) == "TS"
    obs = state.observation(0)
    assert {str(c) for c in obs.hand} == {"QD", "9S", "AS"}
    k = Knowledge(obs)
    assert k.sure[1] >> Card.parse("TS").id & 1
    # In every consistent deal the AS lead leaves seat 1 the TS alone, and the ace is lost.
    worlds = sorted(replayed_worlds(state, 0))
    assert len(worlds) == 20
    led = state.trick.play(Card.parse("AS"))
    for w in worlds:
        assert legal_mask(w[1], led, 1) == Card.parse("TS").bit
    # The loss from the seat, by brute force: the mean over the 20 deals of each card's value.
    brute = [minimax_values(w, state.trick) for w in worlds]
    mean = {str(DECK[c]): sum(b[c] for b in brute) / len(brute) for c in brute[0]}
    best = max(mean.values())
    truth = minimax_values(state.hands, state.trick)
    lost_open = max(truth.values()) - truth[Card.parse("AS").id]
    assert max(mean, key=mean.get) == "QD"
    assert round(best - mean["AS"], 3) == 4.2 and lost_open == 2

    doc = analyse(seed, cards, seats=(0,), from_trick=5)
    bad = [d for d in doc["decisions"] if d["mark"] not in ("forced", "best", "good")]
    assert len(bad) == 1
    d = bad[0]
    assert (d["deal"], d["trick"], d["played"]) == (1, 5, "AS")
    assert d["exact"] and d["worlds"] == 20 and d["consistent"] == "20"
    assert d["lost_seat"] == 4.2 and d["lost_seat_se"] == 0.0
    assert d["mark"] == "mistake" == band(4.2)
    assert d["best_seat"] == ["QD"] and d["lost_open"] == lost_open
    assert d["hindsight"] == band(lost_open) == "inaccuracy"
    for c, v in d["legal"].items():
        assert v["seat"] == round(mean[c], 3) and v["seat_se"] == 0.0
        assert v["open"] == truth[Card.parse(c).id]
    summary = doc["summary"]["0"]
    assert summary["marks"]["mistake"] == 1 and summary["marks"]["blunder"] == 0
    costliest = [(c["deal"], c["trick"], c["played"], c["better"]) for c in summary["costliest"]]
    assert costliest == [(1, 5, "AS", "QD")]
    # expert-1's own card there is the best one, and its whole game from trick 5 has no mark.
    base = analyse(seed, expert_cards, seats=(0,), from_trick=5)
    assert [d["played"] for d in base["decisions"] if (d["deal"], d["trick"]) == MISTAKE_AT] == ["QD"]
    assert all(d["mark"] in ("forced", "best", "good") for d in base["decisions"])


def test_exact_decisions_agree_with_brute_force(mistake_game):
    """Every exact decision of both seats from trick 6 (the solvers shared between decisions and
    seats of a deal included): open values from the true hands, seat values over the deals."""
    seed, cards, _ = mistake_game
    doc = analyse(seed, cards, from_trick=6)
    state = GameState(seed)
    mine = iter(cards)
    checked = 0
    rows = iter(doc["decisions"])
    while not state.is_over:
        seat = state.current_player
        if seat in (0, 2) and state.trick_index >= 6:
            d = next(rows)
            assert (d["deal"], d["trick"], d["seat"]) == (state.deal_index, state.trick_index, seat)
            truth = minimax_values(state.hands, state.trick)
            assert {c: v["open"] for c, v in d["legal"].items()} == {str(DECK[c]): v for c, v in truth.items()}
            if not d["forced"] and d["exact"]:
                worlds = replayed_worlds(state, seat)
                brute = [minimax_values(w, state.trick) for w in worlds]
                for c, v in d["legal"].items():
                    assert v["seat"] == round(sum(b[Card.parse(c).id] for b in brute) / len(brute), 3)
                checked += 1
        if seat == 0:
            state.apply(Card.parse(next(mine)))
        else:
            bot_move(state, EXPERT)
    assert next(rows, None) is None and checked >= 5


# -- d. oracle-1 in seat 0: every card best with open hands --------------------------------------------


@pytest.fixture(scope="module")
def oracle_game():
    seed = seed_of(0)
    state = tournament.play_open(seed, (OracleBot(), EXPERT, EXPERT, EXPERT))
    cards = player_cards(build_record(state, EXPERT.id))
    return seed, cards, analyse(seed, cards, seats=(0,))


def test_oracle_game_has_full_open_accuracy(oracle_game):
    seed, cards, doc = oracle_game
    s = doc["summary"]["0"]
    assert s["accuracy_open"] == 100.0 and s["lost_open"] == 0
    assert s["cards"] == len(cards) == len(doc["decisions"]) and s["decisions"] > 5
    for d in doc["decisions"]:
        assert d["lost_open"] == 0 and d["played"] in d["best_open"]
        assert d["hindsight"] in ("forced", "best")
    # Not so from the seat: the oracle's cards are not always the best the seat could know.
    assert s["accuracy"] < 100.0


# -- e. determinism and the position cache -------------------------------------------------------------


@pytest.fixture(scope="module")
def honest_game():
    seed = seed_of(0)
    cards = player_cards(simulate(seed, EXPERT))
    return seed, cards, analyse(seed, cards, seats=(0,))


def dump(doc) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()


def test_analysis_is_deterministic_and_cached(honest_game):
    seed, cards, first = honest_game
    assert dump(analyse(seed, cards, seats=(0,))) == dump(first)
    cache: dict = {}
    seen = []
    doc = analyse(seed, cards, seats=(0,), cache=cache, progress=lambda done, total: seen.append((done, total)))
    assert dump(doc) == dump(first)
    n = len(first["decisions"])
    assert len(cache) == n and seen == [(i, n) for i in range(0, n + 1)]  # the total from the start
    assert all(key.startswith(postmortem.ANALYSIS_ID + ":") for key in cache)
    json.dumps(cache)  # entries are JSON-able (a cache may live in Redis)
    # A cache of poisoned entries is read, not recomputed: the second run uses it.
    again = analyse(seed, cards, seats=(0,), cache=cache)
    assert dump(again) == dump(first)
    poisoned = {k: dict(v, open={c: 0 for c in v["open"]}) for k, v in cache.items()}
    assert analyse(seed, cards, seats=(0,), cache=poisoned)["summary"]["0"]["lost_open"] == 0


def test_decision_key():
    """A decision's cache key names the settings, the seed, the deal and the cards before it: the
    first lead of a deal (no card before it) is not the same position under two seeds."""
    s = postmortem.AnalysisSettings()
    key = postmortem.decision_key(s, seed_of(0), 0, "")
    assert key.startswith(postmortem.ANALYSIS_ID + ":")
    assert len({key, postmortem.decision_key(s, seed_of(1), 0, ""), postmortem.decision_key(s, seed_of(0), 1, ""),
                postmortem.decision_key(s, seed_of(0), 0, "7C"),
                postmortem.decision_key(postmortem.AnalysisSettings(id="analysis-x"), seed_of(0), 0, "")}) == 5
    assert postmortem.decision_key(s, seed_of(0), 0, "7C") == postmortem.decision_key(s, seed_of(0), 0, "7C")


def test_cache_is_shared_between_games(mistake_game):
    """Two games of one seed that part at deal 1, trick 5: the second, analysed with the first's
    cache, is the same document as analysed cold, and the positions before they part are hits."""
    seed, cards, expert_cards = mistake_game
    cache: dict = {}
    analyse(seed, expert_cards, seats=(0, 2), from_trick=5, cache=cache)
    before = dict(cache)
    cold = analyse(seed, cards, seats=(0, 2), from_trick=5)
    warm = analyse(seed, cards, seats=(0, 2), from_trick=5, cache=cache)
    assert dump(warm) == dump(cold)
    shared = sum(1 for d in cold["decisions"] if d["deal"] < 1)
    assert shared and len(cache) - len(before) < len(cold["decisions"])
    # Another seed's game through the same cache: nothing of the first is taken for it.
    other = seed_of(1)
    other_cards = player_cards(simulate(other, EXPERT))
    assert (dump(analyse(other, other_cards, seats=(0, 2), from_trick=5, cache=cache))
            == dump(analyse(other, other_cards, seats=(0, 2), from_trick=5)))


def test_same_bytes_in_another_process(mistake_game):
    """Another interpreter, another hash seed: the same bytes (no set order, no clock, no global
    random state in the result)."""
    seed, cards, _ = mistake_game
    here = dump(analyse(seed, cards, seats=(0, 2), from_trick=5))
    code = ("import json, sys; from postmortem import analyse; seed, cards = json.load(sys.stdin); "
            "doc = analyse(bytes.fromhex(seed), cards, seats=(0, 2), from_trick=5); "
            "sys.stdout.write(json.dumps(doc, sort_keys=True, separators=(',', ':')))")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps([seed.hex(), cards]), env=env,
                         cwd=ROOT, capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.encode() == here


def test_document_is_consistent(honest_game):
    """Each decision's figures agree with its legal cards' values, the marks with their bands and
    margins (a sampled loss within the margin is ``best``), the summary with the decisions."""
    _, cards, doc = honest_game
    assert doc["format"] == postmortem.FORMAT and doc["analysis"] == postmortem.ANALYSIS_ID
    assert doc["rules"] == "muette-1" and doc["seats"] == [0] and doc["from_trick"] == 0
    within_margin = 0
    for d in doc["decisions"]:
        legal = d["legal"]
        assert d["played"] in legal
        if d["forced"]:
            assert len(legal) == 1 and d["mark"] == d["hindsight"] == "forced"
            continue
        opens = {c: v["open"] for c, v in legal.items()}
        seats = {c: v["seat"] for c, v in legal.items()}
        assert d["lost_open"] == max(opens.values()) - opens[d["played"]]
        assert d["lost_seat"] == round(max(seats.values()) - seats[d["played"]], 3)
        assert d["best_open"] == [c for c in opens if opens[c] == max(opens.values())]
        assert d["best_seat"] == [c for c in seats if seats[c] == max(seats.values())]
        assert d["hindsight"] == band(d["lost_open"])
        assert d["mark"] == mark(d["lost_seat"], d["lost_seat_se"], None if d["exact"] else d["worlds"])
        if not d["exact"]:
            assert d["worlds"] == postmortem.AnalysisSettings().samples(8 - d["trick"])
        if d["lost_seat"] > 0 and d["mark"] == "best":
            within_margin += 1
            assert d["lost_seat"] <= clear(d["worlds"]) * d["lost_seat_se"]
    assert within_margin  # this game has sampled losses too small to call
    s = doc["summary"]["0"]
    assert sum(s["marks"].values()) == s["cards"] == len(cards)
    assert s["lost_open"] == sum(d["lost_open"] for d in doc["decisions"])
    assert s["lost_seat"] == round(sum(d["lost_seat"] for d in doc["decisions"]), 2)
    assert [b["deal"] for b in s["by_deal"]] == [d["index"] for d in simulate(doc["seed"], EXPERT)["deals"]]


def test_sampled_decision_from_its_stream(honest_game):
    """A sampled decision's deals are the ones drawn from the stream its seed and place name
    (``world_stream``), as many as the settings say, each solved exactly (oracle.solve)."""
    from postmortem.game import world_stream
    from bots import oracle

    seed, cards, doc = honest_game
    d = next(d for d in doc["decisions"] if not d["forced"] and not d["exact"] and d["lost_seat_se"] > 0)
    state = _position_at(seed, cards, (d["deal"], d["trick"]))
    settings = postmortem.AnalysisSettings()
    obs = state.observation(0)
    cons = Constraints(Knowledge(obs))
    rng = world_stream(settings, seed, d["deal"], 0, d["trick"])
    worlds = [cons.draw(rng) for _ in range(settings.samples(obs.hand_mask.bit_count()))]
    assert len(worlds) == d["worlds"] and str(cons.count) == d["consistent"]
    solved = [oracle.solve((w, state.trick)) for w in worlds]
    n = len(worlds)

    def se(xs):
        m = sum(xs) / n
        return math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1) / n)

    for c, v in d["legal"].items():
        xs = [s[Card.parse(c)] for s in solved]
        assert v["seat"] == round(sum(xs) / n, 3)
        assert v["seat_se"] == round(se(xs), 3)
    # The loss's standard error is the paired one: best minus played, deal by deal.
    best = max(d["legal"], key=lambda c: (d["legal"][c]["seat"], -Card.parse(c).id))
    played = Card.parse(d["played"])
    paired = [s[Card.parse(best)] - s[played] for s in solved]
    assert d["lost_seat_se"] == round(se(paired), 3)


# -- f. bad input ----------------------------------------------------------------------------------------


def _rejected(seed, cards):
    with pytest.raises(SubmissionRejected) as info:
        analyse(seed, cards, seats=(0,), from_trick=7)
    return info.value.rejection


def test_bad_games_are_rejected_by_the_verifier(honest_game):
    seed, cards, _ = honest_game
    r = _rejected(seed, cards[:-1])
    assert r.code == "game_incomplete" and r.index == len(cards) - 1
    r = _rejected(seed, cards + ["7C"])
    assert r.code == "extra_cards" and r.index == len(cards)
    r = _rejected(seed, ["ZZ"] + cards[1:])
    assert r.code == "unknown_card" and r.index == 0
    state = GameState(seed)
    while state.current_player != 0:
        bot_move(state, EXPERT)
    stranger = next(c for c in DECK if not state.hands[0] & c.bit)
    r = _rejected(seed, [str(stranger)] + cards[1:])
    assert r.code == "not_in_hand" and r.index == 0
    # The first of seat 0's cards where some card of its hand was not legal: play that one.
    state = GameState(seed)
    for i, card in enumerate(cards):
        while state.current_player != 0:
            bot_move(state, EXPERT)
        hand, legal = state.hands[0], state.legal_mask()
        if hand != legal:
            bad = DECK[next(iter_ids(hand & ~legal))]
            led = state.trick.plays[0].card.suit
            follows = any(c.suit == led for c in state.hand(0))
            want = (("must_follow_suit" if bad.suit != led else "must_beat") if follows
                    else ("must_trump" if bad.suit != state.trick.trump else "must_overtrump"))
            r = _rejected(seed, cards[:i] + [str(bad)] + cards[i + 1:])
            assert r.code == want and r.index == i and r.card == str(bad)
            break
        state.apply(Card.parse(card))
    else:
        pytest.fail("no illegal card to try in this game")
    with pytest.raises(InvalidSeedError):
        analyse("00" * 31, cards)


@pytest.mark.parametrize("rules", ["parlee-1", "manillen-1", "muette-2"])
def test_other_rules_are_refused(honest_game, rules):
    seed, cards, _ = honest_game
    with pytest.raises(AnalysisError):
        analyse(seed, cards, rules=rules)
    with pytest.raises(AnalysisError):  # before the cards are even read
        analyse(seed, ["ZZ"], rules=rules)


# -- g. the hidden-information statistic ------------------------------------------------------------------


def test_hindsight_of_the_baseline_itself_is_exactly_zero(honest_game):
    """expert-1 in seat 0 plays the baseline's card at every decision: nothing departs, nothing counts."""
    _, _, doc = honest_game
    s = doc["summary"]["0"]["hindsight"]
    assert (s["z"], s["gain"], s["var"], s["departures"], s["drivers"]) == (0.0, 0.0, 0.0, 0, [])
    assert all(d["played"] == d["baseline"] for d in doc["decisions"])


@pytest.fixture(scope="module")
def greedy_game():
    seed = seed_of(0)
    cards = player_cards(simulate(seed, EXPERT, get_bot("greedy-1")))
    return seed, cards, analyse(seed, cards, seats=(0,), from_trick=1)


def test_hindsight_of_an_honest_game(greedy_game):
    _, _, doc = greedy_game
    s = doc["summary"]["0"]["hindsight"]
    assert math.isfinite(s["z"]) and s["var"] > 0
    assert s["z"] == pytest.approx(s["gain"] / math.sqrt(s["var"]), abs=0.02)
    assert s["departures"] >= len(s["drivers"]) > 0
    gains = [x["gain"] for x in s["drivers"]]
    assert gains == sorted(gains, reverse=True)
    rows = {(d["deal"], d["trick"]): d for d in doc["decisions"]}
    for x in s["drivers"]:
        d = rows[(x["deal"], x["trick"])]
        assert (x["played"], x["gain"], x["baseline"]) == (d["played"], d["luck"]["gain"], d["baseline"])
        assert d["played"] != d["baseline"]
    later = hindsight.score(doc["decisions"], 0, from_trick=3)
    assert later["decisions"] == sum(1 for d in doc["decisions"] if not d["forced"] and d["trick"] >= 3)


@pytest.mark.parametrize("extra", ["KH", "KH AC", "9H", "9H AC"])
def test_hindsight_null_is_exact(extra):
    """For an exact decision, were the true deal any of the consistent ones (each equally likely),
    a card's gain averages 0 and its square averages the variance given: the null of the z."""
    state = scripted(extra)
    seat = state.current_player
    obs = state.observation(seat)
    cons = Constraints(Knowledge(obs))
    worlds = cons.every()
    ev = evaluate_worlds(obs, worlds, True, cons.count)
    assert len(ev.cards) > 1
    baseline = ev.cards[0]
    per_world = [hindsight.per_card(ev, {c: ev.values[c][i] for c in ev.cards}, baseline)
                 for i in range(len(worlds))]
    departures = 0
    for c in ev.cards:
        name = str(DECK[c])
        gains = [p[name]["gain"] for p in per_world]
        var = per_world[0][name]["var"]
        assert all(p[name]["var"] == var for p in per_world)
        if c == baseline:
            assert set(gains) == {0.0} and var == 0.0
            continue
        departures += 1
        assert abs(sum(gains) / len(gains)) < 1e-3
        assert sum(g * g for g in gains) / len(gains) == pytest.approx(var, abs=5e-3)
    assert departures


# -- h. the marks ------------------------------------------------------------------------------------------


def test_band_edges():
    assert [b for _, b in BANDS] == ["best", "good", "inaccuracy", "mistake"]
    assert band(0) == band(0.0) == band(-1) == "best"
    assert band(1e-9) == band(1.0) == "good"
    assert band(1.001) == band(3.0) == "inaccuracy"
    assert band(3.001) == band(6.0) == "mistake"
    assert band(6.001) == band(61) == "blunder"
    assert set(MARKS) == {"forced", "best", "good", "inaccuracy", "mistake", "blunder"}


def test_clear_edges():
    assert clear(0) == clear(1) == math.inf  # no degrees of freedom: nothing is clear
    assert clear(2) == 12.71 and clear(3) == 4.30 and clear(11) == 2.23
    assert clear(12) == 2.23  # df 11 is not tabulated: the next lower one's, wider
    assert clear(13) == 2.18 and clear(24) == 2.07 and clear(32) == clear(10 ** 6) == 2.04
    values = [clear(n) for n in range(2, 60)]
    assert values == sorted(values, reverse=True)


def test_mark_edges():
    assert mark(0.0, 0.0) == mark(1e-10, 0.0) == mark(-0.5, 0.0) == "best"
    assert mark(0.001, 0.0) == "good"  # exact values: any loss counts
    assert mark(4.0, 0.0) == "mistake" and mark(7.0, 0.0) == "blunder"
    assert mark(4.30, 1.0, 3) == "best"  # on the margin: 4.30 standard errors with 3 deals
    assert mark(4.31, 1.0, 3) == "mistake"
    assert mark(30.0, 1.0, 2) == "blunder" and mark(12.7, 1.0, 2) == "best"
    assert mark(50.0, 0.1, 1) == "best"  # one deal drawn: no margin is enough
    assert mark(2.0, 0.0, 32) == "inaccuracy"  # sampled but no spread: the loss is clear
