"""Compare two runs row by row: regression, improvement or noise (a gate for CI).

Rows match on kernel, device, precision and size, plus the kernel's run
options (a sort's strategy, order and input) as its description names them.
A device is matched by what it is, not by its id: its backend, name and API
(from the run's metadata, without version numbers; in a merged run, the one its
row's host lists), so ``wgpu:0`` that was Vulkan in one run and OpenGL in the
other is two devices, and a device whose id moved (a platform was added) is
still one; the output says where an id means different devices, or a device's
driver changed. For a matched pair the ratio is new median / base median. A
pair is

- a regression when ratio > 1 + t and the medians differ by more than the
  two rows' spreads added together,
- an improvement when ratio < 1 - t and likewise beyond the spreads,
- noise otherwise,

where t is the threshold (a fraction) and a row's spread is the larger of its
standard deviation and its median minus its minimum. A row that verified ok
in the base run and fails or errors in the new one is "broken", and counts as
a regression. A row timed in the base and not in the new run (skipped there,
or ok without timings) is "no longer timed", and fails the gate as well: its
time may be the one that regressed. Rows the base did not time either are
"not timed"; rows in only one run are listed as "only in base" or "only in new".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.errors import UsageError
from harness.reporting.table import format_time

if TYPE_CHECKING:
    import pandas as pd

KEYS = ("kernel", "backend", "device_id", "precision", "size")
#: The merge keys: KEYS with the device id replaced by the device's identity.
_MATCH = ("kernel", "backend", "_device", "precision", "size")
DEFAULT_THRESHOLD = 5.0

REGRESSION = "regression"
IMPROVEMENT = "improvement"
NOISE = "noise"
BROKEN = "broken"
FIXED = "fixed"
NOT_TIMED = "not timed"
NO_LONGER_TIMED = "no longer timed"
ONLY_BASE = "only in base"
ONLY_NEW = "only in new"
#: Verdicts that make `harness compare` exit with 1.
FAILING = (REGRESSION, BROKEN, NO_LONGER_TIMED)


def spread(row: Any) -> float:
    """How much a row's repetitions vary: max(interquartile range, median - min), 0
    where unknown; the standard deviation where the row has no quartiles (an older
    run's). One slow repetition of five (a host busy for a moment) made the
    deviation a hundred times the median's spread, and a 65x regression noise."""
    iqr = _minus(row.get("time_q3_s"), row.get("time_q1_s"))
    values = [
        iqr if iqr is not None else row.get("time_std_s"),
        _minus(row.get("time_median_s"), row.get("time_min_s")),
    ]
    return max([float(v) for v in values if _finite(v)], default=0.0)


def _minus(a: Any, b: Any) -> float | None:
    return float(a) - float(b) if _finite(a) and _finite(b) else None


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def _timed(row: Any) -> bool:
    return (
        row.get("status") == "ok" and _finite(row.get("time_median_s")) and row["time_median_s"] > 0
    )


def judge(base: Any, new: Any, threshold: float) -> tuple[str, float]:
    """The verdict and time ratio (new / base) of one matched pair; threshold is a fraction."""
    if base.get("status") == "ok" and new.get("status") in ("fail", "error"):
        return BROKEN, math.nan
    if base.get("status") in ("fail", "error") and new.get("status") == "ok":
        return FIXED, math.nan
    if not (_timed(base) and _timed(new)):
        return (NO_LONGER_TIMED if _timed(base) else NOT_TIMED), math.nan
    b, n = float(base["time_median_s"]), float(new["time_median_s"])
    ratio = n / b
    beyond_noise = abs(n - b) > spread(base) + spread(new)
    if ratio > 1 + threshold and beyond_noise:
        return REGRESSION, ratio
    if ratio < 1 - threshold and beyond_noise:
        return IMPROVEMENT, ratio
    return NOISE, ratio


@dataclass(frozen=True)
class Device:
    """What a device id stood for in one run (on one host of a merged run)."""

    id: str
    backend: str
    name: str
    api: str
    driver: str
    host: str = ""

    def describe(self, with_api: bool) -> str:
        """The name, and the API where it tells devices apart."""
        return f"{self.name} ({self.api})" if with_api and self.api else self.name

    @property
    def label(self) -> str:
        """The id, with its host where the run merges several."""
        return f"{self.id} @{self.host}" if self.host else self.id


#: A device of a run: its host (empty but in a merged run's list) and id.
Where = tuple[str, str]


def api_family(api: str) -> str:
    """The API a device is driven through, without versions: ``Vulkan`` of
    ``Vulkan; wgpu-py 0.32``, ``Python`` of ``Python 3.11.2``."""
    first = api.split(";")[0]
    return " ".join(word for word in first.split() if not word[:1].isdigit())


def devices_of(frame: pd.DataFrame, listed: Sequence[dict[str, Any]] = ()) -> dict[Where, Device]:
    """Each device of a run's rows, by host and id: from its metadata's device list
    where it is there (a merged run lists each host's own, the same id on several
    hosts), else from the rows (a name, no API)."""
    out = {}
    for d in listed:
        if isinstance(d.get("id"), str):
            backend = str(d.get("backend") or d["id"].partition(":")[0])
            api = api_family(str(d.get("api") or ""))
            host = str(d.get("host") or "")
            out[host, d["id"]] = Device(
                d["id"], backend, str(d.get("name") or ""), api, str(d.get("driver") or ""), host
            )
    names = frame.groupby("device_id")["device"].first()
    for device_id, backend in (
        frame[["device_id", "backend"]].drop_duplicates().itertuples(index=False)
    ):
        if not any(where[1] == device_id for where in out):
            name = names.get(device_id)
            out["", device_id] = Device(
                device_id, str(backend), name if isinstance(name, str) else "", "", ""
            )
    return out


def match_devices(
    base: dict[Where, Device], new: dict[Where, Device]
) -> tuple[dict[Where, str], dict[Where, str], list[str]]:
    """A key per device of each run, equal where two are the same device, and notes
    on ids that mean different devices and on changed drivers.

    The API counts only where both runs record it for every device; several
    devices alike on one host (two identical GPUs) pair up in id order.
    """
    with_api = all(d.api for d in [*base.values(), *new.values()])

    def keys(devices: dict[Where, Device]) -> dict[Where, str]:
        seen: dict[tuple[str, ...], int] = {}
        out = {}
        for where in sorted(devices, key=_order):
            d = devices[where]
            what = (d.backend, d.name, d.api if with_api else "")
            alike = (d.host, *what)
            seen[alike] = seen.get(alike, -1) + 1
            out[where] = "|".join([*what, str(seen[alike])])
        return out

    base_keys, new_keys = keys(base), keys(new)
    notes = []
    for where in sorted(base.keys() & new.keys(), key=_order):
        if base_keys[where] != new_keys[where]:
            notes.append(
                f"{base[where].label} is {base[where].describe(with_api)} in base but "
                f"{new[where].describe(with_api)} in new; rows are matched by device, not by id"
            )
    by_key = {(where[0], key): where for where, key in new_keys.items()}
    for where, key in base_keys.items():
        other = by_key.get((where[0], key))
        if other is None:
            continue
        if other != where:
            notes.append(f"{base[where].label} in base is {new[other].label} in new")
        if base[where].driver != new[other].driver:
            notes.append(
                f"{base[where].label}: driver {base[where].driver or '-'} in base, "
                f"{new[other].driver or '-'} in new"
            )
    return base_keys, new_keys, notes


def _order(where: Where) -> tuple[str, str, int]:
    """Devices in order of host, then backend and index."""
    backend, _, index = where[1].partition(":")
    return where[0], backend, int(index) if index.isascii() and index.isdigit() else -1


def _where(device: dict[str, Any]) -> Where:
    """A device of a run's metadata list: its host (in a merged run) and id."""
    return str(device.get("host") or ""), str(device.get("id"))


def compare(
    base: pd.DataFrame,
    new: pd.DataFrame,
    threshold: float,
    base_devices: Sequence[dict[str, Any]] = (),
    new_devices: Sequence[dict[str, Any]] = (),
) -> pd.DataFrame:
    """One row per key in either run: medians, ratio and verdict (threshold in percent).

    ``base_devices`` and ``new_devices`` are the runs' metadata device lists;
    the result's ``attrs["notes"]`` says where device ids and devices differ.
    UsageError where two merged runs share no host and one measured a case on
    several of its hosts (`_refuse_cases_of_several_hosts`).
    """
    import pandas as pd

    extras = list(_OPTIONS)
    keys = [*_MATCH, *extras]
    base_keys, new_keys, notes = match_devices(
        devices_of(base, base_devices), devices_of(new, new_devices)
    )
    # A merged run (a cluster's nodes), or an MPI job over several hosts, holds a case
    # once per host: where the other run has rows of those hosts too, each is matched
    # with its own host's.
    hosts = {
        name: set(frame["host"].dropna().astype(str)) if "host" in frame else set()
        for name, frame in (("base", base), ("new", new))
    }
    held = {name: len(found) for name, found in hosts.items()}
    by_host = max(held.values()) > 1 and bool(hosts["base"] & hosts["new"])
    single = [name for name, count in held.items() if count <= 1]
    fanned = max(held.values()) > 1 and not by_host and len(single) == 1
    if fanned:
        # One run of one host against a merged one: each host's row of a case is
        # judged against the one run's row (only the last host's was).
        several = "new" if single[0] == "base" else "base"
        by_host = True
        notes.append(
            f"the {several} run holds rows of {held[several]} hosts: each host's row "
            f"of a case is judged against the {single[0]} run's"
        )
    apart = max(held.values()) > 1 and not by_host
    if by_host:
        keys.append("host")
    if by_host and not fanned:
        several = " and ".join(
            f"the {name} run holds {n} hosts' rows" for name, n in held.items() if n > 1
        )
        notes.append(
            f"{several}: rows are matched by host too, a host's rows with the other "
            "run's rows of that host"
        )
    # An MPI run holds a case once per rank: each rank's row is matched with the other
    # run's row of that rank (a run of one process is rank 0).
    ranks = {
        name: set(frame["rank"].dropna().astype(int)) if "rank" in frame else set()
        for name, frame in (("base", base), ("new", new))
    }
    by_rank = max(len(found) for found in ranks.values()) > 1
    if by_rank:
        keys.append("rank")
        several = " and ".join(
            f"the {name} run has {len(found)} MPI ranks' rows"
            for name, found in ranks.items()
            if len(found) > 1
        )
        notes.append(f"{several}: rows are matched rank by rank (a run of one process is rank 0)")
    if apart:
        _refuse_cases_of_several_hosts(
            {"base": (base, base_keys), "new": (new, new_keys)}, extras, keys
        )
    new = _with_sizes_asked(new, base)
    base, new = _keyed(base, extras, keys, base_keys), _keyed(new, extras, keys, new_keys)
    if fanned:
        # The one run's row of a case stands beside each host's row of it, and is
        # "only in" the one run for each host with the device that lacks the case (a
        # node whose job stopped short); a case of a device no host has stays one row,
        # without a host.
        one, other = (base, new) if single[0] == "base" else (new, base)
        device = ["backend", "_device"]
        # The devices each host's run lists, as well as those it has rows of: a node
        # stopped before its first row on a device planned that device all the same.
        listed, keyed = (
            (new_devices, new_keys) if single[0] == "base" else (base_devices, base_keys)
        )
        planned = pd.DataFrame(
            [
                {"backend": d.get("backend"), "_device": keyed.get(_where(d)), "host": d["host"]}
                for d in listed
                if isinstance(d, dict) and d.get("host") and keyed.get(_where(d))
            ],
            columns=[*device, "host"],
        )
        pairs = pd.concat([other[[*device, "host"]], planned]).drop_duplicates()
        one = one.drop(columns="host").merge(pairs, on=device, how="left")
        one["host"] = one["host"].fillna("")
        base, new = (one, other) if single[0] == "base" else (other, one)
    merged = base.merge(
        new, on=keys, how="outer", suffixes=("_base", "_new"), indicator=True, sort=False
    )
    out = []
    for _, row in merged.iterrows():
        b = {c[: -len("_base")]: row[c] for c in row.index if c.endswith("_base")}
        n = {c[: -len("_new")]: row[c] for c in row.index if c.endswith("_new")}
        if row["_merge"] == "left_only":
            verdict, ratio = ONLY_BASE, math.nan
        elif row["_merge"] == "right_only":
            verdict, ratio = ONLY_NEW, math.nan
        else:
            verdict, ratio = judge(b, n, threshold / 100)
        ids = [
            i for i in dict.fromkeys([b.get("device_id"), n.get("device_id")]) if isinstance(i, str)
        ]
        at = (f" @{row['host']}" if by_host and row["host"] else "") + (
            f" r{row['rank']}" if by_rank else ""
        )
        device_b, device_n = b.get("device"), n.get("device")
        out.append(
            {
                "kernel": row["kernel"],
                "backend": row["backend"],
                "device_id": "->".join(ids) + at,
                "precision": row["precision"],
                "size": row["size"],
                **{c: row[c] for c in extras},
                "device": device_n if isinstance(device_n, str) else device_b,
                "status_base": b.get("status"),
                "status_new": n.get("status"),
                "median_base_s": b.get("time_median_s"),
                "median_new_s": n.get("time_median_s"),
                "spread_base_s": spread(b) if _timed(b) else math.nan,
                "spread_new_s": spread(n) if _timed(n) else math.nan,
                "ratio": ratio,
                "verdict": verdict,
            }
        )
    result = pd.DataFrame(out)
    result.attrs["notes"] = notes
    return result


#: The run-option columns rows also match on (`harness.reporting.frames.prepare` makes them
#: from the kernels' descriptions), and their headings.
_OPTIONS = {"variant_params": "variant", "case_params": "case"}


def _refuse_cases_of_several_hosts(
    runs: dict[str, tuple[pd.DataFrame, dict[str, str]]], extras: list[str], keys: list[str]
) -> None:
    """UsageError where two merged runs that share no host hold a case measured on
    several hosts of one of them: matched without hosts, only the last host's row of
    it was judged, and a failed row of another host passed the gate unseen."""
    for name, (frame, devices) in runs.items():
        repeated = int(_keyed(frame, extras, [*keys, "host"], devices).duplicated(keys).sum())
        if repeated:
            raise UsageError(
                f"the base and new runs are merged runs that share no host, and the {name} "
                f"run holds {repeated} row(s) of a case another of its hosts measured too: "
                "which host's row to judge against which cannot be told; compare their "
                "source runs (their merged_from) host by host"
            )


def _with_sizes_asked(frame: pd.DataFrame, base: pd.DataFrame) -> pd.DataFrame:
    """The new run's rows, with an untimed row at the size asked for beside each row
    sized down to fit its time budget (``sized_from``): the base's row at that size
    was "only in base", which passed the gate though the new run never timed it. So
    too at each size halved from it, above the row's own, where the base timed the
    kernel: a row the new run, slower, sized down further than the base had was
    "only in base" as well."""
    import pandas as pd

    if "sized_from" not in frame:
        return frame
    asked = pd.to_numeric(frame["sized_from"], errors="coerce")
    down = frame[asked.notna()]
    if down.empty:
        return frame
    timed = set(zip(base["kernel"], base["precision"], base["size"], strict=True))
    added = []
    for (_, row), start in zip(down.iterrows(), asked[asked.notna()].astype("int64"), strict=True):
        size = int(start)
        # The halvings a row is sized down by, from the size asked for (`Runner._fitted_size`).
        while size > row["size"]:
            if size == start or (row["kernel"], row["precision"], size) in timed:
                added.append({**row, "size": size, "status": "sized down"})
            size //= 2
    untimed = pd.DataFrame(added, columns=frame.columns)
    for column in ("time_median_s", "time_min_s", "time_std_s"):
        if column in untimed:
            untimed[column] = math.nan
    return pd.concat([frame, untimed], ignore_index=True)


def _keyed(
    frame: pd.DataFrame, extras: list[str], keys: list[str], devices: dict[Where, str]
) -> pd.DataFrame:
    """The rows with every key column present, as text, the last of any repeated key kept."""
    frame = frame.copy()
    for column in extras:
        frame[column] = frame[column].fillna("").astype(str) if column in frame else ""
    frame["size"] = frame["size"].astype("Int64")
    # A row's device is its own host's where a merged run lists each host's.
    hosts = frame["host"].fillna("").astype(str) if "host" in frame else [""] * len(frame)
    frame["_device"] = [
        devices.get((h, d), devices.get(("", d)))
        for h, d in zip(hosts, frame["device_id"], strict=True)
    ]
    if "host" in keys:
        frame["host"] = frame["host"].fillna("").astype(str) if "host" in frame else ""
    if "rank" in keys:
        frame["rank"] = frame["rank"].fillna(0).astype(int) if "rank" in frame else 0
    keep = [*keys, "device_id", "device", "status", "time_median_s", "time_min_s", "time_std_s"]
    return frame[keep].drop_duplicates(keys, keep="last")


def format_table(result: pd.DataFrame, base_name: str, new_name: str) -> str:
    """An aligned text table, worst first, and a one-line tally."""
    order = {
        REGRESSION: 0,
        BROKEN: 0,
        NO_LONGER_TIMED: 0,
        IMPROVEMENT: 1,
        FIXED: 1,
        ONLY_BASE: 2,
        ONLY_NEW: 2,
    }
    ranked = result.assign(
        _order=result["verdict"].map(lambda v: order.get(v, 3)),
        _ratio=-result["ratio"].fillna(0),
    ).sort_values(["_order", "_ratio"], kind="stable")
    extras = [c for c in _OPTIONS if c in result and result[c].any()]
    header = (
        "kernel",
        "device",
        *(_OPTIONS[c] for c in extras),
        "prec",
        "size",
        "base",
        "new",
        "new/base",
        "verdict",
    )
    lines = [header]
    for _, r in ranked.iterrows():
        ratio = f"{r['ratio']:.3f}" if _finite(r["ratio"]) else "-"
        base_time = _cell(r["median_base_s"], r["status_base"])
        new_time = _cell(r["median_new_s"], r["status_new"])
        verdict = r["verdict"]
        lines.append(
            (
                str(r["kernel"]),
                str(r["device_id"]),
                *(str(r[c]) for c in extras),
                str(r["precision"]),
                str(r["size"]),
                base_time,
                new_time,
                ratio,
                verdict,
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = [
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in lines
    ]
    counts = result["verdict"].value_counts()
    tally = ", ".join(f"{n} {v}" for v, n in counts.items())
    notes = [f"note: {note}" for note in result.attrs.get("notes", [])]
    text += ["", *notes, f"base: {base_name}", f"new:  {new_name}", tally]
    return "\n".join(text)


def _cell(median: Any, status: Any) -> str:
    if isinstance(status, str) and status != "ok":
        return status
    return format_time(median)
