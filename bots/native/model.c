/* The inference's model of the other seats (bots.inference.PlayModel with expert-1 as the model),
 * compiled: how many of a decision's earlier cards expert-1's rules of thumb would not have played
 * in a candidate deal.
 *
 * It answers exactly what bots.expert._rules_card over bots.knowledge.Knowledge.holding answers
 * (tests compare the two on every past card of many thousands of candidate deals); Python keeps
 * the reference, and a machine without a compiler reads the cards there, only slower.  Each line
 * below mirrors a line of those two modules: change one only with the other, and only as a new
 * bot id (expert-1 is frozen).
 *
 * Card ids: suit * 8 + rank index (7 8 9 J Q K A 10); trump 4 is no trump (an empty suit).
 */

#include <stdint.h>

#include "rules.h"

typedef uint32_t mask;

/* One earlier card by another seat: the table as that seat saw it (Knowledge._read_table), the
 * card played and the seat's cards from then on (bots.inference.Past). */
typedef struct {
    int32_t seat, trump, forced, dealer;
    mask played, turned;
    mask shown[4];
    int32_t left[4];
    int32_t n_trick;           /* cards of the trick then, 0 to 3 */
    int32_t trick_ids[3];
    int32_t win_id, win_seat;  /* the card holding the trick then and its seat (-1 with no card) */
    int32_t card;
    mask since;
} past_t;

#define ACE 6
#define TEN 7

static int popcount(mask m) { return __builtin_popcount(m); }
static int top_id(mask m) { return 31 - __builtin_clz(m); }
static int lowest(mask m) { return __builtin_ctz(m); }

/* The legal cards of ``hand`` at ``p`` under the rules' legal-card rule (rules.h). */
static mask legal_of(const past_t *p, mask hand) {
    if (!p->n_trick) return hand;
    return (p->forced ? trump_forced : legal_facing)(hand, p->trick_ids[0] >> 3, p->win_id, p->win_seat, p->seat,
                                                     p->trump);
}

/* -- the knowledge with a hand (Knowledge._hold) ---------------------------------------------- */

typedef struct {
    int seat, trump;
    mask hand, unseen;
    mask possible[4];
} know_t;

static void hold(const past_t *p, mask hand, know_t *k) {
    int seat = p->seat;
    k->seat = seat;
    k->trump = p->trump;
    k->hand = hand;
    mask unseen = ~(p->played | hand);
    k->unseen = unseen;
    mask cannot[4];
    for (int s = 0; s < 4; s++) cannot[s] = p->shown[s];
    if (unseen & p->turned)
        for (int s = 0; s < 4; s++)
            if (s != p->dealer) cannot[s] |= p->turned;
    mask possible[4], sure[4] = {0, 0, 0, 0};
    for (int s = 0; s < 4; s++) possible[s] = unseen & ~cannot[s];
    possible[seat] = 0;
    for (int round = 0; round < 3; round++) {
        int changed = 0;
        for (int s = 0; s < 4; s++) {
            if (s == seat) continue;
            mask poss = possible[s], fresh;
            if (popcount(poss) <= p->left[s]) {
                fresh = poss;
            } else {
                mask rest = 0;
                for (int t = 0; t < 4; t++)
                    if (t != s && t != seat) rest |= possible[t];
                fresh = poss & ~rest;
            }
            if (fresh != sure[s]) {
                sure[s] = fresh;
                changed = 1;
                for (int t = 0; t < 4; t++)
                    if (t != s && t != seat) possible[t] &= ~fresh;
            }
        }
        if (!changed) break;
    }
    for (int s = 0; s < 4; s++) k->possible[s] = possible[s];
}

static int is_master(const know_t *k, int c) { return !(stronger(c) & k->unseen); }

static int beats(int card, int best, int trump) {
    if (card >> 3 == best >> 3) return card > best;
    return card >> 3 == trump;
}

static int may_beat(const know_t *k, int s, int best, int led) {
    mask poss = k->possible[s];
    if (best >> 3 == led && (poss & stronger(best))) return 1;
    if (led != k->trump && !(k->possible[s] & suit_mask(led))) {
        if (best >> 3 == k->trump) return (poss & stronger(best)) != 0;
        return (poss & suit_mask(k->trump)) != 0;
    }
    return 0;
}

/* -- expert-1's rules of thumb (bots.expert) -------------------------------------------------- */

static int discard(const know_t *k, mask legal) {
    int best = -1, best_cost = 1 << 30;
    for (mask m = legal; m; m &= m - 1) {
        int c = lowest(m), suit = c >> 3;
        int cost = pts(c) * 10 + (c & 7);
        if (suit == k->trump)
            cost += 100;
        else if (pts(c) && is_master(k, c))
            cost += 25;
        if ((c & 7) <= 2) {
            mask in_suit = k->hand & suit_mask(suit);
            mask small = in_suit & 0x07070707u & suit_mask(suit);
            if (small == (mask)1 << c && in_suit != small) cost += 8;
        }
        if (cost < best_cost) { best = c; best_cost = cost; }
    }
    return best;
}

