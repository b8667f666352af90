"""``DistributedDataParallel``: one model per rank, trained as one.

Data parallelism in four lines of a training loop that did not change::

    dist.init_process_group("mpi")                   # every rank (mpiexec -n 4 python train.py)
    model = DistributedDataParallel(Net())           # the same weights on every rank
    loss_fn(model(x_of_this_rank), y_of_this_rank).backward()   # .grad: the ranks' mean
    optimizer.step()                                 # the same step on every rank

Why the ranks stay identical: they start from the same parameters (rank 0's, broadcast
at construction), and every step each rank applies the *same* gradient, the mean of
the ranks' gradients. For a loss that is a mean over a batch, the mean of ``n`` ranks'
gradients on ``b`` samples each is exactly the gradient of one process on the
concatenated ``n * b`` samples: DDP trains one model on ``n`` times the batch, with each
rank computing a ``1/n`` share.

The averaging happens inside ``backward()``, in buckets that travel while the rest of the
backward still computes (``reducer.py`` says how). ``no_sync()`` skips it, to accumulate
gradients locally over several micro-batches and average once. Every event of a step
(forward, backward, each bucket's all-reduce) is recorded in ``ddp.timeline``
(``timeline.py`` documents the format); ``overlap=False`` (minitorch's switch, not
PyTorch's) starts the all-reduces only after the backward, to compare.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import is_grad_enabled, no_grad
from minitorch.nn.module import Module
from minitorch.nn.parallel.reducer import Reducer
from minitorch.nn.parallel.timeline import Timeline, clock

__all__ = ["DistributedDataParallel"]


def _tensors_in(value: Any) -> list:
    """The tensors of a forward's output: a tensor, or tuples, lists and dicts of them."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors_in(item)]
    return []


class DistributedDataParallel(Module):
    """Wrap ``module`` so that ``backward()`` leaves every rank with the mean gradient.

    ``bucket_cap_mb``: the size of a gradient bucket (PyTorch's default, 25 MB).
    ``find_unused_parameters``: allow parameters the forward does not use.
    ``broadcast_buffers``: send rank 0's buffers (BatchNorm's running statistics) to
    every rank before each forward. ``init_sync``: broadcast rank 0's parameters and
    buffers at construction. ``process_group``: the ranks to average over (default: all).
    ``device_ids``, ``output_device``, ``dim``, ``check_reduction``,
    ``gradient_as_bucket_view`` and ``static_graph`` are accepted for PyTorch's signature
    (one CPU device per rank here, buckets copied rather than viewed).
    ``overlap`` (keyword, minitorch only): ``False`` starts every all-reduce after backward.
    """

    def __init__(self, module: Module, device_ids: list | None = None, output_device: Any = None,
                 dim: int = 0, broadcast_buffers: bool = True, init_sync: bool = True,
                 process_group: Any = None, bucket_cap_mb: float | None = None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False, *,
                 overlap: bool = True) -> None:  # fmt: skip
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel expects an nn.Module, but got {type(module).__name__}")
        from minitorch import distributed as dist

        if not dist.is_initialized():
            raise RuntimeError("Default process group has not been initialized, please make sure to call "
                               "init_process_group.")  # fmt: skip
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any "
                               "parameter that requires a gradient.")  # fmt: skip
        cap_mb = 25 if bucket_cap_mb is None else bucket_cap_mb
        if not isinstance(cap_mb, (int, float)) or isinstance(cap_mb, bool) or cap_mb <= 0:
            raise ValueError(f"bucket_cap_mb must be a positive number, but got {bucket_cap_mb!r}")
        self.module = module
        self.device_ids, self.output_device, self.dim = device_ids, output_device, dim
        self.process_group = process_group
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters, self.static_graph = find_unused_parameters, static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.bucket_bytes_cap = int(cap_mb * 1024 * 1024)
        self.require_backward_grad_sync = True
        self.timeline = Timeline(dist.get_rank())
        self._dist = dist
        if init_sync:
            self._sync_module_states()
        self.reducer = Reducer(params, self.bucket_bytes_cap, process_group, self.timeline,
                               overlap=overlap, find_unused_parameters=find_unused_parameters)  # fmt: skip

    @property
    def overlap(self) -> bool:
        """Whether buckets are all-reduced during the backward (``True``) or after it."""
        return self.reducer.overlap

    @overlap.setter
    def overlap(self, value: bool) -> None:
        self.reducer.overlap = bool(value)

    def _source_rank(self) -> int:
        """The world rank of the group's first member (rank 0 for the default group)."""
        if self.process_group is None:
            return 0
        return self._dist.get_global_rank(self.process_group, 0)

    def _sync_module_states(self) -> None:
        """Every rank takes the source rank's parameters and buffers."""
        with no_grad():
            for t in [*self.module.parameters(), *self.module.buffers()]:
                self._dist.broadcast(t, src=self._source_rank(), group=self.process_group)

    def _sync_buffers(self) -> None:
        with no_grad():
            for buffer in self.module.buffers():
                self._dist.broadcast(buffer, src=self._source_rank(), group=self.process_group)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """``module(*inputs, **kwargs)``, readying the reducer for the backward to come."""
        start = clock()
        if self.broadcast_buffers and self.module.training:
            self._sync_buffers()
        output = self.module(*inputs, **kwargs)
        synchronise = is_grad_enabled() and self.require_backward_grad_sync
        tensors = _tensors_in(output)
        if synchronise:
            self.reducer.prepare_for_backward(tensors)
            for t in tensors:
                if t.requires_grad and t.grad_fn is not None:
                    t.register_hook(self.reducer.note_backward_start)
        self.timeline.record("forward", "forward", start, clock())
        return output

    @contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside: forwards whose backward only accumulates ``.grad`` on this rank. The
        first synchronised backward after it averages the accumulated sums::

            with ddp.no_sync():
                for x, y in micro_batches[:-1]:
                    loss_fn(ddp(x), y).backward()     # local .grad += ...
            loss_fn(ddp(x_last), y_last).backward()   # .grad: mean over ranks of the sums
        """
        before = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = before
