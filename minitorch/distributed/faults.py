"""When one rank fails, every other rank hears about it and stops, and the job ends.

Three ways a rank can let the others down, and what each survivor sees:

* **It raises** (a bug, a bad batch): the exception is printed on that rank as usual;
  then ``sys.excepthook`` (installed by ``init_process_group``) sends a one-line *fault
  notice* to every other rank on a communicator of its own, waits (a few seconds at
  most) until each has answered that it heard, and ends the MPI job.
  A survivor waiting in any collective checks for notices while it waits, so it raises
  ``DistBackendError("rank 1 failed: ZeroDivisionError: ...")`` at once.
* **It is killed** (out of memory, ``kill -9``): it cannot say anything. ``mpiexec``
  sees a process die and ends every process of the job (MPICH's ``mpiexec`` and Open
  MPI's ``mpirun`` both do by default), so nothing waits forever; the launcher prints
  which rank died.
* **Whichever way the job ends**, MPI's shared-memory files in ``/dev/shm`` go with it:
  their names are removed as soon as every rank has mapped them
  (``remove_mpi_segments``), so the system frees them when the last rank exits.
* **It never calls** the collective the others are in (a rank skipped it, or is stuck):
  the others give up when the timeout runs out (``init_process_group(timeout=...)``,
  30 minutes by default as in PyTorch), with a message naming the ranks that never
  called.

A collective that timed out is still posted inside MPI and can never be cancelled, so
the process cannot finish MPI cleanly: at exit (``atexit``) a process that left one
behind ends the whole job with ``MPI_Abort`` instead of waiting forever in
``MPI_Finalize``. Either way no rank is left behind.
"""

from __future__ import annotations

import atexit
import os
import sys
import time
import traceback

from minitorch.distributed.errors import PeerFailure

FAULT_TAG, HEARD_TAG = 77, 78
GRACE_SECONDS = 3.0  # how long a failing rank waits for the others to hear its notice
_state: dict = {"control": None, "notices": [], "hook": None, "unfinished": None}


def install(control, unfinished) -> None:
    """Watch for failures on the communicator ``control`` (a private copy of the world),
    and end the job at exit if ``unfinished()`` names work MPI still holds."""
    _state["control"], _state["unfinished"] = control, unfinished
    if _state["hook"] is None:
        _state["hook"] = sys.excepthook
        sys.excepthook = _excepthook
        atexit.register(_at_exit)


def uninstall() -> None:
    """Stop watching (``destroy_process_group``): failures are plain Python errors again."""
    _state["control"] = None


def raise_if_a_rank_failed() -> None:
    """Raise the first fault notice another rank sent, if one has arrived."""
    from mpi4py import MPI  # optional: only distributed programs need mpi4py

    control = _state["control"]
    if control is None:
        return
    status = MPI.Status()
    if control.Iprobe(source=MPI.ANY_SOURCE, tag=FAULT_TAG, status=status):
        message = control.recv(source=status.Get_source(), tag=FAULT_TAG)
        control.Isend(bytearray(1), dest=status.Get_source(), tag=HEARD_TAG)  # "heard you"
        raise PeerFailure(f"rank {status.Get_source()} failed: {message}")


def notify_others(message: str) -> None:
    """Send ``message`` to every other rank as a fault notice (without waiting for them)."""
    control = _state["control"]
    if control is None:
        return
    for peer in range(control.Get_size()):
        if peer != control.Get_rank():
            _state["notices"].append(control.isend(message, dest=peer, tag=FAULT_TAG))


def abort_job(reason: str, code: int = 1) -> None:
    """End every process of the job (``MPI_Abort``), after giving the fault notices a
    moment to reach their ranks, which print their own error first."""
    from mpi4py import MPI  # optional: only distributed programs need mpi4py

    print(f"minitorch.distributed: rank {MPI.COMM_WORLD.Get_rank()}: {reason}; ending the MPI job",
          file=sys.stderr, flush=True)  # fmt: skip
    sys.stdout.flush()
    control, waiting = _state["control"], len(_state["notices"])
    deadline = time.monotonic() + GRACE_SECONDS
    while control is not None and waiting and time.monotonic() < deadline:
        MPI.Request.Testall(_state["notices"])  # keep the notices moving
        if control.Iprobe(source=MPI.ANY_SOURCE, tag=HEARD_TAG):
            control.Recv(bytearray(1), source=MPI.ANY_SOURCE, tag=HEARD_TAG)
            waiting -= 1
        time.sleep(0.001)
    time.sleep(0.3)  # the ranks that heard print their error before the job is torn down
    _state["aborting"] = True
    remove_mpi_segments()
    MPI.COMM_WORLD.Abort(code)


MPI_SEGMENT_NAMES = ("mpich_shm_", "vader_segment", "sm_segment")  # MPICH's and Open MPI's


def remove_mpi_segments() -> None:
    """Unlink the names of the shared-memory files MPI mapped into this process
    (``/dev/shm`` on Linux), as soon as every rank has mapped them.

    A job that ends normally removes them in ``MPI_Finalize``, but a rank that is killed,
    or ``MPI_Abort``, skips that and would leave megabytes in ``/dev/shm`` behind each
    time. ``init_process_group`` calls this once every rank has started MPI (so every
    local rank has mapped them): the memory stays mapped for as long as the job runs,
    and the system frees it when the last rank exits, however it exits."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = {line.split(maxsplit=5)[-1].strip() for line in maps if "/dev/shm/" in line}
    except OSError:  # not Linux: nothing we can find
        return
    for path in paths:
        if os.path.basename(path).startswith(MPI_SEGMENT_NAMES):
            try:
                os.unlink(path)
            except OSError:  # another rank of the job removed it first
                pass


def _excepthook(kind, value, tb) -> None:
    """Print the uncaught exception as Python does, tell the other ranks, end the job."""
    (_state["hook"] or sys.__excepthook__)(kind, value, tb)
    if _state["control"] is None and not (_state["unfinished"] and _state["unfinished"]()):
        return
    fail_job(value)


def fail_job(error: BaseException) -> None:
    """This rank cannot go on because of ``error`` (already printed): tell the others
    (unless the error is another rank's failure) and end the job."""
    if not isinstance(error, PeerFailure):
        notify_others(traceback.format_exception_only(type(error), error)[-1].strip())
    abort_job("an uncaught exception ended this rank")


def _at_exit() -> None:
    """A normal exit with MPI still holding a collective of ours ends the job instead of
    hanging in ``MPI_Finalize``."""
    if _state.get("aborting"):
        return
    unfinished = _state["unfinished"]() if _state["unfinished"] else None
    if unfinished:
        abort_job(f"exiting with unfinished communication ({unfinished})")
