"""A caching allocator: where every tensor's memory comes from, and where it goes back.

Asking the system for memory is slow (``cudaMalloc`` on a GPU can take a millisecond and
waits for the device; ``mmap`` on the CPU is a system call that later faults in every
page), and a training step allocates and frees the same few sizes thousands of times:
every op writes a new output tensor. So PyTorch's CUDA caching allocator, whose design
this file follows, asks the system for big *segments* once and carves tensors out of
them. A freed tensor's bytes are not given back: they stay *reserved*, cached in a pool,
and the next tensor of that size gets them at once. Two numbers tell the story::

    allocated  bytes inside blocks that tensors hold now
    reserved   bytes of all segments (allocated + cached free blocks)

Only ``empty_cache()`` gives whole free segments back to the system.

The design, in the order a request meets it:

* **Round up.** A request of ``n`` bytes becomes a block of ``n`` rounded up to 512 B
  (``GRANULE``). Sizes then fall into few classes, so a freed block fits the next
  request of a similar size exactly, and every block starts 512 B-aligned.
* **Two pools.** Blocks up to 1 MiB (``SMALL_BLOCK``) come from the *small pool*, whose
  segments are 2 MiB (``SMALL_SEGMENT``); bigger ones from the *large pool*, whose
  segments are the request rounded up to 2 MiB (``LARGE_ROUND``). Many small, short-lived
  tensors (a bias, a loss, a scalar) then never fragment the segments big activations
  need.
* **Best fit.** Each pool keeps its free blocks sorted by size; a request takes the
  smallest free block that fits (a binary search), so big free blocks stay big.
* **Split.** A free block larger than the request is split: the request gets the front,
  the rest stays free in the pool (in the small pool when at least 512 B are left; in
  the large pool when more than 1 MiB is left, so a large block is not chopped into
  pieces nobody can use).
* **Merge.** A free block is merged with its free neighbours in the same segment, so
  the pieces of a split grow back into one big block. (PyTorch merges at once; here a
  freed block first waits in a cache of its exact size, and is merged when a request
  that cache cannot serve arrives: see ``CachingAllocator``.)
* **New segment.** Only when no free block fits is a new segment reserved. If that would
  pass the memory limit (``set_memory_limit``, ``set_per_process_memory_fraction``), or
  the system refuses, the allocator first gives back its cached free segments and tries
  once more (``num_alloc_retries``); then it raises ``OutOfMemoryError``.

When is a block freed? The moment the last array over it dies. A storage is a NumPy
array over the segment's memory; every tensor and view holding that storage, and every
NumPy view of it (``t.numpy()``), keeps it alive, and CPython frees an object as soon as
its reference count drops to zero. A weak reference to the storage (``StorageRef``) calls
the allocator back at that moment. Reference cycles are the one exception: their objects
wait for the garbage collector (``gc.collect()``).

Every CPU backend's ``empty`` is ``cpu_allocator.allocate``; the CUDA emulator's device
memory comes from ``emulator_allocator`` (on a real GPU CuPy's own pool does the same
job). ``minitorch.memory`` and ``minitorch.cuda`` show the statistics with PyTorch's names.

Three files: this one (the allocator and its path through a request),
``memory_blocks.py`` (segments, blocks, pools) and ``allocator_statistics.py`` (the
counters, the summary table and the snapshot, worked out when asked).
"""

from __future__ import annotations

import atexit
import bisect
import mmap
import os
import threading
from typing import Any

import numpy as np

from minitorch.backends import allocator_statistics
from minitorch.backends.memory_blocks import (  # noqa: F401 (OutOfMemoryError, system_memory: imported from here)
    Block,
    OutOfMemoryError,
    Pool,
    Segment,
    StorageRef,
    reserve_memory,
    system_memory,
)

GRANULE = 512  # every block is a multiple of this many bytes
SMALL_BLOCK = 1 << 20  # blocks up to 1 MiB come from the small pool
SMALL_SEGMENT = 2 << 20  # the small pool's segments: 2 MiB each
LARGE_ROUND = 2 << 20  # the large pool's segments: the request rounded up to 2 MiB
LEDGER_LENGTH = 10_000  # tally the ledger when it grows this long


