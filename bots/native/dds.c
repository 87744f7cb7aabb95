/* The double-dummy search of bots/alphabeta.py in C: the same question (team 0's card points
 * from a position of one deal to its end, all hands open), the same exact answers, found
 * 35-81 times sooner at a deal's first lead.  Loaded by bots/native/__init__.py with ctypes (no Python headers);
 * bots/solver.py asks it and keeps the Python search as the reference the tests compare with.
 *
 * Cards are ids 8 * suit + rank, rank 0..7 = 7 8 9 J Q K A T (the ten highest), masks of 32
 * bits.  Seats 0 and 2 (team 0) maximise, 1 and 3 minimise.  Every bound kept in the table is
 * proven and every cut-off is alpha-beta's: the values never depend on the table, the order of
 * the moves or the first guess, only the time does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

#define INF 1024
#define EIGHTS 0x02020202u
#define NINES 0x04040404u

/* A position's key: the cards in play, those of seats 1 and 3, those of seats 2 and 3.  A
 * card's seat is read from the last two (in neither: seat 0), so the three words are the four
 * hands, whole, in 12 bytes: an entry is 16, and a table of 2^16 fits the 1 MiB second-level
 * cache of the machines measured (24-byte entries with the hands as four words took 15 %
 * longer on the recorded solves of expert-4's games). */
typedef struct {
    uint32_t k[3];
} Key;

/* A table entry: the key and the leader (the whole position: a bound is never read for another
 * position), team 0's proven bounds, the best lead found; ``at`` = tricks left * 4 + leader
 * (0: empty). */
typedef struct {
    uint32_t k[3];
    uint8_t lo, hi, at;
    int8_t best;
} Entry;

/* Entries a key may sit in, side by side: the one with the fewest tricks left goes.  One
 * (the newest replaces) measured best on the recorded solves of expert-4's games (a table per
 * decision, its deals one after another): two took 9 % longer, four 23 %; on oracle-1's
 * (a table per deal) one and two took the same time. */
#define WAYS 1

typedef struct {
    int trump;
    uint32_t h[4];
    Entry *table;
    uint32_t mask;
    long nodes;
    int killer[4][9]; /* by seat and tricks left: 1 + the lead that last made a cut-off there */
    int last_best; /* the card found best at the last question's root: a hint, tried first */
} Ctx;

static int mask_points(uint32_t m) {
    int p = 0;
    while (m) {
        int c = __builtin_ctz(m);
        p += pts(c);
        m &= m - 1;
    }
    return p;
}

/* bots/move_order.py's reduce_equivalent: an 8 or 9 whose next lower card in play is in the
 * same mask is not searched (no card in play separates them, neither is worth a point). */
static inline uint32_t reduce_equivalent(uint32_t cards, uint32_t in_play) {
    return cards & ~(cards & ((EIGHTS & (cards << 1)) | (NINES & ((cards << 1) | ((cards << 2) & ~(in_play << 1))))));
}

static inline int beats(int card, int best, int trump) {
    if (card >> 3 == best >> 3) return card > best;
    return card >> 3 == trump;
}

/* The 8 bits of ``b`` (one suit's ranks) moved to every fourth bit: rank r to bit 4r. */
static inline uint32_t spread(uint32_t b) {
    b = (b | b << 12) & 0x000F000Fu;
    b = (b | b << 6) & 0x03030303u;
    return (b | b << 3) & 0x11111111u;
}

/* The cards of ``m`` by rising rank, suits in canonical order within a rank (``up``), or the
 * reverse; returns how many.  The cards of one suit (most follows) are in that order already;
 * otherwise the mask is turned rank-major (bit 4 * rank + suit), whose bits are then that order. */
static int order_cards(uint32_t m, int up, int *out) {
    int n = 0;
    if (!(m & ~suit_mask(__builtin_ctz(m | 1u << 31) >> 3))) {
        if (up)
            for (; m; m &= m - 1) out[n++] = __builtin_ctz(m);
        else
            for (; m; m ^= 1u << (31 - __builtin_clz(m))) out[n++] = 31 - __builtin_clz(m);
        return n;
    }
    uint32_t rm = spread(m & 0xFF) | spread(m >> 8 & 0xFF) << 1 | spread(m >> 16 & 0xFF) << 2 | spread(m >> 24) << 3;
    if (up)
        for (; rm; rm &= rm - 1) {
            int i = __builtin_ctz(rm);
            out[n++] = 8 * (i & 3) + (i >> 2);
        }
    else
        for (; rm; rm ^= 1u << (31 - __builtin_clz(rm))) {
            int i = 31 - __builtin_clz(rm);
            out[n++] = 8 * (i & 3) + (i >> 2);
        }
    return n;
}

