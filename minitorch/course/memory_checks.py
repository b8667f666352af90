"""Checks for the memory and asynchrony exercises (chapter 10): the caching allocator's
block sizes, the bytes a few lines allocate, a ``worker_init_fn`` that splits a stream of
data between DataLoader workers, and a producer and a consumer on two CUDA streams.

Each check measures the real thing and compares: ``memory_allocated()`` before and after
an allocation, the samples a ``DataLoader`` with worker processes really yields, and the
order in which the emulator's streams really run (a stream can be held shut with a
*gate*, an item at the head of its queue that waits, so "the consumer waited for the
producer" is an ordering the check controls instead of a race it hopes to lose).
"""

from __future__ import annotations

import gc
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

import minitorch
from minitorch import memory
from minitorch.backends.cuda.work_queue import collect_launches
from minitorch.course.report import CheckFailed, call_student, checker, fail
from minitorch.utils.data import DataLoader, IterableDataset

# ----- exercise 1: block_bytes -------------------------------------------------------------

BLOCK_CASES = [
    ((1000,), minitorch.float32),   # 4,000 B
    ((128,), minitorch.float32),    # exactly 512 B: no rounding
    ((129,), minitorch.float32),    # 516 B
    ((3,), minitorch.bool),         # 3 B
    ((), minitorch.float64),        # a 0-d tensor: one element
    ((7,), minitorch.float16),      # 14 B
    ((100, 30), minitorch.float64),
    ((1000, 300), minitorch.int8),
    ((1024, 512), minitorch.float32),  # 2 MiB: the large pool, still a multiple of 512
    ((0,), minitorch.float32),      # no elements
    ((4, 0, 3), minitorch.int64),   # no elements either
]  # fmt: skip


