"""The child-process side of ``tests/test_multiprocessing.py``.

A process started with ``spawn`` imports the module its target function lives in; these
functions live here, away from the test module, so that a child imports minitorch only
(not pytest or torch): each spawned child then starts in about a second.
"""

from __future__ import annotations

import fcntl
import gc
import multiprocessing
import os
import signal
import sys
import termios
import threading
import time
from multiprocessing.synchronize import SemLock

import minitorch
from minitorch.utils.data import Dataset, IterableDataset


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


def a_pipe_holds(nbytes: int) -> bool:
    """Whether one of this process's pipes holds at least ``nbytes`` unread bytes."""
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                unread = fcntl.ioctl(int(fd), termios.FIONREAD, bytes(4))
                if int.from_bytes(unread, sys.byteorder) >= nbytes:
                    return True
        except OSError:  # closed meanwhile
            pass
    return False


class DiesAt(Dataset):
    """Four samples for two forked DataLoader workers (``batch_size=None``): worker 0
    fetches samples 0 and 2, worker 1 samples 1 and 3. Sample 1 waits for ``gate`` (the
    main process sets it once it holds sample 0, and then stops reading), and worker 1
    ends as ``how`` says:

    * ``"before"``: killed (SIGKILL) before sending sample 1;
    * ``"while"``: killed while sending sample 1, 64 MiB that fill the pipe many times
      over: a thread kills the process once the pipe holds 32 KiB of it (nobody reads);
    * ``"after"``: sample 1 is sent whole, and the worker is killed fetching sample 3;
    * ``"stopped"``: stopped (SIGSTOP) while sending sample 1, alive but silent;
    * ``"holding locks"``: killed before sending sample 1, holding every
      ``multiprocessing`` lock it can reach (those of its queues, events...): no wait of
      the main process may depend on one of them.
    """

    def __init__(self, how: str) -> None:
        self.how = how
        self.gate = multiprocessing.get_context("fork").Event()

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> bytes:
        if i == 1:
            self.gate.wait(timeout=120)
            if self.how == "holding locks":
                self._take_every_lock()
            if self.how in ("before", "holding locks"):
                os.kill(os.getpid(), signal.SIGKILL)
            if self.how in ("while", "stopped"):
                stop = signal.SIGKILL if self.how == "while" else signal.SIGSTOP
                threading.Thread(target=self._stop_when_the_pipe_fills, args=(stop,), daemon=True).start()
                return bytes(64 << 20)
        if i == 3 and self.how == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return bytes([i])

    def _take_every_lock(self) -> None:
        gate = self.gate._cond._lock  # (this dataset's own event)
        for thing in gc.get_objects():
            if isinstance(thing, SemLock) and thing is not gate:
                thing.acquire(False)

    @staticmethod
    def _stop_when_the_pipe_fills(stop: int) -> None:
        deadline = time.monotonic() + 120
        while not a_pipe_holds(32 << 10) and time.monotonic() < deadline:
            time.sleep(0.001)
        os.kill(os.getpid(), stop)


class Endless(IterableDataset):
    """A stream that never ends (``full((2,), k)`` for k = 0, 1, ...): a loop over it ends
    only when something stops it."""

    def __iter__(self):
        k = 0
        while True:
            time.sleep(0.01)  # paced, so that the workers leave the machine's cores to others
            yield minitorch.full((2,), float(k))
            k += 1
