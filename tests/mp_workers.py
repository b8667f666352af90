"""The child-process side of ``tests/test_multiprocessing.py``.

A process started with ``spawn`` imports the module its target function lives in; these
functions live here, away from the test module, so that a child imports minitorch only
(not pytest or torch): each spawned child then starts in about a second.
"""

from __future__ import annotations

import os
import time

import minitorch
from minitorch.utils.data import Dataset


def describe(t: minitorch.Tensor) -> tuple:
    """What a received tensor looks like: layout, dtype, flags and values."""
    return (tuple(t.shape), t.stride(), t.storage_offset(), t.dtype.name, t.is_shared(),
            t.requires_grad, t.is_leaf, type(t).__name__, t.tolist())  # fmt: skip


def receive_and_write(inbox, outbox) -> None:
    """Receive ``[(tensor, write), ...]``, describe each, add 1 in place to those marked
    ``write``, and answer with the descriptions, the number of distinct storages among
    the received tensors, and a tensor made here."""
    received = inbox.get(timeout=120)
    report = [describe(t) for t, _ in received]
    for t, write in received:
        if write:
            t.add_(1)
    storages = len({id(t._storage) for t, _ in received})
    outbox.put((report, storages, minitorch.arange(6.0).reshape(2, 3)))


def double(t: minitorch.Tensor) -> minitorch.Tensor:
    """A pool task: a new tensor made in the worker, and the input written in place."""
    t.mul_(-1)
    return t * -2


def send_and_exit(outbox) -> None:
    """Put a temporary tensor and exit at once: the message must outlive the sender."""
    outbox.put(minitorch.arange(5.0))


def receive_cuda(inbox, outbox) -> None:
    """Report the received CUDA tensor's values, or the error receiving it raised."""
    try:
        t = inbox.get(timeout=120)
        outbox.put(("ok", t.device.type, t.cpu().tolist()))
    except RuntimeError as error:
        outbox.put(("error", str(error)))


def batches_then_end(inbox, outbox, ending: str) -> None:
    """Receive batches of tensors until ``None``: add 1 to each in place, answer each batch
    with a tensor made here, and keep some shared tensors of its own that are never sent.
    Then end as told: ``"normal"``, ``"exception"``, or wait to be killed (``"sigkill"``)."""
    kept = [minitorch.ones(4).share_memory_() for _ in range(5)]
    while (batch := inbox.get(timeout=120)) is not None:
        for t in batch:
            t.add_(1)
        del t  # hold nothing of the sender's once the batch is done
        outbox.put(minitorch.full((2,), float(len(batch))))
    if ending == "exception":
        raise ValueError("a worker failed on purpose")
    if ending == "sigkill":
        outbox.put(("ready", os.getpid(), len(kept)))
        time.sleep(600)


def share_one(outbox) -> None:
    """Share a new tensor (registering its segment's name with the resource tracker) and
    send it back."""
    outbox.put(minitorch.arange(3.0).share_memory_())


def fill_seven(t: minitorch.Tensor) -> None:
    t.fill_(7.0)


class Filled(Dataset):
    """Sample ``i``: ``full((3,), i)``, made in the worker (the dataset itself holds no
    tensor, so the main process shares nothing when it spawns the worker)."""

    def __len__(self) -> int:
        return 20

    def __getitem__(self, i: int) -> minitorch.Tensor:
        return minitorch.full((3,), float(i))
