"""`harness run`: rows executed into a run folder, alone or as one rank of an MPI job."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import os
import re
import select
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from harness import suite
from harness.cli.devices import Catalogs, choose_devices
from harness.cli.run_plan import (
    check_ranks_devices,
    check_resumable,
    new_run,
    note_foreign,
    note_ignored,
    options_from_meta,
    resumed_run,
    row_key,
    saved_run,
    task_key,
)
from harness.errors import OutputError, UsageError
from harness.execution import metadata, peaks, ranks, results
from harness.execution.results import STOP_SIGNALS
from harness.execution.runner import RunOptions, Task, ahead, base_row, plan
from harness.execution.workers import CHECK_LANES, InProcess, Workers
from harness.reporting import table

#: What each rank of an MPI run sends rank 0 as it plans: its tasks, its devices,
#: its host, its process id and its devices' measured peaks.
RankPlan = tuple[list[Task], list[dict[str, Any]], str, int, dict[str, Any]]


def _where(row: dict[str, Any]) -> str:
    """A row's device as the table names it: with its MPI rank in an MPI run."""
    rank = row.get("rank")
    return f"{row['device_id']} r{rank}" if isinstance(rank, int) else str(row["device_id"])


class Progress:
    """How a run reports its rows as they finish: a line per row (a log, as in CI),
    or a live bar with the row in hand and the time left (tqdm: on a terminal, and
    in a notebook when the Python API asks), the lines of rows that are not ok
    printed above it."""

    def __init__(self, total: int, bar: bool | None = None) -> None:
        self.total = total
        self._bar = None
        # A process without a standard error (sys.stderr None: started with it closed,
        # or by pythonw) gets no bar: tqdm's first write ended the run in a traceback,
        # its folder left unended; the lines it would print go nowhere, as print's do.
        if sys.stderr is not None and (bar if bar is not None else sys.stderr.isatty()):
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, unit="row", desc="harness run", file=sys.stderr)

    def row(self, i: int, row: dict[str, Any]) -> None:
        """Report the ``i``-th row (from 0), just finished."""
        line = (
            f"[{i + 1}/{self.total}] {table.label(row, suite.PARAMS)} on {_where(row)} "
            f"{row['precision']} n={row['size']}: {row['status']}"
        )
        if row.get("time_median_s"):
            line += f", median {table.format_time(row['time_median_s'])}"
            if row.get("gbytes_per_s"):
                line += f", {row['gbytes_per_s']:.3g} GB/s"
        sized = bool(row.get("sized_from"))
        if (row["status"] != "ok" or sized) and row.get("reason"):
            line += f" ({row['reason']})"
        if self._bar is None:
            print(line, file=sys.stderr, flush=True)
            return
        if row["status"] not in ("ok", "skipped") or sized:
            self._bar.write(line, file=sys.stderr)
        self._bar.set_postfix_str(
            f"{table.label(row, suite.PARAMS)} on {_where(row)}", refresh=False
        )
        self._bar.update(1)

    def close(self) -> None:
        """End the bar, if there is one."""
        if self._bar is not None:
            self._bar.close()


def _cmd_run(args: argparse.Namespace) -> int:
    return run_command(args)[0]


def run_command(args: argparse.Namespace, bar: bool | None = None) -> tuple[int, Path]:
    """`harness run` for parsed arguments: its exit status and run folder. ``bar``
    asks for a live progress bar (default: where stderr is a terminal); an
    ``args.quiet`` run prints no table at its end."""
    world = ranks.world(getattr(args, "lost_after", ranks.LOST_AFTER_S))
    try:
        return _run_command(args, bar, world)
    except UsageError as exc:
        if world is None:
            raise
        # A usage error one rank finds alone (rank 0's --out or --resume folder) would
        # leave the others waiting for it for ever: this rank's end ends the job. One
        # every rank finds (in the options) rank 0 says, not each rank again.
        if world.rank != 0:
            ranks.await_end(2)
        print(f"harness: error: {exc}", file=sys.stderr, flush=True)
        ranks.end_job(2)
    except ranks.PlanLost as exc:
        assert world is not None
        print(
            f"harness: error: rank {exc} fell silent while the ranks planned (nothing heard "
            f"from it for {world.lost_after:g} s: stopped, killed or hung); nothing was run",
            file=sys.stderr,
            flush=True,
        )
        ranks.end_job(1)
    except ranks.RankLost:
        assert world is not None
        print(
            f"rank {world.rank}: rank 0 fell silent while the ranks planned (nothing heard "
            f"from it for {world.lost_after:g} s); nothing was run",
            file=sys.stderr,
            flush=True,
        )
        ranks.end_job(1)
    except KeyboardInterrupt:
        if world is None:
            raise
        ends = "it ends the run" if world.rank == 0 else "rank 0 ends the run"
        print(f"harness run: rank {world.rank} interrupted; {ends}", file=sys.stderr, flush=True)
        # Rank 0 ends the run as interrupted and tells the others, which wait for it.
        if world.rank == 0:
            world.release(130)
        world.interrupted()


