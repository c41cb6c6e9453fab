// Bitonic sort of keys with values (Bitonic_PAIRS, Algorithm_SORTPAIRS).
#include "bitonic.cuh"

extern "C" __global__ void bitonic_step(WORD* keys, VALUE* values, unsigned int n, unsigned int d,
                                        unsigned int flip, unsigned int descending)
{
    global_step(keys, Carry<VALUE>{values}, n, d, flip, descending);
}

extern "C" __global__ void bitonic_local_sort(WORD* keys, VALUE* values, unsigned int n,
                                              unsigned int descending)
{
    __shared__ WORD tile[TILE];
    __shared__ VALUE carried[TILE];
    const unsigned int count = tile_count(n);
    tile_load(keys, tile, count);
    tile_load(values, carried, count);
    sort_tile(tile, Carry<VALUE>{carried}, count, descending);
    tile_store(keys, tile, count);
    tile_store(values, carried, count);
}

extern "C" __global__ void bitonic_local_merge(WORD* keys, VALUE* values, unsigned int n,
                                               unsigned int descending)
{
    __shared__ WORD tile[TILE];
    __shared__ VALUE carried[TILE];
    const unsigned int count = tile_count(n);
    tile_load(keys, tile, count);
    tile_load(values, carried, count);
    merge_tile(tile, Carry<VALUE>{carried}, count, descending);
    tile_store(keys, tile, count);
    tile_store(values, carried, count);
}
