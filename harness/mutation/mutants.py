"""``harness mutants``: how many planted bugs the verification catches.

For each selected kernel, every single-token mutant of the sources a backend
compiles for it (see `harness.mutation.operators`) is put in a scratch sources folder and
the kernel's check is run on it, at its check sizes and a small odd one, in a
worker process with a timeout. A mutant is

  killed      some row failed, errored, crashed or timed out;
  survived    every row verified: the check cannot tell the bug from the kernel;
  stillborn   it did not compile (not counted);
  equivalent  listed in kernels/equivalent-mutants.txt, with the reason it
              cannot change any output (not counted).

The score is killed / (killed + survived). Results go to a table on screen and
to mutants.csv and summary.txt in a new folder under --out; a run stopped by an
interrupt writes what it measured there too, marked partial, the mutants it did
not check listed as ``not run``.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import fnmatch
import io
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import suite
from harness.backends import get as get_backend
from harness.backends import oclgrind
from harness.backends.base import DeviceInfo
from harness.errors import UsageError
from harness.execution import results
from harness.execution.runner import RunOptions, Task, plan
from harness.execution.workers import Workers
from harness.model import sources
from harness.model.partition import CPU_MACRO, FORM_ENV, device_macros
from harness.model.spec import PRECISIONS, KernelSpec, library_routine, param_choices
from harness.mutation.operators import Mutant, continued, line_text, live_lines, mutants
from harness.mutation.reach import Reach
from harness.reporting import table

#: The reviewed list of mutants that cannot change any output.
EQUIVALENTS = "equivalent-mutants.txt"
#: A small odd size every kernel also runs at: lengths that fill no work-group.
SMALL_SIZE = 97
#: Seconds a mutant's row may run: this many times the unmutated kernel's slowest
#: row, at least MIN_TIMEOUT. Not its whole check's time: a mutant that hangs (a
#: loop whose counter no longer moves) would hold a sort's check for half an hour.
TIMEOUT_FACTOR = 10.0
MIN_TIMEOUT = 20.0
#: The largest check size on a simulator when ``--max-size`` gives none: some 10^4
#: times slower than a CPU device, it took minutes and 14 GB over Algorithm_SCAN's
#: check at 2^22 + 1 for each mutant.
SIMULATOR_MAX_SIZE = 10_000
#: A ``--timeout`` under this many times the unmutated kernel's slowest row would
#: kill mutants by the clock rather than by the check.
TIMEOUT_MARGIN = 2.0
#: The status, in mutants.csv, of a mutant an interrupt left unchecked.
NOT_RUN = "not run"
#: The largest check size a survivor is checked again at on the simulator
#: (`_Recheck`), smallest first: a row there takes seconds (a sort of 4099 keys,
#: 6 s), and a sort's flip passes in vectors first run at 2047 keys.
RECHECK_MAX_SIZE = 5_000
#: Seconds a row of a survivor's check on the simulator (`_Recheck`) may run: as
#: long as an unmutated kernel's row here, which no row of it ran to size the time.
SIMULATOR_TIMEOUT = 10 * MIN_TIMEOUT
#: The kind of device (`DeviceInfo.kind`) that reports reads and writes past an
#: array's end, a race, itself: Oclgrind's.
SIMULATOR = "simulator"


@dataclass(frozen=True)
class Equivalent:
    """A reviewed mutant that cannot change any output, and why.

    ``file`` may be several names or globs, comma-separated (``*.wgsl``,
    ``Stream_COPY.c,Stream_MUL.c``), where the same line means the same in
    every file it matches; ``kernels`` likewise limits the entry to kernels
    for which it holds (a shared header's branch that only other key types
    take). A ``mutated`` of ``*`` covers every mutant of the line: for a line
    those kernels never execute.
    """

    file: str
    original: str
    mutated: str
    why: str
    kernels: str = "*"

    def matches(self, mutant: Mutant, kernel: str = "") -> bool:
        """Whether this entry covers the mutant (of ``kernel``'s sources)."""
        file, original, mutated = mutant.key
        return (
            original == self.original
            and self.mutated in ("*", mutated)
            and any(fnmatch.fnmatchcase(file, p) for p in self.file.split(","))
            and any(fnmatch.fnmatchcase(kernel, p) for p in self.kernels.split(","))
        )


def equivalent(
    mutant: Mutant, equivalents: dict[tuple[str, ...], Equivalent], kernel: str = ""
) -> Equivalent | None:
    """The reviewed entry that covers a mutant of a kernel's sources, if any."""
    return next((e for e in equivalents.values() if e.matches(mutant, kernel)), None)


def read_equivalents(path: Path) -> dict[tuple[str, ...], Equivalent]:
    """The reviewed list: blocks of ``FILE: original`` (or ``FILE @KERNELS: original``),
    ``-> mutated``, ``why: reason``."""
    if not path.is_file():
        return {}
    found: dict[tuple[str, ...], Equivalent] = {}
    block: list[tuple[int, str]] = []
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{path.name}: cannot be read ({exc.strerror or exc})") from None
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        # The decoder's message named neither the file nor the line.
        at = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(f"{path.name}:{at}: not UTF-8 text ({exc.reason})") from None
    for number, line in enumerate([*lines, ""], 1):
        if line.startswith("#"):
            continue
        if line.strip():
            block.append((number, line))
            continue
        if not block:
            continue
        first, *rest = block
        head = re.fullmatch(r"(\S+?)(?: @(\S+))?: (.+)", first[1])
        arrow = rest[0][1].strip() if rest else ""
        why = rest[1][1].strip() if len(rest) > 1 else ""
        if (
            head is None
            or len(rest) != 2
            or not arrow.startswith("-> ")
            or not why.startswith("why: ")
        ):
            raise ValueError(
                f"{path.name}:{first[0]}: expected 'FILE: original line', "
                "'  -> mutated line', '  why: reason'"
            )
        entry = Equivalent(
            head[1], line_text(head[3]), line_text(arrow[3:]), why[5:].strip(), head[2] or "*"
        )
        found[(entry.file, entry.original, entry.mutated, entry.kernels)] = entry
        block = []
    return found


def source_files(spec: KernelSpec, language: str, extension: str) -> list[Path]:
    """The shipped source a backend compiles for a kernel and every file it includes."""
    main = sources.find(language, extension, spec.source_name)
    return [] if main is None else sources.with_includes(main)


@dataclass(frozen=True)
class Outcome:
    """What one mutant did to one kernel's check on one device."""

    kernel: str
    device: str
    mutant: Mutant
    status: str
    detail: str = ""


def _verdict(rows: Iterable[dict[str, Any]]) -> tuple[str, str]:
    """killed, survived or stillborn, and the row reason that decided it."""
    for row in rows:
        reason = str(row.get("reason") or "")
        if row["status"] == "error" and reason.startswith("compile error"):
            return "stillborn", reason
        if row["status"] in ("fail", "error"):
            label = f"{table.label(row, suite.PARAMS)} {row['precision']} n={row['size']}"
            return "killed", f"{label}: {row['status']}: {reason}"
    return "survived", ""


def check_options(params: tuple[tuple[str, tuple[str, ...]], ...] = ()) -> RunOptions:
    """The check each mutant must pass: every checked choice of the kernel's run
    options (as ``harness run --check full``) unless ``params`` narrow them, not
    the quick check's few, which would leave a mutant of another variant's code
    alive and count it against the check. WGSL sources are checked with their
    compiler's bounds checks and without: a mutant that reads or writes past an
    array passes where the checks clamp the index, and is a bug all the same
    (``--wgsl-checks off`` rows compute something else)."""
    return RunOptions(check=True, check_all=True, params=params, wgsl_checks=("on", "off"))


class _Lab:
    """A scratch sources folder and the worker that runs checks over it."""

    def __init__(
        self,
        device: str,
        precisions: Sequence[str],
        timeout: float | None,
        max_size: int | None = None,
        params: tuple[tuple[str, tuple[str, ...]], ...] = (),
        form: str | None = None,
        strict: bool = False,
    ) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="harness-mutants-"))
        self.device = device
        self.fixed_timeout = timeout
        #: The form (cpu or gpu) the lab's device compiles C bodies in, where it is
        #: another device's (`simulator_lab`); None: its own.
        self.form = form
        #: Whether the simulator also reports values read before any write (its
        #: `oclgrind.STRICT_OPTIONS`), as a survivor's recheck asks.
        self.strict = strict
        backend, _, index = device.partition(":")
        self.backend = backend
        self.precisions = tuple(precisions)
        self.options = dataclasses.replace(
            check_options(params), sources=(self.root,), suites=tuple(suite.LOADED)
        )
        # Listing devices is no part of a mutant's check: the default time for it.
        self.workers = Workers()
        try:
            found = self.workers.catalogs([backend])[backend]
            if found.reason is not None:
                raise UsageError(f"backend {backend} is unavailable: {found.reason}")
            if int(index) >= len(found.devices):
                listed = ", ".join(d.id for d in found.devices)
                raise UsageError(f"--device {device!r}: no such device; {backend} has {listed}")
            self.info = found.devices[int(index)]
            #: The backend's devices.
            self.listed = tuple(found.devices)
            if max_size is None and self.info.kind == "simulator":
                max_size = SIMULATOR_MAX_SIZE
            #: The largest check size run (``--max-size``, `SIMULATOR_MAX_SIZE`); None: every one.
            self.max_size = max_size
            with self.compiling():
                self.workers.start(self.options, {self.info.id: self.info.as_dict()}, [])
        except BaseException:
            self.close()
            raise

    @contextlib.contextmanager
    def compiling(self) -> Any:
        """Inside, what the lab plans, compiles and runs (its worker, started or
        restarted there) takes the lab's `form`, through `FORM_ENV`, and a strict
        lab's simulator options."""
        wanted = {FORM_ENV: self.form} if self.form is not None else {}
        if self.strict:
            wanted.update(oclgrind.STRICT_OPTIONS)
        saved = {name: os.environ.get(name) for name in wanted}
        os.environ.update(wanted)
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    def place(self, files: Sequence[Path]) -> dict[str, Path]:
        """Copy a kernel's sources into the scratch folder, each into a folder named
        as the shipped one (opencl/, c/, ...); where each copy is, by file name."""
        for folder in self.root.iterdir():
            shutil.rmtree(folder)
        placed = {}
        for path in files:
            folder = self.root / path.parent.name
            folder.mkdir(exist_ok=True)
            placed[path.name] = folder / path.name
            shutil.copyfile(path, placed[path.name])
        return placed

    def check(
        self, tasks: Sequence[Task], timeout: float, stopping: Callable[[], bool] = lambda: False
    ) -> list[dict[str, Any]]:
        """Run the tasks until one fails, or until ``stopping()`` (the simulator's
        rows take minutes each); the rows."""
        self.workers.options = dataclasses.replace(self.options, timeout=timeout)
        rows = []
        with self.compiling():
            for task in tasks:
                if stopping():
                    break
                rows.append(self.workers.execute(task))
                if rows[-1]["status"] in ("fail", "error"):
                    break
        return rows

    def close(self) -> None:
        """Stop the worker and remove the scratch folder."""
        self.workers.close()
        shutil.rmtree(self.root, ignore_errors=True)


