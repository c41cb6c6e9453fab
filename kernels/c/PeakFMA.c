// PeakFMA: y[i] = the sum of CHAINS chains, each STEPS dependent fused
// multiply-adds x = x * FMA_SCALE + FMA_SHIFT from x[i] + its number: the
// device's arithmetic throughput, with the chains independent of each other so
// that their latencies overlap. Written a * b + c, which OpenCL and CUDA contract
// into one FMA: PoCL's fma() is a call that does not vectorise (3.4x slower).
KERNEL void peak_fma(GLOBAL const REAL* x, GLOBAL REAL* y, const uint n)
{
    FOR_EACH(i, n) {
        REAL v[CHAINS];
        for (int c = 0; c < CHAINS; c++) {
            v[c] = x[i] + (REAL)c;
        }
        for (int s = 0; s < STEPS; s++) {
            for (int c = 0; c < CHAINS; c++) {
                v[c] = v[c] * FMA_SCALE + FMA_SHIFT;
            }
        }
        REAL sum = v[0];
        for (int c = 1; c < CHAINS; c++) {
            sum += v[c];
        }
        y[i] = sum;
    }
}
