// Apps_FIR: out[i] = sum over j < 16 of coeff[j] * in[i + j]; in has n + 15 elements.
#define COEFFLEN 16

__kernel void fir(__global const REAL* in, __global REAL* out, __constant REAL* coeff,
                  const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        REAL sum = (REAL)0.0;
        for (int j = 0; j < COEFFLEN; ++j) {
            sum += coeff[j] * in[i + j];
        }
        out[i] = sum;
    }
}
