// Lcals_PLANCKIAN: y[i] = u[i] / v[i]; w[i] = x[i] / (exp(y[i]) - 1).
// On CPU devices PoCL's double exp is a call that keeps the kernel from
// vectorising, so there exp is computed inline: y = k ln2 + r with |r| <= ln2/2
// (k by rounding against EXP_SHIFT, ln2 split in two, Cody and Waite), exp(r)
// as its Taylor sum to r^EXP_TERMS / EXP_TERMS!, times 2^k built in the
// exponent bits (with PoCL about 10 ms a rep at 10^6 against 12 with exp).
// Guarded rather than FOR_EACH: with PoCL about 7 ms against 10.
#if defined(HARNESS_CPU_DEVICE) && REAL_IS_F64
DEVICE REAL exp_real(REAL y)
{
    const REAL shifted = y * LOG2E + EXP_SHIFT;
    const REAL k = shifted - EXP_SHIFT;
    const REAL r = (y - k * LN2_HI) - k * LN2_LO;
    REAL term = (REAL)1.0;
    REAL sum = (REAL)1.0;
#pragma unroll
    for (int left = EXP_TERMS; left; left--) {
        term *= r * ((REAL)1.0 / (REAL)(EXP_TERMS + 1 - left));
        sum += term;
    }
    return sum * as_double((as_ulong(shifted) + 1023) << 52);
}
#else
#define exp_real exp
#endif

KERNEL void planckian(GLOBAL const REAL* x, GLOBAL REAL* y, GLOBAL const REAL* u,
                      GLOBAL const REAL* v, GLOBAL REAL* w, const uint n)
{
    const size_t i = GLOBAL_ID(0);
    if (i < n) {
        y[i] = u[i] / v[i];
        w[i] = x[i] / (exp_real(y[i]) - (REAL)1.0);
    }
}
