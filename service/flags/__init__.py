"""Suspicion flags of a verified submission, computed by the worker when it verifies the game (the
hidden-information ones once the game's analysis is done) and kept with it.

Replay proves every card legal, not that the player did not know the hidden cards.  Each flag is
a suspicion with its evidence, never an informational note:

``explored``    other runs of the day, from any token or address, followed this game's cards and
                then played another card at its decision points, deep into the game, and were
                not submitted: probes of a search of the day's game tree (a run of an open day
                is an exact simulator).  Read from the day's tree of paths (``Runs.path_counts``),
                which counts the runs not submitted; no address needed, so a search spread over
                many addresses shows too.  Honest players seldom follow one game exactly for many
                decisions, so the branch points are counted from the ``explored_depth``-th
                decision on, and it takes ``explored_points`` of them.  When the game's address
                opened ``many_runs`` (below), its own unsubmitted runs suffice with fewer:
                ``explored_points_many_runs`` branch points from the first decision, each naming
                its run (the limits cut a search from one address short before it gets deep).
``probed``      runs of the day, from any token or address, followed this game's cards, tried another
                card at several of its decisions, played on to the end far faster than a person
                reads the table, and were never submitted: a shallow search of the day's game
                (``service.runs.around``), a few throwaway runs where ``explored`` needs many
                deep branch points.  A day's players share the first cards of a deal, and a
                few honest ones click fast and never submit: a decision counts only where its
                fast throwaway runs are more than ``probed_share`` of the runs that left there
                would give by chance (binomial, below ``probed_alpha``), so a crowded day's
                early decisions count for little and a quiet day's for much; a fast run that
                played the whole line is one more point; it takes ``probed_points``.
``many_runs``   ``many_runs`` or more ranked runs of the day opened from the run's address.
``speed``       the player's cards came faster than a person reads the table, over the whole game.
``outlier``     a score far above the day's distribution (only once the day has enough scores).
``hindsight``   the player's cards turned out better *with hindsight* (open hands) than what the
                seat knew could expect (``postmortem.hindsight``: the z-score of the open-hand
                advantage of each card played over expert-1's in the same seat, less the advantage
                the consistent deals predicted): someone who knew the hidden cards and used them only
                where it paid, whom ``oracle``'s agreement rate misses.  Computed by the analysis
                worker for games that would rank in the day's top 1,000 or above its 99th
                percentile, and for any game ops ask for; its figures are kept with the game
                (``hindsight``) whether or not they flag, the decisions that drive it included.
                One game holds little such evidence (docs/analysis.md: about half of the games
                where open hands gained 30 card points pass it, or fewer), so it is added up over games:
``hindsight_player``  the player's last checked games *together* turned out better with hindsight
                than their seats could expect: the same statistic over their ``hindsight_player_games``
                most recent checked games (sums of gains and of null variances: independent deals,
                one test).  Someone who plays the hidden cards every day passes it within a week.
                Noted on the game whose check completes the evidence, the games listed.
``oracle``      the player's cards agree with perfect-information play (``oracle-1``'s solver, all
                four hands known) far more often than ``expert-1``'s do from the same seat on the
                same day: someone who knew the hidden cards.  Counted on *decisive* decisions
                (some legal card is worse than the best), from trick ``oracle_from_trick`` of each
                deal (earlier positions cost up to seconds each to solve).

Thresholds are ``FlagSettings`` (configuration); ``hold`` names the flags strong enough to keep
a submission off the public boards until ops decide.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field


#: Each flag in a sentence, as the API gives it beside the flag and the ops page shows it
#: (docs/analysis.md says the same at length).
DESCRIPTIONS = {
    "explored": "Other runs of the day followed this game and branched off at many of its decisions deep "
                "into the game, never submitted: a search of the day's game tree",
    "probed": "Fast throwaway runs of the day, from any address, followed this game and tried other cards "
              "at several of its decisions, never submitted: a shallow search of the day's game",
    "many_runs": "Many ranked runs of the day were opened from this address",
    "speed": "The player's cards came faster than a person reads the table",
    "outlier": "A score far above the day's distribution",
    "oracle": "The player's cards agreed with perfect-information play (all four hands known) far more "
              "often than expert-1's from the same seat: someone who knew the hidden cards",
    "hindsight": "The cards turned out better with hindsight than what the seat knew could expect",
    "hindsight_player": "The player's recent games, together, turned out better with hindsight than their "
                        "seats could expect",
}


def described(flags: list[dict]) -> list[dict]:
    """``flags`` (``{"code", "evidence"}``) each with its ``description`` (``DESCRIPTIONS``; '' for
    a code this version does not know)."""
    return [{**f, "description": DESCRIPTIONS.get(f["code"], "")} for f in flags]


@dataclass(frozen=True)
class FlagSettings:
    explored_points: int = 8     # decision points where other unsubmitted runs branched off ...
    explored_depth: int = 4      # ... counted from the player's decision number this deep
    probed_points: int = 3       # decisions where fast, finished, unsubmitted runs left the game ...
    probed_median_ms: int = 500  # ... a run's median time between cards below this being fast ...
    probed_share: float = 0.002  # ... more of them than this share of the runs that left there ...
    probed_alpha: float = 0.01   # ... makes likely below this
    many_runs: int = 5           # ranked runs of the day from one address
    explored_points_many_runs: int = 4  # branch points by runs of the game's own address that
                                        # suffice when that address opened many runs
    speed_median_ms: int = 900   # median time between the player's cards below this ...
    speed_min_cards: int = 16    # ... over at least this many intervals
    outlier_min_scores: int = 30 # no outlier before the day has this many scores
    outlier_z: float = 4.0       # robust z-score (median and MAD) above which a score is an outlier
    oracle_from_trick: int = 2   # decisions from this trick of each deal (0-based) are solved
    oracle_min_decisive: int = 12  # no oracle flag on fewer decisive decisions
    oracle_rate: float = 0.95    # agreement at or above this on decisive decisions ...
    oracle_over_expert: float = 0.10  # ... and this far above expert-1's on the same day
    # Measured on a searching day's bots, with the check hindsight-2 (docs/performance.md#the-flags):
    # no honest game of 480 reached the game's z; the games together, slightly over 0.5 % of the
    # strongest honest players.
    hindsight_z: float = 4.0     # the hindsight statistic's z-score at or above this ...
    hindsight_gain: float = 10.0  # ... with at least these card points gained over expert-1's cards
    hindsight_from_trick: int = 1  # decisions from this trick of each deal count
    hindsight_player_games: int = 7  # a player's most recent checked games, this many, together ...
    hindsight_player_min: int = 3    # ... once there are at least this many of them ...
    hindsight_player_z: float = 4.5  # ... at or above this z (and hindsight_gain card points)
    hold: frozenset = field(default_factory=lambda: frozenset({"explored"}))

    @classmethod
    def from_env(cls, environ) -> "FlagSettings":
        def num(name, default, kind=int):
            value = environ.get(f"MANILLE_FLAG_{name.upper()}")
            return kind(value) if value not in (None, "") else default
        base = cls()
        hold = environ.get("MANILLE_FLAG_HOLD")
        return cls(
            explored_points=num("explored_points", base.explored_points),
            explored_depth=num("explored_depth", base.explored_depth),
            probed_points=num("probed_points", base.probed_points),
            probed_median_ms=num("probed_median_ms", base.probed_median_ms),
            probed_share=num("probed_share", base.probed_share, float),
            probed_alpha=num("probed_alpha", base.probed_alpha, float),
            many_runs=num("many_runs", base.many_runs),
            explored_points_many_runs=num("explored_points_many_runs", base.explored_points_many_runs),
            speed_median_ms=num("speed_median_ms", base.speed_median_ms),
            speed_min_cards=num("speed_min_cards", base.speed_min_cards),
            outlier_min_scores=num("outlier_min_scores", base.outlier_min_scores),
            outlier_z=num("outlier_z", base.outlier_z, float),
            oracle_from_trick=num("oracle_from_trick", base.oracle_from_trick),
            oracle_min_decisive=num("oracle_min_decisive", base.oracle_min_decisive),
            oracle_rate=num("oracle_rate", base.oracle_rate, float),
            oracle_over_expert=num("oracle_over_expert", base.oracle_over_expert, float),
            hindsight_z=num("hindsight_z", base.hindsight_z, float),
            hindsight_gain=num("hindsight_gain", base.hindsight_gain, float),
            hindsight_from_trick=num("hindsight_from_trick", base.hindsight_from_trick),
            hindsight_player_games=num("hindsight_player_games", base.hindsight_player_games),
            hindsight_player_min=num("hindsight_player_min", base.hindsight_player_min),
            hindsight_player_z=num("hindsight_player_z", base.hindsight_player_z, float),
            hold=base.hold if hold is None else frozenset(c.strip() for c in hold.split(",") if c.strip()),
        )


def player_decisions(record: dict) -> list[tuple[str, list[str]]]:
    """Seat 0's cards in order, each with the cards it could legally have played."""
    return [(p["card"], p["legal"]) for d in record["deals"] for t in d["tricks"]
            for p in t["plays"] if p["seat"] == 0]


