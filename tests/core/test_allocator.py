"""The caching allocator (``minitorch/backends/allocator.py``) and its statistics.

Two kinds of tests: the allocator's design on a private ``CachingAllocator`` (rounding,
pools, best fit, split, merge, reuse, ``empty_cache``, peaks, out of memory), and the
public API on the real storage of every tensor (``minitorch.memory``, ``minitorch.cuda``):
a storage is freed the moment its last tensor or view dies, an autograd graph leaves no
reference cycle, and a cycle the user makes is collected by the GC.

Counters of the shared CPU allocator are compared before and after, with the garbage
collector off (``no_gc``) so that no unrelated garbage is freed in between.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import threading
from collections.abc import Iterator

import numba
import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.backends import allocator as allocator_module
from minitorch.backends.allocator import GRANULE, SMALL_BLOCK, SMALL_SEGMENT, CachingAllocator

F32 = np.dtype(np.float32)
U8 = np.dtype(np.uint8)
MiB = 1 << 20

# The names torch.cuda.memory_stats() uses for the numbers we keep.
PYTORCH_KEYS = [
    f"{stat}.{pool}.current"
    for stat in ("allocated_bytes", "requested_bytes", "reserved_bytes", "allocation", "segment",
                 "inactive_split_bytes")
    for pool in ("all", "small_pool", "large_pool")
] + [
    "allocated_bytes.all.peak", "reserved_bytes.all.peak", "segment.all.peak",
    "reserved_bytes.large_pool.peak", "allocation.all.allocated", "allocation.all.freed",
    "reserved_bytes.all.allocated", "reserved_bytes.all.freed", "num_alloc_retries", "num_ooms",
]  # fmt: skip


@pytest.fixture(scope="module")
def backend() -> str:
    """This file runs once, not once per CPU backend as the rest of ``tests/core``: the
    allocator is the same under all of them, and the one test that runs kernels on its
    storage runs each backend itself."""
    return mt.get_backend("cpu")


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def blocks(allocator: CachingAllocator) -> list[tuple[str, int, int, bool]]:
    """(pool, offset, size, allocated) of every block, segment by segment."""
    return [(segment["pool"], block["offset"], block["size"], block["allocated"])
            for segment in allocator.snapshot() for block in segment["blocks"]]  # fmt: skip


def address(storage: np.ndarray) -> int:
    return storage.ctypes.data


# ----- the design, on a private allocator ---------------------------------------------


def test_sizes_round_up_to_512_bytes_and_the_request_is_remembered():
    allocator = CachingAllocator("cpu")
    one = allocator.allocate(1, U8)
    more = allocator.allocate(513, U8)
    assert blocks(allocator) == [
        ("small_pool", 0, 512, True), ("small_pool", 512, 1024, True),
        ("small_pool", 1536, SMALL_SEGMENT - 1536, False),
    ]  # fmt: skip
    stats = allocator.stats()
    assert stats["allocated_bytes.all.current"] == 1536
    assert stats["requested_bytes.all.current"] == 514
    assert address(more) - address(one) == 512 and address(one) % GRANULE == 0
    del one, more


def test_small_and_large_pools_and_their_segment_sizes():
    allocator = CachingAllocator("cpu")
    small = allocator.allocate(SMALL_BLOCK, U8)  # 1 MiB: still small
    large = allocator.allocate(SMALL_BLOCK + 1, U8)  # rounded up to a 2 MiB segment
    huge = allocator.allocate(5 * MiB, U8)  # a 6 MiB segment
    segments = allocator.snapshot()
    assert [(s["pool"], s["total_size"]) for s in segments] == [
        ("small_pool", 2 * MiB), ("large_pool", 2 * MiB), ("large_pool", 6 * MiB)
    ]  # fmt: skip
    stats = allocator.stats()
    assert stats["reserved_bytes.small_pool.current"] == 2 * MiB
    assert stats["reserved_bytes.large_pool.current"] == 8 * MiB
    assert stats["segment.all.current"] == 3
    del small, large, huge


def test_a_large_block_is_split_only_when_more_than_1_mib_is_left():
    allocator = CachingAllocator("cpu")
    a = allocator.allocate(3 * MiB, U8)  # 4 MiB segment, 1 MiB left: kept in the block
    b = allocator.allocate(int(2.5 * MiB), U8)  # 4 MiB segment, 1.5 MiB left: split off
    assert blocks(allocator) == [
        ("large_pool", 0, 4 * MiB, True),
        ("large_pool", 0, int(2.5 * MiB), True), ("large_pool", int(2.5 * MiB), int(1.5 * MiB), False),
    ]  # fmt: skip
    del a, b


def test_freed_neighbours_merge_back_into_one_block():
    allocator = CachingAllocator("cpu")
    a, b, c = (allocator.allocate(1000, U8) for _ in range(3))
    keep = allocator.allocate(10, U8)
    del b, a  # the middle one, then the one before it
    assert blocks(allocator)[:3] == [
        ("small_pool", 0, 2048, False), ("small_pool", 2048, 1024, True), ("small_pool", 3072, 512, True),
    ]  # fmt: skip
    del c, keep
    assert blocks(allocator) == [("small_pool", 0, SMALL_SEGMENT, False)]


def test_a_freed_block_is_reused_for_the_next_tensor_of_its_size():
    allocator = CachingAllocator("cpu")
    first = allocator.allocate(100, F32)
    where = address(first)
    del first
    again = allocator.allocate(120, F32)  # 480 bytes: the same 512-byte class
    assert address(again) == where
    assert allocator.stats()["segment.all.allocated"] == 1  # no new segment
    del again


def test_best_fit_takes_the_smallest_free_block_that_fits():
    allocator = CachingAllocator("cpu")
    big, wall1, small, wall2 = (allocator.allocate(n, U8) for n in (4096, 10, 1024, 10))
    big_at, small_at = address(big), address(small)
    del big, small
    allocator.stats()  # (files freed blocks into the pools, as a request that misses does)
    got = allocator.allocate(700, U8)  # fits both; the 1 KiB block is the best fit
    assert address(got) == small_at != big_at
    del got, wall1, wall2


def test_segments_stay_reserved_until_empty_cache():
    allocator = CachingAllocator("cpu")
    kept = allocator.allocate(10, U8)
    dropped = allocator.allocate(3 * MiB, U8)
    del dropped
    stats = allocator.stats()
    assert stats["allocated_bytes.all.current"] == 512
    assert stats["reserved_bytes.all.current"] == 2 * MiB + 4 * MiB
    allocator.empty_cache()  # the large segment is all free: released; the small one is in use
    stats = allocator.stats()
    assert stats["reserved_bytes.all.current"] == 2 * MiB
    assert stats["reserved_bytes.all.freed"] == 4 * MiB and stats["reserved_bytes.all.peak"] == 6 * MiB
    assert stats["inactive_split_bytes.all.current"] == 2 * MiB - 512
    del kept
    allocator.empty_cache()
    assert allocator.stats()["reserved_bytes.all.current"] == 0 and allocator.snapshot() == []


def test_peaks_and_reset_peak_stats():
    allocator = CachingAllocator("cpu")
    small = allocator.allocate(10, U8)
    big = allocator.allocate(8 * MiB, U8)
    del big
    stats = allocator.stats()
    assert stats["allocated_bytes.all.peak"] == 8 * MiB + 512
    assert stats["allocated_bytes.all.current"] == 512
    allocator.reset_peak_stats()
    stats = allocator.stats()
    assert stats["allocated_bytes.all.peak"] == 512
    assert stats["reserved_bytes.all.peak"] == stats["reserved_bytes.all.current"]
    assert stats["allocation.all.allocated"] == 2 and stats["allocation.all.freed"] == 1
    del small


def test_stats_use_pytorchs_names_and_add_up():
    allocator = CachingAllocator("cpu")
    arrays = [allocator.allocate(n, U8) for n in (1, 600, 2 * MiB, 70_000)]
    stats = allocator.stats()
    assert set(PYTORCH_KEYS) <= set(stats)
    for stat in ("allocated_bytes", "requested_bytes", "reserved_bytes", "allocation", "segment"):
        assert stats[f"{stat}.all.current"] == stats[f"{stat}.small_pool.current"] + stats[
            f"{stat}.large_pool.current"]  # fmt: skip
    assert stats["allocation.all.current"] == 4
    assert stats["requested_bytes.all.current"] == 1 + 600 + 2 * MiB + 70_000
    assert stats["allocated_bytes.all.current"] == 512 + 1024 + 2 * MiB + 70_144
    del arrays


def test_snapshot_blocks_tile_each_segment():
    allocator = CachingAllocator("cpu")
    arrays = [allocator.allocate(n, U8) for n in (100, 5000, 3 * MiB)]
    del arrays[1]
    for segment in allocator.snapshot():
        assert set(segment) >= {"device", "address", "total_size", "allocated_size", "requested_size",
                                "segment_type", "pool", "blocks"}  # fmt: skip
        offset = 0
        for block in segment["blocks"]:
            assert block["offset"] == offset and block["address"] == segment["address"] + offset
            assert block["state"] == ("active_allocated" if block["allocated"] else "inactive")
            assert block["pool"] == segment["pool"]
            assert block["requested_size"] <= block["size"] and block["size"] % GRANULE == 0
            offset += block["size"]
        assert offset == segment["total_size"]
        assert segment["allocated_size"] == sum(b["size"] for b in segment["blocks"] if b["allocated"])
    assert [address(a) for a in arrays] == [
        b["address"] for s in allocator.snapshot() for b in s["blocks"] if b["allocated"]
    ]


def test_blocks_freed_in_other_threads_are_counted():
    allocator = CachingAllocator("cpu")

    def churn() -> None:
        for n in range(1, 400):
            kept = [allocator.allocate(n * 37 % 5000 + 1, U8) for _ in range(3)]
            del kept

    threads = [threading.Thread(target=churn) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stats = allocator.stats()
    assert stats["allocation.all.current"] == 0 and stats["allocated_bytes.all.current"] == 0
    assert stats["allocation.all.allocated"] == 3 * 3 * 399
    assert blocks(allocator) == [("small_pool", 0, SMALL_SEGMENT, False)] * stats["segment.all.current"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_allocates_and_writes_in_its_own_copy():
    """Segments are private mappings: a DataLoader worker started by fork gets its own
    copy (on write) of the parent's memory, and its allocator its own bookkeeping."""
    x = mt.zeros(100)
    pid = os.fork()
    if pid == 0:  # the child: write the parent's tensor, allocate new ones
        x.add_(1)
        y = mt.ones(100) * 2
        os._exit(0 if (x.sum().item(), y.sum().item()) == (100.0, 200.0) else 1)
    assert os.waitpid(pid, 0)[1] == 0
    assert x.sum().item() == 0.0


