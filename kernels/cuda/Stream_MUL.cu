// Stream_MUL: b[i] = alpha * c[i]
extern "C" __global__ void mul(REAL* b, const REAL* c, const REAL alpha, const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        b[i] = alpha * c[i];
    }
}
