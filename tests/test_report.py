"""Reports of real runs: the DataFrame loader, Markdown, RAJAPerf-format files, HTML in Chromium."""

from __future__ import annotations

import base64
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, harness, need_backend, required, run_folder

pd = pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

from matplotlib import image  # noqa: E402

import harness as harness_package  # noqa: E402
from harness.cli import main  # noqa: E402
from harness.execution import results  # noqa: E402
from harness.reporting import frames, plot  # noqa: E402
from harness.reporting.report import speedup_text  # noqa: E402

KERNELS = ("Stream_COPY", "Stream_TRIAD", "Stream_DOT", "Basic_DAXPY")


def _run(out: Path, *args: str) -> Path:
    proc = harness("run", *args, "-b", "cpu", "opencl", "--out", str(out))
    assert proc.returncode in (0, 1), proc.stderr
    return run_folder(out)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A timed run, a run with a failing OpenCL kernel and a check-only run."""
    need_backend("opencl")
    base = tmp_path_factory.mktemp("runs")
    timed = ("--size", "20000", "--reps", "5")
    return {
        "timed": _run(base / "timed", "-k", *KERNELS, *timed),
        "failing": _run(
            base / "failing",
            "-k",
            "Stream_TRIAD",
            *timed,
            "--sources",
            str(FIXTURES / "wrong_triad"),
        ),
        "check": _run(base / "check", "-k", "Stream_TRIAD", "Basic_DAXPY", "--check"),
    }


def _csv_rows(run: Path) -> list[dict[str, str]]:
    with (run / results.RESULTS).open() as f:
        return list(csv.DictReader(f))


def _md_table(text: str, title: str) -> list[dict[str, str]]:
    """The rows of the Markdown table under ``## title``, as dicts."""
    block = text.split(f"## {title}\n", 1)[1].strip().split("\n\n", 1)[0]
    lines = [line.strip("|").split(" | ") for line in block.splitlines()]
    header = [c.strip() for c in lines[0]]
    return [dict(zip(header, (c.strip() for c in line), strict=True)) for line in lines[2:]]


def test_import_harness_stays_light() -> None:
    code = "import harness, sys; print('pandas' in sys.modules, 'matplotlib' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.split() == ["False", "False"]


def test_load_returns_the_rows_as_a_dataframe(runs: dict[str, Path]) -> None:
    frame = harness_package.load(runs["timed"])
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == 2 * len(KERNELS)
    assert list(frame.columns[: len(results.COLUMNS)]) == list(results.COLUMNS)
    assert set(frame["kernel"]) == set(KERNELS)
    assert set(frame["device_id"]) == {"cpu:0", "opencl:0"}
    assert (frame["time_median_s"] > 0).all() and frame["time_median_s"].dtype == float
    rows = {(r["kernel"], r["device_id"]): r for r in _csv_rows(runs["timed"])}
    for _, row in frame.iterrows():
        median = float(rows[(row["kernel"], row["device_id"])]["time_median_s"])
        assert row["time_median_s"] == pytest.approx(median)
    assert (frame["run"] == runs["timed"].name).all()


def test_load_keeps_an_interrupted_runs_rows(runs: dict[str, Path], tmp_path: Path) -> None:
    copy = tmp_path / "interrupted"
    shutil.copytree(runs["timed"], copy)
    (copy / results.RESULTS).unlink()
    journal = (copy / results.JOURNAL).read_text().splitlines()
    (copy / results.JOURNAL).write_text("\n".join(journal[:3]) + "\n" + journal[3][:40])
    meta = json.loads((copy / results.METADATA).read_text())
    meta.update(end=None, interrupted=True)
    (copy / results.METADATA).write_text(json.dumps(meta))
    assert len(harness_package.load(copy)) == 3
    proc = harness("report", str(copy))
    assert proc.returncode == 0, proc.stderr
    text = (copy / "report" / "report.md").read_text()
    assert "interrupted; 3 rows were kept" in text
    assert "torn or corrupt line" in proc.stderr