def simulator_lab(lab: _Lab, strict: bool = False) -> _Lab | None:
    """A lab on the OpenCL simulator for the survivors of ``lab``'s checks, which
    compiles C bodies in the form ``lab``'s device does (the code the mutants were
    made from), ``strict`` also reporting values read before any write, which a CPU
    device's memory, zero there more often than not, hides; None where ``lab``'s
    device is no OpenCL device, or is the simulator, or none is installed."""
    if lab.backend != "opencl" or lab.info.kind == SIMULATOR:
        return None
    simulator = next((d for d in lab.listed if d.kind == SIMULATOR), None)
    if simulator is None:
        return None
    form = "cpu" if CPU_MACRO in device_macros(lab.info.kind) else "gpu"
    return _Lab(simulator.id, lab.precisions, None, SMALL_SIZE, lab.options.params, form, strict)


class _Recheck:
    """A kernel's survivors checked again on the simulator (`simulator_lab`), at
    `SMALL_SIZE` and the check sizes up to `RECHECK_MAX_SIZE`, smallest first, until
    a row kills the mutant: it reports a read or write one past an array's end, where
    the device read harmless memory, or a race, where its work-items ran in an
    order that hid it. The simulator's lab starts at the first survivor. No row of
    the unmutated kernel runs ahead (a sort's check has hundreds, minutes each
    there): a row that fails a mutant runs unmutated next, and kills it only if
    that passes; one that does not is left out after. A ``strict`` recheck also
    reports values read before any write: it comes second, as some unmutated
    kernels read such values harmlessly (a sort's padding), which leaves their rows
    out of it."""

    def __init__(
        self, primary: _Lab, spec: KernelSpec, files: Sequence[Path], strict: bool = False
    ) -> None:
        self.primary = primary
        self.strict = strict
        self.lab: _Lab | None = None
        self.spec = spec
        self.files = files
        self._tasks: list[Task] | None = None
        self._placed: dict[str, Path] = {}
        self._reaches: Reach | None = None
        #: Rows the unmutated kernel passes, and those it does not, on the simulator.
        self._sound: set[Task] = set()
        self._unsound: set[Task] = set()
        #: Whether the last mutant's rows were stopped before they ended.
        self.cut = False

    def _start(self) -> list[Task]:
        lab, spec = simulator_lab(self.primary, self.strict), self.spec
        if lab is None:
            return []
        self.lab = lab
        self._placed = lab.place(self.files)
        backend = get_backend(lab.backend)
        texts = {path.name: path.read_text(encoding="utf-8") for path in self.files}
        self._reaches = Reach(backend, lab.info, self.files[0], texts)
        with lab.compiling():
            tasks = dict.fromkeys(
                task
                for precision in lab.precisions
                for task in mutant_tasks(
                    spec,
                    lab.info,
                    dataclasses.replace(lab.options, precision=precision),
                    RECHECK_MAX_SIZE,
                )
                if not _calls_library_only(spec, task)
            )
        return sorted(tasks, key=lambda task: task.size)

    def __call__(
        self, mutant: Mutant, text: str, mutated: str, stopping: Callable[[], bool]
    ) -> str | None:
        """The reason the simulator kills a mutant; None where it cannot, or where
        ``stopping()`` cut its rows short (then ``cut`` is true)."""
        self.cut = False
        if self._tasks is None:
            self._tasks = self._start()
        if self.lab is None or self._reaches is None:
            return None
        with self.lab.compiling():
            reached = [
                t for t in self._tasks if t not in self._unsound and self._reaches(t, mutant)
            ]
        placed = self._placed[mutant.file]
        if reached:
            # A simulator's row takes up to minutes: say why nothing moves meanwhile.
            how = "strictly (values read before any write too)" if self.strict else "again"
            print(
                f"  checking {how} on {self.lab.info.id} (a survivor on {self.primary.info.id}), "
                f"which can take minutes: {mutant.describe()}",
                file=sys.stderr,
                flush=True,
            )
        # A row no small size reaches here leaves the mutant as it was.
        while reached:
            placed.write_text(mutated, encoding="utf-8")
            try:
                rows = self.lab.check(reached, SIMULATOR_TIMEOUT, stopping)
            finally:
                placed.write_text(text, encoding="utf-8")
            status, detail = _verdict(rows)
            if status == "survived" and len(rows) < len(reached):
                # Stopped before its rows ended: no verdict (`cut`).
                self.cut = True
                return None
            if status != "killed":
                return None
            task = reached[len(rows) - 1]
            if task in self._sound or self._passes(task):
                return f"on {self.lab.info.id}: {detail}"
            self._unsound.add(task)
            reached = reached[len(rows) :]
        return None

    def _passes(self, task: Task) -> bool:
        """Whether the unmutated kernel passes a row on the simulator."""
        assert self.lab is not None
        (row,) = self.lab.check([task], SIMULATOR_TIMEOUT)
        if row["status"] == "ok":
            self._sound.add(task)
        return row["status"] == "ok"

    def close(self) -> None:
        """Stop the simulator's lab, if it started."""
        if self.lab is not None:
            self.lab.close()


