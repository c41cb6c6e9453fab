// Basic_INIT3: out1[i] = out2[i] = out3[i] = -in1[i] - in2[i]
KERNEL void init3(GLOBAL REAL* out1, GLOBAL REAL* out2, GLOBAL REAL* out3, GLOBAL const REAL* in1,
                  GLOBAL const REAL* in2, const uint n)
{
    FOR_EACH(i, n) {
        out1[i] = out2[i] = out3[i] = -in1[i] - in2[i];
    }
}