@contextmanager
def garbage_collector_paused() -> Iterator[None]:
    """Collect the garbage left so far, then keep Python's cycle collector from running
    until the block ends. The collector runs at moments no program chooses; if it ran
    in the middle of a measured line and freed an older tensor caught in a reference
    cycle, that line would seem to allocate less than it does (even nothing at all)."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def measured_block_bytes(shape: tuple, dtype: minitorch.dtype) -> int:
    """The bytes ``minitorch.empty(shape, dtype=dtype)`` takes from the CPU allocator."""
    with garbage_collector_paused():
        before = memory.memory_allocated()
        tensor = minitorch.empty(shape, dtype=dtype)
        taken = memory.memory_allocated() - before
        del tensor
    return taken


@checker
def check_block_bytes(block_bytes: Callable) -> str:
    """``block_bytes(shape, dtype)`` must equal the bytes the allocator really takes."""
    __tracebackhide__ = True
    for shape, dtype in BLOCK_CASES:
        case = f"minitorch.empty({shape}, dtype={dtype})"
        got = call_student("block_bytes", block_bytes, shape, dtype, case=case)
        expected = measured_block_bytes(shape, dtype)
        if got != expected:
            numel = int(np.prod(shape, dtype=np.int64))
            if got == numel * dtype.itemsize:
                hint = "that is the bytes asked for; the allocator rounds up to a multiple of 512"
            elif got == numel:
                hint = "that is the number of elements: multiply by dtype.itemsize (bytes per element)"
            elif expected == 0:
                hint = "a tensor with no elements holds no block at all: 0 bytes"
            else:
                hint = "round numel * dtype.itemsize up to the next multiple of 512 (-(-n // 512) * 512)"
            raise fail("block_bytes(shape, dtype)", case, expected, got, hint)
    return f"block_bytes agrees with the allocator on {len(BLOCK_CASES)} tensors"


# ----- exercise 2: predict the bytes of each line ---------------------------------------------

LINES = [
    ("x = minitorch.randn(100, 30)", "100 * 30 float32 elements, rounded up to a multiple of 512"),
    ("xt = x.t()", "a transpose is a view: new strides over x's storage"),
    ("row = x[0]", "indexing with an integer is a view at an offset"),
    ("v = x.view(30, 100)", "view of a contiguous tensor: a new shape over the same storage"),
    ("c = xt.contiguous()", "xt is not contiguous, so contiguous() copies every element"),
    ("r = xt.reshape(-1)", "reshape returns a view when it can; a transposed tensor cannot be "
                           "flattened by strides alone, so it copies"),
    ("d = x.double()", "float64 takes 8 bytes per element"),
    ("i = x.argmax(1)", "one index per row, as int64 (8 bytes each)"),
    ("m = x @ xt", "the result is 100 x 100 float32"),
    ("s = (x + x).sum()", "x + x is a temporary freed at the end of the line; only the 0-d sum "
                          "stays, and the smallest block is 512 B"),
]  # fmt: skip


def measured_line_bytes() -> dict[str, int]:
    """Run ``LINES`` in order in a fresh namespace; the bytes each line leaves allocated."""
    namespace = {"minitorch": minitorch}
    taken = {}
    with garbage_collector_paused():
        for line, _ in LINES:
            before = memory.memory_allocated()
            exec(line, namespace)  # noqa: S102 (our own fixed lines)
            taken[line] = memory.memory_allocated() - before
    return taken


@checker
def check_predicted_bytes(predicted_bytes: Callable) -> str:
    """``predicted_bytes()`` must give, for each line, the bytes it leaves allocated."""
    __tracebackhide__ = True
    predictions = call_student("predicted_bytes", predicted_bytes, case="the lines above")
    if not isinstance(predictions, dict):
        raise CheckFailed("predicted_bytes() must return a dict {line: bytes}, one entry per line")
    missing = [line for line, _ in LINES if line not in predictions]
    if missing:
        raise CheckFailed(f"no prediction for: {missing[0]!r} (keep the lines as keys, exactly as given)")
    if any(value is None for value in predictions.values()):
        line = next(line for line, _ in LINES if predictions[line] is None)
        raise CheckFailed(f"replace None by your prediction for: {line!r}")
    measured = measured_line_bytes()
    for line, why in LINES:
        if predictions[line] != measured[line]:
            raise fail("the bytes allocated by this line", line, measured[line], predictions[line], why)
    return f"all {len(LINES)} predictions match the allocator"


# ----- exercise 3: a worker_init_fn that splits an IterableDataset -------------------------------


class RangeStream(IterableDataset):
    """The numbers ``start, start + 1, ..., end - 1``, as a stream. Every worker gets a copy
    of it; without a ``worker_init_fn`` every copy yields the whole range."""

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.start, self.end))


SPLIT_CASES = [(0, 10, 2), (3, 17, 3), (5, 7, 3)]  # (start, end, num_workers)


def _numbers_loaded(loader: DataLoader) -> list[int]:
    """Every number a loader of a ``RangeStream`` yields, as Python ints, in order."""
    return [int(n) for n in loader]


@checker
def check_split_range(split_range: Callable) -> str:
    """Loading ``RangeStream(start, end)`` with workers and ``worker_init_fn=split_range``
    must yield each number exactly once."""
    __tracebackhide__ = True
    for start, end, workers in SPLIT_CASES:
        case = (f"DataLoader(RangeStream({start}, {end}), batch_size=None, num_workers={workers}, "
                f"worker_init_fn=split_range)")  # fmt: skip
        loader = DataLoader(RangeStream(start, end), batch_size=None, num_workers=workers,
                            worker_init_fn=split_range, multiprocessing_context="fork")  # fmt: skip
        got = call_student("split_range", _numbers_loaded, loader, case=case)
        expected = list(range(start, end))
        if sorted(got) != expected:
            counts = Counter(got)
            if any(count > 1 for count in counts.values()):
                repeated = min(n for n, count in counts.items() if count > 1)
                hint = (f"{repeated} came {counts[repeated]} times: each worker must narrow its own "
                        "copy, get_worker_info().dataset, to its share (set its start and end)")
            elif set(got) - set(expected):
                hint = "numbers outside [start, end) came out: stay within the dataset's own range"
            else:
                lost = min(set(expected) - set(got))
                hint = (f"{lost} never came: the shares must cover the whole range, including the "
                        "remainder when the length does not divide by the number of workers")
            raise fail("the numbers loaded (sorted)", case, expected, sorted(got), hint)
    return f"split_range gives every number exactly once in {len(SPLIT_CASES)} loaders"


# ----- exercise 4: a producer and a consumer on two streams --------------------------------------

HOLD_SECONDS = 2.0  # how long the check holds the producer shut (it watches for half of it)


def _kernels(works: list, stream: minitorch.cuda.Stream) -> list[str]:
    """The kernels (not events, waits or copies) queued on ``stream`` among ``works``."""
    name = stream._queue.name
    return [w.label for w in works if w.stream == name and w.label not in ("event", "wait for event")
            and not w.label.startswith("copy")]  # fmt: skip


@checker
def check_produce_and_consume(produce_and_consume: Callable) -> str:
    """``produce_and_consume(x, producer, consumer)`` must compute ``y = x * 2`` on the
    producer and ``z = y + 1`` on the consumer, which waits for the producer on the device
    (``wait_stream``), never on the host, and return ``z``."""
    __tracebackhide__ = True
    if not minitorch.cuda.is_emulated():
        raise CheckFailed("this check holds a stream shut on the CUDA emulator: run the setup cell "
                          "(it chooses the emulator), or minitorch.cuda.use_emulator()")  # fmt: skip
    values = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    x = minitorch.tensor(values).to("cuda")
    cases = [("x: a 3 x 4 tensor on cuda", x), ("x: its transpose, a non-contiguous view", x.t())]
    # A kernel's first launch compiles it, and compiling runs on the host: done while the
    # producer is held, it would look like the host waiting. So the kernels run once first.
    for _, operand in cases:
        operand * 2 + 1
    minitorch.cuda.synchronize()
    for case, operand in cases:
        producer, consumer = minitorch.cuda.Stream(), minitorch.cuda.Stream()
        gate = threading.Event()
        producer._queue.submit("gate", gate.wait)  # the producer runs nothing until the gate opens
        opener = threading.Timer(HOLD_SECONDS, gate.set)
        opener.start()
        consumer_ran_early = False
        try:
            with collect_launches() as works:
                z = call_student("produce_and_consume", produce_and_consume, operand, producer, consumer,
                                 case=case)  # fmt: skip
            returned_while_held = not gate.is_set()
            if returned_while_held:
                deadline = time.perf_counter() + HOLD_SECONDS / 2
                while not consumer.query() and time.perf_counter() < deadline:
                    time.sleep(0.01)
                consumer_ran_early = consumer.query() and not gate.is_set()
        finally:
            gate.set()
            opener.cancel()
        if not returned_while_held:
            raise CheckFailed(
                f"produce_and_consume waited on the host (it returned only when the producer "
                f"was let go) on: {case}\n  hint: producer.synchronize() or reading a value "
                "blocks Python; consumer.wait_stream(producer) makes only the consumer stream wait"
            )  # fmt: skip
        if not _kernels(works, producer):
            raise CheckFailed(f"no kernel ran on the producer stream on: {case}\n  hint: "
                              "compute y inside `with minitorch.cuda.stream(producer):`")  # fmt: skip
        if not _kernels(works, consumer):
            raise CheckFailed(f"no kernel ran on the consumer stream on: {case}\n  hint: "
                              "compute z inside `with minitorch.cuda.stream(consumer):`")  # fmt: skip
        if consumer_ran_early:
            raise CheckFailed(
                f"the consumer stream ran while the producer had not run yet, on: {case}\n"
                "  it read y before y was written (a race). hint: call "
                "consumer.wait_stream(producer) after launching y and before launching z"
            )  # fmt: skip
        if not isinstance(z, minitorch.Tensor):
            raise fail("the value returned", case, "a Tensor z", z, "return z")
        expected = (values.T if "transpose" in case else values) * 2 + 1
        minitorch.cuda.synchronize()
        if not np.allclose(z.cpu().numpy(), expected, rtol=1e-6):
            hint = "y = x * 2 on the producer, then z = y + 1 on the consumer after wait_stream"
            raise fail("z", case, expected, z.cpu().numpy(), hint)
    return "the consumer waits for the producer on the device, and the host never waits"
