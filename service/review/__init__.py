"""The review of the top: the few games that would lead a day are checked hardest before any public
board shows them, and held for a person's review when their evidence is unclear.

One throwaway run shows the day's hands (docs/analysis.md), and one game holds little evidence of
hidden knowledge, so the service cannot tell every peeker from a strong player; what it can afford
is to look hardest where a peek pays: the day's first ``top`` places, and, once the day has
``percentile_min_scores`` scores, any game above its ``1 - share`` percentile.  Such a game is in
``review`` (a status of its own, beside ``held``: off every public board, the field and the
leagues) while its hidden-information check runs; a clean check ranks it at once, and evidence at
or past ``z`` (a lower bar than the flag's) or any of the ``flags`` keeps it held for review until
ops release or disqualify it, or until ``hours`` have passed: then it is released with no action,
noted in the audit log, so that no honest player waits forever.

``ReviewSettings`` and ``due`` are pure (the configuration imports them); the queue and the
actions are ``service.review.queue``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The flags of hidden information: any of them on a game at the top holds it for review
#: (``probed``: runs of the day around a game, raised by the flag of that name).
HIDDEN_INFORMATION = frozenset({"explored", "oracle", "hindsight", "hindsight_player", "probed"})


@dataclass(frozen=True)
class ReviewSettings:
    top: int = 20                 # a game that would take one of the day's first this many places ...
    share: float = 0.001          # ... or lie above the day's (1 - share) percentile ...
    percentile_min_scores: int = 1000  # ... once the day has this many scores, is reviewed
    # The check's z at or above which a game at the top is held (the flag's is higher):
    # docs/performance.md#the-review-of-the-top measures honest top games held at it.
    z: float = 2.5
    hours: float = 48.0           # a held game is released with no action this long after its check
    flags: frozenset = field(default_factory=lambda: HIDDEN_INFORMATION)

    @classmethod
    def from_env(cls, environ) -> "ReviewSettings":
        """``MANILLE_REVIEW_TOP``, ``…_Z``, ``…_HOURS``, ``…_FLAGS`` (comma-separated; empty: none);
        ValueError for a value that is not a number or out of range."""
        base = cls()

        def num(name, default, kind):
            value = environ.get(f"MANILLE_REVIEW_{name}")
            return kind(value) if value not in (None, "") else default

        flags = environ.get("MANILLE_REVIEW_FLAGS")
        got = cls(top=num("TOP", base.top, int), z=num("Z", base.z, float), hours=num("HOURS", base.hours, float),
                  share=base.share, percentile_min_scores=base.percentile_min_scores,
                  flags=base.flags if flags is None else frozenset(c.strip() for c in flags.split(",") if c.strip()))
        if got.top < 0 or got.hours <= 0:
            raise ValueError("MANILLE_REVIEW_TOP must be 0 or more and MANILLE_REVIEW_HOURS more than 0")
        return got


def due(score: int, day_scores: dict[int, int], settings: ReviewSettings) -> bool:
    """Whether a verified score would take one of the day's first ``top`` places (fewer than
    ``top`` games of the day score as much or more) or, once the day has its minimum of scores,
    lie above its percentile (at most ``share`` of them score as much or more); ``day_scores``: how
    many games of the day's board have each score.  A score that many already share is no new
    place: on the same deals thousands may tie at the best, and checking each would hold dozens of
    honest games a day for nothing (docs/performance.md#the-review-of-the-top)."""
    reached = sum(c for s, c in day_scores.items() if s >= score)
    n = sum(day_scores.values())
    return reached < settings.top or (n >= settings.percentile_min_scores and reached <= settings.share * n)


def held_for(flags: list[dict], evidence: dict | None, settings: ReviewSettings) -> list[str]:
    """Why a game at the top is held: the hidden-information flags it carries, and ``z`` when its
    check's evidence (``postmortem.hindsight.score``) reaches the review's bar; [] when clean."""
    why = sorted({f["code"] for f in flags if f["code"] in settings.flags})
    if evidence is not None and evidence.get("z", 0.0) >= settings.z:
        why.append("z")
    return why


__all__ = ["HIDDEN_INFORMATION", "ReviewSettings", "due", "held_for"]
