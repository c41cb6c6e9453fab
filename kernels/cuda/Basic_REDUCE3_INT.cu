// Basic_REDUCE3_INT: int vsum, vmin and vmax of vec in one pass, in two launches.
// reduce3_partial: block g reduces its contiguous chunk [g*chunk, (g+1)*chunk)
// into partial[g] (sum), partial[G + g] (min) and partial[2G + g] (max), G blocks.
// reduce3_final: one block folds the count partials of each kind.
#define INT_MIN (-2147483647 - 1)
#define INT_MAX 2147483647

// Folds every thread's triple into sums[0], mins[0], maxs[0].
__device__ void group_reduce3(int* sums, int* mins, int* maxs, const unsigned int lid)
{
    __syncthreads();
    for (unsigned int s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            sums[lid] += sums[lid + s];
            mins[lid] = min(mins[lid], mins[lid + s]);
            maxs[lid] = max(maxs[lid], maxs[lid + s]);
        }
        __syncthreads();
    }
}

extern "C" __global__ void reduce3_partial(const int* vec, int* partial, const unsigned int n,
                                           const unsigned int chunk)
{
    __shared__ int sums[GROUP], mins[GROUP], maxs[GROUP];
    const unsigned int lid = threadIdx.x;
    const unsigned int g = blockIdx.x;
    const unsigned int groups = gridDim.x;
    const unsigned long long begin = (unsigned long long)g * chunk;
    const unsigned long long end = min(begin + chunk, (unsigned long long)n);
    int vsum = 0, vmin = INT_MAX, vmax = INT_MIN;
    for (unsigned long long i = begin + lid; i < end; i += GROUP) {
        const int v = vec[i];
        vsum += v;
        vmin = min(vmin, v);
        vmax = max(vmax, v);
    }
    sums[lid] = vsum;
    mins[lid] = vmin;
    maxs[lid] = vmax;
    group_reduce3(sums, mins, maxs, lid);
    if (lid == 0) {
        partial[g] = sums[0];
        partial[groups + g] = mins[0];
        partial[2 * groups + g] = maxs[0];
    }
}

extern "C" __global__ void reduce3_final(const int* partial, int* vsum, int* vmin, int* vmax,
                                         const unsigned int count)
{
    __shared__ int sums[GROUP], mins[GROUP], maxs[GROUP];
    const unsigned int lid = threadIdx.x;
    int s = 0, lo = INT_MAX, hi = INT_MIN;
    for (unsigned int i = lid; i < count; i += GROUP) {
        s += partial[i];
        lo = min(lo, partial[count + i]);
        hi = max(hi, partial[2 * count + i]);
    }
    sums[lid] = s;
    mins[lid] = lo;
    maxs[lid] = hi;
    group_reduce3(sums, mins, maxs, lid);
    if (lid == 0) {
        vsum[0] = sums[0];
        vmin[0] = mins[0];
        vmax[0] = maxs[0];
    }
}
