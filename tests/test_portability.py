"""One device through several APIs and Pennycook's performance portability: a
synthetic frame whose numbers are worked out by hand, and a real run of the host
CPU through numpy, OpenCL (PoCL) and wgpu (lavapipe)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from conftest import harness, need_backend, run_folder

pd = pytest.importorskip("pandas")

from harness.execution import results  # noqa: E402
from harness.reporting import portability  # noqa: E402
from harness.reporting.frames import load_runs  # noqa: E402

H200 = "NVIDIA H200"
#: (device id, backend, name, kind) of one host: two H200s through CUDA and
#: OpenCL, and the host CPU through numpy, PoCL and lavapipe (the last without
#: a kind, as a run written before metadata held kinds).
DEVICES = {
    "cuda:0": ("cuda", H200, "gpu"),
    "cuda:1": ("cuda", H200, "gpu"),
    "opencl:1": ("opencl", H200, "gpu"),
    "opencl:2": ("opencl", H200, "gpu"),
    "cpu:0": ("cpu", "AMD EPYC 9654", "cpu"),
    "opencl:0": ("opencl", "pthread-haswell-AMD EPYC 9654", "cpu"),
    "wgpu:0": ("wgpu", "llvmpipe (LLVM 15.0.6, 256 bits)", ""),
}


def _row(kernel: str, device: str, time: float | None, **extra: float) -> dict:
    backend, name, kind = DEVICES[device]
    return {
        "kernel": kernel,
        "backend": backend,
        "device_id": device,
        "device": name,
        "device_kind": kind,
        "host": "bench",
        "precision": "f64",
        "size": 1_000_000,
        "status": "ok" if time else "fail",
        "time_median_s": time,
        **extra,
    }


def test_devices_are_matched_by_kind_and_name() -> None:
    rows = [_row("K", device, 1.0) for device in DEVICES]
    found = portability.add_platforms(pd.DataFrame(rows)).set_index("device_id")
    cpu = found.loc[["cpu:0", "opencl:0", "wgpu:0"]]
    assert set(cpu["physical"]) == {"bench cpu"}
    assert set(cpu["physical_name"]) == {"host CPU (AMD EPYC 9654)"}
    assert set(cpu["matched_by"]) == {"the host's CPU"}
    assert list(cpu["api"]) == ["cpu", "opencl", "wgpu"]
    # The first H200 of CUDA is the first of OpenCL, the second the second.
    assert found.at["cuda:0", "physical"] == found.at["opencl:1", "physical"]
    assert found.at["cuda:1", "physical"] == found.at["opencl:2", "physical"]
    assert found.at["cuda:0", "physical"] != found.at["cuda:1", "physical"]
    assert found.at["cuda:1", "physical_name"] == f"{H200} #2"
    assert found.at["opencl:1", "matched_by"] == "name"


def test_a_uuid_in_the_metadata_matches_devices_whose_names_differ(tmp_path: Path) -> None:
    devices = [
        {"id": "cuda:0", "name": H200, "kind": "gpu", "uuid": "GPU-1234"},
        {"id": "wgpu:0", "name": "NVIDIA H200 (Vulkan)", "kind": "gpu", "uuid": "GPU-1234"},
        {"id": "opencl:1", "name": H200, "kind": "gpu", "pci_bus_id": "0000:41:00.0"},
    ]
    results.write_json(tmp_path / results.METADATA, {"devices": devices})
    frame = pd.DataFrame(
        {
            "run": "r",
            "run_dir": str(tmp_path),
            "host": "h",
            "device_id": d["id"],
            "backend": d["id"].split(":")[0],
            "device": d["name"],
            "device_kind": d["kind"],
        }
        for d in devices
    )
    found = portability.add_platforms(frame).set_index("device_id")
    assert found.at["cuda:0", "physical"] == found.at["wgpu:0", "physical"]
    assert found.at["cuda:0", "matched_by"] == "UUID"
    # A PCI bus id ties a device by that id alone, not to a UUID'd one.
    assert found.at["opencl:1", "matched_by"] == "PCI bus id"
    assert found.at["opencl:1", "physical"] != found.at["cuda:0", "physical"]


def _synthetic() -> pd.DataFrame:
    """Two kernels on an H200 (CUDA, OpenCL) and the host CPU (numpy, PoCL).

    K1 moves memory (1/8 FLOP per byte), K2 computes (20 FLOP per byte, past
    both ridge points: 60000/4000 = 15 on the GPU, 100/50 = 2 on the CPU).
    Times: K1 cuda 1, opencl 2, cpu 4, PoCL 8; K2 cuda 3, opencl 1, cpu 2,
    PoCL failed. K1's rows carry pct_peak_bw, K2's only their GFLOP/s.
    """
    gpu = {"peak_gbytes_per_s": 4000.0, "peak_gflops_per_s": 60000.0}
    cpu = {"peak_gbytes_per_s": 50.0, "peak_gflops_per_s": 100.0}
    k1 = {"bytes_per_rep": 8e6, "flops_per_rep": 1e6}
    k2 = {"bytes_per_rep": 1e6, "flops_per_rep": 20e6}
    rows = [
        _row("K1", "cuda:0", 1.0, pct_peak_bw=80.0, **k1, **gpu),
        _row("K1", "opencl:1", 2.0, pct_peak_bw=40.0, **k1, **gpu),
        _row("K1", "cpu:0", 4.0, pct_peak_bw=50.0, **k1, **cpu),
        _row("K1", "opencl:0", 8.0, pct_peak_bw=25.0, **k1, **cpu),
        _row("K2", "cuda:0", 3.0, gflops_per_s=20000.0, **k2, **gpu),
        _row("K2", "opencl:1", 1.0, gflops_per_s=60000.0, **k2, **gpu),
        # Above the FMA peak: counts as 1.
        _row("K2", "cpu:0", 2.0, gflops_per_s=120.0, **k2, **cpu),
        _row("K2", "opencl:0", None, **k2, **cpu),
    ]
    return portability.add_platforms(pd.DataFrame(rows))


def _by_kernel(table: pd.DataFrame) -> pd.DataFrame:
    """A table indexed by problem, indexed by kernel alone."""
    return table.reset_index(level=[n for n in table.index.names if n != "kernel"], drop=True)


#: The H200's ratios across APIs in `_synthetic`, by kernel and API.
GPU_RATIOS = {
    ("K1", "cuda"): 1.0,
    ("K1", "opencl"): 2.0,
    ("K2", "cuda"): 3.0,
    ("K2", "opencl"): 1.0,
}


def _gpu_ratios(cross: pd.DataFrame) -> dict:
    gpu = cross[cross["physical"] == "bench nvidia h200 #0"].set_index(["kernel", "api"])
    return gpu["ratio"].to_dict()


def test_cross_api_ratios_and_their_geometric_means() -> None:
    cross = portability.cross_api(_synthetic())
    assert _gpu_ratios(cross) == GPU_RATIOS
    means = portability.geometric_means(cross).set_index(["physical", "api"])
    assert means.at[("bench nvidia h200 #0", "cuda"), "ratio"] == pytest.approx(math.sqrt(3))
    assert means.at[("bench nvidia h200 #0", "opencl"), "ratio"] == pytest.approx(math.sqrt(2))
    # PoCL failed K2, so its mean is over K1 alone: 8 / 4.
    assert means.at[("bench cpu", "opencl"), "ratio"] == pytest.approx(2.0)
    assert means.at[("bench cpu", "opencl"), "problems"] == 1
    assert means.at[("bench cpu", "cpu"), "ratio"] == pytest.approx(1.0)


def test_a_vendor_library_is_compared_with_libraries_not_with_kernels() -> None:
    """cuBLAS beside an API without a library is a problem of its own: CUDA's
    kernel is compared with OpenCL's kernel, not its library's time with it."""
    frame = _synthetic()
    cublas = _row("K1", "cuda:0", 0.25, impl="library")
    frame = portability.add_platforms(
        pd.concat(
            [frame.drop(columns=[c for c in frame if c not in cublas]), pd.DataFrame([cublas])]
        )
    )
    cross = portability.cross_api(frame)
    assert _gpu_ratios(cross) == {**GPU_RATIOS, (f"K1{portability.LIBRARY}", "cuda"): 1.0}
    # The geometric means are over the problems two APIs ran: cuBLAS's row, which
    # only CUDA has, would count as 1 for it.
    means = portability.geometric_means(cross).set_index(["physical", "api"])
    assert means.at[("bench nvidia h200 #0", "cuda"), "ratio"] == pytest.approx(math.sqrt(3))
    assert means.at[("bench nvidia h200 #0", "cuda"), "problems"] == 2
    # Application efficiency keeps the library: the best K1 on the H200 is cuBLAS.
    efficiency = _by_kernel(portability.application_efficiency(frame))
    assert efficiency.at["K1", ("bench nvidia h200 #0", "opencl")] == pytest.approx(0.125)


def test_pp_is_the_harmonic_mean_and_zero_where_a_kernel_did_not_run() -> None:
    assert portability.pp([1.0, 0.5, 1.0, 0.5]) == pytest.approx(4 / 6)
    assert portability.pp([1.0, 0.0]) == 0.0
    assert portability.pp([1.0, math.nan]) == 0.0
    assert math.isnan(portability.pp([]))


def test_pp_by_application_efficiency() -> None:
    frame = _synthetic()
    efficiency = portability.application_efficiency(frame)
    assert efficiency.shape == (2, 4)
    k1, k2 = (_by_kernel(efficiency).loc[k] for k in ("K1", "K2"))
    # K1: cuda 1/1, opencl 1/2 on the GPU; numpy 4/4, PoCL 4/8 on the CPU.
    assert k1[("bench nvidia h200 #0", "cuda")] == pytest.approx(1.0)
    assert k1[("bench nvidia h200 #0", "opencl")] == pytest.approx(0.5)
    assert k1[("bench cpu", "opencl")] == pytest.approx(0.5)
    assert k2[("bench nvidia h200 #0", "cuda")] == pytest.approx(1 / 3)
    assert k2[("bench cpu", "opencl")] == 0.0
    found = _by_kernel(portability.portability(efficiency))
    # 4 / (1 + 2 + 1 + 2)
    assert found.at["K1", "pp"] == pytest.approx(0.6667, abs=1e-4)
    assert found.at["K1", "ran"] == 4
    assert found.at["K2", "pp"] == 0.0
    assert found.at["K2", "ran"] == 3
    assert found.at["K2", "missing"] == "opencl on bench cpu"
    # Per platform the geometric mean over K1 and K2: PoCL's is 0, so the suite's is.
    assert portability.suite_pp(efficiency) == 0.0
    everywhere = efficiency[found["pp"].to_numpy() > 0]
    assert portability.suite_pp(everywhere) == pytest.approx(4 / 6)
    # Without PoCL: geometric means cuda sqrt(1/3), opencl sqrt(1/2), numpy 1, so
    # 3 / (1.7321 + 1.4142 + 1) = 0.7235.
    three = efficiency.drop(columns=[("bench cpu", "opencl")])
    assert portability.suite_pp(three) == pytest.approx(0.7235, abs=1e-4)


def test_pp_by_architectural_efficiency() -> None:
    frame = _synthetic()
    assert portability.compute_bound(frame).tolist() == [False] * 4 + [True] * 4
    efficiency = portability.architectural_efficiency(frame)
    k1, k2 = (_by_kernel(efficiency).loc[k] for k in ("K1", "K2"))
    assert k1.tolist() == pytest.approx([0.8, 0.4, 0.5, 0.25])
    # K2: 20000/60000, 60000/60000, 120/100 capped at 1, PoCL failed.
    assert k2.tolist() == pytest.approx([1 / 3, 1.0, 1.0, 0.0])
    found = _by_kernel(portability.portability(efficiency))
    # 4 / (1.25 + 2.5 + 2 + 4)
    assert found.at["K1", "pp"] == pytest.approx(4 / 9.75)
    assert found.at["K1", "pp"] == pytest.approx(0.4103, abs=1e-4)
    assert found.at["K2", "pp"] == 0.0


def test_architectural_efficiency_counts_only_platforms_with_peaks() -> None:
    frame = _synthetic()
    frame.loc[frame["backend"] == "cuda", ["pct_peak_bw", "peak_gflops_per_s"]] = math.nan
    frame.loc[frame["backend"] == "cuda", ["peak_gbytes_per_s"]] = math.nan
    efficiency = portability.architectural_efficiency(frame)
    assert ("bench nvidia h200 #0", "cuda") not in efficiency.columns
    assert efficiency.shape[1] == 3


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run of two kernels on the host CPU through numpy, PoCL and lavapipe."""
    need_backend("opencl")
    need_backend("wgpu")
    out = tmp_path_factory.mktemp("apis")
    proc = harness(
        "run",
        "-k",
        "Stream_TRIAD",
        "Basic_DAXPY",
        "-b",
        "cpu",
        "opencl",
        "wgpu",
        "--size",
        "40000",
        "--reps",
        "3",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def _md_table(text: str, title: str) -> list[dict[str, str]]:
    block = text.split(f"## {title}\n", 1)[1].strip().split("\n\n", 1)[0]
    lines = [line.strip("|").split(" | ") for line in block.splitlines()]
    header = [c.strip() for c in lines[0]]
    return [dict(zip(header, (c.strip() for c in line), strict=True)) for line in lines[2:]]


def test_report_of_one_cpu_through_three_apis(cpu_run: Path) -> None:
    proc = harness("report", str(cpu_run))
    assert proc.returncode == 0, proc.stderr
    text = (cpu_run / "report" / "report.md").read_text()
    rows = results.read_journal(cpu_run)
    times = {(r["kernel"], r["backend"]): r["time_median_s"] for r in rows}
    assert len(times) == 6 and all(t > 0 for t in times.values())
    cpu_name = next(r["device"] for r in rows if r["backend"] == "cpu")
    table = _md_table(text, f"Across APIs: host CPU ({cpu_name})")
    by_kernel = {line["Kernel"]: line for line in table}
    apis = ("cpu", "opencl", "wgpu")
    logs = {api: 0.0 for api in apis}
    for kernel in ("Stream_TRIAD", "Basic_DAXPY"):
        line = by_kernel[kernel]
        assert line["Size"] == "40000"
        fastest = min(times[(kernel, api)] for api in apis)
        for api in apis:
            ratio = times[(kernel, api)] / fastest
            logs[api] += math.log(ratio)
            assert line[api] == f"{ratio:.2f}\N{MULTIPLICATION SIGN}"
        assert "1.00\N{MULTIPLICATION SIGN}" in [line[api] for api in apis]
    mean = table[-1]
    assert mean["Kernel"] == "Geometric mean"
    for api in apis:
        assert mean[api] == f"{math.exp(logs[api] / 2):.2f}\N{MULTIPLICATION SIGN} (2)"
    # PP per kernel: the harmonic mean of fastest / time over the three APIs.
    pp_rows = {r["Kernel"]: r for r in _md_table(text, "Performance portability")}
    efficiencies = {}
    for kernel in ("Stream_TRIAD", "Basic_DAXPY"):
        fastest = min(times[(kernel, api)] for api in apis)
        efficiencies[kernel] = [fastest / times[(kernel, api)] for api in apis]
        expected = 3 / sum(1 / e for e in efficiencies[kernel])
        assert pp_rows[kernel]["PP (application)"] == f"{expected:.3f}"
        assert pp_rows[kernel]["Ran on"] == "3 of 3"
    per_api = [
        math.sqrt(efficiencies["Stream_TRIAD"][i] * efficiencies["Basic_DAXPY"][i])
        for i in range(3)
    ]
    suite = 3 / sum(1 / e for e in per_api)
    assert pp_rows["Suite"]["PP (application)"] == f"{suite:.3f}"
    assert "uses application efficiency" in text
    assert f"suite PP {suite:.3f} by application efficiency" in text


def test_plain_functions_agree_with_the_report_on_a_real_run(cpu_run: Path) -> None:
    frame, _ = load_runs([cpu_run])
    found = portability.add_platforms(frame)
    assert found["physical"].nunique() == 1
    assert set(found["api"]) == {"cpu", "opencl", "wgpu"}
    efficiency = portability.application_efficiency(found)
    assert efficiency.shape == (2, 3)
    assert ((efficiency > 0) & (efficiency <= 1)).all().all()
    assert (efficiency.max(axis=1) == 1.0).all()
