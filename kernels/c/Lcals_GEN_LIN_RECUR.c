// Lcals_GEN_LIN_RECUR: b5[k] = sa[k] + stb5[k]*sb[k]; stb5[k] = b5[k] - stb5[k],
// once over k = 0 .. n-1 (gen_lin_recur_1), then again over i = 1 .. n with
// k = n - i (gen_lin_recur_2; work-item w has i = w + 1). RAJAPerf's b5 offset
// kb5i is 0.
KERNEL void gen_lin_recur_1(GLOBAL REAL* b5, GLOBAL REAL* stb5, GLOBAL const REAL* sa,
                            GLOBAL const REAL* sb, const uint n)
{
    FOR_EACH(k, n) {
        b5[k] = sa[k] + stb5[k] * sb[k];
        stb5[k] = b5[k] - stb5[k];
    }
}

KERNEL void gen_lin_recur_2(GLOBAL REAL* b5, GLOBAL REAL* stb5, GLOBAL const REAL* sa,
                            GLOBAL const REAL* sb, const uint n)
{
    FOR_EACH(w, n) {
        const size_t k = n - (w + 1);
        b5[k] = sa[k] + stb5[k] * sb[k];
        stb5[k] = b5[k] - stb5[k];
    }
}