/* The leads of ``m``: the side suits' cards by falling rank, then the trumps by falling rank;
 * returns how many.  On the recorded solves of expert-4's games the others took longer: a
 * history heuristic (the cutoffs each lead made before) over rising rank 26 %, over falling
 * rank 17 %; falling rank, trumps among the rest 10 %; trumps first 48 %; each side suit's
 * master first 3 %. */
static int order_leads(const Ctx *x, uint32_t m, int *moves) {
    uint32_t t = m & suit_mask(x->trump);
    int k = order_cards(m & ~t, 0, moves);
    return k + order_cards(t, 0, moves + k);
}

/* ``c`` moved to the front of ``moves`` when it is there (a card to try first). */
static void first(int *moves, int k, int c) {
    if (c < 0 || k < 2 || moves[0] == c) return;
    int j = 0;
    while (j < k && moves[j] != c) j++;
    if (j == k) return;
    for (; j > 0; j--) moves[j] = moves[j - 1];
    moves[0] = c;
}

static inline Key key_of(const uint32_t *h) {
    Key y = {{h[0] | h[1] | h[2] | h[3], h[1] | h[3], h[2] | h[3]}};
    return y;
}

static inline Entry *bucket_of(const Ctx *x, const Key *y, int leader) {
    uint64_t k = ((uint64_t)y->k[0] << 32 | y->k[1]) * 0x9E3779B97F4A7C15ull;
    k ^= k >> 29;
    k += ((uint64_t)y->k[2] << 32) * 0xC2B2AE3D27D4EB4Full + (uint64_t)leader;
    k ^= k >> 32;
    k *= 0xD6E8FEB86659FD93ull;
    k ^= k >> 32;
    return &x->table[(k & x->mask) * WAYS];
}

static inline Entry *find(Entry *b, const Key *y, int at) {
    for (int i = 0; i < WAYS; i++) {
        Entry *e = &b[i];
        if (e->at == at && e->k[0] == y->k[0] && e->k[1] == y->k[1] && e->k[2] == y->k[2])
            return e;
    }
    return NULL;
}

static int boundary(Ctx *x, int leader, int tl, int rem, int alpha, int beta);

/* Team 0's points from a trick in progress (``n`` cards played, ``w`` of seat ``ws`` holding
 * it, ``p`` points in it, suit ``led``) to the end of the deal; ``rem`` = points in hands + 1,
 * ``u`` = the cards in play when the trick began.  Fail-soft in (alpha, beta). */
static int tail(Ctx *x, int leader, int n, int w, int ws, int led, int p, int tl, int rem, uint32_t u,
                int alpha, int beta) {
    if (n == 4) {
        if (tl == 1) return (ws & 1) ? 0 : p + rem;
        int g = (ws & 1) ? 0 : p;
        if (g >= beta) return g;
        if (g + rem <= alpha) return g + rem;
        return g + boundary(x, ws, tl - 1, rem, alpha - g, beta - g);
    }
    int seat = (leader + n) & 3;
    uint32_t hand = x->h[seat];
    uint32_t legal = reduce_equivalent(legal_facing(hand, led, w, ws, seat, x->trump), u);
    int cards[32]; /* a hand holds 8 in a real deal; 32 keeps any mask in bounds */
    int up = (ws ^ seat) & 1; /* an opponent holds it: cheapest first; the partner: dearest */
    int k = order_cards(legal, up, cards);
    int maximise = !(seat & 1);
    int v = maximise ? -1 : INF;
    for (int i = 0; i < k; i++) {
        int c = cards[i];
        x->h[seat] = hand ^ (1u << c);
        int r;
        if (beats(c, w, x->trump))
            r = tail(x, leader, n + 1, c, seat, led, p + pts(c), tl, rem - pts(c), u, alpha, beta);
        else
            r = tail(x, leader, n + 1, w, ws, led, p + pts(c), tl, rem - pts(c), u, alpha, beta);
        if (maximise) {
            if (r > v) {
                v = r;
                if (r > alpha) alpha = r;
            }
        } else if (r < v) {
            v = r;
            if (r < beta) beta = r;
        }
        if (alpha >= beta) break;
    }
    x->h[seat] = hand;
    return v;
}

