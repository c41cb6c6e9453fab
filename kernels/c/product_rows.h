// product_rows: the CPU devices' form of a matrix product
// out[col + row * cols] = init + sum over k < inner of scale * X[k + row * inner]
// * Y[col + k * cols], each summed in order of k. CPU devices vectorise across
// neighbouring work-items only where a loop allows it and run each work-item's
// chain of dependent adds at its latency, so a work-item computes CPU_ROWS rows
// of one column from row0 on, CPU_ROWS chains side by side, reusing each
// Y[col + k * cols] from a register (PoCL: 2MM 0.33 s against 1.0 s at the
// default size, a work-item per element; GEMM 0.21 s against 0.69 s in local
// tiles). CPU_ROWS comes from the description.
#ifdef HARNESS_CPU_DEVICE
DEVICE void product_rows(GLOBAL REAL* out, GLOBAL const REAL* X, GLOBAL const REAL* Y,
                         const REAL scale, const REAL init, const size_t rows, const size_t cols,
                         const size_t inner, const size_t col, const size_t row0)
{
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
