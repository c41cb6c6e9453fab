// Algorithm_ATOMIC: atomic[i % REPLICATION] += ATOMIC_VALUE for every i < n; the
// result is the sum of atomic, which accumulates over repetitions as RAJAPerf's does.
// atomic_add_real is the dialect's: native on CUDA, a compare-and-swap loop on OpenCL.
KERNEL void atomic_replicate(GLOBAL REAL* atomic, const uint n)
{
    FOR_EACH(i, n) {
        atomic_add_real(&atomic[i % REPLICATION], ATOMIC_VALUE);
    }
}