/* The seat that wins a trick of the cards ``c`` (by seat) led by ``leader`` (its card leads). */
static int trick_winner(const int *c, int leader, int trump) {
    int best = c[leader], bs = leader;
    for (int k = 1; k < 4; k++) {
        int s = (leader + k) & 3;
        if (beats(c[s], best, trump)) {
            best = c[s];
            bs = s;
        }
    }
    return bs;
}

static int last_trick_winner(const Ctx *x, int leader) {
    int c[4];
    for (int s = 0; s < 4; s++) c[s] = 31 - __builtin_clz(x->h[s]);
    return trick_winner(c, leader, x->trump);
}

/* Team 0's points of the last two tricks, ``leader`` to lead (``rem`` = points in hands + 1),
 * exactly, whatever the window: alpha-beta over the (at most 16) lines for the leader's team,
 * the last trick read off the cards left.  Stored exact, a position two tricks from the end is
 * never searched twice: the generic search there, whose bounds depend on the window, took 15 %
 * longer over the recorded solves of expert-4's games. */
static int two(Ctx *x, int leader, int rem) {
    int trump = x->trump, team = leader & 1;
    int s1 = (leader + 1) & 3, s2 = (leader + 2) & 3, s3 = (leader + 3) & 3;
    uint32_t h0 = x->h[leader], h1 = x->h[s1], h2 = x->h[s2], h3 = x->h[s3];
    int best0 = -1;
    for (uint32_t m0 = h0; m0; m0 &= m0 - 1) {
        int c0 = __builtin_ctz(m0), led = c0 >> 3;
        int l0 = 31 - __builtin_clz((h0 ^ (1u << c0)) | 1u);
        int v1 = INF; /* the opponents on the leader's left: the least */
        for (uint32_t m1 = legal_facing(h1, led, c0, leader, s1, trump); m1 && v1 > best0; m1 &= m1 - 1) {
            int c1 = __builtin_ctz(m1);
            int l1 = 31 - __builtin_clz((h1 ^ (1u << c1)) | 1u);
            int w1 = c0, ws1 = leader;
            if (beats(c1, w1, trump)) { w1 = c1; ws1 = s1; }
            int v2 = -1; /* the partner: the most */
            for (uint32_t m2 = legal_facing(h2, led, w1, ws1, s2, trump); m2 && v2 < v1; m2 &= m2 - 1) {
                int c2 = __builtin_ctz(m2);
                int l2 = 31 - __builtin_clz((h2 ^ (1u << c2)) | 1u);
                int w2 = w1, ws2 = ws1;
                if (beats(c2, w2, trump)) { w2 = c2; ws2 = s2; }
                int v3 = INF;
                for (uint32_t m3 = legal_facing(h3, led, w2, ws2, s3, trump); m3 && v3 > v2; m3 &= m3 - 1) {
                    int c3 = __builtin_ctz(m3);
                    int l3 = 31 - __builtin_clz((h3 ^ (1u << c3)) | 1u);
                    int ws = ws2, w = w2;
                    if (beats(c3, w, trump)) { w = c3; ws = s3; }
                    int p = pts(c0) + pts(c1) + pts(c2) + pts(c3);
                    /* the last trick: each seat's other card, led by the trick's winner */
                    int l[4];
                    l[leader] = l0; l[s1] = l1; l[s2] = l2; l[s3] = l3;
                    int lw = trick_winner(l, ws, trump);
                    int v = ((ws & 1) == team ? p : 0) + ((lw & 1) == team ? rem - p : 0);
                    if (v < v3) v3 = v;
                }
                if (v3 > v2) v2 = v3;
            }
            if (v2 < v1) v1 = v2;
        }
        if (v1 > best0) best0 = v1;
    }
    return team ? rem - best0 : best0;
}

