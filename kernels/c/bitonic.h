// The bitonic network shared by Bitonic.c and BitonicPairs.c (see
// harness/suite/sort.py for the plan that drives it).
// Keys are read as unsigned words: WORD is as wide as a key, WORD_BITS its
// width, KEY_KIND says how to order them (0 unsigned, 1 signed, 2 float), and
// TILE is the number of keys a work-group sorts in local memory. Define
// WITH_VALUES (and VALUE) to carry a value with each key.

#if WORD_BITS == 64
#define SIGN 0x8000000000000000ul
#define INF_BITS 0x7FF0000000000000ul
#else
#define SIGN 0x80000000u
#define INF_BITS 0x7F800000u
#endif

#ifdef WITH_VALUES
#define GLOBAL_VALUES , GLOBAL VALUE* values
#define LOCAL_VALUES , LOCAL VALUE* lv
#define PASS_VALUES , lv
#define SWAP_VALUES(a, i, j)                                                                       \
    {                                                                                              \
        const VALUE x = a[i];                                                                      \
        a[i] = a[j];                                                                               \
        a[j] = x;                                                                                  \
    }
#else
#define GLOBAL_VALUES
#define LOCAL_VALUES
#define PASS_VALUES
#define SWAP_VALUES(a, i, j)
#endif

// A kernel's tile in work-group memory: keys in lk, values in lv. Where the
// tile is given at launch (DYNAMIC_SHARED_BYTES, a CUDA tile over 48 KiB), the
// values follow the keys in the one dynamic array.
#ifdef DYNAMIC_SHARED_BYTES
#define TILE_KEYS DYNAMIC_SHARED(WORD, lk)
#define TILE_VALUES LOCAL VALUE* const lv = (LOCAL VALUE*)(lk + TILE)
#else
#define TILE_KEYS SHARED WORD lk[TILE]
#define TILE_VALUES SHARED VALUE lv[TILE]
#endif
#ifdef WITH_VALUES
#define TILE_ARRAYS                                                                                \
    TILE_KEYS;                                                                                     \
    TILE_VALUES
#else
#define TILE_ARRAYS TILE_KEYS
#endif

// Pair t of distance d (a power of two) starts at t with a zero bit inserted
// at d; its partner is that plus d, or the mirror image in its block of 2d.
#define PAIR_LOWER(t, d) ((((t) & ~((d) - 1)) << 1) | ((t) & ((d) - 1)))

// Where position p of a tile lives in local memory: its low five bits XORed
// with the five from bit STEPS (a permutation of each 32 consecutive slots).
// A tiled pass's work-items hold positions PASS_KEYS apart where its smallest
// distance is short, which in the plain layout puts a GPU warp's 32 accesses
// on as few as two of its 32 banks, each access waiting for the others; in
// this one every pass of any STEPS, and the tile's loads and stores, reach 32
// different banks, and the local strategy's steps no more than two words a bank.
#define TILE_SLOT(p) ((p) ^ (((p) >> STEPS) & 31u))

// The word whose unsigned order is the keys' order: NaNs above +inf, -0 below +0.
// ORDERED is written for a word and for a vector of words alike (a condition
// is a comparison or a sign test, true in both meanings).
#if KEY_KIND == 0
#define ORDERED(w) (w)
#elif KEY_KIND == 1
#define ORDERED(w) ((w) ^ SIGN)
#else
#define ORDERED(w)                                                                                 \
    ((((w) & ~SIGN) > INF_BITS) ? ((w) | SIGN) : (((w) & SIGN) ? ~(w) : ((w) | SIGN)))
#endif

DEVICE WORD order_word(const WORD w, const uint descending)
{
    const WORD k = ORDERED(w);
    return descending ? ~k : k;
}

// One compare-exchange of the global network: pair t of distance d; the first
// step of a stage (flip) pairs mirror positions. The smaller key goes low;
// positions at or past n are +infinity, so such pairs are skipped.
KERNEL void bitonic_step(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d,
                         const uint flip, const uint descending)
{
    const uint t = GLOBAL_ID(0);
    const uint lower = PAIR_LOWER(t, d);
    const uint upper = flip ? lower ^ (2 * d - 1) : lower | d;
    if (upper >= n) {
        return;
    }
    const WORD a = keys[lower];
    const WORD b = keys[upper];
    if (order_word(a, descending) > order_word(b, descending)) {
        keys[lower] = b;
        keys[upper] = a;
        SWAP_VALUES(values, lower, upper)
    }
}

