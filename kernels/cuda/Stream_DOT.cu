// Stream_DOT: dot += sum(a[i] * b[i]) in two launches.
// dot_partial: block g sums the contiguous chunk [g*chunk, (g+1)*chunk),
// each thread striding by the block size, then a tree in shared memory.
// dot_final: one block adds the partial sums into dot[0].

extern "C" __global__ void dot_partial(const REAL* a, const REAL* b, REAL* partial,
                                       const unsigned int n, const unsigned int chunk)
{
    __shared__ REAL sums[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned int g = blockIdx.x;
    const unsigned long long begin = (unsigned long long)g * chunk;
    const unsigned long long end = min(begin + chunk, (unsigned long long)n);
    REAL sum = 0;
    for (unsigned long long i = begin + lid; i < end; i += GROUP) {
        sum += a[i] * b[i];
    }
    sums[lid] = sum;
    __syncthreads();
    for (unsigned int s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            sums[lid] += sums[lid + s];
        }
        __syncthreads();
    }
    if (lid == 0) {
        partial[g] = sums[0];
    }
}

extern "C" __global__ void dot_final(const REAL* partial, REAL* dot, const unsigned int count)
{
    __shared__ REAL sums[GROUP];
    const unsigned int lid = threadIdx.x;
    REAL sum = 0;
    for (unsigned int i = lid; i < count; i += GROUP) {
        sum += partial[i];
    }
    sums[lid] = sum;
    __syncthreads();
    for (unsigned int s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            sums[lid] += sums[lid + s];
        }
        __syncthreads();
    }
    if (lid == 0) {
        dot[0] += sums[0];
    }
}
