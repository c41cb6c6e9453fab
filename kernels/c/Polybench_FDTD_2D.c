// Polybench_FDTD_2D: one FDTD step on n x n fields, RAJAPerf's four loops in
// three launches: fdtd_2d_ey updates ey from hz (row 0 takes the source
// fict[t]), fdtd_2d_ex updates ex from hz but its column 0, which keeps its
// value, and fdtd_2d_h then updates hz but its last row and column from ex and
// ey. 2-D launches: axis 0 is j (along a row), axis 1 is i. Each launch's
// neighbour is at a fixed offset along its rows, so CPU devices vectorise them.
KERNEL void fdtd_2d_ey(GLOBAL REAL* ey, GLOBAL const REAL* fict, GLOBAL const REAL* hz,
                       const uint n, const uint t)
{
    FOR_EACH_2D(j, i, n, n) {
        // On row 0 the missing neighbour is hz[c] itself, whose difference is 0.
        const size_t c = j + i * n;
        const size_t up = i > 0 ? n : 0;
        const REAL source = fict[t];
        const REAL e = ey[c];
        ey[c] = (i > 0 ? e : source) - E_COEF * (hz[c] - hz[c - up]);
    }
}

KERNEL void fdtd_2d_ex(GLOBAL REAL* ex, GLOBAL const REAL* hz, const uint n)
{
    FOR_EACH_2D(j, i, n - 1, n) {
        const size_t c = j + 1 + i * n;
        ex[c] = ex[c] - E_COEF * (hz[c] - hz[c - 1]);
    }
}

KERNEL void fdtd_2d_h(GLOBAL REAL* hz, GLOBAL const REAL* ex, GLOBAL const REAL* ey, const uint n)
{
    FOR_EACH_2D(j, i, n - 1, n - 1) {
        const size_t c = j + i * n;
        hz[c] = hz[c] - H_COEF * (ex[c + 1] - ex[c] + ey[c + n] - ey[c]);
    }
}
