"""The pieces a caching allocator is made of: segments reserved from the system, the
blocks carved out of them, and the pools that keep the free blocks sorted by size.

A *segment* is one piece of memory the operating system gave (``reserve_memory``). Its
*blocks* cover it end to end, in address order, as a doubly linked list: a block is
allocated (a storage lives in it), or free. A *pool* holds the free blocks of one size
class sorted by size, so a best-fit search is one binary search. ``allocator.py`` says
how a request moves through them.
"""

from __future__ import annotations

import bisect
import mmap
import os
import weakref

import numpy as np


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
