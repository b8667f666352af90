"""The Numba backend compiles each elementwise and reduce kernel per *layout class* (a
contiguous row, a repeated operand, short broadcast rows, tiles...), so a first run
compiles only the loops its layouts use. Each class must still give PyTorch's values, the
runner must pick the class the layout is in, and every layout of one class must share
one compiled kernel."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from minitorch.backends import Strided

tuned = pytest.importorskip("minitorch.backends.numba")
from minitorch.backends.numba import elementwise_kernels as ek  # noqa: E402


def operand(array: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...], offset: int = 1) -> Strided:
    """A view of ``array`` (placed at ``offset`` in a larger storage) with these strides."""
    storage = np.zeros(offset + array.size + 2, array.dtype)
    storage[offset : offset + array.size] = array.ravel()
    return Strided(storage, shape, strides, offset)


def as_torch(x: Strided) -> torch.Tensor:
    return torch.as_strided(torch.from_numpy(x.storage), x.shape, x.strides, x.offset)


rng = np.random.default_rng(30)
# (name, class, out shape, a's (data shape, view shape, strides), b's ...)
ZIP_CASES = [
    (
        "3-d contiguous rows",
        ek.CONTIGUOUS_ROWS,
        (2, 3, 4),
        ((2, 4, 8), (2, 3, 4), (32, 8, 1)),
        ((24,), (2, 3, 4), (12, 4, 1)),
    ),
    ("x * 0.5", ek.B_REPEATED, (7,), ((7,), (7,), (1,)), ((1,), (7,), (0,))),
    ("w * x", ek.A_REPEATED, (7,), ((1,), (7,), (0,)), ((7,), (7,), (1,))),
    ("strided 1-d", ek.STRIDED_ROWS, (5,), ((10,), (5,), (2,)), ((5,), (5,), (1,))),
    ("x + bias", ek.SHORT_ROWS, (6, 8), ((48,), (6, 8), (8, 1)), ((8,), (6, 8), (0, 1))),
    ("x * row scale", ek.SHORT_ROWS, (6, 8), ((48,), (6, 8), (8, 1)), ((6,), (6, 8), (1, 0))),
    ("a.T + b", ek.TILES, (40, 33), ((33, 40), (40, 33), (1, 40)), ((40, 33), (40, 33), (33, 1))),
]


@pytest.mark.parametrize("case", ZIP_CASES, ids=[c[0] for c in ZIP_CASES])
@pytest.mark.parametrize("op", ["add", "mul"])
def test_each_zip_layout_class_gives_torchs_values(case, op):
    _, layout_class, shape, (a_data, a_shape, a_strides), (b_data, b_shape, b_strides) = case
    a = operand(rng.standard_normal(a_data), a_shape, a_strides)
    b = operand(rng.standard_normal(b_data), b_shape, b_strides, offset=3)
    out = operand(np.zeros(shape), shape, tuple(int(s) for s in torch.empty(shape).stride()))
    merged_shape, merged_strides, _ = tuned.elementwise_layout(shape, out.strides, a.strides, b.strides)
    assert ek.zip_layout_class(merged_shape, merged_strides) == layout_class
    tuned.zip(op, out, a, b)
    expected = getattr(torch, op)(as_torch(a), as_torch(b))
    torch.testing.assert_close(as_torch(out), expected, rtol=0, atol=0)


# (name, class, a's (data shape, view shape, strides)); out is contiguous
MAP_CASES = [
    ("contiguous", ek.CONTIGUOUS_ROWS, ((9, 12), (9, 12), (12, 1))),
    ("x.T", ek.TILES, ((9, 12), (12, 9), (1, 12))),
    ("every second", ek.STRIDED_ROWS, ((20,), (10,), (2,))),
    ("fill_: one value", ek.A_REPEATED, ((1,), (4, 5, 6), (0, 0, 0))),
    ("a column expanded", ek.A_REPEATED, ((9,), (9, 7), (1, 0))),
    ("3-d, rows of one value", ek.A_REPEATED, ((3, 4), (3, 4, 5), (4, 1, 0))),
]


@pytest.mark.parametrize("case", MAP_CASES, ids=[c[0] for c in MAP_CASES])
@pytest.mark.parametrize("op", ["neg", "copy", "sqrt"])
@pytest.mark.parametrize("parallel", [False, True])
def test_each_map_layout_class_gives_exact_values(case, op, parallel):
    _, layout_class, (a_data, a_shape, a_strides) = case
    data = rng.standard_normal(a_data)
    data.ravel()[0] = np.nan  # a NaN stays in its own elements (sqrt makes more of the negatives)
    a = operand(data, a_shape, a_strides)
    out = operand(np.zeros(a_shape), a_shape, tuple(int(s) for s in torch.empty(a_shape).stride()))
    merged_shape, merged_strides, total = tuned.elementwise_layout(a_shape, out.strides, a.strides)
    assert ek.map_layout_class(merged_shape, merged_strides) == layout_class
    kernel = tuned.MAP_KERNELS[op][layout_class][int(parallel)]
    chunks = 3 if parallel else 1
    kernel(out.storage, a.storage, merged_shape, merged_strides, out.offset, a.offset, total, chunks)
    # NumPy is the oracle: all three are exact in IEEE arithmetic (sqrt correctly rounded),
    # and PyTorch's float64 sqrt on an Intel Xeon was 1 ulp off it for some elements.
    with np.errstate(invalid="ignore"):
        expected = {"neg": np.negative, "copy": np.copy, "sqrt": np.sqrt}[op](as_torch(a).numpy())
    np.testing.assert_array_equal(as_torch(out).numpy(), expected)
    assert out.storage[0] == 0 and (out.storage[out.offset + total :] == 0).all()  # nothing outside out


def test_layouts_of_one_class_share_one_compiled_kernel():
    """Two broadcasts of different shapes and ranks (3-d and 2-d: both merge to rows of
    one repeated value) run the one ``B_REPEATED`` kernel of ``sub``, compiled once."""
    serial = tuned.ZIP_KERNELS["sub"][ek.B_REPEATED][0]
    layouts = [((2, 3, 5), (15, 5, 1), (0, 0, 0)), ((4, 6), (6, 1), (0, 0))]
    compiled = []  # the kernel's compiled signatures after each layout's call
    for shape, strides, b_strides in layouts:
        a = operand(rng.standard_normal(shape), shape, strides)
        b = operand(np.array([1.5]), shape, b_strides)
        out = operand(np.zeros(shape), shape, strides)
        tuned.zip("sub", out, a, b)
        torch.testing.assert_close(as_torch(out), as_torch(a) - 1.5, rtol=0, atol=0)
        compiled.append(list(serial.signatures))
    # (earlier tests in the process may have compiled it for other dtypes: what counts is
    # that the second layout compiled nothing new)
    assert compiled[0] and compiled[1] == compiled[0]


@pytest.mark.parametrize("dim", [0, 1])
def test_reduce_kernels_per_run_class_give_torchs_values(dim):
    """Summing along the contiguous dimension (a run in steps of 1) and across it use
    kernels compiled apart; both agree with torch, and so does max (no identity)."""
    a = operand(rng.standard_normal((50, 40)), (50, 40), (40, 1))
    for op, fn in (("sum", torch.sum), ("max", torch.amax)):
        out_shape = (1, 40) if dim == 0 else (50, 1)
        out = operand(np.zeros(out_shape), out_shape, (out_shape[1], 1))
        tuned.reduce(op, out, a, dim)
        torch.testing.assert_close(as_torch(out), fn(as_torch(a), dim=dim, keepdim=True))
    assert set(tuned.REDUCE_KERNELS["sum"].pairs) >= {dim == 1}
