// Comm_HALO_PACKING_FUSED: every (neighbour, variable) part packed in one launch, unpacked in
// another. Row y of the launch does part y: parts[4y .. 4y+3] hold its list start, buffer start,
// variable start and length; the row's work-items stride along the part's list.
KERNEL void pack_fused(GLOBAL REAL* pack_buffer, GLOBAL const REAL* vars,
                       GLOBAL const int* pack_lists, GLOBAL const int* pack_parts)
{
    GLOBAL const int* part = pack_parts + PART_FIELDS * GLOBAL_ID(1);
    GLOBAL const int* list = pack_lists + part[0];
    GLOBAL REAL* buffer = pack_buffer + part[1];
    GLOBAL const REAL* var = vars + part[2];
    const uint len = (uint)part[3];
    FOR_EACH(i, len) {
        buffer[i] = var[list[i]];
    }
}

KERNEL void unpack_fused(GLOBAL REAL* vars, GLOBAL const REAL* unpack_buffer,
                         GLOBAL const int* unpack_lists, GLOBAL const int* unpack_parts)
{
    GLOBAL const int* part = unpack_parts + PART_FIELDS * GLOBAL_ID(1);
    GLOBAL const int* list = unpack_lists + part[0];
    GLOBAL const REAL* buffer = unpack_buffer + part[1];
    GLOBAL REAL* var = vars + part[2];
    const uint len = (uint)part[3];
    FOR_EACH(i, len) {
        var[list[i]] = buffer[i];
    }
}
