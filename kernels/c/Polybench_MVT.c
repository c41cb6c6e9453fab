// Polybench_MVT: x1 = A.y1, and x2[i] = sum_j A[j][i] * y2[i] (RAJAPerf's body:
// y2 at the column's own index), A n x n. The first launch gives a work-item a
// row of A, the second a column, walked down so that neighbouring work-items
// read neighbouring addresses.

KERNEL void mvt_x1(GLOBAL const REAL* A, GLOBAL const REAL* y1, GLOBAL REAL* x1, const uint n)
{
    FOR_EACH(i, n) {
        REAL dot = 0;
        for (size_t j = 0; j < n; ++j) {
            dot += A[j + i * n] * y1[j];
        }
        x1[i] = dot;
    }
}

KERNEL void mvt_x2(GLOBAL const REAL* A, GLOBAL const REAL* y2, GLOBAL REAL* x2, const uint n)
{
    FOR_EACH(i, n) {
        const REAL y = y2[i];
        REAL dot = 0;
        for (size_t j = 0; j < n; ++j) {
            dot += A[i + j * n] * y;
        }
        x2[i] = dot;
    }
}
