"""What one seat can infer from its observation alone (docs/spec.md §8.1), as 32-bit card masks.

Everything here is a pure function of the Observation: the cards fallen, the voids each
seat has shown ("coupes constatées"), what the rules' obligations reveal, and that the
dealer holds the turned card until it is played (muette-1 only: other rules turn none).
Under ``legal_facing`` (muette-1, parlee-1) a seat that did not beat an opponent's card in
the led suit, or did not trump or overtrump it when void, could not.  Under ``trump_forced``
(manillen-1) following reveals nothing about higher cards (no duty to beat), but a void seat
that did not trump had no trump and one that undertrumped could not overtrump, whoever held
the trick.  No trump (parlee-1, manillen-1 NT) is trump index 4, whose mask is empty.
From these it derives, for every other seat, the unseen cards it may still hold, the
cards it surely holds, and how many cards it has left.

No other seat's hand is ever read: the bots see ``Observation`` and nothing more.
"""

from __future__ import annotations

from service.replay import Observation, rules_for
from service.replay.cards import FULL_MASK
from service.replay.rules import NO_TRUMP, SUIT_MASKS, beats, stronger_in_suit, trump_forced

def top_id(mask: int) -> int:
    """The highest card id of a non-empty mask (the strongest card when the mask is one suit)."""
    return mask.bit_length() - 1


class Knowledge:
    """A seat's inferences; masks are over card ids (bit i = card i)."""

    __slots__ = ("seat", "trump", "facing", "bonus", "dealer", "hand", "played", "unseen", "cannot", "left",
                 "possible", "sure", "trick_ids", "trick_seats", "leader", "win_id", "win_seat", "_shown", "_turned")

    def __init__(self, obs: Observation) -> None:
        self._read_table(obs)
        self._hold(obs.hand_mask)

    @classmethod
    def of_table(cls, obs: Observation) -> "Knowledge":
        """What ``obs`` tells whatever the seat's hand: only for ``holding`` to add one."""
        k = cls.__new__(cls)
        k._read_table(obs)
        return k

    def holding(self, hand: int) -> "Knowledge":
        """What the same seat would know of the same table holding ``hand``: ``Knowledge`` of the
        observation with that hand, without reading the tricks again."""
        k = Knowledge.__new__(Knowledge)
        k.seat, k.trump, k.facing, k.bonus, k.dealer = self.seat, self.trump, self.facing, self.bonus, self.dealer
        k.played, k.left, k._shown, k._turned = self.played, self.left, self._shown, self._turned
        k.trick_ids, k.trick_seats, k.leader = self.trick_ids, self.trick_seats, self.leader
        k.win_id, k.win_seat = self.win_id, self.win_seat
        k._hold(hand)
        return k

    def _read_table(self, obs: Observation) -> None:
        """What the tricks, the rules and the turned card tell, whatever the seat's hand."""
        self.seat = obs.seat
        trump = obs.trump
        trump = self.trump = NO_TRUMP if trump is None else int(trump)
        rules = rules_for(obs.rules)
        self.facing = rules.facing
        self.bonus = rules.last_trick_bonus
        forced = rules.facing is trump_forced
        self.dealer = obs.dealer
        cannot = [0, 0, 0, 0]
        played = 0
        for trick in obs.tricks:
            played |= _learn(trick.plays, trump, cannot, forced)
        cur = obs.trick.plays
        if cur:
            played |= _learn(cur, trump, cannot, forced)
        self.played = played
        self._shown = cannot
        self._turned = obs.turned.bit if obs.turned is not None else 0
        left = [8 - len(obs.tricks)] * 4
        for p in cur:
            left[p.seat] -= 1
        self.left = left
        self.trick_ids = [p.card.id for p in cur]
        self.trick_seats = [p.seat for p in cur]
        self.leader = obs.trick.leader
        if cur:
            w = obs.trick.winning_play
            self.win_id, self.win_seat = w.card.id, w.seat
        else:
            self.win_id, self.win_seat = -1, -1

    def _hold(self, hand: int) -> None:
        """What follows once the seat's own hand is known too."""
        seat = self.seat
        self.hand = hand
        unseen = FULL_MASK & ~(self.played | hand)
        self.unseen = unseen
        cannot = list(self._shown)
        if unseen & self._turned:  # the dealer holds the turned card until it is played
            for s in range(4):
                if s != self.dealer:
                    cannot[s] |= self._turned
        self.cannot = cannot
        left = self.left
        possible = [unseen & ~cannot[s] for s in range(4)]
        possible[seat] = 0
        # Propagate: a card only one seat can hold is that seat's; a seat with exactly as many
        # possible cards as cards in hand holds them all.  Either way nobody else holds them.
        sure = [0, 0, 0, 0]
        others_of = OTHERS[seat]
        for _ in range(3):
            changed = False
            for s in others_of[seat]:
                poss = possible[s]
                if poss.bit_count() <= left[s]:
                    new = poss
                else:
                    rest = 0
                    for t in others_of[s]:
                        rest |= possible[t]
                    new = poss & ~rest
                if new != sure[s]:
                    sure[s] = new
                    changed = True
                    for t in others_of[s]:
                        possible[t] &= ~new
            if not changed:
                break
        self.possible = possible
        self.sure = sure

    # -- questions a bot asks --------------------------------------------------

    def may_beat(self, s: int, best: int, led: int) -> bool:
        """Whether seat ``s``, still to play on a trick led in ``led`` and held by ``best``,
        may hold a card that beats it (one the rules would let it play)."""
        poss = self.possible[s]
        if best >> 3 == led and poss & stronger_in_suit(best):
            return True
        if led != self.trump and self.may_be_void(s, led):
            if best >> 3 == self.trump:
                return bool(poss & stronger_in_suit(best))
            return bool(poss & SUIT_MASKS[self.trump])
        return False

    def may_be_void(self, s: int, suit: int) -> bool:
        """Whether seat ``s`` is void in ``suit`` as far as expert-1 bets: only when it cannot hold
        a card of the suit any more (seen void, or every card of the suit is placed elsewhere)."""
        return not self.possible[s] & SUIT_MASKS[suit]

    def is_master(self, card: int) -> bool:
        """No unseen card of its suit beats it."""
        return not (stronger_in_suit(card) & self.unseen)


