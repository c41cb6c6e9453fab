// Lcals_FIRST_SUM: x[i] = y[i-1] + y[i] for i = 1 .. n-1; x[0] is left alone.
// Work-item w handles i = w + 1.
KERNEL void first_sum(GLOBAL REAL* x, GLOBAL const REAL* y, const uint n)
{
    FOR_EACH(w, n - 1) {
        x[w + 1] = y[w] + y[w + 1];
    }
}
