// What every MFEM kernel shares: a work-group per element, over a 2-D grid of groups (x first)
// so that no axis passes the 65535 groups a dispatch allows.

// g, the number of the work-item's group, which computes element g % NE. Groups past the last
// element (the grid is near-square) compute that element and write nothing: PoCL mishandles a
// group that returns before its barriers, even one no group takes.
DEVICE size_t mfem_group(void)
{
    return GROUP_ID(0) + NUM_GROUPS(0) * GROUP_ID(1);
}
