"""Launch every kernel once through the CUDA backend on the stand-in driver.

Run in a process whose ``LD_LIBRARY_PATH`` finds the stand-in as libcuda.so.1
and whose ``STANDIN_LOG`` names its log. For each kernel (and each default
choice of its run options) it prints one JSON line: what the description asks
each launch to pass (arrays by their upload order, scalars as the bytes of
their declared type) and what the stand-in recorded of the loads, allocations
and launches meanwhile. Nothing is executed, so nothing is verified here but
the host side: the test compares the two.

    python launch_every_kernel.py PRECISION [--sources DIR] [KERNEL ...]
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from harness import suite
from harness.backends.cuda import CudaBackend
from harness.execution.runner import Task, make_inputs
from harness.model import sources
from harness.model.spec import library_routine, param_choices


def main(precision: str, names: list[str]) -> None:
    extra = []
    if names[:1] == ["--sources"]:
        extra, names = [Path(names[1])], names[2:]
    log = Path(os.environ["STANDIN_LOG"])
    session = CudaBackend("cuda-python").open(0)
    kernels = [suite.spec_of(n) for n in names] or [*suite.ALL, *suite.INTERNAL]
    for kernel in kernels:
        for choice in param_choices(kernel, {}):
            spec = kernel.with_params(dict(choice))
            if any(library_routine(launch.entry) for launch in spec.plan(spec.check_size)):
                continue  # a vendor library's call: no compiled kernel to compare with
            start = log.stat().st_size if log.exists() else 0
            line: dict = {"kernel": spec.name, "params": dict(choice), "error": None}
            try:
                task = Task(spec.name, "cuda", 0, spec.check_size, precision, choice)
                # The inputs alone: no reference or check case is compared here.
                inputs = make_inputs(spec, task.size, 1, precision)
                arrays = {a.name: inputs[a.name] for a in spec.arrays}
                launches = spec.resolve(task.size, inputs, precision)
                source = sources.find("cuda", ".cu", spec.source_name, extra)
                execution = session.load(spec, precision, source, arrays)
                execution.run(launches)
                execution.close()
            except Exception as exc:
                line["error"] = f"{type(exc).__name__}: {exc}"
            else:
                order = list(arrays)
                line["expected"] = [
                    {
                        "entry": launch.entry,
                        "grid": list(launch.grid),
                        "block": list(launch.group_axes),
                        "arrays": [order.index(n) for n in launch.arrays],
                        "scalars": [value.tobytes().hex() for _, value in launch.scalars],
                    }
                    for launch in launches
                ]
            with log.open() as f:
                f.seek(start)
                line["recorded"] = [json.loads(record) for record in f]
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
