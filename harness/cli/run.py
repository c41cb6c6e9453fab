"""`harness run`: rows executed into a run folder, alone or as one rank of an MPI job."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from harness import suite
from harness.cli.run_plan import new_run, options_from_meta, resumed_run, saved_run
from harness.errors import UsageError
from harness.execution import metadata, peaks, ranks, results
from harness.execution.runner import (
    base_row,
)
from harness.execution.workers import InProcess, Workers
from harness.reporting import table


class Progress:
    """How a run reports its rows as they finish: a line per row (a log, as in CI),
    or a live bar with the row in hand and the time left (tqdm: on a terminal, and
    in a notebook when the Python API asks), the lines of rows that are not ok
    printed above it."""

    def __init__(self, total: int, bar: bool | None = None) -> None:
        self.total = total
        self._bar = None
        if bar if bar is not None else sys.stderr.isatty():
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, unit="row", desc="harness run", file=sys.stderr)

    def row(self, i: int, row: dict[str, Any]) -> None:
        """Report the ``i``-th row (from 0), just finished."""
        line = (
            f"[{i + 1}/{self.total}] {table.label(row, suite.PARAMS)} on {row['device_id']} "
            f"{row['precision']} n={row['size']}: {row['status']}"
        )
        if row.get("time_median_s"):
            line += f", median {table.format_time(row['time_median_s'])}"
            if row.get("gbytes_per_s"):
                line += f", {row['gbytes_per_s']:.3g} GB/s"
        if row["status"] != "ok" and row.get("reason"):
            line += f" ({row['reason']})"
        if self._bar is None:
            print(line, file=sys.stderr, flush=True)
            return
        if row["status"] not in ("ok", "skipped"):
            self._bar.write(line, file=sys.stderr)
        self._bar.set_postfix_str(
            f"{table.label(row, suite.PARAMS)} on {row['device_id']}", refresh=False
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
    try:
        with contextlib.ExitStack() as held:
            meta: dict[str, Any] = {}
            if args.resume:
                results.check_folder(args.resume)
                held.enter_context(results.lock(args.resume))
                meta = saved_run(args.resume)
            saved = meta.get("options", {})
            if args.in_process or saved.get("in_process"):
                executor: InProcess | Workers = InProcess()
            else:
                executor = Workers(saved["timeout"] if args.resume else args.timeout)
            held.callback(executor.close)
            world = ranks.world()
            if world is not None:
                return _execute_ranks(args, executor, held, world, bar)
            return _execute_run(args, meta, executor, held, bar)
    except results.WriteError as exc:
        raise UsageError(_write_failure(exc)) from None


def _write_failure(exc: results.WriteError) -> str:
    """What to say when the run folder cannot be written: what is kept and what to do."""
    full = exc.error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
    fix = "free some space" if full else "make it writable"
    if (exc.run_dir / results.METADATA).exists():
        return (
            f"{exc}; the rows finished so far are kept; {fix}, then continue with: "
            f"harness run --resume {exc.run_dir}"
        )
    results.discard(exc.run_dir)
    return f"{exc}; nothing was run and the empty folder is removed; {fix}, then run again"


def _execute_run(
    args: argparse.Namespace,
    saved: dict[str, Any],
    executor: InProcess | Workers,
    held: contextlib.ExitStack,
    bar: bool | None,
) -> tuple[int, Path]:
    """Run the tasks of a new run, or the rest of a resumed one (``saved``, its
    metadata), into its run folder, which ``held`` keeps locked; return the exit
    status and the folder."""
    if args.resume:
        run_dir, meta, tasks = resumed_run(args, saved, executor.catalogs)
    else:
        new_dir, meta, tasks = new_run(args, executor.catalogs)
        assert new_dir is not None
        run_dir = new_dir
        held.enter_context(results.lock(run_dir))
    options = dataclasses.replace(
        options_from_meta(meta["options"]), images=run_dir / results.IMAGES
    )
    by_id = {d.get("id"): d for d in meta["devices"]}
    with results.writing(run_dir):
        results.write_json(run_dir / results.METADATA, meta)
        journal = results.Journal(run_dir)
    print(
        f"run folder: {run_dir} ({len(tasks)} row{'' if len(tasks) == 1 else 's'} to run)",
        file=sys.stderr,
        flush=True,
    )
    progress = Progress(len(tasks), bar)
    executor.start(options, by_id, tasks)
    stop = {"asked": False}

    def on_signal(signum: int, frame: Any) -> None:
        if stop["asked"]:
            raise KeyboardInterrupt
        stop["asked"] = True
        name = "interrupt" if signum == signal.SIGINT else signal.Signals(signum).name
        print(
            f"\n{name}: stopping after the current row ({name} again to stop now)",
            file=sys.stderr,
            flush=True,
        )

    # Only the main thread may handle signals (a notebook runs code there).
    main = threading.current_thread() is threading.main_thread()
    signals = (signal.SIGINT, signal.SIGTERM) if main else ()
    previous = {s: signal.signal(s, on_signal) for s in signals}
    finished = 0
    failure: results.WriteError | None = None
    try:
        for task in tasks:
            if stop["asked"]:
                break
            row = executor.execute(task)
            peaks.place(row, meta.get("peaks", {}).get(row["device_id"]))
            with results.writing(run_dir):
                journal.append(row)
            progress.row(finished, row)
            finished += 1
    except KeyboardInterrupt:
        stop["asked"] = True
    except results.WriteError as exc:
        failure = exc
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        progress.close()
        journal.close()
        interrupted = finished < len(tasks)
        meta["end"] = metadata.now()
        meta["interrupted"] = interrupted
        if failure is None:
            rows = results.read_journal(run_dir)
            summary = table.format_rows(rows, suite.PARAMS)
            with results.writing(run_dir):
                results.write_json(run_dir / results.METADATA, meta)
                results.finish(run_dir, summary)
        else:
            # The journal already says what ran; the rest is derived from it later.
            with contextlib.suppress(OSError):
                results.write_json(run_dir / results.METADATA, meta)
    if failure is not None:
        raise failure
    if not getattr(args, "quiet", False):
        print(summary)
        print(f"\nrun folder: {run_dir}")
    if interrupted:
        print(
            f"interrupted: {finished} of {len(tasks)} rows run; "
            f"continue with: harness run --resume {run_dir}",
            file=sys.stderr,
        )
        return 130, run_dir
    return (1 if any(r["status"] in ("fail", "error") for r in rows) else 0), run_dir


def _execute_ranks(
    args: argparse.Namespace,
    executor: InProcess | Workers,
    held: contextlib.ExitStack,
    world: ranks.World,
    bar: bool | None,
) -> tuple[int, Path]:
    """This rank's part of an MPI run (`harness.execution.ranks`): its rows, in step
    with the other ranks, gathered by rank 0 into the one run folder."""
    if args.resume:
        raise UsageError(
            "--resume of a run under mpirun: resume it without mpirun (its rows are "
            "one run folder, which one process can finish)"
        )
    made, meta, tasks = new_run(args, executor.catalogs, world)
    run_dir = Path(world.bcast(str(made) if made else ""))
    planned = world.gather((tasks, meta["devices"], world.host, os.getpid()))
    problem = None
    journal = None
    if world.rank == 0:
        assert planned is not None
        counts = [len(each) for each, *_ in planned]
        if len(set(counts)) > 1:
            problem = (
                f"the ranks planned different numbers of rows ({counts}): "
                "give them the same devices"
            )
        meta["ranks"] = [
            {"rank": r, "host": host, "pid": pid, "devices": [d["id"] for d in devices]}
            for r, (_, devices, host, pid) in enumerate(planned)
        ]
        meta["devices"] = list({d["id"]: d for _, devices, *_ in planned for d in devices}.values())
        held.enter_context(results.lock(run_dir))
        with results.writing(run_dir):
            results.write_json(run_dir / results.METADATA, meta)
            journal = results.Journal(run_dir)
        print(
            f"run folder: {run_dir} ({len(tasks)} rows on each of {world.size} ranks)",
            file=sys.stderr,
            flush=True,
        )
    problem = world.bcast(problem)
    if problem:
        raise UsageError(problem)
    options = dataclasses.replace(
        options_from_meta(meta["options"]), images=run_dir / results.IMAGES
    )
    by_id = {d.get("id"): d for d in meta["devices"]}
    executor.start(options, by_id, tasks)
    progress = Progress(len(tasks) * world.size, bar) if journal is not None else None
    finished = 0
    lost: dict[int, str] = {}
    hosts = [host for _, _, host, _ in planned] if planned else []
    world.start(args.lost_after)
    try:
        for index, task in enumerate(tasks):
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
                each = gathered.get(r)
                if each is None:
                    mine = planned[r][0][index]
                    each = base_row(
                        mine, by_id.get(f"{mine.backend}:{mine.device}", {}).get("name")
                    )
                    each.update(status="error", reason=lost[r], rank=r, host=hosts[r])
                peaks.place(each, meta.get("peaks", {}).get(each["device_id"]))
                with results.writing(run_dir):
                    journal.append(each)
                progress.row(finished, each)
                finished += 1
    except ranks.RankLost:
        print(
            f"rank {world.rank}: rank 0, which writes the run folder, was lost (nothing heard "
            f"from it for {args.lost_after:g} s); the rows it wrote are in {run_dir}: finish "
            f"the run with: harness run --resume {run_dir}",
            file=sys.stderr,
        )
        return world.finish(1), run_dir
    status = 0
    if journal is not None and progress is not None:
        progress.close()
        journal.close()
        meta["end"] = metadata.now()
        rows = results.read_journal(run_dir)
        summary = table.format_rows(rows, suite.PARAMS)
        summary += "\n\n" + table.across_ranks(rows, suite.PARAMS)
        with results.writing(run_dir):
            results.write_json(run_dir / results.METADATA, meta)
            results.finish(run_dir, summary)
        if not getattr(args, "quiet", False):
            print(summary)
            print(f"\nrun folder: {run_dir}")
        status = 1 if any(r["status"] in ("fail", "error") for r in rows) else 0
    return world.finish(status), run_dir
