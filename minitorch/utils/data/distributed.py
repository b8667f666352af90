"""``DistributedSampler``: each of ``num_replicas`` processes reads its own share of a dataset.

In data-parallel training every rank runs the same loop over its own ``DataLoader``; the
sampler makes the ranks' batches disjoint and, together, one pass over the data:

    sampler = DistributedSampler(dataset)           # rank and world size from the process group
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)                    # a new order each epoch, the same on every rank
        for xb, yb in loader:
            ...

How one epoch's indices are made, on every rank alike:

1. **One order for everyone.** With ``shuffle``, a generator seeded with ``seed + epoch``
   draws ``randperm(len(dataset))``; every rank seeds it the same way, so every rank holds
   the same permutation without sending a byte. (minitorch's generator is PyTorch's, so
   the order is PyTorch's too.) Without ``shuffle`` the order is ``0, 1, ..., n-1``.
2. **A length that divides.** Each rank must take the same number of steps, or the ranks'
   collectives would stop matching. So the order is made a multiple of ``num_replicas``:
   padded by repeating its own beginning (every sample is seen, a few twice), or, with
   ``drop_last``, cut at the last multiple (a few samples are not seen this epoch).
3. **Dealt like cards.** Rank ``r`` takes positions ``r, r + R, r + 2R, ...`` of that
   order (``R = num_replicas``).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator, Sized

from minitorch import random_factories
from minitorch.random import Generator

__all__ = ["DistributedSampler"]


def _from_process_group(what: str) -> int:
    """The world size or rank of the default process group (``minitorch.distributed``)."""
    from minitorch import distributed as dist  # optional: it needs mpi4py only once used

    if not dist.is_available():
        raise RuntimeError("Requires distributed package to be available")
    return dist.get_world_size() if what == "world_size" else dist.get_rank()


class DistributedSampler:
    """The indices of ``dataset`` that rank ``rank`` of ``num_replicas`` reads (the module
    docstring says how they are chosen). ``num_replicas`` and ``rank`` default to the
    process group's; given both, no process group is needed."""

    def __init__(self, dataset: Sized, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:  # fmt: skip
        if num_replicas is None:
            num_replicas = _from_process_group("world_size")
        if rank is None:
            rank = _from_process_group("rank")
        num_replicas, rank = operator.index(num_replicas), operator.index(rank)  # TypeError if not ints
        if num_replicas <= 0:
            raise ValueError(f"num_replicas should be a positive integer, but got {num_replicas}")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        self.epoch = 0
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)  # the last whole multiple
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def _epoch_order(self) -> list[int]:
        """Step 1: the order every rank agrees on."""
        n = len(self.dataset)
        if not self.shuffle:
            return list(range(n))
        generator = Generator().manual_seed(self.seed + self.epoch)
        return random_factories.randperm(n, generator=generator).tolist()

    def __iter__(self) -> Iterator[int]:
        order = self._epoch_order()
        if self.drop_last:
            order = order[: self.total_size]
        elif order:  # pad with the order's own beginning, repeated as often as needed
            missing = self.total_size - len(order)
            order += (order * math.ceil(missing / len(order)))[:missing]
        return iter(order[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use the order of ``epoch`` from now on (call it at the start of every epoch;
        without it every epoch repeats epoch 0's order)."""
        self.epoch = epoch