# ----- out of memory -------------------------------------------------------------------


def test_out_of_memory_is_a_runtime_error_with_the_summary_and_nothing_is_lost():
    allocator = CachingAllocator("cpu")
    allocator.set_limit(4 * MiB)
    kept = allocator.allocate(1000, F32)
    kept[:] = 7
    with pytest.raises(mt.OutOfMemoryError) as caught:
        allocator.allocate(1024 * 1024, F32)  # 4 MiB more: past the limit
    message = str(caught.value)
    assert isinstance(caught.value, RuntimeError)
    assert "out of memory. Tried to allocate 4.00 MiB" in message
    assert "limit of 4.00 MiB" in message and "reserved memory" in message  # the summary
    stats = allocator.stats()
    assert stats["num_ooms"] == 1 and stats["num_alloc_retries"] == 1
    assert stats["allocated_bytes.all.current"] == 4096 and (kept == 7).all()
    allocator.set_limit(None)
    assert allocator.allocate(1024 * 1024, F32).size == 1024 * 1024  # and it goes on


def test_out_of_memory_first_releases_the_cache_and_retries():
    allocator = CachingAllocator("cpu")
    allocator.set_limit(6 * MiB)
    cached = allocator.allocate(3 * MiB, U8)  # a 4 MiB segment...
    del cached  # ...now free, but reserved
    got = allocator.allocate(5 * MiB, U8)  # needs 6 MiB: only after releasing the 4 MiB
    stats = allocator.stats()
    assert stats["num_alloc_retries"] == 1 and stats["num_ooms"] == 0
    assert stats["reserved_bytes.all.current"] == 6 * MiB
    del got


