// Polybench_JACOBI_1D: dst = 3-point average of src over the interior of an
// array of n. A step launches it twice: B from A, then A from B.
KERNEL void jacobi_1d(GLOBAL const REAL* src, GLOBAL REAL* dst, const uint n)
{
    FOR_EACH(t, n - 2) {
        dst[t + 1] = THIRD * (src[t] + src[t + 1] + src[t + 2]);
    }
}
