// Polybench_GEMVER: A += u1 v1^T + u2 v2^T, x = beta A^T.y + z, w += alpha A.x,
// A n x n. The first launch gives a work-item a column of A, walked down so
// that neighbouring work-items touch neighbouring addresses: it updates the
// column and sums x from it, RAJAPerf's first three loops in one pass over A.
// The second gives a work-item a row of A for w.

KERNEL void gemver_columns(GLOBAL REAL* A, GLOBAL const REAL* u1, GLOBAL const REAL* v1,
                           GLOBAL const REAL* u2, GLOBAL const REAL* v2, GLOBAL REAL* x,
                           GLOBAL const REAL* y, GLOBAL const REAL* z, const REAL beta,
                           const uint n)
{
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
}

KERNEL void gemver_rows(GLOBAL const REAL* A, GLOBAL const REAL* x, GLOBAL REAL* w,
                        const REAL alpha, const uint n)
{
    FOR_EACH(i, n) {
        REAL dot = w[i];
        for (size_t j = 0; j < n; ++j) {
            dot += alpha * A[j + i * n] * x[j];
        }
        w[i] = dot;
    }
}
