// Basic_PI_ATOMIC: every work-item adds dx / (1 + x*x), x = (i + 0.5) * dx, to pi[0]
// atomically; pi_final then writes 4 * pi[0] and zeroes pi[0] for the next repetition.
// OpenCL has no floating-point atomic add: a compare-and-swap loop on the value's
// bits, 64-bit (cl_khr_int64_base_atomics, the description's atomics64) for double.
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define REAL_IS_double 1

#if XCAT(REAL_IS_, REAL)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
void atomic_add_real(volatile __global REAL* p, const REAL v)
{
    volatile __global ulong* bits = (volatile __global ulong*)p;
    ulong seen, old = *bits;
    do {
        seen = old;
        old = atom_cmpxchg(bits, seen, as_ulong(as_double(seen) + v));
    } while (old != seen);
}
#else
void atomic_add_real(volatile __global REAL* p, const REAL v)
{
    volatile __global uint* bits = (volatile __global uint*)p;
    uint seen, old = *bits;
    do {
        seen = old;
        old = atomic_cmpxchg(bits, seen, as_uint(as_float(seen) + v));
    } while (old != seen);
}
#endif

__kernel void pi_atomic(__global REAL* pi, const REAL dx, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n) {
        const REAL x = ((REAL)i + (REAL)0.5) * dx;
        atomic_add_real(pi, dx / ((REAL)1 + x * x));
    }
}

__kernel void pi_final(__global REAL* pi, __global REAL* pi_final)
{
    if (get_global_id(0) == 0) {
        pi_final[0] = 4 * pi[0];
        pi[0] = 0;
    }
}