def mutant_tasks(
    spec: KernelSpec, info: DeviceInfo, options: RunOptions, max_size: int | None = None
) -> list[Task]:
    """The rows each mutant is checked with: every checked variant at a small odd
    size first, then each at its own check sizes (a sort's tile sets them), those
    up to ``max_size``."""
    small = plan([spec], [info], dataclasses.replace(options, sizes=(SMALL_SIZE,)))
    checked = plan([spec], [info], dataclasses.replace(options, sizes=()))
    kept = [t for t in checked if t.size != SMALL_SIZE and (max_size is None or t.size <= max_size)]
    return small + kept


def check_sizes(
    spec: KernelSpec, info: DeviceInfo, params: tuple[tuple[str, tuple[str, ...]], ...] = ()
) -> set[int]:
    """The sizes a kernel's check runs at on a device, every variant's, besides
    `SMALL_SIZE`: what ``--max-size`` may leave out."""
    return {t.size for t in mutant_tasks(spec, info, check_options(params))} - {SMALL_SIZE}


def _calls_library_only(spec: KernelSpec, task: Task) -> bool:
    """Whether a row's launches are all routines of the device's library
    (``--impl library``), none a kernel of the source."""
    launches = spec.with_params(dict(task.params)).plan(task.size)
    return bool(launches) and all(library_routine(launch.entry) for launch in launches)


