// The work-group scan of SCAN_T values, shared by scan.h and Basic_INDEXLIST.c.
// tile is a work-group array of GROUP values.

// Exclusive scan of one value per work-item across the work-group. tile then
// holds the inclusive scan, tile[GROUP - 1] their sum, until the caller's next
// BARRIER(), which must come before tile is written again.
DEVICE SCAN_T group_scan(LOCAL SCAN_T* tile, const uint lid, const SCAN_T v)
{
    tile[lid] = v;
    BARRIER();
    for (uint off = 1; off < GROUP; off <<= 1) {
        const SCAN_T t = lid >= off ? tile[lid - off] : (SCAN_T)0;
        BARRIER();
        tile[lid] += t;
        BARRIER();
    }
    return lid > 0 ? tile[lid - 1] : (SCAN_T)0;
}