def test_markdown_report_has_every_row_with_speedup(runs: dict[str, Path]) -> None:
    run = runs["timed"]
    proc = harness("report", str(run))
    assert proc.returncode == 0, proc.stderr
    report = run / "report" / "report.md"
    assert str(report) in proc.stdout
    text = report.read_text()
    table = _md_table(text, "Results")
    assert len(table) == 2 * len(KERNELS)
    medians = {(r["kernel"], r["device_id"]): float(r["time_median_s"]) for r in _csv_rows(run)}
    # Both devices are CPUs (numpy, PoCL): each kernel's speedups are over the faster.
    speedup_column = "Speedup vs fastest CPU"
    for row in table:
        assert row["Status"] == "ok"
        device_id = row["Device"].split()[0]
        fastest = min(medians[(row["Kernel"], d)] for d in ("cpu:0", "opencl:0"))
        expected = fastest / medians[(row["Kernel"], device_id)]
        assert row[speedup_column] == speedup_text(expected)
        assert float(row["GB/s"]) > 0
    meta = json.loads((run / results.METADATA).read_text())
    devices = _md_table(text, "Devices")
    assert {d["Name"] for d in devices} == {d["name"] for d in meta["devices"]}
    software = {r["Library"]: r[run.name] for r in _md_table(text, "Software")}
    assert software["numpy"] == meta["libraries"]["numpy"]
    assert software["pyopencl"] == meta["libraries"]["pyopencl"]


def _read_rajaperf_matrix(path: Path) -> pd.DataFrame:
    """How a RAJAPerf user reads a timing or speedup file: Variant and Tuning header rows."""
    return pd.read_csv(
        path, sep=r"\s*,\s*", engine="python", skiprows=1, header=[0, 1], index_col=0
    )


def test_rajaperf_files_have_rajaperfs_layout_and_our_numbers(runs: dict[str, Path]) -> None:
    run = runs["timed"]
    # RAJAPerf's speedup file has one reference variant: a device, not a kernel's fastest.
    assert harness("report", str(run), "--baseline", "cpu").returncode == 0
    out = run / "report"
    rows = {(r["kernel"], r["device_id"]): r for r in _csv_rows(run)}

    timing_path = out / "RAJAPerf-timing-Average.csv"
    assert timing_path.read_text().startswith("Mean Runtime Report (sec.)  , ")
    timing = _read_rajaperf_matrix(timing_path)
    assert list(timing.columns) == [("cpu:0", "default"), ("opencl:0", "default")]
    assert list(timing.index.str.strip()) == list(KERNELS)
    details = pd.read_csv(
        out / "RAJAPerf-kernel-details.csv", sep=r"\s*,\s*", engine="python", skiprows=1
    )
    details.columns = details.columns.str.strip()
    assert list(details.columns[:6]) == [
        "Kernel",
        "Problem size",
        "Reps",
        "Iterations/rep",
        "Kernels/rep",
        "BytesMoved/rep",
    ]
    reps = dict(zip(details["Kernel"].str.strip(), details["Reps"], strict=True))
    for (kernel, device), row in rows.items():
        total = float(row["time_mean_s"]) * reps[kernel]
        assert float(timing.loc[kernel, (device, "default")]) == pytest.approx(total, abs=2e-6)

    run_data = pd.read_csv(
        out / "RAJAPerf-kernel-run-data.csv", sep=r"\s*,\s*", engine="python", skiprows=1
    )
    run_data.columns = run_data.columns.str.strip()
    assert list(run_data.columns) == [
        "Kernel",
        "Variant",
        "Tuning",
        "Problem size",
        "Checksum",
        "Mean time per rep (sec.)",
        "Mean Bandwidth (GiB per sec.)",
        "Mean flops (gigaFLOP per sec.)",
    ]
    for _, r in run_data.iterrows():
        ours = rows[(r["Kernel"], r["Variant"])]
        assert r["Checksum"] == "PASSED"
        assert r["Mean time per rep (sec.)"] == pytest.approx(float(ours["time_mean_s"]), rel=1e-5)
        gib = float(ours["bytes_per_rep"]) / float(ours["time_mean_s"]) / 2**30
        assert r["Mean Bandwidth (GiB per sec.)"] == pytest.approx(gib, rel=1e-5)

    speedup = _read_rajaperf_matrix(out / "RAJAPerf-speedup-Average.csv")
    assert "ref var = cpu:0" in (out / "RAJAPerf-speedup-Average.csv").read_text().splitlines()[0]
    for kernel in KERNELS:
        assert float(speedup.loc[kernel, ("cpu:0", "default")]) == 1.0
        expected = float(rows[(kernel, "cpu:0")]["time_mean_s"]) / float(
            rows[(kernel, "opencl:0")]["time_mean_s"]
        )
        assert float(speedup.loc[kernel, ("opencl:0", "default")]) == pytest.approx(
            expected, abs=1e-3
        )

    checksum = (out / "RAJAPerf-checksum.txt").read_text().splitlines()
    assert checksum[1].strip() == "Checksum Report"
    for (kernel, device), row in rows.items():
        start = checksum.index(next(line for line in checksum if line.strip() == kernel))
        line = next(x for x in checksum[start:] if x.startswith(f"{device}-default "))
        _, result, tolerance, value, diff = line.split()
        assert result == "PASSED" and float(tolerance) >= 0
        assert float(value) == pytest.approx(float(row["checksum"]), rel=1e-12)
        assert float(diff) < 1e-10  # vs the first variant listed, cpu:0


