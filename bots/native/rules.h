/* The card rules both compiled pieces read (dds.c, the search; model.c, the inference's model):
 * service/replay/rules.py on bare ints, line for line, written once for both.
 *
 * Cards are ids 8 * suit + rank, rank 0..7 = 7 8 9 J Q K A T (the ten highest), masks of 32
 * bits; suit 4 is no trump, an empty suit.
 */
#ifndef MANILLE_RULES_H
#define MANILLE_RULES_H

#include <stdint.h>

static const int RANK_POINTS[8] = {0, 0, 0, 1, 2, 3, 4, 5};

static inline int pts(int c) { return RANK_POINTS[c & 7]; }

static inline uint32_t suit_mask(int s) { return s < 4 ? 0xFFu << (8 * s) : 0u; }

/* The cards of ``c``'s suit that beat it. */
static inline uint32_t stronger(int c) {
    return suit_mask(c >> 3) & (uint32_t)~(((uint64_t)2 << c) - 1);
}

/* rules.py's void_in_led: a seat void in the led suit trumps if able, over a trump holding the
 * trick (``best``) with a higher one if able; with no trump, anything. */
static inline uint32_t void_in_led(uint32_t hand, int best, int trump) {
    uint32_t trumps = hand & suit_mask(trump);
    if (trumps) {
        if (best >> 3 == trump) {
            uint32_t higher = trumps & stronger(best);
            if (higher) return higher;
        }
        return trumps;
    }
    return hand;
}

/* docs/spec.md §6.3, rules 2-3: rules.py's legal_facing (muette-1, parlee-1). */
static inline uint32_t legal_facing(uint32_t hand, int led, int best, int best_seat, int seat, int trump) {
    uint32_t follow = hand & suit_mask(led);
    if (!((best_seat ^ seat) & 1)) return follow ? follow : hand;
    if (follow) {
        if (best >> 3 == led) {
            uint32_t higher = follow & stronger(best);
            if (higher) return higher;
        }
        return follow;
    }
    return void_in_led(hand, best, trump);
}

/* rules.py's trump_forced (manillen-1): follow if able, no duty to beat; void, void_in_led. */
static inline uint32_t trump_forced(uint32_t hand, int led, int best, int best_seat, int seat, int trump) {
    (void)best_seat;
    (void)seat;
    uint32_t follow = hand & suit_mask(led);
    return follow ? follow : void_in_led(hand, best, trump);
}

#endif
