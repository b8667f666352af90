"""Self-tests of the CUDA emulator: it must catch the bugs a GPU hides.

* a missing ``__syncthreads`` shows up in reversed thread order;
* an early ``return`` before a barrier, and barriers at different lines, raise;
* shared memory nobody wrote reads as NaN;
* shuffles, atomics, 3-D indices, dynamic shared memory behave as on a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest

from minitorch.backends import cuda_emulator as emu

SOURCE = r"""
// out[i] = in[i - 1] within a block, through shared memory
extern "C" __global__ void shift(float* out, const float* in)
{
    __shared__ float buffer[128];
    const int t = threadIdx.x;
    buffer[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = t > 0 ? buffer[t - 1] : 0.0f;
}

extern "C" __global__ void shift_without_barrier(float* out, const float* in)
{
    __shared__ float buffer[128];
    const int t = threadIdx.x;
    buffer[t] = in[blockIdx.x * blockDim.x + t];
    out[blockIdx.x * blockDim.x + t] = t > 0 ? buffer[t - 1] : 0.0f;
}

extern "C" __global__ void early_return(float* out, int n)
{
    if ((int)threadIdx.x >= n) return;
    __syncthreads();
    out[threadIdx.x] = 1.0f;
}

extern "C" __global__ void divergent_barriers(float* out)
{
    if (threadIdx.x % 2 == 0) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1.0f;
}

extern "C" __global__ void read_unwritten(float* out, double* out64)
{
    __shared__ float scratch[64];
    __shared__ double scratch64[64];
    extern __shared__ float dynamic[];
    out[threadIdx.x] = scratch[threadIdx.x];
    out[64 + threadIdx.x] = dynamic[threadIdx.x];
    out64[threadIdx.x] = scratch64[threadIdx.x];
}

extern "C" __global__ void shuffles(int* out)
{
    const int lane = threadIdx.x % 32;
    const int base = 4 * threadIdx.x;
    out[base + 0] = __shfl_down_sync(0xffffffffu, lane, 3);
    out[base + 1] = __shfl_up_sync(0xffffffffu, lane, 2);
    out[base + 2] = __shfl_xor_sync(0xffffffffu, lane, 5);
    out[base + 3] = __shfl_sync(0xffffffffu, lane * 10, 7);
}

extern "C" __global__ void ballot(unsigned int* out)
{
    const unsigned int bits = __ballot_sync(0xffffffffu, threadIdx.x % 3 == 0);
    if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = bits;
}

extern "C" __global__ void count_up(unsigned long long* total, float* sum)
{
    atomicAdd(total, 1ULL);
    atomicAdd(sum, 0.5f);
}

extern "C" __global__ void indices(int* out)
{
    const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    out[block * blockDim.x * blockDim.y * blockDim.z + thread] = block * 1000 + thread;
}

extern "C" __global__ void shuffle_in_half_warp(int* out)
{
    if (threadIdx.x < 16) out[threadIdx.x] = __shfl_down_sync(0xffffffffu, (int)threadIdx.x, 1);
}
"""


@pytest.fixture(scope="module")
def module():
    if not emu.is_available():
        pytest.skip(emu.unavailable_reason())
    return emu.RawModule(SOURCE, name="emulator_selftest")


def _run(module, name, grid, block, *args, shared_mem=0):
    module.get_function(name)(grid, block, args, shared_mem=shared_mem)


@pytest.mark.parametrize("order", ["forward", "reversed", "shuffled"])
def test_a_correct_barrier_passes_in_every_order(module, order):
    source = emu.from_numpy(np.arange(256, dtype=np.float32))
    out = emu.empty(256, np.float32)
    with emu.thread_order(order, seed=1):
        _run(module, "shift", (2,), (128,), out, source)
    expected = np.concatenate([[0], np.arange(127), [0], np.arange(128, 255)])
    np.testing.assert_array_equal(emu.to_numpy(out), expected)


def test_a_missing_barrier_fails_in_reversed_order(module):
    source = emu.from_numpy(np.arange(256, dtype=np.float32))
    out = emu.empty(256, np.float32)
    with emu.thread_order("forward"):  # thread t-1 happens to write before t reads
        _run(module, "shift_without_barrier", (2,), (128,), out, source)
    assert not np.isnan(emu.to_numpy(out)).any()
    with emu.thread_order("reversed"):  # now t reads before t-1 has written: poison
        _run(module, "shift_without_barrier", (2,), (128,), out, source)
    assert np.isnan(emu.to_numpy(out)).sum() == 2 * 127


@pytest.mark.parametrize("order", ["forward", "reversed"])
def test_early_return_before_a_barrier_raises(module, order):
    out = emu.empty(64, np.float32)
    with emu.thread_order(order), pytest.raises(emu.EmulatorError, match="__syncthreads") as error:
        _run(module, "early_return", (1,), (64,), out, np.int32(40))
    assert "early_return" in str(error.value) and "return" in str(error.value)


def test_barriers_at_different_lines_raise(module):
    out = emu.empty(64, np.float32)
    with pytest.raises(emu.EmulatorError, match="different|while other threads"):
        _run(module, "divergent_barriers", (1,), (64,), out)


def test_unwritten_shared_memory_reads_as_nan(module):
    out, out64 = emu.empty(128, np.float32), emu.empty(64, np.float64)
    _run(module, "read_unwritten", (1,), (64,), out, out64, shared_mem=64 * 4)
    assert np.isnan(emu.to_numpy(out)).all() and np.isnan(emu.to_numpy(out64)).all()


def test_warp_shuffles(module):
    out = emu.empty(4 * 64, np.int32)
    _run(module, "shuffles", (1,), (64,), out)
    result = emu.to_numpy(out).reshape(64, 4)
    lane = np.arange(64) % 32
    np.testing.assert_array_equal(result[:, 0], np.where(lane + 3 < 32, lane + 3, lane))
    np.testing.assert_array_equal(result[:, 1], np.where(lane >= 2, lane - 2, lane))
    np.testing.assert_array_equal(result[:, 2], lane ^ 5)
    np.testing.assert_array_equal(result[:, 3], np.full(64, 70))


def test_ballot(module):
    out = emu.empty(2, np.uint32)
    _run(module, "ballot", (1,), (64,), out)
    expected = sum(1 << lane for lane in range(32) if lane % 3 == 0)
    expected_second = sum(1 << lane for lane in range(32) if (lane + 32) % 3 == 0)
    assert emu.to_numpy(out).tolist() == [expected, expected_second]


def test_a_shuffle_missing_lanes_raises(module):
    out = emu.empty(32, np.int32)
    with pytest.raises(emu.EmulatorError, match="warp"):
        _run(module, "shuffle_in_half_warp", (1,), (32,), out)


def test_atomics_from_many_blocks(module):
    total, total_sum = emu.from_numpy(np.zeros(1, np.uint64)), emu.from_numpy(np.zeros(1, np.float32))
    _run(module, "count_up", (7,), (96,), total, total_sum)
    assert emu.to_numpy(total)[0] == 7 * 96 and emu.to_numpy(total_sum)[0] == 7 * 96 / 2


@pytest.mark.parametrize("order", ["forward", "reversed"])
def test_three_dimensional_grids_and_blocks(module, order):
    grid, block = (2, 3, 2), (4, 2, 3)
    count = 12 * 24
    out = emu.empty(count, np.int32)
    with emu.thread_order(order):
        _run(module, "indices", grid, block, out)
    expected = [b * 1000 + t for b in range(12) for t in range(24)]
    assert emu.to_numpy(out).tolist() == expected


def test_invalid_launches_never_reach_the_kernel(module):
    out = emu.empty(4, np.float32)
    function = module.get_function("shift")
    with pytest.raises(ValueError, match="threads per block"):
        function((1,), (2048,), (out, out))
    with pytest.raises(ValueError, match="grid"):
        function((0,), (32,), (out, out))
    with pytest.raises(ValueError, match="shared_mem"):
        function((1,), (32,), (out, out), shared_mem=100_000)


def test_system_headers_are_rejected_like_nvrtc():
    source = '#include <cstdio>\nextern "C" __global__ void k(int* x) { x[0] = 1; }\n'
    with pytest.raises(emu.CompileError):
        emu.RawModule(source, name="with_include").compile()


def test_compiled_modules_are_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_CACHE_DIR", str(tmp_path))
    source = 'extern "C" __global__ void k(int* x) { x[threadIdx.x] = 2 * threadIdx.x; }\n'
    emu.RawModule(source, name="cached").compile()
    built = sorted((tmp_path / "cuda-emulator").glob("cached-*.so"))
    assert len(built) == 1
    out = emu.empty(8, np.int32)
    emu.RawModule(source, name="cached").get_function("k")((1,), (8,), (out,))
    assert sorted((tmp_path / "cuda-emulator").glob("cached-*.so")) == built
    assert emu.to_numpy(out).tolist() == list(range(0, 16, 2))


def test_thread_order_from_the_environment_is_checked():
    with pytest.raises(ValueError, match="MINITORCH_CUDA_ORDER"):
        emu._parse_order("backwards")
    assert emu._parse_order("shuffled:7") == ("shuffled", 7)


def test_writes_past_the_end_of_an_array_are_reported():
    source = 'extern "C" __global__ void k(float* x, int n) { x[threadIdx.x] = 1.0f; }\n'
    out = emu.empty(30, np.float32)
    module = emu.RawModule(source, name="out_of_bounds")
    with pytest.raises(emu.EmulatorError, match="wrote past the end of argument 0"):
        module.get_function("k")((1,), (32,), (out, np.int32(30)))
    module.get_function("k")((1,), (30,), (out, np.int32(30)))  # in bounds: fine
    assert emu.to_numpy(out).tolist() == [1.0] * 30
