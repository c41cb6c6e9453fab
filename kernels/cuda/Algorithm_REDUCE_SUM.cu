// Algorithm_REDUCE_SUM: sum = x[0] + ... + x[n-1] in two launches.
// reduce_sum_partial: block g sums its contiguous chunk [g*chunk, (g+1)*chunk),
// each thread striding by the block size, then a tree in shared memory.
// reduce_sum_final: one block adds the count partials and writes sum[0].

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

extern "C" __global__ void reduce_sum_partial(const REAL* x, REAL* partial, const unsigned int n,
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
        partial[blockIdx.x] = sum;
    }
}

extern "C" __global__ void reduce_sum_final(const REAL* partial, REAL* sum,
                                            const unsigned int count)
{
    __shared__ REAL tree[GROUP];
    const unsigned int lid = threadIdx.x;
    REAL s = 0;
    for (unsigned int i = lid; i < count; i += GROUP) {
        s += partial[i];
    }
    s = group_sum(tree, lid, s);
    if (lid == 0) {
        sum[0] = s;
    }
}