def test_failing_rows_are_reported_with_their_reason(runs: dict[str, Path]) -> None:
    run = runs["failing"]
    assert harness("report", str(run)).returncode == 0
    text = (run / "report" / "report.md").read_text()
    statuses = {r["Backend"]: r["Status"] for r in _md_table(text, "Results")}
    assert statuses == {"cpu": "ok", "opencl": "fail"}
    reason = next(r["reason"] for r in _csv_rows(run) if r["status"] == "fail")
    assert "Stream_TRIAD on opencl:0 (" in text and reason in text
    run_data = (run / "report" / "RAJAPerf-kernel-run-data.csv").read_text()
    assert re.search(r"opencl:0\s+, default\s+,\s+20000 , FAILED\s+,\s+Not run", run_data)
    timing = _read_rajaperf_matrix(run / "report" / "RAJAPerf-timing-Average.csv")
    assert timing.loc["Stream_TRIAD", ("opencl:0", "default")] == "Not run"


def test_check_only_run_says_it_has_no_timings(runs: dict[str, Path]) -> None:
    run = runs["check"]
    proc = harness("report", str(run), "--html")
    assert proc.returncode == 0, proc.stderr
    text = (run / "report" / "report.md").read_text()
    assert "check-only run" in text
    table = _md_table(text, "Results")
    assert {r["Status"] for r in table} == {"ok"} and "Median" not in table[0]
    assert "no timed rows" in (run / "report" / "report.html").read_text()
    proc = harness("plot", str(run))
    assert proc.returncode == 2
    assert "no timed rows (a check-only run" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "no such run folder"),
        (lambda p: p.mkdir(), "not a run folder (no journal.jsonl in it)"),
        (lambda p: p.write_text("x"), "is a file, not a run folder"),
        (
            lambda p: (p.mkdir(), (p / "journal.jsonl").write_text("")),
            "no row: its journal is empty",
        ),
        (
            lambda p: (p.mkdir(), (p / "journal.jsonl").write_text('{"kernel": \n\x00garbage\n')),
            "the journal has no readable rows",
        ),
        (
            lambda p: (p.mkdir(), (p / "run-1").mkdir(), (p / "run-1" / "journal.jsonl").touch()),
            "a folder of 1 run(s), not a run folder; give one of them",
        ),
    ],
    ids=["missing", "empty", "file", "empty-journal", "corrupt", "folder-of-runs"],
)
@pytest.mark.parametrize("command", ["report", "plot", "compare", "show", "export"])
def test_bad_run_folders_get_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make, message: str, command: str
) -> None:
    path = tmp_path / "run"
    make(path)
    args = [command, str(path), *{"compare": [str(path)], "export": ["--thicket"]}.get(command, [])]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"harness: error: {path}")
    assert message in err