def _run_command(
    args: argparse.Namespace, bar: bool | None, world: ranks.World | None
) -> tuple[int, Path]:
    stop = _Stop()
    try:
        with contextlib.ExitStack() as held:
            if world is None:
                held.enter_context(_handling(stop))
            meta: dict[str, Any] = {}
            refused: UsageError | None = None
            if args.resume and (world is None or world.rank == 0):
                try:
                    results.check_folder(args.resume)
                    held.enter_context(results.lock(args.resume))
                    meta = saved_run(args.resume)
                except UsageError as exc:
                    if world is None:
                        raise
                    refused = exc
            saved = meta.get("options", {})
            if world is not None:
                # Heartbeats from here on: a rank lost while the ranks plan ends the job.
                world.start(args.lost_after)
            if world is not None and args.resume:
                # A run folder rank 0 cannot resume ends every rank: the others waited
                # for its options until the launcher stopped them, each then saying
                # it was interrupted.
                why, saved = world.bcast((refused and str(refused), saved))
                if refused is not None:
                    raise refused
                if why:
                    ranks.await_end(2)
                    raise UsageError(why)
            if args.in_process or saved.get("in_process"):
                executor: InProcess | Workers = InProcess()
            else:
                executor = Workers(saved["timeout"] if args.resume else args.timeout)
            held.callback(executor.close)
            if world is not None:
                ended: list[tuple[int, Path]] = []
                try:
                    return _execute_ranks(args, meta, executor, held, world, bar, ended)
                except KeyboardInterrupt:
                    # A stop signal on the way out, once the run's end was written and
                    # every rank told: the run is whole and exits by its rows (it ended
                    # the job as 'rank 0 interrupted', 130).
                    if not ended:
                        raise
                    return ended[0]
            status, run_dir = _execute_run(args, meta, executor, held, bar, stop)
            whole = not stop.received
        if whole and stop.received:
            # A signal while the workers closed, the summary printed, said 'stopping'
            # and the run still exited 0: a job stopped (scancel) says so by its status.
            print("stopped as the run ended: every row was run", file=sys.stderr)
            return stop.status(), run_dir
        # A second SIGTERM while the workers closed, once the run had chosen its
        # status, said 'stopping now' and still ended with 130.
        return (stop.status() if status == 130 else status), run_dir
    except results.WriteError as exc:
        raise UsageError(_write_failure(exc, world)) from None
    except KeyboardInterrupt:
        if not stop.received:
            raise
        print("stopped before any row ran; nothing was measured", file=sys.stderr)
        return stop.status(), Path(args.resume or args.out)


class _Stop:
    """What the run's stop signals (SIGINT, SIGTERM) asked for: the first lets the
    row in hand finish; the second stops at once, cutting that row short
    (KeyboardInterrupt) unless the run is writing, which then stops next."""

    def __init__(self) -> None:
        self.received: list[int] = []
        #: Whether a second signal may raise here (not while rows are written).
        self.cuttable = True
        #: Where each signal's arrival is written (`_handling`): Python runs a handler
        #: once for two of one signal that came during one long C call (making a
        #: row's inputs), and the second Ctrl-C was lost.
        self.wakeup: int | None = None
        #: Held to read the signals come, and to end a row: `_StuckRow` reads them too.
        self.lock = threading.RLock()
        #: What the first signal lets finish, as its line says: the row in hand, or
        #: the kernels in hand while a timed run builds first (no row runs after).
        self.finishing = "the current row"

    def arrivals(self, signum: int) -> list[int]:
        """The stop signals come since the last look, each as often as it came; none
        where a look before took this one's too."""
        if self.wakeup is None:
            return [signum]
        with self.lock:
            try:
                written = os.read(self.wakeup, 4096)
            except BlockingIOError:
                written = b""
        return [s for s in written if s in STOP_SIGNALS]

    def status(self) -> int:
        """The exit status of a run these signals stopped: 143 after a second
        SIGTERM, else 130."""
        twice = len(self.received) > 1 and self.received[-1] == signal.SIGTERM
        return 143 if twice else 130

    def __call__(self, signum: int, frame: Any) -> None:
        for each in self.arrivals(signum):
            self._take(each)

    def _take(self, signum: int, cut: bool = True) -> None:
        self.received.append(signum)
        name = results.stop_name(signum)
        if len(self.received) == 1:
            print(
                f"\n{name}: stopping after {self.finishing} ({name} again to stop now)",
                file=sys.stderr,
                flush=True,
            )
        elif len(self.received) == 2:
            print(f"\n{name}: stopping now", file=sys.stderr, flush=True)
            if cut and self.cuttable:
                raise KeyboardInterrupt


class _StuckRow:
    """A thread that takes the stop signals of an --in-process run whose row is
    stuck in one C call (a kernel that never ends): Python runs handlers only
    between its own steps, so neither signal was taken and only SIGKILL ended
    the run, unmarked. Signals the handler leaves untaken for `GRACE_S` are taken
    here: the first says it stops after the row, as there; at the second the run's
    end is written, the row in hand left out, and ``end`` ends the process, which
    alone stops that call."""

    GRACE_S = 1.0

    def __init__(self, stop: _Stop, end: Callable[[], None]) -> None:
        self._stop = stop
        self._end = end
        self._over = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="stuck-row", daemon=True)

    def __enter__(self) -> _StuckRow:
        if self._stop.wakeup is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._over.set()
        if self._thread.is_alive():
            self._thread.join()

    def _untaken(self, timeout: float) -> bool:
        assert self._stop.wakeup is not None
        return bool(select.select([self._stop.wakeup], [], [], timeout)[0])

    def _watch(self) -> None:
        while not self._over.is_set():
            if not self._untaken(0.2) or self._over.wait(self.GRACE_S) or not self._untaken(0):
                continue
            with self._stop.lock:
                if not self._stop.cuttable:
                    # Writing a row, not stuck in one: the handler takes them.
                    continue
                for signum in self._stop.arrivals(0):
                    self._take(signum)

    def _take(self, signum: int) -> None:
        self._stop._take(signum, cut=False)
        if len(self._stop.received) == 2:
            self._end()