def explored(decisions, path_counts, settings: FlagSettings) -> dict | None:
    """Where other runs followed this game and branched off.  ``path_counts(prefixes)`` gives,
    for each sequence of first cards, how many runs of the day not submitted began with it
    (a game submitted is one played, not a probe)."""
    found = _branches(decisions, path_counts, settings.explored_depth)
    return found if found and found["points"] >= settings.explored_points else None


def explored_from_address(decisions, other_runs: dict[str, list[str]], settings: FlagSettings) -> dict | None:
    """The same search, seen in the unsubmitted runs of the game's own address (``other_runs``:
    run id -> its cards), when that address opened many runs: the limits cut a search from one
    address short before it gets deep, so fewer branch points suffice, counted from the first
    decision, and each names its run."""
    cards = [c for c, _ in decisions]
    decision_at = {k for k, (_, legal) in enumerate(decisions) if len(legal) > 1}
    points: dict[int, dict] = {}
    for run_id, theirs in other_runs.items():
        k = next((i for i, (a, b) in enumerate(zip(cards, theirs)) if a != b), None)
        if k is not None and k in decision_at:
            point = points.setdefault(k, {"index": k, "played": cards[k], "tried": {}, "runs": []})
            point["tried"][theirs[k]] = point["tried"].get(theirs[k], 0) + 1
            point["runs"].append(run_id)
    if len(points) < settings.explored_points_many_runs:
        return None
    branches = sorted(points.values(), key=lambda p: p["index"])
    return {"points": len(branches), "runs": sum(len(p["runs"]) for p in branches),
            "deepest": branches[-1]["index"], "branches": branches, "same_address": True}


