// Apps_PRESSURE: bvc from compression, then p_new from bvc and e_old with cut-offs.
__kernel void pressure1(__global const REAL* compression, __global REAL* bvc, const REAL cls,
                        const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        bvc[i] = cls * (compression[i] + (REAL)1.0);
    }
}

__kernel void pressure2(__global const REAL* bvc, __global REAL* p_new,
                        __global const REAL* e_old, __global const REAL* vnewc,
                        const REAL p_cut, const REAL pmin, const REAL eosvmax, const uint n)
{
    const size_t i = get_global_id(0);
    if (i >= n) {
        return;
    }
    REAL p = bvc[i] * e_old[i];
    if (fabs(p) < p_cut) {
        p = (REAL)0.0;
    }
    if (vnewc[i] >= eosvmax) {
        p = (REAL)0.0;
    }
    if (p < pmin) {
        p = pmin;
    }
    p_new[i] = p;
}
