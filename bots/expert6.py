"""``expert-6``: expert-5, drawing twice as many candidate deals for its inference.

The same family and code (``bots.expert2``), with expert-5's settings and one more: the inference
draws up to 1,200 candidate deals a decision (600 before).  A decision stops drawing once it has
its deals that explain every card the other seats played; where 600 draws did not find them all,
the rest were the topping up, deals the play contradicts (with 600 draws, about a fifth of the
deals expert-4 solved with six or seven cards in hand, two fifths with five).  The further draws
replace those, and only those: every deal expert-5 would have kept that explains the play is
kept too, in the same order.  The cost is a third more time a decision.

Chosen on the seeds ``tune-expert6`` (docs/bots.md gives the figures), apart from the measurement.
"""

from __future__ import annotations

from .expert5 import EXPERT5_SETTINGS, Expert5Bot

#: expert-6's frozen settings: expert-5's, with twice the draws.
EXPERT6_SETTINGS = {**EXPERT5_SETTINGS, "proposals": 1200}


class Expert6Bot(Expert5Bot):
    """Frozen behaviour ``expert-6``."""

    name = "expert-6"
    settings = EXPERT6_SETTINGS
