"""``minitorch.memory``: the CPU's caching allocator, with ``torch.cuda``'s memory API.

PyTorch has no CPU equivalent of these functions: its CPU tensors come straight from the
system allocator (``malloc``), and only ``torch.cuda`` keeps a caching allocator with
statistics. minitorch gives every device the same allocator
(``minitorch/backends/allocator.py``), so the CPU can show what a GPU does::

    >>> import minitorch
    >>> x = minitorch.ones(1000)            # 4,000 bytes, rounded up to 4,096
    >>> minitorch.memory.memory_allocated()
    4096
    >>> del x                               # the last reference: freed at once
    >>> minitorch.memory.memory_allocated(), minitorch.memory.memory_reserved()
    (0, 2097152)                            # the 2 MiB segment stays cached
    >>> minitorch.memory.empty_cache()      # ...until the cache is emptied

The same functions for device ``"cuda"`` are in ``minitorch.cuda``.
"""

from __future__ import annotations

from typing import Any

from minitorch import cuda
from minitorch.backends.allocator import OutOfMemoryError, cpu_allocator, system_memory
from minitorch.device import as_device

__all__ = [
    "OutOfMemoryError", "empty_cache", "max_memory_allocated", "max_memory_reserved",
    "memory_allocated", "memory_reserved", "memory_stats", "memory_summary",
    "reset_peak_memory_stats", "set_memory_limit", "set_per_process_memory_fraction",
    "snapshot",
]  # fmt: skip


def memory_stats() -> dict[str, int]:
    """Every counter of the CPU allocator, under PyTorch's names (``torch.cuda.memory_stats``):
    ``"allocated_bytes.all.current"``, ``"reserved_bytes.small_pool.peak"``,
    ``"allocation.all.allocated"``, ``"num_alloc_retries"``, ... (the full list is in
    ``CachingAllocator.stats``)."""
    return cpu_allocator.stats()


def memory_allocated() -> int:
    """Bytes held by tensors now (their blocks: each request rounded up to 512 B)."""
    return memory_stats()["allocated_bytes.all.current"]


def max_memory_allocated() -> int:
    """The most bytes tensors held at once since the start or ``reset_peak_memory_stats()``."""
    return memory_stats()["allocated_bytes.all.peak"]


def memory_reserved() -> int:
    """Bytes the allocator holds from the system: allocated blocks plus its cache."""
    return memory_stats()["reserved_bytes.all.current"]


def max_memory_reserved() -> int:
    """The most bytes reserved at once since the start or ``reset_peak_memory_stats()``."""
    return memory_stats()["reserved_bytes.all.peak"]


def memory_summary() -> str:
    """The statistics as a readable table (``torch.cuda.memory_summary``)."""
    return cpu_allocator.summary()


def empty_cache() -> None:
    """Give the cached free segments back to the system (tensors keep theirs)."""
    cpu_allocator.empty_cache()


def reset_peak_memory_stats() -> None:
    """Start the peaks (``max_memory_allocated``...) again from the current values."""
    cpu_allocator.reset_peak_stats()


def set_per_process_memory_fraction(fraction: float) -> None:
    """Let the allocator reserve at most ``fraction`` of the machine's memory; past it an
    allocation raises ``OutOfMemoryError`` (after emptying the cache and trying again)."""
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    cpu_allocator.set_limit(int(fraction * system_memory()))


def set_memory_limit(nbytes: int | None) -> None:
    """Let the allocator reserve at most ``nbytes`` (``None``: no limit). minitorch's own
    byte-sized twin of ``set_per_process_memory_fraction``, for experiments."""
    if nbytes is not None and nbytes < 0:
        raise ValueError(f"the memory limit must be at least 0 bytes, got {nbytes}")
    cpu_allocator.set_limit(nbytes)


def snapshot(device: Any = "cpu") -> list[dict[str, Any]]:
    """The allocator's segments and blocks, as plain data (like ``torch.cuda.memory_snapshot``).

    A list with one dict per segment, in the order they were reserved::

        {"device": "cpu",              # or "cuda" (the emulator)
         "address": int,               # where the segment starts in memory
         "total_size": int,            # bytes reserved from the system
         "allocated_size": int,        # bytes of its allocated blocks
         "requested_size": int,        # bytes those blocks were asked for
         "segment_type": "small",      # or "large"
         "pool": "small_pool",         # or "large_pool"
         "blocks": [...]}              # every block of the segment, in address order

    and one dict per block::

        {"address": int,               # where the block starts in memory
         "offset": int,                # address - the segment's address
         "size": int,                  # bytes (a multiple of 512)
         "requested_size": int,        # bytes asked for (0 for a free block)
         "state": "active_allocated",  # or "inactive" (free), PyTorch's names
         "allocated": bool,            # the same, as a flag
         "pool": "small_pool"}         # or "large_pool"

    The blocks of a segment tile it: offsets start at 0 and each block ends where the
    next begins. A tensor's storage starts at its block's address, so the block holding
    tensor ``t`` is the one whose ``address`` is ``t._storage.ctypes.data`` (on the CPU
    and on the emulator alike). A tensor with no elements holds no block, and one made
    by ``from_numpy`` shares the NumPy array's memory, outside the allocator.
    """
    kind = as_device(device).type
    if kind == "cpu":
        return cpu_allocator.snapshot()
    if kind == "cuda":
        return cuda.memory_snapshot()
    raise ValueError(f"no memory snapshot for device {kind!r}: use 'cpu' or 'cuda'")
