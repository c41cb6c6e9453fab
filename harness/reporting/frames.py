"""Run folders as pandas DataFrames, for reports, plots, comparisons and notebooks.

One row per journal row (an interrupted run's rows included), every column of
`harness.execution.results.COLUMNS` present, numbers as numbers, plus where each row came
from: ``run`` (the run folder's name), ``run_dir`` and ``host``. Several run
folders load into one frame; ``series`` then names each device so that the
same device in two runs (a size sweep) stays one line on a plot, while two
machines' devices stand side by side.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import UsageError
from harness.execution import merge, results

if TYPE_CHECKING:
    import pandas as pd

#: Columns `prepare` adds from the kernels' descriptions (via the run metadata):
#: the row's run options that make it another problem (``case_params``) and
#: another implementation (``variant_params``), as text; what its size counts
#: (``items``, rows then have ``<items>_per_s``); and whether its GB/s is a
#: device's attainable bandwidth (``peak_bandwidth``).
FACT_COLUMNS = ("case_params", "variant_params", "items", "peak_bandwidth")

#: The bandwidth peaks `harness peak` records per device (Stream_COPY's and Stream_TRIAD's).
PEAK_BANDWIDTH = ("copy_gbytes_per_s", "triad_gbytes_per_s")

INSTALL_HINT = "pip install 'harness[report]'"


class Metadata(dict):
    """A run's metadata as a frame's ``attrs["metadata"]``, which deep copies share:
    pandas deep-copies a frame's attrs into every frame made of it (each row
    ``iterrows`` gives), and a merged run's metadata (every source's) copied so
    made a loaded frame's rows 20 times slower to walk. It is read, not changed."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Metadata:
        return self


