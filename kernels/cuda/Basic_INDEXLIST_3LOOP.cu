// Basic_INDEXLIST_3LOOP: the indices i with x[i] < 0, listed in order, and their number.
// indexlist_count: counts[i] = 1 where x[i] < 0, else 0.
// scan_reduce, scan_sums, scan_apply: the shared three-launch exclusive scan of
// counts over n + 1 entries, in place (Algorithm_SCAN's plan on int counts).
// indexlist_scatter: list[counts[i]] = i where counts[i] != counts[i+1]; len[0] = counts[n].
#define GROUP 256

extern "C" __global__ void indexlist_count(const REAL* x, int* counts, const unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        counts[i] = x[i] < 0 ? 1 : 0;
    }
}

// Tree sum of one value per thread; the result is valid in thread 0.
__device__ int group_sum(int* tree, const unsigned int lid, const int v)
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
__device__ int group_scan(int* tile, const unsigned int lid, const int v, int* total)
{
    tile[lid] = v;
    __syncthreads();
    for (unsigned int off = 1; off < GROUP; off <<= 1) {
        const int t = lid >= off ? tile[lid - off] : 0;
        __syncthreads();
        tile[lid] += t;
        __syncthreads();
    }
    const int before = lid > 0 ? tile[lid - 1] : 0;
    *total = tile[GROUP - 1];
    __syncthreads();
    return before;
}

extern "C" __global__ void scan_reduce(const int* counts, int* sums, const unsigned int n,
                                       const unsigned int chunk)
{
    __shared__ int tree[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned long long begin = (unsigned long long)blockIdx.x * chunk;
    const unsigned long long end = min(begin + chunk, (unsigned long long)n);
    int sum = 0;
    for (unsigned long long i = begin + lid; i < end; i += GROUP) {
        sum += counts[i];
    }
    sum = group_sum(tree, lid, sum);
    if (lid == 0) {
        sums[blockIdx.x] = sum;
    }
}

extern "C" __global__ void scan_sums(int* sums, const unsigned int count)
{
    __shared__ int tile[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned int per = (count + GROUP - 1) / GROUP;
    const unsigned int begin = min(lid * per, count);
    const unsigned int end = min(begin + per, count);
    int own = 0;
    for (unsigned int i = begin; i < end; ++i) {
        own += sums[i];
    }
    int total;
    int offset = group_scan(tile, lid, own, &total);
    for (unsigned int i = begin; i < end; ++i) {
        const int v = sums[i];
        sums[i] = offset;
        offset += v;
    }
}

extern "C" __global__ void scan_apply(int* counts, const int* sums, const unsigned int n,
                                      const unsigned int chunk)
{
    __shared__ int tile[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned long long begin = (unsigned long long)blockIdx.x * chunk;
    const unsigned long long end = min(begin + chunk, (unsigned long long)n);
    int carry = begin < end ? sums[blockIdx.x] : 0;
    for (unsigned long long base = begin; base < end; base += GROUP) {
        const unsigned long long i = base + lid;
        const int v = i < end ? counts[i] : 0;
        int total;
        const int before = group_scan(tile, lid, v, &total);
        if (i < end) {
            counts[i] = carry + before;
        }
        carry += total;
    }
}

extern "C" __global__ void indexlist_scatter(const int* counts, int* list, int* len,
                                             const unsigned int n)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        len[0] = counts[n];
    }
    if (i < n && counts[i] != counts[i + 1]) {
        list[counts[i]] = (int)i;
    }
}
