// dots.h: the CPU devices' form of the matrix-vector kernels. CPU devices run
// a work-item's chain of dependent adds at the adder's latency and vectorise
// no loop that holds another, so a work-item sums CPU_DOTS neighbouring rows
// (or columns) side by side, each in its own order, reading the vector once
// for all of them. CPU_DOTS comes from the description.
#ifdef HARNESS_CPU_DEVICE
// A loop over the block's rows (columns), k = 0 .. CPU_DOTS - 1, unrolled so
// that arrays of CPU_DOTS sums stay in registers.
#define EACH_DOT(k) UNROLL for (int k = 0; k < CPU_DOTS; ++k)

// The walk over n rows (columns) a block at a time: i0 takes the multiples of
// CPU_DOTS, spread over every work-group as FOR_EACH deals its items.
#define FOR_EACH_DOT_BLOCK(i0, n)                                                                  \
    FOR_EACH(i0, n)                                                                                \
        if (i0 % CPU_DOTS == 0)

// Row (column) k of the block from i0: past the last one it repeats the last,
// whose sum store_dots does not store again.
DEVICE size_t dot_index(const size_t i0, const int k, const size_t n)
{
    return min(i0 + k, n - 1);
}

// out[i0 + k] = dot[k] for the block's rows (columns) below n.
DEVICE void store_dots(GLOBAL REAL* out, const REAL* dot, const size_t i0, const size_t n)
{
    EACH_DOT(k) {
        if (i0 + k < n) {
            out[i0 + k] = dot[k];
        }
    }
}
#endif
