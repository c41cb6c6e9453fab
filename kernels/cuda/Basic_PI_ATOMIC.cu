// Basic_PI_ATOMIC: every thread adds dx / (1 + x*x), x = (i + 0.5) * dx, to pi[0]
// with atomicAdd (native for float, and for double from sm_60); pi_final then
// writes 4 * pi[0] and zeroes pi[0] for the next repetition.

extern "C" __global__ void pi_atomic(REAL* pi, const REAL dx, const unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const REAL x = ((REAL)i + (REAL)0.5) * dx;
        atomicAdd(pi, dx / ((REAL)1 + x * x));
    }
}

extern "C" __global__ void pi_final(REAL* pi, REAL* pi_final)
{
    if (blockIdx.x * blockDim.x + threadIdx.x == 0) {
        pi_final[0] = 4 * pi[0];
        pi[0] = 0;
    }
}