// One step over a tile in local memory; count keys of the tile are real.
DEVICE void tile_step(LOCAL WORD* lk LOCAL_VALUES, const uint count, const uint d, const uint flip,
                      const uint descending)
{
    for (uint p = LOCAL_ID(0); p < TILE / 2; p += GROUP) {
        const uint lower = PAIR_LOWER(p, d);
        const uint upper = flip ? lower ^ (2 * d - 1) : lower | d;
        if (upper < count) {
            const uint low_slot = TILE_SLOT(lower);
            const uint high_slot = TILE_SLOT(upper);
            const WORD a = lk[low_slot];
            const WORD b = lk[high_slot];
            if (order_word(a, descending) > order_word(b, descending)) {
                lk[low_slot] = b;
                lk[high_slot] = a;
                SWAP_VALUES(lv, low_slot, high_slot)
            }
        }
    }
    BARRIER();
}

DEVICE uint tile_load(GLOBAL const WORD* keys, LOCAL WORD* lk, const uint n
#ifdef WITH_VALUES
                      ,
                      GLOBAL const VALUE* values, LOCAL VALUE* lv
#endif
)
{
    const ulong first = (ulong)GROUP_ID(0) * TILE;
    const uint count = (uint)min((ulong)TILE, (ulong)n - first);
    for (uint i = LOCAL_ID(0); i < count; i += GROUP) {
        lk[TILE_SLOT(i)] = keys[first + i];
#ifdef WITH_VALUES
        lv[TILE_SLOT(i)] = values[first + i];
#endif
    }
    BARRIER();
    return count;
}

DEVICE void tile_store(GLOBAL WORD* keys, LOCAL const WORD* lk, const uint count
#ifdef WITH_VALUES
                       ,
                       GLOBAL VALUE* values, LOCAL const VALUE* lv
#endif
)
{
    const ulong first = (ulong)GROUP_ID(0) * TILE;
    for (uint i = LOCAL_ID(0); i < count; i += GROUP) {
        keys[first + i] = lk[TILE_SLOT(i)];
#ifdef WITH_VALUES
        values[first + i] = lv[TILE_SLOT(i)];
#endif
    }
}

#ifdef WITH_VALUES
#define TILE_LOAD tile_load(keys, lk, n, values, lv)
#define TILE_STORE tile_store(keys, lk, count, values, lv)
#else
#define TILE_LOAD tile_load(keys, lk, n)
#define TILE_STORE tile_store(keys, lk, count)
#endif

// Sorts each tile: every stage of the network up to blocks of TILE keys.
KERNEL void bitonic_local_sort(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint descending)
{
    TILE_ARRAYS;
    const uint count = TILE_LOAD;
    for (uint block = 2; block <= TILE; block <<= 1) {
        tile_step(lk PASS_VALUES, count, block / 2, 1, descending);
        for (uint d = block / 4; d > 0; d >>= 1) {
            tile_step(lk PASS_VALUES, count, d, 0, descending);
        }
    }
    TILE_STORE;
}

// Finishes a stage inside each tile: the steps of distance below TILE.
KERNEL void bitonic_local_merge(GLOBAL WORD* keys GLOBAL_VALUES, const uint n,
                                const uint descending)
{
    TILE_ARRAYS;
    const uint count = TILE_LOAD;
    for (uint d = TILE / 2; d > 0; d >>= 1) {
        tile_step(lk PASS_VALUES, count, d, 0, descending);
    }
    TILE_STORE;
}

// --- The fused strategy: STEPS steps of the network per pass, in registers.
// A work-item holds PASS_KEYS = 2^STEPS keys, does STEPS compare-exchange
// steps on them with no barrier and no memory traffic, and writes them back
// once. Register indices are compile-time after unrolling, so the arrays stay
// in registers on a GPU, and a CPU device vectorises the exchanges across
// work-items, which it does for one array of words exchanged by min and max.
// So keys are held as pass words: order words made one to one (a float's NaNs,
// which order_word ties by sign, are told apart by it). Between a sort's first
// launch (the presort), which reads keys, and its last, which writes keys,
// the array holds pass words, so the launches between convert nothing.

#if KEY_KIND == 2
#if WORD_BITS == 64
#define MANTISSA_BITS 52
#else
#define MANTISSA_BITS 23
#endif
// Order words of non-NaN floats move down by the number of positive NaNs,
// making room for the NaNs of both signs above them, by payload then sign.
#define NAN_COUNT ((((WORD)1) << MANTISSA_BITS) - 1)
#define FIRST_NAN (~(WORD)0 - 2 * NAN_COUNT + 1)
#endif

