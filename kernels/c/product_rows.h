// product_rows: the CPU devices' form of a work-item-per-element matrix product
// out[col + row * cols] = init + sum over k < inner of scale * X[k + row * inner]
// * Y[col + k * cols], summed in order of k, on a 2-D launch of (cols, rows)
// work-items. CPU devices vectorise across neighbouring work-items only where
// a loop allows it and run each work-item's chain of dependent adds at its
// latency, so work-item (col, r) computes rows r * CPU_ROWS onwards of its
// column, CPU_ROWS chains side by side, reusing each Y[col + k * cols] from a
// register; work-items past rows / CPU_ROWS have nothing to do (PoCL: 2MM 0.33 s
// against 1.0 s at the default size). CPU_ROWS comes from the description.
#ifdef HARNESS_CPU_DEVICE
DEVICE void product_rows(GLOBAL REAL* out, GLOBAL const REAL* X, GLOBAL const REAL* Y,
                         const REAL scale, const REAL init, const size_t rows,
                         const size_t cols, const size_t inner)
{
    const size_t col = GLOBAL_ID(0);
    const size_t row0 = GLOBAL_ID(1) * CPU_ROWS;
    if (row0 >= rows || col >= cols) {
        return;
    }
    // Rows past the end repeat the last one, whose sums are not stored.
    const size_t last = rows - 1;
    REAL dot[CPU_ROWS];
    UNROLL
    for (int r = 0; r < CPU_ROWS; ++r) {
        dot[r] = init;
    }
    for (size_t k = 0; k < inner; ++k) {
        const REAL y = Y[col + k * cols];
        UNROLL
        for (int r = 0; r < CPU_ROWS; ++r) {
            dot[r] += scale * X[k + min(row0 + r, last) * inner] * y;
        }
    }
    UNROLL
    for (int r = 0; r < CPU_ROWS; ++r) {
        if (row0 + r < rows) {
            out[col + (row0 + r) * cols] = dot[r];
        }
    }
}
#endif
