"""``conv3d`` and ``nn.Conv3d`` against PyTorch: values and the gradients of the input,
the weight and the bias, for strides, paddings (``'same'`` with an even kernel too),
dilations and groups, on non-contiguous and unbatched inputs; and PyTorch's exception
for each bad argument, raised before anything runs."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F  # noqa: N812 - PyTorch's spelling

CASES = [  # (in channels, out channels, kernel, stride, padding, dilation, groups)
    (2, 3, 2, 1, 0, 1, 1),
    (2, 4, (2, 3, 1), (1, 2, 1), (1, 0, 1), (2, 1, 1), 2),
    (3, 3, 3, 2, 1, 1, 3),  # depthwise
    (2, 2, (2, 2, 3), 1, "same", (1, 2, 1), 1),  # an even kernel: the odd cell at the end
    (2, 2, 3, 1, "valid", 1, 1),
]


def _pair(shape: tuple, seed: int) -> tuple[torch.Tensor, minitorch.Tensor]:
    array = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(array, requires_grad=True), minitorch.tensor(array, requires_grad=True)


@pytest.mark.parametrize(("cin", "cout", "kernel", "stride", "padding", "dilation", "groups"), CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_conv3d_matches_pytorch(cin, cout, kernel, stride, padding, dilation, groups, bias):
    k = kernel if isinstance(kernel, tuple) else (kernel,) * 3
    tx, mx = _pair((2, cin, 5, 6, 4), 1)
    tw, mw = _pair((cout, cin // groups, *k), 2)
    tb, mb = _pair((cout,), 3) if bias else (None, None)
    args = (stride, padding, dilation, groups)
    expected = torch.nn.functional.conv3d(tx, tw, tb, *args)
    got = F.conv3d(mx, mw, mb, *args)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-10)
    weight = np.random.default_rng(4).standard_normal(tuple(expected.shape))
    (expected * torch.tensor(weight)).sum().backward()
    (got * minitorch.tensor(weight)).sum().backward()
    for mine, theirs in ((mx, tx), (mw, tw)) + (((mb, tb),) if bias else ()):
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_conv3d_reads_non_contiguous_and_unbatched_inputs():
    array = np.random.default_rng(5).standard_normal((4, 5, 2, 6))  # [W, D, C, H] in memory
    weight = np.random.default_rng(6).standard_normal((3, 2, 2, 2, 2))
    t = torch.tensor(array).permute(2, 1, 3, 0)  # [C, D, H, W], strided
    m = minitorch.tensor(array).permute(2, 1, 3, 0)
    assert not m.is_contiguous()
    expected = torch.nn.functional.conv3d(t, torch.tensor(weight), stride=(2, 1, 1))
    got = F.conv3d(m, minitorch.tensor(weight), stride=(2, 1, 1))
    assert tuple(got.shape) == tuple(expected.shape) == (3, 2, 5, 3)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-10, atol=1e-10)
    # a stepped slice of a batch: every stride of the view differs from the contiguous one
    big = np.random.default_rng(7).standard_normal((3, 2, 8, 6, 10))
    t = torch.tensor(big)[::2, :, 1::2, :, ::3]
    m = minitorch.tensor(big)[::2, :, 1::2, :, ::3]
    expected = torch.nn.functional.conv3d(t, torch.tensor(weight), padding=1)
    np.testing.assert_allclose(F.conv3d(m, minitorch.tensor(weight), padding=1).numpy(), expected.numpy(),
                               rtol=1e-10, atol=1e-10)  # fmt: skip


@pytest.mark.parametrize("padding_mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv3d_layer_matches_pytorch(padding_mode):
    layer = minitorch.nn.Conv3d(2, 4, (3, 2, 3), stride=(1, 2, 1), padding=(1, 1, 1), groups=2,
                                padding_mode=padding_mode, dtype=minitorch.float64)  # fmt: skip
    reference = torch.nn.Conv3d(2, 4, (3, 2, 3), stride=(1, 2, 1), padding=(1, 1, 1), groups=2,
                                padding_mode=padding_mode, dtype=torch.float64)  # fmt: skip
    assert tuple(layer.weight.shape) == tuple(reference.weight.shape) == (4, 1, 3, 2, 3)
    with torch.no_grad():
        reference.weight.copy_(torch.tensor(layer.weight.detach().numpy()))
        reference.bias.copy_(torch.tensor(layer.bias.detach().numpy()))
    tx, mx = _pair((2, 2, 4, 5, 4), 8)
    expected, got = reference(tx), layer(mx)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-10)
    expected.square().sum().backward()
    got.square().sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(layer.weight.grad.numpy(), reference.weight.grad.numpy(), rtol=1e-9, atol=1e-9)
    assert repr(layer).startswith("Conv3d(2, 4, kernel_size=(3, 2, 3), stride=(1, 2, 1)")
    # PyTorch's default initialisation bounds: kaiming-uniform with a = sqrt(5), fan_in = 1*3*2*3
    assert float(layer.weight.abs().max()) <= 1 / np.sqrt(18)


IMAGE = np.ones((1, 2, 4, 4, 4))
WEIGHT = np.ones((3, 2, 2, 2, 2))
BAD = [
    ({"stride": 0}, None),
    ({"stride": -1}, None),
    ({"padding": -1}, None),
    ({"dilation": 0}, None),
    ({"stride": (1, 1)}, None),  # two values for three dimensions
    ({"groups": 0}, None),
    ({"padding": "same", "stride": 2}, None),
    ({"padding": "full"}, None),
    ({}, np.ones((3, 2, 5, 5, 5))),  # a kernel larger than the input
    ({}, np.ones((3, 3, 2, 2, 2))),  # channels that do not match
    ({}, np.ones((3, 2, 2, 2))),  # a 4-D weight
]


@pytest.mark.parametrize(("kwargs", "weight"), BAD)
def test_conv3d_refuses_what_pytorch_refuses(kwargs, weight):
    weight = WEIGHT if weight is None else weight
    with pytest.raises(Exception) as expected:
        torch.nn.functional.conv3d(torch.tensor(IMAGE), torch.tensor(weight), **kwargs)
    with pytest.raises(expected.type):
        F.conv3d(minitorch.tensor(IMAGE), minitorch.tensor(weight), **kwargs)


@pytest.mark.parametrize("shape", [(4, 4, 4), (1, 1, 2, 4, 4, 4)])
def test_conv3d_refuses_other_ranks(shape):
    with pytest.raises(RuntimeError):
        torch.nn.functional.conv3d(torch.ones(shape, dtype=torch.float64), torch.tensor(WEIGHT))
    with pytest.raises(RuntimeError, match="conv3d"):
        F.conv3d(minitorch.ones(shape, dtype=minitorch.float64), minitorch.tensor(WEIGHT))
    with pytest.raises(RuntimeError):
        minitorch.nn.Conv3d(2, 3, 2)(minitorch.ones(shape))