// A key's pass word and back; PASS_WORD and PASS_KEY, like ORDERED, serve a
// word and a vector of words.
#if KEY_KIND == 2
#define PASS_ORDERED(w)                                                                            \
    ((((w) & ~SIGN) > INF_BITS)                                                                    \
         ? FIRST_NAN + 2 * (((w) & ~SIGN) - INF_BITS - 1) + ((w) >> (WORD_BITS - 1))               \
         : ORDERED(w) - NAN_COUNT)
#define KEY_OF(k)                                                                                  \
    (((k) >= FIRST_NAN)                                                                            \
         ? ((INF_BITS + 1 + (((k) - FIRST_NAN) >> 1)) | ((0 - ((k) & 1)) & SIGN))                  \
         : ((((k) + NAN_COUNT) & SIGN) ? ((k) + NAN_COUNT) & ~SIGN : ~((k) + NAN_COUNT)))
#elif KEY_KIND == 1
#define PASS_ORDERED(w) ORDERED(w)
#define KEY_OF(k) ((k) ^ SIGN)
#else
#define PASS_ORDERED(w) ORDERED(w)
#define KEY_OF(k) (k)
#endif
#define PASS_WORD(w, descending) ((descending) ? ~PASS_ORDERED(w) : PASS_ORDERED(w))
#define PASS_KEY(word, descending) KEY_OF((descending) ? ~(word) : (word))

DEVICE WORD pass_word(const WORD w, const uint descending)
{
    return PASS_WORD(w, descending);
}

DEVICE WORD pass_key(const WORD word, const uint descending)
{
    return PASS_KEY(word, descending);
}

#ifdef WITH_VALUES
#define REG_VALUES VALUE rv[PASS_KEYS];
#define LOAD_VALUE(from, i, p) rv[i] = from[p];
#define STORE_VALUE(to, i, p) to[p] = rv[i];
// Both registers read before either is written: PoCL 3.1's loop vectoriser
// (LLVM 15) miscompiled the form that selects from the array itself, pairing
// values with the wrong keys in passes of 2 and 3 steps.
#define SWAP_REG_VALUES(i, j, swap)                                                                \
    {                                                                                              \
        const VALUE a_ = rv[i];                                                                    \
        const VALUE b_ = rv[j];                                                                    \
        rv[i] = (swap) ? b_ : a_;                                                                  \
        rv[j] = (swap) ? a_ : b_;                                                                  \
    }
#else
#define REG_VALUES
#define LOAD_VALUE(from, i, p)
#define STORE_VALUE(to, i, p)
#define SWAP_REG_VALUES(i, j, swap)
#endif

// Registers i < j, holding positions in that order: the smaller word goes to
// i. A position at or past n holds the largest word and no key: it never moves
// below a real one (a tie does not swap), and is never stored. Ternaries, not
// min and max, which PoCL leaves as calls it does not vectorise (ten times
// slower at 2^22 keys).
#define REG_EXCHANGE(i, j)                                                                         \
    {                                                                                              \
        const bool swap_ = rw[i] > rw[j];                                                          \
        SWAP_REG_VALUES(i, j, swap_)                                                               \
        const WORD lo_ = swap_ ? rw[j] : rw[i];                                                    \
        const WORD hi_ = swap_ ? rw[i] : rw[j];                                                    \
        rw[i] = lo_;                                                                               \
        rw[j] = hi_;                                                                               \
    }

#ifdef WITH_VALUES
#define VALUES_ARG , values
#else
#define VALUES_ARG
#endif

// The steps of distance from down to 1 on registers rw (a stage's steps after
// its first).
#define MERGE_EXCHANGES(from)                                                                      \
    UNROLL                                                                                         \
    for (uint dist = (from); dist > 0; dist >>= 1) {                                               \
        UNROLL                                                                                     \
        for (uint i = 0; i < PASS_KEYS; ++i) {                                                     \
            if (!(i & dist)) {                                                                     \
                REG_EXCHANGE(i, i | dist)                                                          \
            }                                                                                      \
        }                                                                                          \
    }

// A pass's STEPS steps on registers rw: the first pairs register i with i +
// PASS_KEYS / 2, or with its mirror image when it is a stage's flip.
#define PASS_EXCHANGES(flip)                                                                       \
    UNROLL                                                                                         \
    for (uint i = 0; i < PASS_KEYS / 2; ++i) {                                                     \
        if (flip) {                                                                                \
            REG_EXCHANGE(i, i ^ (PASS_KEYS - 1))                                                   \
        } else {                                                                                   \
            REG_EXCHANGE(i, i + PASS_KEYS / 2)                                                     \
        }                                                                                          \
    }                                                                                              \
    MERGE_EXCHANGES(PASS_KEYS / 4)