class _RankStop(_Stop):
    """The stop signals of an MPI run's rank from its first row to its end, in one
    handler switched by flags: a handler swapped in once the last row was counted
    left a moment where a SIGTERM ended the job with the run's end unwritten. The
    signals while a row is measured (``cuttable``) raise KeyboardInterrupt: the
    run ends interrupted. One while rank 0 writes a row and counts it is held
    until it is counted (`written`): raised in the journal's fsync, it left the row
    written but not counted. Those after are noted only: mpirun forwards the job's
    signal to ranks that had it already, and one raised while an interrupted run
    wrote its end left it with none; once every row is in (``all_run``), the job
    ends by its rows, where a SIGTERM killed rank 0 or marked the run interrupted."""

    def __init__(self) -> None:
        super().__init__()
        #: Whether every row is in, and the run ends by them.
        self.all_run = False
        self._said = False

    def __call__(self, signum: int, frame: Any) -> None:
        came = self.arrivals(signum)
        self.received.extend(came)
        if came and self.cuttable:
            # Raised again by the next signal too, as one swallowed where it was
            # raised (a finalizer's) would be lost: the run's except clause ends it.
            raise KeyboardInterrupt
        if came and self.all_run:
            self._say()

    def written(self) -> None:
        """A row written and counted: a signal that came meanwhile is taken now."""
        self.cuttable = True
        if self.received:
            self.cuttable = False
            raise KeyboardInterrupt

    def end(self) -> None:
        """Every row is in: the run ends by them, as it says where a signal came."""
        self.cuttable = False
        self.all_run = True
        if self.received:
            self._say()

    def _say(self) -> None:
        if self._said:
            return
        self._said = True
        signum = self.received[0]
        name = results.stop_name(signum)
        print(f"\n{name}: every row has run; ending the run", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _handling(stop: _Stop) -> Iterator[None]:
    """``stop`` handles SIGINT and SIGTERM until the run has written everything.
    Only the main thread may handle signals (a notebook runs code there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, stop) for s in STOP_SIGNALS}
    read, write = os.pipe()
    os.set_blocking(read, False)
    os.set_blocking(write, False)
    before = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    stop.wakeup = read
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(before)
        stop.wakeup = None
        os.close(read)
        os.close(write)


def _open_journal(run_dir: Path, meta: dict[str, Any], what: str) -> results.Journal:
    """Write the run's metadata and open its journal, then say on stderr where the
    rows go and ``what`` is to run: the step before the first row, alone or in MPI."""
    with results.writing(run_dir):
        results.write_json(run_dir / results.METADATA, meta)
        journal = results.Journal(run_dir)
    print(f"run folder: {run_dir} ({what})", file=sys.stderr, flush=True)
    return journal


def _write_failure(exc: results.WriteError, world: ranks.World | None = None) -> str:
    """What to say when the run folder cannot be written: what is kept and what to do
    (a run of MPI ranks is resumed by as many, as a resume without them is refused)."""
    fix = results.room_fix(exc.error.errno) or "make it writable"
    if (exc.run_dir / results.METADATA).exists():
        launch = "" if world is None else f"mpirun -n {world.size} "
        return (
            f"{exc}; the rows finished so far are kept; {fix}, then continue with: "
            f"{launch}harness run --resume {shlex.quote(str(exc.run_dir))}"
        )
    results.discard(exc.run_dir)
    return f"{exc}; nothing was run and the empty folder is removed; {fix}, then run again"


def _execute_run(
    args: argparse.Namespace,
    saved: dict[str, Any],
    executor: InProcess | Workers,
    held: contextlib.ExitStack,
    bar: bool | None,
    stop: _Stop,
) -> tuple[int, Path]:
    """Run the tasks of a new run, or the rest of a resumed one (``saved``, its
    metadata), into its run folder, which ``held`` keeps locked; return the exit
    status and the folder. ``stop`` holds the stop signals received."""
    if args.resume:
        if saved.get("ranks"):
            count = len(saved["ranks"])
            raise UsageError(
                f"--resume: {args.resume} is a run of {count} MPI ranks; resume it with "
                f"them all: mpirun -n {count} harness run --resume {shlex.quote(str(args.resume))}"
            )
        numbered = _forget_cut_rows(args.resume, saved)
        run_dir, meta, tasks = resumed_run(args, saved, executor.catalogs, numbered)
        if not tasks and _ended(run_dir, saved):
            # Its end and metadata stay the run's own: nothing was run again.
            return _nothing_to_resume(run_dir, saved), run_dir
        if isinstance(executor, InProcess) and not meta["options"]["in_process"]:
            # The run's options stay its own (a later resume runs in workers again),
            # but the rows of this resume ran in this process: its metadata said
            # nothing of it, as if a worker had run them.
            meta.setdefault("resumed_in_process", []).append(meta["resumed"][-1])
    else:
        new_dir, meta, tasks = new_run(args, executor.catalogs)
        assert new_dir is not None
        run_dir = new_dir
        try:
            held.enter_context(results.lock(run_dir))
        except KeyboardInterrupt:
            # Stopped before its journal: the folder just made holds nothing.
            results.discard(run_dir)
            raise
    stop.cuttable = False
    # An --in-process resume of a run of workers runs its rows as an --in-process run
    # does (a simulator's spent session is then an error row, not reused).
    options = dataclasses.replace(
        options_from_meta(meta["options"]),
        images=run_dir / results.IMAGES,
        in_process=isinstance(executor, InProcess),
    )
    by_id = {d.get("id"): d for d in meta["devices"]}
    journal = _open_journal(
        run_dir, meta, f"{len(tasks)} row{'' if len(tasks) == 1 else 's'} to run"
    )
    progress = Progress(len(tasks), bar)
    finished = 0
    failure: results.WriteError | None = None
    try:
        executor.start(options, by_id, tasks)
        if not options.check and isinstance(executor, Workers):
            built = _build_ahead(executor, tasks, by_id, options, stop, bar)
            meta["built_ahead"] = _built_in_all(meta.get("built_ahead"), built)
        # A verification-only run times nothing: each device's worker takes its
        # next row as soon as it is free (in this process, one after another).
        stream = executor.rows(tasks, lambda: bool(stop.received), together=options.check)
        if isinstance(executor, InProcess):
            held.enter_context(
                _StuckRow(stop, lambda: _stuck_end(run_dir, meta, finished, tasks, stop))
            )
        while True:
            stop.cuttable = True
            row = next(stream, None)
            with stop.lock:
                stop.cuttable = False
            if row is None:
                break
            if stop.received and isinstance(executor, InProcess) and row["status"] == "error":
                # In this process a driver's own handler can turn the interrupt
                # into the row's error (a compiler's files deleted): --resume runs it.
                continue
            peaks.place(row, meta.get("peaks", {}).get(row["device_id"]))
            with results.writing(run_dir):
                journal.append(row)
            progress.row(finished, row)
            finished += 1
    except KeyboardInterrupt:
        if not stop.received:
            raise
    except results.WriteError as exc:
        failure = exc
    finally:
        stop.cuttable = False
        progress.close()
        journal.close()
        interrupted = finished < len(tasks)
        if failure is None:
            rows, summary = _write_end(run_dir, meta, interrupted)
        else:
            meta["end"] = metadata.now()
            meta["interrupted"] = interrupted
            # The journal already says what ran; the rest is derived from it later.
            with contextlib.suppress(OSError, results.RunFolderError):
                meta["journal_rows"] = len(results.read_journal(run_dir))
            with contextlib.suppress(OSError):
                results.write_json(run_dir / results.METADATA, meta)
    if failure is not None:
        raise failure
    if not getattr(args, "quiet", False):
        _show(summary, run_dir)
    if interrupted:
        print(
            f"interrupted: {finished} of {len(tasks)} rows run; "
            f"continue with: {results.resume_command(run_dir, meta)}",
            file=sys.stderr,
        )
        return stop.status(), run_dir
    if stop.received:
        # The signal came during the last row, which it let finish: the run is whole,
        # but a job stopped (scancel) says so by its status.
        print(f"stopped after the last row: all {len(tasks)} rows run", file=sys.stderr)
        return stop.status(), run_dir
    return exit_status(rows, bool(options.check)), run_dir


def _built_in_all(before: Any, built: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a run built ahead in all: a resume's building added to its run's (a resume
    that built nothing, or less, wrote over the run's own record, null)."""
    if not isinstance(before, dict):
        return built
    if built is None:
        return before
    total = dict(built)
    for key in ("kernels", "built", "seconds"):
        if isinstance(before.get(key), int | float) and not isinstance(before.get(key), bool):
            total[key] = round(before[key] + built[key], 3)
    return total


def _write_end(
    run_dir: Path, meta: dict[str, Any], interrupted: bool
) -> tuple[list[dict[str, Any]], str]:
    """Write a run's end into its metadata, and its summary: its rows and that summary."""
    meta["end"] = metadata.now()
    meta["interrupted"] = interrupted
    rows = results.read_journal(run_dir)
    meta["journal_rows"] = len(rows)
    summary = table.format_rows(rows, suite.PARAMS)
    with results.writing(run_dir):
        results.write_json(run_dir / results.METADATA, meta)
        _finish(run_dir, rows, summary)
    return rows, summary


def _finish(run_dir: Path, rows: list[dict[str, Any]], summary: str) -> None:
    """Write results.csv and summary.txt of the rows just read from the journal
    (`results.finish` reads it again, naming each damaged line a second time)."""
    results.write_csv(run_dir / results.RESULTS, rows)
    results.write_text(run_dir / results.SUMMARY, summary + "\n")


def _stuck_end(
    run_dir: Path, meta: dict[str, Any], finished: int, tasks: list[Task], stop: _Stop
) -> None:
    """End an --in-process run whose row is stuck in a C call (`_StuckRow`): its end
    written, the row in hand left out, the process ended with the run's status."""
    try:
        _write_end(run_dir, meta, True)
    except (OSError, results.RunFolderError) as exc:
        print(f"harness: error: {exc}; the rows finished are in its journal", file=sys.stderr)
    print(
        f"interrupted: {finished} of {len(tasks)} rows run; the row in hand is stuck in a "
        "call into its driver, which only the end of this process stops; continue with: "
        f"{results.resume_command(run_dir, meta)}",
        file=sys.stderr,
        flush=True,
    )
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    os._exit(stop.status())


def _show(summary: str, run_dir: Path) -> None:
    """Print a finished run's table and folder. A standard output that cannot take
    them (a full disk) is said on stderr and costs nothing else: the folder holds
    every row and the table, and the run's status is its rows'. A reader gone
    (``| true``) is quiet, as for any pipe, and changes the status no more (it was 141,
    whatever the rows)."""
    try:
        print(summary)
        print(f"\nrun folder: {run_dir}")
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OutputError as exc:
        with contextlib.suppress(AttributeError):  # no stdout at all (closed: >&-)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(
            f"harness: warning: cannot write the standard output ({exc.strerror or exc}); "
            f"the run is complete, its table in {run_dir / results.SUMMARY}",
            file=sys.stderr,
        )


