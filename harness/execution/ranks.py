"""Runs under MPI: ``mpirun -n N harness run ...`` makes one run folder of N ranks.

Each rank takes, of each backend's devices the selection allows, the one at
its node-local rank (round robin), so ranks on a node with several GPUs use
one each. All ranks plan the same rows; before each row they meet at a barrier
so that they measure together (as RAJAPerf's MPI runs do), and rank 0 gathers
every rank's row into the one run folder, with ``rank`` and ``host`` columns.
The summary adds RAJAPerf's view over ranks: the minimum, average and maximum
median time of each kernel. Outside mpirun, or without mpi4py, nothing of this
happens.

A rank that crashes, is killed or hangs must not take the others' rows with
it. So after the start the ranks meet by messages to and from rank 0 rather
than collectives, and every rank sends a heartbeat from a thread of its own
(MPI_THREAD_MULTIPLE) every BEAT_S seconds: a rank rank 0 has not heard from
for ``lost_after`` seconds is lost, and its rows from then on are error rows.
Open MPI's mpirun ends the whole job when one process dies unless it is given
``--enable-recovery`` (MPICH's ``-disable-auto-cleanup``); without it, the
rows gathered so far are kept and ``harness run --resume`` finishes the run.

No rank blocks on another: a large message waits for its receiver, so every
send is one that gives up on a lost receiver, and every wait sleeps between
looks. A job whose rank was lost is ended by its last ranks (`finish`), since
mpirun would wait for a stopped process for ever, and one under Open MPI's
recovery mode that failed is ended through its launcher, since mpirun then
exits 0 whatever its ranks return.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import struct
import sys
import threading
import time
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from harness.backends.base import DeviceInfo
from harness.execution.results import STOP_SIGNALS

#: Environment variables an MPI launcher sets in every rank's process.
LAUNCHER_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS")


#: Seconds between a rank's heartbeats.
BEAT_S = 0.5
#: Seconds of silence after which a rank is lost, unless the run says otherwise.
LOST_AFTER_S = 30.0
#: Seconds a waiting rank first sleeps between looks, and at most (it backs off).
PAUSE_S, MAX_PAUSE_S = 0.001, 0.02
#: Seconds between two looks of a waiting rank after which it takes itself to
#: have not run in between (a look is due every MAX_PAUSE_S).
MISSED_S = 2 * BEAT_S
#: Message tags: a heartbeat, ready for the next row, go, a row, the run's end, what
#: the ranks share while they plan, and a rank's interruption.
_BEAT, _READY, _GO, _ROW, _DONE, _SHARE, _STOP = range(1, 8)
#: Process names of Open MPI's launchers, which end their job on SIGTERM.
LAUNCHERS = ("mpirun", "mpiexec", "orterun", "orted", "prterun", "prted")


class RankLost(Exception):
    """Rank 0, which writes the run folder, fell silent."""


class PlanLost(Exception):
    """Ranks fell silent while the ranks planned, before any row: nothing to keep."""

    def __init__(self, lost: set[int]) -> None:
        super().__init__(", ".join(map(str, sorted(lost))))
        self.lost = lost


@dataclass
class World:
    """This process's place among the ranks of an MPI run."""

    comm: Any
    rank: int
    size: int
    local_rank: int
    host: str
    #: Seconds of silence after which a rank is lost (`start`).
    lost_after: float = LOST_AFTER_S
    #: The other ranks this one still hears from: rank 0's peers, or rank 0.
    live: set[int] = field(default_factory=set)
    _seen: dict[int, float] = field(default_factory=dict)
    _inbox: dict[tuple[int, int], deque[Any]] = field(default_factory=lambda: defaultdict(deque))
    _sent: list[Any] = field(default_factory=list)
    #: Sends of the main thread that were never taken (their receiver was lost).
    _unsent: list[Any] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    #: Set once this rank ends the job: another rank's interruption changes nothing.
    _ending: bool = False

    def bcast(self, value: Any) -> Any:
        """Rank 0's value, in every rank: by messages, so that a rank lost while
        the ranks plan (stopped, killed) ends the job rather than hanging it in a
        collective (`PlanLost` in rank 0, `RankLost` in the others)."""
        if self.rank != 0:
            got, lost = self._await(_SHARE, {0})
            if lost:
                raise RankLost
            return got[0]
        lost = {peer for peer in sorted(self.live) if not self._send(value, peer, _SHARE)}
        if lost:
            raise PlanLost(lost)
        return value

    def gather(self, value: Any) -> list[Any] | None:
        """Every rank's value, by rank, in rank 0 (None elsewhere), as `bcast`."""
        if self.rank != 0:
            if not self._send(value, 0, _SHARE):
                raise RankLost
            return None
        got, lost = self._await(_SHARE, set(self.live))
        if lost:
            raise PlanLost(lost)
        return [value, *(got[peer] for peer in range(1, self.size))]

    def start(self, lost_after: float) -> None:
        """From here on, meet by messages and heartbeats (see the module's text).
        Where the MPI library cannot take calls from two threads, no heartbeat
        is sent and no rank is ever taken as lost."""
        from mpi4py import MPI

        self.lost_after = lost_after
        self.live = set(range(1, self.size)) if self.rank == 0 else {0}
        now = time.monotonic()
        self._seen = dict.fromkeys(self.live, now)
        if MPI.Query_thread() < MPI.THREAD_MULTIPLE:
            self.lost_after = float("inf")
            return
        threading.Thread(target=self._beat, name="mpi-heartbeat", daemon=True).start()

    def _beat(self) -> None:
        # Ctrl-C and SIGTERM sent to the process go to the main thread: taken here,
        # they waited for its blocking call (a row's measuring) to end.
        _block_stop_signals()
        while not self._stop.is_set():
            for peer in list(self.live):
                self._sent.append(self.comm.isend(None, dest=peer, tag=_BEAT))
            # A send to a lost rank never completes; the others are let go.
            self._sent = [r for r in self._sent if not r.Test()]
            self._stop.wait(BEAT_S)

    def stop(self) -> None:
        """No more heartbeats."""
        self._stop.set()

    def _pump(self) -> None:
        """Take every message that has arrived: each says its sender is alive."""
        from mpi4py import MPI

        status = MPI.Status()
        while self.comm.iprobe(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status):
            source, tag = status.Get_source(), status.Get_tag()
            message = self.comm.recv(source=source, tag=tag)
            self._seen[source] = time.monotonic()
            if tag == _STOP and self.rank == 0 and not self._ending:
                # Another rank took Ctrl-C or SIGTERM alone: the run stops as if
                # this one had, so that its rows end interrupted, not failed.
                self.live.discard(source)
                raise KeyboardInterrupt
            if tag != _BEAT:
                self._inbox[(source, tag)].append(message)

    def _silent(self, peer: int, listening: float) -> bool:
        """Whether ``peer`` has said nothing for lost_after seconds of this rank's
        listening, which began at ``listening`` (`_listening`)."""
        now = time.monotonic()
        return now - max(self._seen.get(peer, now), listening) > self.lost_after

    @staticmethod
    def _listening(since: float, last: float, now: float) -> float:
        """When this rank's listening began: ``since``, unless this process itself
        did not run for a while since its last look at ``last`` (stopped, then
        continued, or starved of CPU); silence it did not hear is no peer's fault."""
        return now if now - last > MISSED_S else since

    def _await(self, tag: int, sources: set[int]) -> tuple[dict[int, Any], set[int]]:
        """A message with ``tag`` from each of ``sources``, and the sources lost
        (silent for lost_after seconds) instead; those leave ``live``."""
        got: dict[int, Any] = {}
        lost: set[int] = set()
        pause = PAUSE_S
        since = last = time.monotonic()
        while True:
            self._pump()
            now = time.monotonic()
            since, last = self._listening(since, last, now), now
            for source in sources - set(got) - lost:
                if self._inbox[(source, tag)]:
                    got[source] = self._inbox[(source, tag)].popleft()
                elif self._silent(source, since):
                    lost.add(source)
            if len(got) + len(lost) == len(sources):
                self.live -= lost
                return got, lost
            time.sleep(pause)
            pause = min(2 * pause, MAX_PAUSE_S)

    def _send(self, value: Any, dest: int, tag: int) -> bool:
        """Send ``value`` to ``dest``: True once taken, False where ``dest`` was
        lost first (it then leaves ``live``). A blocking send of a large message
        to a stopped rank would spin for ever."""
        request = self.comm.isend(value, dest=dest, tag=tag)
        pause = PAUSE_S
        since = last = time.monotonic()
        while not request.Test():
            self._pump()
            now = time.monotonic()
            since, last = self._listening(since, last, now), now
            if self._silent(dest, since):
                # Never taken: kept, so that its buffer outlives the send.
                self._unsent.append(request)
                self.live.discard(dest)
                return False
            time.sleep(pause)
            pause = min(2 * pause, MAX_PAUSE_S)
        return True

    def step(self) -> set[int]:
        """Before each row: every live rank is here, so they measure together.
        Rank 0 returns the ranks lost on the way; another rank raises RankLost
        when rank 0 is."""
        if self.rank == 0:
            _, lost = self._await(_READY, set(self.live))
            for peer in sorted(self.live):
                if not self._send(None, peer, _GO):
                    lost.add(peer)
            return lost
        if not self._send(None, 0, _READY) or self._await(_GO, {0})[1]:
            raise RankLost
        return set()

    def rows(self, row: dict[str, Any]) -> tuple[dict[int, dict[str, Any]], set[int]]:
        """Each live rank's row of this step, in rank 0 (the others send theirs and
        get nothing), and the ranks lost before sending it."""
        if self.rank != 0:
            if not self._send(row, 0, _ROW):
                raise RankLost
            return {}, set()
        got, lost = self._await(_ROW, set(self.live))
        return {0: row, **got}, lost

    def interrupted(self) -> NoReturn:
        """End a rank but 0 that took Ctrl-C or SIGTERM: rank 0 is told, and it ends
        the run as interrupted; this rank waits for its word (or for it to fall
        silent), so that mpirun, which stops the job as this process exits, stops
        no rank while rank 0 writes the run's end."""
        if self._send(None, 0, _STOP):
            with contextlib.suppress(KeyboardInterrupt):
                self._await(_DONE, {0})
        self.stop()
        end_job(130)

    def release(self, status: int) -> NoReturn:
        """Rank 0's end of an interrupted run: the other ranks still heard from are
        told (`interrupted`), then the job ends with ``status``."""
        self._ending = True
        for peer in sorted(self.live):
            self._send((status, True), peer, _DONE)
        self.stop()
        end_job(status)

    def finish(self, status: int) -> int:
        """Rank 0's exit status, in every rank still live. Where a rank was lost,
        this process ends here (MPI_Finalize would wait for the lost rank for
        ever), and so does the job (`end_job`); one that failed under Open MPI's
        recovery mode is ended too, so that mpirun's own status says so."""
        self._ending = True
        if self.rank == 0:
            abandoned = len(self.live) < self.size - 1
            for peer in sorted(self.live):
                self._send((status, abandoned), peer, _DONE)
        else:
            got, lost = self._await(_DONE, {0})
            status, abandoned = got[0] if not lost else (1, True)
        self.stop()
        if abandoned or (status and _recovering() and self.rank == 0):
            end_job(status)
        # MPI_Finalize, at this process's exit, waits for every rank: one stopped from
        # here on would hold this one for ever. An alarm, whose default action ends
        # the process (and mpirun then the job), bounds the wait.
        if math.isfinite(self.lost_after):
            signal.alarm(math.ceil(self.lost_after) + 1)
        return status


