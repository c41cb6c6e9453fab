"""Round 30 probes: each test says what was wrong before."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import harness, mpi_env, mpirun, need_backend, run_folder
from test_oclgrind import _simulator

from harness.execution import peaks, results

#: Each MPI rank runs harness through this: in a namespace of its own whose host
#: name is host<rank> ($HOSTS<rank> where set), and rank 1 with an OpenCL vendors
#: folder of no driver, so that its opencl:0 is the driver pyopencl brings (its
#: own PoCL), not the system's: two hosts, another device under one id on each.
WRAPPER = """#!/bin/bash
rank=$OMPI_COMM_WORLD_RANK
if [ "$rank" = 1 ]; then export OCL_ICD_VENDORS={empty}; fi
exec unshare -u sh -c 'hostname "${{HOSTS:-host}}$0"; exec "$@"' "$rank" {python} -m harness "$@"
"""


def _opencl_0(env: dict[str, str]) -> str | None:
    """The name of opencl:0 in this environment, or None where there is none."""
    proc = harness("devices", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    return next(
        (
            device["name"]
            for backend in json.loads(proc.stdout)
            if backend["backend"] == "opencl"
            for device in backend["devices"]
            if device["id"] == "opencl:0"
        ),
        None,
    )


@pytest.fixture(scope="module")
def two_hosts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The rank wrapper and a peak store holding each host's opencl:0 peak (each
    measured as that host); skipped where a rank cannot name its own host (not
    root) or the two opencl:0 are one device."""
    mpirun()
    need_backend("opencl")
    if subprocess.run(["unshare", "-u", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -u is refused here (it needs root)")
    folder = tmp_path_factory.mktemp("hosts")
    empty = folder / "no-drivers"
    empty.mkdir()
    names = {_opencl_0({}), _opencl_0({"OCL_ICD_VENDORS": str(empty)})}
    if None in names or len(names) < 2:
        pytest.skip("no second OpenCL driver (pyopencl's PoCL) beside the system's")
    wrapper = folder / "rank.sh"
    wrapper.write_text(WRAPPER.format(empty=empty, python=sys.executable))
    wrapper.chmod(0o755)
    env = {**mpi_env(), "HARNESS_PEAKS": str(folder / "peaks.json")}
    for rank in (0, 1):
        proc = subprocess.run(
            [str(wrapper), "peak", "--device", "opencl:0", "--span", "0.2", "--max-time",
             "0.2", "--bandwidth-size", "65536", "--fma-size", "1024", "--force"],
            capture_output=True, text=True, timeout=300,
            env={**env, "OMPI_COMM_WORLD_RANK": str(rank)},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    return wrapper, env


def _job(wrapper: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    command = [mpirun(), "-n", "2", "--oversubscribe", str(wrapper), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture(scope="module")
def two_host_run(
    two_hosts: tuple[Path, dict[str, str]], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """An MPI run of two ranks on two hosts, each with another device as opencl:0."""
    wrapper, env = two_hosts
    out = tmp_path_factory.mktemp("run")
    proc = _job(wrapper, env, "run", "-k", "Basic_DAXPY", "Stream_TRIAD", "-b", "opencl",
                "--size", "100000", "--reps", "2", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return run_folder(out)


def _stop_after(run: Path, rows: int) -> None:
    """Leave ``run`` as a run stopped after its first ``rows`` rows leaves it."""
    journal = run / "journal.jsonl"
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:rows]))
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    meta.update(interrupted=True, journal_rows=rows, end=None)
    path.write_text(json.dumps(meta))


def _cut(run: Path, tmp_path: Path) -> Path:
    """A copy of ``run`` as a job stopped after its first row on each rank leaves it."""
    copy = tmp_path / run.name
    shutil.copytree(run, copy)
    _stop_after(copy, 2)
    return copy


def _placed(row: dict, peak: dict) -> bool:
    return row["pct_peak_bw"] == pytest.approx(100 * row["gbytes_per_s"] / peaks.bandwidth(peak))


@pytest.mark.full  # a job of MPI ranks, two devices' peaks measured
def test_an_mpi_run_over_two_hosts_lists_each_host_s_device_of_one_id(
    two_host_run: Path, tmp_path: Path
) -> None:
    """Its metadata listed one device an id, the last rank's: the report's Devices
    named host0's opencl:0 by host1's driver, its Peaks had host0's peak alone,
    under the bare id, for both hosts' rows, and rank 0 started its rows on host1's
    device entry."""
    meta = results.read_metadata(two_host_run)
    rows = results.read_journal(two_host_run)
    by_host = {(d["host"], d["id"]): d for d in meta["devices"]}
    assert sorted(by_host) == [("host0", "opencl:0"), ("host1", "opencl:0")]
    assert "peaks" not in meta
    names = set()
    for row in rows:
        device = by_host[row["host"], row["device_id"]]
        assert (device["name"], device["driver"]) == (row["device"], row["device_driver"])
        assert _placed(row, device["peaks"])
        assert device["peaks"]["device"]["name"] == row["device"]
        names.add(row["device"])
    assert len(names) == 2
    # Rank 0's rows gave its own entry what they found of energy counters.
    assert "energy" in by_host["host0", "opencl:0"]
    out = tmp_path / "report"
    proc = harness("report", str(two_host_run), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    text = (out / "report.md").read_text()
    for host in ("host0", "host1"):
        device = by_host[host, "opencl:0"]
        assert f"| {host}: opencl:0 | {device['name']} | cpu |" in text
        assert f"| {host}: opencl:0 | {device['peaks']['copy_gbytes_per_s']:.3g} |" in text


@pytest.mark.full  # a job of MPI ranks
def test_a_resumed_mpi_run_over_two_hosts_places_each_rank_against_its_own_peak(
    two_hosts: tuple[Path, dict[str, str]], two_host_run: Path, tmp_path: Path
) -> None:
    """Each rank of a resume took the run's peaks by id, which were rank 0's: rank
    1's rows left were placed against host0's device's peak."""
    wrapper, env = two_hosts
    run = _cut(two_host_run, tmp_path)
    # The store is emptied: the peaks are the ones the run began with.
    proc = _job(wrapper, {**env, "HARNESS_PEAKS": str(tmp_path / "none.json")}, "run",
                "--resume", str(run))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    # Each rank's peak, as the run placed its first rows against it.
    began = {
        r["rank"]: 100 * r["gbytes_per_s"] / r["pct_peak_bw"]
        for r in results.read_journal(two_host_run)
    }
    assert began[0] != pytest.approx(began[1])
    rows = results.read_journal(run)
    assert [r["rank"] for r in rows] == [0, 1, 0, 1]
    for row in rows:
        assert 100 * row["gbytes_per_s"] / row["pct_peak_bw"] == pytest.approx(began[row["rank"]])


@pytest.mark.full  # a merged run holds devices of two hosts
def test_a_report_names_the_host_and_id_a_device_without_a_peak_is_measured_by(
    two_host_run: Path, tmp_path: Path
) -> None:
    """The Peaks table told a merged run's device without a peak to be measured with
    'harness peak --device vm: cpu:0', which no command accepts."""
    out = tmp_path / "out"
    proc = harness("run", "-k", "Basic_DAXPY", "-b", "cpu", "--size", "1000", "--reps", "1",
                   "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    single = run_folder(out)
    host = results.read_metadata(single)["host"]["hostname"]
    merged = tmp_path / "merged"
    proc = harness("merge", str(two_host_run), str(single), "--out", str(merged))
    assert proc.returncode == 0, proc.stderr
    report = tmp_path / "report"
    proc = harness("report", str(run_folder(merged)), "--out", str(report))
    assert proc.returncode == 0, proc.stderr
    text = (report / "report.md").read_text()
    hint = f"no peak: measure one with harness peak --device cpu:0 on {host}"
    assert f"| {host}: cpu:0 | - | - | - | - | - | not measured | {hint} |" in text
    assert "--device host" not in text and f"--device {host}:" not in text


@pytest.mark.full  # a job of MPI ranks
def test_ranks_of_one_host_each_with_another_device_under_one_id_keep_their_names(
    tmp_path: Path,
) -> None:
    """Ranks each given their own GPU as cuda:0 (CUDA_VISIBLE_DEVICES by local
    rank, on a node of two models): the report labelled rank 1's rows with rank
    0's device, and show and report warned of rank 1's rows as if damaged."""
    mpirun()
    need_backend("opencl")
    empty = tmp_path / "no-drivers"
    empty.mkdir()
    names = [_opencl_0({}), _opencl_0({"OCL_ICD_VENDORS": str(empty)})]
    if None in names or names[0] == names[1]:
        pytest.skip("no second OpenCL driver (pyopencl's PoCL) beside the system's")
    wrapper = tmp_path / "rank.sh"
    wrapper.write_text(
        "#!/bin/bash\n"
        f'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then export OCL_ICD_VENDORS={empty}; fi\n'
        f'exec {sys.executable} -m harness "$@"\n'
    )
    wrapper.chmod(0o755)
    out = tmp_path / "out"
    proc = _job(wrapper, mpi_env(), "run", "-k", "Basic_DAXPY", "-b", "opencl", "--size",
                "1000", "--reps", "1", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    rows = results.read_journal(run)
    assert [(r["rank"], r["device_id"], r["device"]) for r in rows] == [
        (0, "opencl:0", names[0]),
        (1, "opencl:0", names[1]),
    ]
    proc = harness("show", str(run))
    assert proc.returncode == 0, proc.stderr
    assert "names device" not in proc.stderr
    report = tmp_path / "report"
    proc = harness("report", str(run), "--out", str(report))
    assert proc.returncode == 0, proc.stderr
    assert "names device" not in proc.stderr
    text = (report / "report.md").read_text()
    row = r"\| Basic_DAXPY \| opencl \| opencl:0 r(\d) \((.*?)\) \| f64 \| 1000 \|"
    labels = dict(re.findall(row, text))
    assert sorted(labels) == ["0", "1"], text
    for rank, name in enumerate(names):
        # A long device name is cut short, with an ellipsis, in the table's column.
        shown = labels[str(rank)]
        assert shown == name or (shown.endswith("…") and name.startswith(shown[:-1])), shown


@pytest.mark.full  # two jobs of MPI ranks
def test_compare_of_two_mpi_jobs_over_two_hosts_matches_rows_host_by_host(
    two_hosts: tuple[Path, dict[str, str]], two_host_run: Path, tmp_path: Path
) -> None:
    """Compare called an MPI job over two hosts a merged run."""
    wrapper, env = two_hosts
    out = tmp_path / "out"
    proc = _job(wrapper, env, "run", "-k", "Basic_DAXPY", "Stream_TRIAD", "-b", "opencl",
                "--size", "100000", "--reps", "2", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    proc = harness("compare", "--threshold", "99", str(two_host_run), str(run_folder(out)))
    # Two jobs' times on a loaded machine can differ past any threshold (2.2x once):
    # a regression verdict is theirs; what is judged here is how rows are matched.
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "error:" not in proc.stderr
    assert (
        "note: the base run holds 2 hosts' rows and the new run holds 2 hosts' rows: rows "
        "are matched by host too, a host's rows with the other run's rows of that host"
    ) in proc.stdout.splitlines()
    table = [line.split()[:3] for line in proc.stdout.splitlines() if line.startswith("Basic")]
    assert sorted(table) == [
        ["Basic_DAXPY", "opencl:0", "@host0"],
        ["Basic_DAXPY", "opencl:0", "@host1"],
    ]


@pytest.mark.full  # a job of MPI ranks
def test_an_mpi_resume_on_other_nodes_keeps_the_devices_of_the_run_s_first_nodes(
    two_hosts: tuple[Path, dict[str, str]], two_host_run: Path, tmp_path: Path
) -> None:
    """A resume whose job a batch system put on other nodes listed only those
    nodes' devices: the rows of the nodes the run began on lost their devices'
    entries (kind, name, peaks) in the metadata."""
    wrapper, env = two_hosts
    run = _cut(two_host_run, tmp_path)
    proc = _job(wrapper, {**env, "HOSTS": "node"}, "run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    rows = results.read_journal(run)
    assert [r["host"] for r in rows] == ["host0", "host1", "node0", "node1"]
    meta = results.read_metadata(run)
    by_host = {(d["host"], d["id"]): d for d in meta["devices"]}
    assert sorted(by_host) == [(h, "opencl:0") for h in ("host0", "host1", "node0", "node1")]
    for row in rows:
        assert by_host[row["host"], "opencl:0"]["name"] == row["device"]
    began = {(d["host"], d["id"]): d for d in results.read_metadata(two_host_run)["devices"]}
    for key in began:
        assert by_host[key]["peaks"] == began[key]["peaks"]
    assert not [k for k in meta if k.startswith("_")]


@pytest.mark.full  # a run, then its resume
def test_a_resume_on_another_host_says_so_and_the_run_keeps_it(tmp_path: Path) -> None:
    """A run resumed on another host (a node of the same devices) was taken as
    the first host's without a word: its metadata and report named one machine
    for rows of two."""
    if subprocess.run(["unshare", "-u", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -u is refused here (it needs root)")
    out = tmp_path / "out"
    proc = harness("run", "-k", "Basic_DAXPY", "Stream_TRIAD", "-b", "cpu", "--size", "1000",
                   "--reps", "1", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    began = results.read_metadata(run_folder(out))["host"]["hostname"]
    run = tmp_path / "cut"
    shutil.copytree(run_folder(out), run)
    _stop_after(run, 1)
    command = [sys.executable, "-m", "harness", "run", "--resume", str(run)]
    proc = subprocess.run(
        ["unshare", "-u", "sh", "-c", 'hostname node7; exec "$@"', "sh", *command],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        f"warning: --resume: {run} began on host {began!r}, this is 'node7': the rows left "
        "run on this host's devices of the same names, and the run says so (resumed_on); "
        f"resume on {began} to keep its rows one machine's"
    ) in proc.stderr.splitlines()
    meta = results.read_metadata(run)
    assert meta["host"]["hostname"] == began
    assert meta["resumed_on"] == [{"host": "node7", "at": meta["resumed"][-1]}]
    assert len(results.read_journal(run)) == 2
    report = tmp_path / "report"
    proc = harness("report", str(run), "--out", str(report))
    assert proc.returncode == 0, proc.stderr
    assert f"| cut | {began} (resumed on node7) |" in (report / "report.md").read_text()
    # Resumed where it began, it says nothing of hosts.
    _stop_after(run, 1)
    proc = harness("run", "--resume", str(run))
    assert proc.returncode == 0, proc.stderr
    assert "resuming" in proc.stderr and "began on host" not in proc.stderr
    assert len(results.read_metadata(run)["resumed_on"]) == 1


@pytest.mark.full  # a run, then a report with plots
@pytest.mark.parametrize("command", ["report", "plot"])
def test_a_report_stopped_before_it_writes_leaves_no_folder(tmp_path: Path, command: str) -> None:
    """A report stopped while it drew its plots, or a plot while it drew its first,
    left behind the empty folder it had made for them."""
    out = tmp_path / "out"
    proc = harness("run", "-k", "Basic_DAXPY", "Stream_TRIAD", "-b", "cpu", "--size", "1000",
                   "--reps", "1", "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "new" / "report"
    args = ["--html"] if command == "report" else []
    stopped = subprocess.Popen(
        [sys.executable, "-m", "harness", command, str(run_folder(out)), *args,
         "--out", str(folder)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert stopped.stderr is not None
    for line in stopped.stderr:
        if line.startswith("[1/"):
            break
    stopped.send_signal(signal.SIGTERM)
    rest = stopped.stderr.read()
    assert stopped.wait(timeout=120) == 130, rest
    assert f"harness {command}: interrupted" in rest
    assert not (tmp_path / "new").exists()


@pytest.mark.full  # mutants checked on PoCL, then on the simulator
def test_an_interrupt_stops_a_survivor_s_recheck_and_leaves_it_uncounted(
    tmp_path: Path,
) -> None:
    """An interrupt waited for a survivor's recheck on the simulator to end (a
    sort's took over 40 minutes), then counted it as survived, though the stop
    may have cut it short."""
    need_backend("opencl")
    _simulator()
    suite = tmp_path / "mine"
    shutil.copytree(Path(__file__).resolve().parent.parent / "examples" / "my_kernels", suite)
    source = suite / "c" / "My_SAXPY.c"
    # A private array that nothing reads: its size's mutants survive everywhere.
    source.write_text(
        source.read_text().replace(
            "    FOR_EACH(i, n) {\n",
            "    REAL spare[4];\n    spare[0] = a;\n    FOR_EACH(i, n) {\n",
            1,
        )
    )
    line = source.read_text().splitlines().index("    REAL spare[4];") + 1
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "mutants", "--suite", str(suite / "kernels.py"),
         "-k", "My_SAXPY", "-b", "opencl", "--lines", f"My_SAXPY.c:{line}", "--out", str(out)],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    for said in proc.stderr:
        if "checking again on" in said:
            break
    proc.send_signal(signal.SIGINT)
    stdout, rest = proc.communicate(timeout=300)
    assert proc.returncode == 130, rest
    table = stdout.splitlines()
    assert any(row.split()[:6] == ["My_SAXPY", "opencl:0", "0", "of", "2", "0"] for row in table)
    assert "survivors" not in stdout


@pytest.mark.full  # a run, its metadata damaged
@pytest.mark.parametrize(
    ("field", "value", "accepted"),
    [
        ("ranks", -1, 'a list of each MPI rank\'s {"rank": ..., "host": ..., "devices": [...]}'),
        ("ranks", [3], 'a list of each MPI rank\'s {"rank": ..., "host": ..., "devices": [...]}'),
        (
            "peaks",
            {"notes": -1},
            "an object of the device's peaks (FMA rates an object by precision, notes and "
            "warnings lists)",
        ),
        (
            "peaks",
            {"fma_gflops_per_s": 1e308},
            "an object of the device's peaks (FMA rates an object by precision, notes and "
            "warnings lists)",
        ),
    ],
)
def test_damaged_ranks_or_device_peaks_are_named_not_a_traceback(
    tmp_path: Path, field: str, value: object, accepted: str
) -> None:
    """'ranks' that was not a list of objects ended show, report, export and merge in
    a traceback; a device's own peaks (a merged run's, an MPI job's over several
    hosts) whose notes or FMA rates were a number, report and export."""
    out = tmp_path / "out"
    proc = harness("run", "-k", "Basic_DAXPY", "-b", "cpu", "--size", "1000", "--reps", "1",
                   "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run = run_folder(out)
    path = run / "metadata.json"
    meta = json.loads(path.read_text())
    if field == "ranks":
        meta["ranks"] = value
        where = f"'ranks' is {json.dumps(value)}"
    else:
        meta["devices"][0].update(host="node1", peaks=value)
        where = f"device 1 of 'devices' has 'peaks' {json.dumps(value)}"
    path.write_text(json.dumps(meta))
    for command in (["show"], ["report", "--out", str(tmp_path / "r")],
                    ["export", "--thicket", "--out", str(tmp_path / "e")]):  # fmt: skip
        proc = harness(command[0], str(run), *command[1:])
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr
        line = proc.stderr.strip().splitlines()[-1]
        assert line.startswith(f"harness: error: {path}:"), line
        assert line.endswith(f": {where}; {accepted} is accepted"), line
