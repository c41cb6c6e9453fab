"""Every kernel verifies on every backend: what ``harness run --check`` runs, as one matrix.

A case is one kernel in one precision on one backend, at one size (its check
size, with the quick check's choices of its run options) or at every check
size with every checked choice (``--check full``, such as every strategy of a
bitonic sort, at the default step count): every row verified against the reference
on the timed inputs and on every check case. A backend unavailable here skips
its cases with the backend's reason, or fails them where the set-up requires
it, so that a machine with a GPU verifies every kernel on CUDA too.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest
from conftest import need_backend

from harness import suite
from harness.backends import BACKENDS
from harness.backends import get as get_backend
from harness.backends.base import DeviceInfo
from harness.execution.runner import Data, Runner, RunOptions, Task, data_key, make_data, plan
from harness.model import sources
from harness.suite.sort import STEPS


class SharedData:
    """Inputs and references by task, made once for every backend of a kernel.

    The backend is the innermost axis of the matrix, so only the current
    kernel and precision's data is kept: the largest check sizes hold
    hundreds of megabytes.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._held: tuple[str, str] | None = None
        self._data: dict[tuple, Data] = {}

    def __call__(self, task: Task) -> Data:
        if self._held != (task.kernel, task.precision):
            self._held, self._data = (task.kernel, task.precision), {}
        key = data_key(task)
        if key not in self._data:
            spec = suite.BY_NAME[task.kernel].with_params(dict(task.params))
            self._data[key] = make_data(spec, task, self.seed)
        return self._data[key]


@pytest.fixture(scope="module")
def runner() -> Runner:
    """One verifying runner for the module, so device sessions and compiled
    programs are made once per backend, not once per case."""
    return Runner(RunOptions(check=True))


@pytest.fixture(scope="module")
def shared_data(runner: Runner) -> SharedData:
    """The module's inputs and references, made with the runner's seed."""
    return SharedData(runner.options.seed)


@cache
def default_devices(backend: str) -> tuple[DeviceInfo, ...]:
    """The devices a run on ``backend`` uses when none is named (listed once)."""
    return tuple(get_backend(backend).default_devices())


def _shown(row: dict[str, Any]) -> str:
    """A row as a message shows it: what ran, and why it did not pass."""
    params = "".join(f" {name}={row[name]}" for name in suite.PARAMS if name in row)
    return f"{row['kernel']} size {row['size']}{params}: {row['status']}: {row['reason']}"


#: --check runs the fused and tiled sorts at every step count; here they keep to
#: the default, since test_sort's test_registers_at_every_step_count takes the
#: others on every backend, and all of them here tripled the sorts' share of CI.
DEFAULT_STEPS = (("steps", STEPS.default),)


@cache
def precision_free(kernel: str) -> bool:
    """Neither the kernel's data nor its sources (includes expanded) have the
    run-precision type: its f32 case would compile and run its f64 case's code."""
    spec = suite.BY_NAME[kernel]
    if spec.uses_real():
        return False
    languages = (("opencl", ".cl"), ("cuda", ".cu"), ("wgsl", ".wgsl"))
    found = [sources.find(language, ext, spec.source_name) for language, ext in languages]
    return not any(re.search(r"\bREAL\b", sources.expand(p).text) for p in found if p)


#: The fast tier's partition: a CPU device's check verifies each candidate
#: (`harness.model.partition.candidates`), which compiles each kernel twice on
#: PoCL; the other, ``chunk``, is the full tier's, at every check size.
ONE_PARTITION = ("item",)


#: The sorts' cases on wgpu are half the matrix's time on lavapipe: the full
#: tier's, whose sorts there are test_sort's small lengths.
SORTS = ("Bitonic_", "Algorithm_SORT")

#: The bitonic sorts of one key type each, which on wgpu test_sort verifies at
#: every strategy, length past a tile, distribution and step count: the matrix
#: keeps the pairs sort there, whose check sizes are its own.
KEY_SORTS = ("Bitonic_U32", "Bitonic_I32", "Bitonic_F32", "Bitonic_F64")


#: How much of the kernel's check a case runs: its one check size and the quick
#: check's choices (the fast tier), or every check size and every checked choice.
SCOPES = ("one", "every")


def _cases() -> list[Any]:
    """Kernel x precision x scope x backend, the backend innermost. The fast tier
    verifies every kernel at f64 (the one precision every kernel runs: a
    precision-free kernel skips f32) at one size on every backend but the sorts
    on wgpu; the rest (f32 and f64 at every check size and choice, the sorts on
    wgpu) is the full tier's. A case the full tier's `every` covers is not made
    again at `one` there: f32, and the sorts on wgpu."""
    cases = []
    for kernel in (k.name for k in suite.ALL):
        for precision in ("f64", "f32"):
            for scope in SCOPES:
                for backend in BACKENDS:
                    wgpu_sort = backend == "wgpu" and kernel.startswith(SORTS)
                    if scope == "one" and (precision == "f32" or wgpu_sort):
                        continue
                    if backend == "wgpu" and kernel in KEY_SORTS:
                        continue
                    full = precision == "f32" or scope == "every"
                    cases.append(
                        pytest.param(
                            kernel,
                            precision,
                            scope,
                            backend,
                            id=f"{kernel}-{precision}-{scope}-{backend}",
                            marks=[pytest.mark.full] if full else [],
                        )
                    )
    return cases


@pytest.mark.parametrize(("kernel", "precision", "scope", "backend"), _cases())
def test_kernel_verifies(
    runner: Runner,
    shared_data: SharedData,
    kernel: str,
    precision: str,
    scope: str,
    backend: str,
) -> None:
    """Every row ``--check`` makes for the kernel on the backend is ok; a row the
    device cannot run skips the case with its reason, after the others pass."""
    need_backend(backend)
    if precision == "f32" and precision_free(kernel):
        pytest.skip("nothing of the run-precision type: the f64 case runs the same code")
    one = scope == "one"
    options = RunOptions(
        precision=precision,
        check=True,
        check_all=not one,
        size=suite.BY_NAME[kernel].sizes_for_check[0] if one else None,
        params=DEFAULT_STEPS,
        partitions=ONE_PARTITION if one else (),
    )
    tasks = plan([suite.BY_NAME[kernel]], default_devices(backend), options)
    assert tasks, f"--check plans no task for {kernel} on {backend}"
    rows = []
    for task in tasks:
        runner.provide(task, shared_data(task))
        rows.append(runner.execute(task))
    bad = [_shown(r) for r in rows if r["status"] not in ("ok", "skipped")]
    assert not bad, "\n".join(bad)
    unsummed = [r["size"] for r in rows if r["status"] == "ok" and r["checksum"] is None]
    assert not unsummed, f"ok rows without a checksum at sizes {unsummed}"
    skipped = [_shown(r) for r in rows if r["status"] == "skipped"]
    if skipped:
        pytest.skip("; ".join(skipped))
