// Basic_DAXPY_ATOMIC: y[i] += a * x[i] as an atomic add; every address is distinct.
// atomic_add_real is the dialect's: native on CUDA, a compare-and-swap loop on OpenCL.
KERNEL void daxpy_atomic(GLOBAL const REAL* x, GLOBAL REAL* y, const REAL a, const uint n)
{
    FOR_EACH(i, n) {
        atomic_add_real(&y[i], a * x[i]);
    }
}
