"""The reference runs of a machine with a GPU, in one command.

What `results/reference/` holds for a GPU, made in order of what matters
most, each step with a time limit (a step that runs out is stopped as Ctrl-C
stops a run: the rows it measured are kept):

1. ``harness devices``;
2. every kernel verified (``--check``) on each GPU device;
3. the default suite timed on each GPU device (shorter noise budgets than the
   defaults, so that it fits in minutes);
4. Stream at 2^25 doubles on the first GPU device, then BabelStream's build
   for the same API where ``--babelstream`` names one;
5. the sorts at 2^26 keys beside np.sort and cupy.sort
   (`benchmarks/sort_vs_numpy.py`);
6. the three transfer modes for Apps_ENERGY and Stream_TRIAD;
7. two MPI ranks on the first GPU device, where ``mpirun`` is found;
8. every kernel's check on the CUDA devices under NVIDIA's compute-sanitizer,
   its racecheck (work-group memory hazards) and memcheck (accesses outside
   any allocation) tools, where it is found (on the PATH, or from the
   nvidia-cuda-sanitizer-api wheel): the CUDA counterpart of the OpenCL
   simulator's check. Its findings are in the logs, not the rows.

Logs go to ``OUT/<step>.log`` and run folders under ``OUT/runs``.

    python benchmarks/gpu_reference.py --out gpu-runs --babelstream ./cuda-stream
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

from harness import api

HERE = Path(__file__).resolve().parent


def gpu_devices() -> list[str]:
    """Every listed device whose kind says it is a GPU, as BACKEND:INDEX."""
    return [
        device["id"]
        for backend in api.devices()
        if backend["available"]
        for device in backend["devices"]
        if "gpu" in str(device["kind"]).split()
    ]


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


def step(
    out: Path, name: str, command: list[str], seconds: float, env: dict[str, str] | None = None
) -> int:
    """Run one step into OUT/NAME.log; at its time limit, SIGTERM (a harness run
    then finishes its row and writes its results), then SIGKILL 30 s later."""
    print(f"{name}: {shlex.join(command)}", flush=True)
    start = time.perf_counter()
    with (out / f"{name}.log").open("w") as log:
        child = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
        try:
            status = child.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGTERM)
            try:
                status = child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                status = child.wait()
    print(f"{name}: exit {status} after {time.perf_counter() - start:.0f} s", flush=True)
    return status


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
        "--step-seconds",
        type=float,
        default=600,
        help="time limit of each step (default 600)",
    )
    args = parser.parse_args()
    devices = args.device or gpu_devices()
    if not devices:
        print("no GPU device is listed: see 'harness devices'", file=sys.stderr)
        return 2
    out = args.out
    runs = out / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    harness = [sys.executable, "-m", "harness"]
    on = [w for d in devices for w in ("--device", d)]
    limit = args.step_seconds
    step(out, "devices", [*harness, "devices"], limit)
    step(out, "check", [*harness, "run", "--check", *on, "--out", str(runs)], limit)
    suite = ["--min-time", "0.1", "--max-time", "0.5"]
    step(out, "suite", [*harness, "run", *on, *suite, "--out", str(runs)], limit)
    first = ["--device", devices[0]]
    stream = ["-k", "Stream", "--size", str(2**25), "--reps", "100"]
    step(out, "stream", [*harness, "run", *first, *stream, "--out", str(runs)], limit)
    if args.babelstream:
        babel = [*shlex.split(args.babelstream), "--arraysize", str(2**25), "--numtimes", "100"]
        step(out, "babelstream", babel, limit)
    sort = [sys.executable, str(HERE / "sort_vs_numpy.py"), *on, "--size", str(2**26)]
    step(out, "sort", [*sort, "--launches", "1", "--reps", "3"], limit)
    transfers = ["-k", "Apps_ENERGY", "Stream_TRIAD", "--reps", "10", "--transfers"]
    modes = ["resident", "per-rep", "per-launch"]
    step(out, "transfers", [*harness, "run", *on, *transfers, *modes, "--out", str(runs)], limit)
    mpirun = shutil.which("mpirun")
    if mpirun:
        pair = ["-k", "Stream_TRIAD", "Basic_DAXPY", "--reps", "20", "--out", str(runs)]
        ranks = [mpirun, "-n", "2", *harness, "run", *first, *pair]
        # Open MPI refuses root without these; other MPIs ignore them.
        root = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
        step(out, "two_ranks", ranks, limit, env=root)
    cuda = [w for d in devices if d.startswith("cuda:") for w in ("--device", d)]
    tool = sanitizer()
    if cuda and tool:
        # In the sanitized process itself: no worker process to follow.
        check = [*harness, "run", "--check", *cuda, "--size", "1000", "--in-process"]
        for name in ("racecheck", "memcheck"):
            sanitized = [tool, "--tool", name, "--error-exitcode", "3", *check]
            step(out, f"sanitize_{name}", [*sanitized, "--out", str(runs)], limit)
    print(f"logs and run folders: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
