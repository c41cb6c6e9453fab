// Comm_HALO_PACKING: pack one variable's cells at one neighbour's list into its buffer part,
// or unpack a buffer part into the variable's halo cells; one launch per (neighbour, variable).
// The part's list starts at list_at, its buffer at buffer_at, the variable at var_at.
KERNEL void pack(GLOBAL REAL* pack_buffer, GLOBAL const REAL* vars, GLOBAL const int* pack_lists,
                 const uint list_at, const uint buffer_at, const uint var_at, const uint n)
{
    FOR_EACH(i, n) {
        pack_buffer[buffer_at + i] = vars[var_at + pack_lists[list_at + i]];
    }
}

KERNEL void unpack(GLOBAL REAL* vars, GLOBAL const REAL* unpack_buffer,
                   GLOBAL const int* unpack_lists, const uint list_at, const uint buffer_at,
                   const uint var_at, const uint n)
{
    FOR_EACH(i, n) {
        vars[var_at + unpack_lists[list_at + i]] = unpack_buffer[buffer_at + i];
    }
}
