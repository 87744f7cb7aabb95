"""Which consistent deals also explain the cards the other seats chose: inference from a model of
their play.

The rules alone (``bots.worlds``) leave every deal that agrees with the voids, the *monter* caps
and the turned card equally likely.  But the other seats chose their cards: a seat that led a
small diamond seldom held the ten and the ace of diamonds together, if it plays as the model
does.  ``PlayModel`` replays each earlier card of this deal by another seat as the model would
have chosen it, with that seat's hand in a candidate deal (its cards then: what it holds in the
deal plus what it has played since) and the table as it was then (rebuilt from the observation:
nothing hidden is read).  A deal where the model chooses the card actually played each time
explains the play; each card it would not have chosen is a *miss*.

``inferred_worlds`` draws candidate deals uniformly (``Constraints.draw``, from the stream) and
keeps the first ``n`` with no miss; when fewer than ``n`` turn up in ``proposals`` draws (the
model is wrong about that seat, or the play was unlikely), the draws with the fewest misses fill
the rest, in the order drawn, so a seat that plays unlike the model (a person) softens the
inference instead of emptying it.  Weighing deals by how likely the observed cards were is the
policy-based inference of the Skat programs (Rebstock et al. 2019); with a deterministic model,
the likelihood of a deal is 1 or nothing, and the misses stand for the softening.

A pure function of the observation, the model and the stream: fixed counts, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from service.replay import HashStream, Observation
from service.replay.rules import Trick, legal_mask, team_of
from service.replay.stream import u32be
from service.replay.variants import rules_for

from . import native
from .expert import SEARCH_FROM
from .knowledge import Knowledge
from .worlds import Constraints, World


@dataclass(frozen=True)
class Past:
    """One earlier card of this deal by another seat: the observation it had then, less its hand
    (``before``: the table as that seat saw it), the card, and the cards it played from then on."""

    seat: int
    before: Observation
    card: int
    since: int  # mask: this card and the seat's later cards of the deal
    table: Knowledge = field(compare=False)  # what ``before`` tells whatever the hand (``holding`` adds one)


def past_plays(obs: Observation, min_hand: int = 1, seats: frozenset[int] | None = None) -> list[Past]:
    """The other seats' cards of this deal so far, each with the table as it saw it (rebuilt from
    ``obs``: completed tricks, the trick then, the points then).  Only cards played with at least
    ``min_hand`` cards in hand are listed (a model may know it plays differently late in a deal),
    and only those of ``seats`` when given (the seats the model is a model of)."""
    rules = rules_for(obs.rules)
    tricks = list(obs.tricks) + [obs.trick]
    out: list[Past] = []
    played_by: dict[int, list[int]] = {}
    for t in tricks:
        for p in t.plays:
            played_by.setdefault(p.seat, []).append(p.card.id)
    count = {s: 0 for s in range(4)}
    points = [0, 0]
    done: list[Trick] = []
    for t_index, t in enumerate(tricks):
        for j, p in enumerate(t.plays):
            s = p.seat
            k = count[s]
            count[s] += 1
            if s == obs.seat or seats is not None and s not in seats:
                continue
            later = played_by[s][k:]
            if 8 - t_index < min_hand:  # every seat holds 8 - t cards when trick t begins
                continue
            before = replace(obs, seat=s, hand_mask=0, legal_mask=0,
                             trick=Trick(t.leader, t.trump, t.plays[:j]), tricks=tuple(done),
                             points=(points[0], points[1]), legal_calls=())
            mask = 0
            for c in later:
                mask |= 1 << c
            out.append(Past(s, before, p.card.id, mask, Knowledge.of_table(before)))
        if t.is_complete:
            w = t.winner
            points[team_of(w)] += t.points(last=False, bonus=rules.last_trick_bonus)
            done.append(t)
    return out


class PlayModel:
    """The other seats' play as ``bot`` would choose it, from a stream of the model's own (the
    seats' real decision streams are not the observer's to know)."""

    def __init__(self, bot, tag: bytes) -> None:
        self.bot = bot
        self.tag = tag
        self._rule_card = getattr(bot, "rule_card", None)
        # the compiled mirror of expert-1's rules of thumb (bots.native), when there is one
        self._native = native.LIB is not None and getattr(bot, "id", None) == "expert-1"

    def counter(self, pasts: list[Past]):
        """``misses`` of ``pasts`` as a function of (world, stop), keeping what helps between the
        deals of one decision: compiled when the model is expert-1 and its rules of thumb decide
        every card (``bots.native``, the same answers), else with a memo and a ``MissOrder``."""
        if self._native and all(8 - len(p.before.tricks) > SEARCH_FROM for p in pasts):
            return native.NativeModel(pasts).misses
        memo: dict = {}
        order = MissOrder(len(pasts))
        return lambda world, stop: self.misses(pasts, world, stop, memo, order)

    def chooses(self, past: Past, world: World) -> bool:
        """Whether the model, holding that seat's cards of ``world`` then, plays ``past.card``."""
        return self.chooses_from(past, world[past.seat] | past.since)

    def chooses_from(self, past: Past, hand: int) -> bool:
        """Whether the model plays ``past.card`` holding ``hand`` then (its cards of the deal then)."""
        b = past.before
        trick = b.trick
        legal = legal_mask(hand, trick, past.seat, past.table.facing)
        if not legal & (legal - 1):
            return True  # forced: says nothing
        if self._rule_card is not None:  # expert-1 without its search: no observation to build
            card = self._rule_card(past.table.holding(hand), legal)
            if card is not None:
                return card == past.card
        obs = replace(b, hand_mask=hand, legal_mask=legal)
        rng = HashStream(self.tag + u32be(b.deal_index) + u32be(past.seat) + u32be(len(b.tricks)))
        return self.bot.choose(obs, rng).id == past.card

    def misses(self, pasts: list[Past], world: World, stop: int, memo: dict | None = None,
               order: "MissOrder | None" = None) -> int:
        """How many of ``pasts`` the model would not have played in ``world``, counted up to
        ``stop`` (then it stops).  ``memo``: answers of ``chooses`` kept by (card's index, that
        seat's cards then), all it depends on: deals drawn for one decision often give a seat the
        same cards.  ``order``: the cards looked at first, those that missed most so far (the
        count up to ``stop`` does not depend on the order, only how soon it gets there)."""
        n = 0
        for i in (order.current() if order is not None else range(len(pasts))):
            p = pasts[i]
            if memo is None:
                chosen = self.chooses(p, world)
            else:
                key = (i, world[p.seat] | p.since)
                chosen = memo.get(key)
                if chosen is None:
                    chosen = memo[key] = self.chooses(p, world)
            if not chosen:
                n += 1
                if order is not None:
                    order.missed(i)
                if n >= stop:
                    break
        return n


