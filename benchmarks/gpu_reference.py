"""The reference runs of a machine with a GPU, in one command.

What `results/reference/` holds for a GPU, made in order of what matters
most, each step with a time limit (a step that runs out is stopped as Ctrl-C
stops a run: the rows it measured are kept) and all of them within
``--budget``; ``--skip`` leaves steps out by name. One at a time, so that
each has the GPU to itself:

1. ``harness devices``; where no pycuda wheel was carried (``--pycuda-wheels``)
   and a CUDA toolkit is there, pycuda built from a carried source archive by
   `scripts/build_pycuda_wheel.sh`, at low priority beside the next steps;
2. ``peak``: ``harness peak`` on each GPU device (kept in OUT/cache, so that
   the later rows are placed against it), and the FMA peak through wgpu with
   naga's runtime checks on and off (`benchmarks/fma_checks.py`);
3. ``suite``: the default suite timed on each GPU device to the end (a second
   of timed repetitions a row, the least an energy figure is given for, and at
   most 2 s), energy per repetition where NVML reads it; then, through wgpu,
   the kernels furthest from CUDA's times with naga's runtime checks on and off;
4. ``stream``: Stream at 2^25 doubles on each GPU device (wgpu with the
   checks on and off), then BabelStream's build for the first device's API
   where ``--babelstream`` names one;
5. ``chain``: what one more dependent launch costs on each GPU device
   (`benchmarks/dispatch_chain.py`: chains of 1 to 16 launches, each reading
   what the one before wrote, and the slope of their times);
6. ``sort``: the sorts at 2^26 keys on the first device and 2^22 on each,
   strategies global, local, tiled and wide at 2 and 4 steps and tiles of 32
   and 128 KiB (CUDA), beside np.sort and cupy.sort
   (`benchmarks/sort_vs_numpy.py`), and the first device's time per launch
   of the tiled and wide strategies at 2^26 (`benchmarks/launch_breakdown.py`);
7. ``check``, together, since nothing in them is timed: every kernel verified
   (``--check``) on each GPU device, one process per device and half (the
   sorts first), and every kernel's check through pycuda where it was
   installed; with ``--sanitize``, every kernel's check on the CUDA devices
   under NVIDIA's compute-sanitizer (racecheck and memcheck), found on the
   PATH or in the nvidia-cuda-sanitizer-api wheel; then Stream at 2^25
   through pycuda;
8. ``sweep``: the Stream and Apps groups (``--sweep``) on the first device at 1/8 to 16
   times their default sizes (``--size-factor``), for the report's
   saturation sizes and plot, with energy per repetition;
9. ``cache``: hot against cold cache for Stream_TRIAD inside and outside the
   first device's last-level cache (`benchmarks/cache_cold_hot.py`);
10. ``transfers``: the three transfer modes for Apps_ENERGY and Stream_TRIAD;
11. ``two_ranks``: two MPI ranks on the first GPU device, where ``mpirun`` is
    found.

Logs go to ``OUT/<step>.log`` and run folders under ``OUT/runs/<step>``.
A step left out says why in a line of its own. Exit status: 0 where every step
that ran exited 0 or was stopped at its limit; 1 where any other failed, each
named in the last line; 130 after an interrupt.

    python benchmarks/gpu_reference.py --out gpu-runs --budget 560 --skip cache transfers
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

from common import Parser, device_id, run_main
from common import command as runnable

from harness import api, suite
from harness.cli.arguments import path, seconds
from harness.execution.results import STOP_SIGNALS

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WHEELS = ROOT / "wheels"
#: The steps, in the order they run, that --skip can name.
STEPS = (
    "peak", "suite", "stream", "chain", "sort", "check", "sweep", "cache", "transfers", "two_ranks"
)  # fmt: skip
#: What the names of single steps begin with, for --skip.
STEP_PREFIXES = (
    "fma_checks_", "suite_", "stream_", "sort_", "check_", "sanitize_", "babelstream", "pycuda_",
    "dispatch_chain"
)  # fmt: skip
#: Each row's noise budgets in the suite: a second of timed repetitions, the
#: least an energy figure is given for (one suite took 53 s on an H200 at
#: --min-time 0.05, and gave energy on no row for it). --max-time is twice it:
#: a row counts at most half of --max-time towards --min-time.
BUDGETS = ["--min-time", "1", "--max-time", "2"]
#: The sweep's, shorter, so that its 8 sizes of 25 kernels fit in minutes.
SWEEP_BUDGETS = ["--min-time", "0.05", "--max-time", "0.3"]
#: The kernels whose WebGPU time was over 1.25 times CUDA's on an H200
#: (results/reference/h200-2026-11-30: the suite's rows of the same size through
#: both APIs, libraries left out; the sorts are the sort step's), furthest
#: first, Apps_INTSC_HEXHEX (sized down to different sizes there) and Stream's
#: three that ran slower through wgpu than its own peak: run again with naga's
#: checks on and off, so that each has its experiment.
WGPU_SLOWEST = [
    "Apps_MASS3DPA", "Basic_MULTI_REDUCE", "Basic_MAT_MAT_SHARED", "Lcals_PLANCKIAN",
    "Apps_NODAL_ACCUMULATION_3D", "Lcals_FIRST_MIN", "Algorithm_HISTOGRAM", "Demo_MANDELBROT",
    "Apps_EDGE3D", "Basic_DAXPY_ATOMIC", "Algorithm_REDUCE_SUM", "Algorithm_ATOMIC",
    "Basic_REDUCE3_INT", "Polybench_GEMM", "Apps_MASS3DPA_ATOMIC", "Comm_HALO_PACKING",
    "Demo_VADD", "Basic_INDEXLIST", "Algorithm_SORT", "Apps_MASS3DEA", "Basic_TRAP_INT",
    "Polybench_ATAX", "Basic_REDUCE_STRUCT", "Stream_DOT", "Basic_INDEXLIST_3LOOP",
    "Basic_PI_ATOMIC", "Algorithm_SCAN", "Apps_MASSVEC3DPA", "Demo_SGEMV",
    "Comm_HALO_PACKING_FUSED", "Polybench_HEAT_3D", "Apps_CONVECTION3DPA", "Polybench_MVT",
    "Basic_PI_REDUCE", "Lcals_HYDRO_2D", "Basic_INIT3", "Apps_INTSC_HEXRECT",
    "Basic_NESTED_INIT", "Polybench_2MM", "Lcals_HYDRO_1D", "Apps_FIR",
    "Polybench_FLOYD_WARSHALL", "Polybench_JACOBI_2D", "Apps_FEMSWEEP", "Polybench_3MM",
    "Lcals_GEN_LIN_RECUR", "Apps_DIFFUSION3DPA", "Basic_IF_QUAD", "Basic_INIT_VIEW1D_OFFSET",
    "Basic_INIT_VIEW1D", "Lcals_TRIDIAG_ELIM", "Apps_INTSC_HEXHEX", "Stream_MUL", "Stream_ADD",
    "Stream_TRIAD",
]  # fmt: skip


def gpu_devices() -> list[str]:
    """Each backend's first GPU device among its defaults, as BACKEND:INDEX: one
    GPU, once per API (wgpu can also list a GPU it finds by Vulkan through OpenGL);
    on a machine of several GPUs, name them with --device. Each API that gives no
    GPU is named with its reason: on an H200 wgpu found no adapter where NVIDIA's
    Vulkan driver lacked libglvnd, and a call ran CUDA's steps alone, unsaid."""
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
        elif backend["backend"] != "cpu":
            why = backend["reason"] if not backend["available"] else "it lists no GPU device"
            print(f"{backend['backend']}: no GPU, its steps are left out: {why}", flush=True)
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
    budget; at a limit, `_stop`. An interrupt (SIGINT, SIGTERM) is passed on to
    the steps running, each in a session of its own that a terminal's Ctrl-C does
    not reach (a harness run finishes its row and keeps its rows; a second one
    stops it at once), and no step starts after it."""

    def __init__(
        self, out: Path, step_seconds: float, budget: float | None, skip: set[str]
    ) -> None:
        self.out, self.step_seconds, self.skip = out, step_seconds, skip
        self.deadline = time.monotonic() + budget if budget else None
        self.running: list[subprocess.Popen] = []
        #: The interrupts received, in order.
        self.signals: list[int] = []
        #: Each step that failed (not stopped at its limit), with its exit status.
        self.failed: dict[str, int] = {}
        #: The single steps --skip named that came to be left out.
        self.matched: set[str] = set()
        for signum in STOP_SIGNALS:
            signal.signal(signum, self._interrupt)

    def _interrupt(self, signum: int, _frame: object) -> None:
        """Pass an interrupt on to the running steps; `status` says it came."""
        if not self.signals:
            # Not print(): the handler may interrupt one, which would then raise.
            os.write(2, b"interrupt: the running steps finish their row; no step starts\n")
        self.signals.append(signum)
        for child in self.running:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signum)

    def status(self) -> int:
        """The script's exit status: 0 where no step failed, else 1, each failed
        step named in one line; after an interrupt 130, or 143 after a second
        SIGTERM, as a harness run's."""
        if self.failed:
            named = ", ".join(f"{name} (exit {status})" for name, status in self.failed.items())
            print(f"failed: {named}", flush=True)
        if not self.signals:
            # A step's name misspelt (suite_cpu9 for suite_cuda0) left nothing out, unsaid.
            for name in sorted(self.skip - set(STEPS) - self.matched):
                print(
                    f"note: --skip {name}: no step of that name was to run here, so it left "
                    "nothing out",
                    file=sys.stderr,
                )
            return 1 if self.failed else 0
        return 143 if self.signals.count(signal.SIGTERM) > 1 else 130

    def _started(self, child: subprocess.Popen, seen: int) -> None:
        """Count a step just started among the running ones, and pass on to it each
        interrupt since the ``seen`` first: one that came while it started, before
        the handler knew it, left it running to its limit."""
        held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            self.running.append(child)
            for signum in self.signals[seen:]:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(child.pid, signum)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def _skipped(self, name: str) -> bool:
        """Whether a step is left out: by --skip, or after an interrupt."""
        if name in self.skip:
            self.matched.add(name)
        if name in self.skip or self.signals:
            why = "--skip" if name in self.skip else "interrupted"
            print(f"{name}: skipped ({why})", flush=True)
            return True
        return False

    def limit(self, seconds: float | None = None) -> float:
        """Seconds the next step may take: its own limit, cut to what the budget leaves."""
        seconds = self.step_seconds if seconds is None else seconds
        if self.deadline is None:
            return seconds
        return max(0.0, min(seconds, self.deadline - time.monotonic() - 30))

    def start(self, name: str, command: list[str]) -> subprocess.Popen | None:
        """A step that runs beside the others (it times nothing), into OUT/NAME.log."""
        seen = len(self.signals)
        if self._skipped(name):
            return None
        print(f"{name}: {shlex.join(command)} (in the background)", flush=True)
        with (self.out / f"{name}.log").open("w") as log:
            child = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self._started(child, seen)
        return child

    def finish(self, name: str, child: subprocess.Popen, seconds: float) -> int:
        """Wait for a step `start` began, at most ``seconds`` within the budget."""
        try:
            status = child.wait(timeout=self.limit(seconds))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            status = child.wait()
        self.running.remove(child)
        if status:
            self.failed[name] = status
        print(f"{name}: exit {status}", flush=True)
        return status

    def run(
        self,
        name: str,
        command: list[str],
        env: dict[str, str] | None = None,
        seconds: float | None = None,
    ) -> None:
        """One step (``seconds`` in place of the steps' own limit, within the budget)."""
        self.together([(name, command, env)], seconds)

    def together(
        self,
        steps: list[tuple[str, list[str], dict[str, str] | None]],
        seconds: float | None = None,
    ) -> None:
        """Several steps at once, under one limit (``seconds`` in place of the
        steps' own, within the budget): for steps that time nothing."""
        seen = len(self.signals)
        steps = [step for step in steps if not self._skipped(step[0])]
        if not steps:
            return
        seconds = self.limit(seconds)
        if seconds < 5:
            spent = self.deadline is not None and self.deadline - time.monotonic() - 30 < 5
            why = "the budget is spent" if spent else f"its limit of {seconds:g} s is under 5 s"
            for name, _, _ in steps:
                print(f"{name}: skipped, {why}", flush=True)
            return
        start = time.monotonic()
        children = {}
        for name, command, env in steps:
            print(f"{name}: {shlex.join(command)}", flush=True)
            # A program that cannot start (a sanitizer without its execute bit) fails
            # its step alone: it ended the script in a traceback, the other steps lost.
            with (self.out / f"{name}.log").open("w") as log:
                try:
                    children[name] = subprocess.Popen(
                        command,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        env={**os.environ, **(env or {})},
                        start_new_session=True,
                    )
                except OSError as exc:
                    print(f"{name}: cannot start {command[0]}: {exc.strerror}", flush=True)
                    self.failed[name] = 127
                    continue
            self._started(children[name], seen)
        for name, child in children.items():
            stopped = ""
            try:
                status = child.wait(timeout=max(0.0, start + seconds - time.monotonic()))
            except subprocess.TimeoutExpired:
                status = _stop(child)
                stopped = f" (stopped at its limit of {seconds:g} s)"
            # What the step started and left behind (a script's harness run) must
            # not hold the GPU during the next step.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            self.running.remove(child)
            if status and not stopped and not self.signals:
                self.failed[name] = status
            took = time.monotonic() - start
            print(f"{name}: exit {status} after {took:.0f} s{stopped}", flush=True)


