"""The pieces of minitorch.distributed that need no MPI: a tensor as an MPI buffer (a view
of its storage when contiguous, a staged copy written back otherwise), the signatures
ranks compare, and the whole API in a world of one process (a plain ``python``: MPI
starts as a singleton)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

import minitorch as torch
from minitorch.distributed import signature
from minitorch.distributed.buffers import mpi_buffer
from minitorch.distributed.reduce_op import ReduceOp
from tests.distributed.mpi_launch import HERE, environment, explain, requires_mpi


def test_a_contiguous_slice_is_handed_to_mpi_as_a_view_of_its_storage():
    base = torch.arange(20.0).reshape(5, 4)
    middle = base[1:3]
    version = middle._version
    with mpi_buffer(middle, reduce=True) as cells:
        assert np.shares_memory(cells, base._storage) and cells.shape == (8,)
        np.testing.assert_array_equal(cells, np.arange(4.0, 12.0))
        cells *= -1  # as MPI writes a result
    expected = np.arange(20.0).reshape(5, 4)
    expected[1:3] *= -1
    np.testing.assert_array_equal(base.numpy(), expected)
    assert middle._version > version  # autograd sees the in-place write


def test_bytes_of_every_dtype_and_layout_are_the_tensors_cells():
    for dtype in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                  torch.float16, torch.bfloat16, torch.float32, torch.float64):  # fmt: skip
        t = torch.arange(12).reshape(3, 4).to(dtype)
        for view in (t, t.t(), t[:, ::2]):
            with mpi_buffer(view, write=False) as raw:
                assert raw.dtype == np.uint8 and raw.size == view.numel() * dtype.itemsize
                copy = view.contiguous()
                with mpi_buffer(copy, write=False) as expected:
                    np.testing.assert_array_equal(raw, expected)


def test_a_non_contiguous_tensor_is_staged_and_written_back_without_touching_its_neighbours():
    base = torch.arange(24.0).reshape(4, 6)
    view = base[:, 1:4].t()
    with mpi_buffer(view, reduce=True) as cells:
        assert not np.shares_memory(cells, base._storage)
        np.testing.assert_array_equal(cells, np.arange(24.0).reshape(4, 6)[:, 1:4].T.ravel())
        cells[:] = 100.0
    expected = np.arange(24.0).reshape(4, 6)
    expected[:, 1:4] = 100.0
    np.testing.assert_array_equal(base.numpy(), expected)
    untouched = torch.arange(6.0)[::2]
    with mpi_buffer(untouched, write=False) as cells:
        cells[:] = 0  # a read-only use: the staged copy is not written back
    np.testing.assert_array_equal(untouched.numpy(), [0.0, 2.0, 4.0])


def test_16_bit_floats_are_reduced_in_float32_and_rounded_back_once():
    for dtype in (torch.float16, torch.bfloat16):
        t = torch.tensor([1.0, 2.5, -3.0], dtype=dtype)
        with mpi_buffer(t, reduce=True) as cells:
            assert cells.dtype == np.float32
            cells[:] = [1 / 3, 1000.1, 2.0**-20]
        np.testing.assert_array_equal(t.float().numpy(), torch.tensor([1 / 3, 1000.1, 2.0**-20]).to(dtype)
                                      .float().numpy())  # fmt: skip


def test_signatures_describe_the_call_and_name_what_differs():
    mine = signature.encode(4, "all_reduce", torch.float32, (3, 4), reduce=ReduceOp.SUM)
    assert signature.describe(mine) == "all_reduce(float32 tensor of shape [3, 4], op=SUM) as collective #4"
    assert signature.disagreement(mine, mine.copy(), 0, 1) is None
    for other in (signature.encode(4, "all_reduce", torch.float32, (4, 3), reduce=ReduceOp.SUM),
                  signature.encode(4, "all_reduce", torch.float64, (3, 4), reduce=ReduceOp.SUM),
                  signature.encode(4, "all_reduce", torch.float32, (3, 4), reduce=ReduceOp.MAX),
                  signature.encode(4, "broadcast", torch.float32, (3, 4), root=0),
                  signature.encode(5, "all_reduce", torch.float32, (3, 4), reduce=ReduceOp.SUM)):  # fmt: skip
        why = signature.disagreement(mine, other, 0, 1)
        assert why == f"rank 1 called {signature.describe(other)} on this group, while rank 0 called " \
                      f"{signature.describe(mine)}"  # fmt: skip
    deep = signature.encode(0, "broadcast", torch.int8, (1,) * 20, root=0)
    assert signature.disagreement(deep, signature.encode(0, "broadcast", torch.int8, (1,) * 21, root=0), 0, 1)
    row = signature.encode(0, "all_to_all", torch.float32)
    a, b = signature.pairwise(row, 3, 5), signature.pairwise(row, 5, 3)
    assert signature.disagreement(a, b, 0, 1) is None
    assert "block sizes do not match" in signature.disagreement(a, signature.pairwise(row, 4, 3), 0, 1)


@requires_mpi
def test_a_world_of_one_process_and_every_bad_argument():
    done = subprocess.run([sys.executable, str(HERE / "programs" / "single.py")], capture_output=True,
                          text=True, timeout=120, env=environment())  # fmt: skip
    assert done.returncode == 0 and "single-process checks passed" in done.stdout, explain(done)
