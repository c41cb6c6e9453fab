// My_STENCIL2D: dst = 0.5 centre + 0.125 of each neighbour over the interior of an
// n x n grid; a 2-D launch, axis 0 along a row (j), axis 1 across rows (i).
KERNEL void stencil2d(GLOBAL const REAL* src, GLOBAL REAL* dst, const uint n)
{
    const size_t j = 1 + GLOBAL_ID(0);
    const size_t i = 1 + GLOBAL_ID(1);
    if (i + 1 >= n || j + 1 >= n) {
        return;
    }
    const size_t c = j + i * n;
    dst[c] = (REAL)0.5 * src[c] +
             (REAL)0.125 * (src[c - n] + src[c + n] + src[c - 1] + src[c + 1]);
}