def _branches(decisions, path_counts, depth: int) -> dict | None:
    queries, where = [], []
    cards = [c for c, _ in decisions]
    decision_no = 0
    for k, (card, legal) in enumerate(decisions):
        if len(legal) < 2:
            continue  # a forced card is no decision
        decision_no += 1
        if decision_no < depth:
            continue
        prefix = "".join(cards[:k])
        for alt in legal:
            if alt != card:
                queries.append(prefix + alt)
                where.append((k, card, alt))
    if not queries:
        return None
    reached = path_counts(queries)
    points: dict[int, dict] = {}
    for (k, card, alt), n in zip(where, reached):
        if n > 0:
            point = points.setdefault(k, {"index": k, "played": card, "tried": {}})
            point["tried"][alt] = n
    if not points:
        return None
    branches = sorted(points.values(), key=lambda p: p["index"])
    return {"points": len(branches), "runs": sum(sum(p["tried"].values()) for p in branches),
            "deepest": branches[-1]["index"], "branches": branches}


def probed(decisions, runs: list[dict], settings: FlagSettings, crowd: dict[int, int] | None = None) -> dict | None:
    """A shallow search around the game: ``runs`` as ``service.runs.around`` lists them (each its
    ``left``: index and card tried, or None; ``whole``; ``finished``; ``submitted``; ``pace``), and
    ``crowd``: how many runs not listed left the game at each index (around's ``earlier``; at
    the game's length, those that played it whole).  A
    probe is finished, never submitted and fast (median gap below ``probed_median_ms``).  A
    decision is a point when its probes are more than honest players' fast throwaway runs (at most
    ``probed_share`` of the runs that left there) make likely: below ``probed_alpha`` under a
    binomial; a whole-line probe is one more point so judged.  It takes ``probed_points``."""
    crowd = crowd or {}
    left_at: dict[int, int] = {}
    whole = 0
    for run in runs:
        if run["whole"]:
            whole += 1
        elif run["left"]:
            left_at[run["left"]["index"]] = left_at.get(run["left"]["index"], 0) + 1
    points: dict[int, dict] = {}
    fast_whole = []
    for run in runs:
        median = run["pace"]["median_ms"]
        if run["submitted"] or not run["finished"] or median is None or median >= settings.probed_median_ms:
            continue
        if run["whole"]:
            fast_whole.append(run["run_id"])
        elif run["left"] and len(decisions[run["left"]["index"]][1]) > 1:
            k = run["left"]["index"]
            point = points.setdefault(k, {"index": k, "played": run["left"]["played"], "tried": {}, "runs": [],
                                          "left_there": left_at[k] + crowd.get(k, 0)})
            point["tried"][run["left"]["tried"]] = point["tried"].get(run["left"]["tried"], 0) + 1
            point["runs"].append(run["run_id"])
    for p in points.values():
        p["p"] = _tail(p["left_there"], len(p["runs"]), settings.probed_share)
    branches = sorted((p for p in points.values() if p["p"] < settings.probed_alpha), key=lambda p: p["index"])
    whole_p = _tail(whole + crowd.get(len(decisions), 0), len(fast_whole), settings.probed_share) if fast_whole else 1.0
    score = len(branches) + (whole_p < settings.probed_alpha)
    if score < settings.probed_points:
        return None
    return {"points": score, "branches": branches,
            "whole": fast_whole if whole_p < settings.probed_alpha else [], "whole_p": whole_p,
            "runs": sum(len(p["runs"]) for p in branches) + (len(fast_whole) if whole_p < settings.probed_alpha else 0),
            "median_ms_below": settings.probed_median_ms, "share": settings.probed_share,
            "alpha": settings.probed_alpha}


