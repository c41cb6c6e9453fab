// Basic_INIT_VIEW1D_OFFSET: a[i - ibegin] = i * v for i from ibegin to n + ibegin - 1
// (RAJAPerf's ibegin is 1, its view's offset).
KERNEL void init_view1d_offset(GLOBAL REAL* a, const REAL v, const uint ibegin, const uint n)
{
    FOR_EACH(j, n) {
        const size_t i = ibegin + j;
        a[i - ibegin] = (REAL)i * v;
    }
}