class MissOrder:
    """The order ``PlayModel.misses`` reads a decision's past cards in: the cards the draws so
    far missed most often first, so that a deal that misses two is told so after few looks."""

    __slots__ = ("_indexes", "_counts", "_since")

    #: Misses between two sorts.
    RESORT = 32

    def __init__(self, n: int) -> None:
        self._indexes = list(range(n))
        self._counts = [0] * n
        self._since = 0

    def current(self) -> list[int]:
        """The order for the next deal (sorted again between deals, never while one is read)."""
        if self._since >= self.RESORT:
            self._since = 0
            counts = self._counts
            self._indexes = sorted(self._indexes, key=lambda j: -counts[j])
        return self._indexes

    def missed(self, i: int) -> None:
        self._counts[i] += 1
        self._since += 1


def inferred_worlds(obs: Observation, model: PlayModel | None, rng: HashStream, n: int, proposals: int, *,
                    enumerate_up_to: int = 0, min_hand: int = 1, k: Knowledge | None = None,
                    seats: frozenset[int] | None = None, partner_last: bool = False) -> list[World]:
    """``n`` consistent deals that explain the other seats' cards best (see the module): every
    consistent deal ranked by misses when there are at most ``enumerate_up_to`` of them (then all
    the deals without a miss, if any, else those with the fewest); otherwise the first ``n`` without
    a miss among ``proposals`` uniform draws, topped up with the fewest misses.  With no model,
    ``n`` uniform draws (or every deal, when few).  ``partner_last``: the opponents' misses rank
    a deal first, the partner's only between deals that explain the opponents alike (a partner
    that plays unlike the model, as a searching bot does, then no longer pushes out the deals
    that explain the opponents)."""
    constraints = Constraints(k or Knowledge(obs))
    count = constraints.count
    if not count:
        raise ValueError("no deal agrees with this observation")
    if model is None:
        return constraints.every() if count <= enumerate_up_to else [constraints.draw(rng) for _ in range(n)]
    pasts = past_plays(obs, min_hand, seats)
    if partner_last:
        groups = [[p for p in pasts if p.seat != obs.partner], [p for p in pasts if p.seat == obs.partner]]
    else:
        groups = [pasts]
    counters = [model.counter(g) for g in groups]
    if count <= enumerate_up_to:
        every = constraints.every()
        ranked = [(tuple(misses(w, len(g) + 1) for g, misses in zip(groups, counters)), i)
                  for i, w in enumerate(every)]
        least = min(m for m, _ in ranked)
        return [every[i] for m, i in ranked if m == least]
    kept: list[World] = []
    spare: list[tuple[list[int], int, World]] = []
    for i in range(proposals):
        w = constraints.draw(rng)
        # one miss or more: only the first two are told apart; a later group is read only when
        # the earlier ones explain every card
        rank = [0] * len(groups)
        for j, misses in enumerate(counters):
            rank[j] = misses(w, 2)
            if rank[j]:
                break
        if not any(rank):
            kept.append(w)
            if len(kept) == n:
                return kept
        else:
            spare.append((rank, i, w))
    spare.sort(key=lambda x: (x[0], x[1]))
    return kept + [w for _, _, w in spare[:n - len(kept)]]
