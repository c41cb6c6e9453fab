// Bitonic sort of keys with values (Bitonic_PAIRS, Algorithm_SORTPAIRS).
// Each kind of entry point binds its own uniforms at binding 2; WGSL
// allows that because no entry point uses two.
#include "bitonic.wgslh"

@group(0) @binding(0) var<storage, read_write> keys: array<WORD>;
@group(0) @binding(1) var<storage, read_write> values: array<VALUE>;
@group(0) @binding(2) var<uniform> step: StepScalars;
@group(0) @binding(2) var<uniform> span: SpanScalars;
@group(0) @binding(2) var<uniform> tail: TailScalars;
@group(0) @binding(2) var<uniform> span_tail: SpanTailScalars;
@group(0) @binding(2) var<uniform> rows: RowScalars;
@group(0) @binding(2) var<uniform> ends: EndScalars;

var<workgroup> carried: array<VALUE, TILE>;

fn swap_global(lower: u32, upper: u32) {
    let v = values[lower];
    values[lower] = values[upper];
    values[upper] = v;
}

fn swap_tile(lower: u32, upper: u32) {
    let v = carried[lower];
    carried[lower] = carried[upper];
    carried[upper] = v;
}

fn load_tile_values(lid: u32, first: u32, count: u32) {
    for (var i = lid; i < count; i += GROUP) {
        carried[tile_slot(i)] = values[first + i];
    }
}

fn store_tile_values(lid: u32, first: u32, count: u32) {
    for (var i = lid; i < count; i += GROUP) {
        values[first + i] = carried[tile_slot(i)];
    }
}

var<private> rv: array<VALUE, PASS_KEYS>;

fn load_reg_value(i: u32, p: u32) {
    rv[i] = values[p];
}

fn store_reg_value(i: u32, p: u32) {
    values[p] = rv[i];
}

fn load_tile_reg_value(i: u32, p: u32) {
    rv[i] = carried[p];
}

fn store_tile_reg_value(i: u32, p: u32) {
    carried[p] = rv[i];
}

fn swap_reg_values(i: u32, j: u32, swap: bool) {
    let lo = select(rv[i], rv[j], swap);
    let hi = select(rv[j], rv[i], swap);
    rv[i] = lo;
    rv[j] = hi;
}

var<private> vv: array<vec4<VALUE>, 4>;

fn load_lane_values(x: u32, p: vec4<u32>) {
    vv[x] = vec4<VALUE>(values[p.x], values[p.y], values[p.z], values[p.w]);
}

fn store_lane_values(x: u32, p: vec4<u32>) {
    values[p.x] = vv[x].x;
    values[p.y] = vv[x].y;
    values[p.z] = vv[x].z;
    values[p.w] = vv[x].w;
}

fn take_vector_values(x: u32, y: u32, take: vec4<bool>) {
    let a = vv[x];
    vv[x] = select(a, vv[y], take);
    vv[y] = select(vv[y], a, take);
}

fn take_lane_values(x: u32, pattern: u32, take: vec4<bool>) {
    var p = vv[x].wzyx;
    if (pattern == HALVES) {
        p = vv[x].zwxy;
    } else if (pattern == NEIGHBOURS) {
        p = vv[x].yxwz;
    }
    vv[x] = select(vv[x], p, take);
}

fn reverse_values(x: u32) {
    vv[x] = vv[x].wzyx;
}

fn load_row_value(slot: u32, p: u32) {
    carried[slot] = values[p];
}

fn store_row_value(slot: u32, p: u32) {
    values[p] = carried[slot];
}
