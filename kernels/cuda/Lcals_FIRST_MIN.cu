// Lcals_FIRST_MIN: the location of x's minimum, the first one among equals.
// first_min_partial: block g scans the chunk [g*chunk, (g+1)*chunk), each
// thread striding by the block size, then a tree in shared memory.
// first_min_final: one block combines the per-block results.
// Every candidate starts at (xmin_init, initloc) as RAJAPerf's reduction does;
// a pair wins with a smaller value, or an equal value at a smaller index, so
// the result is Base_Seq's whatever order the work is combined in.

__device__ bool better(REAL val, int loc, REAL than_val, int than_loc)
{
    return val < than_val || (val == than_val && loc < than_loc);
}

__device__ void reduce_group(REAL* vals, int* locs, unsigned int lid)
{
    for (unsigned int s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s && better(vals[lid + s], locs[lid + s], vals[lid], locs[lid])) {
            vals[lid] = vals[lid + s];
            locs[lid] = locs[lid + s];
        }
        __syncthreads();
    }
}

extern "C" __global__ void first_min_partial(const REAL* x, REAL* block_val, int* block_loc,
                                             const REAL xmin_init, const int initloc,
                                             const unsigned int n, const unsigned int chunk)
{
    __shared__ REAL vals[GROUP];
    __shared__ int locs[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned int g = blockIdx.x;
    const size_t begin = (size_t)g * chunk;
    const size_t end = begin + chunk < n ? begin + chunk : (size_t)n;
    REAL val = xmin_init;
    int loc = initloc;
    for (size_t i = begin + lid; i < end; i += GROUP) {
        if (better(x[i], (int)i, val, loc)) {
            val = x[i];
            loc = (int)i;
        }
    }
    vals[lid] = val;
    locs[lid] = loc;
    __syncthreads();
    reduce_group(vals, locs, lid);
    if (lid == 0) {
        block_val[g] = vals[0];
        block_loc[g] = locs[0];
    }
}

extern "C" __global__ void first_min_final(const REAL* block_val, const int* block_loc,
                                           int* minloc, const REAL xmin_init, const int initloc,
                                           const unsigned int count)
{
    __shared__ REAL vals[GROUP];
    __shared__ int locs[GROUP];
    const unsigned int lid = threadIdx.x;
    REAL val = xmin_init;
    int loc = initloc;
    for (unsigned int i = lid; i < count; i += GROUP) {
        if (better(block_val[i], block_loc[i], val, loc)) {
            val = block_val[i];
            loc = block_loc[i];
        }
    }
    vals[lid] = val;
    locs[lid] = loc;
    __syncthreads();
    reduce_group(vals, locs, lid);
    if (lid == 0) {
        minloc[0] = locs[0];
    }
}
