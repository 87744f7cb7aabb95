"""``expert-2``: expert-1's judgement early in a deal, then a search over the deals the table
makes likely.

- With more than ``SEARCH_FROM`` cards in hand it plays expert-1's card (rules of thumb: the
  solves are too dear there, and expert-1's early play is sound).
- From ``SEARCH_FROM`` cards on it searches: ``bots.inference`` draws ``WORLDS`` deals of the
  unseen cards that agree with the rules *and* with the cards the other seats chose this deal, as
  expert-1 (its model of every other seat) would have chosen them; each legal card is solved
  exactly in each deal (``bots.oracle``: the card points the team takes from the trick in
  progress to the end of the deal); the card with the largest total wins.  The total, not the
  most deals won: a trick-taking game counts points.
- Ties, and totals within ``MARGIN`` points a deal of the best, go to expert-1's card, then to
  the rules-of-thumb order: the double-dummy solver is blind between equal lines (GIB's
  worst habit), expert-1's card keeps small guards and reads of the table the solver does not.

Strategy fusion (the search assumes it will know, at its next card, the deal it is in) and
non-locality (the other seats' plays depend on their hands) are this family's known faults; the
inference addresses the second (deals where expert-1 would not have played as the seats did are
dropped); the first is small in trick-taking games (Long et al. 2010), and the search starts late,
where few deals remain.

muette-1 only: its solver plays muette-1's legal cards and last-trick point; under other rules
ids expert-2 plays exactly as expert-1.  Every choice is a pure function of the observation and
the decision stream; fixed counts, no clock, ints until the comparison.  Frozen as ``expert-2``.
"""

from __future__ import annotations

from service.replay import Card, HashStream, Observation
from service.replay.cards import DECK

from .expert import ExpertBot, _preference
from .inference import PlayModel, inferred_worlds
from .knowledge import Knowledge
from .move_order import reduce_equivalent, searched_as
from .oracle import Solver

#: Hand size from which the search replaces expert-1's rules of thumb.
SEARCH_FROM = 6
#: Deals solved a decision (with six cards in hand: a solve costs 4 times one with five), drawn
#: from this many proposals at most (bots.inference).
WORLDS = 16
WORLDS_AT_SIX = 8
#: Whether a lead with six cards is searched too (the dearest solves: every card of the hand).
LEAD_AT_SIX = False
PROPOSALS = 160
#: Every consistent deal is ranked when there are at most this many.
ENUMERATE_UP_TO = 64
#: Points a deal within which expert-1's card is kept (in tenths of a point: ints only).
MARGIN_TENTHS = 3
#: The model's own plays are listed from this hand size (expert-1 calculates below it).
MODEL_FROM = 4


#: Every setting and its frozen value (other values, for tuning on seeds apart, make another id).
SETTINGS = {"search_from": SEARCH_FROM, "worlds": WORLDS, "worlds6": WORLDS_AT_SIX, "proposals": PROPOSALS,
            "margin_tenths": MARGIN_TENTHS, "model_from": MODEL_FROM, "infer": True, "lead6": LEAD_AT_SIX,
            "worlds8": None, "lead8": True, "card_worlds": None, "model_partner": True, "partner_last": False}


