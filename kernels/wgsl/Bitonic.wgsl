// Bitonic sort of keys alone (Bitonic_U32/I32/F32/F64, Algorithm_SORT).
// The step and tile entry points bind different uniforms at binding 1; WGSL
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
@group(0) @binding(1) var<uniform> step: StepScalars;
@group(0) @binding(1) var<uniform> span: SpanScalars;

fn swap_global(lower: u32, upper: u32) {}

fn swap_tile(lower: u32, upper: u32) {}

fn load_tile_values(lid: u32, first: u32, count: u32) {}

fn store_tile_values(lid: u32, first: u32, count: u32) {}
