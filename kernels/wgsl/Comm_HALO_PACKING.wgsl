// Comm_HALO_PACKING: pack one variable's cells at one neighbour's list into its buffer part,
// or unpack a buffer part into the variable's halo cells; one launch per (neighbour, variable).
// The part's list starts at list_at, its buffer at buffer_at, the variable at var_at.

@compute @workgroup_size(GROUP)
fn pack(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n) {
        return;
    }
    pack_buffer[s.buffer_at + i] = vars[s.var_at + u32(pack_lists[s.list_at + i])];
}

@compute @workgroup_size(GROUP)
fn unpack(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i >= s.n) {
        return;
    }
    vars[s.var_at + u32(unpack_lists[s.list_at + i])] = unpack_buffer[s.buffer_at + i];
}
