"""The reference runs of a machine with a GPU, in one command.

What `results/reference/` holds for a GPU, made in order of what matters
most, each step with a time limit (a step that runs out is stopped as Ctrl-C
stops a run: the rows it measured are kept) and all of them within
``--budget``:

1. ``harness devices``, and a carried pycuda wheel (``--pycuda-wheels``, by
   default the wheels/ folder `scripts/build_pycuda_wheel.sh` fills) installed
   into OUT/pycuda, for the pycuda steps alone;

then one at a time, so that each has the GPU to itself, what a GPU user runs
first:

2. ``harness peak`` on each GPU device (kept in OUT/cache, so that the later
   rows are placed against it): copy and triad bandwidth, and the FMA peak
   at f64 and f32;
3. the default suite timed on each GPU device to the end (shorter noise
   budgets than the defaults, so that it fits in minutes), through wgpu with
   naga's runtime checks on and off (``--wgsl-checks on off``);
4. the Apps and Stream groups on the first device at 1/8 to 16 times their
   default sizes (``--size-factor``), for the report's saturation sizes and
   plot, with energy per repetition where NVML reads it;
5. the sorts at 2^26 and 2^22 keys, every strategy, steps 2, 4 and 6 and
   tiles of 8, 32 and 128 KiB (CUDA), beside np.sort and cupy.sort
   (`benchmarks/sort_vs_numpy.py`), and the first device's time per launch
   of four strategies at 2^26, those with tiles at 32 KiB too, and at 128 KiB on CUDA
   (`benchmarks/launch_breakdown.py`);
6. Stream at 2^25 doubles on the first GPU device, again through pycuda
   where it was installed and that device is a CUDA one, then BabelStream's
   build for the same API where ``--babelstream`` names one;
7. hot against cold cache for Stream_TRIAD inside and outside the first
   device's last-level cache (`benchmarks/cache_cold_hot.py`);
8. together, since nothing in them is timed: every kernel verified
   (``--check``) on each GPU device, one process per device; every kernel's
   check through pycuda where it was installed; and every kernel's check on
   the CUDA devices under NVIDIA's compute-sanitizer, its racecheck
   (work-group memory hazards) and memcheck (accesses outside any
   allocation) tools, where it is found (on the PATH, or from the
   nvidia-cuda-sanitizer-api wheel): the CUDA counterpart of the OpenCL
   simulator's check, whose findings are in the logs, not the rows;
9. the three transfer modes for Apps_ENERGY and Stream_TRIAD;
10. two MPI ranks on the first GPU device, where ``mpirun`` is found.

Logs go to ``OUT/<step>.log`` and run folders under ``OUT/runs/<step>``.

    python benchmarks/gpu_reference.py --out gpu-runs --babelstream ./cuda-stream
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

from harness import api, suite

HERE = Path(__file__).resolve().parent
WHEELS = HERE.parent / "wheels"


def gpu_devices() -> list[str]:
    """Each backend's first GPU device among its defaults, as BACKEND:INDEX: one
    GPU, once per API (wgpu can also list a GPU it finds by Vulkan through OpenGL);
    on a machine of several GPUs, name them with --device."""
    found = []
    # The vendor's own API first: the Stream step, and BabelStream's build beside
    # it, run on the first.
    order = {"cuda": 0, "opencl": 1}
    for backend in sorted(api.devices(), key=lambda b: order.get(b["backend"], 2)):
        gpus = [
            device["id"]
            for device in backend["devices"]
            if "gpu" in str(device["kind"]).split() and not device["note"]
        ]
        if backend["available"] and gpus:
            found.append(gpus[0])
    return found


def sanitizer() -> str | None:
    """NVIDIA's compute-sanitizer: on the PATH, or in an nvidia-cuda-sanitizer-api wheel."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for dist in metadata.distributions():
        if str(dist.metadata["Name"]).startswith("nvidia-cuda-sanitizer-api"):
            for file in dist.files or ():
                if file.name == "compute-sanitizer":
                    return str(file.locate())
    return None


