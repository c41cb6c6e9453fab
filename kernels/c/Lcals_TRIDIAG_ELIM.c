// Lcals_TRIDIAG_ELIM: xout[i] = z[i] * (y[i] - xin[i-1]) for i = 1 .. n-1;
// xout[0] is left alone. Work-item w handles i = w + 1.
KERNEL void tridiag_elim(GLOBAL REAL* xout, GLOBAL const REAL* xin, GLOBAL const REAL* y,
                         GLOBAL const REAL* z, const uint n)
{
    FOR_EACH(w, n - 1) {
        const size_t i = w + 1;
        xout[i] = z[i] * (y[i] - xin[i - 1]);
    }
}
