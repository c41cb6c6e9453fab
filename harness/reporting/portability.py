"""One physical device through several APIs, and Pennycook's performance portability.

A *platform* is a physical device reached through one API (the numpy backend,
OpenCL, wgpu, CUDA). Rows are tied to their physical device (`add_platforms`)
by the UUID or PCI bus id a run's metadata gives for a device, else by kind
and name: every CPU device of a host (the numpy backend, PoCL, lavapipe) is the
host's CPU, and other devices of one host that share a name (an NVIDIA H200
through CUDA, OpenCL and wgpu) are one device, the i-th of each API with the
i-th of the others.

Performance portability (Pennycook, Sewall and Lee, 2016) of a kernel over a
set H of platforms is the harmonic mean of its efficiency on each, and 0 when
it does not run on one of them (`pp`). Efficiency is application efficiency
(`application_efficiency`: the fastest time of that problem on the same
physical device through any API, over the platform's) or, where the rows carry
the device's measured peaks, architectural efficiency (`architectural_efficiency`:
the fraction of the bandwidth or FLOP peak that bounds the kernel).

Every function is a plain function over a DataFrame of rows as
`harness.reporting.frames.load_runs` gives them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.execution import results
from harness.reporting.rajaperf_import import BACKEND as IMPORTED

if TYPE_CHECKING:
    import pandas as pd

#: How PoCL's CPU devices' names begin (``pthread-haswell-...``).
POCL_CPU_NAMES = ("pthread-", "cpu-", "basic-")
#: Names of devices that run on the host CPU whatever API reaches them: PoCL's,
#: and the software Vulkan drivers (lavapipe calls its device llvmpipe).
CPU_NAMES = (*POCL_CPU_NAMES, "llvmpipe", "lavapipe", "SwiftShader")
#: The columns that make rows one problem, on any platform.
PROBLEM = ("kernel", "precision", "size", "case_params", "cache", "transfers")
#: Application and architectural efficiency, as `efficiencies` names them.
APPLICATION = "application"
ARCHITECTURAL = "architectural"


def is_cpu_device(backend: str, kind: str, name: str) -> bool:
    """Whether a device is the host's CPU: its kind in the metadata where recorded,
    else the numpy backend or a name that only CPU drivers give (`CPU_NAMES`)."""
    if kind:
        return kind == "cpu"
    return backend == "cpu" or name.startswith(CPU_NAMES)


def _text(frame: pd.DataFrame, column: str) -> list[str]:
    if column not in frame:
        return [""] * len(frame)
    values = frame[column].astype(object)
    return values.where(values.notna(), "").astype(str).tolist()


def _metadata_devices(frame: pd.DataFrame) -> dict[tuple[str, str, str], dict[str, Any]]:
    """The device entries of each row's run folder's metadata, by run, host and id
    (a merged run's devices name their host; others are under host "")."""
    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    if "run_dir" not in frame:
        return found
    for run, run_dir in dict.fromkeys(
        zip(_text(frame, "run"), _text(frame, "run_dir"), strict=True)
    ):
        for device in results.read_metadata(Path(run_dir)).get("devices") or []:
            if isinstance(device, dict):
                key = (run, str(device.get("host") or ""), str(device.get("id")))
                found.setdefault(key, device)
    return found


def add_platforms(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows with ``physical`` (a key naming the physical device), ``physical_name``
    (that device as a reader knows it), ``matched_by`` (UUID, PCI bus id, the host's
    CPU or name) and ``api`` (the backend, or the device id where one physical
    device has two devices of one backend).

    The metadata of each row's run folder (``run_dir``) gives UUIDs and PCI bus
    ids where a backend records them; rows without one are matched by kind and
    name (see the module's docstring).
    """
    entries = _metadata_devices(frame)
    runs, hosts, ids = _text(frame, "run"), _text(frame, "host"), _text(frame, "device_id")
    backends, names = _text(frame, "backend"), _text(frame, "device")
    kinds = _text(frame, "device_kind")
    several_hosts = len(set(hosts)) > 1
    # The i-th device of a name through one API is the i-th through another.
    alike: dict[tuple[str, str, str], list[str]] = {}
    for host, backend, name, device in dict.fromkeys(zip(hosts, backends, names, ids, strict=True)):
        alike.setdefault((host, backend, name), []).append(device)
    for devices in alike.values():
        devices.sort(key=lambda d: (len(d), d))
    keys, labels, matched = [], [], []
    for run, host, device, backend, name, kind in zip(
        runs, hosts, ids, backends, names, kinds, strict=True
    ):
        entry = entries.get((run, host, device)) or entries.get((run, "", device)) or {}
        where = f"{host}: " if several_hosts and host else ""
        label = name or str(entry.get("name") or device)
        if entry.get("uuid"):
            keys.append(f"uuid {entry['uuid']}")
            labels.append(where + label)
            matched.append("UUID")
        elif entry.get("pci_bus_id"):
            keys.append(f"{host} pci {entry['pci_bus_id']}")
            labels.append(where + label)
            matched.append("PCI bus id")
        elif backend != IMPORTED and is_cpu_device(
            backend, kind or str(entry.get("kind") or ""), label
        ):
            # An imported run's variant ran wherever raja-perf.exe ran, not
            # (as far as the import can tell) on the CPU of the host that imported it.
            keys.append(f"{host} cpu")
            labels.append("")
            matched.append("the host's CPU")
        else:
            nth = alike[(host, backend, name)].index(device)
            keys.append(f"{host} {label.strip().lower()} #{nth}")
            labels.append(where + label + (f" #{nth + 1}" if nth else ""))
            matched.append("name")
    out = frame.assign(physical=keys, physical_name=labels, matched_by=matched)
    for _, rows in out[out["physical_name"] == ""].groupby("physical"):
        out.loc[rows.index, "physical_name"] = _cpu_label(rows, several_hosts)
    return out.assign(api=_apis(out))


def _cpu_label(rows: pd.DataFrame, several_hosts: bool) -> str:
    """The host's CPU by its model name: the numpy backend's device name (the
    host's own CPU model), else the shortest name a CPU driver gives it."""
    own = rows.loc[rows["backend"].astype(str) == "cpu", "device"].dropna().astype(str)
    names = own.tolist() or sorted(rows["device"].dropna().astype(str), key=len)
    host = str(rows["host"].iat[0]) if "host" in rows else ""
    return (
        f"{host}: " if several_hosts and host else ""
    ) + f"host CPU ({names[0] if names else '?'})"


def _apis(frame: pd.DataFrame) -> list[str]:
    """Each row's API on its physical device: the backend, or the device id where
    the device has two devices of that backend (two OpenCL platforms on one CPU)."""
    backends, ids = _text(frame, "backend"), _text(frame, "device_id")
    rows = list(zip(frame["physical"], backends, ids, strict=True))
    devices: dict[tuple[str, str], set[str]] = {}
    for physical, backend, device in rows:
        devices.setdefault((physical, backend), set()).add(device)
    return [
        device if len(devices[(physical, backend)]) > 1 else backend
        for physical, backend, device in rows
    ]


def problem_columns(frame: pd.DataFrame) -> list[str]:
    """The `PROBLEM` columns the rows have."""
    return [c for c in PROBLEM if c in frame]


def _problems(frame: pd.DataFrame) -> pd.DataFrame:
    columns = problem_columns(frame)
    return frame[columns].astype(object).where(frame[columns].notna(), "").astype(str)


def best_times(frame: pd.DataFrame) -> pd.DataFrame:
    """Per platform (``physical``, ``api``) and problem, the median time of its
    fastest timed row (any variant: work-group size, partition, strategy)."""
    done = frame[(frame["status"] == "ok") & (frame["time_median_s"] > 0)]
    keys = ["physical", "api", *problem_columns(frame)]
    rows = _problems(done).assign(
        physical=done["physical"], api=done["api"], time=done["time_median_s"].astype(float)
    )
    return rows.groupby(keys, sort=False, as_index=False)["time"].min()


#: The label a vendor library's rows get in `cross_api`, after the kernel's name.
LIBRARY = " (library)"


def cross_api(frame: pd.DataFrame) -> pd.DataFrame:
    """The problems of each physical device reached through more than one API, one
    row per problem and API: ``time`` (the API's best median) and ``ratio`` (that
    time over the fastest API's for the problem; the fastest gets 1). A vendor
    library's rows (``impl`` library: cuBLAS, CLBlast; a sort's ``strategy``
    library: np.sort) are problems of their own, their kernel named with
    `LIBRARY`: an API's kernels are compared with the other APIs' kernels, so that
    cuBLAS beside WGSL does not read as what WebGPU costs (27.8 times for
    Polybench_GEMM on an H200, against 2.3 kernel to kernel)."""
    import pandas as pd

    library = pd.Series(False, index=frame.index)
    for column in ("impl", "strategy"):
        if column in frame:
            library |= frame[column].astype(str) == "library"
    frame = frame.assign(kernel=frame["kernel"].where(~library, frame["kernel"] + LIBRARY))
    best = best_times(frame)
    apis = best.groupby("physical")["api"].nunique()
    best = best[best["physical"].map(apis) > 1]
    keys = ["physical", *problem_columns(frame)]
    fastest = best.groupby(keys, sort=False)["time"].transform("min")
    return best.assign(ratio=best["time"] / fastest)


def geometric_means(cross: pd.DataFrame) -> pd.DataFrame:
    """Per physical device and API, the geometric mean of `cross_api`'s ratios over the
    problems the API ran that another API ran too (``ratio``), and how many they were
    (``problems``): a problem one API alone ran (cuBLAS, which WebGPU lacks) would
    count as 1 for it and pull its mean towards 1."""
    keys = ["physical", *(c for c in PROBLEM if c in cross)]
    shared = cross.groupby(keys, sort=False)["api"].transform("nunique") > 1
    cross = cross[shared]
    logs = cross.assign(_log=cross["ratio"].map(math.log))
    means = logs.groupby(["physical", "api"], sort=False)["_log"].agg(["mean", "size"])
    means = means.reset_index().rename(columns={"size": "problems"})
    return means.assign(ratio=means["mean"].map(math.exp)).drop(columns="mean")


def pp(efficiencies: Iterable[float]) -> float:
    """Pennycook's PP over a set of platforms: the harmonic mean of the
    efficiencies, 0 if any is 0 or missing (NaN: the kernel did not run there);
    NaN for an empty set."""
    values = [float(e) for e in efficiencies]
    if not values:
        return math.nan
    if any(not (e > 0) for e in values):
        return 0.0
    return len(values) / sum(1 / e for e in values)


def application_efficiency(frame: pd.DataFrame) -> pd.DataFrame:
    """Efficiency per problem (rows) and platform (columns ``(physical, api)``): the
    fastest time of the problem on that physical device through any API, over the
    platform's; 0 where the platform has rows but did not time this problem."""
    best = best_times(frame)
    keys = problem_columns(frame)
    fastest = best.groupby(["physical", *keys], sort=False)["time"].transform("min")
    return _grid(frame, best.assign(efficiency=fastest / best["time"]))


def compute_bound(frame: pd.DataFrame) -> pd.Series:
    """Whether each row's kernel is compute-bound: its FLOPs per byte above its
    device's ridge point (FMA peak over bandwidth peak) where both are measured,
    else above 1. A kernel that moves no bytes but counts FLOPs is."""
    import pandas as pd

    def column(name: str) -> pd.Series:
        values = frame[name] if name in frame else pd.Series(math.nan, index=frame.index)
        return pd.to_numeric(values, errors="coerce").astype(float)

    flops, moved = column("flops_per_rep"), column("bytes_per_rep")
    ridge = column("peak_gflops_per_s") / column("peak_gbytes_per_s")
    ridge = ridge.where((ridge > 0) & ridge.map(math.isfinite), 1.0)
    intensity = flops / moved.where(moved > 0)
    return (intensity > ridge) | ((flops > 0) & ~(moved > 0))


def peak_fractions(frame: pd.DataFrame) -> pd.Series:
    """Each row's fraction of the peak that bounds it (`compute_bound`): ``pct_peak_flops``
    or ``pct_peak_bw`` over 100, else its GFLOP/s or GB/s over the device's peak in
    the rows; capped at 1 (a row above its bandwidth peak ran from cache); NaN
    where that peak was not measured."""
    import pandas as pd

    def column(name: str) -> pd.Series:
        values = frame[name] if name in frame else pd.Series(math.nan, index=frame.index)
        return pd.to_numeric(values, errors="coerce").astype(float)

    def fraction(pct: str, rate: str, peak: str) -> pd.Series:
        ceiling = column(peak)
        return (column(pct) / 100).fillna(column(rate) / ceiling.where(ceiling > 0))

    bandwidth = fraction("pct_peak_bw", "gbytes_per_s", "peak_gbytes_per_s")
    flops = fraction("pct_peak_flops", "gflops_per_s", "peak_gflops_per_s")
    return flops.where(compute_bound(frame), bandwidth).clip(upper=1.0)


def architectural_efficiency(frame: pd.DataFrame) -> pd.DataFrame:
    """Efficiency per problem (rows) and platform (columns) as `peak_fractions`, the
    best variant's, over the platforms whose rows carry a measured peak; 0 where
    such a platform did not time the problem. Empty where no row has a peak."""
    done = frame[(frame["status"] == "ok") & (frame["time_median_s"] > 0)]
    done = done.assign(efficiency=peak_fractions(done))
    measured = done[done["efficiency"].notna()]
    keys = ["physical", "api", *problem_columns(frame)]
    best = _problems(measured).assign(
        physical=measured["physical"], api=measured["api"], efficiency=measured["efficiency"]
    )
    best = best.groupby(keys, sort=False, as_index=False)["efficiency"].max()
    platforms = set(zip(best["physical"], best["api"], strict=True))
    return _grid(frame, best, platforms)


def _grid(
    frame: pd.DataFrame, found: pd.DataFrame, platforms: set[tuple[str, str]] | None = None
) -> pd.DataFrame:
    """``found``'s efficiencies as problems x platforms: every problem in ``frame``,
    and every platform in it (or those given), 0 where a platform has none."""
    keys = problem_columns(frame)
    every = list(dict.fromkeys(zip(frame["physical"], frame["api"], strict=True)))
    if platforms is not None:
        every = [p for p in every if p in platforms]
    grid = found.pivot_table(
        index=keys, columns=["physical", "api"], values="efficiency", aggfunc="max", sort=False
    )
    problems = _problems(frame).drop_duplicates()
    index = list(problems.itertuples(index=False, name=None))
    import pandas as pd

    rows = pd.MultiIndex.from_tuples(index, names=keys)
    if not every:
        return pd.DataFrame(index=rows)
    grid = grid.reindex(index=rows, columns=pd.MultiIndex.from_tuples(every))
    return grid.fillna(0.0)


def portability(efficiency: pd.DataFrame) -> pd.DataFrame:
    """Per problem of an efficiency grid (`application_efficiency`,
    `architectural_efficiency`): ``pp`` over its platforms, ``ran`` (on how many of
    them it ran) and ``missing`` (the platforms it did not run on, as text)."""
    import pandas as pd

    rows = []
    for values in efficiency.itertuples(index=False, name=None):
        missing = [
            f"{api} on {physical}"
            for (physical, api), e in zip(efficiency.columns, values, strict=True)
            if not e > 0
        ]
        rows.append((pp(values), len(values) - len(missing), ", ".join(missing)))
    return pd.DataFrame(rows, index=efficiency.index, columns=["pp", "ran", "missing"])


def suite_pp(efficiency: pd.DataFrame) -> float:
    """The suite's PP: the harmonic mean over the platforms of each platform's
    geometric-mean efficiency over the problems (0 where a problem did not run
    on a platform, so 0 if any kernel missed any platform)."""

    def geometric(values: pd.Series) -> float:
        if not (values > 0).all():
            return 0.0
        return math.exp(values.map(math.log).mean())

    if efficiency.empty:
        return math.nan
    return pp(geometric(efficiency[platform]) for platform in efficiency.columns)
