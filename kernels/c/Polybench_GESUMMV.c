// Polybench_GESUMMV: y = alpha A.x + beta B.x, A and B n x n, a work-item
// per row summing both dot products in order.

KERNEL void gesummv(GLOBAL const REAL* x, GLOBAL REAL* y, GLOBAL const REAL* A,
                    GLOBAL const REAL* B, const REAL alpha, const REAL beta, const uint n)
{
    FOR_EACH(i, n) {
        REAL tmpdot = 0;
        REAL ydot = 0;
        for (size_t j = 0; j < n; ++j) {
            tmpdot += A[j + i * n] * x[j];
            ydot += B[j + i * n] * x[j];
        }
        y[i] = alpha * tmpdot + beta * ydot;
    }
}