def test_memory_the_system_cannot_give_is_out_of_memory_too():
    with pytest.raises(mt.OutOfMemoryError, match="can't allocate memory"):
        mt.ones(1).expand(2**50).contiguous()  # 4 PiB


def test_out_of_memory_through_the_public_api_like_pytorch():
    assert mt.cuda.OutOfMemoryError is mt.OutOfMemoryError is mt.memory.OutOfMemoryError
    assert issubclass(torch.OutOfMemoryError, RuntimeError)
    x = mt.arange(10.0)
    mt.memory.set_memory_limit(mt.memory.memory_reserved())  # nothing more may be reserved
    try:
        with pytest.raises(mt.OutOfMemoryError, match="Tried to allocate 400.00 MiB"):
            mt.ones(1).expand(100 * MiB).contiguous()
    finally:
        mt.memory.set_memory_limit(None)
    assert (x * 2).tolist() == [2.0 * i for i in range(10)]
    with pytest.raises(ValueError, match="Allowed range"):
        mt.memory.set_per_process_memory_fraction(1.5)


# ----- the real storage of tensors -----------------------------------------------------


def test_every_new_storage_comes_from_the_allocator():
    with no_gc():
        before = mt.memory.memory_stats()
        x = mt.ones(1000)  # 4,000 bytes: one 4,096-byte block
        y = x * 2
        after = mt.memory.memory_stats()
        assert after["allocated_bytes.all.current"] - before["allocated_bytes.all.current"] == 2 * 4096
        assert after["allocation.all.allocated"] - before["allocation.all.allocated"] == 2
        assert mt.memory.memory_reserved() >= mt.memory.memory_allocated() >= 2 * 4096
        assert mt.memory.max_memory_allocated() >= mt.memory.memory_allocated()
        assert mt.memory.max_memory_reserved() >= mt.memory.memory_reserved()
        del x, y


