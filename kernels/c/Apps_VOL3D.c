// Apps_VOL3D: volume of every zone from first (RAJAPerf's fpz) on, ghosts included.
// Zone i has nodes i + {0, 1, jp, 1+jp} + {0, kp}, numbered 0..7 as NDPTRSET.
KERNEL void vol3d(GLOBAL const REAL* x, GLOBAL const REAL* y, GLOBAL const REAL* z,
                  GLOBAL REAL* vol, const REAL vnormq, const int jp, const int kp, const int first,
                  const uint n)
{
    // The guarded form: PoCL ran this body 1.2-1.5x faster than as a grid-stride loop.
    const size_t t = GLOBAL_ID(0);
    if (t < n) {
        const int i0 = first + (int)t;
        const int i1 = i0 + 1;
        const int i2 = i0 + jp;
        const int i3 = i1 + jp;
        const int i4 = i0 + kp;
        const int i5 = i1 + kp;
        const int i6 = i2 + kp;
        const int i7 = i3 + kp;

        const REAL x71 = x[i7] - x[i1];
        const REAL x72 = x[i7] - x[i2];
        const REAL x74 = x[i7] - x[i4];
        const REAL x30 = x[i3] - x[i0];
        const REAL x50 = x[i5] - x[i0];
        const REAL x60 = x[i6] - x[i0];

        const REAL y71 = y[i7] - y[i1];
        const REAL y72 = y[i7] - y[i2];
        const REAL y74 = y[i7] - y[i4];
        const REAL y30 = y[i3] - y[i0];
        const REAL y50 = y[i5] - y[i0];
        const REAL y60 = y[i6] - y[i0];

        const REAL z71 = z[i7] - z[i1];
        const REAL z72 = z[i7] - z[i2];
        const REAL z74 = z[i7] - z[i4];
        const REAL z30 = z[i3] - z[i0];
        const REAL z50 = z[i5] - z[i0];
        const REAL z60 = z[i6] - z[i0];

        REAL xps = x71 + x60;
        REAL yps = y71 + y60;
        REAL zps = z71 + z60;
        REAL cyz = y72 * z30 - z72 * y30;
        REAL czx = z72 * x30 - x72 * z30;
        REAL cxy = x72 * y30 - y72 * x30;
        REAL v = xps * cyz + yps * czx + zps * cxy;

        xps = x72 + x50;
        yps = y72 + y50;
        zps = z72 + z50;
        cyz = y74 * z60 - z74 * y60;
        czx = z74 * x60 - x74 * z60;
        cxy = x74 * y60 - y74 * x60;
        v += xps * cyz + yps * czx + zps * cxy;

        xps = x74 + x30;
        yps = y74 + y30;
        zps = z74 + z30;
        cyz = y71 * z50 - z71 * y50;
        czx = z71 * x50 - x71 * z50;
        cxy = x71 * y50 - y71 * x50;
        v += xps * cyz + yps * czx + zps * cxy;

        vol[i0] = v * vnormq;
    }
}
