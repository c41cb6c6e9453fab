"""The commands that read run folders: ``show``, ``report``, ``plot``, ``compare``,
``import-rajaperf``, ``merge`` and ``export`` (all but ``show`` need ``harness[report]``).

Heavy imports (pandas, matplotlib) happen inside the handlers, so the rest of
the command line starts fast and works without them.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli import arguments
from harness.errors import OutputError, UsageError
from harness.execution import merge, results
from harness.reporting import table

if TYPE_CHECKING:
    import pandas as pd

REPORT_EPILOG = """\
Writes into --out (default RUN_DIR/report/, for the first RUN_DIR):
  report.md                       status, median time, GB/s, GFLOP/s and speedup per
                                  kernel x device; runs, devices and library versions
  report.html                     with --html: the same and every plot, in one file
                                  that needs nothing else to open
  RAJAPerf-kernel-details.csv     RAJAPerf's own output files, same layouts; Variant is
  RAJAPerf-kernel-run-data.csv    the device (cpu:0, opencl:1), Tuning the sort strategy
  RAJAPerf-checksum.txt           or 'default'; runs with several precisions or sizes get
  RAJAPerf-timing-Average.csv     a folder per precision and per size (SIZE_000100000,
  RAJAPerf-speedup-Average.csv    as RAJAPerf's sweep script names them)

Several run folders make one report with their devices side by side.
Speedup = the baseline device's median time / the row's, same kernel, precision, size."""

PLOT_EPILOG = """\
Writes PNG and SVG into --out (default RUN_DIR/plots/, for the first RUN_DIR):
  time_by_kernel     median time per kernel, a bar per device, log axis
  speedup_heatmap    speedup over the baseline device, kernels x devices
  bandwidth          achieved GB/s per kernel and device against a peak line:
                     --peak-gbs, else the peak 'harness peak' measured, else the
                     device's best of a kernel that measures bandwidth (Stream_COPY)
  roofline           per device, every kernel at its FLOPs per byte against the
                     bandwidth and FMA peaks 'harness peak' measured (none without)
  cross_api          per device reached through several APIs (the host CPU through
                     numpy, PoCL and lavapipe), each API's time over the fastest's
  transfers          each repetition split into uploads, kernel and downloads, per
                     device and --transfers mode (runs with per-rep or per-launch)
  sweep_<KERNEL>     time and throughput vs size, log-log (kernels run at several
                     sizes on one device, across the run folders given; rows
                     sized down to fit a slow device are no sweep)
  saturation         GB/s (or GFLOP/s) against size of every swept kernel, with the
                     size where each device saturates and its measured peak
  throughput_<items> items/s vs n per device and variant, for kernels whose size
                     counts items (throughput_keys: the sorts)
A plot that does not apply is skipped with a note. Several run folders put their
devices side by side; one device in several runs (a size sweep) stays one line."""

COMPARE_EPILOG = """\
Rows match on kernel, device, precision and size (and the kernel's run options,
such as a sort's strategy, order and input). A device is matched by its backend,
name and API (from each run's metadata), not by its id alone: the output notes an
id that means different devices in the two runs, and a changed driver.
ratio = new median / base median. A row is
  regression   ratio > 1 + PCT/100 and |new - base| > spread(base) + spread(new)
  improvement  ratio < 1 - PCT/100 and |new - base| > spread(base) + spread(new)
  noise        otherwise
where spread = max(interquartile range, median - minimum) of the row's repetitions
(the standard deviation for a row without quartiles).
'broken' (ok in base, fail or error in new) counts as a regression, and so does
'no longer timed' (timed in base; skipped, untimed or sized down to fit its time
budget in new: work not done);
'fixed', 'not timed' (in neither run), 'only in base' and 'only in new' are listed
and do not, but for rows only in base when NEW_RUN was interrupted (or is still
running), has no metadata.json (or one with no end) to say it ended, or has damaged
journal lines: work not done, or lost; and for rows only in new when BASE_RUN has
damaged journal lines (their base rows may be the lost ones).

Exit status: 1 when anything regressed, broke or is no longer timed, NEW_RUN
stopped short of rows the base has, or BASE_RUN lost rows the new run has; 0
otherwise; 2 for a usage error, two runs with no row in common or none timed in
both (nothing was compared), one run given twice (or beside a copy of itself), or
two merged runs that share no host, one of which measured a case on several hosts."""


#: The lowest --peak-gbs: a kilobyte a second, below any device's. 1e-100 drew every
#: row at 1e100 times the peak, on axes matplotlib collapsed to nothing.
MIN_PEAK_GBS = 1e-6


def _peak(text: str) -> tuple[str, float]:
    key, sep, value = text.rpartition("=")
    try:
        number = arguments.number(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected GB/s such as 900, or DEVICE=GBS such as opencl:0=900"
        ) from None
    if not MIN_PEAK_GBS <= number <= results.MAX_RATE:
        # As a row's rate: past that, a figure is damage, and no row is drawn against it.
        raise argparse.ArgumentTypeError(
            f"{text!r}: the peak must be a finite GB/s from {MIN_PEAK_GBS:g} up to "
            f"{results.MAX_RATE:g}"
        )
    if sep and not key.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r}: no device before '='; give DEVICE=GBS such as opencl:0=900, or GBS alone"
        )
    return (key if sep else "*"), number


def _check_peaks(frame: Any, peaks: list[tuple[str, float]]) -> None:
    """UsageError for a --peak-gbs DEVICE that is no backend or device of the runs
    (its line would be drawn nowhere, silently), as for --baseline, or one given two
    peaks (one of them would be drawn, silently)."""
    have = list(dict.fromkeys([*frame["backend"].astype(str), *frame["device_id"].astype(str)]))
    first: dict[str, float] = {}
    for key, value in peaks:
        if first.setdefault(key, value) != value:
            named = "every device" if key == "*" else repr(key)
            raise UsageError(
                f"--peak-gbs {'' if key == '*' else key + '='}{value:g}: {named} already has "
                f"a peak of {first[key]:g} GB/s; give one peak per device or backend"
            )
    for key, value in peaks:
        if key != "*" and key not in have:
            raise UsageError(
                f"--peak-gbs {key}={value:g}: {key!r} is not in these runs; "
                f"they have {', '.join(have)}"
            )


def _percent(text: str) -> float:
    try:
        value = arguments.number(text)
    except ValueError:
        # What is accepted is said, as for a number out of range: '5%' was only refused.
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a percentage: give a number above 0 and below 100 (5 for 5%)"
        ) from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(f"{text!r}: give a percentage above 0 and below 100")
    return value


def _common(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "run_dirs", nargs="+", type=arguments.path, metavar="RUN_DIR", help="run folders"
    )
    parser.add_argument(
        "--baseline",
        metavar="BACKEND|DEVICE",
        help="speedups are over this backend's first device that timed rows (named on "
        "stderr where it has several), or this device (such as "
        "opencl:0, or as the report names it where one id is a device of several "
        "hosts); default: each kernel's fastest CPU row (numpy, or an OpenCL CPU device)",
    )
    parser.add_argument(
        "--peak-gbs",
        type=_peak,
        action="append",
        default=[],
        metavar="[DEVICE=]GBS",
        help="peak bandwidth line of the bandwidth plot, for every device or one device "
        "or backend (repeatable); default: the bandwidth 'harness peak' measured for the "
        "device (in the run's metadata), else its best Stream_COPY GB/s in the runs",
    )
    parser.add_argument(
        "--out",
        type=arguments.path,
        metavar="DIR",
        help=f"folder for the {what} (default: see below)",
    )


def register(subparsers: Any) -> None:
    """Add the commands that read run folders: show, report, plot, compare, import,
    merge, export."""
    show = subparsers.add_parser(
        "show",
        help="print a run folder's table (rebuilds results.csv)",
        description="Print a run folder's table. Exit status: as the run's, 130 where it "
        "stopped short (interrupted, or killed before its end), 1 where a row failed or "
        "errored or a --check verified nothing (every row skipped), else 0.",
    )
    show.add_argument(
        "run_dir",
        type=arguments.path,
        metavar="RUN_DIR",
        help="the run folder (one interrupted or still being written too)",
    )
    show.set_defaults(handler=_cmd_show)
    report = subparsers.add_parser(
        "report",
        help="write a Markdown (or --html) report and RAJAPerf-format files of run folders",
        epilog=REPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(report, "report files")
    report.add_argument(
        "--html", action="store_true", help="also write report.html with the plots embedded"
    )
    report.set_defaults(handler=_cmd_report)

    plot = subparsers.add_parser(
        "plot",
        help="write comparison plots (PNG and SVG) of run folders",
        epilog=PLOT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(plot, "plots")
    plot.set_defaults(handler=_cmd_plot)

    compare = subparsers.add_parser(
        "compare",
        help="compare two runs row by row; exit 1 when anything regressed",
        epilog=COMPARE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    compare.add_argument(
        "base", type=arguments.path, metavar="BASE_RUN", help="the reference run folder"
    )
    compare.add_argument(
        "new", type=arguments.path, metavar="NEW_RUN", help="the run folder to judge"
    )
    compare.add_argument(
        "--threshold",
        type=_percent,
        default=5.0,
        metavar="PCT",
        help="smallest change in median time that counts, in percent (default 5)",
    )
    compare.add_argument(
        "--csv", type=arguments.path, metavar="FILE", help="also write the table as CSV"
    )
    compare.set_defaults(handler=_cmd_compare)

    imported = subparsers.add_parser(
        "import-rajaperf",
        help="turn raja-perf.exe's output folder into a run folder, to report beside ours",
        description="Read the files raja-perf.exe writes into its --outdir "
        "(RAJAPerf-kernel-run-data.csv, -kernel-details.csv, -checksum.txt) and write a run "
        "folder of them: each variant-tuning a device of backend 'rajaperf', so that "
        "'harness report OUR_RUN IMPORTED_RUN' and 'harness plot' put RAJAPerf's variants "
        "beside this harness's backends in one table and one plot.",
    )
    imported.add_argument(
        "folder", type=arguments.path, metavar="DIR", help="raja-perf.exe's --outdir"
    )
    arguments.run_folder_out(imported)
    imported.set_defaults(handler=_cmd_import_rajaperf)

    merged = subparsers.add_parser(
        "merge",
        help="make one run folder of runs from several machines (or of one, run twice)",
        description="Write the rows of several run folders into one new run folder, each row "
        "with a host column (its machine, and its run where two come from one machine) and "
        "source_run, so that report, plot and compare take runs from the nodes of a cluster "
        "or from two laptops as one run.",
    )
    merged.add_argument(
        "run_dirs",
        type=arguments.path,
        nargs="+",
        metavar="RUN_DIR",
        help="the run folders to merge, two or more (merged runs too)",
    )
    arguments.run_folder_out(merged)
    merged.set_defaults(handler=_cmd_merge)

    export = subparsers.add_parser(
        "export",
        help="write a run folder in another tool's format (--thicket: Caliper profiles)",
        description="Write a run folder's timed rows for another tool. --thicket writes "
        "Caliper .cali profiles, one per device, precision, size and tuning, with RAJAPerf's "
        "region tree, metric names and metadata keys, which Thicket loads with "
        "Thicket.from_caliperreader(files).",
    )
    export.add_argument("run_dir", type=arguments.path, metavar="RUN_DIR", help="the run folder")
    export.add_argument(
        "--thicket", action="store_true", required=True, help="write Caliper profiles for Thicket"
    )
    export.add_argument(
        "--out",
        type=arguments.path,
        metavar="DIR",
        help="folder for the files (default RUN_DIR/thicket)",
    )
    export.set_defaults(handler=_cmd_export)


def _load(paths: list[Path]) -> Any:
    from harness.execution import results
    from harness.reporting import frames

    frames.require()
    try:
        return frames.load_runs(paths)
    except results.RunFolderError as exc:
        raise UsageError(str(exc)) from None


def _out_dir(args: argparse.Namespace, default: str) -> Path:
    """The folder report or plot writes into (`results.output_folder` checks it)."""
    return args.out or args.run_dirs[0] / default


def _written(out: Path, error: OSError, kept: bool = True) -> UsageError:
    """A write into ``out`` that failed half-way: what to do, in a line (free some
    space where the disk is full; else the file that failed, with why). Each file
    is written whole or not at all, and an earlier one's files it had not yet
    replaced are gone (`results.no_earlier_left`): those there are this one's, short of
    the rest; or, not ``kept`` (a report), none is."""
    room = results.room_fix(error.errno)
    todo = f"{room} and run it again" if room else "give --out another folder"
    where = "" if room or not error.filename else f" at {error.filename}"
    left = (
        "the files written before are whole, the rest are missing"
        if kept
        else "none of its files was kept (a report is whole or not at all)"
    )
    return UsageError(
        f"output folder {out}: writing stopped{where} ({error.strerror or error}); {left}; {todo}"
    )


def _cmd_import_rajaperf(args: argparse.Namespace) -> int:
    from harness.reporting import rajaperf_import

    if not args.folder.is_dir():
        why = "is a file, not a folder" if args.folder.exists() else "no such folder"
        raise UsageError(f"{args.folder}: {why} (give raja-perf.exe's --outdir)")
    from harness import suite

    rajaperf = {k.name for k in suite.ALL if suite.is_rajaperf(k)}
    run_dir = rajaperf_import.import_folder(args.folder, args.out, rajaperf)
    _show_made(run_dir)
    return 0


def _cmd_merge(args: argparse.Namespace) -> int:
    def summarise(rows: list[dict]) -> str:
        # Called once the runs are read and checked: reading their metadata first
        # answered a file or a missing folder with a metadata.json error.
        params = dict.fromkeys(
            name for d in args.run_dirs for name in table.param_names(results.read_metadata(d))
        )
        return table.format_rows(rows, list(params))

    run_dir = merge.merge(args.run_dirs, args.out, summarise)
    _show_made(run_dir)
    return 0


def _show_made(run_dir: Path) -> None:
    """Print the table of a run folder just written whole (merged or imported), then
    its name. A signal while the table prints (thousands of rows) names the folder
    and says it is whole: 'what it was writing may be incomplete', naming nothing,
    sent the user to make the same run again."""
    from harness.cli import _LateSignal

    try:
        print(_table(run_dir))
        print(f"\nrun folder: {run_dir}")
        sys.stdout.flush()
    except KeyboardInterrupt:
        print(f"\nrun folder: {run_dir} (written whole; its table was cut short)", file=sys.stderr)
        raise _LateSignal from None
    except OutputError as exc:
        # A full disk under stdout: the folder is made, and a 2 made it again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(
            f"harness: warning: cannot write the standard output ({exc.strerror or exc}); "
            f"the run folder is written whole: {run_dir}",
            file=sys.stderr,
        )


def _cmd_export(args: argparse.Namespace) -> int:
    from harness.reporting import thicket_export

    results.check_folder(args.run_dir)
    out = args.out or args.run_dir / "thicket"
    left: list[str] = []
    written = thicket_export.write(args.run_dir, out, left)
    if not written:
        # 'A check-only run?' was the guess, of a run whose every row had failed.
        raise UsageError(
            f"{args.run_dir}: no timed rows to export ({', '.join(left)}); a profile holds "
            "rows that were timed"
        )
    from harness.cli import _LateSignal

    try:
        for path in written:
            print(path)
        sys.stdout.flush()
    except KeyboardInterrupt:
        # Every profile is written whole: 'what it was writing may be incomplete' sent
        # the user to export it again.
        print(
            f"\nexported: {len(written)} profile(s) in {out}, written whole; their list was "
            "cut short",
            file=sys.stderr,
        )
        raise _LateSignal from None
    if left:
        # The profiles alone read as the whole run: its kernels that failed were absent.
        print(
            f"note: {args.run_dir}: rows with no time are in no profile: {left[0]}",
            file=sys.stderr,
        )
    _note_short(args.run_dir, results.read_metadata(args.run_dir), "exported")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    frame, metas = _load(args.run_dirs)
    from harness.reporting import rajaperf_files, report

    baseline_key, _, _ = report.find_baseline(frame, args.baseline)
    _note_baseline(frame, args.baseline)
    _check_peaks(frame, args.peak_gbs)
    if args.peak_gbs and not args.html:
        # The peak is the bandwidth plot's line, and only --html draws plots: the
        # report was written as if it had not been given.
        raise UsageError(
            "--peak-gbs draws the peak line of the bandwidth plot, which report draws with "
            "--html only; add --html, or leave --peak-gbs out"
        )
    built = report.build(frame, metas, args.baseline)
    out = _out_dir(args, "report")
    reference = _one_reference(frame, baseline_key)
    planned = [
        out / "report.md",
        out / "report.html",
        *map(out.joinpath, rajaperf_files.planned(frame, reference)),
    ]
    with results.output_folder(out), results.hold_output(out):
        _check_earlier(out, frame, args.html, reference)
        try:
            with results.no_earlier_left(out, planned, "report", keep_own=False):
                return _write_report(args, frame, metas, built, out, baseline_key)
        except OutputError:
            raise
        except OSError as exc:
            raise _written(out, exc, kept=False) from None


def _note_baseline(frame: Any, baseline: str | None) -> None:
    """Say which device a --baseline backend of several devices stands for."""
    from harness.reporting import report

    note = report.baseline_choice(frame, baseline)
    if note:
        print(f"note: {note}", file=sys.stderr)


def _check_earlier(out: Path, frame: Any, html: bool, reference: str | None) -> None:
    """UsageError, before anything is written, where ``out`` holds files of an earlier
    report that this one would not replace (another size's or precision's RAJAPerf
    files, a report.html this one does not write): read beside the new files, they
    would pass for this report's."""
    from harness.reporting import rajaperf_files

    if not out.is_dir():
        return
    found = rajaperf_files.earlier(out)
    ours = any((out / name).is_file() for name in ("report.md", "report.html"))
    if found and not ours:
        # RAJAPerf's files with no report beside them: raja-perf.exe's own output,
        # which this report would overwrite (and an import then take for RAJAPerf's).
        shown = ", ".join(sorted(map(str, found))[:3]) + (", ..." if len(found) > 3 else "")
        raise UsageError(
            f"output folder {out}: holds RAJAPerf files ({shown}) and no report of ours: "
            "raja-perf.exe's own output, which this report would overwrite; give another --out"
        )
    stale = found - rajaperf_files.planned(frame, reference)
    if not html and (out / "report.html").is_file():
        stale.add(Path("report.html"))
    if stale:
        named = sorted(map(str, stale))
        shown = ", ".join(named[:3]) + (", ..." if len(named) > 3 else "")
        raise UsageError(
            f"output folder {out}: holds {len(named)} file(s) of an earlier report that this "
            f"one does not write ({shown}), which would pass for this report's; remove them, "
            "or give an empty --out"
        )


def _write_report(
    args: argparse.Namespace,
    frame: Any,
    metas: list[dict[str, Any]],
    built: Any,
    out: Path,
    baseline_key: str | None,
) -> int:
    """Write a built report, RAJAPerf's files and (--html) the page into ``out``.
    The page's plots are drawn before any file is written: a report killed while
    drawing them (SIGKILL, the OOM killer) left RAJAPerf's files without report.md,
    which then passed for raja-perf.exe's own output."""
    from harness.reporting import frames, rajaperf_files, report

    images: list[tuple[str, bytes]] = []
    skipped: list[str] = []
    if args.html:
        from harness.reporting import html, plot

        peaks = dict(args.peak_gbs)
        for stem, fig, why in plot.figures(frame, args.baseline, peaks, plot.print_progress):
            if fig is None:
                skipped.append(f"skipped {stem}: {why}")
                continue
            caption = fig.get_suptitle() or fig.axes[0].get_title(loc="left")
            images.append((caption, html.figure_png(fig)))
    facts = frames.kernel_facts(metas)
    written = rajaperf_files.write_all(frame, out, _one_reference(frame, baseline_key), facts)
    paths = [out / "report.md", *([out / "report.html"] if args.html else [])]
    built.files = [p.name for p in paths] + [str(p.relative_to(out)) for p in written]
    if args.html:
        results.write_text(paths[1], html.to_html(built, images, skipped))
    results.write_text(paths[0], report.to_markdown(built))
    for note in built.notes:
        print(f"note: {note}", file=sys.stderr)
    for path in [*paths, *written]:
        print(path)
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    frame, metas = _load(args.run_dirs)
    from harness.reporting.report import find_baseline, has_timings

    find_baseline(frame, args.baseline)
    _note_baseline(frame, args.baseline)
    _check_peaks(frame, args.peak_gbs)
    if not has_timings(frame):
        raise UsageError(
            f"{', '.join(map(str, args.run_dirs))}: nothing to plot: "
            "no timed rows (a check-only run, or nothing ran ok)"
        )
    out = _out_dir(args, "plots")
    with results.output_folder(out), results.hold_output(out):
        status = _write_plots(args, frame, out)
    for meta in metas:
        _note_short(Path(meta["run_dir"]), meta, "plotted")
    return status


def _write_plots(args: argparse.Namespace, frame: Any, out: Path) -> int:
    """Write the plots of ``frame`` into ``out``, which holds no earlier plot's files
    that they would not replace."""
    from harness.reporting import plot

    stale = plot.earlier_plots(out, frame)
    if stale:
        shown = ", ".join(stale[:3]) + (", ..." if len(stale) > 3 else "")
        raise UsageError(
            f"output folder {out}: holds {len(stale)} plot file(s) of an earlier plot that "
            f"these runs do not make ({shown}), which would pass for theirs; remove them, or "
            "give an empty --out"
        )
    planned = [
        out / f"{stem}{ext}" for stem in plot.file_stems(frame).values() for ext in plot.SUFFIXES
    ]
    try:
        with results.no_earlier_left(out, planned, "plot"):
            written, notes = plot.write_plots(frame, out, args.baseline, dict(args.peak_gbs))
    except OSError as exc:
        raise _written(out, exc) from None
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    for path in written:
        print(path)
    return 0


def _check_csv(path: Path) -> None:
    """UsageError, before anything is compared, where --csv cannot be written: a
    folder, a path under a file or a missing folder, a read-only file or folder;
    or should not be: a run folder's own journal, samples, metadata, results,
    summary (the table the run printed, replaced by this one before) or lock. A link is
    judged by where it leads, which is what would be written."""
    accepted = "give a file in a folder this user can write"
    try:
        target = path.resolve()
    except (RuntimeError, OSError):
        raise UsageError(f"--csv {str(path)!r}: a link that leads to itself; {accepted}") from None
    folder = target.parent
    run_files = (
        results.JOURNAL,
        results.SAMPLES,
        results.METADATA,
        results.RESULTS,
        results.SUMMARY,
        results.LOCK,
        results.OWNER,
    )
    if target.name in run_files and (folder / results.JOURNAL).is_file():
        # A run's own file: what it measured would be replaced by the table.
        why = "is a run folder's own file" + (f" ({target})" if target != path.absolute() else "")
        accepted = "give a file outside the run folders"
    elif target.is_dir():
        why = "is a folder"
    elif not folder.is_dir():
        why = f"{folder} is not a folder" if folder.exists() else f"no folder {folder}"
    elif not os.access(folder, os.W_OK | os.X_OK) or (
        target.exists() and not os.access(target, os.W_OK)
    ):
        why = "is read-only"
    else:
        return
    raise UsageError(f"--csv {str(path)!r}: {why}; {accepted}")


def _cmd_compare(args: argparse.Namespace) -> int:
    if args.csv:
        _check_csv(args.csv)
    (base, (base_meta,)), (new, (new_meta,)) = _load([args.base]), _load([args.new])
    if merge.same_run(args.base, base_meta, args.new, new_meta):
        # Each row would match itself: a gate that cannot fail (report refuses the pair too).
        raise UsageError(
            f"compare: {args.base} and {args.new} are one run (one folder, or a copy of it); "
            "compare two runs"
        )
    both = merge.shared_source(base_meta, new_meta)
    if both:
        raise UsageError(
            f"compare: {args.base} and {args.new} both hold {both} (in their merged_from), "
            "whose rows would be compared with themselves; compare runs that share no run"
        )
    for outer, outer_meta, inner, inner_meta in (
        (args.new, new_meta, args.base, base_meta),
        (args.base, base_meta, args.new, new_meta),
    ):
        if merge.within(outer_meta, inner, inner_meta):
            # Its rows in the merged run would be matched with themselves.
            raise UsageError(
                f"compare: {inner} is inside {outer} (in its merged_from), whose rows of it "
                "would be compared with themselves; compare two runs apart"
            )
    for run_dir in (args.base, args.new):
        holder = results.writer(run_dir)
        if holder is not None:
            print(
                f"note: {run_dir} is being written ({holder}): its rows so far are compared",
                file=sys.stderr,
            )
    from harness.reporting import comparison

    result = comparison.compare(
        base, new, args.threshold, base_meta.get("devices") or [], new_meta.get("devices") or []
    )
    if result["verdict"].isin([comparison.ONLY_BASE, comparison.ONLY_NEW]).all():
        why = "".join(f"; {note}" for note in result.attrs["notes"])
        # Rows are matched by variant too (cache, transfers, a kernel's options): a cold
        # run beside a hot one was said to share no kernel, device, precision and size.
        raise UsageError(
            f"{args.base} and {args.new} have no row in common (same kernel, device, precision, "
            f"size and variant), so there is nothing to compare{why}"
        )
    judged = (comparison.REGRESSION, comparison.IMPROVEMENT, comparison.NOISE)
    if not result["verdict"].isin([*judged, *comparison.FAILING]).any():
        print(comparison.format_table(result, str(args.base), str(args.new)))
        # A gate passes on work done only: rows neither run could time compare nothing.
        raise UsageError(
            f"{args.base} and {args.new}: no row has timings in both runs (check-only "
            "runs?), so nothing was compared; compare two timed runs"
        )
    if args.csv:
        # Written before the table is shown: a --csv that fails (a full disk,
        # /dev/full) is the one line, not a table that ends in an error.
        try:
            _write_csv(result, Path(args.csv))
        except OSError as exc:
            why = exc.strerror or exc
            raise UsageError(f"--csv {str(args.csv)!r}: cannot write it ({why})") from None
    print(comparison.format_table(result, str(args.base), str(args.new)))
    left = int((result["verdict"] == comparison.ONLY_BASE).sum())
    short = _stopped_short(args.new, new_meta, left) if left else None
    if short:
        # A gate passes on work done only: the rows a cut-short run never ran may be
        # the ones that would have regressed.
        print(f"fail: {short}", file=sys.stderr)
        return 1
    for run_dir, meta in ((args.base, base_meta), (args.new, new_meta)):
        repeated = _merged_repeats(run_dir, meta)
        if repeated:
            print(
                f"fail: {repeated}: which is the run's measurement cannot be told, so the "
                "comparison cannot pass",
                file=sys.stderr,
            )
            return 1
        repeats = results.repeated_cases(run_dir)
        if repeats:
            line, first = repeats[0]
            # Only the first row of a case was judged; the other may be the slower.
            print(
                f"fail: {run_dir / results.JOURNAL}:{line} measures the case of line {first} "
                f"again ({len(repeats)} such line(s)): which is the run's measurement cannot "
                "be told, so the comparison cannot pass",
                file=sys.stderr,
            )
            return 1
    damaged = results.damaged_lines(args.new)
    if damaged:
        # Each may be a row of a case the new run holds again: a failed second
        # measurement, or the one its other row was copied over.
        print(
            f"fail: {args.new / results.JOURNAL} has {len(damaged)} damaged line(s) "
            f"({', '.join(map(str, damaged[:5]))}): each may be a row of a case it also "
            "holds, so the comparison cannot pass",
            file=sys.stderr,
        )
        return 1
    lost = results.losses(args.base)
    unjudged = int((result["verdict"] == comparison.ONLY_NEW).sum())
    if lost and unjudged:
        # The base rows lost there may be those the new run's would have regressed from.
        print(
            f"fail: {lost}, and {unjudged} row(s) of {args.new} have no base row to be "
            "judged against: they may be the lost ones",
            file=sys.stderr,
        )
        return 1
    return 1 if result["verdict"].isin(comparison.FAILING).any() else 0


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    """The comparison as CSV: a new or regular file written whole or not at all (an
    interrupt leaves no table cut short under its name); a link, device or pipe
    (``/dev/stdout``) written in place, as renaming over it would replace the link."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        frame.to_csv(path, index=False)
    else:
        results.write_whole(path, lambda tmp: frame.to_csv(tmp, index=False))


def _stopped_short(new: Path, meta: dict[str, Any], left: int) -> str | None:
    """Why the ``left`` rows of the base that the new run lacks may be work it did
    not do (then compare fails), or None where it ran to its end, whole."""
    for source in merge.inside(meta):
        # A merged run ends when it is merged, whether or not its sources did; one
        # with no end in its metadata (or no metadata.json) may not have.
        why = _cut_short(source) or (None if source.get("end") else "had no end in its metadata")
        if why:
            return (
                f"{new} merges {source.get('run')}, which {why} when merged, and {left} "
                f"row(s) of the base are not in {new}: they may be work that run did not do"
            )
    if results.unread_lines(meta):
        return (
            f"{new} {_cut_short(meta)}, and {left} row(s) of the base are not in it: they "
            "may be on those lines"
        )
    if _cut_short(meta):
        return (
            f"{new} was interrupted (or is still running) before {left} row(s) of the base "
            f"ran in it; finish it with {results.resume_command(new, meta)}"
        )
    if not meta.get("end"):
        # No metadata, or one that names neither a start nor an end (made by hand):
        # whether the run ended is unknown either way.
        has = "no end in its" if (new / results.METADATA).is_file() else "no"
        return (
            f"{new} has {has} {results.METADATA}, so whether it ran to its end is unknown, "
            f"and {left} row(s) of the base are not in it"
        )
    lost = results.losses(new)
    if lost:
        return f"{lost}, and {left} row(s) of the base are not in it: they may be the rows lost"
    return None


def _merged_repeats(run_dir: Path, meta: dict[str, Any]) -> str | None:
    """The first run merged into ``run_dir`` whose journal measured a case twice when
    merged (its ``repeated_cases``), in words, or None: the merged run holds the
    first row of the case, which a gate took for the measurement."""
    for source in merge.inside(meta):
        repeats = source.get("repeated_cases")
        if isinstance(repeats, list) and repeats:
            pair = repeats[0] if isinstance(repeats[0], list) and len(repeats[0]) == 2 else "??"
            return (
                f"{run_dir} merges {source.get('run')}, whose journal's line {pair[0]} measured "
                f"the case of line {pair[1]} again when merged ({len(repeats)} such line(s))"
            )
    return None


def _cut_short(meta: dict[str, Any]) -> str | None:
    """How a run's metadata says it stopped short of its work (interrupted, begun and
    never ended, or, for a run merged into another, its journal's damaged lines
    then), or None where it does not."""
    if meta.get("interrupted"):
        return "was interrupted"
    if meta.get("start") and not meta.get("end"):
        return "had not ended (its metadata has no end)"
    damaged = meta.get("damaged_lines")
    if isinstance(damaged, list) and damaged:
        return f"had {len(damaged)} damaged journal line(s)"
    missing = meta.get("missing_rows")
    if isinstance(missing, int) and missing > 0:
        return f"had {missing} row(s) fewer than it counted at its end"
    unread = results.unread_lines(meta)
    if unread:
        return f"was imported from a {unread[0]} with {len(unread[1])} line(s) it could not read"
    return None


def _cmd_show(args: argparse.Namespace) -> int:
    holder = results.writer(args.run_dir)
    if holder is None:
        rows = results.ensure_csv(args.run_dir)
    else:
        # A run folder has one writer: the run's own results.csv comes at its end, and
        # one written here from the rows so far could land after it.
        rows = results.read_journal(args.run_dir)
        print(
            f"note: {args.run_dir} is being written ({holder}): its rows so far; "
            f"{results.RESULTS} is left to that run",
            file=sys.stderr,
        )
    if not rows:
        raise UsageError(results.no_rows(args.run_dir))
    meta = results.read_metadata(args.run_dir)
    # Its machine's name is checked as every other reader checks it: show alone
    # passed a name that was no text.
    merge.hostname(args.run_dir, meta)
    print(table.format_rows(rows, table.param_names(meta)))
    if holder is None:
        # Not of a run being written: its results.csv is not there yet, or holds
        # the rows of the session a resume continues, fewer than those shown.
        print(f"\nresults: {args.run_dir / results.RESULTS}")
        _note_short(args.run_dir, meta, "shown")
    from harness.cli.run import exit_status

    if holder is None and (meta.get("interrupted") or (meta.get("start") and not meta.get("end"))):
        # The run's own status, 130: one stopped short exited 0 here where its rows
        # were ok, a pass for work it never did.
        return 130
    # The run's own status: a check that verified nothing exited 0 here.
    status = exit_status(rows, _checked(meta))
    doubt = _untold(args.run_dir) if holder is None and status == 0 else None
    if doubt:
        # A failed row removed from the journal (or an ok copy of it put before it)
        # left a run that had failed passing here.
        print(f"fail: {doubt}, so the run's status cannot be told from it", file=sys.stderr)
        return 1
    return status


def _untold(run_dir: Path) -> str | None:
    """How a run's journal was edited after the run, in words: rows removed that the
    run counted, or a case measured twice (a removed row, or the second of a case,
    may be a failed one); None where neither is so. A damaged line is named as it is
    read and leaves the status to the rows read."""
    missing = results.missing_rows(run_dir)
    if missing:
        return (
            f"{run_dir / results.JOURNAL} holds {missing} row(s) fewer than the run counted "
            "at its end"
        )
    repeats = results.repeated_cases(run_dir)
    if repeats:
        line, first = repeats[0]
        return f"{run_dir / results.JOURNAL}:{line} measures the case of line {first} again"
    return None


def _checked(meta: dict[str, Any]) -> bool:
    """Whether a run was a --check: a merged run where every run it merges was one
    (merged checks that verified nothing exited 0, where each exits 1)."""
    sources = meta.get("merged_from")
    if isinstance(sources, list) and sources:
        return all(isinstance(s, dict) and _checked(s) for s in sources)
    options = meta.get("options")
    return isinstance(options, dict) and bool(options.get("check"))


def _note_short(run_dir: Path, meta: dict[str, Any], done: str) -> None:
    """A note on stderr where a run is still being written, or stopped short
    (`_cut_short`), that only the rows it has are ``done`` (shown, plotted,
    exported), and how to finish it: its table, plots or profiles alone looked like
    a whole run's."""
    holder = results.writer(run_dir)
    if holder is not None:
        print(
            f"note: {run_dir} is being written ({holder}): its rows so far are {done}",
            file=sys.stderr,
        )
        return
    if not (run_dir / results.METADATA).exists():
        print(
            f"note: {run_dir} has no {results.METADATA}: whether it ran to its end, and on what "
            f"devices and options, is unknown; its journal's rows are {done} as they are",
            file=sys.stderr,
        )
        return
    short = _cut_short(meta)
    try:
        now = results.read_metadata(run_dir) if short else {}
    except results.RunFolderError:
        now = meta
    if short and not _cut_short(now) and now.get("end") != meta.get("end"):
        # It was being written when its rows were read, and has ended since.
        print(
            f"note: {run_dir} ended while its rows were read: those it had then are {done}; "
            "run this again for all of them",
            file=sys.stderr,
        )
        return
    if short:
        fix = (
            "it merges runs, one of which stopped short"
            if "merged_from" in meta
            else "import it again from whole files"
            if "imported_from" in meta
            else f"continue it with: {results.resume_command(run_dir, meta)}"
        )
        print(f"note: {run_dir} {short}: the rows it kept are {done}; {fix}", file=sys.stderr)
        return
    lost = results.merged_losses(meta)
    if lost:
        # Its sources' rows lost when merged: the merged run's other rows alone read whole.
        more = f" (and {len(lost) - 1} more such)" if len(lost) > 1 else ""
        print(
            f"note: {run_dir} merges {lost[0]}{more}: the rows it kept are {done}, and the "
            "rows lost may be any of that run's",
            file=sys.stderr,
        )
    repeated = _merged_repeats(run_dir, meta)
    if repeated:
        # Shown alone, that run's second row of the case is named as it is skipped.
        print(f"note: {repeated}: the first row of each such case is {done}", file=sys.stderr)
    unknown = [str(s.get("run")) for s in merge.inside(meta) if not s.get("end")]
    if unknown:
        # A run merged without its metadata.json: the merged run's end said it had ended.
        print(
            f"note: {run_dir} merges {', '.join(unknown)}, with no {results.METADATA} (or no "
            f"end in it) when merged: whether it ran to its end is unknown; its rows are "
            f"{done} as they are",
            file=sys.stderr,
        )


def _table(run_dir: Path) -> str:
    """A run folder's rows as the terminal table, labelled by its kernels' options."""
    params = table.param_names(results.read_metadata(run_dir))
    return table.format_rows(results.read_journal(run_dir), params)


def _one_reference(frame: Any, baseline_key: str | None) -> str | None:
    """The one device RAJAPerf's speedup file is over: the baseline device, or under
    the fastest-CPU-row rule the CPU device that is most kernels' fastest."""
    from harness.reporting import report

    if baseline_key != report.FASTEST_CPU:
        return baseline_key
    timed = frame[report.cpu_rows(frame) & frame["time_median_s"].notna()]
    if timed.empty:
        return None
    keys = ["kernel", "precision", "size", "case_params"]
    fastest = timed.loc[timed.groupby(keys, sort=False)["time_median_s"].idxmin()]
    return str(fastest["series_key"].value_counts().index[0])
