"""The Python API: run benchmarks and list devices from a script or a notebook.

`run` takes the options of ``harness run`` as keyword arguments and goes through
the very code the command line does (the same parser, checks and run folder),
then hands back the rows as a pandas DataFrame. Bad options raise
`harness.errors.UsageError` with the command line's one-line message.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from os import PathLike
from typing import TYPE_CHECKING, Any, NoReturn

from harness.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd


#: The options `run` takes besides those of ``harness run``.
_API_OPTIONS = ("progress",)


def _run_actions() -> dict[str, argparse.Action]:
    from harness.cli import build_parser

    parser = build_parser().commands["run"]
    return {a.dest: a for a in parser._actions if a.option_strings and a.dest != "help"}


def _is_collection(value: Any) -> bool:
    """Whether an option's value is a collection of values (a list, a numpy array, a
    generator), not one value (text, bytes, a path, a mapping, a numpy array of no
    dimension: ``np.array(3)``, whose iteration raised 'iteration over a 0-d array')."""
    return (
        isinstance(value, Iterable)
        and not isinstance(value, str | bytes | PathLike | Mapping)
        and getattr(value, "ndim", None) != 0
    )


def _plain(value: Any) -> Any:
    """A numpy boolean of no dimension (``np.True_``, a DataFrame's cell) as the bool it
    is: a switch given one was refused as neither True nor False."""
    dtype = getattr(value, "dtype", None)
    if getattr(dtype, "kind", None) == "b" and getattr(value, "ndim", None) == 0:
        return bool(value)
    return value


def _listed(value: Any) -> list[Any]:
    """An option's values: the items of any collection (a numpy array or a generator
    too, whose text would name no value), else the one value given."""
    return list(value) if _is_collection(value) else [value]


def _text(item: Any) -> str:
    """A value as text: a path-like object (an ``os.DirEntry``) by its path, which
    its ``str`` is not."""
    return os.fsdecode(item) if isinstance(item, PathLike) else str(item)


def _value(name: str, item: Any) -> str:
    """An option's value as a word of the command line; UsageError for one the
    parser would read as an option (``kernels=["-h"]`` printed the help and
    exited the interpreter)."""
    text = _text(item)
    if text.startswith("-"):
        try:
            float(text)
        except ValueError:
            raise UsageError(
                f"{name}={item!r}: a value may not begin with '-' (it would be read as an option)"
            ) from None
    return text


def _check_path(name: str, item: Any) -> None:
    """UsageError for a path option's value that is no path (a number, bytes,
    None), whose text would be taken as a file name (``out=5`` made a folder
    named 5), as `harness.load` refuses it."""
    if not isinstance(item, str | PathLike):
        raise UsageError(
            f"{name}={item!r} is no path: give a file or folder name as text or a Path"
        )


def _comma_lists() -> tuple[Any, ...]:
    """The argument types of the options that take a comma-separated list of values
    in one word (``--sizes 1024,4096``): a collection given to them is joined so."""
    from harness.cli import arguments

    return (arguments.sizes, arguments.byte_sizes, arguments.group_sizes)


def _check_items(name: str, given: Any, items: list[Any]) -> None:
    """UsageError for a collection holding None or another collection, whose text
    named what the caller never gave: ``sizes=[[100, 200]]`` as "'[100' is not a
    size", ``kernels=[None]`` as "no kernel matches 'None'"."""
    for item in items:
        if item is None:
            raise UsageError(
                f"{name}={given!r}: None among its values; give each value, or None alone "
                "for the default"
            )
        if _is_collection(item):
            raise UsageError(
                f"{name}={given!r}: {item!r} is a collection within it; give its values "
                "as one flat collection"
            )


