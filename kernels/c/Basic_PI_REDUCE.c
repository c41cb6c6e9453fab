// Basic_PI_REDUCE: pi = 4 * sum(dx / (1 + x*x)), x = (i + 0.5) * dx, in two launches.
// pi_reduce_partial: work-group g sums the terms of its contiguous chunk
// [g*chunk, (g+1)*chunk) into partial[g]; pi_reduce_final: one work-item adds
// the count partials and writes 4 times their sum to pi[0].
#include "chunk.h"
#include "group_sum.h"

KERNEL void pi_reduce_partial(GLOBAL REAL* partial, const uint n, const uint chunk, const REAL dx)
{
    SHARED REAL tree[GROUP];
    const uint lid = LOCAL_ID(0);
    const uint g = GROUP_ID(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    REAL pi = 0;
    FOR_CHUNK(i, begin, end) {
        const REAL x = ((REAL)i + (REAL)0.5) * dx;
        pi += dx / ((REAL)1 + x * x);
    }
    pi = group_sum(tree, lid, pi);
    if (lid == 0) {
        partial[g] = pi;
    }
}

KERNEL void pi_reduce_final(GLOBAL const REAL* partial, GLOBAL REAL* pi, const uint count)
{
    // A chunked launch leaves at most a thousand partials: one work-item adds them.
    if (LOCAL_ID(0) == 0) {
        REAL s = 0;
        for (uint i = 0; i < count; i++) {
            s += partial[i];
        }
        pi[0] = 4 * s;
    }
}