// The network's stages up to blocks of PASS_KEYS on registers rw, which sorts
// them: each stage a flip (register i with its mirror), then its other steps.
#define PRESORT_EXCHANGES                                                                          \
    UNROLL                                                                                         \
    for (uint block = 2; block <= PASS_KEYS; block <<= 1) {                                        \
        UNROLL                                                                                     \
        for (uint i = 0; i < PASS_KEYS; ++i) {                                                     \
            if (!(i & (block / 2))) {                                                              \
                REG_EXCHANGE(i, i ^ (block - 1))                                                   \
            }                                                                                      \
        }                                                                                          \
        MERGE_EXCHANGES(block / 4)                                                                 \
    }

// Register i's position of PASS_KEYS: first + i * stride, or mirror + i *
// stride for the upper half.
#define REG_POSITION(i, first, mirror, stride)                                                     \
    (((i) < PASS_KEYS / 2 ? (first) : (mirror)) + (i) * (stride))

// A work-item's registers from its positions. Guarded, positions at or past n
// hold the largest word. The plan launches unguarded work-items only where
// every position is below n: a guard's branches keep PoCL from vectorising.
// With from_keys the array holds keys, not pass words; with to_keys it is
// left so.
#define REG_LOAD(first, mirror, stride, guarded, from_keys)                                        \
    UNROLL                                                                                         \
    for (uint i = 0; i < PASS_KEYS; ++i) {                                                         \
        const uint p = REG_POSITION(i, first, mirror, stride);                                     \
        rw[i] = ~(WORD)0;                                                                          \
        if (!(guarded) || p < n) {                                                                 \
            rw[i] = (from_keys) ? pass_word(keys[p], descending) : keys[p];                        \
            LOAD_VALUE(values, i, p)                                                               \
        }                                                                                          \
    }

#define REG_STORE(first, mirror, stride, guarded, to_keys)                                         \
    UNROLL                                                                                         \
    for (uint i = 0; i < PASS_KEYS; ++i) {                                                         \
        const uint p = REG_POSITION(i, first, mirror, stride);                                     \
        if (!(guarded) || p < n) {                                                                 \
            keys[p] = (to_keys) ? pass_key(rw[i], descending) : rw[i];                             \
            STORE_VALUE(values, i, p)                                                              \
        }                                                                                          \
    }

// The same from and to a tile in work-group memory, lk (values lv), where
// every position holds a pass word.
#define TILE_REG_LOAD(first, mirror, stride)                                                       \
    UNROLL                                                                                         \
    for (uint i = 0; i < PASS_KEYS; ++i) {                                                         \
        const uint p = TILE_SLOT(REG_POSITION(i, first, mirror, stride));                          \
        rw[i] = lk[p];                                                                             \
        LOAD_VALUE(lv, i, p)                                                                       \
    }

#define TILE_REG_STORE(first, mirror, stride)                                                      \
    UNROLL                                                                                         \
    for (uint i = 0; i < PASS_KEYS; ++i) {                                                         \
        const uint p = TILE_SLOT(REG_POSITION(i, first, mirror, stride));                          \
        lk[p] = rw[i];                                                                             \
        STORE_VALUE(lv, i, p)                                                                      \
    }

// Work-item t sorts the PASS_KEYS consecutive keys from t * PASS_KEYS: the
// network's stages up to blocks of PASS_KEYS, every step in registers.
DEVICE void presort(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint descending,
                    const uint t, const bool guarded, const uint last)
{
    const uint first = t * PASS_KEYS;
    WORD rw[PASS_KEYS];
    REG_VALUES
    REG_LOAD(first, first, 1, guarded, 1)
    PRESORT_EXCHANGES
    REG_STORE(first, first, 1, guarded, last)
}

// Where work-item t of a pass from distance d starts: t with STEPS zero bits
// inserted at the pass's smallest distance, low.
DEVICE uint pass_base(const uint t, const uint d)
{
    const uint low = d >> (STEPS - 1);
    return ((t & ~(low - 1)) << STEPS) | (t & (low - 1));
}

// STEPS consecutive steps of one stage, of distances d down to d / 2^(STEPS-1):
// a work-item holds the PASS_KEYS positions those steps pair among themselves,
// base + i * low (low the smallest distance). When the first step is a stage's
// flip, the upper half of them are the mirror images of the lower half: mirror
// is base with its bits below low flipped. Positions grow with i in both
// layouts, so those below n are a prefix. The sort's last launch writes keys.
DEVICE void pass(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d, const uint flip,
                 const uint descending, const uint base, const uint mirror, const bool guarded,
                 const uint last)
{
    const uint low = d >> (STEPS - 1);
    WORD rw[PASS_KEYS];
    REG_VALUES
    REG_LOAD(base, mirror, low, guarded, 0)
    PASS_EXCHANGES(flip)
    REG_STORE(base, mirror, low, guarded, last)
}

