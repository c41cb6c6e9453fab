// row_dots.h: the rows of a matrix-vector product on CPU devices (dots.h),
// for ATAX's tmp and MVT's x1.
#include "dots.h"

#ifdef HARNESS_CPU_DEVICE
// out[i0 + r] = the sum over j of A[j + row * n] * v[j], in order of j, for
// row i0 + r of the block (ATAX's tmp, MVT's x1).
DEVICE void row_dots(GLOBAL REAL* out, GLOBAL const REAL* A, GLOBAL const REAL* v, const size_t i0,
                     const size_t n)
{
    REAL dot[CPU_DOTS];
    EACH_DOT(r) {
        dot[r] = 0;
    }
    for (size_t j = 0; j < n; ++j) {
        const REAL vj = v[j];
        EACH_DOT(r) {
            dot[r] += A[j + dot_index(i0, r, n) * n] * vj;
        }
    }
    store_dots(out, dot, i0, n);
}
#endif