def _block_stop_signals() -> None:
    """Block the stop signals in this thread."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def _recovering() -> bool:
    """Whether this process runs under Open MPI's ``--enable-recovery``."""
    return os.environ.get("OMPI_MCA_orte_enable_recovery", "0") not in ("", "0")  # noqa: SIM112


def end_job(status: int) -> NoReturn:
    """End this process with ``status``, and its job with it: under Open MPI's
    recovery mode mpirun outlives its ranks' deaths and exits 0 whatever they
    return, so the launcher that started this process is told to end the job
    (SIGTERM: it ends every rank, a stopped one included, and exits 1); else
    the status ends it (mpirun stops a job one of whose processes failed)."""
    sys.stdout.flush()
    sys.stderr.flush()
    if status and _recovering():
        parent = os.getppid()
        try:
            name = Path(f"/proc/{parent}/comm").read_text().strip()
        except OSError:
            name = ""
        if name in LAUNCHERS:
            print(
                f"ending the job through its launcher ({name}, pid {parent}), whose exit "
                "status is 0 otherwise",
                file=sys.stderr,
                flush=True,
            )
            _await_read(sys.stderr.fileno())
            os.kill(parent, signal.SIGTERM)
    os._exit(status)


def _await_read(fd: int, limit_s: float = 2.0) -> None:
    """Wait, up to ``limit_s``, until the reader of the pipe ``fd`` writes to has
    taken all of it, and a moment more for it to pass it on: the launcher forwards
    its ranks' output, and one ended at once loses the lines it had not read yet."""
    import fcntl  # POSIX only, as the launchers this ends are
    import termios

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            unread = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0]
        except OSError:
            unread = 0
        if not unread:
            break
        time.sleep(0.01)
    time.sleep(0.2)


