// Apps_PRESSURE: bvc from compression, then p_new from bvc and e_old with cut-offs.
#include "cutoff.h"

KERNEL void pressure1(GLOBAL const REAL* compression, GLOBAL REAL* bvc, const REAL cls,
                      const uint n)
{
    FOR_EACH(i, n) {
        bvc[i] = cls * (compression[i] + (REAL)1.0);
    }
}

KERNEL void pressure2(GLOBAL const REAL* bvc, GLOBAL REAL* p_new, GLOBAL const REAL* e_old,
                      GLOBAL const REAL* vnewc, const REAL p_cut, const REAL pmin,
                      const REAL eosvmax, const uint n)
{
    FOR_EACH(i, n) {
        REAL p = bvc[i] * e_old[i];
        if (below_cut(p, p_cut)) {
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
}