def _build_ahead(
    executor: Workers,
    tasks: list[Task],
    devices: dict[str, dict[str, Any]],
    options: RunOptions,
    stop: _Stop,
    bar: bool | None = None,
) -> dict[str, Any] | None:
    """Build a timed run's kernels for its CPU devices first, several at once
    (`harness.execution.runner.ahead`), saying so: with a driver's cache empty
    that is most of a first run's time, and its timed rows run one at a time.
    What it built and the seconds it took (host time of no row), for the run's
    metadata; None where it built nothing."""
    todo = ahead(tasks, devices, options)
    if len(todo) < 2 or CHECK_LANES < 2:
        return None
    where = ", ".join(sorted({f"{t.backend}:{t.device}" for t in todo}))
    # From its line on: a signal that came as it was read was said to let a row finish.
    stop.finishing = "the kernels being compiled"
    print(
        f"building {len(todo)} kernels for {where} first, {CHECK_LANES} at a time",
        file=sys.stderr,
        flush=True,
    )
    start = time.monotonic()
    shown = None
    if bar if bar is not None else sys.stderr.isatty():
        from tqdm.auto import tqdm

        shown = tqdm(total=len(todo), unit="kernel", desc="building", file=sys.stderr)
    try:
        built = executor.prepare(
            todo, lambda: bool(stop.received), None if shown is None else lambda _: shown.update()
        )
    finally:
        stop.finishing = "the current row"
        if shown is not None:
            shown.close()
    seconds = time.monotonic() - start
    if stop.received:
        unbuilt = f" of {len(todo)}, stopped"
    elif built < len(todo):
        unbuilt = f"; {len(todo) - built} not, as their rows will say"
    else:
        unbuilt = ""
    print(f"built {built} in {seconds:.0f} s{unbuilt}", file=sys.stderr, flush=True)
    return {
        "kernels": len(todo),
        "built": built,
        "seconds": round(seconds, 3),
        "lanes": CHECK_LANES,
    }