def _choice(task: Task) -> str:
    """A row's run options as the command line gives them (``--impl library``)."""
    return " ".join(f"--{name} {value}" for name, value in task.params) or "its own"


def run_kernel(
    lab: _Lab,
    spec: KernelSpec,
    chosen: list[Mutant],
    equivalents: dict[tuple[str, ...], Equivalent],
    verbose: bool,
    outcomes: list[Outcome] | None = None,
    stopping: Callable[[], bool] = lambda: False,
    recheck: bool = False,
) -> tuple[list[Outcome], str | None]:
    """Every chosen mutant of one kernel, each added to ``outcomes`` as it ends (so
    that an interrupted kernel keeps them); a problem with the unmutated kernel
    instead. With ``recheck``, a mutant that survives is checked again on the
    OpenCL simulator (`_Recheck`), then strictly if it survives there, where the
    device is an OpenCL one and the simulator is installed.

    Once ``stopping()`` is true no other row or mutant starts, and a kill seen
    since is not counted: the signal that stops the run may have killed the
    worker. A ``--timeout`` under `TIMEOUT_MARGIN` times the unmutated kernel's
    slowest row is a problem: the clock would kill its mutants, not the check.
    """
    outcomes = [] if outcomes is None else outcomes
    backend = get_backend(lab.backend)
    assert backend.language is not None
    files = source_files(spec, backend.language, backend.extension)
    try:
        placed = lab.place(files)
    except OSError as exc:
        return outcomes, _scratch_problem(lab, exc)
    # A kernel of fixed types plans its own precision's rows at each precision asked.
    tasks = list(
        dict.fromkeys(
            task
            for precision in lab.precisions
            for task in mutant_tasks(
                spec, lab.info, dataclasses.replace(lab.options, precision=precision), lab.max_size
            )
        )
    )
    library = [t for t in tasks if _calls_library_only(spec, t)]
    if library and len(library) == len(tasks):
        return outcomes, (
            f"unmutated: every row of its check calls the device's library "
            f"({_choice(library[0])}), no kernel of its source, so no "
            "mutant could be told from the kernel; choose a variant that launches the source"
        )
    # A library row runs no line of the source: its pass would count for no mutant.
    tasks = [t for t in tasks if t not in library]
    lab.workers.options = dataclasses.replace(lab.options, timeout=MIN_TIMEOUT * 10)
    baseline = []
    slowest = 0.0
    for task in tasks:
        if stopping():
            return outcomes, None
        began = time.monotonic()
        baseline.append(lab.workers.execute(task))
        slowest = max(slowest, time.monotonic() - began)
    if stopping():
        return outcomes, None
    bad = [r for r in baseline if r["status"] in ("fail", "error")]
    if bad:
        row = bad[0]
        return (
            outcomes,
            f"unmutated: {row['kernel']} n={row['size']}: {row['status']}: {row['reason']}",
        )
    # Rows the device cannot run (f64 on a device without it) are left out.
    tasks = [t for t, r in zip(tasks, baseline, strict=True) if r["status"] == "ok"]
    if not tasks:
        return outcomes, f"unmutated: every row skipped: {baseline[0]['reason']}"
    ran = [r for r in baseline if r["status"] == "ok"]
    if not any(r.get("launches") for r in ran):
        # Rows that launch nothing (a sort of one key) cannot tell a mutant from the
        # kernel: its survival would be no finding of the check.
        skipped = [r for r in baseline if r["status"] == "skipped"]
        why = f"; the others are skipped: {skipped[0]['reason']}" if skipped else ""
        return outcomes, (
            f"unmutated: no row of its check launches a kernel here ({len(ran)} ok row(s) "
            f"launch none{why}), so no mutant could be told from the kernel"
        )
    if lab.fixed_timeout is not None and lab.fixed_timeout < TIMEOUT_MARGIN * slowest:
        return outcomes, (
            f"--timeout {lab.fixed_timeout:g} s is under {TIMEOUT_MARGIN:g}x the unmutated "
            f"kernel's slowest row ({slowest:.1f} s): the clock would kill its mutants, not "
            f"the check; give --timeout {TIMEOUT_MARGIN * slowest:.1f} or more, or leave it out"
        )
    timeout = lab.fixed_timeout or max(MIN_TIMEOUT, TIMEOUT_FACTOR * slowest)
    texts = {path.name: path.read_text(encoding="utf-8") for path in files}
    reaches = Reach(backend, lab.info, files[0], texts)
    again = [_Recheck(lab, spec, files, strict) for strict in (False, True)] if recheck else []
    try:
        return _each_mutant(
            lab, spec, chosen, equivalents, verbose, outcomes, stopping, tasks, timeout,
            placed, texts, reaches, again,
        )  # fmt: skip
    finally:
        for each in again:
            each.close()


