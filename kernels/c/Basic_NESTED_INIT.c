// Basic_NESTED_INIT: array[i + ni*(j + nj*k)] = 1e-8 * i * j * k over ni x nj x nk.
// One work-item per (j, k) row walks i, as RAJAPerf's loop nest does: contiguous
// stores, and one division per row rather than per element.
KERNEL void nested_init(GLOBAL REAL* array, const uint ni, const uint nj, const uint nk)
{
    FOR_EACH(jk, (size_t)nj * nk) {
        const size_t j = jk % nj;
        const size_t k = jk / nj;
        for (size_t i = 0; i < ni; ++i) {
            array[i + ni * (j + nj * k)] = NESTED_INIT_SCALE * (REAL)i * (REAL)j * (REAL)k;
        }
    }
}