// Work-item t's pass, its positions from pass_base.
DEVICE void pass_item(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d, const uint flip,
                      const uint descending, const uint t, const bool guarded, const uint last)
{
    const uint low = d >> (STEPS - 1);
    const uint base = pass_base(t, d);
    pass(keys VALUES_ARG, n, d, flip, descending, base, flip ? base ^ (low - 1) : base, guarded,
         last);
}

#if defined(HARNESS_CPU_DEVICE) && PASS_KEYS == 16
// On a CPU device, 16 consecutive keys are one vector: the steps of distance 8
// down to 1 pair its lanes by swizzles, where the register form reads and
// writes every 16th key of 16 work-items; longer distances pair whole vectors.
#define LANES_OF_(t) t##16
#define LANES_OF(t) LANES_OF_(t)
#if WORD_BITS == 64
#define LANE_MASK long16
#else
#define LANE_MASK int16
#endif
typedef LANES_OF(WORD) word_lanes;
// The lanes whose bit d is set: those that keep the larger word of a pair.
#define LANE_IDS ((word_lanes)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#define UPPER(d) ((LANE_IDS & (d)) != 0)

// A block's vectors of words are r[k] (and of values q[k]), vector t + k of
// the arrays.
#ifdef WITH_VALUES
typedef LANES_OF(VALUE) value_lanes;
#define BLOCK_VALUES value_lanes q[BLOCK_VECTORS];
#define LOAD_VALUES(k) q[k] = LANES_OF(vload)(t + (k), values);
#define STORE_VALUES(k) LANES_OF(vstore)(q[k], t + (k), values);
#define REVERSE_VALUES(k) q[k] = q[k].sfedcba9876543210;
// A lane takes its partner's word and value when the partner belongs on its side.
#define EXCHANGE_LANES(k, partner, upper)                                                          \
    {                                                                                              \
        const word_lanes p_ = r[k].partner;                                                        \
        const LANE_MASK take_ = ((upper) & (p_ > r[k])) | (~(upper) & (p_ < r[k]));                \
        q[k] = select(q[k], q[k].partner, take_);                                                  \
        r[k] = select(r[k], p_, take_);                                                            \
    }
// Vector a keeps the smaller word of each lane, vector b the larger.
#define EXCHANGE_VECTORS(a, b)                                                                     \
    {                                                                                              \
        const LANE_MASK take_ = r[b] < r[a];                                                       \
        const value_lanes qa_ = q[a];                                                              \
        const word_lanes ra_ = r[a];                                                               \
        q[a] = select(qa_, q[b], take_);                                                           \
        q[b] = select(q[b], qa_, take_);                                                           \
        r[a] = select(ra_, r[b], take_);                                                           \
        r[b] = select(r[b], ra_, take_);                                                           \
    }
#else
#define BLOCK_VALUES
#define LOAD_VALUES(k)
#define STORE_VALUES(k)
#define REVERSE_VALUES(k)
#define EXCHANGE_LANES(k, partner, upper)                                                          \
    {                                                                                              \
        const word_lanes p_ = r[k].partner;                                                        \
        r[k] = select(min(r[k], p_), max(r[k], p_), upper);                                        \
    }
#define EXCHANGE_VECTORS(a, b)                                                                     \
    {                                                                                              \
        const word_lanes ra_ = r[a];                                                               \
        r[a] = min(ra_, r[b]);                                                                     \
        r[b] = max(ra_, r[b]);                                                                     \
    }
#endif
#define REVERSE(k)                                                                                 \
    r[k] = r[k].sfedcba9876543210;                                                                 \
    REVERSE_VALUES(k)

// The most vectors a block holds: a pass's block of 2d keys is one vector for
// each distance below LANES, so 8 for the largest, d = 64.
#define BLOCK_VECTORS 8

// The steps of distance 8, 4, 2 and 1 of a stage, which pair lanes i and i | d.
#define MERGE_LANES(k)                                                                             \
    EXCHANGE_LANES(k, s89abcdef01234567, UPPER(8))                                                 \
    EXCHANGE_LANES(k, s45670123cdef89ab, UPPER(4))                                                 \
    EXCHANGE_LANES(k, s23016745ab89efcd, UPPER(2))                                                 \
    EXCHANGE_LANES(k, s1032547698badcfe, UPPER(1))

