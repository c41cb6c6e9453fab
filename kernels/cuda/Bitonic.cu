// Bitonic sort of keys alone (Bitonic_U32/I32/F32/F64, Algorithm_SORT).
#include "bitonic.cuh"

extern "C" __global__ void bitonic_step(WORD* keys, unsigned int n, unsigned int d,
                                        unsigned int flip, unsigned int descending)
{
    global_step(keys, NoCarry{}, n, d, flip, descending);
}

extern "C" __global__ void bitonic_local_sort(WORD* keys, unsigned int n, unsigned int descending)
{
    __shared__ WORD tile[TILE];
    const unsigned int count = tile_count(n);
    tile_load(keys, tile, count);
    sort_tile(tile, NoCarry{}, count, descending);
    tile_store(keys, tile, count);
}

extern "C" __global__ void bitonic_local_merge(WORD* keys, unsigned int n, unsigned int descending)
{
    __shared__ WORD tile[TILE];
    const unsigned int count = tile_count(n);
    tile_load(keys, tile, count);
    merge_tile(tile, NoCarry{}, count, descending);
    tile_store(keys, tile, count);
}
