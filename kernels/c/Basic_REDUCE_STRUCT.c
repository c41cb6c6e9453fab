// Basic_REDUCE_STRUCT: the center (sums over n), min and max of x and of y, in two launches.
// Partials and points hold six rows in the order of RAJAPerf's PointsType:
// x sum, y sum, x min, x max, y min, y max; partial has G entries a row, G work-groups.
// reduce_struct_partial: work-group g reduces its contiguous chunk [g*chunk, (g+1)*chunk)
// into partial[r*G + g]; reduce_struct_final: one work-item folds the count
// partials of each row into points, the sums divided by n.
#include "chunk.h"

// RAJA_MIN and RAJA_MAX: a plain comparison, which PoCL vectorises; with fmin and
// fmax, or min and max, of reals the partial launch measured five times slower.
DEVICE REAL lower(const REAL a, const REAL b)
{
    return a < b ? a : b;
}

DEVICE REAL upper(const REAL a, const REAL b)
{
    return a > b ? a : b;
}

// Folds the work-group's values of each of the six reductions into element 0.
DEVICE void group_reduce_struct(LOCAL REAL* xsum, LOCAL REAL* ysum, LOCAL REAL* xmin,
                                LOCAL REAL* xmax, LOCAL REAL* ymin, LOCAL REAL* ymax,
                                const uint lid)
{
    BARRIER();
    for (uint s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            xsum[lid] += xsum[lid + s];
            ysum[lid] += ysum[lid + s];
            xmin[lid] = lower(xmin[lid], xmin[lid + s]);
            xmax[lid] = upper(xmax[lid], xmax[lid + s]);
            ymin[lid] = lower(ymin[lid], ymin[lid + s]);
            ymax[lid] = upper(ymax[lid], ymax[lid + s]);
        }
        BARRIER();
    }
}

KERNEL void reduce_struct_partial(GLOBAL const REAL* x, GLOBAL const REAL* y, GLOBAL REAL* partial,
                                  const uint n, const uint chunk, const REAL init_min,
                                  const REAL init_max)
{
    SHARED REAL xsum[GROUP], ysum[GROUP], xmin[GROUP], xmax[GROUP], ymin[GROUP], ymax[GROUP];
    const uint lid = LOCAL_ID(0);
    const uint g = GROUP_ID(0);
    const uint groups = NUM_GROUPS(0);
    const ulong begin = (ulong)g * chunk;
    const ulong end = min(begin + chunk, (ulong)n);
    REAL sx = 0, sy = 0, lox = init_min, hix = init_max, loy = init_min, hiy = init_max;
    FOR_CHUNK(i, begin, end) {
        const REAL xi = x[i];
        const REAL yi = y[i];
        sx += xi;
        lox = lower(lox, xi);
        hix = upper(hix, xi);
        sy += yi;
        loy = lower(loy, yi);
        hiy = upper(hiy, yi);
    }
    xsum[lid] = sx;
    ysum[lid] = sy;
    xmin[lid] = lox;
    xmax[lid] = hix;
    ymin[lid] = loy;
    ymax[lid] = hiy;
    group_reduce_struct(xsum, ysum, xmin, xmax, ymin, ymax, lid);
    if (lid == 0) {
        partial[g] = xsum[0];
        partial[groups + g] = ysum[0];
        partial[2 * groups + g] = xmin[0];
        partial[3 * groups + g] = xmax[0];
        partial[4 * groups + g] = ymin[0];
        partial[5 * groups + g] = ymax[0];
    }
}

KERNEL void reduce_struct_final(GLOBAL const REAL* partial, GLOBAL REAL* points, const uint count,
                                const uint n, const REAL init_min, const REAL init_max)
{
    // A chunked launch leaves at most a thousand partials: one work-item folds them.
    if (LOCAL_ID(0) == 0) {
        REAL sx = 0, sy = 0, lox = init_min, hix = init_max, loy = init_min, hiy = init_max;
        for (uint i = 0; i < count; i++) {
            sx += partial[i];
            sy += partial[count + i];
            lox = lower(lox, partial[2 * count + i]);
            hix = upper(hix, partial[3 * count + i]);
            loy = lower(loy, partial[4 * count + i]);
            hiy = upper(hiy, partial[5 * count + i]);
        }
        points[0] = sx / n;
        points[1] = sy / n;
        points[2] = lox;
        points[3] = hix;
        points[4] = loy;
        points[5] = hiy;
    }
}
