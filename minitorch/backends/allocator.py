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
"""

from __future__ import annotations

import atexit
import bisect
import mmap
import os
import threading
import weakref
from typing import Any

import numpy as np

GRANULE = 512  # every block is a multiple of this many bytes
SMALL_BLOCK = 1 << 20  # blocks up to 1 MiB come from the small pool
SMALL_SEGMENT = 2 << 20  # the small pool's segments: 2 MiB each
LARGE_ROUND = 2 << 20  # the large pool's segments: the request rounded up to 2 MiB
LEDGER_LENGTH = 10_000  # tally the ledger when it grows this long


class OutOfMemoryError(RuntimeError):
    """A storage could not be allocated: it would pass the memory limit, or the system
    has no memory left (PyTorch's ``torch.OutOfMemoryError``, a ``RuntimeError``). The
    message holds the allocator's summary; nothing is lost, so the program may free
    tensors and go on."""


def reserve_memory(nbytes: int) -> mmap.mmap:
    """Ask the operating system for ``nbytes`` of fresh memory (the CPU's ``cudaMalloc``):
    an anonymous private mapping, whose pages the kernel provides when first touched.
    Private, so a forked process (a DataLoader worker) gets its own copy on write."""
    if hasattr(mmap, "MAP_PRIVATE"):
        return mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return mmap.mmap(-1, nbytes)  # Windows: anonymous mappings are private already


def system_memory() -> int:
    """The machine's physical memory in bytes (the total a memory fraction is taken of)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows)
        return 16 << 30


class Segment:
    """One piece of memory reserved from the system, carved into blocks."""

    __slots__ = ("address", "size", "memory", "pool", "first")

    def __init__(self, memory: mmap.mmap, size: int, pool: Pool) -> None:
        self.memory = memory
        self.size = size
        self.pool = pool
        self.address = np.frombuffer(memory, np.uint8, 1).ctypes.data  # where it starts
        self.first = Block(self.address, size, self, None, None)  # one free block, at first


class Block:
    """A run of bytes inside a segment: allocated (``ref`` is set), waiting in the size
    cache, or free in its pool (``in_pool``).

    The blocks of a segment form a doubly linked list in address order (``prev`` and
    ``next``), which is how a free block finds the neighbours it merges with. A block's
    address never changes (merging keeps the front block), so where its bytes lie in the
    segment's memory (``memory``, ``offset``) is worked out once, here."""

    __slots__ = ("address", "size", "requested", "segment", "prev", "next", "ref", "in_pool",
                 "memory", "offset", "size_cache")  # fmt: skip

    def __init__(self, address: int, size: int, segment: Segment,
                 prev: Block | None, next: Block | None) -> None:  # fmt: skip
        self.address = address
        self.size = size
        self.requested = 0  # bytes asked for (<= size)
        self.segment = segment
        self.prev = prev
        self.next = next
        self.ref: StorageRef | None = None  # the storage's weak reference while allocated
        self.in_pool = False
        self.memory = segment.memory
        self.offset = address - segment.address
        self.size_cache: list[Block] = []  # where a freed block of this size waits (set by malloc)


class StorageRef(weakref.ref):
    """A weak reference to a storage that remembers its block: when the storage dies,
    Python calls the allocator back with this reference."""

    __slots__ = ("block",)


class Pool:
    """The free blocks of one size class and its counters (PyTorch's ``small_pool`` and
    ``large_pool``). ``free`` holds ``(size, address, block)`` sorted by size, then
    address: the best-fit search is one binary search."""

    __slots__ = ("name", "free", "reserved_bytes", "segments", "peak_reserved_bytes",
                 "peak_segments", "total_reserved_bytes", "total_segments")  # fmt: skip

    def __init__(self, name: str) -> None:
        self.name = name
        self.free: list[tuple[int, int, Block]] = []
        for counter in self.__slots__[2:]:
            setattr(self, counter, 0)

    def add_free(self, block: Block) -> None:
        block.in_pool = True
        bisect.insort(self.free, (block.size, block.address, block))

    def remove_free(self, block: Block) -> None:
        block.in_pool = False
        del self.free[bisect.bisect_left(self.free, (block.size, block.address))]


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
                raise OutOfMemoryError(self.out_of_memory_message(nbytes, segment_size))
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
        """PyTorch's ``memory_stats()`` keys, ``"<stat>.<pool>.<metric>"``:

        * ``allocated_bytes``, ``requested_bytes`` (before rounding up) and
          ``allocation`` (a count) for the pools ``all``, ``small_pool`` and
          ``large_pool``: ``current``; and ``allocated_bytes.all.peak``,
          ``allocation.all.allocated`` (added up over time) and ``allocation.all.freed``;
        * ``reserved_bytes`` and ``segment`` (a count), for each pool: ``current``,
          ``peak``, ``allocated`` and ``freed``;
        * ``inactive_split_bytes.<pool>.current``: free bytes in segments still in use,
          which ``empty_cache`` cannot release;

        then ``num_alloc_retries``, ``num_ooms`` and ``memory_limit`` (0: none). (The
        fast path keeps few counters: a pool's allocated bytes are found by walking its
        blocks here.)"""
        with self.lock:
            self.tally()
            self.file_cached()
            stats: dict[str, int] = {}
            for name, pool in self.pools.items():
                held = [block for segment in self.segments if segment.pool is pool
                        for block in blocks_of(segment) if block.ref is not None]  # fmt: skip
                stats[f"allocated_bytes.{name}.current"] = sum(block.size for block in held)
                stats[f"requested_bytes.{name}.current"] = sum(block.requested for block in held)
                stats[f"allocation.{name}.current"] = len(held)
                for stat, current, peak, total in (
                    ("reserved_bytes", pool.reserved_bytes, pool.peak_reserved_bytes,
                     pool.total_reserved_bytes),
                    ("segment", pool.segments, pool.peak_segments, pool.total_segments),
                ):  # fmt: skip
                    stats[f"{stat}.{name}.current"] = current
                    stats[f"{stat}.{name}.peak"] = peak
                    stats[f"{stat}.{name}.allocated"] = total
                    stats[f"{stat}.{name}.freed"] = total - current
            for stat in ("allocated_bytes", "requested_bytes", "allocation", "reserved_bytes", "segment"):
                stats[f"{stat}.all.current"] = (
                    stats[f"{stat}.small_pool.current"] + stats[f"{stat}.large_pool.current"]
                )
            stats["allocated_bytes.all.peak"] = self.peak_allocated_bytes
            stats["allocation.all.allocated"] = self.total_allocations
            stats["allocation.all.freed"] = self.total_allocations - stats["allocation.all.current"]
            for stat, total, peak in (
                ("reserved_bytes", self.small.total_reserved_bytes + self.large.total_reserved_bytes,
                 self.peak_reserved_bytes),
                ("segment", self.small.total_segments + self.large.total_segments, self.peak_segments),
            ):  # fmt: skip
                current = stats[f"{stat}.all.current"]
                stats.update({f"{stat}.all.peak": peak, f"{stat}.all.allocated": total,
                              f"{stat}.all.freed": total - current})  # fmt: skip
            for name, pool in [("all", None), *self.pools.items()]:
                stats[f"inactive_split_bytes.{name}.current"] = self.inactive_split_bytes(pool)
            stats["num_alloc_retries"] = self.alloc_retries
            stats["num_ooms"] = self.ooms
            stats["memory_limit"] = self.limit or 0
        return stats

    def inactive_split_bytes(self, pool: Pool | None) -> int:
        """Free bytes in segments that also hold allocated blocks (of one pool, or all)."""
        pools = self.pools.values() if pool is None else [pool]
        return sum(size for p in pools for size, _, block in p.free if not is_whole(block))

    def set_limit(self, nbytes: int | None) -> None:
        """Reserve at most ``nbytes`` (None: no limit but the machine's)."""
        self.limit = None if nbytes is None else int(nbytes)

    def summary(self) -> str:
        """The statistics as a table (``memory_summary()``)."""
        stats = self.stats()
        limit = format_bytes(self.limit) if self.limit is not None else "none"
        lines = [
            f"minitorch {self.device.upper()} caching allocator    limit: {limit}    "
            f"retries: {stats['num_alloc_retries']}    out-of-memory errors: {stats['num_ooms']}",
            "| metric                  |    current |       peak | total alloc | total freed |",
            "|-------------------------|------------|------------|-------------|-------------|",
        ]
        rows = [("allocated memory", "allocated_bytes", "all"),
                ("  from large pool", "allocated_bytes", "large_pool"),
                ("  from small pool", "allocated_bytes", "small_pool"),
                ("requested memory", "requested_bytes", "all"),
                ("reserved memory", "reserved_bytes", "all"),
                ("  from large pool", "reserved_bytes", "large_pool"),
                ("  from small pool", "reserved_bytes", "small_pool"),
                ("allocations", "allocation", "all"),
                ("segments", "segment", "all")]  # fmt: skip
        for title, stat, pool in rows:
            show = format_bytes if stat.endswith("bytes") else str
            values = [
                show(stats[key]) if key in stats else "-"
                for key in (f"{stat}.{pool}.{metric}" for metric in ("current", "peak", "allocated", "freed"))
            ]
            lines.append(
                f"| {title:<23} | {values[0]:>10} | {values[1]:>10} | {values[2]:>11} | {values[3]:>11} |"
            )
        cached = stats["reserved_bytes.all.current"] - stats["allocated_bytes.all.current"]
        unreleasable = stats["inactive_split_bytes.all.current"]
        lines.append(
            f"cached (reserved, not allocated): {format_bytes(cached)}, of which "
            f"{format_bytes(unreleasable)} sit in segments still in use (empty_cache cannot release them)"
        )
        return "\n".join(lines)

    def out_of_memory_message(self, nbytes: int, segment_size: int) -> str:
        """PyTorch's message: what was asked, why it failed, where the memory is."""
        self.tally()
        allocated, reserved = self.allocated_bytes, self.reserved_bytes()
        if self.limit is not None and reserved + segment_size > self.limit:
            why = (
                f"that would pass the limit of {format_bytes(self.limit)} "
                "(set_per_process_memory_fraction or set_memory_limit)"
            )
        else:
            why = "the system can't allocate memory for it"
        return (
            f"{self.device.upper()} out of memory. Tried to allocate {format_bytes(nbytes)} "
            f"(a new segment of {format_bytes(segment_size)}), and {why}. Of the "
            f"{format_bytes(reserved)} reserved by the allocator, tensors hold "
            f"{format_bytes(allocated)} and {format_bytes(reserved - allocated)} is cached "
            "but free in pieces too small for this request. Free tensors you no longer "
            "need (del x), or use smaller batches. Nothing was lost: your tensors are as "
            "they were."
        )

    def snapshot(self) -> list[dict[str, Any]]:
        """Every segment and its blocks, in address order (``memory.snapshot()``)."""
        with self.lock:
            self.tally()
            self.file_cached()
            segments = []
            for segment in self.segments:
                blocks = [{
                    "address": block.address,
                    "offset": block.address - segment.address,
                    "size": block.size,
                    "requested_size": block.requested if block.ref is not None else 0,
                    "state": "inactive" if block.ref is None else "active_allocated",
                    "allocated": block.ref is not None,
                    "pool": segment.pool.name,
                } for block in blocks_of(segment)]  # fmt: skip
                segments.append({
                    "device": self.device,
                    "address": segment.address,
                    "total_size": segment.size,
                    "allocated_size": sum(b["size"] for b in blocks if b["allocated"]),
                    "requested_size": sum(b["requested_size"] for b in blocks),
                    "segment_type": segment.pool.name.split("_")[0],
                    "pool": segment.pool.name,
                    "blocks": blocks,
                })  # fmt: skip
        return segments


def blocks_of(segment: Segment) -> list[Block]:
    """The blocks of a segment, in address order."""
    blocks = []
    block: Block | None = segment.first
    while block is not None:
        blocks.append(block)
        block = block.next
    return blocks


def is_whole(block: Block) -> bool:
    """True for a free block that is its whole segment (``empty_cache`` can release it)."""
    return block.prev is None and block.next is None


def format_bytes(nbytes: int) -> str:
    """``1536`` -> ``"1.50 KiB"`` (PyTorch's summaries use binary units)."""
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{int(value)} B" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


# One allocator per device: the CPU backends' storage, and the CUDA emulator's "device"
# memory (host memory really; on a GPU, CuPy's pool plays this part).
cpu_allocator = CachingAllocator("cpu")
emulator_allocator = CachingAllocator("cuda")
