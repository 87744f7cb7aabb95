"""A finished game judged card by card, two ways: with open hands and from the seat.

For every card of the seats analysed (the player, seat 0, and the partner, seat 2), at the moment
it was played:

- ``open``: each legal card's exact double-dummy value with all four hands as they were (what was
  best with hindsight: ``bots.oracle``);
- ``seat``: each legal card's mean value over the deals of the hidden cards that agreed with what
  the seat knew then (``bots.evaluate``), with its standard error;

both in card points the seat's team takes from that trick to the end of the deal.  A decision's
``lost_seat`` is the best ``seat`` value less the played card's, its ``mark`` the band of that loss
(``postmortem.settings``), and ``lost_open`` / ``hindsight`` the same with open hands.

The hidden-information statistic (``postmortem.hindsight``) is built from the same values, so the
ops flag and the player's review can never disagree about a card.

Everything is a pure function of (seed, rules, the game's cards, the settings): the deals drawn
come from streams named by the seed and the decision, never from a clock or the global random
state.  ``cache`` (a mapping of decision keys to their finished entries) lets positions that
many players reach be computed once: an entry is the same whichever game reached it.  So a
document is also a pure function of the game's record and its decisions' entries: given both
(``replay_record``, ``decision_keys``), ``analyse`` computes nothing and gives the same bytes.
"""

from __future__ import annotations

import hashlib
from typing import Callable, MutableMapping

from bots import get_bot
from bots.evaluate import seat_values
from bots.solver import Solver
from service.replay import Card, GameState, HashStream, build_record, decision_stream, verify
from service.replay.cards import DECK
from service.replay.stream import u32be

from . import hindsight
from .settings import AnalysisSettings, band, mark
from .summary import summarise

FORMAT = "manille-analysis/1"
SEATS = (0, 2)


class AnalysisError(ValueError):
    """A game that cannot be analysed (rules the solver does not know; the rejection of an invalid
    game is the verifier's SubmissionRejected)."""


def decision_key(settings: AnalysisSettings, seed: bytes, deal: int, history: str) -> str:
    """The key of a decision's entry: the settings, the seed, the deal and the cards of the deal
    played before it (they fix the hands, the seat to move and everything it saw)."""
    h = hashlib.sha256(seed + u32be(deal) + history.encode()).hexdigest()[:32]
    return f"{settings.id}:{h}"


#: The baseline of the hidden-information statistic: the card expert-1 would play, whatever the game's
#: bots (docs/analysis.md says why: any card chosen from the seat's knowledge keeps the statistic
#: centred on 0 for honest players, and expert-1's costs no search).
BASELINE = "expert-1"


def world_stream(settings: AnalysisSettings, seed: bytes, deal: int, seat: int, trick: int) -> HashStream:
    """The stream the deals of one decision are drawn from."""
    return HashStream(settings.id.encode() + b"\x00" + seed + u32be(deal) + u32be(seat) + u32be(trick))


def game_plays(record: dict) -> list[str]:
    """Every card of a game's record, all seats, in the order played."""
    return [p["card"] for d in record["deals"] for t in d["tricks"] for p in t["plays"]]


def game_record(seed: bytes | str, cards, *, bots: str = "expert-1", rules: str = "muette-1", bot=None) -> dict:
    """The verified record of the game ``analyse`` judges (its errors: SubmissionRejected,
    AnalysisError); ``bot``: ``bots`` as the caller has it (through the day's decision cache)."""
    if rules != "muette-1":
        raise AnalysisError(f"the analysis knows muette-1 only, not {rules}: its solver plays "
                            f"muette-1's legal cards and last-trick point")
    return verify(seed, cards, bot if bot is not None else get_bot(bots))


def replay_record(seed: bytes, plays: list[str], bots: str) -> dict:
    """The record ``verify`` gave for a game whose every card (``game_plays``) is known: the cards
    replayed as they were played, no bot asked (a bot's choice is in ``plays`` already)."""
    state = GameState(seed)
    for card in plays:
        state.apply(Card.parse(card))
    return build_record(state, bots)


def _walk(record: dict, seats, from_trick: int):
    """Each play of ``record``: (deal, trick index, play, the deal's cards before it, analysed?)."""
    for d in record["deals"]:
        history = ""
        for t_index, trick in enumerate(d["tricks"]):
            for play in trick["plays"]:
                yield d, t_index, play, history, play["seat"] in seats and t_index >= from_trick
                history += play["card"]


def decision_keys(record: dict, *, seats=SEATS, settings: AnalysisSettings | None = None,
                  from_trick: int = 0) -> list[str]:
    """The cache keys of the decisions ``analyse`` judges in the game of ``record``, in order."""
    settings = settings or AnalysisSettings()
    seed = bytes.fromhex(record["seed"])
    return [decision_key(settings, seed, d["index"], history)
            for d, _t, _play, history, analysed in _walk(record, seats, from_trick) if analysed]


