// Basic_EMPTY: a launch over n items whose body does nothing: what a launch costs.
KERNEL void empty(const uint n)
{
    // RAJAPerf's CUDA kernel: one item per index, guarded, with an empty body.
    const size_t i = GLOBAL_ID(0);
    if (i < n) {
    }
}
