"""``expert-4``: expert-3's search with a sharper inference and more deals late in the deal.

The same family and code (``bots.expert2``), with its own frozen settings:

- the inference draws up to 600 candidate deals a decision, not 160.  Against seats that play as
  the model does, most draws explain only some of their cards: with 160 draws, from six cards
  in hand down, fewer than half the deals kept explained every card of the opponents, and the
  rest were filled with deals the play contradicts.  600 draws cost about what 160 did before
  the inference was made cheaper (``Knowledge.holding``, ``ExpertBot.rule_card``, the draws'
  kept splits);
- 16 deals with eight cards in hand (24 for expert-3: as strong on the tuning seeds, a third
  cheaper at the dearest decisions), 48 from seven cards on (32).

Chosen on the seeds ``tune-expert4`` (100 games each against expert-1, the same seeds for every
candidate), apart from the measurement: docs/bots.md gives the candidates and the figures, and
the measurement's: against expert-3 itself no difference shows within 400 games.
"""

from __future__ import annotations

from .expert3 import EXPERT3_SETTINGS, Expert3Bot

#: expert-4's frozen settings: expert-3's, with more draws and more deals from seven cards on.
EXPERT4_SETTINGS = {**EXPERT3_SETTINGS, "proposals": 600, "worlds8": 16, "worlds6": 48, "worlds": 48}


class Expert4Bot(Expert3Bot):
    """Frozen behaviour ``expert-4``."""

    name = "expert-4"
    settings = EXPERT4_SETTINGS
