"""What the review of the top notes on a submission (``service.review``): the phase it is in, when
it is released if nobody acts, why it is held, and how it left the review.  A part of
``Submissions``, apart from the storing, queueing and verdicts of a submission."""

from __future__ import annotations

import json

#: The fields the review keeps on a submission.
REVIEW_FIELDS = ("review_phase", "review_until", "review_why", "review_outcome")


class ReviewNotes:
    """Mixed into ``Submissions``: uses its client ``r`` and ``key``."""

    def note_review(self, sub_id: str, *, phase: str = "", until: str = "", why: list[str] | None = None,
                    outcome: str = "", decision: str = "", reason: str = "") -> None:
        """A game in review: its ``phase`` (``checking``, ``held``), ``until`` (ISO: released with no
        action then) and ``why`` (the reasons it is held); or, once it left (``outcome``: clean,
        released, auto_released), the phase taken off and ``decision`` (ops') kept with ``reason``."""
        fields = {"review_phase": phase, "review_until": until, "review_outcome": outcome,
                  "ops_decision": decision, "ops_reason": reason}
        if why is not None:
            fields["review_why"] = json.dumps(why, separators=(",", ":"))
        kept = {k: v for k, v in fields.items() if v}
        with self.r.pipeline(transaction=True) as pipe:
            if kept:
                pipe.hset(self.key(sub_id), mapping=kept)
            if outcome:
                pipe.hdel(self.key(sub_id), "review_phase")
            pipe.execute()
