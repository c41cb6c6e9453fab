// Polybench_JACOBI_1D: dst = 3-point average of src over the interior of an
// array of n. A step launches it twice: B from A, then A from B.

struct Scalars {
    n: u32,
}

@group(0) @binding(0) var<storage, read_write> src: array<REAL>;
@group(0) @binding(1) var<storage, read_write> dst: array<REAL>;
@group(0) @binding(2) var<uniform> s: Scalars;

@compute @workgroup_size(GROUP)
fn jacobi_1d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let t = global_index(wid, nwg, lid);
    if (t + 2u < s.n) {
        dst[t + 1u] = THIRD * (src[t] + src[t + 1u] + src[t + 2u]);
    }
}
