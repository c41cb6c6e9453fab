// Demo_MANDELBROT: escape iterations of pixel (i % side, i / side) of the view
// starting at (x0, y0) with `step` between pixels, up to `limit` iterations.
struct Scalars {
    side: u32,
    limit: u32,
    x0: REAL,
    y0: REAL,
    step: REAL,
}

@group(0) @binding(0) var<storage, read_write> iterations: array<u32>;
@group(0) @binding(1) var<uniform> s: Scalars;

// Grids over the per-dimension limit arrive as 2-D dispatches: linear group index.
@compute @workgroup_size(GROUP)
fn mandelbrot(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = (wid.x + wid.y * nwg.x) * GROUP + lid;
    if (i >= s.side * s.side) {
        return;
    }
    let cx = s.x0 + s.step * REAL(i % s.side);
    let cy = s.y0 + s.step * REAL(i / s.side);
    var x = REAL(0);
    var y = REAL(0);
    var count = 0u;
    while (count < s.limit) {
        let xx = x * x;
        let yy = y * y;
        if (xx + yy > REAL(4)) {
            break;
        }
        y = REAL(2) * x * y + cy;
        x = xx - yy + cx;
        count++;
    }
    iterations[i] = count;
}