def test_missing_report_extra_names_what_to_install(
    runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = frames.importlib.util.find_spec
    monkeypatch.setattr(
        frames.importlib.util,
        "find_spec",
        lambda name: None if name == "matplotlib" else real(name),
    )
    assert main(["report", str(runs["timed"])]) == 2
    assert "pip install 'harness[report]'" in capsys.readouterr().err


class _Cells(HTMLParser):
    """Table cell texts and image sources of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.images: list[str] = []
        self.links: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            self.images.append(values.get("src") or "")
        for name in ("href", "src"):
            if name in values and tag != "img":
                self.links.append(values[name] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, text: str) -> None:
        if self._cell is not None:
            self._cell.append(text)


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    if required("chromium"):
        pytest.fail("chromium is required here (HARNESS_REQUIRE_BACKENDS) but not installed")
    pytest.skip("chromium is not installed (Debian: apt-get install chromium)")


def _browse(browser: str, page: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """Headless Chromium on a page, with ``args`` (``--dump-dom``, ``--screenshot``)."""
    done = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def test_the_first_screen_tells_who_won_and_what_failed(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    browser = _chromium()
    proc = harness("report", str(runs["failing"]), "--html", "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    page = tmp_path / "out" / "report.html"
    text = re.sub(r"<[^>]+>", " ", _browse(browser, page, tmp_path, "--dump-dom").stdout)
    words = " ".join(text.split())
    story = words[words.index("Summary") : words.index("Plots")]
    assert "1 kernels on 2 devices" in story and "2 rows, 1 ok, 1 fail" in story
    assert "1 row failed or errored" in story
    assert "Fastest device, kernel by kernel: cpu:0 for 1 of 1 timed cases." in story
    assert "Rows that are not ok Stream_TRIAD on opencl:0" in story
    # The story comes before the plots, the plots before the full table.
    assert words.index("Summary") < words.index("Plots") < words.index("Results")
    shot = tmp_path / "first-screen.png"
    _browse(browser, page, tmp_path, f"--screenshot={shot}", "--window-size=1280,900")
    pixels = image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (900, 1280)
    # The failure is in red (#b00020) on the first screen.
    red = np.all(np.abs(pixels - np.array([0xB0, 0x00, 0x20]) / 255) < 0.08, axis=-1)
    assert red.sum() > 200


def test_html_report_is_self_contained_and_renders_in_chromium(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    browser = _chromium()
    run = runs["timed"]
    proc = harness("report", str(run), "--html", "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    page = tmp_path / "out" / "report.html"
    dom = _browse(browser, page, tmp_path, "--dump-dom")
    cells = _Cells()
    cells.feed(dom.stdout)
    header = cells.rows[0]
    assert header[:6] == ["Kernel", "Backend", "Device", "Precision", "Size", "Status"]
    # The results table's rows (the baselines table names the kernels too).
    results_rows = [r for r in cells.rows[1:] if len(r) == len(header) and r[0] in KERNELS]
    assert {(r[0], r[2].split()[0], r[5]) for r in results_rows} == {
        (k, d, "ok") for k in KERNELS for d in ("cpu:0", "opencl:0")
    }
    # Time, speedup, bandwidth and the one CPU through numpy and PoCL; no sweep or sort.
    assert len(cells.images) == 4
    assert plot.CROSS_API_TITLE.split(":")[0] in page.read_text()
    for src in cells.images:
        assert src.startswith("data:image/png;base64,")
        png = base64.b64decode(src.split(",", 1)[1])
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    assert cells.links == []
    assert "http://" not in page.read_text() and "https://" not in page.read_text()