def run_arguments(options: Mapping[str, Any]) -> list[str]:
    """``harness run``'s command line for keyword options (``kernels=["Stream"]``,
    ``sizes=[1024, 4096]``, ``transfers=["resident", "per-rep"]``, ``reps=5``);
    None leaves an option at its default, and so does an empty collection where
    that default is empty (``exclude=[]``). TypeError for options that are no
    mapping, or an unknown option; UsageError a switch given anything but True or
    False, a path option (``out``, ``resume``, ``sources``, ``suite``) anything but
    text or a Path, an empty collection where a value is needed, one holding None or
    another collection, or a value beginning with '-' that is no number."""
    from harness.cli import arguments

    if not isinstance(options, Mapping):
        # A list of pairs, or text, raised AttributeError ('list' object has no 'items').
        raise TypeError(
            f"run_arguments() takes the options as a mapping of names to values "
            f"(reps=5 as {{'reps': 5}}), not {type(options).__name__}"
        )
    actions = _run_actions()
    comma_lists = _comma_lists()
    # A switch is taken by its flag's name too: no_hold=True as --no-hold.
    flags = {
        flag[2:].replace("-", "_"): action
        for action in actions.values()
        if action.nargs == 0
        for flag in action.option_strings
        if flag.startswith("--") and flag[2:].replace("-", "_") != action.dest
    }
    for name, action in flags.items():
        if name in options and action.dest in options:
            raise UsageError(
                f"{action.dest}={options[action.dest]!r} and {name}={options[name]!r}: one switch "
                f"given twice; give {action.dest} or {name}"
            )
    argv: list[str] = []
    for name, value in options.items():
        value = _plain(value)
        action = actions.get(name) or flags.get(name)
        if action is None:
            known = ", ".join(sorted({*actions, *flags, *_API_OPTIONS}))
            raise TypeError(f"harness.run() takes no option {name!r}; it takes {known}")
        if value is None:
            continue
        given = value
        if _is_collection(value):
            value = _listed(value)  # once: a generator has its values once
            if not value and action.default == []:
                continue  # nothing to leave out (exclude=[]): the option's default
            if not value:
                # The parser's words named no value of the caller's (sizes=[] as
                # "'' is not a size", kernels=[] as "expected at least one argument").
                raise UsageError(
                    f"{name}={given!r}: no value given; give at least one, or None for the default"
                )
            _check_items(name, given, value)
        flag = max(action.option_strings, key=len)
        if action.type is arguments.path:
            paths = _listed(value)
            for item in paths:
                _check_path(name, item)
            if len(paths) != 1 and not isinstance(action, argparse._AppendAction):
                raise UsageError(f"{name}={value!r}: give one file or folder name")
        if action.nargs == 0:
            if not isinstance(value, bool):
                raise UsageError(f"{name}={value!r}: expected True or False")
            # By its dest (hold=False) a switch differs from its default; by its flag's
            # name (no_hold=True) it is given.
            given = value != bool(action.default) if name == action.dest else value
            if given:
                argv.append(flag)
        elif action.nargs == "?":
            # An option with an optional value (check=True, or check="full").
            if value is True:
                argv.append(flag)
            elif value is not False:
                argv += [flag, _value(name, value)]
        elif isinstance(action, argparse._AppendAction):
            for item in _listed(value):
                argv += [flag, _value(name, item)]
        elif action.nargs in ("+", "*"):
            argv += [flag, *(_value(name, item) for item in _listed(value))]
        else:
            items = _listed(value)
            if len(items) > 1 and action.type not in comma_lists:
                # Joined with commas, the parser named a value never given ('100,200'
                # is not a whole number, for size=[100, 200]).
                raise UsageError(
                    f"{name}={given!r}: {flag} takes one value; give one, not {len(items)}"
                )
            argv += [flag, _value(name, ",".join(_text(item) for item in items))]
    return argv