def _each_mutant(
    lab: _Lab,
    spec: KernelSpec,
    chosen: list[Mutant],
    equivalents: dict[tuple[str, ...], Equivalent],
    verbose: bool,
    outcomes: list[Outcome],
    stopping: Callable[[], bool],
    tasks: list[Task],
    timeout: float,
    placed: dict[str, Path],
    texts: dict[str, str],
    reaches: Reach,
    recheck: Sequence[_Recheck],
) -> tuple[list[Outcome], str | None]:
    """`run_kernel`'s loop over the chosen mutants, once the unmutated kernel passed."""
    for mutant in chosen:
        if stopping():
            break
        device = lab.info.id
        known = equivalent(mutant, equivalents, spec.name)
        if known is not None:
            outcomes.append(Outcome(spec.name, device, mutant, "equivalent", known.why))
            continue
        try:
            placed[mutant.file].write_text(mutant.apply(texts[mutant.file]), encoding="utf-8")
        except OSError as exc:
            # Cut short, the source would fail to compile: a stillborn that is none.
            return outcomes, _scratch_problem(lab, exc)
        reached = [t for t in tasks if reaches(t, mutant)] or tasks
        status, detail = _verdict(lab.check(reached, timeout))
        try:
            placed[mutant.file].write_text(texts[mutant.file], encoding="utf-8")
            for each in recheck:
                if status != "survived" or stopping():
                    break
                mutated = mutant.apply(texts[mutant.file])
                found = each(mutant, texts[mutant.file], mutated, stopping)
                if found is not None:
                    status, detail = "killed", found
        except OSError as exc:
            outcomes.append(Outcome(spec.name, device, mutant, status, detail))
            return outcomes, _scratch_problem(lab, exc)
        if stopping() and (status == "killed" or any(each.cut for each in recheck)):
            # A kill may be the signal's, and a survivor's recheck cut short is none:
            # the mutant is left not run.
            break
        outcomes.append(Outcome(spec.name, device, mutant, status, detail))
        if verbose:
            print(f"  {status:<10} {mutant.describe()}", file=sys.stderr, flush=True)
    return outcomes, None


