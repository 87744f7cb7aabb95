"""The rules ids: each names one frozen reading of Manille (docs/spec.md, docs/variants.md).

The engine is one engine: a ``Rules`` value says what differs between the tables it plays —
where the trump comes from, whether the opponents may double, which cards a seat must play, what
a deal is worth and how long a game lasts.  ``muette-1`` (the daily challenge) is the default
everywhere, and its games are byte for byte what they were before the other ids existed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ManilleError
from .rules import GAME_TARGET, HALF, LAST_TRICK_BONUS, RULES_ID, legal_facing, trump_forced


class UnknownRulesError(ManilleError):
    """No rules have this id, or the game target is not one the rules allow."""


@dataclass(frozen=True)
class Rules:
    """One frozen reading of the game.  ``trump_from``: ``turned`` (the dealer's last card),
    ``named`` (the dealer names it, then doubles), ``chosen`` (the seats choose in turn or pass)."""

    id: str
    trump_from: str
    facing: object = field(repr=False)  # the legal-card rule: legal_facing or trump_forced
    last_trick_bonus: int
    no_trump_factor: int  # what a no-trump deal's score is multiplied by
    tie_doubles_next: bool  # 30–30 scores nothing and doubles the next deal
    targets: tuple[int, ...]  # the game targets allowed, the default first

    @property
    def has_auction(self) -> bool:
        return self.trump_from != "turned"

    @property
    def deal_points(self) -> int:
        """What a deal hands out: the 60 card points and the last-trick bonus."""
        return 60 + self.last_trick_bonus

    @property
    def target(self) -> int:
        """The default game target."""
        return self.targets[0]

    def check_target(self, target: int | None) -> int:
        """The game target to play to: ``target`` if these rules allow it, the default for None;
        raises UnknownRulesError otherwise."""
        if target is None:
            return self.targets[0]
        if isinstance(target, bool) or target not in self.targets:
            allowed = " or ".join(map(str, self.targets))
            raise UnknownRulesError(f"{self.id} plays to {allowed}, not {target!r}")
        return target

    def score(self, points: tuple[int, int], factor: int = 1) -> tuple[int, int]:
        """Game points a deal scores: the team over 30 scores ``(points − 30) × factor``, the other
        nothing; (0, 0) at 30–30.  Raises ValueError if the points do not add up to the deal's."""
        us, them = points
        if us + them != self.deal_points:
            raise ValueError(f"a deal is worth {self.deal_points} points, got {us} + {them}")
        if us > HALF:
            return ((us - HALF) * factor, 0)
        if them > HALF:
            return (0, (them - HALF) * factor)
        return (0, 0)

    def __str__(self) -> str:
        return self.id


MUETTE = Rules(RULES_ID, "turned", legal_facing, LAST_TRICK_BONUS, 1, False, (GAME_TARGET,))
#: Parlée (the dealer names trump or no trump, contre and surcontre): 60 points a deal, no bonus.
PARLEE = Rules("parlee-1", "named", legal_facing, 0, 2, True, (101, 51))
#: Flemish Manillen: trump chosen in turn, Zonder Troef doubled, the last trick +1, game to 21.
MANILLEN = Rules("manillen-1", "chosen", trump_forced, 1, 2, False, (21,))

RULES: dict[str, Rules] = {r.id: r for r in (MUETTE, PARLEE, MANILLEN)}


def rules_for(rules: "str | Rules | None") -> Rules:
    """The Rules for an id (or a Rules, or None for muette-1); raises UnknownRulesError listing the ids."""
    if rules is None:
        return MUETTE
    if isinstance(rules, Rules):
        return rules
    try:
        return RULES[rules]
    except (KeyError, TypeError):
        raise UnknownRulesError(f"unknown rules {rules!r}; known: {', '.join(RULES)}") from None