// The 16 v consecutive keys from vector t (v of 2 to BLOCK_VECTORS, a power of
// two) through a stage's steps from its flip, of distance 8 v, down to 1. The
// flip pairs vector k's lane i with lane 15 - i of vector v - 1 - k, so the
// upper vectors are reversed for it; they stay so, since they hold a bitonic
// sequence either way, which the smaller distances sort in the order held.
// Always inlined, so that v is a constant before its loops are unrolled.
DEVICE __attribute__((always_inline)) void flip_block(GLOBAL WORD* keys GLOBAL_VALUES, const uint t,
                                                      const uint v, const uint descending)
{
    word_lanes r[BLOCK_VECTORS];
    BLOCK_VALUES
    UNROLL
    for (uint k = 0; k < v; ++k) {
        r[k] = LANES_OF(vload)(t + k, keys);
        LOAD_VALUES(k)
    }
    UNROLL
    for (uint k = v / 2; k < v; ++k) {
        REVERSE(k)
    }
    UNROLL
    for (uint k = 0; k < v / 2; ++k) {
        EXCHANGE_VECTORS(k, v - 1 - k)
    }
    UNROLL
    for (uint dist = v / 4; dist > 0; dist >>= 1) {
        UNROLL
        for (uint k = 0; k < v; ++k) {
            if (!(k & dist)) {
                EXCHANGE_VECTORS(k, k | dist)
            }
        }
    }
    UNROLL
    for (uint k = 0; k < v; ++k) {
        MERGE_LANES(k)
        LANES_OF(vstore)(r[k], t + k, keys);
        STORE_VALUES(k)
    }
}

KERNEL void bitonic_presort(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint descending)
{
    const uint t = GLOBAL_ID(0);
    word_lanes r[1];
    BLOCK_VALUES
    r[0] = PASS_WORD(LANES_OF(vload)(t, keys), descending);
    LOAD_VALUES(0)
    // Stages of blocks 2, 4, 8 and 16: each a flip (lane i with its mirror,
    // i ^ (block - 1)), then the smaller distances.
    EXCHANGE_LANES(0, s1032547698badcfe, UPPER(1))
    EXCHANGE_LANES(0, s32107654ba98fedc, UPPER(2))
    EXCHANGE_LANES(0, s1032547698badcfe, UPPER(1))
    EXCHANGE_LANES(0, s76543210fedcba98, UPPER(4))
    EXCHANGE_LANES(0, s23016745ab89efcd, UPPER(2))
    EXCHANGE_LANES(0, s1032547698badcfe, UPPER(1))
    EXCHANGE_LANES(0, sfedcba9876543210, UPPER(8))
    MERGE_LANES(0)
    LANES_OF(vstore)(r[0], t, keys);
    STORE_VALUES(0)
}

KERNEL void bitonic_merge(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint last,
                          const uint descending)
{
    const uint t = GLOBAL_ID(0);
    word_lanes r[1];
    BLOCK_VALUES
    r[0] = LANES_OF(vload)(t, keys);
    LOAD_VALUES(0)
    MERGE_LANES(0)
    LANES_OF(vstore)(last ? PASS_KEY(r[0], descending) : r[0], t, keys);
    STORE_VALUES(0)
}

// A stage's first pass whose smallest distance is 2, 4 or 8: the first
// work-item of each block of 2d keys takes the whole block, as vectors. Other
// passes (the plan sends this entry none but where a grid is too large for
// rows) take the register form.
KERNEL void bitonic_pass(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d,
                         const uint flip, const uint descending)
{
    const uint low = d >> (STEPS - 1);
    const uint t = GLOBAL_ID(0);
    if (!flip || low >= LANES) {
        pass_item(keys VALUES_ARG, n, d, flip, descending, t, false, 0);
    } else if (!(t & (low - 1))) {
        if (low == 2) {
            flip_block(keys VALUES_ARG, t, 2, descending);
        } else if (low == 4) {
            flip_block(keys VALUES_ARG, t, 4, descending);
        } else {
            flip_block(keys VALUES_ARG, t, 8, descending);
        }
    }
}
#else
// The blocks of whole work-groups whose keys all lie below n (never the sort's
// last launch: a sort of more than PASS_KEYS keys has more).
KERNEL void bitonic_presort(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint descending)
{
    presort(keys VALUES_ARG, n, descending, GLOBAL_ID(0), false, 0);
}

// A stage's last pass, the steps that pair each work-item's PASS_KEYS
// consecutive keys.
KERNEL void bitonic_merge(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint last,
                          const uint descending)
{
    const uint base = GLOBAL_ID(0) * PASS_KEYS;
    pass(keys VALUES_ARG, n, PASS_KEYS / 2, 0, descending, base, base, false, last);
}

KERNEL void bitonic_pass(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d,
                         const uint flip, const uint descending)
{
    pass_item(keys VALUES_ARG, n, d, flip, descending, GLOBAL_ID(0), false, 0);
}
#endif

