// Polybench_JACOBI_2D: dst = 5-point average of src over the interior of an
// n x n grid. A step launches it twice: B from A, then A from B.
// Work-item w handles interior point (i, j) = (1 + w / (n-2), 1 + w % (n-2)).
KERNEL void jacobi_2d(GLOBAL const REAL* src, GLOBAL REAL* dst, const uint n)
{
    const size_t w = GLOBAL_ID(0);
    const size_t m = n - 2;
    if (n < 3 || w >= m * m) {
        return;
    }
    const size_t i = 1 + w / m;
    const size_t j = 1 + w % m;
    dst[j + i * n] = (REAL)0.2 * (src[j + i * n] + src[j - 1 + i * n] + src[j + 1 + i * n] +
                                  src[j + (i + 1) * n] + src[j + (i - 1) * n]);
}
