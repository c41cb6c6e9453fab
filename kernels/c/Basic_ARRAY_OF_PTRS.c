// Basic_ARRAY_OF_PTRS: y[i] = x[0][i] + x[1][i] + ... + x[ARRAY_SIZE-1][i].
// RAJAPerf passes ARRAY_SIZE pointers x[a] = x_data + a*n; here x is x_data,
// and x[a][i] is read at x[a*n + i], added in the same order.
KERNEL void array_of_ptrs(GLOBAL REAL* y, GLOBAL const REAL* x, const uint n)
{
    FOR_EACH(i, n) {
        REAL yi = (REAL)0.0;
        for (int a = 0; a < ARRAY_SIZE; ++a) {
            yi += x[(size_t)a * n + i];
        }
        y[i] = yi;
    }
}
