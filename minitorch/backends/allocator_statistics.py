"""What a caching allocator holds, told with PyTorch's names: ``memory_stats()``'s
counters, ``memory_summary()``'s table, ``memory_snapshot()``'s segments and blocks, and
the message of an out-of-memory error.

The allocator itself (``allocator.py``) keeps few counters on its fast path; everything
here is worked out when someone asks, by walking the segments' blocks
(``memory_blocks.py``). Each function takes the allocator and holds its lock while it
reads, so a storage freed meanwhile in another thread cannot change the picture halfway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minitorch.backends.memory_blocks import Pool, blocks_of, is_whole

if TYPE_CHECKING:
    from minitorch.backends.allocator import CachingAllocator


def memory_stats(allocator: CachingAllocator) -> dict[str, int]:
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
    with allocator.lock:
        allocator.tally()
        allocator.file_cached()
        stats: dict[str, int] = {}
        for name, pool in allocator.pools.items():
            held = [block for segment in allocator.segments if segment.pool is pool
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
        stats["allocated_bytes.all.peak"] = allocator.peak_allocated_bytes
        stats["allocation.all.allocated"] = allocator.total_allocations
        stats["allocation.all.freed"] = allocator.total_allocations - stats["allocation.all.current"]
        for stat, total, peak in (
            ("reserved_bytes", allocator.small.total_reserved_bytes + allocator.large.total_reserved_bytes,
             allocator.peak_reserved_bytes),
            ("segment", allocator.small.total_segments + allocator.large.total_segments,
             allocator.peak_segments),
        ):  # fmt: skip
            current = stats[f"{stat}.all.current"]
            stats.update({f"{stat}.all.peak": peak, f"{stat}.all.allocated": total,
                          f"{stat}.all.freed": total - current})  # fmt: skip
        for name, pool in [("all", None), *allocator.pools.items()]:
            stats[f"inactive_split_bytes.{name}.current"] = inactive_split_bytes(allocator, pool)
        stats["num_alloc_retries"] = allocator.alloc_retries
        stats["num_ooms"] = allocator.ooms
        stats["memory_limit"] = allocator.limit or 0
    return stats

def inactive_split_bytes(allocator: CachingAllocator, pool: Pool | None) -> int:
    """Free bytes in segments that also hold allocated blocks (of one pool, or all)."""
    pools = allocator.pools.values() if pool is None else [pool]
    return sum(size for p in pools for size, _, block in p.free if not is_whole(block))


def summary(allocator: CachingAllocator) -> str:
    """The statistics as a table (``memory_summary()``)."""
    stats = memory_stats(allocator)
    limit = format_bytes(allocator.limit) if allocator.limit is not None else "none"
    lines = [
        f"minitorch {allocator.device.upper()} caching allocator    limit: {limit}    "
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

def out_of_memory_message(allocator: CachingAllocator, nbytes: int, segment_size: int) -> str:
    """PyTorch's message: what was asked, why it failed, where the memory is."""
    allocator.tally()
    allocated, reserved = allocator.allocated_bytes, allocator.reserved_bytes()
    if allocator.limit is not None and reserved + segment_size > allocator.limit:
        why = (
            f"that would pass the limit of {format_bytes(allocator.limit)} "
            "(set_per_process_memory_fraction or set_memory_limit)"
        )
    else:
        why = "the system can't allocate memory for it"
    return (
        f"{allocator.device.upper()} out of memory. Tried to allocate {format_bytes(nbytes)} "
        f"(a new segment of {format_bytes(segment_size)}), and {why}. Of the "
        f"{format_bytes(reserved)} reserved by the allocator, tensors hold "
        f"{format_bytes(allocated)} and {format_bytes(reserved - allocated)} is cached "
        "but free in pieces too small for this request. Free tensors you no longer "
        "need (del x), or use smaller batches. Nothing was lost: your tensors are as "
        "they were."
    )

def snapshot(allocator: CachingAllocator) -> list[dict[str, Any]]:
    """Every segment and its blocks, in address order (``memory.snapshot()``)."""
    with allocator.lock:
        allocator.tally()
        allocator.file_cached()
        segments = []
        for segment in allocator.segments:
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
                "device": allocator.device,
                "address": segment.address,
                "total_size": segment.size,
                "allocated_size": sum(b["size"] for b in blocks if b["allocated"]),
                "requested_size": sum(b["requested_size"] for b in blocks),
                "segment_type": segment.pool.name.split("_")[0],
                "pool": segment.pool.name,
                "blocks": blocks,
            })  # fmt: skip
    return segments


def format_bytes(nbytes: int) -> str:
    """``1536`` -> ``"1.50 KiB"`` (PyTorch's summaries use binary units)."""
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{int(value)} B" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")
