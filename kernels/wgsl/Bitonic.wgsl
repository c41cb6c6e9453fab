// Bitonic sort of keys alone (Bitonic_U32/I32/F32/F64, Algorithm_SORT).
// Each kind of entry point binds its own uniforms at binding 1; WGSL
// allows that because no entry point uses two.
#include "bitonic.wgslh"

@group(0) @binding(0) var<storage, read_write> keys: array<WORD>;
@group(0) @binding(1) var<uniform> step: StepScalars;
@group(0) @binding(1) var<uniform> span: SpanScalars;
@group(0) @binding(1) var<uniform> tail: TailScalars;
@group(0) @binding(1) var<uniform> span_tail: SpanTailScalars;
@group(0) @binding(1) var<uniform> rows: RowScalars;
@group(0) @binding(1) var<uniform> ends: EndScalars;

fn swap_global(lower: u32, upper: u32) {}

fn swap_tile(lower: u32, upper: u32) {}

fn load_tile_values(lid: u32, first: u32, count: u32) {}

fn store_tile_values(lid: u32, first: u32, count: u32) {}

fn load_reg_value(i: u32, p: u32) {}

fn store_reg_value(i: u32, p: u32) {}

fn load_tile_reg_value(i: u32, p: u32) {}

fn store_tile_reg_value(i: u32, p: u32) {}

fn swap_reg_values(i: u32, j: u32, swap: bool) {}

fn load_lane_values(x: u32, p: vec4<u32>) {}

fn store_lane_values(x: u32, p: vec4<u32>) {}

fn take_vector_values(x: u32, y: u32, take: vec4<bool>) {}

fn take_lane_values(x: u32, pattern: u32, take: vec4<bool>) {}

fn reverse_values(x: u32) {}

fn load_row_value(slot: u32, p: u32) {}

fn store_row_value(slot: u32, p: u32) {}
