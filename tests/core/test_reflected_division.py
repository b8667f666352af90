"""``number / tensor`` as PyTorch computes it: ``tensor.reciprocal() * number``, two
roundings rather than one division, so the printed digits are PyTorch's to the last bit
(a plain division differs in float32 for about a quarter of the values)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch as mt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("number", [2.7, 1, -0.1, 3])
def test_a_number_divided_by_a_tensor_is_pytorchs_bit_for_bit(dtype, number) -> None:
    values = np.random.default_rng(0).standard_normal((300, 7)).astype(dtype)
    ours = number / mt.tensor(values).t()
    theirs = number / torch.tensor(values).t()
    assert ours.dtype == getattr(mt, dtype)
    assert np.array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("values", [[3, 4, 0], [True, False]])
def test_a_number_divided_by_an_integer_or_bool_tensor_is_a_float(values) -> None:
    ours, theirs = 1 / mt.tensor(values), 1 / torch.tensor(values)
    assert str(ours.dtype) == str(theirs.dtype)
    assert np.array_equal(ours.numpy(), theirs.numpy())


def test_its_gradient_is_pytorchs() -> None:
    ours = mt.tensor([2.0, -4.0, 0.5], requires_grad=True)
    theirs = torch.tensor([2.0, -4.0, 0.5], requires_grad=True)
    (3 / ours).sum().backward()
    (3 / theirs).sum().backward()
    assert np.array_equal(ours.grad.numpy(), theirs.grad.numpy())


def test_an_unknown_operand_is_left_to_python() -> None:
    with pytest.raises(TypeError):
        "a" / mt.tensor([1.0])
