// Basic_ARRAY_OF_PTRS: y[i] = x[0][i] + ... + x[array_size-1][i], summed
// through an array of MAX_ARRAY_SIZE pointers as RAJAPerf sums it (RAJAPerf
// passes the pointers in a struct by value; a kernel here takes them one by
// one and makes the array).
KERNEL void array_of_ptrs(GLOBAL REAL* y, GLOBAL const REAL* x0, GLOBAL const REAL* x1,
                          GLOBAL const REAL* x2, GLOBAL const REAL* x3, GLOBAL const REAL* x4,
                          GLOBAL const REAL* x5, GLOBAL const REAL* x6, GLOBAL const REAL* x7,
                          GLOBAL const REAL* x8, GLOBAL const REAL* x9, GLOBAL const REAL* x10,
                          GLOBAL const REAL* x11, GLOBAL const REAL* x12, GLOBAL const REAL* x13,
                          GLOBAL const REAL* x14, GLOBAL const REAL* x15, GLOBAL const REAL* x16,
                          GLOBAL const REAL* x17, GLOBAL const REAL* x18, GLOBAL const REAL* x19,
                          GLOBAL const REAL* x20, GLOBAL const REAL* x21, GLOBAL const REAL* x22,
                          GLOBAL const REAL* x23, GLOBAL const REAL* x24, GLOBAL const REAL* x25,
                          const uint array_size, const uint n)
{
    GLOBAL const REAL* const x[MAX_ARRAY_SIZE] = {x0,  x1,  x2,  x3,  x4,  x5,  x6,  x7,  x8,
                                                  x9,  x10, x11, x12, x13, x14, x15, x16, x17,
                                                  x18, x19, x20, x21, x22, x23, x24, x25};
    FOR_EACH(i, n) {
        REAL yi = (REAL)0.0;
        for (uint a = 0; a < array_size; ++a) {
            yi += x[a][i];
        }
        y[i] = yi;
    }
}
