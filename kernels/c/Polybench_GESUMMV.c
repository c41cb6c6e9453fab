// Polybench_GESUMMV: y = alpha A.x + beta B.x, A and B n x n, a work-item
// per row summing both dot products in order. On CPU devices a work-item sums
// CPU_DOTS neighbouring rows side by side instead (dots.h).
#include "dots.h"

KERNEL void gesummv(GLOBAL const REAL* x, GLOBAL REAL* y, GLOBAL const REAL* A,
                    GLOBAL const REAL* B, const REAL alpha, const REAL beta, const uint n)
{
#ifdef HARNESS_CPU_DEVICE
    FOR_EACH_DOT_BLOCK(i0, n) {
        REAL tmpdot[CPU_DOTS];
        REAL ydot[CPU_DOTS];
        EACH_DOT(r) {
            tmpdot[r] = 0;
            ydot[r] = 0;
        }
        for (size_t j = 0; j < n; ++j) {
            const REAL xj = x[j];
            EACH_DOT(r) {
                const size_t row = dot_index(i0, r, n);
                tmpdot[r] += A[j + row * n] * xj;
                ydot[r] += B[j + row * n] * xj;
            }
        }
        EACH_DOT(r) {
            tmpdot[r] = alpha * tmpdot[r] + beta * ydot[r];
        }
        store_dots(y, tmpdot, i0, n);
    }
#else
    FOR_EACH(i, n) {
        REAL tmpdot = 0;
        REAL ydot = 0;
        for (size_t j = 0; j < n; ++j) {
            tmpdot += A[j + i * n] * x[j];
            ydot += B[j + i * n] * x[j];
        }
        y[i] = alpha * tmpdot + beta * ydot;
    }
#endif
}