def require() -> None:
    """Raise a UsageError naming the extra to install when pandas or matplotlib is missing."""
    missing = [m for m in ("pandas", "matplotlib") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(
            f"reports need {' and '.join(missing)}, which {'is' if len(missing) == 1 else 'are'}"
            f" not installed: {INSTALL_HINT}"
        )


def load(run_dir: str | Path) -> pd.DataFrame:
    """The rows of one run folder; raises RunFolderError if it is missing, empty or corrupt."""
    import pandas as pd

    run_dir = Path(run_dir)
    rows = results.read_journal(run_dir)
    if not rows:
        raise results.RunFolderError(results.no_rows(run_dir))
    meta = results.read_metadata(run_dir)
    frame = pd.DataFrame(rows)
    extras = [c for c in frame.columns if c not in results.COLUMNS]
    frame = frame.reindex(columns=[*results.COLUMNS, *extras])
    for column in results.NUMERIC:
        if column in frame:
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    # A row without its group (null, which a row may hold) is in its kernel's, named
    # as RAJAPerf's kernels are: plots titled a panel 'nan', and Thicket profiles
    # held a group region 'None'.
    missing = frame["group"].isna() | frame["group"].astype(str).eq("")
    frame["group"] = frame["group"].where(~missing, frame["kernel"].str.split("_", n=1).str[0])
    frame["run"] = run_dir.resolve().name
    frame["run_dir"] = str(run_dir)
    # The partitions the run asked for (--partition), which make a row's partition a
    # variant of its own, whatever another run asked.
    options = meta.get("options") if isinstance(meta.get("options"), dict) else {}
    asked = options.get("partitions") if isinstance(options.get("partitions"), list) else []
    frame["partition_asked"] = frame["partition"].isin(
        [p for p in asked if isinstance(p, str) and p != "auto"]
    )
    # Rows of a run that queued launches one by one (--no-hold), in a merged run by
    # the source run they came from: a library's calls are queued so in any run.
    frame["held_off"] = _held_off(frame, meta, options)
    # A merged run's rows name their own hosts (`harness.execution.merge`).
    host = merge.hostname(run_dir, meta)
    frame["host"] = frame["host"].fillna(host) if "host" in frame else host
    add_peaks(frame, meta.get("peaks") or {}, meta.get("devices") or [])
    add_device_kinds(frame, meta.get("devices") or [])
    frame.attrs["metadata"] = Metadata(meta)
    return frame


def peak_bandwidth(peak: dict[str, Any]) -> float | None:
    """A device's bandwidth peak in a run's metadata: the better of copy and triad."""
    found = [_rate(peak.get(key)) for key in PEAK_BANDWIDTH]
    return max((v for v in found if v is not None), default=None)


def _held_off(frame: pd.DataFrame, meta: dict[str, Any], options: dict[str, Any]) -> list[bool]:
    """Whether each row's run asked for launches queued one by one (``--no-hold``)."""
    sources = meta.get("merged_from")
    if isinstance(sources, list) and "source_run" in frame:
        off = {
            str(src.get("run")): isinstance(src.get("options"), dict)
            and src["options"].get("hold") is False
            for src in sources
            if isinstance(src, dict)
        }
        return [off.get(str(run), False) for run in frame["source_run"]]
    return [options.get("hold") is False] * len(frame)


def _rate(value: Any) -> float | None:
    """A peak figure of a run's metadata where it is a positive finite number, else
    None: a damaged metadata.json may hold text, True or infinity there."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def add_peaks(frame: pd.DataFrame, peaks: dict[str, Any], devices: Sequence[Any] = ()) -> None:
    """Each row's device peaks from a run's metadata (`harness peak`), where measured:
    ``peak_gbytes_per_s`` (the better of copy and triad) and ``peak_gflops_per_s``
    (FMA throughput at the row's precision). A merged run's devices hold their own
    (`harness.execution.merge`), by host and id."""
    held = {
        (str(d.get("host") or ""), str(d.get("id"))): d["peaks"]
        for d in devices
        if isinstance(d, dict) and isinstance(d.get("peaks"), dict)
    }
    hosts = frame["host"] if "host" in frame else [""] * len(frame)

    def of(host: Any, device: Any) -> dict[str, Any]:
        peak = held.get((str(host), str(device))) or peaks.get(str(device))
        return peak if isinstance(peak, dict) else {}

    pairs = list(zip(hosts, frame["device_id"], strict=True))
    frame["peak_gbytes_per_s"] = [peak_bandwidth(of(h, d)) for h, d in pairs]
    frame["peak_gflops_per_s"] = [
        _rate((of(h, d).get("fma_gflops_per_s") or {}).get(str(p)))
        for (h, d), p in zip(pairs, frame["precision"], strict=True)
    ]
    for column in ("peak_gbytes_per_s", "peak_gflops_per_s"):
        frame[column] = frame[column].astype(float)


def add_device_kinds(frame: pd.DataFrame, devices: Sequence[dict[str, Any]]) -> None:
    """Each row's ``device_kind`` (cpu, gpu...) as the run's metadata lists its device;
    empty where the metadata does not (a run without metadata.json). A merged run's
    devices name their hosts, as its rows do."""
    kinds: dict[tuple[str, str], str] = {}
    for device in devices:
        if isinstance(device, dict) and device.get("kind"):
            kind = str(device["kind"])
            kinds.setdefault((str(device.get("host") or ""), str(device.get("id"))), kind)
            kinds.setdefault(("", str(device.get("id"))), kind)
    frame["device_kind"] = [
        kinds.get((str(h), str(d))) or kinds.get(("", str(d))) or ""
        for h, d in zip(frame["host"], frame["device_id"], strict=True)
    ]


def load_runs(run_dirs: Sequence[str | Path]) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Rows of several run folders in one frame with a ``series`` label, and each run's metadata.

    Run names are made unique (two folders named alike get their parent's
    name too), so ``run`` always tells the source apart.
    """
    import pandas as pd

    if not run_dirs:
        raise UsageError("give at least one run folder")
    paths = [Path(d) for d in run_dirs]
    twice = merge.given_twice(paths)
    if twice:
        raise UsageError(
            f"a run folder is given twice: {twice}; its rows would count twice: give it once"
        )
    frames = [load(d) for d in run_dirs]
    # A copy of a run, or a run inside a merged run given too, would count twice.
    merge.check_distinct(paths, [f.attrs["metadata"] for f in frames], "run folders")
    names = [f["run"].iat[0] for f in frames]
    for i, frame in enumerate(frames):
        if names.count(names[i]) > 1:
            path = Path(run_dirs[i]).resolve()
            frame["run"] = f"{path.parent.name}/{path.name}"
    metas = [
        dict(f.attrs["metadata"], run=f["run"].iat[0], run_dir=str(d))
        for f, d in zip(frames, run_dirs, strict=True)
    ]
    for frame in frames:
        frame.attrs = {}
    return prepare(pd.concat(frames, ignore_index=True), kernel_facts(metas)), metas


def kernel_facts(metas: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """What reports need to know of each kernel (`KernelSpec.facts`), from the runs'
    metadata; a run written before metadata held them has none, and its rows then
    lack the `FACT_COLUMNS` facts (no case or variant options, no ``items``)."""
    facts: dict[str, dict[str, Any]] = {}
    for meta in metas:
        kernels = meta.get("kernels")
        if isinstance(kernels, dict):
            for name, known in kernels.items():
                if isinstance(known, dict):
                    facts.setdefault(name, known)
    return facts


def _joined(frame: pd.DataFrame, facts: dict[str, dict[str, Any]], role: str) -> list[str]:
    """Each row's values of its kernel's run options of one role, joined."""
    out = []
    for _, row in frame.iterrows():
        params = (facts.get(str(row["kernel"])) or {}).get("params") or {}
        values = [
            str(row[name]) for name, r in params.items() if r == role and _filled(row.get(name))
        ]
        out.append(", ".join(values))
    return out


def _filled(value: Any) -> bool:
    return value is not None and str(value) not in ("", "nan")


def prepare(frame: pd.DataFrame, facts: dict[str, dict[str, Any]] | None = None) -> pd.DataFrame:
    """Rows from `load` (one run or several concatenated) made ready for reports and plots.

    Adds ``series`` (a device, named for legends), ``variant`` and ``case``
    labels, and the `FACT_COLUMNS` from ``facts`` (default: those in the metadata that
    `load` keeps with the rows).

    A device is its host, id and name; it gains its run's name only where one
    device measured the same case twice (two runs of one machine side by side).
    ``variant`` is the series plus the row's variant options (a sort strategy);
    ``case`` is the kernel plus its case options (an input order).
    """
    frame = frame.copy()
    if facts is None:
        facts = kernel_facts([frame.attrs.get("metadata") or {}])
    frame["case_params"] = _joined(frame, facts, "case")
    frame["variant_params"] = _joined(frame, facts, "variant")
    # A cold-cache row, or one that moves its data each repetition, measures the
    # same problem another way, as a variant does.
    if "cache" in frame:
        cold = frame["cache"].astype(str).isin(["cold"])
        frame["variant_params"] = [
            ", ".join(filter(None, (v, "cold cache" if c else "")))
            for v, c in zip(frame["variant_params"], cold, strict=True)
        ]
    # A row without them (an imported RAJAPerf run's) was measured as RAJAPerf
    # measures: hot cache, data resident.
    frame["cache"] = (
        frame["cache"].astype(object).fillna("hot").astype(str) if "cache" in frame else "hot"
    )
    if "transfers" in frame:
        frame["transfers"] = frame["transfers"].astype(object).fillna("resident").astype(str)
    else:
        frame["transfers"] = "resident"
    frame["variant_params"] = [
        ", ".join(filter(None, (v, "" if m == "resident" else f"{m} transfers")))
        for v, m in zip(frame["variant_params"], frame["transfers"], strict=True)
    ]
    if "wgsl_checks" in frame:
        # WGSL compiled without naga's runtime checks measures the kernel another way.
        off = frame["wgsl_checks"].astype(str).isin(["off"])
        frame["variant_params"] = [
            ", ".join(filter(None, (v, "WGSL checks off" if o else "")))
            for v, o in zip(frame["variant_params"], off, strict=True)
        ]
    if "queue" in frame:
        # Launches queued one by one (--no-hold) time the host's queueing too: another
        # measure of the kernel than a held batch's.
        held_off = frame.get("held_off", False)
        direct = frame["queue"].astype(str).eq("direct") & held_off
        frame["variant_params"] = [
            ", ".join(filter(None, (v, "direct queue" if d else "")))
            for v, d in zip(frame["variant_params"], direct, strict=True)
        ]
    if "work_group" in frame:
        frame["variant_params"] = [
            ", ".join(filter(None, (v, "" if g != g or g in (None, "") else f"group {int(g)}")))
            for v, g in zip(frame["variant_params"], frame["work_group"], strict=True)
        ]
    if "partition" in frame:
        # A device's own choice of partition is how it runs, not a variant; rows
        # of one kernel a device ran under several asked for (--partition) are.
        dealt = frame["partition"].astype(object).where(frame["partition"].notna(), "")
        if "partition_trial" in frame:
            dealt = dealt.where(frame["partition_trial"].isna(), "")
        swept = dealt.groupby(
            [frame["run"], frame["device_id"], frame["kernel"], frame["size"]], dropna=False
        ).transform("nunique")
        asked = (
            frame["partition_asked"].fillna(False).astype(bool)
            if "partition_asked" in frame
            else [False] * len(frame)
        )
        frame["variant_params"] = [
            ", ".join(filter(None, (v, f"{p} partition" if p and (n > 1 or a) else "")))
            for v, p, n, a in zip(frame["variant_params"], dealt, swept, asked, strict=True)
        ]
    known = [facts.get(str(k)) or {} for k in frame["kernel"]]
    frame["items"] = [str(k.get("items") or "") for k in known]
    frame["peak_bandwidth"] = [bool(k.get("peak_bandwidth")) for k in known]
    hosts = frame["host"].fillna("").astype(str)
    # A row whose device failed to open has no name; its device's other rows have
    # (those of its host and MPI rank: ranks share device ids, each its own GPU).
    ranked = frame["rank"].astype(str) if "rank" in frame else hosts.map(lambda _: "")
    device = frame.groupby([frame["run"], hosts, ranked, frame["device_id"]])["device"]
    device = device.transform("first").fillna("")
    device = device.astype(str)
    key = hosts + "|" + frame["device_id"].astype(str) + "|" + device
    same = ["kernel", "precision", "size", "case_params", "variant_params"]
    cases = frame[same].astype(str).assign(_key=key, _run=frame["run"])
    by_run = bool((cases.groupby([*same, "_key"])["_run"].nunique() > 1).any())
    if by_run:
        key = key + "|" + frame["run"].astype(str)
    named = device.map(lambda d: f" ({_short(d)})" if d else "")
    # The device as a sentence names it: its id, with the host, MPI rank and run
    # where needed.
    short = frame["device_id"].astype(str)
    if "rank" in frame and frame["rank"].nunique() > 1:
        rank = frame["rank"].map(lambda r: "" if r != r else f" r{int(r)}")
        short, key = short + rank, key + "|" + rank
    if hosts.nunique() > 1:
        short = hosts.map(lambda h: f"{h}: " if h else "") + short
    tag = " [" + frame["run"].astype(str) + "]" if by_run else ""
    label = short + named + tag
    short = short + tag
    frame["series_key"] = key
    frame["series"] = label
    frame["series_id"] = short
    frame["variant"] = label + frame["variant_params"].map(lambda s: f" · {s}" if s else "")
    frame["case"] = [
        f"{kernel} ({detail})" if detail else str(kernel)
        for kernel, detail in zip(frame["kernel"], frame["case_params"], strict=True)
    ]
    return frame


def _short(name: str, limit: int = 28) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def timed(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows that carry a usable median time (ok rows of a timing run)."""
    return frame[(frame["status"] == "ok") & (frame["time_median_s"] > 0)]
