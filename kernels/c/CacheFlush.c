// CacheFlush: scratch[i] = scratch[i] * 3 + 1, a read and a write of every line
// of a buffer larger than the device's last-level cache, run between cold-cache
// repetitions.
KERNEL void cache_flush(GLOBAL uint* scratch, const uint n)
{
    FOR_EACH(i, n) {
        scratch[i] = scratch[i] * 3u + 1u;
    }
}