#: The reason of a row whose worker the run's own Ctrl-C or SIGTERM killed, as
#: harnesses recorded it before workers were shielded from those signals.
_KILLED_BY_STOP = re.compile(r"worker crashed: signal (2|15) \(SIG(INT|TERM)\)")


def _forget_cut_rows(
    run_dir: Path, meta: dict[str, Any]
) -> list[tuple[int, dict[str, Any]]] | None:
    """Blank the journal lines of an interrupted run's rows that the interruption
    cut short, so that the resume runs them again: rows whose worker died of the
    run's own stop signal, and a compile error as the last row (the compiler's
    files deleted by its driver's signal handler). A blank line keeps every other
    row's line number, which keys its samples. The journal's rows left, with
    their line numbers, where it was read (each damaged line named once: a resume
    named each twice before its first row); None where the run was not interrupted."""
    if meta.get("interrupted") is not True:
        return None
    numbered = results.read_numbered(run_dir)
    cut = {
        number
        for number, row in numbered
        if row["status"] == "error" and _KILLED_BY_STOP.match(str(row.get("reason")))
    }
    if numbered:
        number, last = numbered[-1]
        if last["status"] == "error" and str(last.get("reason")).startswith("compile error"):
            cut.add(number)
    if not cut:
        return numbered
    path = run_dir / results.JOURNAL
    lines = path.read_bytes().split(b"\n")
    for number in cut:
        lines[number - 1] = b""
    print(
        f"note: {len(cut)} row(s) that the interruption cut short run again "
        f"(lines {', '.join(map(str, sorted(cut)))} of {path})",
        file=sys.stderr,
    )
    with results.writing(run_dir):
        staged = path.with_name(path.name + ".tmp")
        staged.write_bytes(b"\n".join(lines))
        os.replace(staged, path)
        if isinstance(meta.get("journal_rows"), int):
            # Blanked here, not removed by hand: the count says so at once, on disk
            # too (the resume's own reading of the journal warned that rows were
            # removed, and a resume stopped before its first row left it so).
            meta["journal_rows"] = max(0, meta["journal_rows"] - len(cut))
            results.write_json(run_dir / results.METADATA, meta)
    return [(number, row) for number, row in numbered if number not in cut]


