// matvec_dots.h: the sums of a matrix-vector product on CPU devices (dots.h),
// along rows or down columns: ATAX's both launches and MVT's x1.
#include "dots.h"

#ifdef HARNESS_CPU_DEVICE
// out[i0 + r] = the sum over j of A[j * along + (i0 + r) * across] * v[j], in
// order of j, for each of the block's rows (along 1, across n) or columns
// (along n, across 1).
DEVICE void matvec_dots(GLOBAL REAL* out, GLOBAL const REAL* A, GLOBAL const REAL* v,
                        const size_t i0, const size_t n, const size_t along, const size_t across)
{
    REAL dot[CPU_DOTS];
    EACH_DOT(r) {
        dot[r] = 0;
    }
    for (size_t j = 0; j < n; ++j) {
        const REAL vj = v[j];
        EACH_DOT(r) {
            dot[r] += A[j * along + dot_index(i0, r, n) * across] * vj;
        }
    }
    store_dots(out, dot, i0, n);
}
#endif
