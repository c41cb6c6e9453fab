// Basic_ARRAY_OF_PTRS: y[i] = x[0][i] + ... + x[array_size-1][i].
// WGSL has no pointers to pick a binding by index, so x[a][i] is a switch
// over the MAX_ARRAY_SIZE arrays, each its own binding. a is always below
// array_size, at most MAX_ARRAY_SIZE, so the default never runs; it reads x0
// again so that a loop running one step too far shows.

fn x_at(a: u32, i: u32) -> REAL {
    switch a {
        case 0u: { return x0[i]; }
        case 1u: { return x1[i]; }
        case 2u: { return x2[i]; }
        case 3u: { return x3[i]; }
        case 4u: { return x4[i]; }
        case 5u: { return x5[i]; }
        case 6u: { return x6[i]; }
        case 7u: { return x7[i]; }
        case 8u: { return x8[i]; }
        case 9u: { return x9[i]; }
        case 10u: { return x10[i]; }
        case 11u: { return x11[i]; }
        case 12u: { return x12[i]; }
        case 13u: { return x13[i]; }
        case 14u: { return x14[i]; }
        case 15u: { return x15[i]; }
        case 16u: { return x16[i]; }
        case 17u: { return x17[i]; }
        case 18u: { return x18[i]; }
        case 19u: { return x19[i]; }
        case 20u: { return x20[i]; }
        case 21u: { return x21[i]; }
        case 22u: { return x22[i]; }
        case 23u: { return x23[i]; }
        case 24u: { return x24[i]; }
        case 25u: { return x25[i]; }
        default: { return x0[i]; }
    }
}

@compute @workgroup_size(GROUP)
fn array_of_ptrs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
    if (i < s.n) {
        var yi = REAL(0.0);
        for (var a = 0u; a < s.array_size; a++) {
            yi += x_at(a, i);
        }
        y[i] = yi;
    }
}
