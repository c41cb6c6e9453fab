// Algorithm_SCAN: y[i] = x[0] + ... + x[i-1] (exclusive), reduce-then-scan in three launches.
// scan_reduce: block g sums its contiguous chunk [g*chunk, (g+1)*chunk) into sums[g].
// scan_sums: one block turns the count chunk sums into their exclusive scan.
// scan_apply: block g scans its chunk tile by tile from offset sums[g].
#define GROUP 256

// Tree sum of one value per thread; the result is valid in thread 0.
__device__ REAL group_sum(REAL* tree, const unsigned int lid, const REAL v)
{
    tree[lid] = v;
    __syncthreads();
    for (unsigned int s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            tree[lid] += tree[lid + s];
        }
        __syncthreads();
    }
    return tree[0];
}

// Exclusive scan of one value per thread across the block; *total gets their sum.
__device__ REAL group_scan(REAL* tile, const unsigned int lid, const REAL v, REAL* total)
{
    tile[lid] = v;
    __syncthreads();
    for (unsigned int off = 1; off < GROUP; off <<= 1) {
        const REAL t = lid >= off ? tile[lid - off] : (REAL)0;
        __syncthreads();
        tile[lid] += t;
        __syncthreads();
    }
    const REAL before = lid > 0 ? tile[lid - 1] : (REAL)0;
    *total = tile[GROUP - 1];
    __syncthreads();
    return before;
}

extern "C" __global__ void scan_reduce(const REAL* x, REAL* sums, const unsigned int n,
                                       const unsigned int chunk)
{
    __shared__ REAL tree[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned long long begin = (unsigned long long)blockIdx.x * chunk;
    const unsigned long long end = min(begin + chunk, (unsigned long long)n);
    REAL sum = 0;
    for (unsigned long long i = begin + lid; i < end; i += GROUP) {
        sum += x[i];
    }
    sum = group_sum(tree, lid, sum);
    if (lid == 0) {
        sums[blockIdx.x] = sum;
    }
}

extern "C" __global__ void scan_sums(REAL* sums, const unsigned int count)
{
    __shared__ REAL tile[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned int per = (count + GROUP - 1) / GROUP;
    const unsigned int begin = min(lid * per, count);
    const unsigned int end = min(begin + per, count);
    REAL own = 0;
    for (unsigned int i = begin; i < end; ++i) {
        own += sums[i];
    }
    REAL total;
    REAL offset = group_scan(tile, lid, own, &total);
    for (unsigned int i = begin; i < end; ++i) {
        const REAL v = sums[i];
        sums[i] = offset;
        offset += v;
    }
}

extern "C" __global__ void scan_apply(const REAL* x, REAL* y, const REAL* sums,
                                      const unsigned int n, const unsigned int chunk)
{
    __shared__ REAL tile[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned long long begin = (unsigned long long)blockIdx.x * chunk;
    const unsigned long long end = min(begin + chunk, (unsigned long long)n);
    REAL carry = begin < end ? sums[blockIdx.x] : (REAL)0;
    for (unsigned long long base = begin; base < end; base += GROUP) {
        const unsigned long long i = base + lid;
        const REAL v = i < end ? x[i] : (REAL)0;
        REAL total;
        const REAL before = group_scan(tile, lid, v, &total);
        if (i < end) {
            y[i] = carry + before;
        }
        carry += total;
    }
}
