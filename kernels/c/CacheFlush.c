// CacheFlush: sink[w] = XOR of scratch[w + k * width], k < PASSES: reads every
// line of a buffer larger than the device's last-level cache, between
// cold-cache repetitions, and writes only a 1/PASSES part, so that few dirty
// lines are left for the timed repetition to write back.
KERNEL void cache_flush(GLOBAL const uint* scratch, GLOBAL uint* sink, const uint n,
                        const uint width)
{
    FOR_EACH(w, width) {
        uint acc = 0u;
        for (uint k = 0; k < PASSES; k++) {
            const ulong i = (ulong)w + (ulong)k * width;
            if (i < n) {
                acc ^= scratch[i];
            }
        }
        sink[w] = acc;
    }
}
