"""The searching bots (``expert-2`` to ``expert-6``): expert-1's judgement where a search does not
pay, else a search over the deals the table makes likely.  One code, one row of settings per
frozen id (``SETTINGS``).

- Where a decision is not searched (``searches``) it plays expert-1's card (rules of thumb: the
  solves are too dear there, and expert-1's play is sound).
- Where it is: ``bots.inference`` draws deals of the unseen cards that agree with the rules *and*
  with the cards the other seats chose this deal, as expert-1 (its model of every other seat)
  would have chosen them; each legal card is solved exactly in each deal (``bots.solver``: the
  card points the team takes from the trick in progress to the end of the deal); the card with
  the largest total wins.  The total, not the most deals won: a trick-taking game counts points.
- Ties, and totals within ``MARGIN_TENTHS`` tenths of a point a deal of the best, go to
  expert-1's card, then to the rules-of-thumb order: the double-dummy solver is blind between
  equal lines (GIB's worst habit), expert-1's card keeps small guards and reads of the table the
  solver does not.

Strategy fusion (the search assumes it will know, at its next card, the deal it is in) and
non-locality (the other seats' plays depend on their hands) are this family's known faults; the
inference addresses the second (deals where expert-1 would not have played as the seats did are
dropped); the first is small in trick-taking games (Long et al. 2010).

muette-1 only: the solver plays muette-1's legal cards and last-trick point; under other rules
ids every searching bot plays exactly as expert-1.  Every choice is a pure function of the
observation and the decision stream; fixed counts, no clock, ints until the comparison.
"""

from __future__ import annotations

from service.replay import Card, HashStream, Observation
from service.replay.cards import DECK

from .expert import ExpertBot, preference
from .inference import PlayModel, inferred_worlds
from .knowledge import Knowledge
from .move_order import reduce_equivalent, searched_as
from .solver import Solver

#: Every consistent deal is ranked when there are at most this many (bots.inference).
ENUMERATE_UP_TO = 64
#: Points a deal within which expert-1's card is kept (in tenths of a point: ints only).
MARGIN_TENTHS = 3
#: The model's own plays are listed from this hand size (expert-1 calculates below it).
MODEL_FROM = 4

#: Every frozen id's settings, in full: an id names frozen behaviour, so a row never changes (a
#: better setting is a new id, tried first with ``scripts/tune_expert.py``).  The columns:
#:
#: - ``search_from``: the hand size from which a decision is searched (above it, expert-1's card);
#: - ``lead6`` / ``lead8``: whether a lead with six / eight cards in hand is searched too (the
#:   dearest solves: every card of the hand);
#: - ``worlds8`` / ``worlds6`` / ``worlds``: the deals solved with eight cards in hand, with six
#:   or seven, with five or fewer;
#: - ``proposals``: the candidate deals the inference draws a decision, at most;
#: - ``partner_last``: the partner's cards rank a deal only between deals that explain the
#:   opponents' alike (else every miss counts alike).
#:
#: Why these values (docs/bots.md gives the candidates and the figures, each measured on its own
#: tuning seeds): expert-2 searches from six cards, where the Python solver could afford it;
#: expert-3 from the first trick but the opening lead, as the compiled solver can; expert-4 draws
#: 600 deals, as many explain the play, and solves fewer whole deals at the dearest decisions;
#: expert-5 reads its partner (a searching bot, unlike its model) after the opponents;
#: expert-6 draws 1,200, replacing only deals the play contradicts.
SETTINGS: dict[str, dict] = {
    "expert-2": {"search_from": 6, "lead6": False, "lead8": True, "worlds8": 8, "worlds6": 8, "worlds": 16,
                 "proposals": 160, "partner_last": False},
    "expert-3": {"search_from": 8, "lead6": True, "lead8": False, "worlds8": 24, "worlds6": 32, "worlds": 32,
                 "proposals": 160, "partner_last": False},
    "expert-4": {"search_from": 8, "lead6": True, "lead8": False, "worlds8": 16, "worlds6": 48, "worlds": 48,
                 "proposals": 600, "partner_last": False},
    "expert-5": {"search_from": 8, "lead6": True, "lead8": False, "worlds8": 16, "worlds6": 48, "worlds": 48,
                 "proposals": 600, "partner_last": True},
    "expert-6": {"search_from": 8, "lead6": True, "lead8": False, "worlds8": 16, "worlds6": 48, "worlds": 48,
                 "proposals": 1200, "partner_last": True},
}


class SearchingBot:
    """The frozen behaviour ``base`` (a ``SETTINGS`` id), or, with ``tuning``, a candidate: the same
    row with some values changed, under an id that names them (``expert-4[proposals=1200]``)."""

    #: Its choice never reads the game's score before the deal (nor does expert-1's): one deal's
    #: positions are the same decisions whatever the earlier deals gave (service.botcache).
    reads_totals = False
    margin_tenths = MARGIN_TENTHS
    model_from = MODEL_FROM

    def __init__(self, base: str, **tuning) -> None:
        row = SETTINGS[base]
        unknown = set(tuning) - set(row)
        if unknown:
            raise TypeError(f"unknown {base} settings: {', '.join(sorted(unknown))}")
        self.settings = values = {**row, **tuning}
        changed = [f"{k}={values[k]}" for k in row if values[k] != row[k]]
        self.id = base + (f"[{','.join(changed)}]" if changed else "")
        self.search_from, self.lead6, self.lead8 = values["search_from"], values["lead6"], values["lead8"]
        self.worlds8, self.worlds6, self.worlds = values["worlds8"], values["worlds6"], values["worlds"]
        self.proposals, self.partner_last = values["proposals"], values["partner_last"]
        self._expert = ExpertBot()
        #: the model of the other seats' play that the inference reads their cards with (the seed
        #: of its draws is the same for every id: part of each frozen behaviour)
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
        return DECK[self.pick(obs, preference(k, legal), self.worlds_for(obs, rng, k))]

    def worlds_for(self, obs: Observation, rng: HashStream, k: Knowledge) -> list:
        """The deals a searched decision is solved in (``bots.inference``, from ``rng``)."""
        size = obs.hand_mask.bit_count()
        n = self.worlds8 if size >= 8 else self.worlds6 if size >= 6 else self.worlds
        return inferred_worlds(obs, self.model, rng, n, self.proposals, enumerate_up_to=ENUMERATE_UP_TO,
                               min_hand=MODEL_FROM, k=k, partner_last=self.partner_last)

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
        if 10 * (floor - first) <= MARGIN_TENTHS * len(worlds):
            return order[0]
        return next(c for c in order if all(exact[stands[c]]) and sum(values[stands[c]]) == floor)
