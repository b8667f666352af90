"""``minitorch.nn.parallel`` (as ``torch.nn.parallel``): data parallelism across processes.

| file             | what                                                               |
| ---------------- | ------------------------------------------------------------------ |
| ``distributed.py`` | ``DistributedDataParallel``: the wrapper, its forward and ``no_sync`` |
| ``reducer.py``   | the gradient buckets and the hooks that all-reduce them during backward |
| ``timeline.py``  | each rank's forward, backward and all-reduce intervals, for charts   |
"""

from minitorch.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
