// Polybench_GEMVER: A += u1 v1^T + u2 v2^T, x = beta A^T.y + z, w += alpha A.x,
// A n x n. The first launch gives a work-item a column of A, walked down so
// that neighbouring work-items touch neighbouring addresses: it updates the
// column and sums x from it, RAJAPerf's first three loops in one pass over A.
// The second gives a work-item a row of A for w. On CPU devices a work-item
// takes CPU_DOTS neighbouring columns (rows) side by side instead (dots.h).
#include "dots.h"

KERNEL void gemver_columns(GLOBAL REAL* A, GLOBAL const REAL* u1, GLOBAL const REAL* v1,
                           GLOBAL const REAL* u2, GLOBAL const REAL* v2, GLOBAL REAL* x,
                           GLOBAL const REAL* y, GLOBAL const REAL* z, const REAL beta,
                           const uint n)
{
#ifdef HARNESS_CPU_DEVICE
    FOR_EACH_DOT_BLOCK(i0, n) {
        REAL v1i[CPU_DOTS];
        REAL v2i[CPU_DOTS];
        REAL dot[CPU_DOTS];
        EACH_DOT(c) {
            v1i[c] = v1[dot_index(i0, c, n)];
            v2i[c] = v2[dot_index(i0, c, n)];
            dot[c] = 0;
        }
        for (size_t j = 0; j < n; ++j) {
            const REAL u1j = u1[j];
            const REAL u2j = u2[j];
            const REAL yj = y[j];
            EACH_DOT(c) {
                // A repeated column updates the last one again: only the
                // block's own columns are stored.
                const size_t at = dot_index(i0, c, n) + j * n;
                const REAL a = A[at] + (u1j * v1i[c] + u2j * v2i[c]);
                if (i0 + c < n) {
                    A[at] = a;
                }
                dot[c] += beta * a * yj;
            }
        }
        EACH_DOT(c) {
            dot[c] += z[dot_index(i0, c, n)];
        }
        store_dots(x, dot, i0, n);
    }
#else
    FOR_EACH(i, n) {
        const REAL v1i = v1[i];
        const REAL v2i = v2[i];
        REAL dot = 0;
        for (size_t j = 0; j < n; ++j) {
            const REAL a = A[i + j * n] + (u1[j] * v1i + u2[j] * v2i);
            A[i + j * n] = a;
            dot += beta * a * y[j];
        }
        x[i] = dot + z[i];
    }
#endif
}

KERNEL void gemver_rows(GLOBAL const REAL* A, GLOBAL const REAL* x, GLOBAL REAL* w,
                        const REAL alpha, const uint n)
{
#ifdef HARNESS_CPU_DEVICE
    FOR_EACH_DOT_BLOCK(i0, n) {
        REAL dot[CPU_DOTS];
        EACH_DOT(r) {
            dot[r] = w[dot_index(i0, r, n)];
        }
        for (size_t j = 0; j < n; ++j) {
            const REAL xj = x[j];
            EACH_DOT(r) {
                dot[r] += alpha * A[j + dot_index(i0, r, n) * n] * xj;
            }
        }
        store_dots(w, dot, i0, n);
    }
#else
    FOR_EACH(i, n) {
        REAL dot = w[i];
        for (size_t j = 0; j < n; ++j) {
            dot += alpha * A[j + i * n] * x[j];
        }
        w[i] = dot;
    }
#endif
}
