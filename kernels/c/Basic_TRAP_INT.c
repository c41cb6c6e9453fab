// Basic_TRAP_INT: sumx += h * sum(1 / sqrt((x - xp)^2 + (y - yp)^2)), x = x0 + i*h,
// in two launches. trap_int_partial: work-group g sums the integrand over its
// contiguous chunk [g*chunk, (g+1)*chunk) into partial[g]; trap_int_final: one
// work-item adds the count partials, times h, to sumx[0].
#include "chunk.h"
#include "group_sum.h"

// RAJAPerf's trap_int_func.
DEVICE REAL trap_int_func(const REAL x, const REAL y, const REAL xp, const REAL yp)
{
    const REAL denom = (x - xp) * (x - xp) + (y - yp) * (y - yp);
    return (REAL)1 / sqrt(denom);
}

KERNEL void trap_int_partial(GLOBAL REAL* partial, const uint n, const uint chunk, const REAL x0,
                             const REAL xp, const REAL y, const REAL yp, const REAL h)
{
    SHARED REAL tree[GROUP];
    const uint lid = LOCAL_ID(0);
    const uint g = GROUP_ID(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    REAL sumx = 0;
    FOR_CHUNK(i, begin, end) {
        const REAL x = x0 + (REAL)i * h;
        sumx += trap_int_func(x, y, xp, yp);
    }
    sumx = group_sum(tree, lid, sumx);
    if (lid == 0) {
        partial[g] = sumx;
    }
}

KERNEL void trap_int_final(GLOBAL const REAL* partial, GLOBAL REAL* sumx, const uint count,
                           const REAL h)
{
    // A chunked launch leaves at most a thousand partials: one work-item adds them.
    if (LOCAL_ID(0) == 0) {
        REAL s = 0;
        for (uint i = 0; i < count; i++) {
            s += partial[i];
        }
        sumx[0] += s * h;
    }
}
