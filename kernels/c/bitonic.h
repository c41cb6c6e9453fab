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
