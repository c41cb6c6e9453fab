// Polybench_FLOYD_WARSHALL: one k of Floyd-Warshall, read from pin (which no
// launch updates): pout[i][j] = min(pin[i][j], pin[i][k] + pin[k][j]) on an
// n x n matrix. A 2-D launch: axis 0 is j (along a row), axis 1 is i.
KERNEL void floyd_warshall(GLOBAL REAL* pout, GLOBAL const REAL* pin, const uint k, const uint n)
{
    FOR_EACH_2D(j, i, n, n) {
        const REAL direct = pin[j + i * n];
        const REAL through = pin[k + i * n] + pin[j + (size_t)k * n];
        pout[j + i * n] = direct < through ? direct : through;
    }
}
