"""The reducer: averages the gradients of every rank while the backward pass still runs.

After ``loss.backward()`` on each rank, every parameter's ``.grad`` must become the mean
of the ranks' gradients. One all-reduce per parameter would pay MPI's fixed cost per
message hundreds of times; one all-reduce of everything at the end would leave the
network idle during the whole backward and the processors idle during the whole
all-reduce. The reducer does what PyTorch's does, in between:

1. **Buckets.** At construction the parameters are taken in *reverse* order of
   registration (backward computes the last layer's gradients first) and packed into
   buckets of about ``bucket_cap_mb`` megabytes (a parameter larger than that is a
   bucket alone; dtypes are not mixed). The first bucket holds at most 1 MiB, as in
   PyTorch, so that the first all-reduce starts early in the backward.
2. **Ready.** A hook on each parameter (``register_post_accumulate_grad_hook``) runs
   when autograd has written that parameter's ``.grad``. It counts the bucket down.
3. **Launch in order.** When a bucket's last gradient arrives, its gradients are copied
   into one flat tensor and ``all_reduce(flat, async_op=True)`` starts: the bytes move
   while autograd computes the gradients of the layers below. Buckets are launched in
   bucket order on every rank, since MPI matches the collectives of a group by order;
   a bucket that fills early waits for the ones before it. Each hook also asks MPI
   whether the buckets in flight are done: MPI moves non-blocking operations along
   only inside its own calls, so the asking is part of what makes them progress.
4. **Finish.** When autograd has run its last node, a callback (``queue_callback``)
   launches what is left, waits for every bucket, divides by the world size and copies
   the means back into each ``.grad``. Only then does ``backward()`` return, so the
   optimizer step that follows sees averaged gradients.

With ``overlap=False`` step 3 waits for step 4: every bucket is launched after the
backward, which is slower and shows, on the timeline, what the overlap hides.

``find_unused_parameters``: a parameter the forward did not use gets no gradient, so its
bucket would never fill. When asked, the reducer walks the graph from the forward's
outputs after each forward, marks the parameters it cannot reach ready at once (they
send zeros), and all-reduces a "used" flag per parameter at the end, so a parameter
no rank used keeps its ``.grad`` as it was.
"""

from __future__ import annotations

from collections.abc import Iterable

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.autograd.engine import queue_callback
from minitorch.autograd.grad_mode import no_grad
from minitorch.dtypes import int32
from minitorch.nn.parallel.timeline import Timeline, clock
from minitorch.ops.shape import cat

__all__ = ["Bucket", "Reducer", "assign_buckets"]


class Bucket:
    """Parameters whose gradients travel in one all-reduce."""

    def __init__(self, index: int, params: list) -> None:
        self.index, self.params = index, params
        self.sizes = [p.numel() for p in params]
        self.pending = len(params)  # parameters whose gradient has not arrived this backward
        self.flat: Tensor | None = None
        self.work = None
        self.started = self.ended = None

    def reset(self) -> None:
        self.pending = len(self.params)
        self.flat, self.work, self.started, self.ended = None, None, None, None


FIRST_BUCKET_BYTES = 1024 * 1024


def assign_buckets(params: list, cap_bytes: int) -> list[Bucket]:
    """Pack ``params`` (already in reverse order of registration) into buckets of at most
    ``cap_bytes`` each (the first: at most ``FIRST_BUCKET_BYTES``), a new one when the
    dtype changes or the next parameter would overflow the current bucket."""
    groups: list[list] = []
    size = 0
    for p in params:
        nbytes = p.numel() * p.element_size()
        cap = min(cap_bytes, FIRST_BUCKET_BYTES) if len(groups) == 1 else cap_bytes
        if not groups or groups[-1][0].dtype is not p.dtype or size + nbytes > cap:
            groups.append([])
            size = 0
        groups[-1].append(p)
        size += nbytes
    return [Bucket(i, group) for i, group in enumerate(groups)]


def _parameters_reached(outputs: Iterable, params: list) -> set[int]:
    """The ids of the ``params`` that the graphs of ``outputs`` lead back to."""
    stack = [t.grad_fn for t in outputs if isinstance(t, Tensor) and t.grad_fn is not None]
    stack += [t for t in outputs if isinstance(t, Tensor) and t.requires_grad and t.grad_fn is None]
    wanted, reached, seen = {id(p) for p in params}, set(), set()
    while stack:
        node = stack.pop()
        if isinstance(node, Tensor):  # an output that is itself a parameter
            reached.add(id(node))
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)  # an AccumulateGrad node: a leaf
        if variable is not None and id(variable) in wanted:
            reached.add(id(variable))
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return reached