#: Environment variables an MPI launcher sets to the number of ranks it started.
SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
#: ... and to the number it started on this node.
LOCAL_SIZE_VARIABLES = ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS")


def launched_ranks(local: bool = False) -> int:
    """How many ranks the MPI launcher that started this process started (``local``:
    on this node), as its environment says (1 where none did, or it does not say),
    without MPI itself."""
    for name in LOCAL_SIZE_VARIABLES if local else SIZE_VARIABLES:
        try:
            return max(1, int(os.environ[name]))
        except (KeyError, ValueError):
            continue
    return 1


#: Environment variables an MPI launcher sets to this process's rank.
RANK_VARIABLES = ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK")


def launched_rank() -> int:
    """This process's rank as the MPI launcher that started it says (0 where none
    did, or it does not say), without MPI itself."""
    for name in RANK_VARIABLES:
        try:
            return max(0, int(os.environ[name]))
        except (KeyError, ValueError):
            continue
    return 0


#: How long a rank other than 0 that stops on a usage error waits for rank 0, which
#: finds the same in the same command line, to say it and end the job (`await_end`).
RANK_0_GRACE_S = 5.0


def await_end(status: int, limit_s: float = RANK_0_GRACE_S) -> None:
    """Wait up to ``limit_s`` for the job to be ended by the launcher, whose stop
    (SIGINT or SIGTERM) then ends this process with ``status``, silent: a usage
    error every rank finds is said by rank 0 alone, not once per rank (one rank
    that ended first had the launcher stop rank 0 before it said it); one rank 0
    did not find is said by this rank once the wait is over."""
    if threading.current_thread() is threading.main_thread():
        for signum in STOP_SIGNALS:
            signal.signal(signum, lambda signum, frame: os._exit(status))
    time.sleep(limit_s)


