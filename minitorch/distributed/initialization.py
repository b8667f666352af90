"""Starting and ending the distributed world: ``init_process_group``, the default group,
``new_group``, ``get_rank``/``get_world_size``, ``destroy_process_group``.

Run a program on 4 processes with ``mpiexec -n 4 python train.py`` (or
``python -m minitorch.distributed.run -n 4 train.py``). ``mpiexec`` starts the 4 copies
and tells each its *rank* (0..3) and the *world size* (4); ``init_process_group("mpi")``
reads both from MPI, so no address, port or store is needed, on one machine or on many
(a hostfile or a scheduler such as Slurm tells ``mpiexec`` where to start them). A
``RANK``/``WORLD_SIZE`` in the environment (or ``rank=``/``world_size=``), as other
launchers set them, must agree with MPI's numbering. Run without ``mpiexec``, a program
is a world of one process, where every collective is a copy at most.
"""

from __future__ import annotations

import os
import time
from datetime import timedelta
from typing import Any

from minitorch.distributed import faults, signature, work
from minitorch.distributed.errors import DistBackendError
from minitorch.distributed.process_group import ProcessGroup

default_pg_timeout = timedelta(minutes=30)  # PyTorch's default


class GroupMember:
    """``GroupMember.WORLD`` (the default group, once initialized) and
    ``GroupMember.NON_GROUP_MEMBER`` (what ``new_group`` gives a rank it leaves out)."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = object()


class group:  # noqa: N801 (PyTorch's name: torch.distributed.group.WORLD)
    """``group.WORLD``: the default process group."""

    WORLD: ProcessGroup | None = None


_group_namespace = group  # (a parameter named ``group`` hides the class inside functions)
_world: dict[str, Any] = {"group": None, "groups": [], "control": None}


def is_available() -> bool:
    """Whether the distributed package can run here: ``mpi4py`` (and an MPI) installed."""
    try:
        import mpi4py  # noqa: F401 (optional: only distributed programs need mpi4py)
    except ImportError:
        return False
    return True


def is_mpi_available() -> bool:
    return is_available()


def is_initialized() -> bool:
    """Whether ``init_process_group`` has run (and ``destroy_process_group`` has not)."""
    return _world["group"] is not None


def _check_timeout(timeout: Any) -> timedelta:
    if timeout is None:
        return default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"timeout must be a datetime.timedelta, got {type(timeout).__name__}")
    return timeout


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store: Any = None, group_name: str = "", pg_options: Any = None,
                       device_id: Any = None) -> None:  # fmt: skip
    """Join the distributed world: after it, every rank can call the collectives.

    ``backend`` is ``"mpi"`` (``None`` and ``"gloo"``, PyTorch's CPU backend, mean MPI too).
    ``timeout`` bounds how long any collective may wait for the other ranks before it
    raises ``DistBackendError`` instead of hanging."""
    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    if backend is not None and not isinstance(backend, str):
        raise TypeError(f"backend must be a str, got {type(backend).__name__}")
    if backend is not None and backend.lower() not in ("mpi", "gloo"):
        raise RuntimeError(f"Distributed package doesn't have {backend.upper()} built in "
                           "(minitorch runs on MPI: init_process_group('mpi'))")  # fmt: skip
    timeout = _check_timeout(timeout)
    if not is_available():
        raise RuntimeError("minitorch.distributed needs mpi4py and an MPI: "
                           'pip install "minitorch[distributed]"')  # fmt: skip
    from mpi4py import MPI  # optional: only distributed programs need mpi4py

    world = MPI.COMM_WORLD
    for name, given in (("RANK", rank), ("WORLD_SIZE", world_size)):
        actual = world.Get_rank() if name == "RANK" else world.Get_size()
        claimed = given if given != -1 else int(os.environ.get(name, actual))
        if claimed != actual:
            raise ValueError(
                f"{name}={claimed} (from {'the argument' if given != -1 else 'the environment'}) but "
                f"MPI says {actual}: start the ranks with mpiexec -n N (or python -m "
                "minitorch.distributed.run -n N), which numbers them")  # fmt: skip
    *comms, control = copies_of(world, 4, timeout)
    ranks = list(range(world.Get_size()))
    world_group = ProcessGroup(tuple(comms), ranks, world.Get_rank(), timeout, "WORLD")
    _world.update(group=world_group, groups=[world_group], control=control)
    GroupMember.WORLD = group.WORLD = world_group
    faults.install(_world["control"], work.unfinished)
    faults.remove_mpi_segments()  # every rank has started MPI: nothing can leak from /dev/shm now


def copies_of(comm, count: int, timeout: timedelta) -> list:
    """``count`` private copies of ``comm`` (``MPI_Comm_idup``: every rank must make them,
    so a rank that never calls ``init_process_group`` is a timeout here, not a hang)."""
    from mpi4py import MPI  # optional: only distributed programs need mpi4py

    copies, requests = zip(*(comm.Idup() for _ in range(count)))
    deadline = time.monotonic() + timeout.total_seconds()
    while not MPI.Request.Testall(list(requests)):
        if time.monotonic() > deadline:
            faults.install(None, lambda: "init_process_group, timed out")  # end the job at exit
            raise DistBackendError(f"init_process_group on rank {comm.Get_rank()} timed out after {timeout}: "
                                   "not every rank of the world called it")  # fmt: skip
        time.sleep(1e-3)
    return list(copies)


def default_group() -> ProcessGroup:
    """The world group, or PyTorch's error when ``init_process_group`` has not run."""
    if _world["group"] is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")  # fmt: skip
    return _world["group"]


def resolve(pg: Any) -> ProcessGroup | None:
    """The group a call names (``None``: the world), or ``None`` for a rank outside it."""
    if pg is None:
        return default_group()
    default_group()
    if pg is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(pg, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup, got {type(pg).__name__}")
    return pg


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (the world by default); -1 outside the group."""
    pg = resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """How many ranks ``group`` has (the world by default); -1 outside the group."""
    pg = resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group: ProcessGroup | None = None) -> str:
    resolve(group)
    return "mpi"


def get_process_group_ranks(group: ProcessGroup) -> list[int]:
    """The world ranks of ``group``'s members, in group-rank order."""
    pg = resolve(group)
    return list(pg.ranks) if pg is not None else []


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    return resolve(group).group_rank(global_rank)


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    return resolve(group).ranks[group_rank]


def new_group(ranks: list[int] | None = None, timeout: timedelta | None = None, backend: str | None = None,
              pg_options: Any = None, use_local_synchronization: bool = False,
              group_desc: str | None = None, device_id: Any = None):  # fmt: skip
    """A group of some of the world's ranks. Every rank of the world must call it, with
    the same ``ranks`` (as in PyTorch); a rank left out gets ``GroupMember.NON_GROUP_MEMBER``."""
    world = default_group()
    members = sorted(range(world.size()) if ranks is None else [int(r) for r in ranks])
    if len(set(members)) != len(members) or any(not 0 <= r < world.size() for r in members):
        raise ValueError(f"new_group: ranks must be distinct world ranks in [0, {world.size()}), "
                         f"got {ranks}")  # fmt: skip
    timeout = _check_timeout(timeout) if timeout is not None else world.timeout
    row = signature.encode(world.sequence, "new_group", shape=members)
    world.sequence += 1

    def steps():
        from mpi4py import MPI  # optional: only distributed programs need mpi4py

        yield from world.agree(row)
        comm = world.data.Split(0 if world.global_rank in members else MPI.UNDEFINED, world.global_rank)
        if world.global_rank not in members:
            return GroupMember.NON_GROUP_MEMBER
        name = group_desc or f"group{members}"
        made = ProcessGroup((comm, comm.Dup(), comm.Dup()), members, world.global_rank, timeout, name)
        _world["groups"].append(made)
        return made

    return work.run("new_group", world, steps(), async_op=False)


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Leave the distributed world (or free one group): its communicators are released
    and ``init_process_group`` may run again."""
    pg = resolve(group)
    if group is not None and pg is not _world["group"]:
        if pg is not None and not pg.busy:
            pg.free()
        if pg in _world["groups"]:
            _world["groups"].remove(pg)
        return
    if work.unfinished() is None:
        for made in _world["groups"]:
            made.free()
        _world["control"].Free()
    faults.uninstall()
    _world.update(group=None, groups=[], control=None)
    GroupMember.WORLD = _group_namespace.WORLD = None
