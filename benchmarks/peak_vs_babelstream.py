"""`harness peak`'s bandwidth beside BabelStream's best Copy and Triad on one
OpenCL device, in alternating process launches.

BabelStream is not part of this project: build its OpenCL model yourself and
pass the command that runs it (a binary, or a script that sets the OpenCL
loader's environment). Each launch runs `harness peak --device DEVICE --json`
(into a scratch peaks store), then BabelStream at the array length the
harness measured at; the table gives each figure's median over launches, the
harness's over BabelStream's, and the median of each launch's own ratio.

    python benchmarks/peak_vs_babelstream.py --babelstream ./ocl-stream --launches 3
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

from common import Parser, command, device_id, run, run_main
from stream_vs_babelstream import babelstream

from harness.cli.arguments import positive_int


def harness_peak(device: str) -> dict:
    """One `harness peak` of a device, in a fresh process and a scratch store."""
    with tempfile.TemporaryDirectory(prefix="harness-peaks-") as scratch:
        env = {**os.environ, "HARNESS_PEAKS": os.path.join(scratch, "peaks.json")}
        env.setdefault("XDG_RUNTIME_DIR", tempfile.gettempdir())
        # --force: a peak measured under load is still the figure this launch had
        # (the scratch store keeps it flagged); without it, harness peak exits 1
        # and the script ended in a traceback on any busy machine.
        done = run(
            [sys.executable, "-m", "harness", "peak", "--device", device, "--json", "--force"],
            check=False,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
    if done.returncode != 0 or "[" not in done.stdout:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        print(last, file=sys.stderr)
        raise SystemExit(2 if done.returncode == 2 else 1)
    return json.loads(done.stdout[done.stdout.index("[") :])[0]


def main() -> None:
    """Run the launches and print the table."""
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--babelstream", type=command, required=True, help="command that runs ocl-stream"
    )
    parser.add_argument(
        "--device", type=device_id, default="opencl:0", help="harness device (opencl:0)"
    )
    parser.add_argument(
        "--launches", type=positive_int, default=3, help="launches of each (default 3)"
    )
    args = parser.parse_args()
    figures: dict[str, list[float]] = {k: [] for k in ("copy", "triad", "bs copy", "bs triad")}
    for launch in range(args.launches):
        peak = harness_peak(args.device)
        figures["copy"].append(peak["copy_gbytes_per_s"])
        figures["triad"].append(peak["triad_gbytes_per_s"])
        theirs = babelstream(args.babelstream, peak["copy_size"], 100)
        figures["bs copy"].append(theirs["Copy"][1])
        figures["bs triad"].append(theirs["Triad"][1])
        print(
            f"launch {launch + 1} of {args.launches} (arrays of {peak['copy_size']}): "
            + ", ".join(f"{k} {v[-1]:.1f}" for k, v in figures.items())
            + " GB/s",
            flush=True,
        )
    figures["best"] = [max(c, t) for c, t in zip(figures["copy"], figures["triad"], strict=True)]
    figures["bs best"] = [
        max(c, t) for c, t in zip(figures["bs copy"], figures["bs triad"], strict=True)
    ]
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(f"\n{'':8}{'harness peak':>14}{'BabelStream best':>18}{'ratio':>8}{'paired':>8}")
    for kind in ("copy", "triad", "best"):
        ours, theirs = med[kind], med[f"bs {kind}"]
        pairs = [o / t for o, t in zip(figures[kind], figures[f"bs {kind}"], strict=True)]
        paired = statistics.median(pairs)
        print(f"{kind:8}{ours:11.2f} GB/s{theirs:15.2f} GB/s{ours / theirs:8.3f}{paired:8.3f}")
    print(
        "\nratio: of the medians over launches; paired: the median over launches of each "
        "launch's ratio, which a machine whose bandwidth changes between launches moves less"
    )


if __name__ == "__main__":
    run_main(main)