def _scratch_problem(lab: _Lab, error: OSError) -> str:
    """A kernel's problem where the lab's scratch folder (under TMPDIR) cannot take
    its sources, a full disk: the mutants checked so far are kept."""
    return (
        f"scratch folder {lab.root.parent}: cannot write the kernel's sources there "
        f"({error.strerror or error}); free some space there, or point TMPDIR at a folder "
        "with room"
    )


def all_mutants(
    spec: KernelSpec,
    backend: str,
    device: DeviceInfo | None = None,
    precisions: Sequence[str] = PRECISIONS,
    params: Mapping[str, Sequence[str]] | None = None,
) -> tuple[list[Mutant], int]:
    """Every mutant of the sources a backend compiles for a kernel, and how many more
    lie in code it never compiles there.

    With a ``device``, C sources go through the preprocessor with the kernel's
    defines at each precision (and each choice of its run options), and only
    mutants on lines it keeps are made: a line under a false ``#if`` (another
    key type's code in a shared sort header) is no part of this kernel, nor
    one that only run options other than ``params`` compile. WGSL sources keep
    the lines of the ``#ifdef`` branches the device takes.
    """
    chosen = get_backend(backend)
    if chosen.language is None:
        return [], 0
    files = source_files(spec, chosen.language, chosen.extension)
    texts = {path.name: path.read_text(encoding="utf-8") for path in files}
    found = [m for name, text in texts.items() for m in mutants(name, text)]
    if device is None or not files:
        return found, 0
    live: set[tuple[str, int]] = set()
    if chosen.language == "wgsl":  # no preprocessor: only the device's #ifdef branches
        selected = sources.select_branches(sources.expand(files[0]), device_macros(device.kind))
        lines = selected.text.splitlines()
        live = {at for line, at in zip(lines, selected.origin, strict=True) if line}
        combos = []
    else:
        combos = param_choices(spec, params or {}, check=True)
    for combo in combos:
        bound = spec.with_params(dict(combo))
        for precision in precisions:
            text = chosen.compiled_text(bound, files[0], precision, device)
            if text is None:
                return found, 0
            live |= live_lines(text)
    kept_lines = {
        name: continued(text.split("\n"), {line for file, line in live if file == name})
        for name, text in texts.items()
    }
    kept = [m for m in found if m.line in kept_lines[m.file]]
    return kept, len(found) - len(kept)


