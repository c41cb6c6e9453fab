// Polybench_HEAT_3D: dst = 7-point heat update of src over the interior of an
// n^3 grid indexed [k + n*(j + n*i)]. A step launches it twice: B from A, then
// A from B. Work-item w handles interior point (i, j, k), k fastest.
KERNEL void heat_3d(GLOBAL const REAL* src, GLOBAL REAL* dst, const uint n)
{
    const size_t w = GLOBAL_ID(0);
    const size_t m = n - 2;
    if (n < 3 || w >= m * m * m) {
        return;
    }
    const size_t i = 1 + w / (m * m);
    const size_t j = 1 + (w / m) % m;
    const size_t k = 1 + w % m;
    const size_t c = k + n * (j + n * i);
    const size_t di = (size_t)n * n;
    dst[c] = (REAL)0.125 * (src[c + di] - (REAL)2.0 * src[c] + src[c - di]) +
             (REAL)0.125 * (src[c + n] - (REAL)2.0 * src[c] + src[c - n]) +
             (REAL)0.125 * (src[c + 1] - (REAL)2.0 * src[c] + src[c - 1]) + src[c];
}