/* Note a position's proven bounds and best lead in its ``bucket``: in its own entry, else an
 * empty one, else the one with the fewest tricks left (the cheapest to redo). */
static void store(Entry *bucket, const Key *y, int at, int lo, int hi, int best) {
    Entry *e = find(bucket, y, at); /* the search since the first read may have moved it */
    if (!e) {
        e = &bucket[0];
        for (int i = 1; i < WAYS && e->at; i++)
            if (bucket[i].at < e->at) e = &bucket[i];
    }
    memcpy(e->k, y->k, sizeof e->k);
    e->at = (uint8_t)at;
    e->lo = (uint8_t)lo;
    e->hi = (uint8_t)hi;
    e->best = (int8_t)best;
}

/* Team 0's points of the ``tl`` tricks left, ``leader`` to lead; ``rem`` = points in hands + 1. */
static int boundary(Ctx *x, int leader, int tl, int rem, int alpha, int beta) {
    if (tl == 1) return (last_trick_winner(x, leader) & 1) ? 0 : rem;
    if (beta <= 0) return 0;
    if (alpha >= rem) return rem;
    Key y = key_of(x->h);
    int at = tl * 4 + leader;
    Entry *bucket = bucket_of(x, &y, leader);
    Entry *e = find(bucket, &y, at);
    int lo = 0, hi = rem, mv = -1;
    if (e) {
        lo = e->lo;
        hi = e->hi;
        mv = e->best;
        if (lo >= beta || lo == hi) return lo;
        if (hi <= alpha) return hi;
    }
    if (tl == 2) {
        int v = two(x, leader, rem);
        store(bucket, &y, at, v, v, -1);
        x->nodes++;
        return v;
    }
    int a = alpha > lo ? alpha : lo;
    int b = beta < hi ? beta : hi;
    int wa = a, wb = b;
    uint32_t u = y.k[0]; /* the cards in play */
    uint32_t hand = x->h[leader];
    int moves[32];
    int k = order_leads(x, reduce_equivalent(hand, u), moves);
    /* the table's best lead, else the last lead of this seat that cut off as many tricks from
     * the end (a killer move: 8 % fewer positions and 6 % sooner on the recorded solves of
     * expert-4's games, 13 % on oracle-1's; two killers, or killers for the follows, took longer) */
    first(moves, k, x->killer[leader][tl] - 1);
    first(moves, k, mv);
    int maximise = !(leader & 1);
    int v = maximise ? -1 : INF;
    int bm = -1;
    for (int i = 0; i < k; i++) {
        int c = moves[i];
        x->h[leader] = hand ^ (1u << c);
        int r = tail(x, leader, 1, c, leader, c >> 3, pts(c), tl, rem - pts(c), u, a, b);
        if (maximise) {
            if (r > v) {
                v = r;
                bm = c;
                if (r > a) a = r;
            }
        } else if (r < v) {
            v = r;
            bm = c;
            if (r < b) b = r;
        }
        if (a >= b) {
            x->killer[leader][tl] = c + 1;
            break;
        }
    }
    x->h[leader] = hand;
    if (v <= wa) {
        if (v < hi) hi = v;
    } else if (v >= wb) {
        if (v > lo) lo = v;
    } else {
        lo = hi = v;
    }
    /* a lead that reached no bound (every lead failed) says little: the table's is kept */
    store(bucket, &y, at, lo, hi, (maximise ? v <= wa : v >= wb) ? mv : bm);
    x->nodes++;
    return v;
}

/* -- the API ------------------------------------------------------------------------------- */

Ctx *dds_new(int trump, int log2_entries) {
    Ctx *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    x->trump = trump;
    x->last_best = -1;
    x->mask = (1u << log2_entries) / WAYS - 1; /* buckets */
    x->table = calloc((size_t)(x->mask + 1) * WAYS, sizeof(Entry));
    if (!x->table) {
        free(x);
        return NULL;
    }
    return x;
}

void dds_free(Ctx *x) {
    if (x) {
        free(x->table);
        free(x);
    }
}

long dds_nodes(const Ctx *x) { return x->nodes; }

