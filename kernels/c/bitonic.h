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

// Pair t of distance d (a power of two) starts at t with a zero bit inserted
// at d; its partner is that plus d, or the mirror image in its block of 2d.
#define PAIR_LOWER(t, d) ((((t) & ~((d) - 1)) << 1) | ((t) & ((d) - 1)))

// The word whose unsigned order is the keys' order: NaNs above +inf, -0 below +0.
DEVICE WORD order_word(const WORD w, const uint descending)
{
#if KEY_KIND == 0
    const WORD k = w;
#elif KEY_KIND == 1
    const WORD k = w ^ SIGN;
#else
    const WORD k = ((w & ~SIGN) > INF_BITS) ? (w | SIGN) : ((w & SIGN) ? ~w : (w | SIGN));
#endif
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
            const WORD a = lk[lower];
            const WORD b = lk[upper];
            if (order_word(a, descending) > order_word(b, descending)) {
                lk[lower] = b;
                lk[upper] = a;
                SWAP_VALUES(lv, lower, upper)
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
        lk[i] = keys[first + i];
#ifdef WITH_VALUES
        lv[i] = values[first + i];
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
        keys[first + i] = lk[i];
#ifdef WITH_VALUES
        values[first + i] = lv[i];
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
    SHARED WORD lk[TILE];
#ifdef WITH_VALUES
    SHARED VALUE lv[TILE];
#endif
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
    SHARED WORD lk[TILE];
#ifdef WITH_VALUES
    SHARED VALUE lv[TILE];
#endif
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
// which order_word ties by sign, are told apart by it), turned back into keys
// when stored.

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

DEVICE WORD pass_word(const WORD w, const uint descending)
{
#if KEY_KIND == 2
    const WORD magnitude = w & ~SIGN;
    const WORD nan = FIRST_NAN + 2 * (magnitude - INF_BITS - 1) + (w >> (WORD_BITS - 1));
    const WORD ordered = magnitude > INF_BITS ? nan : order_word(w, 0) - NAN_COUNT;
#else
    const WORD ordered = order_word(w, 0);
#endif
    return descending ? ~ordered : ordered;
}

DEVICE WORD pass_key(const WORD word, const uint descending)
{
    const WORD k = descending ? ~word : word;
#if KEY_KIND == 0
    return k;
#elif KEY_KIND == 1
    return k ^ SIGN;
#else
    const WORD nan = (INF_BITS + 1 + ((k - FIRST_NAN) >> 1)) | ((k & 1) ? SIGN : 0);
    const WORD o = k + NAN_COUNT;
    return k >= FIRST_NAN ? nan : ((o & SIGN) ? o & ~SIGN : ~o);
#endif
}

#ifdef WITH_VALUES
#define REG_VALUES VALUE rv[PASS_KEYS];
#define LOAD_VALUE(i, p) rv[i] = values[p];
#define STORE_VALUE(i, p) values[p] = rv[i];
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
#define LOAD_VALUE(i, p)
#define STORE_VALUE(i, p)
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

// A work-item's registers from PASS_KEYS positions, first + i * stride, or
// mirror + i * stride for the upper half. Guarded, positions at or past n hold
// the largest word. The plan launches unguarded work-items only where every
// position is below n: a guard's branches keep PoCL from vectorising.
#define REG_LOAD(first, mirror, stride, guarded)                                                   \
    UNROLL                                                                                         \
    for (uint i = 0; i < PASS_KEYS; ++i) {                                                         \
        const uint p = (i < PASS_KEYS / 2 ? (first) : (mirror)) + i * (stride);                    \
        rw[i] = ~(WORD)0;                                                                          \
        if (!(guarded) || p < n) {                                                                 \
            rw[i] = pass_word(keys[p], descending);                                                \
            LOAD_VALUE(i, p)                                                                       \
        }                                                                                          \
    }

#define REG_STORE(first, mirror, stride, guarded)                                                  \
    UNROLL                                                                                         \
    for (uint i = 0; i < PASS_KEYS; ++i) {                                                         \
        const uint p = (i < PASS_KEYS / 2 ? (first) : (mirror)) + i * (stride);                    \
        if (!(guarded) || p < n) {                                                                 \
            keys[p] = pass_key(rw[i], descending);                                                 \
            STORE_VALUE(i, p)                                                                      \
        }                                                                                          \
    }

// Work-item t sorts the PASS_KEYS consecutive keys from t * PASS_KEYS: the
// network's stages up to blocks of PASS_KEYS, every step in registers.
DEVICE void presort(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint descending,
                    const uint t, const bool guarded)
{
    const uint first = t * PASS_KEYS;
    WORD rw[PASS_KEYS];
    REG_VALUES
    REG_LOAD(first, first, 1, guarded)
    UNROLL
    for (uint block = 2; block <= PASS_KEYS; block <<= 1) {
        UNROLL
        for (uint i = 0; i < PASS_KEYS; ++i) {
            if (!(i & (block / 2))) {
                REG_EXCHANGE(i, i ^ (block - 1))
            }
        }
        UNROLL
        for (uint d = block / 4; d > 0; d >>= 1) {
            UNROLL
            for (uint i = 0; i < PASS_KEYS; ++i) {
                if (!(i & d)) {
                    REG_EXCHANGE(i, i | d)
                }
            }
        }
    }
    REG_STORE(first, first, 1, guarded)
}

// STEPS consecutive steps of one stage, of distances d down to d / 2^(STEPS-1):
// work-item t holds the PASS_KEYS positions those steps pair among themselves,
// base + i * low (low the smallest distance; base is t with STEPS zero bits
// inserted at low). When the first step is a stage's flip, the upper half of
// them are the mirror images of the lower half: base with its bits below low
// flipped. Positions grow with i in both layouts, so those below n are a prefix.
DEVICE void pass(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d, const uint flip,
                 const uint descending, const uint t, const bool guarded)
{
    const uint low = d >> (STEPS - 1);
    const uint base = ((t & ~(low - 1)) << STEPS) | (t & (low - 1));
    const uint mirror = flip ? base ^ (low - 1) : base;
    WORD rw[PASS_KEYS];
    REG_VALUES
    REG_LOAD(base, mirror, low, guarded)
    UNROLL
    for (uint i = 0; i < PASS_KEYS / 2; ++i) {
        if (flip) {
            REG_EXCHANGE(i, i ^ (PASS_KEYS - 1))
        } else {
            REG_EXCHANGE(i, i + PASS_KEYS / 2)
        }
    }
    UNROLL
    for (uint dist = PASS_KEYS / 4; dist > 0; dist >>= 1) {
        UNROLL
        for (uint i = 0; i < PASS_KEYS; ++i) {
            if (!(i & dist)) {
                REG_EXCHANGE(i, i | dist)
            }
        }
    }
    REG_STORE(base, mirror, low, guarded)
}

// The blocks of whole work-groups whose keys all lie below n.
KERNEL void bitonic_presort(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint descending)
{
    presort(keys VALUES_ARG, n, descending, GLOBAL_ID(0), false);
}

// The rest, from work-item first on, guarded.
KERNEL void bitonic_presort_tail(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint first,
                                 const uint descending)
{
    const uint t = first + GLOBAL_ID(0);
    if (t * PASS_KEYS < n) {
        presort(keys VALUES_ARG, n, descending, t, true);
    }
}

KERNEL void bitonic_pass(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d,
                         const uint flip, const uint descending)
{
    pass(keys VALUES_ARG, n, d, flip, descending, GLOBAL_ID(0), false);
}

KERNEL void bitonic_pass_tail(GLOBAL WORD* keys GLOBAL_VALUES, const uint n, const uint d,
                              const uint flip, const uint first, const uint descending)
{
    const uint t = first + GLOBAL_ID(0);
    const uint low = d >> (STEPS - 1);
    if ((((t & ~(low - 1)) << STEPS) | (t & (low - 1))) < n) {
        pass(keys VALUES_ARG, n, d, flip, descending, t, true);
    }
}