def test_del_of_the_last_view_frees_at_once():
    with no_gc():
        base = mt.memory.memory_allocated()
        x = mt.arange(1000.0)
        view = x.view(10, 100).t()[3:7]
        array = view.numpy()  # a NumPy view keeps the storage alive too
        assert mt.memory.memory_allocated() == base + 4096
        del x
        assert mt.memory.memory_allocated() == base + 4096
        assert array[0, 0] == 3.0
        del view
        assert mt.memory.memory_allocated() == base + 4096
        del array
        assert mt.memory.memory_allocated() == base


def test_a_zero_element_tensor_holds_no_block():
    with no_gc():
        base = mt.memory.memory_stats()["allocation.all.current"]
        empty = mt.zeros(0, 5)
        assert mt.memory.memory_stats()["allocation.all.current"] == base
        assert empty.shape == (0, 5) and empty.sum().item() == 0


def train_step(w: mt.Tensor, x: mt.Tensor) -> None:
    hidden = (x @ w).relu()
    loss = (hidden * hidden).mean() + w.exp().sum() * 0.1
    loss.backward()


def test_an_autograd_graph_holds_no_reference_cycle():
    w = mt.randn(30, 30, requires_grad=True)
    x = mt.randn(20, 30)
    train_step(w, x)  # (first call: constants made once and cached)
    w.grad = None
    with no_gc():
        base = mt.memory.memory_allocated()
        train_step(w, x)
        assert w.grad is not None and mt.memory.memory_allocated() == base + 4096  # w.grad
        w.grad = None
        assert mt.memory.memory_allocated() == base  # without the garbage collector
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            leaked = [o for o in gc.garbage if isinstance(o, mt.Tensor) or "Backward" in type(o).__name__]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert leaked == []