// The rest of a presort, from work-item first on, guarded.
KERNEL void bitonic_presort_tail(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint last,
                                 const uint first, const uint descending)
{
    const uint t = first + GLOBAL_ID(0);
    if (t * PASS_KEYS < n) {
        presort(keys VALUES_ARG, n, descending, t, true, last);
    }
}

// A pass whose smallest distance is LANES or more, on a two-axis launch: the
// LANES work-items along x hold neighbouring positions, whose addresses a CPU
// device then sees as consecutive (it vectorises along x) and a GPU reads
// coalesced. Row y holds the work-items from y * LANES. A stage's first pass,
// whose upper half runs down its block, is an entry point of its own: a
// branch on flip would stop a CPU device vectorising either.
KERNEL void bitonic_pass_rows(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d,
                              const uint descending)
{
    const uint first = pass_base(GLOBAL_ID(1) * LANES, d) + GLOBAL_ID(0);
    pass(keys VALUES_ARG, n, d, 0, descending, first, first, false, 0);
}

KERNEL void bitonic_flip_rows(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d,
                              const uint descending)
{
    const uint low = d >> (STEPS - 1);
    const uint row = pass_base(GLOBAL_ID(1) * LANES, d);
    pass(keys VALUES_ARG, n, d, 1, descending, row + GLOBAL_ID(0), (row ^ (low - 1)) - GLOBAL_ID(0),
         false, 0);
}

KERNEL void bitonic_pass_tail(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d,
                              const uint flip, const uint last, const uint first,
                              const uint descending)
{
    const uint t = first + GLOBAL_ID(0);
    if (pass_base(t, d) < n) {
        pass_item(keys VALUES_ARG, n, d, flip, descending, t, true, last);
    }
}

// --- The tiled strategy: the fused strategy's passes, with the steps below
// TILE done in work-group memory. A work-group loads a tile of TILE pass words
// and takes it through several passes between barriers, where the fused
// strategy makes a launch of each: the first stages up to blocks of TILE
// (bitonic_tile_sort), then each later stage's steps below TILE
// (bitonic_tile_merge).

// The loaded tile as pass words (converted from keys where from_keys);
// positions at or past count hold the largest word, as a guarded pass's
// registers do. Each work-item converts the positions it loaded.
DEVICE void tile_words(LOCAL WORD* lk, const uint count, const uint from_keys,
                       const uint descending)
{
    for (uint i = LOCAL_ID(0); i < TILE; i += GROUP) {
        const uint slot = TILE_SLOT(i);
        if (i >= count) {
            lk[slot] = ~(WORD)0;
        } else if (from_keys) {
            lk[slot] = pass_word(lk[slot], descending);
        }
    }
    BARRIER();
}

// The tile's pass words back to keys, for the sort's last launch. Each
// work-item converts the positions it then stores (tile_store's), so no
// barrier is needed before the store.
DEVICE void tile_keys(LOCAL WORD* lk, const uint count, const uint descending)
{
    for (uint i = LOCAL_ID(0); i < count; i += GROUP) {
        const uint slot = TILE_SLOT(i);
        lk[slot] = pass_key(lk[slot], descending);
    }
}

// STEPS steps of a stage from distance d (below TILE) down, over the tile:
// the work-items take its blocks in turn, laid out as a pass over the whole
// array lays out its work-items'. No two blocks share a position.
DEVICE void tile_pass(LOCAL WORD* lk LOCAL_VALUES, const uint d, const uint flip)
{
    const uint low = d >> (STEPS - 1);
    for (uint t = LOCAL_ID(0); t < TILE / PASS_KEYS; t += GROUP) {
        const uint base = pass_base(t, d);
        const uint mirror = flip ? base ^ (low - 1) : base;
        WORD rw[PASS_KEYS];
        REG_VALUES
        TILE_REG_LOAD(base, mirror, low)
        PASS_EXCHANGES(flip)
        TILE_REG_STORE(base, mirror, low)
    }
    BARRIER();
}

// A stage's steps from distance top (below TILE) down to floor: a pass from
// top (the stage's flip where flip), then passes aligned from distance floor
// up, as the plan aligns a stage's global passes (a step a pass repeats is a
// no-op). The pass from top must not reach below floor: top / floor is at
// least PASS_KEYS / 2.
DEVICE void tile_stage(LOCAL WORD* lk LOCAL_VALUES, const uint top, const uint flip,
                       const uint floor)
{
    uint d = floor * (PASS_KEYS / 2);
    while ((d << STEPS) < top) {
        d <<= STEPS;
    }
    tile_pass(lk PASS_VALUES, top, flip);
    for (; d >= floor * (PASS_KEYS / 2); d >>= STEPS) {
        tile_pass(lk PASS_VALUES, d, 0);
    }
}

