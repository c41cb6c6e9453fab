// Stream_ADD: c[i] = a[i] + b[i]
extern "C" __global__ void add(const REAL* a, const REAL* b, REAL* c, const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
