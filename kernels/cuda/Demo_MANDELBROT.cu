// Demo_MANDELBROT: escape iterations of pixel (i % side, i / side) of the view
// starting at (x0, y0) with `step` between pixels, up to `limit` iterations.
extern "C" __global__ void mandelbrot(unsigned int* iterations, unsigned int side,
                                      unsigned int limit, REAL x0, REAL y0, REAL step)
{
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (unsigned long long)side * side) {
        return;
    }
    const REAL cx = x0 + step * (REAL)(i % side);
    const REAL cy = y0 + step * (REAL)(i / side);
    REAL x = 0;
    REAL y = 0;
    unsigned int count = 0;
    while (count < limit) {
        const REAL xx = x * x;
        const REAL yy = y * y;
        if (xx + yy > (REAL)4) {
            break;
        }
        y = (REAL)2 * x * y + cy;
        x = xx - yy + cx;
        count++;
    }
    iterations[i] = count;
}