def analyse(seed: bytes | str, cards, *, bots: str = "expert-1", rules: str = "muette-1",
            seats=SEATS, settings: AnalysisSettings | None = None,
            cache: MutableMapping[str, dict] | None = None,
            progress: Callable[[int, int], None] | None = None, from_trick: int = 0,
            record: dict | None = None, bot=None) -> dict:
    """The analysis document of the game seat 0 played with ``cards`` against ``bots``.

    Raises SubmissionRejected (the verifier's, typed) when the cards are not a valid finished
    game, AnalysisError for rules other than muette-1.  ``progress(done, total)`` is called after
    each decision of the seats analysed.  ``from_trick``: only the cards of that trick of each deal
    on are analysed (the measurements of the hidden-information flag: ``flag_from_trick``).
    ``record``: the game's record, when the caller has it (``verify``'s, or ``replay_record``'s),
    instead of verifying ``cards`` again; ``bot``: ``bots`` itself, as the caller has it (through
    the day's decision cache: the worker), to verify them with.  The baseline of the
    hidden-information statistic is ``BASELINE`` whatever ``bots`` are.
    """
    settings = settings or AnalysisSettings()
    if record is None:
        record = game_record(seed, cards, bots=bots, rules=rules, bot=bot)
    baseline = get_bot(BASELINE)
    seed_b = bytes.fromhex(record["seed"])
    total = sum(1 for d in record["deals"] for t in d["tricks"][from_trick:] for p in t["plays"]
                if p["seat"] in seats)
    done = 0
    if progress is not None:
        progress(0, total)
    decisions = []
    state = GameState(seed_b)
    truth = sampled = None
    for d, t_index, play, history, analysed in _walk(record, seats, from_trick):
        if not history:  # a deal begins: the true hands' solver, one table for the whole deal
            truth, sampled = Solver(int(state.trick.trump)), Solver(int(state.trick.trump))
        if analysed:
            key = decision_key(settings, seed_b, d["index"], history)
            entry = cache.get(key) if cache is not None else None
            if entry is None:
                entry = _decision(settings, state, play["seat"], truth, sampled, baseline)
                if cache is not None:
                    cache[key] = entry
            decisions.append({"deal": d["index"], "trick": t_index, "seat": play["seat"],
                              "played": play["card"], **_judge(entry, play["card"])})
            done += 1
            if progress is not None:
                progress(done, total)
        state.apply(Card.parse(play["card"]))
    return {"format": FORMAT, "analysis": settings.id, "rules": record["rules"], "bots": record["bots"],
            "seed": record["seed"], "seats": list(seats), "from_trick": from_trick, "decisions": decisions,
            "summary": summarise(decisions, seats, [d["index"] for d in record["deals"]]),
            "totals": record["totals"], "rank_score": record["rank_score"]}


def _decision(settings: AnalysisSettings, state: GameState, seat: int, truth: Solver, sampled: Solver,
              bot) -> dict:
    """Both values of every legal card of the seat to move (the part shared by every game that
    reaches this position; ``_judge`` adds what depends on the card played)."""
    legal = state.legal_mask()
    trick = state.trick
    hands = tuple(state.hands)
    if not legal & (legal - 1):
        c = legal.bit_length() - 1
        return {"forced": True, "open": {str(DECK[c]): truth.card_value(hands, trick, c, state.points[0])}}
    open_values = truth.card_values(hands, trick, state.points[0])
    obs = state.observation(seat)
    ev = seat_values(obs, world_stream(settings, state.seed, state.deal_index, seat, state.trick_index),
                     samples=settings.samples(obs.hand_mask.bit_count()),
                     enumerate_up_to=settings.enumerate_up_to, solver=sampled)
    # The baseline of the hidden-information statistic (``BASELINE``): its card here.
    baseline = bot.choose(obs, decision_stream(state.seed, state.deal_index, seat, state.trick_index)).id
    best = max(ev.cards, key=lambda c: (ev.mean(c), -c))
    return {"forced": False, "exact": ev.exact, "worlds": ev.deals, "consistent": str(ev.consistent),
            "open": {str(DECK[c]): open_values[c] for c in ev.cards},
            "seat": {str(DECK[c]): round(ev.mean(c), 3) for c in ev.cards},
            "seat_se": {str(DECK[c]): round(ev.se(c), 3) for c in ev.cards},
            "pair_se": {str(DECK[c]): round(ev.diff_se(best, c), 3) for c in ev.cards},
            "baseline": str(DECK[baseline]), "luck": hindsight.per_card(ev, open_values, baseline)}


def _judge(entry: dict, played: str) -> dict:
    """A decision's document for the card actually played."""
    if entry["forced"]:
        v = entry["open"][played]
        return {"forced": True, "legal": {played: {"open": v, "seat": None, "seat_se": None}},
                "best_open": [played], "best_seat": [played], "lost_open": 0, "lost_seat": 0.0,
                "lost_seat_se": 0.0, "mark": "forced", "hindsight": "forced", "baseline": played}
    order = sorted(entry["open"], key=lambda c: Card.parse(c).id)  # canonical, cached or not
    opens = {c: entry["open"][c] for c in order}
    seats = {c: entry["seat"][c] for c in order}
    ses = entry["seat_se"]
    best_open = max(opens.values())
    best_seat = max(seats.values())
    lost_open = best_open - opens[played]
    lost_seat = round(best_seat - seats[played], 3)
    se = entry["pair_se"][played]
    luck = entry["luck"][played]
    return {"forced": False,
            "legal": {c: {"open": opens[c], "seat": seats[c], "seat_se": ses[c]} for c in opens},
            "best_open": [c for c in opens if opens[c] == best_open],
            "best_seat": [c for c in seats if seats[c] == best_seat],
            "lost_open": lost_open, "lost_seat": lost_seat, "lost_seat_se": se,
            "mark": mark(lost_seat, se, None if entry["exact"] else entry["worlds"]), "hindsight": band(lost_open),
            "exact": entry["exact"], "worlds": entry["worlds"], "consistent": entry["consistent"],
            "baseline": entry["baseline"], "luck": luck}