class Steps:
    """Runs steps into OUT/NAME.log, each within its own limit and all within the
    budget; at a limit, SIGTERM (a harness run then finishes its row and writes
    its results), then SIGKILL 30 s later."""

    def __init__(self, out: Path, step_seconds: float, budget: float | None) -> None:
        self.out, self.step_seconds = out, step_seconds
        self.deadline = time.monotonic() + budget if budget else None

    def limit(self, seconds: float | None = None) -> float:
        """Seconds the next step may take: its own limit, cut to what the budget leaves."""
        seconds = self.step_seconds if seconds is None else seconds
        if self.deadline is None:
            return seconds
        return max(0.0, min(seconds, self.deadline - time.monotonic() - 30))

    def run(self, name: str, command: list[str], env: dict[str, str] | None = None) -> None:
        """One step."""
        self.together([(name, command, env)])

    def together(
        self,
        steps: list[tuple[str, list[str], dict[str, str] | None]],
        seconds: float | None = None,
    ) -> None:
        """Several steps at once, under one limit (``seconds`` in place of the
        steps' own, within the budget): for steps that time nothing."""
        seconds = self.limit(seconds)
        if seconds < 5:
            for name, _, _ in steps:
                print(f"{name}: skipped, the budget is spent", flush=True)
            return
        start = time.monotonic()
        children = {}
        for name, command, env in steps:
            print(f"{name}: {shlex.join(command)}", flush=True)
            log = (self.out / f"{name}.log").open("w")
            children[name] = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, **(env or {})},
                start_new_session=True,
            )
            log.close()
        for name, child in children.items():
            try:
                status = child.wait(timeout=max(0.0, start + seconds - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.send_signal(signal.SIGTERM)
                try:
                    status = child.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    child.kill()
                    status = child.wait()
            # What the step started and left behind (a script's harness run) must
            # not hold the GPU during the next step.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            print(f"{name}: exit {status} after {time.monotonic() - start:.0f} s", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=Path, required=True, help="folder for logs and runs")
    parser.add_argument(
        "--device",
        action="append",
        default=[],
        help="a device to use, BACKEND:INDEX (repeatable; default: every GPU device listed)",
    )
    parser.add_argument(
        "--babelstream", help="command that runs BabelStream for the first device's API"
    )
    parser.add_argument(
        "--pycuda-wheels",
        type=Path,
        default=WHEELS,
        help="folder of a pycuda wheel and its dependencies' wheels, from "
        "scripts/build_pycuda_wheel.sh (default: the repository's wheels/)",
    )
    parser.add_argument(
        "--step-seconds",
        type=float,
        default=600,
        help="time limit of each step (default 600)",
    )
    parser.add_argument(
        "--check-seconds",
        type=float,
        default=600,
        help="time limit of the checks and sanitizer runs, which run together (default 600)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        help="time limit of all the steps together, in seconds; the steps it leaves no "
        "time for are skipped (default: none)",
    )
    args = parser.parse_args()
    devices = args.device or gpu_devices()
    if not devices:
        print("no GPU device is listed: see 'harness devices'", file=sys.stderr)
        return 2
    out = args.out
    runs = out / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    # The peaks measured here, where this run's later steps find them.
    os.environ["XDG_CACHE_HOME"] = str((out / "cache").resolve())
    steps = Steps(out, args.step_seconds, args.budget)
    harness = [sys.executable, "-m", "harness"]
    script = [sys.executable, "-u"]

    def into(name: str) -> list[str]:
        return ["--out", str(runs / name)]

    steps.run("devices", [*harness, "devices"])
    cuda = [w for d in devices if d.startswith("cuda:") for w in ("--device", d)]
    # pycuda from a carried wheel, installed beside this environment (OUT/pycuda on the
    # PYTHONPATH of its steps alone, so that every other step keeps cuda-python); its
    # dependencies come from the same folder, since a GPU machine may have no internet.
    pycuda_env = None
    carried = sorted(args.pycuda_wheels.glob("pycuda-*.whl"))
    if cuda and carried:
        target = (out / "pycuda").resolve()
        install = [sys.executable, "-m", "pip", "install", "--no-index", "--upgrade"]
        install += ["--find-links", str(args.pycuda_wheels), "--target", str(target)]
        steps.together([("pycuda_install", [*install, str(carried[-1])], None)], seconds=120)
        if (target / "pycuda").is_dir():
            path = os.pathsep.join(p for p in (str(target), os.environ.get("PYTHONPATH")) if p)
            pycuda_env = {"PYTHONPATH": path, "HARNESS_CUDA_BINDING": "pycuda"}
        else:
            print(f"pycuda: not installed, see {out / 'pycuda_install.log'}", flush=True)
    elif cuda:
        print(f"pycuda: skipped, no pycuda wheel in {args.pycuda_wheels}", flush=True)
    on = [w for d in devices for w in ("--device", d)]
    # The peaks first, so that the suite's rows are placed against them.
    steps.run("peak", [*harness, "peak", *on])
    # First, what a GPU user runs: the whole suite timed on each device (wgpu with and
    # without naga's runtime checks), then the Apps and Stream groups swept over
    # factors of their default sizes on the first device (energy where NVML reads it).
    budgets = ["--min-time", "0.1", "--max-time", "0.5"]
    for d in devices:
        checks_both = ["--wgsl-checks", "on", "off"] if d.startswith("wgpu:") else []
        command = [*harness, "run", "--device", d, *budgets, *checks_both, *into("suite")]
        steps.run(f"suite_{d.replace(':', '')}", command)
    factors = ["--size-factor", "0.125", "0.25", "0.5", "1", "2", "4", "8", "16"]
    sweep = ["-k", "Apps", "Stream", *factors, *budgets, *into("sweep")]
    steps.run("sweep", [*harness, "run", "--device", devices[0], *sweep])
    sort = [*script, str(HERE / "sort_vs_numpy.py"), *on, "--steps", "2", "4", "6"]
    # 128 KiB tiles on CUDA (dynamic shared memory); a device with less skips them.
    sort += ["--tile_bytes", "8192", "32768", "131072"]
    for power in (26, 22):
        sizes = ["--size", str(2**power), "--launches", "1", "--reps", "3"]
        steps.run(f"sort_2e{power}", [*sort, *sizes])
    # Where the fastest GPU sort's time goes, launch by launch, at 2^26 keys.
    breakdown = [*script, str(HERE / "launch_breakdown.py"), "-k", "Bitonic_U32"]
    configs = ["strategy=global", "strategy=local", "strategy=tiled", "strategy=wide"]
    configs += [f"strategy={s},tile_bytes=32768" for s in ("local", "tiled", "wide")]
    backend = devices[0].partition(":")[0]
    if backend == "cuda":
        configs += [f"strategy={s},tile_bytes=131072" for s in ("tiled", "wide")]
    each = [w for c in configs for w in ("--param", c)]
    sort_launches = [*breakdown, "-b", backend, "--size", str(2**26), "--each", *each]
    steps.run("sort_launches", sort_launches)
    first = ["--device", devices[0]]
    stream = ["-k", "Stream", "--size", str(2**25), "--reps", "100"]
    steps.run("stream", [*harness, "run", *first, *stream, *into("stream")])
    if pycuda_env and devices[0].startswith("cuda:"):
        # The same rows through the other binding, timed just after cuda-python's.
        pycuda_stream = [*harness, "run", *first, *stream, *into("stream_pycuda")]
        steps.run("stream_pycuda", pycuda_stream, env=pycuda_env)
    if args.babelstream:
        babel = [*shlex.split(args.babelstream), "--arraysize", str(2**25), "--numtimes", "100"]
        steps.run("babelstream", babel)
    cache = [*script, str(HERE / "cache_cold_hot.py"), "--device", devices[0], "--launches", "1"]
    steps.run("cache", cache)
    # Each device's check in two processes, the sorts' many rows and the rest:
    # the host, not the GPU, sets the pace of a check.
    groups = sorted({spec.group for spec in suite.select()} - {"Sort"})
    halves = {"sort": ["Sort"], "rest": groups}
    untimed = [
        (
            f"check_{d.replace(':', '')}_{half}",
            [*harness, "run", "--check", "--device", d, "-k", *kernels, *into("check")],
            None,
        )
        for d in devices
        for half, kernels in halves.items()
    ]
    if pycuda_env:
        check = [*harness, "run", "--check", "-b", "cuda", *into("check_pycuda")]
        untimed.append(("check_pycuda", check, pycuda_env))
    tool = sanitizer()
    if cuda and tool:
        # In the sanitized process itself: no worker process to follow.
        check = [*harness, "run", "--check", *cuda, "--size", "1000", "--in-process"]
        for name in ("racecheck", "memcheck"):
            for half, kernels in halves.items():
                sanitized = [tool, "--tool", name, "--error-exitcode", "3", *check, "-k", *kernels]
                untimed.append((f"sanitize_{name}_{half}", [*sanitized, *into(name)], None))
    steps.together(untimed, seconds=args.check_seconds)

    transfers = ["-k", "Apps_ENERGY", "Stream_TRIAD", "--reps", "10", "--transfers"]
    modes = ["resident", "per-rep", "per-launch"]
    steps.run("transfers", [*harness, "run", *on, *transfers, *modes, *into("transfers")])
    mpirun = shutil.which("mpirun")
    if mpirun:
        pair = ["-k", "Stream_TRIAD", "Basic_DAXPY", "--reps", "20", *into("two_ranks")]
        ranks = [mpirun, "-n", "2", *harness, "run", *first, *pair]
        # Open MPI refuses root without these; other MPIs ignore them.
        root = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
        steps.run("two_ranks", ranks, env=root)
    print(f"logs and run folders: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
