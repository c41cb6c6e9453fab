// Apps_FIR: out[i] = sum over j < 16 of coeff[j] * in[i + j]; in has n + 15 elements.
#define COEFFLEN 16

extern "C" __global__ void fir(const REAL* in, REAL* out, const REAL* coeff, const unsigned int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        REAL sum = (REAL)0.0;
        for (int j = 0; j < COEFFLEN; ++j) {
            sum += coeff[j] * in[i + j];
        }
        out[i] = sum;
    }
}