class CachingAllocator:
    """Storage for one device: ``allocate(count, dtype)`` returns a flat NumPy array of
    ``count`` elements (values undefined) inside a cached segment.

    Python is slow at bookkeeping, and every op allocates, so the fast path does as
    little as it can:

    * a *size cache*, ``cached``, maps a block size to freed blocks of exactly that
      size, not yet merged (as fast ``malloc``s do). A training step asks for the sizes
      it freed the step before, so most requests are one dictionary lookup and one
      ``pop``. Only a request the cache cannot serve goes to the pools: it first merges
      the cached blocks into them (``file_cached``), and so do ``stats``, ``snapshot``
      and ``empty_cache``, which therefore show the merged picture PyTorch's allocator
      keeps;
    * a *ledger*: each allocation appends its block's size, each free the size negated.
      ``tally`` adds the ledger up into the counters (current, peak, count) when
      someone reads them, or when it grows long.

    Threads: a storage may die in any thread (a CUDA stream's worker), or in the middle
    of an allocation when the garbage collector runs. The fast path and ``release``
    only ``pop`` and ``append`` lists, each one indivisible step under CPython's global
    interpreter lock; everything else (the pools, segments, counters) happens under
    ``lock``.
    """

    def __init__(self, device: str) -> None:
        self.device = device
        self.small, self.large = Pool("small_pool"), Pool("large_pool")
        self.pools = {"small_pool": self.small, "large_pool": self.large}
        self.segments: list[Segment] = []
        self.cached: dict[int, list[Block]] = {}  # size -> freed blocks of that size
        self.on_free = self.release  # (one bound method for every storage's weak reference)
        self.ledger: list[int] = []  # +size per allocation, -size per free, not yet tallied
        self.limit: int | None = None  # most bytes it may reserve (None: no limit)
        self.allocated_bytes = self.peak_allocated_bytes = self.total_allocations = 0  # tallied
        self.peak_reserved_bytes = self.peak_segments = 0
        self.alloc_retries = self.ooms = 0
        self.lock = threading.Lock()
        if hasattr(os, "register_at_fork"):  # a lock another thread held at a fork stays
            os.register_at_fork(after_in_child=self.unlock_after_fork)  # held in the child
        # At exit Python tears its objects down in no useful order; the storages that die
        # then need no bookkeeping.
        self.closed = False
        atexit.register(setattr, self, "closed", True)

    def unlock_after_fork(self) -> None:
        self.lock = threading.Lock()

    # ----- the fast path: every op allocates its output here --------------------------

    def allocate(self, count: int, dtype: np.dtype) -> np.ndarray:
        """A new storage of ``count`` elements of ``dtype`` (a NumPy dtype)."""
        nbytes = count * dtype.itemsize
        size = -(-nbytes // GRANULE) * GRANULE  # round up to the granule
        if size == 0:
            return np.empty(0, dtype)  # nothing to hold: no block (PyTorch's nullptr)
        try:
            block = self.cached[size].pop()  # a freed block of this very size
        except (KeyError, IndexError):
            block = self.allocate_from_pools(size, nbytes)
        block.requested = nbytes
        ledger = self.ledger
        ledger.append(block.size)  # (may be more than ``size``: a block not worth splitting)
        if len(ledger) > LEDGER_LENGTH:
            with self.lock:
                self.tally()
        storage = np.ndarray(count, dtype, block.memory, block.offset)
        block.ref = ref = StorageRef(storage, self.on_free)
        ref.block = block
        return storage

    def release(self, ref: StorageRef) -> None:
        """Called by Python the moment a storage dies: its block goes to the size cache."""
        if not self.closed:
            block = ref.block
            block.ref = None
            self.ledger.append(-block.size)
            block.size_cache.append(block)  # (``self.cached[block.size]``, looked up once)

    def tally(self) -> None:
        """Add the ledger up into the counters: current bytes, their peak, the count
        (lock held)."""
        ledger = self.ledger
        entries = np.array(ledger[: len(ledger)], dtype=np.int64)
        del ledger[: len(entries)]  # (entries appended meanwhile stay for next time)
        if len(entries):
            running = self.allocated_bytes + np.cumsum(entries)
            self.peak_allocated_bytes = max(self.peak_allocated_bytes, int(running.max()))
            self.allocated_bytes = int(running[-1])
            self.total_allocations += int((entries > 0).sum())

    def allocate_from_pools(self, size: int, nbytes: int) -> Block:
        try:
            with self.lock:
                return self.malloc(size, nbytes)
        except OutOfMemoryError as error:  # the summary takes the lock: add it after
            raise OutOfMemoryError(f"{error}\n\n{self.summary()}") from None

    # ----- the pools: best fit, split, merge ------------------------------------------

    def malloc(self, size: int, nbytes: int) -> Block:
        """A free block of ``size`` bytes: best fit from its pool (after merging the size
        cache into the pools), split if much bigger, or carved from a new segment."""
        pool = self.small if size <= SMALL_BLOCK else self.large
        block = self.best_fit(pool, size)
        if block is None:
            self.file_cached()
            block = self.best_fit(pool, size) or self.new_segment(pool, size, nbytes)
        rest = block.size - size
        if (rest >= GRANULE) if pool is self.small else (rest > SMALL_BLOCK):
            self.split(block, size)
        block.size_cache = self.cached.setdefault(block.size, [])  # where ``release`` puts it
        return block

    def best_fit(self, pool: Pool, size: int) -> Block | None:
        """Take the smallest free block of at least ``size`` bytes out of ``pool``."""
        index = bisect.bisect_left(pool.free, (size,))
        if index == len(pool.free):
            return None
        block = pool.free.pop(index)[2]
        block.in_pool = False
        return block

    def split(self, block: Block, size: int) -> None:
        """Keep the first ``size`` bytes in ``block``; the rest becomes a free block."""
        rest = Block(block.address + size, block.size - size, block.segment, block, block.next)
        if block.next is not None:
            block.next.prev = rest
        block.next = rest
        block.size = size
        block.segment.pool.add_free(rest)

    def file_cached(self) -> None:
        """Merge every block of the size cache into its pool (lock held)."""
        for blocks in self.cached.values():
            while blocks:
                self.merge_into_pool(blocks.pop())

    def merge_into_pool(self, block: Block) -> None:
        """Return a free block to its pool, merged with the free blocks beside it."""
        pool = block.segment.pool
        after = block.next
        if after is not None and after.in_pool:  # absorb the free block behind it
            pool.remove_free(after)
            block.size += after.size
            block.next = after.next
            if after.next is not None:
                after.next.prev = block
        before = block.prev
        if before is not None and before.in_pool:  # be absorbed by the one before
            pool.remove_free(before)
            before.size += block.size
            before.next = block.next
            if block.next is not None:
                block.next.prev = before
            block = before
        pool.add_free(block)

    # ----- the slow path: reserving and releasing segments ----------------------------

    def new_segment(self, pool: Pool, size: int, nbytes: int) -> Block:
        """Reserve a segment for a block of ``size`` bytes and return its one free block.
        Past the limit, or refused by the system, it first releases the cached free
        segments and tries once more; then raises ``OutOfMemoryError``."""
        segment_size = SMALL_SEGMENT if pool is self.small else -(-size // LARGE_ROUND) * LARGE_ROUND
        memory = self.reserve(segment_size)
        if memory is None:
            self.alloc_retries += 1
            self.release_cached()
            memory = self.reserve(segment_size)
            if memory is None:
                self.ooms += 1
                raise OutOfMemoryError(allocator_statistics.out_of_memory_message(self, nbytes, segment_size))
        segment = Segment(memory, segment_size, pool)
        self.segments.append(segment)
        pool.reserved_bytes += segment_size
        pool.segments += 1
        pool.total_reserved_bytes += segment_size
        pool.total_segments += 1
        pool.peak_reserved_bytes = max(pool.peak_reserved_bytes, pool.reserved_bytes)
        pool.peak_segments = max(pool.peak_segments, pool.segments)
        self.peak_reserved_bytes = max(self.peak_reserved_bytes, self.reserved_bytes())
        self.peak_segments = max(self.peak_segments, len(self.segments))
        return segment.first

    def reserve(self, segment_size: int) -> mmap.mmap | None:
        """New memory from the system, or None past the limit or when refused."""
        if self.limit is not None and self.reserved_bytes() + segment_size > self.limit:
            return None
        try:
            return reserve_memory(segment_size)
        except (OSError, OverflowError, MemoryError):  # ENOMEM, or beyond the address space
            return None

    def release_cached(self) -> None:
        """Give every segment that is one whole free block back to the system (lock held)."""
        self.file_cached()
        for segment in list(self.segments):
            block = segment.first
            if block.in_pool and block.next is None:
                pool = segment.pool
                pool.remove_free(block)
                pool.reserved_bytes -= segment.size
                pool.segments -= 1
                self.segments.remove(segment)

    def empty_cache(self) -> None:
        """``torch.cuda.empty_cache()``: release the cached free segments."""
        with self.lock:
            self.tally()
            self.release_cached()

    # ----- what the allocator holds ---------------------------------------------------

    def reserved_bytes(self) -> int:
        return self.small.reserved_bytes + self.large.reserved_bytes

    def reset_peak_stats(self) -> None:
        """Peaks restart from the current values (``reset_peak_memory_stats``)."""
        with self.lock:
            self.tally()
            self.peak_allocated_bytes = self.allocated_bytes
            self.peak_reserved_bytes = self.reserved_bytes()
            self.peak_segments = len(self.segments)
            for pool in self.pools.values():
                pool.peak_reserved_bytes = pool.reserved_bytes
                pool.peak_segments = pool.segments

    def stats(self) -> dict[str, int]:
        """PyTorch's ``memory_stats()`` (``allocator_statistics.memory_stats``)."""
        return allocator_statistics.memory_stats(self)

    def set_limit(self, nbytes: int | None) -> None:
        """Reserve at most ``nbytes`` (None: no limit but the machine's)."""
        self.limit = None if nbytes is None else int(nbytes)

    def summary(self) -> str:
        """The statistics as a table (``memory_summary()``)."""
        return allocator_statistics.summary(self)

    def snapshot(self) -> list[dict[str, Any]]:
        """Every segment and its blocks, in address order (``memory.snapshot()``)."""
        return allocator_statistics.snapshot(self)


# One allocator per device: the CPU backends' storage, and the CUDA emulator's "device"
# memory (host memory really; on a GPU, CuPy's pool plays this part).
cpu_allocator = CachingAllocator("cpu")
emulator_allocator = CachingAllocator("cuda")
