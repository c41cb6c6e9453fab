// The work-group tree sum the reductions share (Stream_DOT, Algorithm_REDUCE_SUM
// and scan.h). SUM_T is the element type: REAL unless the includer defines it.
#ifndef SUM_T
#define SUM_T REAL
#endif

// Sum of one value per work-item across the work-group, returned to every
// work-item (each reads tree[0] after the last barrier).
DEVICE SUM_T group_sum(LOCAL SUM_T* tree, const uint lid, const SUM_T v)
{
    tree[lid] = v;
    BARRIER();
    for (uint s = GROUP / 2; s > 0; s >>= 1) {
        if (lid < s) {
            tree[lid] += tree[lid + s];
        }
        BARRIER();
    }
    return tree[0];
}
