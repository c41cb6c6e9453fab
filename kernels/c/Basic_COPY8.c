// Basic_COPY8: y0[i] = x0[i], ..., y7[i] = x7[i]
KERNEL void copy8(GLOBAL REAL* y0, GLOBAL REAL* y1, GLOBAL REAL* y2, GLOBAL REAL* y3,
                  GLOBAL REAL* y4, GLOBAL REAL* y5, GLOBAL REAL* y6, GLOBAL REAL* y7,
                  GLOBAL const REAL* x0, GLOBAL const REAL* x1, GLOBAL const REAL* x2,
                  GLOBAL const REAL* x3, GLOBAL const REAL* x4, GLOBAL const REAL* x5,
                  GLOBAL const REAL* x6, GLOBAL const REAL* x7, const uint n)
{
    FOR_EACH(i, n) {
        y0[i] = x0[i];
        y1[i] = x1[i];
        y2[i] = x2[i];
        y3[i] = x3[i];
        y4[i] = x4[i];
        y5[i] = x5[i];
        y6[i] = x6[i];
        y7[i] = x7[i];
    }
}
