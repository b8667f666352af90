"""The grouped and transposed convolutions, group norm, bilinear upsampling and
EmbeddingBag on device "cuda" (the CPU emulator of the CUDA backend): the CPU's outputs
and parameter gradients, since each is composed of ops that every backend has."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minitorch as mt
from minitorch.backends import cuda, cuda_emulator


@pytest.fixture(scope="module", autouse=True)
def _emulated():
    if not cuda_emulator.is_available():
        pytest.skip(cuda_emulator.unavailable_reason())
    with cuda.emulated():
        yield


IMAGE = np.random.default_rng(0).standard_normal((2, 4, 5, 6)).astype(np.float32)

LAYERS = {
    "grouped conv, reflect": lambda: mt.nn.Conv2d(4, 6, 3, padding=1, groups=2, padding_mode="reflect"),
    "transposed conv": lambda: mt.nn.ConvTranspose2d(
        4, 2, 3, stride=2, padding=1, output_padding=1, groups=2
    ),
    "group norm, upsample": lambda: mt.nn.Sequential(
        mt.nn.GroupNorm(2, 4), mt.nn.Upsample(scale_factor=1.5, mode="bilinear"), mt.nn.Hardswish()
    ),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_on_cuda_matches_cpu(name):
    module = LAYERS[name]()
    on_gpu = copy.deepcopy(module).to("cuda")
    expected, got = module(mt.tensor(IMAGE)), on_gpu(mt.tensor(IMAGE, device="cuda"))
    assert got.device.type == "cuda"
    np.testing.assert_allclose(got.cpu().detach().numpy(), expected.detach().numpy(), 1e-5, 1e-5)
    (expected * expected).sum().backward(), (got * got).sum().backward()
    for (key, mine), (_, ref) in zip(on_gpu.named_parameters(), module.named_parameters()):
        np.testing.assert_allclose(mine.grad.cpu().numpy(), ref.grad.numpy(), 1e-4, 1e-4, err_msg=key)


def test_embedding_bag_on_cuda_matches_cpu():
    bag = mt.nn.EmbeddingBag(10, 3, mode="max")
    on_gpu = copy.deepcopy(bag).to("cuda")
    indices, offsets = [4, 2, 2, 7, 0, 9], [0, 2, 2]
    expected = bag(mt.tensor(indices), mt.tensor(offsets))
    got = on_gpu(mt.tensor(indices, device="cuda"), mt.tensor(offsets, device="cuda"))
    np.testing.assert_allclose(got.cpu().detach().numpy(), expected.detach().numpy())
    expected.sum().backward(), got.sum().backward()
    np.testing.assert_allclose(on_gpu.weight.grad.cpu().numpy(), bag.weight.grad.numpy())
