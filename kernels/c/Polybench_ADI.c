// Polybench_ADI: one ADI step, a tridiagonal solve along every line of the
// interior: adi_1 along each column of U into V, adi_2 along each row of V
// into U, P and Q holding a line's forward elimination. One work-item solves
// line i = 1 + its index; the previous P, Q and solution stay in registers,
// so P and Q's column 0 (0 and 1) is stored by adi_2 alone.
KERNEL void adi_1(GLOBAL REAL* P, GLOBAL REAL* Q, GLOBAL const REAL* U, GLOBAL REAL* V,
                  const uint n, const REAL a, const REAL b, const REAL c, const REAL d,
                  const REAL f)
{
    FOR_EACH(t, n - 2) {
        const size_t i = t + 1;
        const size_t row = i * n;
        REAL p = (REAL)0.0;
        REAL q = (REAL)1.0;
        V[i] = q;
        for (size_t j = 1; j + 1 < n; ++j) {
            const REAL den = a * p + b;
            const size_t u = j * n + i;
            p = -c / den;
            q = (-d * U[u - 1] + ((REAL)1.0 + (REAL)2.0 * d) * U[u] - f * U[u + 1] - a * q) / den;
            P[row + j] = p;
            Q[row + j] = q;
        }
        REAL v = (REAL)1.0;
        V[(n - 1) * n + i] = v;
        for (size_t k = n - 2; k >= 1; --k) {
            v = P[row + k] * v + Q[row + k];
            V[k * n + i] = v;
        }
    }
}

KERNEL void adi_2(GLOBAL REAL* P, GLOBAL REAL* Q, GLOBAL REAL* U, GLOBAL const REAL* V,
                  const uint n, const REAL a, const REAL c, const REAL d, const REAL e,
                  const REAL f)
{
    FOR_EACH(t, n - 2) {
        const size_t i = t + 1;
        const size_t row = i * n;
        REAL p = (REAL)0.0;
        REAL q = (REAL)1.0;
        U[row] = q;
        P[row] = p;
        Q[row] = q;
        for (size_t j = 1; j + 1 < n; ++j) {
            const REAL den = d * p + e;
            p = -f / den;
            q = (-a * V[row - n + j] + ((REAL)1.0 + (REAL)2.0 * a) * V[row + j] -
                 c * V[row + n + j] - d * q) /
                den;
            P[row + j] = p;
            Q[row + j] = q;
        }
        REAL u = (REAL)1.0;
        U[row + n - 1] = u;
        for (size_t k = n - 2; k >= 1; --k) {
            u = P[row + k] * u + Q[row + k];
            U[row + k] = u;
        }
    }
}
