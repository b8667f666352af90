"""When one rank fails, every other rank hears about it and stops, and the job ends.

Three ways a rank can let the others down, and what each survivor sees:

* **It raises** (a bug, a bad batch): the exception is printed on that rank as usual;
  then ``sys.excepthook`` (installed by ``init_process_group``) sends a one-line *fault
  notice* to every other rank on a communicator of its own, and ends the MPI job.
  A survivor waiting in any collective checks for notices while it waits, so it raises
  ``DistBackendError("rank 1 failed: ZeroDivisionError: ...")`` at once.
* **It is killed** (out of memory, ``kill -9``): it cannot say anything. ``mpiexec``
  sees a process die and ends every process of the job (MPICH's ``mpiexec`` and Open
  MPI's ``mpirun`` both do by default), so nothing waits forever; the launcher prints
  which rank died.
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
import sys
import time
import traceback

from minitorch.distributed.errors import PeerFailure

FAULT_TAG = 77
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
    deadline = time.monotonic() + 1.0
    while _state["notices"] and time.monotonic() < deadline:
        if MPI.Request.Testall(_state["notices"]):
            break
        time.sleep(0.001)
    time.sleep(0.2)  # let the survivors raise and print before the job is torn down
    MPI.COMM_WORLD.Abort(code)


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
    unfinished = _state["unfinished"]() if _state["unfinished"] else None
    if unfinished:
        abort_job(f"exiting with unfinished communication ({unfinished})")
