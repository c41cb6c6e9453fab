// Apps_FIR: out[i] = sum over j < COEFFLEN of coeff[j] * in[i + j]; in has
// n + COEFFLEN - 1 elements. COEFFLEN, the tap count, comes from the description.

#ifdef HARNESS_CPU_DEVICE
// CPU devices: taps outermost over a block of FIR_BLOCK outputs, whose sums stay
// in cache, so each tap is one vectorised pass over neighbouring inputs (PoCL,
// in contiguous runs: 0.8 ms against 2.0 ms for one output per work-item at the
// default size). Each output still sums its taps in order 0..COEFFLEN-1.
KERNEL void fir(GLOBAL const REAL* in, GLOBAL REAL* out, CONSTANT REAL* coeff, const uint n)
{
    FOR_EACH_BLOCK(b, m, n, FIR_BLOCK) {
        REAL sum[FIR_BLOCK];
        for (size_t t = 0; t < m; ++t) {
            sum[t] = (REAL)0.0;
        }
        for (int j = 0; j < COEFFLEN; ++j) {
            const REAL c = coeff[j];
            for (size_t t = 0; t < m; ++t) {
                sum[t] += c * in[b + t + j];
            }
        }
        for (size_t t = 0; t < m; ++t) {
            out[b + t] = sum[t];
        }
    }
}
#else
KERNEL void fir(GLOBAL const REAL* in, GLOBAL REAL* out, CONSTANT REAL* coeff, const uint n)
{
    // The guarded form: PoCL ran it about 1.1x faster than as a grid-stride loop.
    const size_t i = GLOBAL_ID(0);
    if (i < n) {
        REAL sum = (REAL)0.0;
        for (int j = 0; j < COEFFLEN; ++j) {
            sum += coeff[j] * in[i + j];
        }
        out[i] = sum;
    }
}
#endif
