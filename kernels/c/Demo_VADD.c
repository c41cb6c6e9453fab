// Demo_VADD: c[i] = a[i] + b[i]
KERNEL void vadd(GLOBAL const REAL* a, GLOBAL const REAL* b, GLOBAL REAL* c, const uint n)
{
    FOR_EACH(i, n) {
        c[i] = a[i] + b[i];
    }
}