def _tail(n: int, k: int, q: float) -> float:
    """P(X >= k) for X binomial(n, q): how likely ``k`` of ``n`` runs are fast throwaways by chance
    (summed over the ``k`` terms below it: k is a few runs, n up to a day's players)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    below = sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                         + i * math.log(q) + (n - i) * math.log1p(-q)) for i in range(k))
    if below > 0.999:  # 1 - below loses digits: the upper tail summed instead, from k on
        term, total = math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                               + k * math.log(q) + (n - k) * math.log1p(-q)), 0.0
        for i in range(k, n + 1):
            total += term
            if term < total * 1e-12:
                break
            term *= (n - i) / (i + 1) * q / (1 - q)
        return round(min(1.0, total), 10)
    return round(max(0.0, 1.0 - below), 10)


def many_runs(address: str, run_ids: list[str], run_id: str, settings: FlagSettings) -> dict | None:
    if len(run_ids) < settings.many_runs:
        return None
    others = [r for r in run_ids if r != run_id]
    return {"address": address, "runs": len(run_ids), "other_runs": others[:50]}


def speed(times_ms: list[int], settings: FlagSettings) -> dict | None:
    gaps = [b - a for a, b in zip(times_ms, times_ms[1:])]
    if len(gaps) < settings.speed_min_cards:
        return None
    median = statistics.median(gaps)
    if median >= settings.speed_median_ms:
        return None
    return {"median_ms": int(median), "fastest_ms": min(gaps), "cards": len(times_ms),
            "game_seconds": round((times_ms[-1] - times_ms[0]) / 1000, 1)}


def outlier(score: int, day_scores: dict[int, int], settings: FlagSettings) -> dict | None:
    """``day_scores``: how many other verified games of the day got each score."""
    n = sum(day_scores.values())
    if n < settings.outlier_min_scores:
        return None
    values = sorted(s for s, c in day_scores.items() for _ in range(c))
    median = statistics.median(values)
    mad = statistics.median(abs(v - median) for v in values)
    spread = 1.4826 * mad if mad else statistics.pstdev(values)
    if not spread:
        return None
    z = (score - median) / spread
    if z <= settings.outlier_z or score <= values[-1]:
        return None  # not beyond the day's best either: a strong score among strong ones
    return {"score": score, "median": median, "spread": round(spread, 1), "z": round(z, 1),
            "scores": n, "best_other": values[-1]}


def agreement(seed, record: dict, from_trick: int, seat: int = 0) -> dict:
    """How often ``seat``'s cards in ``record`` were among the perfect-information best cards,
    on its decisive decisions from trick ``from_trick`` of each deal; with each decision (deal,
    trick, card played, the oracle's best cards) for the ops replay viewer."""
    from bots.oracle import best_cards
    from bots.solver import Solver
    from service.replay import Card, GameState

    state = GameState(seed)
    decisive = agreed = 0
    choices = []
    for d in record["deals"]:
        solver = None
        for t_index, trick in enumerate(d["tricks"]):
            for play in trick["plays"]:
                if play["seat"] == seat and t_index >= from_trick and len(play["legal"]) > 1:
                    if solver is None:
                        solver = Solver(int(state.trick.trump))
                    best = best_cards(state, solver)
                    if len(best) < len(play["legal"]):
                        decisive += 1
                        hit = Card.parse(play["card"]) in best
                        agreed += hit
                        choices.append({"deal": d["index"], "trick": t_index, "card": play["card"],
                                        "oracle": sorted(str(c) for c in best), "agreed": hit})
                state.apply(Card.parse(play["card"]))
    return {"decisive": decisive, "agreed": agreed,
            "rate": round(agreed / decisive, 4) if decisive else None, "choices": choices}


def oracle(player: dict, expert: dict, settings: FlagSettings) -> dict | None:
    """``player`` and ``expert`` as ``agreement`` gives them (expert-1 in the same seat, same day)."""
    if player["decisive"] < settings.oracle_min_decisive or player["rate"] is None:
        return None
    expert_rate = expert["rate"] or 0.0
    if player["rate"] < settings.oracle_rate or player["rate"] < expert_rate + settings.oracle_over_expert:
        return None
    return {"decisive": player["decisive"], "agreed": player["agreed"], "rate": player["rate"],
            "expert_rate": expert["rate"], "expert_decisive": expert["decisive"],
            "from_trick": settings.oracle_from_trick, "choices": player["choices"]}


def hindsight(score: dict, settings: FlagSettings) -> bool:
    """``postmortem.hindsight.score`` of seat 0: do its cards turn out better with hindsight than the
    seat's knowledge could expect, by enough and clearly enough to be someone who saw the hands?"""
    return score["z"] >= settings.hindsight_z and score["gain"] >= settings.hindsight_gain


def hindsight_together(games: list[dict], settings: FlagSettings) -> dict | None:
    """A player's checked games together (``games``: newest first, each ``postmortem.hindsight.score``
    with its ``submission_id`` and ``date``): the figures of the last ``hindsight_player_games``
    of them, or None below ``hindsight_player_min`` games.  Games are independent deals, so their
    gains and null variances add, and so does the test."""
    games = games[:settings.hindsight_player_games]
    if len(games) < settings.hindsight_player_min:
        return None
    gain = sum(g["gain"] for g in games)
    var = sum(g["var"] for g in games)
    return {"games": [{"submission_id": g["submission_id"], "date": g["date"], "z": g["z"], "gain": g["gain"]}
                      for g in games],
            "gain": round(gain, 2), "var": round(var, 2), "z": round(gain / math.sqrt(var), 2) if var > 0 else 0.0,
            "z_threshold": settings.hindsight_player_z, "gain_threshold": settings.hindsight_gain}


def hindsight_player(together: dict | None, settings: FlagSettings) -> bool:
    """``hindsight_together``'s figures: do the player's games, together, flag?"""
    return bool(together) and together["z"] >= settings.hindsight_player_z and together["gain"] >= settings.hindsight_gain


def hindsight_due(score: int, day_scores: dict[int, int], top: int = 1000, share: float = 0.01) -> bool:
    """Whether a verified score is worth the (dear) hidden-information check: it would rank in the
    day's ``top`` (ties share the rank), or, once the day has 100 scores, in its best ``share``."""
    above = sum(c for s, c in day_scores.items() if s > score)
    n = sum(day_scores.values())
    return above < top or (n >= 100 and above <= share * n)


def held(flags: list[dict], settings: FlagSettings) -> bool:
    return any(f["code"] in settings.hold for f in flags)