class Reducer:
    """The buckets of one ``DistributedDataParallel`` and the hooks that fill them."""

    def __init__(self, params: list, bucket_cap_bytes: int, group: object, timeline: Timeline,
                 overlap: bool = True, find_unused_parameters: bool = False) -> None:  # fmt: skip
        from minitorch import distributed as dist

        self.dist, self.group, self.timeline = dist, group, timeline
        self.world_size = dist.get_world_size(group)
        self.params, self.overlap = params, overlap
        self.find_unused_parameters = find_unused_parameters
        self.buckets = assign_buckets(list(reversed(params)), bucket_cap_bytes)
        self.bucket_of = {id(p): b for b in self.buckets for p in b.params}
        self.armed = False  # True from a synchronising forward until its backward is done
        self.ready: set[int] = set()
        self.used: set[int] | None = None
        self.next_to_launch = 0
        self.finish_queued = False
        self.backward_started: float | None = None
        for p in params:
            p.register_post_accumulate_grad_hook(self._gradient_ready)

    # ----- each iteration ----------------------------------------------------------------

    def prepare_for_backward(self, outputs: list) -> None:
        """Called by the forward that is to be synchronised: reset the buckets, and (with
        ``find_unused_parameters``) mark what the forward did not use as ready."""
        if self.armed and self.finish_queued:  # a backward started, and stopped before its end
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one.")
        for bucket in self.buckets:
            bucket.reset()
        self.ready, self.next_to_launch, self.finish_queued = set(), 0, False
        self.armed, self.backward_started = True, None
        if self.find_unused_parameters:
            self.used = _parameters_reached(outputs, self.params)
            for p in self.params:
                if id(p) not in self.used:
                    self._mark_ready(p)

    def note_backward_start(self, grad: object) -> None:
        """A hook on the forward's output: its gradient arriving is the backward's start."""
        if self.armed and self.backward_started is None:
            self.backward_started = clock()

    def _gradient_ready(self, p: Tensor) -> None:
        """The post-accumulate hook of every parameter (step 2 of the module docstring)."""
        if not self.armed:
            return  # under no_sync, or a backward that did not come from this DDP's forward
        if not self.finish_queued:
            queue_callback(self._finish)
            self.finish_queued = True
        self._mark_ready(p)
        if self.overlap:
            self._launch_ready_buckets()
            self._note_finished()

    def _mark_ready(self, p: Tensor) -> None:
        if id(p) in self.ready:
            raise RuntimeError(
                "Expected to mark a variable ready only once. A parameter's gradient arrived twice in "
                "one backward (a second backward through the same forward, or an unused parameter "
                "that was used after all)")  # fmt: skip
        self.ready.add(id(p))
        self.bucket_of[id(p)].pending -= 1

    # ----- moving the bytes --------------------------------------------------------------

    def _launch_ready_buckets(self) -> None:
        """Launch, in bucket order, every bucket whose gradients have all arrived."""
        while self.next_to_launch < len(self.buckets) and self.buckets[self.next_to_launch].pending == 0:
            self._launch(self.buckets[self.next_to_launch])
            self.next_to_launch += 1

    def _launch(self, bucket: Bucket) -> None:
        with no_grad():
            pieces = [p.grad.reshape(-1) if p.grad is not None else creation.zeros(n, dtype=p.dtype)
                      for p, n in zip(bucket.params, bucket.sizes)]  # fmt: skip
            bucket.flat = cat(pieces)
        bucket.started = clock()
        bucket.work = self.dist.all_reduce(bucket.flat, group=self.group, async_op=True)

    def _note_finished(self) -> None:
        """Ask MPI about the buckets in flight (which also moves them along), oldest first."""
        for bucket in self.buckets[: self.next_to_launch]:
            if bucket.ended is None:
                if not bucket.work.is_completed():
                    return
                bucket.ended = clock()

    def _finish(self) -> None:
        """The final callback of the backward (step 4 of the module docstring)."""
        backward_ended = clock()
        self.armed = False
        missing = [b.index for b in self.buckets if b.pending]
        if missing:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. "
                "This error indicates that your module has parameters that were not used in producing "
                f"loss (buckets {missing} never filled). You can enable unused parameter detection by "
                "passing the keyword argument `find_unused_parameters=True` to "
                "`torch.nn.parallel.DistributedDataParallel`")  # fmt: skip
        self._launch_ready_buckets()
        used_anywhere = self._used_anywhere()
        for bucket in self.buckets:
            bucket.work.wait()
            if bucket.ended is None:
                bucket.ended = clock()
            self._write_back(bucket, used_anywhere)
        start = self.backward_started if self.backward_started is not None else backward_ended
        self.timeline.record("backward", "backward", start, backward_ended)
        for bucket in self.buckets:
            self.timeline.record("allreduce", f"bucket {bucket.index}", bucket.started, bucket.ended)

    def _used_anywhere(self) -> set[int] | None:
        """With ``find_unused_parameters``: the parameters some rank used this iteration."""
        if self.used is None:
            return None
        flags = creation.tensor([1 if id(p) in self.used else 0 for p in self.params], dtype=int32)
        self.dist.all_reduce(flags, group=self.group)
        return {id(p) for p, flag in zip(self.params, flags.tolist()) if flag}

    def _write_back(self, bucket: Bucket, used_anywhere: set[int] | None) -> None:
        """``.grad`` of each parameter of the bucket becomes its slice of the mean."""
        with no_grad():
            mean = bucket.flat / self.world_size
            for p, piece in zip(bucket.params, mean.split(bucket.sizes)):
                if used_anywhere is not None and id(p) not in used_anywhere:
                    continue
                if p.grad is None:
                    p.grad = piece.reshape(p.shape).clone()
                else:
                    p.grad.copy_(piece.reshape(p.grad.shape))
