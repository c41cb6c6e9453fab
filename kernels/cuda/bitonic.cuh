// The bitonic network shared by Bitonic.cu and BitonicPairs.cu (see
// harness/suite/sort.py for the plan that drives it).
// Keys are read as unsigned words: WORD is as wide as a key, WORD_BITS its
// width, KEY_KIND says how to order them (0 unsigned, 1 signed, 2 float), and
// TILE is the number of keys a block sorts in shared memory.

#if WORD_BITS == 64
#define SIGN 0x8000000000000000ull
#define INF_BITS 0x7FF0000000000000ull
#else
#define SIGN 0x80000000u
#define INF_BITS 0x7F800000u
#endif

// Values that travel with the keys, or none.
template <typename V> struct Carry {
    V* data;
    __device__ void swap(unsigned int i, unsigned int j) const
    {
        const V x = data[i];
        data[i] = data[j];
        data[j] = x;
    }
};
struct NoCarry {
    __device__ void swap(unsigned int, unsigned int) const {}
};

// The word whose unsigned order is the keys' order: NaNs above +inf, -0 below +0.
__device__ inline WORD order_word(WORD w, unsigned int descending)
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

// Pair t of distance d (a power of two) starts at t with a zero bit inserted
// at d; its partner is that plus d, or the mirror image in its block of 2d.
__device__ inline unsigned int pair_lower(unsigned int t, unsigned int d)
{
    return ((t & ~(d - 1)) << 1) | (t & (d - 1));
}

template <typename C>
__device__ inline void exchange(WORD* keys, C carry, unsigned int lower, unsigned int upper,
                                unsigned int descending)
{
    const WORD a = keys[lower];
    const WORD b = keys[upper];
    if (order_word(a, descending) > order_word(b, descending)) {
        keys[lower] = b;
        keys[upper] = a;
        carry.swap(lower, upper);
    }
}

// One compare-exchange of the global network; positions at or past n are
// +infinity, so pairs reaching them are skipped.
template <typename C>
__device__ void global_step(WORD* keys, C carry, unsigned int n, unsigned int d,
                            unsigned int flip, unsigned int descending)
{
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int lower = pair_lower(t, d);
    const unsigned int upper = flip ? lower ^ (2 * d - 1) : lower | d;
    if (upper < n) {
        exchange(keys, carry, lower, upper, descending);
    }
}

// One step over a tile in shared memory; count keys of the tile are real.
template <typename C>
__device__ void tile_step(WORD* tile, C carry, unsigned int count, unsigned int d,
                          unsigned int flip, unsigned int descending)
{
    for (unsigned int p = threadIdx.x; p < TILE / 2; p += GROUP) {
        const unsigned int lower = pair_lower(p, d);
        const unsigned int upper = flip ? lower ^ (2 * d - 1) : lower | d;
        if (upper < count) {
            exchange(tile, carry, lower, upper, descending);
        }
    }
    __syncthreads();
}

// Every stage of the network up to blocks of TILE keys.
template <typename C>
__device__ void sort_tile(WORD* tile, C carry, unsigned int count, unsigned int descending)
{
    for (unsigned int block = 2; block <= TILE; block <<= 1) {
        tile_step(tile, carry, count, block / 2, 1, descending);
        for (unsigned int d = block / 4; d > 0; d >>= 1) {
            tile_step(tile, carry, count, d, 0, descending);
        }
    }
}

// The steps of distance below TILE that finish a stage inside a tile.
template <typename C>
__device__ void merge_tile(WORD* tile, C carry, unsigned int count, unsigned int descending)
{
    for (unsigned int d = TILE / 2; d > 0; d >>= 1) {
        tile_step(tile, carry, count, d, 0, descending);
    }
}

__device__ inline unsigned int tile_count(unsigned int n)
{
    const unsigned long long first = (unsigned long long)blockIdx.x * TILE;
    return (unsigned int)min((unsigned long long)TILE, n - first);
}

template <typename T> __device__ void tile_load(const T* src, T* tile, unsigned int count)
{
    const unsigned long long first = (unsigned long long)blockIdx.x * TILE;
    for (unsigned int i = threadIdx.x; i < count; i += GROUP) {
        tile[i] = src[first + i];
    }
    __syncthreads();
}

template <typename T> __device__ void tile_store(T* dst, const T* tile, unsigned int count)
{
    const unsigned long long first = (unsigned long long)blockIdx.x * TILE;
    for (unsigned int i = threadIdx.x; i < count; i += GROUP) {
        dst[first + i] = tile[i];
    }
}
