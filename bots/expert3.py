"""``expert-3``: expert-2's search from the first card of a deal, which the compiled solver
(``bots.native``) makes affordable.

The same family and code as expert-2 (``bots.expert2``: inference from expert-1 as the model of
the other seats, every legal card solved exactly in each drawn deal, the best total, expert-1's
card within a margin), with its own frozen settings: it searches every decision of muette-1 with
more than one legal card, from eight cards in hand, on leads as on follows.  expert-2 searched
from six cards (five on a lead) because the Python solver made a full deal too dear; the
compiled one answers a first-trick position in about 20 ms, the same exact values.

Chosen on the seeds ``tune-expert3`` (100 games each against expert-1, the same seeds for every
candidate), apart from the measurement seeds: docs/bots.md gives the figures.
"""

from __future__ import annotations

from .expert2 import SETTINGS, Expert2Bot

#: expert-3's frozen settings: expert-2's, searched from the first card of the deal.
EXPERT3_SETTINGS = {**SETTINGS, "search_from": 8, "lead6": True, "worlds6": 16}


class Expert3Bot(Expert2Bot):
    """Frozen behaviour ``expert-3``."""

    name = "expert-3"
    settings = EXPERT3_SETTINGS
