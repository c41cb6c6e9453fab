// |x| < cut, as two comparisons: PoCL vectorises them where it does not
// vectorise fabs (Apps_PRESSURE's second launch ran 1.6 times faster). The same
// for every x, NaN included (false), and for both zeros.
DEVICE int below_cut(const REAL x, const REAL cut)
{
    return x < cut && -x < cut;
}
