"""harness export --thicket: Caliper profiles that Thicket (LLNL's RAJAPerf
analysis tool) loads, every timed row of the run found in them."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import thicket
from conftest import harness, need_backend, run_folder

from harness.execution import results


def test_thicket_loads_every_timed_row(tmp_path: Path) -> None:
    need_backend("opencl")
    proc = harness(
        "run", "-k", "Stream_COPY", "Basic_DAXPY", "Bitonic_U32", "-b", "cpu", "opencl",
        "--size", "4096", "--reps", "3", "--strategy", "global", "fused", "--order", "asc",
        "desc", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(tmp_path)
    exported = harness("export", "--thicket", str(folder), "--out", str(tmp_path / "cali"))
    assert exported.returncode == 0, exported.stderr
    files = sorted(str(p) for p in (tmp_path / "cali").glob("*.cali"))
    # A profile per device and tuning, as RAJAPerf writes one per variant and tuning.
    assert [Path(f).name for f in files] == [
        f"{device}-f64-n4096-{tuning}.cali"
        for device in ("cpu_0", "opencl_0")
        for tuning in ("default", "fused_4", "global")
    ]
    tk = thicket.Thicket.from_caliperreader(files, disable_tqdm=True)
    meta = tk.metadata
    frame = tk.dataframe.reset_index()
    found = {}
    for _, row in frame.iterrows():
        if isinstance(row["name"], str) and not math.isnan(row["Avg time/rank"]):
            info = meta.loc[row["profile"]]
            found[(row["name"], info["variant"], info["tuning"])] = row
    with (folder / results.RESULTS).open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 * (2 + 2 * 2)
    for row in rows:
        name = row["kernel"] + (f"_{row['order']}_{row['dist']}" if row["order"] else "")
        tuning = "_".join(v for v in (row["strategy"], row["steps"]) if v) or "default"
        got = found[(name, row["device_id"], tuning)]
        assert math.isclose(got["Avg time/rank"], float(row["time_median_s"]), rel_tol=1e-12)
        assert (got["Reps"], got["ProblemSize"]) == (float(row["reps"]), 4096.0)
    assert set(meta["ProblemSizeRunParam"].astype(int)) == {4096}
    assert set(meta["backend"]) == {"cpu", "opencl"}
    # The region tree is RAJAPerf's: the root, then groups, then kernels.
    assert {"RAJAPerf", "Stream", "Basic", "Sort"} <= set(frame["name"].dropna())
