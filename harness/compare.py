"""Compare two runs row by row: regression, improvement or noise (a gate for CI).

Rows match on kernel, backend, device id, precision and size, plus the sort
columns strategy, order and dist where a run has them. For a matched pair the
ratio is new median / base median. A pair is

- a regression when ratio > 1 + t and the medians differ by more than the
  two rows' spreads added together,
- an improvement when ratio < 1 - t and likewise beyond the spreads,
- noise otherwise,

where t is the threshold (a fraction) and a row's spread is the larger of its
standard deviation and its median minus its minimum. A row that verified ok
in the base run and fails or errors in the new one is "broken", and counts as
a regression; rows without timings on either side are "not timed"; rows in
only one run are listed as "only in base" or "only in new".
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from harness.data import CASE_EXTRAS, VARIANT_EXTRAS
from harness.table import format_time

if TYPE_CHECKING:
    import pandas as pd

KEYS = ("kernel", "backend", "device_id", "precision", "size")
DEFAULT_THRESHOLD = 5.0

REGRESSION = "regression"
IMPROVEMENT = "improvement"
NOISE = "noise"
BROKEN = "broken"
FIXED = "fixed"
NOT_TIMED = "not timed"
ONLY_BASE = "only in base"
ONLY_NEW = "only in new"
#: Verdicts that make `harness compare` exit with 1.
FAILING = (REGRESSION, BROKEN)


def spread(row: Any) -> float:
    """How much a row's repetitions vary: max(std, median - min), 0 where unknown."""
    values = [row.get("time_std_s"), _minus(row.get("time_median_s"), row.get("time_min_s"))]
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
        return NOT_TIMED, math.nan
    b, n = float(base["time_median_s"]), float(new["time_median_s"])
    ratio = n / b
    beyond_noise = abs(n - b) > spread(base) + spread(new)
    if ratio > 1 + threshold and beyond_noise:
        return REGRESSION, ratio
    if ratio < 1 - threshold and beyond_noise:
        return IMPROVEMENT, ratio
    return NOISE, ratio


def compare(base: pd.DataFrame, new: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """One row per key in either run: medians, ratio and verdict (threshold in percent)."""
    import pandas as pd

    extras = [c for c in (*VARIANT_EXTRAS, *CASE_EXTRAS) if c in base or c in new]
    keys = [*KEYS, *extras]
    base, new = _keyed(base, extras, keys), _keyed(new, extras, keys)
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
        device_b, device_n = b.get("device"), n.get("device")
        note = ""
        if row["_merge"] == "both" and str(device_b) != str(device_n):
            note = f"device differs: {device_b} vs {device_n}"
        out.append(
            {
                **{k: row[k] for k in keys},
                "device": device_n if isinstance(device_n, str) else device_b,
                "status_base": b.get("status"),
                "status_new": n.get("status"),
                "median_base_s": b.get("time_median_s"),
                "median_new_s": n.get("time_median_s"),
                "spread_base_s": spread(b) if _timed(b) else math.nan,
                "spread_new_s": spread(n) if _timed(n) else math.nan,
                "ratio": ratio,
                "verdict": verdict,
                "note": note,
            }
        )
    return pd.DataFrame(out)


def _keyed(frame: pd.DataFrame, extras: list[str], keys: list[str]) -> pd.DataFrame:
    """The rows with every key column present, as text, the last of any repeated key kept."""
    frame = frame.copy()
    for column in extras:
        frame[column] = frame[column].fillna("").astype(str) if column in frame else ""
    frame["size"] = frame["size"].astype("Int64")
    keep = [*keys, "device", "status", "time_median_s", "time_min_s", "time_std_s"]
    return frame[keep].drop_duplicates(keys, keep="last")


def format_table(result: pd.DataFrame, base_name: str, new_name: str) -> str:
    """An aligned text table, worst first, and a one-line tally."""
    order = {REGRESSION: 0, BROKEN: 0, IMPROVEMENT: 1, FIXED: 1, ONLY_BASE: 2, ONLY_NEW: 2}
    ranked = result.assign(
        _order=result["verdict"].map(lambda v: order.get(v, 3)),
        _ratio=-result["ratio"].fillna(0),
    ).sort_values(["_order", "_ratio"], kind="stable")
    extras = [c for c in (*VARIANT_EXTRAS, *CASE_EXTRAS) if c in result and result[c].any()]
    header = ("kernel", "device", *extras, "prec", "size", "base", "new", "new/base", "verdict")
    lines = [header]
    for _, r in ranked.iterrows():
        ratio = f"{r['ratio']:.3f}" if _finite(r["ratio"]) else "-"
        base_time = _cell(r["median_base_s"], r["status_base"])
        new_time = _cell(r["median_new_s"], r["status_new"])
        verdict = r["verdict"] + (f" ({r['note']})" if r["note"] else "")
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
    text += ["", f"base: {base_name}", f"new:  {new_name}", tally]
    return "\n".join(text)


def _cell(median: Any, status: Any) -> str:
    if isinstance(status, str) and status != "ok":
        return status
    return format_time(median)
