// Apps_ZONAL_ACCUMULATION_3D: each real zone's vol is the average of its 8 nodes' x.
// Zone i has nodes i + {0, 1, jp, 1+jp} + {0, kp}, summed in NDPTRSET's order.
KERNEL void zonal_accumulation_3d(GLOBAL const REAL* x, GLOBAL REAL* vol,
                                  GLOBAL const int* real_zones, const int jp, const int kp,
                                  const uint n)
{
    FOR_EACH(ii, n) {
        const int i = real_zones[ii];
        vol[i] = (REAL)0.125 * (x[i] + x[i + 1] + x[i + jp] + x[i + 1 + jp] + x[i + kp] +
                                x[i + 1 + kp] + x[i + jp + kp] + x[i + 1 + jp + kp]);
    }
}