void dds_clear(Ctx *x) { memset(x->table, 0, (size_t)(x->mask + 1) * WAYS * sizeof(Entry)); }

typedef struct {
    Ctx *x;
    int leader, n, w, ws, led, p, tl, total, mover;
    uint32_t u;
    int card;
} Root;

/* Team 0's points when the mover plays ``card`` (fail-soft in the window). */
static int child(Root *r, int alpha, int beta) {
    Ctx *x = r->x;
    int c = r->card;
    uint32_t hand = x->h[r->mover];
    x->h[r->mover] = hand ^ (1u << c);
    int v;
    if (r->n == 0) {
        v = tail(x, r->mover, 1, c, r->mover, c >> 3, pts(c), r->tl, r->total - pts(c), r->u, alpha, beta);
    } else {
        int w = r->w, ws = r->ws;
        if (beats(c, w, x->trump)) {
            w = c;
            ws = r->mover;
        }
        int p = r->p + pts(c);
        v = tail(x, r->leader, r->n + 1, w, ws, r->led, p, r->tl, r->total - p, r->u, alpha, beta);
    }
    x->h[r->mover] = hand;
    return v;
}

/* bots/solver.py's _exact: the value known to lie in [lo, hi] by null-window probes of
 * ``search``: at the guess, beside it, then by halves. */
static int exact(Root *r, int (*search)(Root *, int, int), int lo, int hi, int guess) {
    int b = guess, probes = 0;
    while (lo < hi) {
        if (b <= lo)
            b = lo + 1;
        else if (b > hi)
            b = hi;
        int v = search(r, b - 1, b);
        probes++;
        if (v < b) {
            hi = v;
            b = probes == 1 ? hi : (lo + hi + 1) / 2;
        } else {
            lo = v;
            b = probes == 1 ? lo + 1 : (lo + hi + 1) / 2;
        }
    }
    return lo;
}

/* The root position of a question: the trick in progress (``n`` cards ``trick`` led by
 * ``leader``) over the four ``hands``. */
static void root_setup(Ctx *x, Root *r, const uint32_t *hands, int leader, int n, const int *trick) {
    memcpy(x->h, hands, sizeof x->h);
    r->x = x;
    r->leader = leader;
    r->n = n;
    r->mover = (leader + n) & 3;
    r->tl = __builtin_popcount(hands[r->mover]);
    uint32_t u = hands[0] | hands[1] | hands[2] | hands[3];
    int p = 0, w = -1, ws = -1, led = -1;
    for (int i = 0; i < n; i++) {
        int c = trick[i];
        u |= 1u << c;
        p += pts(c);
        if (i == 0) {
            w = c;
            ws = leader;
            led = c >> 3;
        } else if (beats(c, w, x->trump)) {
            w = c;
            ws = (leader + i) & 3;
        }
    }
    r->u = u;
    r->total = mask_points(u) + 1;
    r->w = w;
    r->ws = ws;
    r->led = led;
    r->p = p;
}

static uint32_t root_legal(const Root *r) {
    uint32_t hand = r->x->h[r->mover];
    return r->n ? legal_facing(hand, r->led, r->w, r->ws, r->mover, r->x->trump) : hand;
}

/* An 8 or 9 the search left out (legal, not in ``reps``) takes the answer of the next lower card
 * in play, which stands for it. */
static void equivalents(int *out, uint32_t legal, uint32_t reps, uint32_t u) {
    for (int c = 0; c < 32; c++) {
        if (!(legal >> c & 1) || reps >> c & 1) continue;
        int d = c - 1;
        while (!(u >> d & 1)) d--;
        out[c] = out[d];
    }
}

/* The mover's exact value of ``r->card``, known to lie in [lo, hi] (mover's points). */
static int mover_exact(Root *r, int maximise, int lo, int hi, int guess) {
    if (maximise) return exact(r, child, lo, hi, guess);
    return r->total - exact(r, child, r->total - hi, r->total - lo, r->total - guess);
}

/* One null-window test of ``r->card`` at ``v`` (mover's points): the answer is at least ``v``
 * when the card reaches ``v`` (a bound below its value), else an upper bound below ``v``. */
static int mover_test(Root *r, int maximise, int v) {
    if (maximise) return child(r, v - 1, v);
    return r->total - child(r, r->total - v, r->total - v + 1);
}

