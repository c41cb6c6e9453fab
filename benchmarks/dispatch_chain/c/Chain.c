// Chain: y = y + 1, one element per work-item; a chain's launches each do this
// to the array the one before wrote.
KERNEL void bump(GLOBAL REAL* y, const uint n)
{
    FOR_EACH(i, n) {
        y[i] = y[i] + (REAL)1;
    }
}
