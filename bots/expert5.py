"""``expert-5``: expert-4, reading its partner's cards after the opponents'.

The same family and code (``bots.expert2``), with expert-4's settings and one more: a drawn deal
is ranked first by how many of the opponents' cards the model (expert-1) would not have played
in it, and by the partner's misses only between deals that explain the opponents alike
(``bots.inference``, ``partner_last``).  expert-4 counted every miss alike, so a partner that
plays unlike the model pushed out the deals that explain the opponents: a searching bot's
partner is the same searching bot (the two opponents of every daily game are), and expert-4
often plays another card than expert-1 would.  Reading only the opponents (``model_partner``
off) drops what the partner's cards say where the model is right.

Chosen on the seeds ``tune-expert5`` (docs/bots.md gives the figures), apart from the measurement.
"""

from __future__ import annotations

from .expert4 import EXPERT4_SETTINGS, Expert4Bot

#: expert-5's frozen settings: expert-4's, with the partner's cards read last.
EXPERT5_SETTINGS = {**EXPERT4_SETTINGS, "partner_last": True}


class Expert5Bot(Expert4Bot):
    """Frozen behaviour ``expert-5``."""

    name = "expert-5"
    settings = EXPERT5_SETTINGS
