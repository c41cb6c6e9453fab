// Stream_COPY: c[i] = a[i]
extern "C" __global__ void copy(const REAL* a, REAL* c, const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i];
    }
}
