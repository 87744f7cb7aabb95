"""``expert-3``: expert-2's search from the first trick of a deal, which the compiled solver
(``bots.native``) makes affordable.

The same family and code as expert-2 (``bots.expert2``: inference with expert-1 as the model of
the other seats, every legal card solved exactly in each drawn deal, the largest total, expert-1's
card kept within a margin), with its own frozen settings:

- it searches every decision of muette-1 with more than one legal card, but the deal's opening
  lead (eight cards, nothing known yet of the other hands: expert-1's rules of thumb there, a
  search of every card of the hand in 24 whole deals is the dearest decision of a deal);
- 24 deals with eight cards in hand (a whole deal each), 32 from seven cards on.

expert-2 searched from six cards (five on a lead) because the Python solver made a whole deal too
dear; the compiled one gives the same exact values some thirty times sooner.  Chosen on the seeds
``tune-expert3`` (100 games each against expert-1, the same seeds for every candidate), apart from
the measurement: docs/bots.md gives the candidates and the figures.
"""

from __future__ import annotations

from .expert2 import SETTINGS, Expert2Bot

#: expert-3's frozen settings: expert-2's, searched from the first trick, with more deals.
EXPERT3_SETTINGS = {**SETTINGS, "search_from": 8, "lead6": True, "lead8": False,
                    "worlds8": 24, "worlds6": 32, "worlds": 32}


class Expert3Bot(Expert2Bot):
    """Frozen behaviour ``expert-3``."""

    name = "expert-3"
    settings = EXPERT3_SETTINGS
