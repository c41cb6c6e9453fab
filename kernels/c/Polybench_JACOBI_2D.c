// Polybench_JACOBI_2D: dst = 5-point average of src over the interior of an
// n x n grid. A step launches it twice: B from A, then A from B.
// A 2-D launch over the interior: axis 0 is j (along a row), axis 1 is i.
KERNEL void jacobi_2d(GLOBAL const REAL* src, GLOBAL REAL* dst, const uint n)
{
    const size_t j = 1 + GLOBAL_ID(0);
    const size_t i = 1 + GLOBAL_ID(1);
    if (i + 1 >= n || j + 1 >= n) {
        return;
    }
    dst[j + i * n] = (REAL)0.2 * (src[j + i * n] + src[j - 1 + i * n] + src[j + 1 + i * n] +
                                  src[j + (i + 1) * n] + src[j + (i - 1) * n]);
}
