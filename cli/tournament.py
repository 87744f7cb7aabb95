"""``manille tournament``: how strong is a bot?  Team A (seats 0, 2) against team B (seats 1, 3).

``games`` is the number of games played and counted; it is even: ``games / 2`` fixed seeds,
``SHA-256("manille-tournament" ‖ uint32be(i))``, each played twice, the second time with the
teams swapped, so that both teams hold the same cards.  Figures are from A's side: games won
(with a 95% Wilson interval), mean final margin and mean rank score (with 95% intervals from the
per-seed means, since the two games of a seed are not independent), and the mean time per
``choose`` call of each bot.  A measurement bot that reads every hand (``oracle-1``, see
``bots.oracle``) is handed the whole state (``play_open``); it plays nowhere else.

Under rules with an auction (``rules``: parlee-1, manillen-1) each team also has a bidder, which
makes its calls; the output then names the rules, the game target and both bidders.  Without
``rules`` (muette-1) the output is exactly what it was before rules ids existed.
"""

from __future__ import annotations

import hashlib
import math
import time

from service.replay import Bot, BotError, Card, GameState, ManilleError, bot_move, rules_for
from service.replay.stream import u32be

Z95 = 1.959963984540054


def fixed_seeds(tag: bytes, n: int) -> list[bytes]:
    """``n`` fixed seeds ``SHA-256(tag ‖ uint32be(i))``: the same games for every run of a measure."""
    return [hashlib.sha256(tag + u32be(i)).digest() for i in range(n)]


TOURNAMENT_TAG = b"manille-tournament"


def tournament_seeds(n: int, tag: bytes = TOURNAMENT_TAG) -> list[bytes]:
    """The ``n`` fixed seeds of a tournament: ``SHA-256(tag ‖ uint32be(i))``, the tag
    ``"manille-tournament"`` unless another set is asked for (tuning on seeds kept apart)."""
    return fixed_seeds(tag, n)


def play_open(seed: bytes | str, seats, rules=None, target: int | None = None, bidders=None) -> GameState:
    """``play_game``, except that a bot with ``sees_all`` (a measurement bot such as ``oracle-1``)
    is handed the whole state through ``choose_open(state)`` for its cards (``bidders`` make the
    calls, under rules with an auction).  The other seats play exactly as in ``play_game``
    (observation and decision stream), so a game without such a bot is the same."""
    state = GameState(seed, rules, target)
    while not state.is_over:
        seat = state.current_player
        bot = seats[seat]
        if getattr(bot, "sees_all", False) and state.auction is None:
            legal = state.legal_mask()
            card = bot.choose_open(state)
            if not isinstance(card, Card) or not legal >> card.id & 1:
                raise BotError(f"bot {bot.id!r} at seat {seat} answered {card!r}, "
                               f"not one of {' '.join(map(str, state.legal_cards()))}")
            state._apply(card, legal)
        else:
            bot_move(state, bot, bidders[seat] if bidders is not None else None)
    return state


class _Timed:
    """A bot whose ``choose`` (or ``choose_open``) calls are timed (perf_counter) into a shared
    per-id tally."""

    __slots__ = ("bot", "id", "tally", "sees_all")

    def __init__(self, bot: Bot, tally: dict) -> None:
        self.bot = bot
        self.id = bot.id
        self.tally = tally.setdefault(bot.id, [0.0, 0])
        self.sees_all = getattr(bot, "sees_all", False)

    def choose(self, obs, rng):
        t0 = time.perf_counter()
        card = self.bot.choose(obs, rng)
        t = self.tally
        t[0] += time.perf_counter() - t0
        t[1] += 1
        return card

    def choose_open(self, state):
        t0 = time.perf_counter()
        card = self.bot.choose_open(state)
        t = self.tally
        t[0] += time.perf_counter() - t0
        t[1] += 1
        return card


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: list[float], z: float = Z95) -> tuple[float, tuple[float, float]]:
    """Mean and normal 95% interval of the mean."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, (mean, mean)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return mean, (mean - half, mean + half)


def _team(team) -> tuple:
    """A team as its two seats' bots (seat 0 and 2, or 1 and 3): one bot for both, or a pair."""
    return tuple(team) if isinstance(team, (tuple, list)) else (team, team)


def team_id(team) -> str:
    """``expert-1``, or ``expert-2,expert-1`` for a team of two bots (its first seat first)."""
    first, second = _team(team)
    return first.id if first is second or first.id == second.id else f"{first.id},{second.id}"


_SHARED: dict = {}  # what the forked workers of ``run(jobs=…)`` play with


def _play_seed(seed: bytes) -> tuple[int, int, int, dict]:
    """Both games of one seed (teams swapped): A's wins, A's total margin, the deals, the timings."""
    a, b, the_rules, target, bidder_a, bidder_b = _SHARED["game"]
    tally: dict[str, list] = {}
    (a0, a2), (b1, b3) = ([_Timed(x, tally) for x in team] for team in (a, b))
    wins = margin = deals = 0
    for a_team in (0, 1):
        seats = (a0, b1, a2, b3) if a_team == 0 else (b1, a0, b3, a2)
        bidders = None
        if the_rules.has_auction:
            bidders = (bidder_a, bidder_b) * 2 if a_team == 0 else (bidder_b, bidder_a) * 2
        state = play_open(seed, seats, the_rules, target, bidders)
        mine, theirs = state.totals[a_team], state.totals[1 - a_team]
        wins += mine > theirs
        margin += mine - theirs
        deals += len(state.deals)
    return wins, margin, deals, tally


