// Demo_MANDELBROT: escape iterations of pixel (i % side, i / side) of the view
// starting at (x0, y0) with `step` between pixels, up to `limit` iterations.

@compute @workgroup_size(GROUP)
fn mandelbrot(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let i = global_index(wid, nwg, lid);
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
