"""The recurrent and attention layers on device "cuda" (the CPU emulator of the CUDA
kernels): the same weights and inputs give the CPU's outputs and gradients, packed
sequences included (their lengths and indices stay on the CPU, as in PyTorch)."""

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


def run_both(module: mt.nn.Module, call) -> None:
    """``call(module, device)`` on the CPU and on "cuda" (a copy of the same module)."""
    on_gpu = copy.deepcopy(module).to("cuda")
    expected, got = call(module, "cpu"), call(on_gpu, "cuda")
    assert got.device.type == "cuda"
    np.testing.assert_allclose(got.cpu().detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-5)
    expected.sum().backward()
    got.sum().backward()
    for (name, mine), (_, ref) in zip(on_gpu.named_parameters(), module.named_parameters()):
        np.testing.assert_allclose(mine.grad.cpu().numpy(), ref.grad.numpy(), 1e-4, 1e-5, err_msg=name)


X = np.random.default_rng(0).standard_normal((2, 4, 3)).astype(np.float32)


def test_packed_bidirectional_lstm() -> None:
    def call(module, device):
        x = mt.tensor(X, device=device)
        packed = mt.nn.utils.rnn.pack_padded_sequence(x, [2, 4], batch_first=True, enforce_sorted=False)
        output, (h_n, _) = module(packed)
        padded, _ = mt.nn.utils.rnn.pad_packed_sequence(output, batch_first=True)
        return padded.sum() + h_n.sum()

    run_both(mt.nn.LSTM(3, 2, bidirectional=True, batch_first=True), call)


def test_gru_with_initial_state() -> None:
    def call(module, device):
        return module(mt.tensor(X, device=device), mt.ones(2, 4, 2, device=device))[0]

    run_both(mt.nn.GRU(3, 2, num_layers=2), call)


def test_causal_encoder_layer() -> None:
    def call(module, device):
        mask = mt.nn.Transformer.generate_square_subsequent_mask(4, device=device)
        return module(mt.tensor(np.tile(X, 2), device=device), src_mask=mask, is_causal=True)

    run_both(mt.nn.TransformerEncoderLayer(6, 2, 8, batch_first=True).eval(), call)