def run(a, b, games: int, *, rules=None, target: int | None = None, bidder_a=None,
        bidder_b=None, tag: bytes = TOURNAMENT_TAG, jobs: int = 1, pairs: bool = False) -> dict:
    """Play ``games`` games (``games / 2`` seeds from ``tag``, teams swapped on the second game of
    each) under ``rules`` (muette-1 when None) to ``target``; each team's bidder calls for it under
    rules with an auction.  A team is a bot, or a pair (its first and second seat).  ``jobs``
    processes share the seeds (the figures are the same; the timings add up).  Raises
    ManilleError for an odd count, a bidder without an auction or a missing one with it,
    UnknownRulesError for bad rules or target.  ``pairs``: the result also lists each seed's mean
    margin (``a_pair_margins``, in seed order), for comparing two bots on the same seeds."""
    if games < 2 or games % 2:
        raise ManilleError(f"--games is the number of games, an even number >= 2 (each seed is played "
                           f"twice, teams swapped); got {games}")
    the_rules = rules_for(rules)
    target = the_rules.check_target(target)
    if the_rules.has_auction != (bidder_a is not None) or the_rules.has_auction != (bidder_b is not None):
        raise ManilleError(f"{the_rules.id} has an auction: each team needs a bidder" if the_rules.has_auction
                           else f"{the_rules.id} has no auction: bidders need --rules parlee-1 or manillen-1")
    _SHARED["game"] = (_team(a), _team(b), the_rules, target, bidder_a, bidder_b)
    seeds = tournament_seeds(games // 2, tag)
    if jobs > 1:
        from multiprocessing import get_context
        with get_context("fork").Pool(jobs) as pool:
            per_seed = pool.map(_play_seed, seeds, chunksize=1)
    else:
        per_seed = [_play_seed(seed) for seed in seeds]
    tally: dict[str, list] = {}
    for _, _, _, t in per_seed:
        for k, (secs, n) in t.items():
            got = tally.setdefault(k, [0.0, 0])
            got[0] += secs
            got[1] += n
    wins = sum(w for w, _, _, _ in per_seed)
    deals = sum(d for _, _, d, _ in per_seed)
    pair_margins = [m / 2 for _, m, _, _ in per_seed]
    margin, margin_ci = mean_ci(pair_margins)
    lo, hi = wilson(wins, games)
    out = {
        "games": games,
        "seeds": games // 2,
        "a": team_id(a),
        "b": team_id(b),
        "deals": deals,
        "a_wins": wins,
        "a_win_rate": wins / games,
        "a_win_rate_ci": [lo, hi],
        "a_mean_margin": margin,
        "a_mean_margin_ci": list(margin_ci),
        "a_mean_rank_score": 1000 + 10 * margin,  # docs/spec.md §7.4: 1000 + 10 × (us − them)
        "a_mean_rank_score_ci": [1000 + 10 * margin_ci[0], 1000 + 10 * margin_ci[1]],
        "ms_per_decision": {k: (v[0] * 1000 / v[1] if v[1] else 0.0) for k, v in sorted(tally.items())},
        "decisions": {k: v[1] for k, v in sorted(tally.items())},
    }
    if rules is not None:  # muette-1's output stays as it was before rules ids
        out.update(rules=the_rules.id, target=target,
                   bidder_a=bidder_a.id if bidder_a is not None else None,
                   bidder_b=bidder_b.id if bidder_b is not None else None)
    if pairs:
        out["a_pair_margins"] = pair_margins
    if tag != TOURNAMENT_TAG:
        out["seed_tag"] = tag.decode("utf-8", "replace")
    return out


def summary(result: dict) -> str:
    """The human-readable report of a tournament."""
    r = result
    lo, hi = r["a_win_rate_ci"]
    mlo, mhi = r["a_mean_margin_ci"]
    rlo, rhi = r["a_mean_rank_score_ci"]
    ms = ", ".join(f"{k} {v:.4f} ms ({r['decisions'][k]} decisions)" for k, v in r["ms_per_decision"].items())
    lines = [
        f"tournament: A = {r['a']} (seats 0, 2) vs B = {r['b']} (seats 1, 3); {r['games']} games "
        f"({r['seeds']} seeds, each played twice with the teams swapped), {r['deals']} deals",
        f"A won {r['a_wins']}/{r['games']} = {100 * r['a_win_rate']:.1f}% (95% CI {100 * lo:.1f}–{100 * hi:.1f}%)",
        f"A mean margin {r['a_mean_margin']:+.2f} game points (95% CI {mlo:+.2f} to {mhi:+.2f})",
        f"A mean rank score {r['a_mean_rank_score']:.1f} (95% CI {rlo:.1f}–{rhi:.1f})",
        f"ms per decision: {ms}",
    ]
    if "rules" in r:
        bidders = (f"; bidders A = {r['bidder_a']}, B = {r['bidder_b']}" if r["bidder_a"] else "")
        lines.insert(1, f"rules {r['rules']}, game to {r['target']}{bidders}")
    if "seed_tag" in r:
        lines.insert(1, f"seeds tagged {r['seed_tag']!r} (not the tournament's)")
    return "\n".join(lines)

