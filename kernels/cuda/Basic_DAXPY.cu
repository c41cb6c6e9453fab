// Basic_DAXPY: y[i] += a * x[i]
extern "C" __global__ void daxpy(const REAL* x, REAL* y, const REAL a, const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] += a * x[i];
    }
}
