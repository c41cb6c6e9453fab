// Basic_PI_ATOMIC: every work-item adds dx / (1 + x*x), x = (i + 0.5) * dx, to pi[0]
// atomically; pi_final then writes 4 * pi[0] and zeroes pi[0] for the next repetition.
// atomic_add_real is the dialect's: native on CUDA, a compare-and-swap loop on OpenCL.
// A GPU without the native add runs each work-group's terms through a work-group
// sum and adds the sum, one atomic per group: a compare-and-swap per item makes
// every work-item in flight retry on the one address until it wins (on an H100,
// one repetition at 10^6 items did not end in 30 s).
#if !defined(HARNESS_CPU_DEVICE) && !defined(NATIVE_ATOMIC_ADD_REAL)
#include "group_sum.h"
#endif

KERNEL void pi_atomic(GLOBAL REAL* pi, const REAL dx, const uint n)
{
    const size_t i = GLOBAL_ID(0);
#if defined(HARNESS_CPU_DEVICE) || defined(NATIVE_ATOMIC_ADD_REAL)
    // The guarded form: every work-item contends for one address, and the
    // grid-stride loop measured no faster on PoCL.
    if (i < n) {
        const REAL x = ((REAL)i + (REAL)0.5) * dx;
        atomic_add_real(pi, dx / ((REAL)1 + x * x));
    }
#else
    SHARED REAL tree[GROUP];
    const REAL x = ((REAL)i + (REAL)0.5) * dx;
    const REAL sum = group_sum(tree, LOCAL_ID(0), i < n ? dx / ((REAL)1 + x * x) : (REAL)0);
    if (LOCAL_ID(0) == 0) {
        atomic_add_real(pi, sum);
    }
#endif
}

KERNEL void pi_final(GLOBAL REAL* pi, GLOBAL REAL* pi_final)
{
    if (GLOBAL_ID(0) == 0) {
        pi_final[0] = 4 * pi[0];
        pi[0] = 0;
    }
}