def world(lost_after: float = LOST_AFTER_S) -> World | None:
    """The MPI world, where an MPI launcher started this process as one of several
    ranks and mpi4py is installed; None otherwise.

    MPI_Init and the node's split wait for every rank, before any heartbeat: a
    rank stopped then held the others there for ever. An alarm, whose default
    action ends the process (and mpirun then the job), bounds them by
    ``lost_after`` seconds. While they wait, a stop signal ends the process at once
    (nothing is measured yet): Python's handlers run only once the wait returns,
    so a rank whose rank 0 was stopped as it started took the launcher's SIGTERM
    only at the alarm."""
    if not any(name in os.environ for name in LAUNCHER_VARIABLES):
        return None
    held = threading.current_thread() is threading.main_thread()
    # One ignored (SIGHUP under nohup) stays ignored.
    handlers = {
        signum: signal.signal(signum, signal.SIG_DFL)
        for signum in STOP_SIGNALS
        if held and signal.getsignal(signum) != signal.SIG_IGN
    }
    if math.isfinite(lost_after):
        signal.alarm(math.ceil(lost_after) + 1)
    try:
        from mpi4py import MPI

        comm = MPI.COMM_WORLD
        if comm.Get_size() < 2:
            return None
        local = comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank()
    except ImportError:
        return None
    finally:
        signal.alarm(0)
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    return World(comm, comm.Get_rank(), comm.Get_size(), local, MPI.Get_processor_name())


def rank_devices(devices: Sequence[DeviceInfo], local_rank: int) -> list[DeviceInfo]:
    """Of each backend's devices, the one at the node-local rank, round robin."""
    by_backend: dict[str, list[DeviceInfo]] = {}
    for device in devices:
        by_backend.setdefault(device.backend, []).append(device)
    return [found[local_rank % len(found)] for found in by_backend.values()]
