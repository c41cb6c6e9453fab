"""Hostile probes, round 18: the time plot's panels per precision, vendor
libraries in the cross-API table, energy figures' shortest windows and the
notes on clocks below their device's highest."""

from __future__ import annotations

from pathlib import Path

from conftest import harness, need_backend, run_folder

from harness.execution import results
from harness.reporting import portability


def _md_table(text: str, title: str) -> list[dict[str, str]]:
    """The rows of the markdown table under the heading ``title``."""
    block = text.split(f"## {title}\n", 1)[1].strip().split("\n\n", 1)[0]
    lines = [line.strip("|").split(" | ") for line in block.splitlines()]
    header = [c.strip() for c in lines[0]]
    return [dict(zip(header, (c.strip() for c in line), strict=True)) for line in lines[2:]]


def test_the_host_sort_is_not_set_beside_an_api_s_kernel_across_apis(tmp_path: Path) -> None:
    """The numpy backend sorts with np.sort (a sort's ``strategy`` library) and
    PoCL with a bitonic kernel: across APIs np.sort is a kernel of its own, as
    cuBLAS is, not 'cpu' beside 'opencl' for the same sort."""
    need_backend("opencl")
    out = tmp_path / "runs"
    proc = harness(
        "run", "-b", "cpu", "opencl", "-k", "Bitonic_F32", "--size", "4096", "--reps", "3",
        "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = run_folder(out)
    rows = {r["backend"]: r for r in results.read_journal(folder)}
    assert rows["cpu"]["strategy"] == "library" and rows["opencl"]["strategy"] != "library"
    proc = harness("report", str(folder), "--out", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    title = next(line[3:] for line in text.splitlines() if line.startswith("## Across APIs"))
    table = {line["Kernel"]: line for line in _md_table(text, title)}
    library = f"Bitonic_F32{portability.LIBRARY} (asc, uniform)"
    assert table[library]["cpu"] == "1.00\N{MULTIPLICATION SIGN}"
    assert table[library]["opencl"] == "-"
    assert table["Bitonic_F32 (asc, uniform)"]["cpu"] == "-"
    assert table["Bitonic_F32 (asc, uniform)"]["opencl"] == "1.00\N{MULTIPLICATION SIGN}"