def test_a_graph_kept_by_retain_graph_is_freed_with_its_output():
    w = mt.randn(50, 50, requires_grad=True)
    (w.tanh() * w.sigmoid()).sum().backward()  # (first call: constants made once and cached)
    w.grad = None
    with no_gc():
        base = mt.memory.memory_allocated()
        loss = (w.tanh() * w.sigmoid()).sum()
        loss.backward(retain_graph=True)
        w.grad = None
        assert mt.memory.memory_allocated() > base  # the saved tensors of tanh and sigmoid
        del loss
        assert mt.memory.memory_allocated() == base


def test_a_cycle_the_user_makes_is_freed_by_the_garbage_collector():
    with no_gc():
        base = mt.memory.memory_allocated()
        box = [mt.ones(1000)]
        box.append(box)  # a list that contains itself holds the tensor
        del box
        assert mt.memory.memory_allocated() == base + 4096  # unreachable, not yet freed
        gc.collect()
        assert mt.memory.memory_allocated() == base


def test_from_numpy_shares_and_tensor_copies_like_pytorch():
    def share_and_copy(lib):
        array = np.zeros(1000, np.float32)
        shared = lib.from_numpy(array)
        shared[0] = 5.0
        copied = lib.tensor(array)
        array[1] = 6.0
        return array[:2].tolist(), shared[:2].tolist(), copied[:2].tolist()

    with no_gc():
        base = mt.memory.memory_allocated()
        array = np.zeros(1000, np.float32)
        shared = mt.from_numpy(array)
        assert mt.memory.memory_allocated() == base  # the array's own memory
        copied = mt.tensor(array)
        assert mt.memory.memory_allocated() == base + 4096
        del shared, copied
    assert share_and_copy(mt) == share_and_copy(torch) == ([5.0, 6.0], [5.0, 6.0], [5.0, 0.0])


def test_numba_kernels_take_the_storage_as_a_plain_array():
    x = mt.arange(12.0).view(3, 4)
    storage = x._storage
    assert type(storage) is np.ndarray and storage.flags.writeable and storage.flags.aligned

    @numba.njit
    def double_in_place(values):
        for i in range(values.size):
            values[i] *= 2
        return values.sum()

    assert double_in_place(storage) == 2 * sum(range(12))
    assert x.tolist() == (2 * torch.arange(12.0).view(3, 4)).tolist()


@pytest.mark.parametrize("name", ["reference", "numba"])
def test_both_cpu_backends_agree_with_pytorch_on_allocator_storage(name):
    a = np.random.default_rng(0).standard_normal((6, 5)).astype(np.float32)
    t = torch.tensor(a)
    want = ((t.t() * 2)[1:4] @ t[:, ::2] + t.sum(0)[:3].expand(3, 3)).exp()
    with mt.backend(name):
        x = mt.tensor(a)
        got = ((x.t() * 2)[1:4] @ x[:, ::2] + x.sum(0)[:3].expand(3, 3)).exp()
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


def test_pickle_and_save_load_copy_out_of_the_allocator(tmp_path):
    x = mt.arange(6.0).view(2, 3).t()
    again = pickle.loads(pickle.dumps(x))
    assert again.tolist() == x.tolist()
    mt.save({"x": x}, tmp_path / "x.pt")
    assert mt.load(tmp_path / "x.pt")["x"].tolist() == x.tolist()