#: OTHERS[seat][s]: the two seats other than ``s`` and ``seat`` (the propagation's partners).
OTHERS = tuple(tuple(tuple(t for t in range(4) if t != s and t != seat) for s in range(4)) for seat in range(4))


def _learn(plays, trump: int, cannot: list[int], forced: bool = False) -> int:
    """Record the voids and caps that a trick's plays reveal; returns the mask of its cards.
    ``forced``: the rule is ``trump_forced`` (no duty to beat in the suit; a void seat must trump
    and overtrump whoever holds the trick), else ``legal_facing`` (duties only against an opponent)."""
    first = plays[0]
    best = first.card.id
    best_seat = first.seat
    led = best >> 3
    mask = 1 << best
    for p in plays[1:]:
        s = p.seat
        c = p.card.id
        cs = c >> 3
        bit = 1 << c
        mask |= bit
        opponent_holds = (best_seat ^ s) & 1
        if cs != led:
            cannot[s] |= SUIT_MASKS[led]
            if opponent_holds or forced:
                if cs != trump:
                    cannot[s] |= SUIT_MASKS[trump]  # must trump when void: it had none
                elif best >> 3 == trump and c < best:
                    cannot[s] |= stronger_in_suit(best)  # must overtrump when able: it could not
        elif opponent_holds and not forced and best >> 3 == led and c < best:
            cannot[s] |= stronger_in_suit(best)  # must beat in the suit when able: it could not
        if beats(c, best, trump):
            best, best_seat = c, s
    return mask
