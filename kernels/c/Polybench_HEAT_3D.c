// Polybench_HEAT_3D: dst = 7-point heat update of src over the interior of an
// n^3 grid indexed [k + n*(j + n*i)]. A step launches it twice: B from A, then
// A from B. A 3-D launch over the interior: axis 0 is k, 1 is j, 2 is i; axis
// 2's groups are of one work-item, so i never passes the interior.
KERNEL void heat_3d(GLOBAL const REAL* src, GLOBAL REAL* dst, const uint n)
{
    const size_t k = 1 + GLOBAL_ID(0);
    const size_t j = 1 + GLOBAL_ID(1);
    const size_t i = 1 + GLOBAL_ID(2);
    if (j + 1 >= n || k + 1 >= n) {
        return;
    }
    const size_t c = k + n * (j + n * i);
    const size_t di = (size_t)n * n;
    dst[c] = (REAL)0.125 * (src[c + di] - (REAL)2.0 * src[c] + src[c - di]) +
             (REAL)0.125 * (src[c + n] - (REAL)2.0 * src[c] + src[c - n]) +
             (REAL)0.125 * (src[c + 1] - (REAL)2.0 * src[c] + src[c - 1]) + src[c];
}
