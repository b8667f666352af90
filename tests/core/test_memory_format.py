"""Memory formats (``contiguous_format``, ``channels_last``...) as PyTorch takes them:
``to``, ``float`` and the other conversions, ``contiguous`` and ``clone`` lay the copy out
in the format asked for (strides equal to PyTorch's), keep the values, and differentiate."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import torch

import minitorch


def pair(shape, permutation=None):
    array = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x, t = minitorch.tensor(array), torch.tensor(array)
    if permutation:
        x, t = x.permute(*permutation), t.permute(*permutation)
    return x, t


@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last", "preserve_format"])
@pytest.mark.parametrize("call", ["float", "double", "long", "half", "contiguous", "clone", "to"])
@pytest.mark.parametrize("permutation", [None, (0, 2, 3, 1)])
def test_conversions_lay_the_copy_out_as_pytorch(fmt, call, permutation):
    if call == "contiguous" and fmt == "preserve_format":
        pytest.skip("PyTorch refuses contiguous(memory_format=preserve_format)")
    shape = (2, 4, 5, 3) if permutation else (2, 3, 4, 5)
    x, t = pair(shape, permutation)
    got = getattr(x, call)(memory_format=getattr(minitorch, fmt))
    expected = getattr(t, call)(memory_format=getattr(torch, fmt))
    assert got.shape == expected.shape and str(got.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(got.float().numpy(), expected.float().numpy())
    if fmt != "preserve_format" or call == "clone":
        assert got.stride() == expected.stride()


def test_a_tensor_already_in_the_format_is_returned_itself():
    x, _ = pair((2, 3, 4, 5))
    assert x.contiguous(memory_format=minitorch.contiguous_format) is x
    assert x.float(memory_format=minitorch.contiguous_format) is x
    last = x.contiguous(memory_format=minitorch.channels_last)
    assert last.contiguous(memory_format=minitorch.channels_last) is last
    assert last.to(memory_format=minitorch.channels_last) is last


def test_the_gradient_flows_through_a_change_of_format():
    x = minitorch.randn(2, 3, 4, 5, requires_grad=True)
    weight = minitorch.randn(2, 3, 4, 5)
    (x.contiguous(memory_format=minitorch.channels_last) * weight).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), weight.numpy())


def test_bad_formats_are_pytorchs_errors():
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        minitorch.randn(3).contiguous(memory_format=minitorch.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5 tensor"):
        minitorch.randn(2, 3, 4, 5).to(memory_format=minitorch.channels_last_3d)
    with pytest.raises(TypeError, match="memory_format"):
        minitorch.randn(2).float(memory_format="channels_last")
    with pytest.raises(TypeError):
        minitorch.randn(2).float(minitorch.contiguous_format)  # keyword-only, as in PyTorch


def test_formats_print_pickle_and_copy_as_pytorchs():
    for name in ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d"):
        fmt = getattr(minitorch, name)
        assert repr(fmt) == repr(getattr(torch, name)) == f"torch.{name}"
        assert pickle.loads(pickle.dumps(fmt)) is fmt and copy.deepcopy(fmt) is fmt
        assert isinstance(fmt, minitorch.memory_format)
