// Polybench_FDTD_2D: one FDTD step on n x n fields. fdtd_2d_e updates both E
// fields from hz (ey's row 0 takes the source fict[t], ex's column 0 keeps its
// value); fdtd_2d_h then updates hz but its last row and column from ex and
// ey. 2-D launches: axis 0 is j (along a row), axis 1 is i. On row 0 and
// column 0 the missing neighbour is hz[c] itself, whose difference is 0: no
// branch, so PoCL keeps the rows vectorised.
KERNEL void fdtd_2d_e(GLOBAL REAL* ey, GLOBAL REAL* ex, GLOBAL const REAL* fict,
                      GLOBAL const REAL* hz, const uint n, const uint t)
{
    FOR_EACH_2D(j, i, n, n) {
        const size_t c = j + i * n;
        const REAL up = hz[i > 0 ? c - n : c];
        const REAL left = hz[j > 0 ? c - 1 : c];
        ey[c] = (i > 0 ? ey[c] : fict[t]) - E_COEF * (hz[c] - up);
        ex[c] = ex[c] - E_COEF * (hz[c] - left);
    }
}

KERNEL void fdtd_2d_h(GLOBAL REAL* hz, GLOBAL const REAL* ex, GLOBAL const REAL* ey, const uint n)
{
    FOR_EACH_2D(j, i, n - 1, n - 1) {
        const size_t c = j + i * n;
        hz[c] = hz[c] - H_COEF * (ex[c + 1] - ex[c] + ey[c + n] - ey[c]);
    }
}