def sample(found: list[Mutant], count: int | None, seed: int) -> list[Mutant]:
    """``count`` of the mutants, picked at random with ``seed`` (in file order), or all."""
    if count is None or count >= len(found):
        return found
    picked = set(random.Random(seed).sample(range(len(found)), count))
    return [m for i, m in enumerate(found) if i in picked]


@dataclass
class Tally:
    """Counts for one kernel on one device."""

    kernel: str
    device: str
    made: int = 0
    killed: int = 0
    survived: int = 0
    stillborn: int = 0
    equivalent: int = 0
    problem: str | None = None
    #: Chosen mutants an interrupt left unchecked.
    left: int = 0

    @property
    def score(self) -> float | None:
        """Killed over killed plus survived; None when nothing counted."""
        counted = self.killed + self.survived
        return self.killed / counted if counted else None


def tally(
    kernel: str, device: str, outcomes: Sequence[Outcome], problem: str | None, left: int = 0
) -> Tally:
    """Counts of one kernel's outcomes (``left``: how many more an interrupt left unchecked)."""
    counts = Tally(kernel, device, made=len(outcomes), problem=problem, left=left)
    for outcome in outcomes:
        setattr(counts, outcome.status, getattr(counts, outcome.status) + 1)
    return counts


def _score(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _row(t: Tally) -> tuple[str, ...]:
    made = str(t.made) if not t.left else f"{t.made} of {t.made + t.left}"
    score = "not run" if t.problem is not None or (t.left and not t.made) else _score(t.score)
    counts = (t.killed, t.survived, t.stillborn, t.equivalent)
    return (t.kernel, t.device, made, *map(str, counts), score)


#: The first line of a table an interrupt cut short.
PARTIAL = "interrupted: a partial table (see 'interrupted before the end' below)"


def format_summary(
    tallies: Sequence[Tally], outcomes: Sequence[Outcome], stopped: str | None = None
) -> str:
    """The table per kernel and device, totals per device, then every survivor;
    a table an interrupt cut short says so first, and names what it left, as does
    one ``stopped`` for another reason (which it names)."""
    header = ("kernel", "device", "mutants", "killed", "survived", "stillborn", "equiv", "score")
    rows = [_row(t) for t in tallies]
    for device in dict.fromkeys(t.device for t in tallies):
        mine = [t for t in tallies if t.device == device]
        total = Tally("TOTAL", device)
        for t in mine:
            for name in ("made", "killed", "survived", "stillborn", "equivalent", "left"):
                setattr(total, name, getattr(total, name) + getattr(t, name))
        rows.append(_row(total))
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in [header, *rows]]
    cut = [t for t in tallies if t.left]
    if cut:
        first = PARTIAL if stopped is None else f"{stopped}: a partial table (see below)"
        lines = [first, *lines]
    problems = [t for t in tallies if t.problem]
    if problems:
        lines += ["", "not run:"] + [f"  {t.kernel} on {t.device}: {t.problem}" for t in problems]
    if cut:
        lines += ["", "interrupted before the end:" if stopped is None else f"{stopped}:"]
        lines += [
            f"  {t.kernel} on {t.device}: "
            + (f"{t.made} of {t.made + t.left} mutants checked" if t.made else "no mutant checked")
            for t in cut
        ]
    survivors = [o for o in outcomes if o.status == "survived"]
    if survivors:
        lines += ["", "survivors (the check cannot tell these bugs from the kernel):"]
        lines += [f"  {o.kernel} on {o.device}: {o.mutant.describe()}" for o in survivors]
    return "\n".join(lines)