def _execute_ranks(
    args: argparse.Namespace,
    saved: dict[str, Any],
    executor: InProcess | Workers,
    held: contextlib.ExitStack,
    world: ranks.World,
    bar: bool | None,
    result: list[tuple[int, Path]],
) -> tuple[int, Path]:
    """This rank's part of an MPI run (`harness.execution.ranks`): its rows, in step
    with the other ranks, gathered by rank 0 into the one run folder. A resume
    (``saved``: the run's metadata, in rank 0) runs, in step, every row some rank
    lacks, and keeps each rank's only where it lacked it; ``result`` gets its end."""
    made = numbered = None
    # What each rank says as it plans (notes on its options) rank 0 says once.
    notes = io.StringIO()
    try:
        with contextlib.redirect_stderr(notes):
            if args.resume:
                run_dir, meta, tasks, numbered = _resumed_rank(args, saved, executor, world)
            else:
                made, meta, tasks = new_run(args, executor.catalogs, world)
    finally:
        if world.rank == 0:
            sys.stderr.write(notes.getvalue())
    try:
        if not args.resume:
            run_dir = Path(world.bcast(str(made) if made else ""))
        planned = world.gather(
            (tasks, meta["devices"], world.host, os.getpid(), meta.get("peaks") or {})
        )
        said = world.gather((notes.getvalue(), _chosen(args, meta)))
    except (ranks.PlanLost, KeyboardInterrupt):
        # Nothing was run: the new folder holds nothing worth keeping (a rank's Ctrl-C
        # here left it empty, named as a run).
        if made is not None:
            results.discard(made)
        raise
    problem = None
    journal = None
    #: The status of a resumed run that had ended, which is left as it was.
    ended: int | None = None
    steps = list(range(len(tasks)))
    wanted: list[set[int]] = []
    if world.rank == 0:
        assert planned is not None and said is not None
        _say_ranks_notes([text for text, _ in said])
        counts = [len(each) for each, *_ in planned]
        if len(set(counts)) > 1:
            problem = (
                f"the ranks planned different numbers of rows ({counts}): "
                "give them the same devices"
            )
        else:
            problem = _differing_plan([each for each, *_ in planned])
        problem = problem or _differing_options([chosen for _, chosen in said])
        if args.resume:
            why, wanted = _left_to_run(run_dir, meta["options"], planned, numbered)
            problem = problem or why
        else:
            wanted = [set(range(len(each))) for each, *_ in planned]
        steps = sorted(set().union(*wanted))
        _add_ranks(meta, planned)
        if problem and not args.resume:
            # Refused before any row: the new folder holds nothing worth keeping.
            results.discard(run_dir)
        elif not problem and args.resume and not steps and _ended(run_dir, saved):
            ended = _nothing_to_resume(run_dir, saved)
        elif not problem:
            if not args.resume:
                held.enter_context(results.lock(run_dir))
            journal = _open_journal(
                run_dir, meta, f"{len(steps)} rows on each of {world.size} ranks"
            )
    problem, steps = world.bcast((problem, steps))
    if problem:
        raise UsageError(problem)
    options = dataclasses.replace(
        options_from_meta(meta["options"]),
        images=run_dir / results.IMAGES,
        in_process=isinstance(executor, InProcess),
    )
    # Rank 0's own devices, where the metadata lists each host's (`_add_ranks`).
    by_id = {d.get("id"): d for d in meta["devices"] if d.get("host") in (None, world.host)}
    executor.start(options, by_id, [tasks[i] for i in steps])
    progress = Progress(sum(map(len, wanted)), bar) if journal is not None else None
    finished = 0
    lost: dict[int, str] = {}
    hosts = [host for _, _, host, *_ in planned] if planned else []
    stop = _RankStop()
    with _handling(stop):
        try:
            for index in steps:
                task = tasks[index]
                # The ranks measure together, row by row, as RAJAPerf's MPI runs do.
                before = world.step()
                row = executor.execute(task)
                row.update(rank=world.rank, host=world.host)
                gathered, during = world.rows(row)
                if journal is None or progress is None or planned is None:
                    continue
                for r in sorted(before | during):
                    lost[r] = (
                        f"rank {r} on {hosts[r]} was lost at row {index + 1} "
                        f"({task.kernel}): nothing heard from it for {args.lost_after:g} s, "
                        "so it crashed, was killed or hangs"
                    )
                for r in range(world.size):
                    if index not in wanted[r]:
                        continue
                    each = gathered.get(r)
                    if each is None:
                        mine = planned[r][0][index]
                        each = base_row(
                            mine, by_id.get(f"{mine.backend}:{mine.device}", {}).get("name")
                        )
                        each.update(status="error", reason=lost[r], rank=r, host=hosts[r])
                    peaks.place(each, planned[r][4].get(each["device_id"]))
                    stop.cuttable = False
                    with results.writing(run_dir):
                        journal.append(each)
                        finished += 1
                    progress.row(finished - 1, each)
                    stop.written()
            stop.cuttable = False
        except ranks.RankLost:
            print(
                f"rank {world.rank}: rank 0, which writes the run folder, was lost (nothing heard "
                f"from it for {args.lost_after:g} s); the rows it wrote are in {run_dir}: finish "
                f"the run with: mpirun -n {world.size} harness run --resume "
                f"{shlex.quote(str(run_dir))}",
                file=sys.stderr,
            )
            return world.finish(1), run_dir
        except KeyboardInterrupt:
            stop.cuttable = False
            if journal is None or progress is None:
                raise
            if finished < progress.total:
                _interrupted_ranks(run_dir, meta, journal, progress, finished, world)
        stop.end()
        status = ended or 0
        if journal is not None and progress is not None:
            status = _all_run(args, run_dir, meta, journal, progress)
        held.close()  # the workers too, signals held: one then made a whole run 130
        result.append((world.finish(status), run_dir))
    return result[0]


def _interrupted_ranks(
    run_dir: Path,
    meta: dict[str, Any],
    journal: results.Journal,
    progress: Progress,
    finished: int,
    world: ranks.World,
) -> NoReturn:
    """Rank 0's end of an MPI run a stop signal interrupted after ``finished`` rows:
    its end written, the other ranks told, the job ended with 130."""
    _end_ranks_run(run_dir, meta, journal, progress, interrupted=True)
    print(
        f"interrupted: {finished} of {progress.total} rows run; continue with: "
        f"{results.resume_command(run_dir, meta)}",
        file=sys.stderr,
    )
    # The other ranks took the signal too, or wait for this one's word.
    world.release(130)


def _all_run(
    args: argparse.Namespace,
    run_dir: Path,
    meta: dict[str, Any],
    journal: results.Journal,
    progress: Progress,
) -> int:
    """Rank 0's end of an MPI run whose every row has run: its end written, its table
    shown; its exit status by its rows."""
    rows, summary = _end_ranks_run(run_dir, meta, journal, progress, interrupted=False)
    if not getattr(args, "quiet", False):
        _show(summary, run_dir)
    return exit_status(rows, bool(meta["options"].get("check")))


def _ended(run_dir: Path, saved: dict[str, Any]) -> bool:
    """Whether a resumed run had ended, whole: it is then left as it was. One whose
    summary.txt is missing (a disk that filled as its end was written) is not: its
    resume, which the failure names, writes it."""
    ended = bool(saved.get("end")) and not saved.get("interrupted")
    return ended and _whole(run_dir) and (run_dir / results.SUMMARY).is_file()


def _nothing_to_resume(run_dir: Path, saved: dict[str, Any]) -> int:
    """Say that a resumed run had ended, which is left as it was; its status by its rows."""
    rows = results.read_journal(run_dir)
    print(
        f"nothing to resume: {run_dir} ran to its end ({len(rows)} "
        f"row{'' if len(rows) == 1 else 's'}); it is left as it was",
        file=sys.stderr,
    )
    return exit_status(rows, bool(saved["options"].get("check")))


def _whole(run_dir: Path) -> bool:
    """Whether a run's journal ends with a whole line (a torn last line is mended by
    a resume, which opens the journal)."""
    try:
        with open(run_dir / results.JOURNAL, "rb") as journal:
            journal.seek(0, os.SEEK_END)
            if journal.tell() == 0:
                return True
            journal.seek(-1, os.SEEK_END)
            return journal.read(1) == b"\n"
    except OSError:
        return False


def exit_status(rows: list[dict[str, Any]], check: bool) -> int:
    """A finished run's exit status, and `harness show`'s of its folder: 1 where a
    row failed or errored, or where a check (the run's ``--check``, resumed too)
    verified nothing, every row skipped; else 0."""
    if any(r["status"] in ("fail", "error") for r in rows):
        return 1
    if check and rows and all(r["status"] == "skipped" for r in rows):
        print(
            f"nothing was verified: all {len(rows)} rows were skipped (the reasons are above); "
            "a check that verifies nothing does not pass",
            file=sys.stderr,
        )
        return 1
    return 0


