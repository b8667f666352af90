"""An elementwise result keeps the memory order of a dense permuted input, as in PyTorch
(``x.t().exp()`` is transposed too), so its kernel walks input and output in the same
order. The oracle is PyTorch's strides, and its values."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch

CASES = {
    "transposed unary": lambda lib, a, b: a.t().exp(),
    "both transposed": lambda lib, a, b: a.t() + b.t(),
    "transposed and a number": lambda lib, a, b: a.t() * 2,
    "transposed first, contiguous second": lambda lib, a, b: a.t() + b.t().contiguous(),
    "contiguous first, transposed second": lambda lib, a, b: b.t().contiguous() + a.t(),
    "broadcast first, transposed second": lambda lib, a, b: a[0] - b.t().t(),
    "permuted 3-d": lambda lib, a, b: a.reshape(2, 3, 4).permute(2, 0, 1).sin(),
    "sliced (gaps): contiguous result": lambda lib, a, b: a[:, ::2].t() + 1,
    "comparison": lambda lib, a, b: a.t() > b.t(),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_strides_and_values_follow_pytorch(case):
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal((6, 4)).astype(np.float32)
    b_np = rng.standard_normal((6, 4)).astype(np.float32)
    ours = CASES[case](minitorch, minitorch.tensor(a_np), minitorch.tensor(b_np))
    theirs = CASES[case](torch, torch.tensor(a_np), torch.tensor(b_np))
    assert ours.stride() == theirs.stride()
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_a_transposed_result_still_reshapes_and_backpropagates():
    a = minitorch.randn(3, 4, requires_grad=True)
    y = (a.t() * 2).exp()
    assert not y.is_contiguous()
    y.reshape(-1).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), (2 * (a.detach() * 2).exp()).numpy(), rtol=1e-6)