/* The mover's best value, and for each legal card ``out[c]``: its exact value for the optimal
 * cards (it equals the best), for the others an upper bound strictly below the best (-1: not
 * legal).  The cards are searched one by one, the last question's best card first (the deals a
 * bot solves for one decision often share it), then in the search's own order: the first
 * exactly (from ``guess``, team 0's points), each next one by a null-window test against the
 * best so far, exactly only when it reaches it.  Cards the search leaves out (8s and 9s
 * equivalent to the next lower card in play) take that card's answer.  Returns the best. */
int dds_card_bounds(Ctx *x, const uint32_t *hands, int leader, int n, const int *trick, int guess, int *out) {
    Root r;
    root_setup(x, &r, hands, leader, n, trick);
    uint32_t legal = root_legal(&r);
    uint32_t reps = reduce_equivalent(legal, r.u);
    int maximise = !(r.mover & 1);
    for (int c = 0; c < 32; c++) out[c] = -1;
    int moves[32];
    int k = n ? order_cards(reps, (r.ws ^ r.mover) & 1, moves) : order_leads(x, reps, moves);
    first(moves, k, x->last_best);
    int best = -1;
    for (int i = 0; i < k; i++) {
        int c = r.card = moves[i];
        if (best < 0) {
            best = out[c] = mover_exact(&r, maximise, 0, r.total, maximise ? guess : r.total - guess);
            x->last_best = c;
            continue;
        }
        int m = mover_test(&r, maximise, best);
        if (m < best) {
            out[c] = m;
            continue;
        }
        out[c] = mover_exact(&r, maximise, m, r.total, m);
        if (out[c] > best) { /* the cards equal to the old best are now below it: bounds still */
            best = out[c];
            x->last_best = c;
        }
    }
    equivalents(out, legal, reps, r.u);
    return best;
}

/* The exact value for the mover of its legal ``card``, known to be at most ``upper`` (a bound
 * from dds_card_bounds, or the total).  An 8 or 9 left out is searched as the card it stands for.
 * -1 for a card that is not legal.  Tested at the bound, then at each lower bound a test
 * returns, until one holds: the bound is the value two times in five (recorded expert-4 solves),
 * and this took 10 % less time there than exact()'s halving after the second test. */
int dds_card_exact(Ctx *x, const uint32_t *hands, int leader, int n, const int *trick, int card, int upper) {
    Root r;
    root_setup(x, &r, hands, leader, n, trick);
    uint32_t legal = root_legal(&r), reps = reduce_equivalent(legal, r.u);
    if (card < 0 || card > 31 || !(legal >> card & 1)) return -1;
    while (!(reps >> card & 1)) {
        card--;
        while (!(r.u >> card & 1)) card--;
    }
    r.card = card;
    int maximise = !(r.mover & 1), v = upper;
    while (v > 0) {
        int m = mover_test(&r, maximise, v);
        if (m >= v) break;
        v = m;
    }
    return v;
}

/* The exact points the mover's team takes from here for each legal card: ``out[c]`` for every
 * legal card id c, -1 for the others.  ``hands``: the four hands; the trick in progress has
 * ``n`` cards ``trick`` led by ``leader``; ``guess``: of team 0's points, a hint.  The caller
 * (bots/solver.py) has checked that the position is a legal one.  Returns the mover's best.
 * The best and a bound for each card (dds_card_bounds), then each card found worse searched
 * down from its bound (bots/solver.py's child_exact; its _Root.best finds the best value of the
 * root first and tests each card against it: the same values, more probes of the whole tree). */
int dds_card_values(Ctx *x, const uint32_t *hands, int leader, int n, const int *trick, int guess, int *out) {
    int best = dds_card_bounds(x, hands, leader, n, trick, guess, out);
    Root r;
    root_setup(x, &r, hands, leader, n, trick);
    uint32_t legal = root_legal(&r), reps = reduce_equivalent(legal, r.u);
    for (int c = 0; c < 32; c++)
        if (reps >> c & 1 && out[c] != best) out[c] = dds_card_exact(x, hands, leader, n, trick, c, out[c]);
    equivalents(out, legal, reps, r.u);
    return best;
}