def test_summary_and_snapshot_of_the_cpu():
    x = mt.ones(100)
    summary = mt.memory.memory_summary()
    for row in ("allocated memory", "requested memory", "reserved memory", "allocations", "segments"):
        assert row in summary
    held = [b for s in mt.memory.snapshot() for b in s["blocks"] if b["address"] == x._storage.ctypes.data]
    assert held == [{"address": x._storage.ctypes.data, "offset": held[0]["offset"], "size": 512,
                     "requested_size": 400, "state": "active_allocated", "allocated": True,
                     "pool": "small_pool"}]  # fmt: skip
    assert mt.memory.snapshot("cpu")[0]["device"] == "cpu"


def test_reset_peak_and_empty_cache_of_the_cpu():
    with no_gc():
        big = mt.zeros(3, 1024, 1024)  # 12 MiB
        del big
        assert mt.memory.max_memory_allocated() >= 12 * MiB
        mt.memory.reset_peak_memory_stats()
        assert mt.memory.max_memory_allocated() == mt.memory.memory_allocated()
        mt.memory.empty_cache()
        assert mt.memory.memory_stats()["reserved_bytes.large_pool.current"] == sum(
            s["total_size"] for s in mt.memory.snapshot() if s["pool"] == "large_pool"
        )
        assert all(any(b["allocated"] for b in s["blocks"]) for s in mt.memory.snapshot())


# ----- device "cuda" -------------------------------------------------------------------


@pytest.fixture
def emulator():
    from minitorch.backends import cuda_emulator
    from minitorch.backends.cuda import device

    if not cuda_emulator.is_available():
        pytest.skip(cuda_emulator.unavailable_reason())
    with device.emulated():
        yield


def test_the_emulator_allocates_device_memory_from_its_own_allocator(emulator):
    (mt.ones(3, device="cuda") * 2).sum().item()  # (the number 2 as a tensor is cached)
    with no_gc():
        before = mt.cuda.memory_allocated()
        cpu_before = mt.memory.memory_allocated()
        x = mt.ones(1000, device="cuda")
        mt.cuda.synchronize()
        assert mt.cuda.memory_allocated() == before + 4096  # 4,000 bytes and 64 guard bytes
        assert mt.memory.memory_allocated() == cpu_before
        addresses = [b["address"] for s in mt.cuda.memory_snapshot() for b in s["blocks"] if b["allocated"]]
        assert x._storage.ctypes.data in addresses
        assert (x * 2).sum().item() == 2000
        mt.cuda.synchronize()
        del x
        assert mt.cuda.memory_allocated() == before
        assert mt.cuda.max_memory_allocated() >= before + 4096
        assert "reserved memory" in mt.cuda.memory_summary()
        assert mt.memory.snapshot("cuda")[0]["device"] == "cuda"


def test_the_emulator_runs_out_of_memory_like_a_gpu(emulator):
    x = mt.ones(10, device="cuda")
    mt.cuda.set_per_process_memory_fraction(0.0)  # no new segment
    try:
        with pytest.raises(mt.cuda.OutOfMemoryError, match="CUDA out of memory. Tried to allocate 64.00 MiB"):
            mt.ones(1, device="cuda").expand(16 * MiB).contiguous()
    finally:
        allocator_module.emulator_allocator.set_limit(None)
    assert mt.cuda.memory_stats()["num_ooms"] >= 1
    assert (x + 1).sum().item() == 20


@pytest.mark.skipif(not mt.cuda.is_available() or mt.cuda.is_emulated(), reason="needs a real CUDA GPU")
def test_cupy_pool_numbers_through_the_same_api():
    x = mt.ones(1 << 20, device="cuda")
    assert mt.cuda.memory_reserved() >= mt.cuda.memory_allocated() >= 4 << 20
    del x
    mt.cuda.empty_cache()
