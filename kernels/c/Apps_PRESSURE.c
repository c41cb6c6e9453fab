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
    // Selects rather than ifs: PoCL vectorises a chunked walk's loop only so
    // (0.29 ms against 0.43 ms at 10^6 items), and the loads are unconditional.
    FOR_EACH(i, n) {
        const REAL p = bvc[i] * e_old[i];
        const REAL kept = (below_cut(p, p_cut) | (vnewc[i] >= eosvmax)) ? (REAL)0.0 : p;
        p_new[i] = kept < pmin ? pmin : kept;
    }
}
