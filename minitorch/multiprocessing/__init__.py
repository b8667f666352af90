"""``minitorch.multiprocessing``: Python's ``multiprocessing``, sending tensors through
shared memory (as ``torch.multiprocessing``).

Every name of Python's ``multiprocessing`` is here (``Process``, ``Queue``, ``Pipe``,
``Pool``, ``get_context``, ``set_start_method``...), and works with the start methods
``spawn`` and ``fork``. The one difference: a tensor put on a queue, sent through a pipe,
passed to a pool or to a spawned process is not copied. Its storage moves to shared
memory (``Tensor.share_memory_()``, ``minitorch/shared_storage.py``) and only the
segment's name and the tensor's layout are sent (``reductions.py``)::

    import minitorch
    import minitorch.multiprocessing as mp

    def worker(queue):
        t = queue.get()
        t.add_(1)                  # in place, in the child's process...

    if __name__ == "__main__":
        mp.set_start_method("spawn")
        queue = mp.Queue()
        t = minitorch.zeros(3)
        p = mp.Process(target=worker, args=(queue,))
        p.start()
        queue.put(t)
        p.join()
        print(t)                   # ...seen by the parent: tensor([1., 1., 1.])

One trap, as in PyTorch: with ``fork``, the arguments of a ``Process`` are not sent at
all; the child starts with a copy-on-write copy of the parent's memory, so its writes to
a tensor argument stay its own unless the tensor was ``share_memory_()``'d before the
fork (or is sent through a queue, as above).

A producer (a DataLoader worker, say) can put each batch and forget it: a message in
flight keeps its segment alive until it is received, and the segment's name is removed
from ``/dev/shm`` once no process holds it (``shared_storage`` says how, even when a
process is killed; a message never received, say to a child killed first, keeps its
segment until the main process exits). Not sent: the autograd graph (a non-leaf that
requires grad is refused, as in PyTorch: ``detach()`` it first), and tensors in GPU
memory; a CUDA tensor travels between processes that both run device "cuda" on the
emulator, whose device memory is host memory.
"""

import multiprocessing
from multiprocessing import *  # noqa: F403 (every name of Python's multiprocessing)

from minitorch.multiprocessing.reductions import init_reductions

__all__ = list(multiprocessing.__all__)
__all__ += ["get_all_sharing_strategies", "get_sharing_strategy", "set_sharing_strategy"]


def get_all_sharing_strategies() -> set[str]:
    """PyTorch's names of how storages are shared; minitorch has one: named segments in
    shared memory (PyTorch's ``file_system``), removed by reference counting."""
    return {"file_system"}


def get_sharing_strategy() -> str:
    return "file_system"


def set_sharing_strategy(new_strategy: str) -> None:
    if new_strategy not in get_all_sharing_strategies():
        raise ValueError(
            f"sharing strategy {new_strategy!r} is not available in minitorch; the one "
            f"strategy is 'file_system'"
        )


init_reductions()