def _stop(child: subprocess.Popen) -> int:
    """Stop a step at its limit as a user would: SIGTERM (a harness run finishes
    the row it is in and writes its results), a second SIGTERM 10 s later (it
    stops now, keeping the rows it finished: a row can take longer than any
    wait, such as a sweep's largest reference outputs made on the host), then
    SIGKILL 20 s after that; its exit status."""
    for wait in (10, 20):
        child.send_signal(signal.SIGTERM)
        try:
            return child.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    child.kill()
    return child.wait()


def pycuda_install(out: Path, wheels: Path) -> list[str] | None:
    """A shell command that installs pycuda into OUT/pycuda: a carried wheel, else
    one built by scripts/build_pycuda_wheel.sh from its source archive, offline,
    against the CUDA toolkit's headers, with a quarter of the cores and at low
    priority (it runs beside the timed steps); None where neither a wheel nor a
    toolkit's cuda.h is found."""
    carried = sorted(wheels.glob("pycuda-*.whl"))
    build = ""
    if not carried:
        nvcc = shutil.which("nvcc")
        toolkits = [Path(nvcc).resolve().parent.parent] if nvcc else []
        found = [t / "include" for t in (*toolkits, Path("/usr/local/cuda"))]
        found = [f for f in found if (f / "cuda.h").is_file()]
        if not found:
            return None
        # Offline: nothing downloaded, setuptools and numpy's headers from this
        # environment; the build's log in the step's own where it fails.
        log = shlex.quote(str(ROOT / "build" / "pycuda-wheel" / "build.log"))
        jobs = max(1, (os.cpu_count() or 4) // 4)
        build = (
            f"PYTHON={shlex.quote(sys.executable)} CUDA_INC_DIR={shlex.quote(str(found[0]))} "
            f"OFFLINE=1 JOBS={jobs} nice -n 19 "
            f"bash {shlex.quote(str(ROOT / 'scripts' / 'build_pycuda_wheel.sh'))} "
            f"|| {{ tail -n 60 {log} 2>/dev/null; exit 1; }}; "
        )
    # Its dependencies (pytools, platformdirs, mako, numpy) are this environment's.
    install = [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--upgrade"]
    install += ["--target", str((out / "pycuda").resolve())]
    # The build script leaves its wheel in the repository's wheels/.
    found = wheels if carried else WHEELS
    wheel = f"$(ls {shlex.quote(str(found))}/pycuda-*.whl | tail -n 1)"
    return ["bash", "-c", f"{build}{shlex.join(install)} {wheel}"]


def _wheels(text: str) -> Path:
    """A --pycuda-wheels value (an argparse type): a folder there is. A file, or a
    folder missing, was found after the timed steps, as the pycuda step failed."""
    given = path(text)
    if not given.is_dir():
        what = "not a folder" if given.exists() else "no such folder"
        raise argparse.ArgumentTypeError(
            f"{text!r}: {what}; give the folder holding a pycuda wheel, or leave the option "
            "out to build one"
        )
    return given


def main() -> int:
    parser = Parser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=path, required=True, help="folder for logs and runs")
    parser.add_argument(
        "--device",
        action="append",
        type=device_id,
        default=[],
        help="a device to use, BACKEND:INDEX (repeatable; default: every GPU device listed)",
    )
    parser.add_argument(
        "--babelstream",
        type=runnable,
        help="command that runs BabelStream for the first device's API",
    )
    parser.add_argument(
        "--pycuda-wheels",
        type=_wheels,
        default=WHEELS,
        help="folder of a pycuda wheel from scripts/build_pycuda_wheel.sh (default: the "
        "repository's wheels/; without one, it is built there from the source archive "
        "the script finds under build/pycuda-wheel/, against the CUDA toolkit's headers)",
    )
    parser.add_argument(
        "--step-seconds",
        type=seconds,
        default=600,
        help="time limit of each step (default 600)",
    )
    parser.add_argument(
        "--check-seconds",
        type=seconds,
        default=600,
        help="time limit of the checks and sanitizer runs, which run together (default 600)",
    )
    parser.add_argument(
        "--budget",
        type=seconds,
        help="time limit of all the steps together, in seconds; the steps it leaves no "
        "time for are skipped (default: none)",
    )
    parser.add_argument(
        "--skip",
        nargs="+",
        default=[],
        metavar="STEP",
        help=f"steps to leave out: a group of them ({', '.join(STEPS)}) or one step by "
        "the name its log has (suite_checks_wgpu0, sort_launches, check_pycuda, ...)",
    )
    parser.add_argument(
        "--sweep",
        nargs="+",
        default=["Stream", "Apps"],
        metavar="SEL",
        help="kernels of the sweep, selected as run's -k selects (default: Stream Apps; "
        "Apps_INTSC_HEXHEX is always left out), so that a later call can sweep the "
        "kernels an earlier one had no time for",
    )
    parser.add_argument(
        "--sanitize",
        action="store_true",
        help="also check every kernel under compute-sanitizer's racecheck and memcheck",
    )
    args = parser.parse_args()
    for name in args.skip:
        if name not in STEPS and not name.startswith(STEP_PREFIXES):
            parser.error(f"--skip {name!r}: give a group ({', '.join(STEPS)}) or a step's name")
    try:
        # Passed on unchecked, a kernel no selection names failed the sweep's step, last.
        suite.select(args.sweep)
    except suite.SelectionError as exc:
        parser.error(f"--sweep {' '.join(args.sweep)}: {exc}")
    # A device named unchecked (nope:7) ran every step, each refusing it; one given
    # twice ran its steps twice.
    devices = list(dict.fromkeys(args.device)) or gpu_devices()
    if not devices:
        print("no GPU device is listed: see 'harness devices'", file=sys.stderr)
        return 2
    out = args.out
    runs = out / "runs"
    try:
        runs.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        # A file where the folder goes, or one this user cannot write: a traceback.
        parser.error(f"--out {str(out)!r}: cannot make {runs} there ({exc.strerror})")
    # The peaks measured here, where this run's later steps find them.
    os.environ["XDG_CACHE_HOME"] = str((out / "cache").resolve())
    steps = Steps(out, args.step_seconds, args.budget, set(args.skip))
    for group in STEPS:
        if group in args.skip:
            print(f"{group}: skipped (--skip)", flush=True)
    harness = [sys.executable, "-m", "harness"]
    script = [sys.executable, "-u"]
    wanted = set(STEPS) - set(args.skip)

    def into(name: str) -> list[str]:
        return ["--out", str(runs / name)]

    def flat(device: str) -> str:
        return device.replace(":", "")

    steps.run("devices", [*harness, "devices"])
    on = [w for d in devices for w in ("--device", d)]
    first = ["--device", devices[0]]
    wgpus = [d for d in devices if d.startswith("wgpu:")]
    cuda = [w for d in devices if d.startswith("cuda:") for w in ("--device", d)]
    # pycuda, built beside the timed steps where no wheel was carried.
    building = None
    if cuda:
        install = pycuda_install(out, args.pycuda_wheels)
        if install:
            building = steps.start("pycuda_install", install)
        else:
            print("pycuda: skipped, no wheel and no CUDA toolkit's cuda.h", flush=True)
    if "peak" in wanted:
        # The peaks first, so that the suite's rows are placed against them.
        # 50 s held CUDA's peak and not WebGPU's on an H200.
        steps.run("peak", [*harness, "peak", *on, "--span", "1", "--max-time", "1"], seconds=90)
        for d in wgpus:
            fma = [*script, str(HERE / "fma_checks.py"), "--device", d, "--rounds", "1"]
            steps.run(f"fma_checks_{flat(d)}", [*fma, "--max-time", "0.3"], seconds=25)
    if "suite" in wanted:
        # What a GPU user runs first: the whole suite timed on each device; then,
        # through wgpu, the kernels furthest from CUDA again without naga's checks.
        for d in devices:
            command = [*harness, "run", "--device", d, *BUDGETS, *into("suite")]
            steps.run(f"suite_{flat(d)}", command, seconds=240)
        for d in wgpus:
            off = ["--wgsl-checks", "on", "off", "-k", *WGPU_SLOWEST]
            command = [*harness, "run", "--device", d, *SWEEP_BUDGETS, *off]
            command += into("suite_checks")
            steps.run(f"suite_checks_{flat(d)}", command, seconds=120)
    stream = ["-k", "Stream", "--size", str(2**25), "--reps", "100"]
    if "stream" in wanted:
        for d in devices:
            both = ["--wgsl-checks", "on", "off"] if d.startswith("wgpu:") else []
            command = [*harness, "run", "--device", d, *stream, *both, *into("stream")]
            steps.run(f"stream_{flat(d)}", command, seconds=35 if both else 25)
        if args.babelstream:
            babel = [*shlex.split(args.babelstream), "--arraysize", str(2**25)]
            steps.run("babelstream", [*babel, "--numtimes", "100"], seconds=30)
    if "chain" in wanted:
        # What a dependent launch costs through each API: most kernels far above
        # CUDA's time through wgpu make two launches or more a repetition.
        chain = [*script, str(HERE / "dispatch_chain.py"), *on, "--launches", "3"]
        steps.run("dispatch_chain", chain, seconds=45)
    if "sort" in wanted:
        sort = [*script, str(HERE / "sort_vs_numpy.py"), "--steps", "2", "4"]
        sort += ["--strategy", "global", "local", "tiled", "wide", "--launches", "1"]
        # 128 KiB tiles on CUDA (dynamic shared memory); a device with less skips them.
        sort += ["--tile_bytes", "32768", "131072", "--reps", "3"]
        # WebGPU's tile strategies lost to its global one on an H200: the checks?
        sort += ["--wgsl-checks", "on", "off"]
        # 2^26 keys on the first device alone (the rows take seconds each to make
        # and verify), 2^22 on every one.
        steps.run("sort_2e26", [*sort, *first, "--size", str(2**26)], seconds=75)
        steps.run("sort_2e22", [*sort, *on, "--size", str(2**22)], seconds=35)
        # Where the fastest GPU sorts' time goes, launch by launch, at 2^26 keys.
        breakdown = [*script, str(HERE / "launch_breakdown.py"), "-k", "Bitonic_U32"]
        configs = [f"strategy={s},tile_bytes=32768" for s in ("tiled", "wide")]
        backend = devices[0].partition(":")[0]
        if backend == "cuda":
            configs += ["strategy=wide,tile_bytes=131072"]
        each = [w for c in configs for w in ("--param", c)]
        launches = [*breakdown, "-b", backend, "--size", str(2**26), "--each", *each]
        steps.run("sort_launches", launches, seconds=40)
    if "check" in wanted:
        # The sorts' checks on each device (the strategies changed most since the
        # last reference), the rest where --check-seconds allows, and every kernel
        # through pycuda, together: the host, not the GPU, sets a check's pace.
        groups = sorted({spec.group for spec in suite.select()} - {"Sort"})
        halves = {"sort": ["Sort"], "rest": groups}
        untimed = [
            (
                f"check_{flat(d)}_{half}",
                [*harness, "run", "--check", "--device", d, "-k", *kernels, *into("check")],
                None,
            )
            for d in devices
            for half, kernels in halves.items()
        ]
        if building is not None:
            steps.finish("pycuda_install", building, seconds=120)
            building = None
        pycuda_env = None
        if not cuda:
            print("check_pycuda: skipped, no CUDA device", flush=True)
        elif not (out / "pycuda" / "pycuda").is_dir():
            print(f"check_pycuda: skipped, no pycuda installed in {out / 'pycuda'}", flush=True)
        else:
            pythonpath = os.pathsep.join(
                p for p in (str((out / "pycuda").resolve()), os.environ.get("PYTHONPATH")) if p
            )
            pycuda_env = {"PYTHONPATH": pythonpath, "HARNESS_CUDA_BINDING": "pycuda"}
            check = [*harness, "run", "--check", *cuda, *into("check_pycuda")]
            untimed.append(("check_pycuda", check, pycuda_env))
        tool = sanitizer() if args.sanitize and cuda else None
        if args.sanitize and not tool:
            why = "no CUDA device" if not cuda else "no compute-sanitizer found"
            print(f"sanitize: skipped, {why}", flush=True)
        if tool:
            # In the sanitized process itself: no worker process to follow.
            check = [*harness, "run", "--check", *cuda, "--size", "1000", "--in-process"]
            for name in ("racecheck", "memcheck"):
                for half, kernels in halves.items():
                    sanitized = [tool, "--tool", name, "--error-exitcode", "3", *check]
                    sanitized += ["-k", *kernels, *into(name)]
                    untimed.append((f"sanitize_{name}_{half}", sanitized, None))
        steps.together(untimed, seconds=args.check_seconds)
        if pycuda_env and devices[0].startswith("cuda:"):
            # The Stream rows through the other binding, timed after cuda-python's.
            pycuda_stream = [*harness, "run", *first, *stream, *into("stream_pycuda")]
            steps.run("stream_pycuda", pycuda_stream, env=pycuda_env, seconds=25)
    if "sweep" in wanted:
        # Stream first: its rows are the cheapest to prepare at 16 times their size.
        # Apps_INTSC_HEXHEX's reference outputs take the host about 20 s at its
        # default size and minutes past it (the sweep of 2026-11-30 stopped there).
        factors = ["--size-factor", "0.125", "0.25", "0.5", "1", "2", "4", "8", "16"]
        sweep = ["-k", *args.sweep, "-x", "Apps_INTSC_HEXHEX", *factors]
        sweep += [*SWEEP_BUDGETS, *into("sweep")]
        steps.run("sweep", [*harness, "run", *first, *sweep])
    if "cache" in wanted:
        cache = [*script, str(HERE / "cache_cold_hot.py"), *first, "--launches", "1"]
        steps.run("cache", cache, seconds=60)
    if "transfers" in wanted:
        transfers = ["-k", "Apps_ENERGY", "Stream_TRIAD", "--reps", "10", "--transfers"]
        modes = ["resident", "per-rep", "per-launch"]
        command = [*harness, "run", *on, *transfers, *modes, *into("transfers")]
        steps.run("transfers", command, seconds=60)
    mpirun = shutil.which("mpirun")
    if "two_ranks" in wanted and not mpirun:
        print("two_ranks: skipped, no mpirun on the PATH", flush=True)
    elif "two_ranks" in wanted:
        pair = ["-k", "Stream_TRIAD", "Basic_DAXPY", "--reps", "20", *into("two_ranks")]
        ranks = [mpirun, "-n", "2", *harness, "run", *first, *pair]
        # Open MPI refuses root without these; other MPIs ignore them.
        root = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
        steps.run("two_ranks", ranks, env=root, seconds=60)
    if building is not None:
        steps.finish("pycuda_install", building, seconds=120)
    print(f"logs and run folders: {out}")
    return steps.status()


if __name__ == "__main__":
    run_main(main)