static int lead(const know_t *k, mask legal) {
    mask hand = k->hand, tmask = suit_mask(k->trump);
    int me = k->seat, trump = k->trump;
    int opps[2] = {(me + 1) & 3, (me + 3) & 3}, partner = me ^ 2;
    mask my_trumps = hand & tmask;
    int n_trumps = popcount(my_trumps);
    mask opp_trumps = (k->possible[opps[0]] | k->possible[opps[1]]) & tmask;
    mask unseen_trumps = k->unseen & tmask;

    if (my_trumps && opp_trumps && (n_trumps >= 4 || (n_trumps >= 2 && n_trumps > popcount(unseen_trumps)))) {
        int top = top_id(my_trumps);
        if (is_master(k, top)) return top;
        if (n_trumps >= 4) return lowest(my_trumps);
    }

    int best_master = -1, best_value = -1;
    for (int suit = 0; suit < 4; suit++) {
        mask cards = hand & suit_mask(suit);
        if (suit == trump || !cards) continue;
        int top = top_id(cards);
        if (!is_master(k, top)) continue;
        mask suit_out = k->unseen & suit_mask(suit);
        int risky = 0;
        for (int i = 0; i < 2; i++) {
            int o = opps[i];
            if ((!(k->possible[o] & suit_out) || !suit_out) && (k->possible[o] & tmask)) risky = 1;
        }
        if (risky) continue;
        int value = pts(top) * 4 + popcount(suit_out);
        if (value > best_value) { best_master = top; best_value = value; }
    }
    if (best_master >= 0 && pts(best_master) >= 3) return best_master;

    int best = -1, best_cost = 1 << 30;
    for (int suit = 0; suit < 4; suit++) {
        mask cards = hand & suit_mask(suit);
        if (suit == trump || !cards) continue;
        if ((cards >> (8 * suit + ACE) & 1) && (k->unseen >> (8 * suit + TEN) & 1)) continue;
        int c = lowest(cards);
        int cost = pts(c) * 4 + (c & 7);
        for (int i = 0; i < 2; i++) {
            int o = opps[i];
            if (!(k->possible[o] & suit_mask(suit)) && (k->possible[o] & tmask)) cost += 6;
        }
        if (!(k->possible[partner] & suit_mask(suit)) && (k->possible[partner] & tmask)) cost -= 3;
        if (popcount(cards) == 1 && my_trumps && pts(c) == 0) cost -= 1;
        if (cost < best_cost) { best = c; best_cost = cost; }
    }
    if (best_master >= 0 && (best < 0 || pts(best) > 0)) return best_master;
    if (best >= 0) return best;
    if (best_master >= 0) return best_master;

    if (my_trumps) {
        int top = top_id(my_trumps);
        return is_master(k, top) ? top : lowest(my_trumps);
    }
    return discard(k, legal);
}

static int load(const know_t *k, mask legal) {
    int best = -1, best_value = -(1 << 30);
    for (mask m = legal; m; m &= m - 1) {
        int c = lowest(m);
        int value = pts(c) * 10 + (c & 7);
        if (c >> 3 == k->trump)
            value -= 100;
        else if (pts(c) && is_master(k, c))
            value -= 40;
        if (value > best_value) { best = c; best_value = value; }
    }
    if (pts(best) == 0 || best >> 3 == k->trump) return discard(k, legal);
    return best;
}

/* The cheapest of ``cards`` by (trump or not, points, [rank,] id): Python's min over those keys. */
static int cheapest(const know_t *k, mask cards, int by_rank) {
    int best = -1;
    long best_key = 0;
    for (mask m = cards; m; m &= m - 1) {
        int c = lowest(m);
        long key = ((long)(c >> 3 == k->trump) << 24) | ((long)pts(c) << 16) | ((long)(by_rank ? c & 7 : 0) << 8) | c;
        if (best < 0 || key < best_key) { best = c; best_key = key; }
    }
    return best;
}

static int follow(const know_t *k, const past_t *p, mask legal) {
    int me = k->seat, trump = k->trump;
    int led = p->trick_ids[0] >> 3, best = p->win_id, best_seat = p->win_seat;
    int n_opps = p->n_trick <= 2 ? 1 : 0;  /* the one opponent still to play after this seat */
    int opp = (me + 1) & 3;

    if (!((best_seat ^ me) & 1)) {
        if (!(n_opps && may_beat(k, opp, best, led))) return load(k, legal);
        int trick_points = 0;
        for (int i = 0; i < p->n_trick; i++) trick_points += pts(p->trick_ids[i]);
        mask securing = 0;
        for (mask m = legal; m; m &= m - 1) {
            int c = lowest(m);
            if (beats(c, best, trump) && !(n_opps && may_beat(k, opp, c, led))) securing |= (mask)1 << c;
        }
        if (securing) {
            int c = cheapest(k, securing, 0);
            if (c >> 3 != trump || trick_points >= 5) return c;
        }
        return discard(k, legal);
    }

    mask winners = 0;
    for (mask m = legal; m; m &= m - 1) {
        int c = lowest(m);
        if (beats(c, best, trump)) winners |= (mask)1 << c;
    }
    if (!winners) return discard(k, legal);
    if (!n_opps) return cheapest(k, winners, 1);
    mask sure = 0;
    for (mask m = winners; m; m &= m - 1) {
        int c = lowest(m);
        if (!may_beat(k, opp, c, led)) sure |= (mask)1 << c;
    }
    if (sure) return cheapest(k, sure, 1);
    if (winners == legal) return cheapest(k, winners, 1);
    return discard(k, legal);
}

/* The card expert-1's rules of thumb play holding ``hand`` at ``p`` (-1: forced, says nothing). */
int model_card(const past_t *p, mask hand) {
    mask legal = legal_of(p, hand);
    if (!(legal & (legal - 1))) return -1;
    know_t k;
    hold(p, hand, &k);
    return p->n_trick ? follow(&k, p, legal) : lead(&k, legal);
}

/* How many of ``pasts`` expert-1 would not have played in the deal ``world``, up to ``stop``. */
int model_misses(const past_t *pasts, int n, mask w0, mask w1, mask w2, mask w3, int stop) {
    mask world[4] = {w0, w1, w2, w3};
    int misses = 0;
    for (int i = 0; i < n && misses < stop; i++) {
        const past_t *p = &pasts[i];
        int card = model_card(p, world[p->seat] | p->since);
        if (card >= 0 && card != p->card) misses++;
    }
    return misses;
}
