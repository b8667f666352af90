"""The launcher: ``python -m minitorch.distributed.run -n 4 train.py [args...]``.

As PyTorch's ``torchrun`` starts ``n`` copies of a training script, this one asks MPI's
own launcher to: it runs ::

    mpiexec -n 4 python -m minitorch.distributed.run --rank-entry train.py args...

and each copy, before running ``train.py`` as ``__main__``, sets the environment
variables ``torchrun`` sets (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``,
``LOCAL_WORLD_SIZE``), read from MPI. It adds the flags one MPI needs and another
refuses: Open MPI's ``mpirun`` will not run as root without ``--allow-run-as-root`` nor
start more ranks than cores without ``--oversubscribe``; MPICH's needs neither.

If a rank's script raises, the launcher prints the error on that rank, tells the other
ranks (``faults.py``) and ends the job, so no rank waits forever for it. The exit status
is ``mpiexec``'s: 0 when every rank succeeded.

``--mpiexec-args "..."`` passes more options to ``mpiexec`` (a hostfile, say), and
``-m module`` runs a module instead of a file, as ``python -m`` does.
"""

from __future__ import annotations

import argparse
import os
import runpy
import shlex
import shutil
import subprocess
import sys
import traceback
from pathlib import Path


def find_mpiexec() -> str | None:
    """``mpiexec`` on the ``PATH``, or beside this Python (where the ``mpich`` wheel puts it)."""
    beside = Path(sys.executable).parent / "mpiexec"
    return shutil.which("mpiexec") or (str(beside) if beside.exists() else None)


def is_open_mpi(mpiexec: str) -> bool:
    """Whether ``mpiexec`` is Open MPI's (it says so in ``--version``)."""
    try:
        version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    said = (version.stdout + version.stderr).lower()
    return "open mpi" in said or "openrte" in said or "open-mpi.org" in said


def mpiexec_command(n: int, mpiexec: str | None = None, extra: list[str] | tuple = ()) -> list[str]:
    """The ``mpiexec`` command line that starts ``n`` ranks here, as root or not, with more
    ranks than cores or not."""
    mpiexec = mpiexec or find_mpiexec()
    if mpiexec is None:
        raise RuntimeError('mpiexec not found: pip install "minitorch[distributed]" (the mpich wheel '
                           "brings one) or install an MPI")  # fmt: skip
    command = [mpiexec, "-n", str(n)]
    if is_open_mpi(mpiexec):
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--allow-run-as-root")
        if n > (os.cpu_count() or 1):
            command.append("--oversubscribe")
    return command + list(extra)


def set_rank_environment() -> None:
    """``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE`` from MPI, as torchrun sets them."""
    from mpi4py import MPI  # optional: only distributed programs need mpi4py

    world = MPI.COMM_WORLD
    local = world.Split_type(MPI.COMM_TYPE_SHARED)  # the ranks on this machine
    os.environ.update(RANK=str(world.Get_rank()), WORLD_SIZE=str(world.Get_size()),
                      LOCAL_RANK=str(local.Get_rank()), LOCAL_WORLD_SIZE=str(local.Get_size()))  # fmt: skip
    local.Free()


def run_rank(target: str, args: list[str], as_module: bool) -> None:
    """One rank: set its environment, run the script; on an error, end the whole job."""
    from minitorch.distributed import faults

    set_rank_environment()
    sys.argv = [target, *args]
    try:
        if as_module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, str(Path(target).resolve().parent))
            runpy.run_path(target, run_name="__main__")
    except SystemExit as done:
        if done.code not in (None, 0):
            faults.fail_job(done)
        raise
    except BaseException as error:
        traceback.print_exc()
        faults.fail_job(error)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m minitorch.distributed.run",
                                     description="Run a script on n ranks through mpiexec.")  # fmt: skip
    parser.add_argument("-n", "--nproc-per-node", "--nproc_per_node", dest="n", type=int, default=1,
                        help="how many ranks to start (default 1)")  # fmt: skip
    parser.add_argument("--mpiexec-args", default="", help="more options for mpiexec, as one string")
    parser.add_argument("-m", dest="module", action="store_true", help="run a module, as python -m")
    parser.add_argument("--rank-entry", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("target", help="the script (or, with -m, the module)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = parse(sys.argv[1:] if argv is None else argv)
    if options.rank_entry:
        run_rank(options.target, options.args, options.module)
        return 0
    if options.n < 1:
        raise SystemExit(f"-n must be at least 1, got {options.n}")
    entry = [sys.executable, "-m", "minitorch.distributed.run", "--rank-entry"]
    command = mpiexec_command(options.n, extra=shlex.split(options.mpiexec_args))
    command += entry + (["-m"] if options.module else []) + [options.target, *options.args]
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
