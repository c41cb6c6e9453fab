// Apps_NODAL_ACCUMULATION_3D: each real zone adds vol/8 to each of its 8 nodes.
// atomic_add_real is the dialect's: native on CUDA, a compare-and-swap loop on OpenCL.
KERNEL void nodal_accumulation_3d(GLOBAL REAL* x, GLOBAL const REAL* vol,
                                  GLOBAL const int* real_zones, const int jp, const int kp,
                                  const uint n)
{
    FOR_EACH(ii, n) {
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
}
