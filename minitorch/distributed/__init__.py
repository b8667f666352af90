"""``minitorch.distributed``: PyTorch's ``torch.distributed`` on MPI.

One program runs as ``n`` processes (*ranks*), started by ``mpiexec -n 4 python
train.py`` or ``python -m minitorch.distributed.run -n 4 train.py``. Each calls
``init_process_group("mpi")`` and then the same collectives in the same order::

    import minitorch as torch
    import minitorch.distributed as dist

    dist.init_process_group("mpi")
    x = torch.tensor([float(dist.get_rank())])
    dist.all_reduce(x)                 # every rank: 0 + 1 + ... + (n-1)

Where each piece lives:

* ``initialization.py``: ``init_process_group``, ``new_group``, ranks and sizes;
* ``process_group.py``: a group and its MPI communicators; ``signature.py``: how ranks
  check they agree before data moves;
* ``work.py``: ``Work``, the handle of a call in flight, and the polling wait with
  timeouts; ``faults.py``: what happens when a rank fails;
* ``buffers.py``: a tensor's memory as an MPI buffer (no copy when contiguous);
* ``collectives.py`` (``barrier``, ``all_reduce``, ``broadcast``, ``reduce``),
  ``gathers.py`` (``all_gather``, ``gather``, ``scatter``, ``reduce_scatter``,
  ``all_to_all``), ``point_to_point.py`` (``send``, ``recv``, ``isend``, ``irecv``),
  ``object_collectives.py`` (Python objects, pickled);
* ``run.py``: the launcher.
"""

from minitorch.distributed.collectives import all_reduce, barrier, broadcast, reduce
from minitorch.distributed.errors import DistBackendError, DistError
from minitorch.distributed.gathers import (
    all_gather,
    all_gather_into_tensor,
    all_to_all,
    gather,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
)
from minitorch.distributed.initialization import (
    GroupMember,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_initialized,
    is_mpi_available,
    new_group,
)
from minitorch.distributed.object_collectives import all_gather_object, broadcast_object_list, gather_object
from minitorch.distributed.point_to_point import P2POp, batch_isend_irecv, irecv, isend, recv, send
from minitorch.distributed.process_group import ProcessGroup
from minitorch.distributed.reduce_op import ReduceOp
from minitorch.distributed.work import Work

__all__ = [
    "DistBackendError", "DistError", "GroupMember", "P2POp", "ProcessGroup", "ReduceOp", "Work",
    "batch_isend_irecv",
    "all_gather", "all_gather_into_tensor", "all_gather_object", "all_to_all", "broadcast_object_list",
    "gather", "gather_object", "reduce_scatter", "reduce_scatter_tensor", "scatter",
    "all_reduce", "barrier", "broadcast", "default_pg_timeout", "destroy_process_group",
    "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank",
    "get_world_size", "group", "init_process_group", "irecv", "is_available", "is_initialized",
    "is_mpi_available", "isend", "new_group", "recv", "reduce", "send",
]  # fmt: skip
