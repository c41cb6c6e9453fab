// Bitonic sort of keys with values (Bitonic_PAIRS, Algorithm_SORTPAIRS).
// The step and tile entry points bind different uniforms at binding 2; WGSL
// allows that because no entry point uses both.
#include "bitonic.wgslh"

struct StepScalars {
    n: u32,
    d: u32,
    flip: u32,
    descending: u32,
}

struct SpanScalars {
    n: u32,
    descending: u32,
}

@group(0) @binding(0) var<storage, read_write> keys: array<WORD>;
@group(0) @binding(1) var<storage, read_write> values: array<VALUE>;
@group(0) @binding(2) var<uniform> step: StepScalars;
@group(0) @binding(2) var<uniform> span: SpanScalars;

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
        carried[i] = values[first + i];
    }
}

fn store_tile_values(lid: u32, first: u32, count: u32) {
    for (var i = lid; i < count; i += GROUP) {
        values[first + i] = carried[i];
    }
}
