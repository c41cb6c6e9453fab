// My_SAXPY: y = a x + y, one element per work-item (a grid-stride loop).
KERNEL void saxpy(GLOBAL const REAL* x, GLOBAL REAL* y, const REAL a, const uint n)
{
    FOR_EACH(i, n) {
        y[i] = a * x[i] + y[i];
    }
}