class Expert2Bot:
    """Frozen behaviour ``expert-2`` (with the module's constants; other values, for tuning on
    seeds apart, make a bot with another id).  A later bot of the same family is a subclass with
    its own ``name`` and ``settings``."""

    name = "expert-2"
    settings = SETTINGS

    #: Its choice never reads the game's score before the deal (nor does expert-1's): one deal's
    #: positions are the same decisions whatever the earlier deals gave (service.botcache).
    reads_totals = False

    def __init__(self, **tuning) -> None:
        unknown = set(tuning) - set(self.settings)
        if unknown:
            raise TypeError(f"unknown {self.name} settings: {', '.join(sorted(unknown))}")
        values = {**self.settings, **tuning}
        self.search_from, self.worlds, self.worlds6 = values["search_from"], values["worlds"], values["worlds6"]
        self.proposals, self.margin_tenths = values["proposals"], values["margin_tenths"]
        self.model_from, self.infer, self.lead6 = values["model_from"], values["infer"], values["lead6"]
        #: deals solved with eight cards in hand (a whole deal each), when searched: None, worlds6
        self.worlds8 = values["worlds8"] if values["worlds8"] is not None else self.worlds6
        self.lead8 = values["lead8"]  # whether a deal's first lead (eight cards) is searched
        #: at most this many (deal, legal card) solves a decision: fewer deals when many cards are
        #: legal (None: no cap); a count, not a clock, so every machine draws as many
        self.card_worlds = values["card_worlds"]
        #: whether the partner's cards are read through the model too (else only the opponents')
        self.model_partner = values["model_partner"]
        #: whether the partner's misses only part deals that explain the opponents alike
        self.partner_last = values["partner_last"]
        changed = {k: v for k, v in values.items() if k in tuning and v != self.settings[k]}
        self.id = self.name + ("[" + ",".join(f"{k}={v}" for k, v in changed.items()) + "]" if changed else "")
        self._expert = ExpertBot()
        #: the model of the other seats' play that the inference reads their cards with
        self.model = PlayModel(self._expert, b"expert-2 model\x00")

    def searches(self, obs: Observation) -> bool:
        """Whether this decision is a search (the dear ones, worth keeping: service.botcache)."""
        legal = obs.legal_mask
        size = obs.hand_mask.bit_count()
        lead = not obs.trick.plays
        return bool(legal & (legal - 1)) and obs.rules == "muette-1" and size <= self.search_from and not (
            lead and (size == 6 and not self.lead6 or size == 8 and not self.lead8))

    def choose(self, obs: Observation, rng: HashStream) -> Card:
        legal = obs.legal_mask
        if not legal & (legal - 1):
            return DECK[legal.bit_length() - 1]
        if not self.searches(obs):
            return self._expert.choose(obs, rng)
        k = Knowledge(obs)
        return DECK[self.pick(obs, _preference(k, legal), self.worlds_for(obs, rng, k))]

    def worlds_for(self, obs: Observation, rng: HashStream, k: Knowledge) -> list:
        """The deals a searched decision is solved in (``bots.inference``, from ``rng``)."""
        size = obs.hand_mask.bit_count()
        n = self.worlds8 if size >= 8 else self.worlds6 if size >= 6 else self.worlds
        if self.card_worlds is not None:
            n = max(1, min(n, self.card_worlds // obs.legal_mask.bit_count()))
        seats = None if self.model_partner else frozenset({(obs.seat + 1) % 4, (obs.seat + 3) % 4})
        return inferred_worlds(obs, self.model if self.infer else None, rng, n, self.proposals,
                               enumerate_up_to=ENUMERATE_UP_TO, min_hand=self.model_from, k=k, seats=seats,
                               partner_last=self.partner_last)

    def pick(self, obs: Observation, order: list[int], worlds: list) -> int:
        """The card with the largest total over ``worlds`` of its exact value, ``order[0]``
        (expert-1's card) when within the margin of it, else the first in ``order`` that reaches
        it.  The totals are made exact only where they can decide: every card gets a bound from
        one null-window test a deal (``Solver.card_bounds``); expert-1's card is then searched
        exactly in every deal (``card_exact``), and each card whose bounds still reach the best
        total known, deal by deal until they no longer do.  The same card as summing every
        card's exact value, for a fraction of the solves."""
        trick = obs.trick
        solver = Solver(int(trick.trump))
        banked = obs.points[0]
        in_play = sum(1 << p.card.id for p in trick.plays)
        for hand in worlds[0]:
            in_play |= hand
        reps = reduce_equivalent(obs.legal_mask, in_play)
        stands = {c: searched_as(c, reps, in_play) for c in order}  # an 8 or 9 -> the card it stands for
        cards = [c for c in order if c == stands[c]]
        rows = [solver.card_bounds(world, trick, banked) for world in worlds]
        values = {c: [got[c] for got, _ in rows] for c in cards}
        exact = {c: [got[c] == best for got, best in rows] for c in cards}

        def settle(c: int, floor: int = -1) -> None:
            # exact deal by deal; a card whose total falls below ``floor`` is out, settled or not
            total = sum(values[c])
            for i, world in enumerate(worlds):
                if not exact[c][i]:
                    v = solver.card_exact(world, trick, c, values[c][i])
                    total -= values[c][i] - v
                    values[c][i] = v
                    exact[c][i] = True
                    if total < floor:
                        return

        settle(stands[order[0]])
        while True:
            # the best total is at least the largest sum of a card's exact values; a card whose
            # bounds add up to less can be neither the best nor equal to it
            floor = max(sum(v for v, e in zip(values[c], exact[c]) if e) for c in cards)
            reach = [c for c in cards if not all(exact[c]) and sum(values[c]) >= floor]
            if not reach:
                break
            settle(max(reach, key=lambda c: sum(values[c])), floor)
        first = sum(values[stands[order[0]]])
        if 10 * (floor - first) <= self.margin_tenths * len(worlds):
            return order[0]
        return next(c for c in order if all(exact[stands[c]]) and sum(values[stands[c]]) == floor)