def _end_ranks_run(
    run_dir: Path,
    meta: dict[str, Any],
    journal: results.Journal,
    progress: Progress,
    interrupted: bool,
) -> tuple[list[dict[str, Any]], str]:
    """Rank 0's end of an MPI run, whole or ``interrupted`` (Ctrl-C or SIGTERM, which
    every rank takes: the run's metadata had no end, and no results.csv or summary
    was written): its metadata, results.csv and summary; its rows and summary."""
    progress.close()
    journal.close()
    meta["end"] = metadata.now()
    meta["interrupted"] = interrupted
    rows = results.read_journal(run_dir)
    meta["journal_rows"] = len(rows)
    # The run's end first: mpirun kills its ranks at a second SIGTERM, which may come
    # while the table below is made.
    with results.writing(run_dir):
        results.write_json(run_dir / results.METADATA, meta)
    summary = table.format_rows(rows, suite.PARAMS)
    summary += "\n\n" + table.across_ranks(rows, suite.PARAMS)
    with results.writing(run_dir):
        _finish(run_dir, rows, summary)
    return rows, summary


#: Where a resume's rank 0 keeps the run's earlier devices for `_add_ranks`.
_EARLIER = "_earlier_devices"


def _add_ranks(
    meta: dict[str, Any],
    planned: list[RankPlan],
) -> None:
    """Add to an MPI run's metadata each rank's host, process and devices, and the
    devices and measured peaks of them all (``planned``, as each rank sent them).
    Ranks on several hosts may each have another device under one id (a node of
    each GPU model): each host's devices are then listed under it, with the peaks
    its rows were placed against, as `harness merge` lists a merged run's; one
    entry an id named every host's rows after the last rank's device."""
    meta["ranks"] = [
        {"rank": r, "host": host, "pid": pid, "devices": [d["id"] for d in devices]}
        for r, (_, devices, host, pid, _) in enumerate(planned)
    ]
    # A resume keeps the devices of the hosts the run's rows ran on before, this job
    # on other nodes (a batch system's choice): those rows are still theirs. An
    # entry that names no host is of the one host the run's ranks were on.
    earlier, hosts = meta.pop(_EARLIER, ([], []))
    first = hosts[0] if len(set(hosts)) == 1 else ""
    before = [(str(d.get("host") or first), d) for d in earlier if d.get("host") or first]
    several = len({host for _, _, host, *_ in planned} | {h for h, _ in before}) > 1
    by_id = (meta.pop("peaks", None) or {}) if several else {}
    listed: dict[tuple[str, str], dict[str, Any]] = {}
    for _, devices, host, _, theirs in planned:
        for d in devices:
            key = (host if several else "", d["id"])
            if key not in listed and several:
                d.update(host=host, **({"peaks": theirs[d["id"]]} if d["id"] in theirs else {}))
            listed.setdefault(key, d)
    for host, d in before if several else []:
        peak = d.get("peaks") or by_id.get(str(d.get("id")))
        entry = dict(d, host=host, **({"peaks": peak} if peak else {}))
        listed.setdefault((host, str(d.get("id"))), entry)
    meta["devices"] = list(listed.values())
    if several:
        return
    for *_, theirs in planned:
        # Each rank looked up the peaks of its own devices (a rank a GPU): rank 0's
        # alone left the other GPUs' rows without one.
        for device, peak in theirs.items():
            meta.setdefault("peaks", {}).setdefault(device, peak)


def _differing_plan(plans: list[list[Task]]) -> str | None:
    """Why the ranks' plans cannot make one run (a rank given other kernels, sizes
    or options than rank 0, whose rows would pass for the same rows), or None.
    Their devices may differ."""

    def rows(tasks: list[Task]) -> list[tuple[Any, ...]]:
        return [
            (t.kernel, t.size, t.precision, t.params, t.cache, t.transfers, t.group, t.partition)
            for t in tasks
        ]

    first = rows(plans[0])
    for rank, tasks in enumerate(plans[1:], start=1):
        theirs = rows(tasks)
        if theirs != first:
            at = next(i for i, (a, b) in enumerate(zip(first, theirs, strict=True)) if a != b)
            return (
                f"rank {rank} planned other rows than rank 0 (row {at + 1}: "
                f"{theirs[at][0]} n={theirs[at][1]}, where rank 0 has {first[at][0]} "
                f"n={first[at][1]}): give every rank the same options"
            )
    return None


def _chosen(args: argparse.Namespace, meta: dict[str, Any]) -> dict[str, Any]:
    """A rank's options that must be every rank's: its run folder and how its rows
    are measured (the devices it lists may differ from host to host)."""
    options = {k: v for k, v in meta["options"].items() if k != "devices"}
    return {"out": os.path.abspath(args.resume or args.out), **options}


#: The command-line option that sets a key of a run's ``options`` where it is not
#: the key's own name.
_OPTION_NAMES = {
    "kernels": "-k",
    "precisions": "--precision",
    "size_factors": "--size-factor",
    "caches": "--cache",
    "groups": "--group",
    "partitions": "--partition",
    "check_all": "--check",
    "hold": "--no-hold",
    "memory": "--memory-allocated or --memory-moved",
    "budgets": "--memory-allocated or --memory-moved",
    "params": "a kernel parameter's option",
    "suites": "--suite",
}


