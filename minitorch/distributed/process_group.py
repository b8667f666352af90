"""``ProcessGroup``: a set of ranks that communicate, and the MPI communicators behind it.

A group of ``n`` ranks numbers its members ``0 .. n-1`` (the *group rank*); ``ranks``
lists which world rank each one is. The world group (``group.WORLD``) holds every
process ``mpiexec`` started; ``new_group([0, 2])`` makes a smaller one.

Each group owns private copies (``MPI_Comm_dup``) of one MPI communicator, so that three
kinds of traffic never mix:

* ``data``: the collectives' tensors;
* ``signatures``: what each rank says it is about to do (``signature.py``), checked
  before the data moves;
* ``p2p``: ``send``/``recv``, each message a small header (dtype and shape) followed by
  the tensor's bytes.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from minitorch.distributed import signature
from minitorch.distributed.errors import DistBackendError
from minitorch.distributed.work import Pending


class ProcessGroup:
    """A group of ranks and its communicators (``torch.distributed.ProcessGroup``)."""

    def __init__(self, comms: tuple, ranks: list[int], global_rank: int, timeout: timedelta,
                 name: str) -> None:  # fmt: skip
        self.data, self.signatures, self.p2p = comms  # three private copies of one communicator
        self.ranks = list(ranks)
        self.global_rank = global_rank
        self.timeout = timeout
        self.group_name = name
        self.sequence = 0  # collectives called on this group so far
        self.busy = False  # a collective of this group is still in flight
        self.broken: DistBackendError | None = None  # why no collective can run any more

    def rank(self) -> int:
        """This process's rank within the group."""
        return self.data.Get_rank()

    def size(self) -> int:
        """How many ranks the group has."""
        return len(self.ranks)

    def group_rank(self, global_rank: int, role: str = "rank") -> int:
        """The group rank of world rank ``global_rank`` (ValueError if not a member)."""
        if not isinstance(global_rank, int) or isinstance(global_rank, bool):
            raise TypeError(f"{role} must be an int, got {type(global_rank).__name__}")
        if global_rank not in self.ranks:
            raise ValueError(f"Global rank {global_rank} is not part of group {self.group_name} "
                             f"(ranks {self.ranks})")  # fmt: skip
        return self.ranks.index(global_rank)

    def __repr__(self) -> str:
        return f"<ProcessGroup {self.group_name} ranks={self.ranks} backend=mpi>"

    def free(self) -> None:
        """Release the communicators (``destroy_process_group``)."""
        for comm in (self.signatures, self.p2p, self.data):
            comm.Free()

    def agree(self, row: np.ndarray, sends: list[int] | None = None, expects: list[int] | None = None):
        """Steps that exchange signature ``row`` with every other member and raise
        ``DistBackendError`` if any disagrees. ``sends``/``expects``: per-peer cell counts
        (``all_to_all``)."""
        if self.broken is not None:
            raise DistBackendError(f"this process group can no longer be used: {self.broken}")
        me, n = self.rank(), self.size()
        peers = [p for p in range(n) if p != me]
        received = {p: np.zeros(signature.LENGTH, dtype=np.int64) for p in peers}
        outgoing = {p: row if sends is None else signature.pairwise(row, sends[p], expects[p]) for p in peers}
        receives = [self.signatures.Irecv(received[p], source=p) for p in peers]
        requests = receives + [self.signatures.Isend(outgoing[p], dest=p) for p in peers]
        arrived = [False] * len(peers)

        def missing() -> str:
            for i, request in enumerate(receives):
                arrived[i] = arrived[i] or request.Test()
            late = [self.ranks[p] for p, got in zip(peers, arrived) if not got]
            return (f"rank{'s' if len(late) > 1 else ''} {late} never called it "
                    f"(called here: {signature.describe(row)})")  # fmt: skip

        yield Pending(requests, missing)
        reasons = [signature.disagreement(outgoing[p], received[p], self.ranks[me], self.ranks[p])
                   for p in peers]  # fmt: skip
        why = next((reason for reason in reasons if reason is not None), None)
        if sends is not None:
            # pairwise fields: a pair that disagrees is seen by those two ranks only, so
            # every rank tells every other whether it found a problem
            verdicts = {p: np.zeros(1, dtype=np.int64) for p in peers}
            mine = np.array([why is not None], dtype=np.int64)
            requests = [self.signatures.Irecv(verdicts[p], source=p) for p in peers]
            requests += [self.signatures.Isend(mine, dest=p) for p in peers]
            yield Pending(requests, "the other ranks' verdicts on the block sizes")
            unhappy = [self.ranks[p] for p in peers if verdicts[p][0]]
            if why is None and unhappy:
                why = (f"in {signature.describe(row)}, ranks {unhappy} found block sizes that do not "
                       "match (their errors say which)")  # fmt: skip
        if why is not None:
            self.broken = DistBackendError(f"ranks disagree about a collective: {why}")
            raise self.broken
