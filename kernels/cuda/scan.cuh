// The reduce-then-scan shared by Algorithm_SCAN.cu and Basic_INDEXLIST_3LOOP.cu,
// planned by harness/suite/scan.py; SCAN_T is the element type.
// scan_reduce: block g sums its contiguous chunk [g*chunk, (g+1)*chunk) into sums[g].
// scan_sums: one block turns the count chunk sums into their exclusive scan.
// scan_chunk: what scan_apply does: a chunk scanned tile by tile from offset sums[g].

// Tree sum of one value per thread; the result is valid in thread 0.
__device__ SCAN_T group_sum(SCAN_T* tree, const unsigned int lid, const SCAN_T v)
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
__device__ SCAN_T group_scan(SCAN_T* tile, const unsigned int lid, const SCAN_T v, SCAN_T* total)
{
    tile[lid] = v;
    __syncthreads();
    for (unsigned int off = 1; off < GROUP; off <<= 1) {
        const SCAN_T t = lid >= off ? tile[lid - off] : (SCAN_T)0;
        __syncthreads();
        tile[lid] += t;
        __syncthreads();
    }
    const SCAN_T before = lid > 0 ? tile[lid - 1] : (SCAN_T)0;
    *total = tile[GROUP - 1];
    __syncthreads();
    return before;
}

extern "C" __global__ void scan_reduce(const SCAN_T* x, SCAN_T* sums, const unsigned int n,
                                       const unsigned int chunk)
{
    __shared__ SCAN_T tree[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned long long begin = (unsigned long long)blockIdx.x * chunk;
    const unsigned long long end = min(begin + chunk, (unsigned long long)n);
    SCAN_T sum = 0;
    for (unsigned long long i = begin + lid; i < end; i += GROUP) {
        sum += x[i];
    }
    sum = group_sum(tree, lid, sum);
    if (lid == 0) {
        sums[blockIdx.x] = sum;
    }
}

extern "C" __global__ void scan_sums(SCAN_T* sums, const unsigned int count)
{
    __shared__ SCAN_T tile[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned int per = (count + GROUP - 1) / GROUP;
    const unsigned int begin = min(lid * per, count);
    const unsigned int end = min(begin + per, count);
    SCAN_T own = 0;
    for (unsigned int i = begin; i < end; ++i) {
        own += sums[i];
    }
    SCAN_T total;
    SCAN_T offset = group_scan(tile, lid, own, &total);
    for (unsigned int i = begin; i < end; ++i) {
        const SCAN_T v = sums[i];
        sums[i] = offset;
        offset += v;
    }
}

// Scans block g's chunk of src into dst (they may be one array), tile by tile,
// from the offset sums[g].
__device__ void scan_chunk(const SCAN_T* src, SCAN_T* dst, const SCAN_T* sums,
                           const unsigned int n, const unsigned int chunk)
{
    __shared__ SCAN_T tile[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned long long begin = (unsigned long long)blockIdx.x * chunk;
    const unsigned long long end = min(begin + chunk, (unsigned long long)n);
    SCAN_T carry = begin < end ? sums[blockIdx.x] : (SCAN_T)0;
    for (unsigned long long base = begin; base < end; base += GROUP) {
        const unsigned long long i = base + lid;
        const SCAN_T v = i < end ? src[i] : (SCAN_T)0;
        SCAN_T total;
        const SCAN_T before = group_scan(tile, lid, v, &total);
        if (i < end) {
            dst[i] = carry + before;
        }
        carry += total;
    }
}
