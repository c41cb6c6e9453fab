"""Demo_MANDELBROT as a demo: FLOPs counted from its escape iterations, and each
device's image with its difference from the reference saved in the run folder."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from conftest import harness, need_backend, run_folder
from matplotlib import image

from harness.execution import results
from harness.suite import demo


def _flops_by_hand(side: int) -> int:
    """The kernel's loop, one pixel at a time, counting each multiply and add."""
    x0, y0, width = demo.MANDELBROT_VIEW
    step = width / side
    flops = 0
    for i in range(side * side):
        cx, cy = x0 + step * (i % side), y0 + step * (i // side)
        flops += 4
        x = y = 0.0
        for _ in range(demo.MANDELBROT_ITERATIONS):
            xx, yy = x * x, y * y
            flops += 3
            if xx + yy > 4:
                break
            y, x = 2 * x * y + cy, xx - yy + cx
            flops += 5
    return flops


def test_flops_are_counted_from_the_escape_iterations() -> None:
    assert demo.mandelbrot_flops(24 * 24) == _flops_by_hand(24)
    # A pixel inside the set costs the whole 256 iterations: far from 0.
    assert demo.mandelbrot_flops(64 * 64) > 64 * 64 * 8 * 10


def test_flops_past_the_counted_image_scale_its_pixels() -> None:
    # A terapixel image's FLOPs come at once, from the counted image's: no size
    # asks the host for its reference (that one asked for 7 TiB and crashed).
    side = demo.COUNTED_SIDE
    counted = demo.mandelbrot_flops(side * side)
    assert demo.mandelbrot_flops(4 * side * side) == 4 * counted
    assert demo.mandelbrot_flops(10**12) == round(counted * 10**12 / (side * side))


def test_each_device_image_and_its_difference_are_saved(tmp_path: Path) -> None:
    for backend in ("cpu", "opencl"):
        need_backend(backend)
    proc = harness(
        "run", "-k", "Demo_MANDELBROT", "-b", "cpu", "opencl", "--size", "4096", "--reps", "2",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    with (folder / results.RESULTS).open() as f:
        rows = {r["backend"]: r for r in csv.DictReader(f)}
    for backend, row in rows.items():
        assert row["status"] == "ok", row["reason"]
        assert float(row["gflops_per_s"]) > 0
        assert int(row["flops_per_rep"]) == demo.mandelbrot_flops(4096)
        picture = image.imread(folder / results.IMAGES / row["image"])
        diff = image.imread(folder / results.IMAGES / row["image"].replace(".png", "-diff.png"))
        assert picture.shape[:2] == diff.shape[:2] == (64, 64), backend
        # Escape counts vary over the picture; the difference is (nearly) blank.
        assert np.ptp(picture[..., :3]) > 0.5
        colours, counts = np.unique(diff[..., :3].reshape(-1, 3), axis=0, return_counts=True)
        assert tuple(colours[np.argmax(counts)]) == tuple(diff[0, 0, :3])
        assert 1 - counts.max() / counts.sum() <= demo.MANDELBROT_DIFFERING