CSV_COLUMNS = (
    "kernel",
    "device",
    "file",
    "line",
    "column",
    "operator",
    "status",
    "original",
    "mutated",
    "detail",
)


class WriteFailed(UsageError):
    """Writing the mutants folder failed (a full disk, say); what was written stays."""


def _write(path: Path, text: str) -> None:
    """One file of a mutants folder, written whole or not at all."""
    results.write_text(path, text)


def write_folder(
    out: Path,
    tallies: Sequence[Tally],
    outcomes: Sequence[Outcome],
    scope: str = "",
    stopped: str | None = None,
) -> Path:
    """A new ``mutants-...`` folder under ``out`` with mutants.csv and summary.txt
    (which ends with ``scope``, what narrowed the run, where something did, and
    names why a partial table was ``stopped``, as `format_summary` does);
    WriteFailed naming the folder and the error where writing fails, which
    leaves no folder (a mutants.csv without its summary reads as a whole run)."""
    folder = out
    made = False
    try:
        out.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("mutants-%Y%m%d-%H%M%S")
        for n in range(1000):
            folder = out / (stamp if n == 0 else f"{stamp}-{n}")
            try:
                folder.mkdir()
                made = True
                break
            except FileExistsError:
                continue
        else:
            raise FileExistsError(f"no new name for a mutants folder left in {out}")
        table_text = io.StringIO()
        writer = csv.writer(table_text)
        writer.writerow(CSV_COLUMNS)
        for o in outcomes:
            m = o.mutant
            where = (m.file, m.line, m.column, m.operator)
            change = (m.original.strip(), m.mutated.strip())
            writer.writerow((o.kernel, o.device, *where, o.status, *change, o.detail))
        _write(folder / "mutants.csv", table_text.getvalue())
        summary = format_summary(tallies, outcomes, stopped) + (f"\n\n{scope}" if scope else "")
        _write(folder / "summary.txt", summary + "\n")
    except OSError as exc:
        if made:
            shutil.rmtree(folder, ignore_errors=True)
        room = results.room_fix(exc.errno)
        todo = f"{room} and run it again" if room else "give --out another folder"
        raise WriteFailed(
            f"cannot write to mutants folder {folder}: {exc.strerror or exc}; nothing was "
            f"kept (the table above is the result); {todo}"
        ) from None
    return folder


@dataclass(frozen=True)
class Lines:
    """A file's lines to mutate, as ``--lines FILE:FIRST-LAST`` names them."""

    file: str
    first: int
    last: int

    def __str__(self) -> str:
        return f"{self.file}:{self.first}" + (f"-{self.last}" if self.last > self.first else "")

    def holds(self, mutant: Mutant) -> bool:
        """Whether the mutant is on one of these lines."""
        return mutant.file == self.file and self.first <= mutant.line <= self.last