def run(
    kernels: str | Sequence[str] | None = None,
    backends: str | Sequence[str] | None = None,
    *,
    out: str | PathLike[str] = "results",
    progress: bool = True,
    **options: Any,
) -> pd.DataFrame:
    """Run, verify and time kernels as ``harness run`` does; return its rows.

    ``kernels`` and ``backends`` select as ``-k`` and ``-b`` do (default: all);
    ``options`` are the other options of ``harness run`` by their long names
    with ``_`` for ``-`` (``sizes``, ``reps``, ``precision``, ``device``,
    ``transfers``, ``group``, ``check``, ``strategy``, ...; see ``harness run
    --help``). The run folder is made under ``out``, exactly as the command
    line makes it. ``progress`` shows a live bar (in a notebook too); without it, a line
    per row goes to stderr.

    The DataFrame has one row per result, as ``results.csv``, with the run
    folder's path in ``.attrs["run_dir"]`` and the command's exit status in
    ``.attrs["exit_status"]`` (0: every row ok or skipped, 1: some failed, or a
    check verified nothing). An
    interrupted run (Ctrl-C, SIGTERM) raises KeyboardInterrupt once its folder is
    written, naming it: ``resume=`` that folder continues it.
    """
    with _sigterm_interrupts():
        try:
            args = _parsed(kernels, backends, out, progress, options)
        except KeyboardInterrupt:
            # A SIGTERM as the harness was imported ended the process (a notebook's
            # kernel), before run_command took the signals as the command line does.
            raise KeyboardInterrupt(
                "harness.run: interrupted; stopped before its run folder was made; "
                "nothing was measured"
            ) from None
        from harness import load, suite
        from harness.cli import run_command
        from harness.execution import results

        # A resume loads the run's own suites, whichever this process loaded before.
        mine = contextlib.nullcontext() if args.resume else suite.only(args.suite or ())
        with mine:
            status, run_dir = run_command(args, bar=bool(progress))
        if status in (130, 143):
            # As Ctrl-C stops any Python code: returning the rows let a script go on to
            # its next run, and a run stopped before its first row raised RunFolderError,
            # a usage error, for having none.
            if not (run_dir / results.JOURNAL).is_file():
                kept = "stopped before its run folder was made; nothing was measured"
            elif results.read_metadata(run_dir).get("interrupted") is False:
                kept = f"stopped after its last row: every row is in {run_dir}"
            else:
                kept = (
                    f"the rows measured so far are kept in {run_dir}; continue with "
                    f"harness.run(resume={str(run_dir)!r})"
                )
            raise KeyboardInterrupt(f"harness.run: interrupted; {kept}")
        frame = load(run_dir)
        frame.attrs["run_dir"] = str(run_dir)
        frame.attrs["exit_status"] = status
        return frame


def _parsed(
    kernels: Any, backends: Any, out: Any, progress: Any, options: Mapping[str, Any]
) -> argparse.Namespace:
    """`run`'s arguments checked and parsed as ``harness run``'s command line, its
    suite files loaded; UsageError for a bad one."""
    from harness import suite
    from harness.cli import build_parser, load_suites
    from harness.model import partition

    if not isinstance(_plain(progress), bool):
        raise UsageError(f"progress={progress!r}: expected True or False")
    # As the command line does before anything: a bad HARNESS_FORM made a run
    # folder whose every OpenCL and CUDA row was an error naming it.
    partition.form_override()
    # Each collection read once: a generator of suite files, read for the command
    # line, was empty when its files were loaded, and their kernels matched nothing.
    chosen = {
        name: _listed(value) if _is_collection(value) else value
        for name, value in {"kernels": kernels, "backends": backends, "out": out, **options}.items()
    }
    # The suite files are checked and loaded before the other options are read, as the
    # command line loads them before its parser is built: a user kernel's run option
    # (bins="b") was refused as no option of harness.run.
    run_arguments({"suite": chosen.get("suite")})
    suite_files = chosen.get("suite")
    suites = [] if suite_files is None else [_text(path) for path in _listed(suite_files)]
    for path in suites:
        if path.strip() and suite.edited(os.path.expanduser(path)):
            if not os.path.lexists(os.path.expanduser(path)):
                # Removed since: it was said to be changed, to be run in a new process,
                # where it is no file.
                raise UsageError(f"--suite {os.path.expanduser(path)}: no such file")
            # Called again in one process (a notebook) after the file was edited, it ran
            # the descriptions first loaded, silently.
            raise UsageError(
                f"suite={path!r}: changed since this process loaded it, whose kernels stay "
                "as first loaded; run the changed suite in a new process (in a notebook, "
                "restart its kernel)"
            )
    load_suites(suites)
    argv = ["run", *run_arguments(chosen)]
    args = build_parser().parse_args(argv)
    args.argv = argv
    args.quiet = True
    return args


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt while `run` runs, as Ctrl-C does, from its
    first import (``harness run`` takes both from its start). Only the main thread
    may handle signals; a handler set by C code (None to Python) is left alone, as
    it could not be put back."""
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGTERM) is None
    ):
        yield
        return

    def stop(signum: int, frame: Any) -> NoReturn:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def devices() -> list[dict[str, Any]]:
    """Every backend as ``harness devices --json`` lists it: ``backend``,
    ``available``, ``reason`` (why not), ``devices`` (each a dict with ``id``,
    ``name``, ``kind``, ``api``, ``driver``, ``memory_bytes``, ``features``,
    ``limits`` and ``note``, why it is not a default where it is not) and
    ``notes`` (of the backend besides its devices: a driver that offered none).
    UsageError for a bad ``HARNESS_FORM``, as the command refuses it."""
    from harness.cli import device_report
    from harness.model import partition

    # As `harness devices` does: a bad HARNESS_FORM was passed over here.
    partition.form_override()
    return device_report()
