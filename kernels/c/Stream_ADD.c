// Stream_ADD: c[i] = a[i] + b[i]
KERNEL void add(GLOBAL const REAL* a, GLOBAL const REAL* b, GLOBAL REAL* c, const uint n)
{
    FOR_EACH(i, n) {
        c[i] = a[i] + b[i];
    }
}
