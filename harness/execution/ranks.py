"""Runs under MPI: ``mpirun -n N harness run ...`` makes one run folder of N ranks.

Each rank takes, of each backend's devices the selection allows, the one at
its node-local rank (round robin), so ranks on a node with several GPUs use
one each. All ranks plan the same rows; before each row they meet at a barrier
so that they measure together (as RAJAPerf's MPI runs do), and rank 0 gathers
every rank's row into the one run folder, with ``rank`` and ``host`` columns.
The summary adds RAJAPerf's view over ranks: the minimum, average and maximum
median time of each kernel. Outside mpirun, or without mpi4py, nothing of this
happens.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.backends.base import DeviceInfo

#: Environment variables an MPI launcher sets in every rank's process.
LAUNCHER_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS")


@dataclass
class World:
    """This process's place among the ranks of an MPI run."""

    comm: Any
    rank: int
    size: int
    local_rank: int
    host: str

    def barrier(self) -> None:
        """Wait until every rank is here."""
        self.comm.Barrier()

    def bcast(self, value: Any) -> Any:
        """Rank 0's value, in every rank."""
        return self.comm.bcast(value, root=0)

    def gather(self, value: Any) -> list[Any] | None:
        """Every rank's value, by rank, in rank 0 (None elsewhere)."""
        return self.comm.gather(value, root=0)


def world() -> World | None:
    """The MPI world, where an MPI launcher started this process as one of several
    ranks and mpi4py is installed; None otherwise."""
    if not any(name in os.environ for name in LAUNCHER_VARIABLES):
        return None
    try:
        from mpi4py import MPI
    except ImportError:
        return None
    comm = MPI.COMM_WORLD
    if comm.Get_size() < 2:
        return None
    local = comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank()
    return World(comm, comm.Get_rank(), comm.Get_size(), local, MPI.Get_processor_name())


def rank_devices(devices: Sequence[DeviceInfo], local_rank: int) -> list[DeviceInfo]:
    """Of each backend's devices, the one at the node-local rank, round robin."""
    by_backend: dict[str, list[DeviceInfo]] = {}
    for device in devices:
        by_backend.setdefault(device.backend, []).append(device)
    return [found[local_rank % len(found)] for found in by_backend.values()]


def across(rows: Sequence[dict[str, Any]], label: Any) -> str:
    """The summary over ranks: each kernel's (``label(row)``) minimum, average and
    maximum median time per backend, precision and size, as RAJAPerf reports them."""
    from harness.reporting.table import format_time

    times: dict[tuple[str, str, str, int], list[float]] = {}
    for row in rows:
        median = row.get("time_median_s")
        if row.get("status") == "ok" and median:
            key = (label(row), str(row["backend"]), str(row["precision"]), int(row["size"]))
            times.setdefault(key, []).append(float(median))
    if not times:
        return ""
    head = ("kernel", "backend", "prec", "size", "ranks", "min", "avg", "max")
    lines = [head]
    for (kernel, backend, precision, size), found in times.items():
        lines.append(
            (
                kernel,
                backend,
                precision,
                str(size),
                str(len(found)),
                format_time(min(found)),
                format_time(statistics.fmean(found)),
                format_time(max(found)),
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    text = [
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)) for line in lines
    ]
    return "median time per repetition over ranks:\n" + "\n".join(t.rstrip() for t in text)
