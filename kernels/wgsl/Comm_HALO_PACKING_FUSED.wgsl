// Comm_HALO_PACKING_FUSED: every (neighbour, variable) part packed in one launch, unpacked in
// another. Row y of the launch does part y: parts[4y .. 4y+3] hold its list start, buffer start,
// variable start and length; the row's invocations stride along the part's list.

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn pack_fused(@builtin(global_invocation_id) gid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
    let part = PART_FIELDS * gid.y;
    let list_at = u32(pack_parts[part]);
    let buffer_at = u32(pack_parts[part + 1u]);
    let var_at = u32(pack_parts[part + 2u]);
    let len = u32(pack_parts[part + 3u]);
    for (var i = gid.x; i < len; i += nwg.x * GROUP_X) {
        pack_buffer[buffer_at + i] = vars[var_at + u32(pack_lists[list_at + i])];
    }
}

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn unpack_fused(@builtin(global_invocation_id) gid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
    let part = PART_FIELDS * gid.y;
    let list_at = u32(unpack_parts[part]);
    let buffer_at = u32(unpack_parts[part + 1u]);
    let var_at = u32(unpack_parts[part + 2u]);
    let len = u32(unpack_parts[part + 3u]);
    for (var i = gid.x; i < len; i += nwg.x * GROUP_X) {
        vars[var_at + u32(unpack_lists[list_at + i])] = unpack_buffer[buffer_at + i];
    }
}
