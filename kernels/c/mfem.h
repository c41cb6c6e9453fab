// What every MFEM kernel shares: a work-group per element, over a 2-D grid of groups (x first)
// so that no axis passes the 65535 groups a dispatch allows.

// g, the number of the work-item's group, which computes element g % NE. Groups past the last
// element (the grid is near-square) compute that element and write nothing: PoCL mishandles a
// group that returns before its barriers, even one no group takes.
DEVICE size_t mfem_group(void)
{
    return GROUP_ID(0) + NUM_GROUPS(0) * GROUP_ID(1);
}

// Loops over the D1D dofs and the Q1D points of an axis, unrolled so that arrays indexed by
// them stay in registers.
#define EACH_D(k) UNROLL for (uint k = 0; k < D1D; ++k)
#define EACH_Q(k) UNROLL for (uint k = 0; k < Q1D; ++k)