def _differing_options(chosen: list[dict[str, Any]]) -> str | None:
    """Why the ranks' options cannot make one run, or None: a rank given another
    --max-time or --out than rank 0 measured its rows otherwise, or wrote them
    nowhere, while the run's metadata states rank 0's options for every row."""
    for rank, theirs in enumerate(chosen[1:], start=1):
        other = next((k for k in chosen[0] if theirs.get(k) != chosen[0][k]), None)
        if other is not None:
            name = _OPTION_NAMES.get(other, "--" + other.replace("_", "-"))
            return (
                f"rank {rank} was given {name} {theirs.get(other)!r}, where rank 0 has "
                f"{chosen[0][other]!r}: give every rank the same options"
            )
    return None


def _say_ranks_notes(said: list[str]) -> None:
    """The lines the other ranks wrote as they planned that rank 0 (``said[0]``) did
    not, each named by its rank: the ones every rank wrote appeared once per rank."""
    own = set(said[0].splitlines())
    for rank, text in enumerate(said[1:], 1):
        for line in text.splitlines():
            if line.strip() and line not in own:
                print(f"rank {rank}: {line}", file=sys.stderr)


def _resumed_rank(
    args: argparse.Namespace,
    saved: dict[str, Any],
    executor: InProcess | Workers,
    world: ranks.World,
) -> tuple[Path, dict[str, Any], list[Task], list[tuple[int, dict[str, Any]]] | None]:
    """A resumed MPI run's folder, metadata and this rank's rows (all of its plan,
    as when it was new), on its own devices of the run (its metadata's ``ranks``),
    and in rank 0 the journal's rows where they were read (`_forget_cut_rows`)."""
    problem = numbered = None
    if world.rank == 0:
        count = len(saved.get("ranks", ()))
        if count != world.size:
            problem = (
                f"--resume: {args.resume} is a run of {count or 'no'} MPI ranks; resume it "
                + (f"with as many: mpirun -n {count} " if count else "without mpirun: ")
                + f"harness run --resume {shlex.quote(str(args.resume))}"
            )
        else:
            # As a resume of one process says: the options given here are not the run's.
            note_ignored(args, ranked=True)
            numbered = _forget_cut_rows(args.resume, saved)
            problem = _changed_since(saved, numbered, args.resume, executor.catalogs)
            saved.setdefault("resumed", []).append(metadata.now())
            if isinstance(executor, InProcess) and not saved["options"]["in_process"]:
                saved.setdefault("resumed_in_process", []).append(saved["resumed"][-1])
    problem, meta = world.bcast((problem, saved))
    if problem:
        raise UsageError(problem)
    options = meta["options"]
    if world.rank != 0:
        # Rank 0 loaded the run's suites as it read its metadata; the others knew
        # none of their kernels, and a resume of a run of a user's kernel failed.
        from harness.cli import load_suites

        load_suites(options.get("suites", ()))
    try:
        kernels = suite.select(options["kernels"])
    except suite.SelectionError as exc:
        raise UsageError(f"--resume: the run's kernels are not all known here: {exc}") from None
    try:
        devices = choose_devices(None, meta["ranks"][world.rank]["devices"], executor.catalogs)
    except UsageError as exc:
        raise UsageError(f"--resume: the run's devices are not all here: {exc}") from None
    listed = [d for d in meta.get("devices") or [] if isinstance(d, dict)]
    if world.rank == 0:
        # The devices of the run's hosts that this job may not be on (`_add_ranks`).
        meta[_EARLIER] = (listed, [str(r.get("host")) for r in meta.get("ranks") or []])
    meta["devices"] = [d.as_dict() for d in devices]
    if any(d.get("host") for d in listed):
        # Each host's devices are listed under it (`_add_ranks`): this rank's rows are
        # placed against its own host's peaks, as when the run began, not rank 0's.
        meta["peaks"] = {
            d["id"]: d["peaks"]
            for d in listed
            if d.get("host") == world.host and isinstance(d.get("peaks"), dict)
        }
    tasks = plan(kernels, devices, options_from_meta(options))
    return Path(args.resume), meta, tasks, numbered


def _changed_since(
    meta: dict[str, Any],
    numbered: list[tuple[int, dict[str, Any]]] | None,
    run_dir: Path,
    catalogs: Catalogs,
) -> str | None:
    """Rank 0's `check_resumable` over the journal's rows, on its own devices of the
    run, as a problem every rank stops on (a run's kernels or devices not here are
    named after, as every rank finds)."""
    options = meta["options"]
    try:
        kernels = suite.select(options["kernels"])
        devices = choose_devices(None, meta["ranks"][0]["devices"], catalogs)
    except (suite.SelectionError, UsageError):
        return None
    rows = results.read_journal(run_dir) if numbered is None else [r for _, r in numbered]
    try:
        check_resumable(run_dir, meta, kernels, devices, rows)
    except UsageError as exc:
        return str(exc)
    return None


def _left_to_run(
    run_dir: Path,
    options: dict[str, Any],
    planned: list[RankPlan],
    numbered: list[tuple[int, dict[str, Any]]] | None = None,
) -> tuple[str | None, list[set[int]]]:
    """Why a resumed MPI run cannot go on (a rank's row of a device that its rank
    has no longer under that id), or None; and for each rank, the indexes of its
    planned tasks (``planned``, as each rank sent them) that its rows in the
    journal (``numbered``, where they were read already: its damage is named once)
    lack. Rows that no rank plans are named, as a resume in one process names them."""
    asked = options.get("partitions", ())
    if numbered is None:
        numbered = results.read_numbered(run_dir)
    try:
        check_ranks_devices(numbered, [devices for _, devices, *_ in planned])
    except UsageError as exc:
        return str(exc), []
    keyed = [(number, row, (row.get("rank", 0), row_key(row, asked))) for number, row in numbered]
    plans = {(rank, task_key(t)) for rank, (each, *_) in enumerate(planned) for t in each}
    note_foreign(run_dir, [(number, row) for number, row, key in keyed if key not in plans])
    done = {key for _, _, key in keyed}
    return None, [
        {i for i, task in enumerate(each) if (rank, task_key(task)) not in done}
        for rank, (each, *_) in enumerate(planned)
    ]
