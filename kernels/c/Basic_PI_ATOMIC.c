// Basic_PI_ATOMIC: every work-item adds dx / (1 + x*x), x = (i + 0.5) * dx, to pi[0]
// atomically; pi_final then writes 4 * pi[0] and zeroes pi[0] for the next repetition.
// atomic_add_real is the dialect's: native on CUDA, a compare-and-swap loop on OpenCL.
KERNEL void pi_atomic(GLOBAL REAL* pi, const REAL dx, const uint n)
{
    // The guarded form: every work-item contends for one address, and the
    // grid-stride loop measured no faster on PoCL.
    const size_t i = GLOBAL_ID(0);
    if (i < n) {
        const REAL x = ((REAL)i + (REAL)0.5) * dx;
        atomic_add_real(pi, dx / ((REAL)1 + x * x));
    }
}

KERNEL void pi_final(GLOBAL REAL* pi, GLOBAL REAL* pi_final)
{
    if (GLOBAL_ID(0) == 0) {
        pi_final[0] = 4 * pi[0];
        pi[0] = 0;
    }
}
