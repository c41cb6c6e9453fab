// Apps_NODAL_ACCUMULATION_3D: each real zone adds vol/8 to each of its 8 nodes.
// OpenCL has no floating-point atomic add: a compare-and-swap loop on the value's
// bits does it, 64-bit (cl_khr_int64_base_atomics) for double, 32-bit for float.

// IS_DOUBLE(REAL) is 1 when REAL is double and 0 when it is float.
#define REAL_IS_double 1
#define REAL_IS_float 0
#define IS_DOUBLE_(t) REAL_IS_##t
#define IS_DOUBLE(t) IS_DOUBLE_(t)

#if IS_DOUBLE(REAL)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
static void atomic_add_real(__global REAL* p, const REAL v)
{
    volatile __global ulong* bits = (volatile __global ulong*)p;
    ulong seen = *bits;
    ulong expected;
    do {
        expected = seen;
        seen = atom_cmpxchg(bits, expected, as_ulong(as_double(expected) + v));
    } while (seen != expected);
}
#else
static void atomic_add_real(__global REAL* p, const REAL v)
{
    volatile __global uint* bits = (volatile __global uint*)p;
    uint seen = *bits;
    uint expected;
    do {
        expected = seen;
        seen = atomic_cmpxchg(bits, expected, as_uint(as_float(expected) + v));
    } while (seen != expected);
}
#endif

__kernel void nodal_accumulation_3d(__global REAL* x, __global const REAL* vol,
                                    __global const int* real_zones, const int jp, const int kp,
                                    const uint n)
{
    const size_t ii = get_global_id(0);
    if (ii >= n) {
        return;
    }
    const int i = real_zones[ii];
    const REAL val = (REAL)0.125 * vol[i];
    atomic_add_real(x + i, val);
    atomic_add_real(x + i + 1, val);
    atomic_add_real(x + i + jp, val);
    atomic_add_real(x + i + 1 + jp, val);
    atomic_add_real(x + i + kp, val);
    atomic_add_real(x + i + 1 + kp, val);
    atomic_add_real(x + i + jp + kp, val);
    atomic_add_real(x + i + 1 + jp + kp, val);
}
