// Demo_MANDELBROT: escape iterations of pixel (i % side, i / side) of the view
// starting at (x0, y0) with `step` between pixels, up to `limit` iterations.
KERNEL void mandelbrot(GLOBAL uint* iterations, const uint side, const uint limit, const REAL x0,
                       const REAL y0, const REAL step)
{
    FOR_EACH(i, (size_t)side * side) {
        const REAL cx = x0 + step * (REAL)(i % side);
        const REAL cy = y0 + step * (REAL)(i / side);
        REAL x = 0;
        REAL y = 0;
        uint count = 0;
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
}