// A tile launch: with sort, the sort's first launch, which sorts each tile of
// keys (each block of PASS_KEYS in registers, as the presort does, then the
// later stages up to blocks of TILE); otherwise a stage's steps below TILE on
// the tile's pass words. The sort's last launch (last) writes keys, the
// others pass words.
DEVICE void tile_launch(GLOBAL WORD* keys GLOBAL_VALUES, LOCAL WORD* lk LOCAL_VALUES, const uint n,
                        const uint sort, const uint last, const uint descending)
{
    const uint count = TILE_LOAD;
    tile_words(lk, count, sort, descending);
    if (sort) {
        for (uint t = LOCAL_ID(0); t < TILE / PASS_KEYS; t += GROUP) {
            const uint first = t * PASS_KEYS;
            WORD rw[PASS_KEYS];
            REG_VALUES
            TILE_REG_LOAD(first, first, 1)
            PRESORT_EXCHANGES
            TILE_REG_STORE(first, first, 1)
        }
        BARRIER();
        for (uint block = 2 * PASS_KEYS; block <= TILE; block <<= 1) {
            tile_stage(lk PASS_VALUES, block / 2, 1, 1);
        }
    } else {
        tile_stage(lk PASS_VALUES, TILE / 2, 0, 1);
    }
    if (last) {
        tile_keys(lk, count, descending);
    }
    TILE_STORE;
}

KERNEL void bitonic_tile_sort(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint last,
                              const uint descending)
{
    TILE_ARRAYS;
    tile_launch(keys VALUES_ARG, lk PASS_VALUES, n, 1, last, descending);
}

KERNEL void bitonic_tile_merge(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint last,
                               const uint descending)
{
    TILE_ARRAYS;
    tile_launch(keys VALUES_ARG, lk PASS_VALUES, n, 0, last, descending);
}

// --- The wide strategy: the tiled strategy, with a stage's steps of a tile's
// distance or more done in work-group memory too, ROW_STEPS of them a launch
// where a register pass does STEPS. A work-group takes ROW_WIDTH neighbouring
// work-items of a register pass of ROW_STEPS steps: 2^ROW_STEPS rows of
// ROW_WIDTH consecutive positions (16, or 8 where a tile of 16-byte pairs
// would hold fewer rows than a register pass), one row for each register.
// Where the pass starts with a stage's flip, the upper rows' positions run
// down their block from the mirror, so the upper rows are stored reversed: row
// r's upper part is then the ROW_WIDTH positions up from the mirror's row
// start. Either way the tile, row after row, goes through a stage's steps from
// distance TILE / 2 (the flip pairing tile position i with TILE - 1 - i) down
// to ROW_WIDTH, its rows' steps, which the tiled strategy's register passes do
// over it between barriers (ROW_STEPS is at least STEPS, so the first stays
// above ROW_WIDTH).

// Where row r of the work-group's rows starts: the lower rows from base, the
// upper ones from upper.
DEVICE uint row_start(const uint r, const uint base, const uint upper, const uint low)
{
    return (r < (1u << ROW_STEPS) / 2 ? base : upper) + r * low;
}

KERNEL void bitonic_wide_pass(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d,
                              const uint flip, const uint descending)
{
    TILE_ARRAYS;
    const uint low = d >> (ROW_STEPS - 1);
    const uint t = GROUP_ID(0) * ROW_WIDTH;
    const uint base = ((t & ~(low - 1)) << ROW_STEPS) | (t & (low - 1));
    const uint upper = flip ? base ^ (low - ROW_WIDTH) : base;
    for (uint i = LOCAL_ID(0); i < TILE; i += GROUP) {
        const uint p = row_start(i / ROW_WIDTH, base, upper, low) + i % ROW_WIDTH;
        const uint slot = TILE_SLOT(i);
        lk[slot] = ~(WORD)0;
        if (p < n) {
            lk[slot] = keys[p];
#ifdef WITH_VALUES
            lv[slot] = values[p];
#endif
        }
    }
    BARRIER();
    tile_stage(lk PASS_VALUES, TILE / 2, flip, ROW_WIDTH);
    for (uint i = LOCAL_ID(0); i < TILE; i += GROUP) {
        const uint p = row_start(i / ROW_WIDTH, base, upper, low) + i % ROW_WIDTH;
        if (p < n) {
            keys[p] = lk[TILE_SLOT(i)];
#ifdef WITH_VALUES
            values[p] = lv[TILE_SLOT(i)];
#endif
        }
    }
}
