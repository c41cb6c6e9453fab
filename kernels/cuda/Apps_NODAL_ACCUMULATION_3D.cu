// Apps_NODAL_ACCUMULATION_3D: each real zone adds vol/8 to each of its 8 nodes with
// atomicAdd (native for float, and for double from sm_60).
extern "C" __global__ void nodal_accumulation_3d(REAL* x, const REAL* vol, const int* real_zones,
                                                 const int jp, const int kp, const unsigned int n)
{
    const size_t ii = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (ii >= n) {
        return;
    }
    const int i = real_zones[ii];
    const REAL val = (REAL)0.125 * vol[i];
    atomicAdd(x + i, val);
    atomicAdd(x + i + 1, val);
    atomicAdd(x + i + jp, val);
    atomicAdd(x + i + 1 + jp, val);
    atomicAdd(x + i + kp, val);
    atomicAdd(x + i + 1 + kp, val);
    atomicAdd(x + i + jp + kp, val);
    atomicAdd(x + i + 1 + jp + kp, val);
}
