// Lcals_INT_PREDICT: px[i] = dm28*px[i+12n] + dm27*px[i+11n] + dm26*px[i+10n]
//   + dm25*px[i+9n] + dm24*px[i+8n] + dm23*px[i+7n] + dm22*px[i+6n]
//   + c0*(px[i+4n] + px[i+5n]) + px[i+2n]; px holds 13 planes of n elements.
KERNEL void int_predict(GLOBAL REAL* px, const REAL dm22, const REAL dm23, const REAL dm24,
                        const REAL dm25, const REAL dm26, const REAL dm27, const REAL dm28,
                        const REAL c0, const uint n)
{
    FOR_EACH(i, n) {
        px[i] = dm28 * px[i + 12 * n] + dm27 * px[i + 11 * n] + dm26 * px[i + 10 * n] +
                dm25 * px[i + 9 * n] + dm24 * px[i + 8 * n] + dm23 * px[i + 7 * n] +
                dm22 * px[i + 6 * n] + c0 * (px[i + 4 * n] + px[i + 5 * n]) + px[i + 2 * n];
    }
}
