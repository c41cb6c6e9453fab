"""A minimal hand-written wgpu-py STREAM triad, the yardstick for the harness's wgpu backend.

It does only what a careful user would write by hand: three storage buffers,
one uniform, one pipeline, every repetition a compute pass with timestamp
queries at its beginning and end, all repetitions in one submit. It prints
the GB/s of the median per-rep time (RAJAPerf's 3 * n * bytes per element).

    python benchmarks/wgpu_triad.py --size 16777216 --precision f32
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import wgpu
from common import Parser, run_main
from wgpu.backends.wgpu_native import lib

from harness.cli.arguments import count, positive_int

SHADER = """
alias REAL = {real};
struct Params {{ alpha: REAL, n: u32 }}
@group(0) @binding(0) var<storage, read_write> a: array<REAL>;
@group(0) @binding(1) var<storage, read> b: array<REAL>;
@group(0) @binding(2) var<storage, read> c: array<REAL>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(256)
fn triad(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {{
    let i = (wid.x + wid.y * nwg.x) * 256u + lid;
    if (i < p.n) {{
        a[i] = b[i] + p.alpha * c[i];
    }}
}}
"""

GROUP = 256
MAX_GROUPS = 65535
#: Timed repetitions one query set holds: two timestamps each, 4096 at most.
MAX_REPS = 2048


def reps(text: str) -> int:
    """Timed repetitions, 1 to `MAX_REPS` (more ended in wgpu's validation error)."""
    value = positive_int(text)
    if value > MAX_REPS:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range: give 1 to {MAX_REPS}")
    return value


def _adapter() -> wgpu.GPUAdapter:
    """The first non-GL adapter (lavapipe, a GPU), else whatever exists."""
    adapters = wgpu.gpu.enumerate_adapters_sync()
    native = [a for a in adapters if a.info["backend_type"] != "OpenGL"]
    return (native or adapters)[0]


def main() -> None:
    """Build, run and time the triad; print one line of results."""
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--size", type=positive_int, default=1 << 24, help="elements (default 2^24)"
    )
    parser.add_argument(
        "--precision", choices=("f32", "f64"), default="f32", help="element type (default f32)"
    )
    parser.add_argument(
        "--reps",
        type=reps,
        default=100,
        help=f"timed repetitions, at most {MAX_REPS} (default 100)",
    )
    parser.add_argument(
        "--warmup", type=count, default=2, help="untimed repetitions first (default 2)"
    )
    args = parser.parse_args()

    dtype = np.dtype(np.float32 if args.precision == "f32" else np.float64)
    n = args.size
    adapter = _adapter()
    largest = min(2**32 - 1, adapter.limits["max-storage-buffer-binding-size"] // dtype.itemsize)
    if n > largest:
        parser.error(f"--size {n}: {adapter.info['device']} binds at most {largest} {dtype}")
    features = ["timestamp-query"] + (["shader-f64"] if args.precision == "f64" else [])
    device = adapter.request_device_sync(required_features=features)
    period_ns = lib.wgpuQueueGetTimestampPeriod(device.queue._internal)

    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.COPY_SRC
    rng = np.random.default_rng(1)
    a = device.create_buffer(size=n * dtype.itemsize, usage=usage)
    b = device.create_buffer_with_data(data=rng.random(n).astype(dtype), usage=usage)
    c = device.create_buffer_with_data(data=rng.random(n).astype(dtype), usage=usage)
    params = np.zeros(16 if dtype.itemsize == 8 else 8, np.uint8)
    params[: dtype.itemsize] = np.frombuffer(dtype.type(0.5).tobytes(), np.uint8)
    params[dtype.itemsize : dtype.itemsize + 4] = np.frombuffer(np.uint32(n).tobytes(), np.uint8)
    uniform = device.create_buffer_with_data(data=params, usage=wgpu.BufferUsage.UNIFORM)

    module = device.create_shader_module(code=SHADER.format(real=args.precision))
    pipeline = device.create_compute_pipeline(
        layout="auto", compute={"module": module, "entry_point": "triad"}
    )
    bind_group = device.create_bind_group(
        layout=pipeline.get_bind_group_layout(0),
        entries=[
            {"binding": i, "resource": {"buffer": buf, "offset": 0, "size": buf.size}}
            for i, buf in enumerate((a, b, c, uniform))
        ],
    )
    groups = -(-n // GROUP)
    gx = min(groups, MAX_GROUPS)
    gy = -(-groups // gx)

    def encode(reps: int, queries: wgpu.GPUQuerySet | None) -> wgpu.GPUCommandBuffer:
        encoder = device.create_command_encoder()
        for r in range(reps):
            writes = None
            if queries is not None:
                writes = {
                    "query_set": queries,
                    "beginning_of_pass_write_index": 2 * r,
                    "end_of_pass_write_index": 2 * r + 1,
                }
            compute = encoder.begin_compute_pass(timestamp_writes=writes)
            compute.set_pipeline(pipeline)
            compute.set_bind_group(0, bind_group)
            compute.dispatch_workgroups(gx, gy)
            compute.end()
        if queries is not None:
            encoder.resolve_query_set(queries, 0, 2 * reps, resolved, 0)
        return encoder.finish()

    device.queue.submit([encode(args.warmup, None)])
    device.queue.read_buffer(a, 0, 4)
    queries = device.create_query_set(type="timestamp", count=2 * args.reps)
    resolved = device.create_buffer(
        size=16 * args.reps, usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC
    )
    commands = encode(args.reps, queries)
    start = time.perf_counter()
    device.queue.submit([commands])
    ticks = np.frombuffer(device.queue.read_buffer(resolved), np.uint64)
    wall = time.perf_counter() - start
    times = (ticks[1::2] - ticks[0::2]) * period_ns * 1e-9
    median = statistics.median(times)
    moved = 3 * n * dtype.itemsize
    print(
        f"wgpu_triad {adapter.info['device']} ({adapter.info['backend_type']}) "
        f"{args.precision} n={n}: median {median * 1e3:.3f} ms, "
        f"{moved / median / 1e9:.3f} GB/s (host wall {wall / args.reps * 1e3:.3f} ms/rep)"
    )


if __name__ == "__main__":
    run_main(main)
