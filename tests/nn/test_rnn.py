"""``RNN``, ``LSTM``, ``GRU`` and their cells against PyTorch: the same seed gives the same
parameters (names, order, values bit for bit), and with the same weights the outputs,
final states and every gradient agree, batch first or not, bidirectional, stacked,
unbatched, packed, float32 and float64."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import minitorch as mt
from tests.nn.dropout_streams import same_dropout_masks
from tests.nn.twins import assert_close, copy_weights

LAYERS = {"RNN": (mt.nn.RNN, torch.nn.RNN), "LSTM": (mt.nn.LSTM, torch.nn.LSTM),
          "GRU": (mt.nn.GRU, torch.nn.GRU)}  # fmt: skip
CELLS = {"RNNCell": (mt.nn.RNNCell, torch.nn.RNNCell), "LSTMCell": (mt.nn.LSTMCell, torch.nn.LSTMCell),
         "GRUCell": (mt.nn.GRUCell, torch.nn.GRUCell)}  # fmt: skip


def flat(result: Any) -> list:
    """The tensors of ``output, h_n`` / ``output, (h_n, c_n)`` / a PackedSequence, in order."""
    if isinstance(result, (tuple, list)):
        if hasattr(result, "batch_sizes"):
            return [result.data]
        return [t for part in result for t in flat(part)]
    return [result]


def compare(
    ours: Any, theirs: Any, inputs: list[np.ndarray], call: Any = None, tol: float | None = None
) -> None:
    """Same weights; then forward values and the gradients of inputs and parameters."""
    copy_weights(ours, theirs)
    call = call or (lambda module, *xs: module(*xs))
    mine = [mt.tensor(a.copy(), requires_grad=True) for a in inputs]
    reference = [torch.tensor(a.copy(), requires_grad=True) for a in inputs]
    got, expected = flat(call(ours, *mine)), flat(call(theirs, *reference))
    assert len(got) == len(expected)
    rng = np.random.default_rng(1)
    total_mine, total_ref = 0, 0
    for g, e in zip(got, expected):
        assert_close(g, e, tol, "forward")
        upstream = rng.standard_normal(tuple(e.shape)).astype(e.detach().numpy().dtype)
        total_mine = total_mine + (g * mt.tensor(upstream)).sum()
        total_ref = total_ref + (e * torch.tensor(upstream)).sum()
    total_mine.backward()
    total_ref.backward()
    for name, param in theirs.named_parameters():
        assert_close(dict(ours.named_parameters())[name].grad, param.grad, tol, f"grad of {name}")
    for m, r in zip(mine, reference):
        assert_close(m.grad, r.grad, tol, "grad of an input")


@pytest.mark.parametrize("kind", sorted(LAYERS) + sorted(CELLS))
def test_same_seed_gives_pytorchs_parameters(kind: str) -> None:
    ours, theirs = {**LAYERS, **CELLS}[kind]
    kwargs = {"num_layers": 2, "bidirectional": True} if kind in LAYERS else {}
    for seed in (0, 7):
        mt.manual_seed(seed)
        torch.manual_seed(seed)
        a, b = ours(3, 5, **kwargs), theirs(3, 5, **kwargs)
        names = [n for n, _ in a.named_parameters()]
        assert names == [n for n, _ in b.named_parameters()]
        for (name, mine), (_, ref) in zip(a.named_parameters(), b.named_parameters()):
            assert np.array_equal(mine.detach().numpy(), ref.detach().numpy()), name


def test_all_weights_and_flatten_parameters() -> None:
    options = {"num_layers": 2, "bidirectional": True}
    layer, reference = mt.nn.GRU(3, 4, **options), torch.nn.GRU(3, 4, **options)
    layer.flatten_parameters()  # PyTorch code calls it for cuDNN; here it changes nothing
    assert [[tuple(p.shape) for p in cell] for cell in layer.all_weights] == [
        [tuple(p.shape) for p in cell] for cell in reference.all_weights
    ]


def test_lstm_projection_names_and_seed() -> None:
    mt.manual_seed(2)
    torch.manual_seed(2)
    a, b = (
        mt.nn.LSTM(3, 5, proj_size=2, bidirectional=True),
        torch.nn.LSTM(3, 5, proj_size=2, bidirectional=True),
    )
    assert [n for n, _ in a.named_parameters()] == [n for n, _ in b.named_parameters()]
    for mine, ref in zip(a.parameters(), b.parameters()):
        assert mine.shape == ref.shape
        assert np.array_equal(mine.detach().numpy(), ref.detach().numpy())


@pytest.mark.parametrize("kind", sorted(LAYERS))
@pytest.mark.parametrize("options", [
    {},
    {"batch_first": True, "num_layers": 2},
    {"bidirectional": True},
    {"bidirectional": True, "num_layers": 2, "batch_first": True, "bias": False},
])  # fmt: skip
def test_layer_matches_pytorch(kind: str, options: dict) -> None:
    ours, theirs = LAYERS[kind]
    a, b = ours(3, 4, **options), theirs(3, 4, **options)
    shape = (2, 5, 3) if options.get("batch_first") else (5, 2, 3)
    compare(a, b, [np.random.default_rng(0).standard_normal(shape).astype(np.float32)])


@pytest.mark.parametrize("kind", sorted(LAYERS))
def test_given_initial_state_and_float64(kind: str) -> None:
    ours, theirs = LAYERS[kind]
    a = ours(3, 4, num_layers=2, bidirectional=True, dtype=mt.float64)
    b = theirs(3, 4, num_layers=2, bidirectional=True, dtype=torch.float64)
    rng = np.random.default_rng(2)
    x, h, c = rng.standard_normal((4, 2, 3)), rng.standard_normal((4, 2, 4)), rng.standard_normal((4, 2, 4))
    if kind == "LSTM":
        compare(a, b, [x, h, c], call=lambda m, x, h, c: m(x, (h, c)))
    else:
        compare(a, b, [x, h], call=lambda m, x, h: m(x, h))


@pytest.mark.parametrize("kind", sorted(LAYERS))
def test_unbatched_input(kind: str) -> None:
    ours, theirs = LAYERS[kind]
    compare(ours(3, 4, bidirectional=True), theirs(3, 4, bidirectional=True),
            [np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)])  # fmt: skip


def test_rnn_relu_and_lstm_projection() -> None:
    x = [np.random.default_rng(4).standard_normal((5, 2, 3)).astype(np.float32)]
    compare(
        mt.nn.RNN(3, 4, nonlinearity="relu", num_layers=2),
        torch.nn.RNN(3, 4, nonlinearity="relu", num_layers=2),
        x,
    )
    compare(mt.nn.LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True),
            torch.nn.LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True), x)  # fmt: skip


def test_dropout_between_layers_is_off_in_eval() -> None:
    a, b = mt.nn.GRU(3, 4, num_layers=3, dropout=0.5), torch.nn.GRU(3, 4, num_layers=3, dropout=0.5)
    a.eval()
    b.eval()
    compare(a, b, [np.random.default_rng(5).standard_normal((4, 2, 3)).astype(np.float32)])


@same_dropout_masks
@pytest.mark.parametrize("kind", sorted(LAYERS))
def test_dropout_between_layers_draws_pytorchs_masks(kind: str) -> None:
    ours, theirs = LAYERS[kind]
    a, b = ours(3, 4, num_layers=3, dropout=0.5), theirs(3, 4, num_layers=3, dropout=0.5)
    x = np.random.default_rng(5).standard_normal((4, 2, 3)).astype(np.float32)

    def seeded(module: Any, x: Any) -> Any:
        (mt if isinstance(module, mt.nn.Module) else torch).manual_seed(8)
        return module(x)

    compare(a, b, [x], call=seeded)


@same_dropout_masks
@pytest.mark.parametrize("kind", sorted(LAYERS))
def test_dropout_of_a_packed_batch_draws_pytorchs_masks(kind: str) -> None:
    ours, theirs = LAYERS[kind]
    a, b = ours(3, 4, num_layers=2, dropout=0.5), theirs(3, 4, num_layers=2, dropout=0.5)
    x = np.random.default_rng(6).standard_normal((5, 3, 3)).astype(np.float32)

    def seeded(module: Any, x: Any) -> Any:
        library = mt if isinstance(module, mt.nn.Module) else torch
        library.manual_seed(9)
        return module(library.nn.utils.rnn.pack_padded_sequence(x, [3, 5, 2], enforce_sorted=False))

    compare(a, b, [x], call=seeded)


def test_dropout_between_layers_changes_training_output() -> None:
    layer = mt.nn.LSTM(3, 4, num_layers=2, dropout=0.9)
    x = mt.randn(5, 2, 3)
    train_out = layer(x)[0]
    layer.eval()
    assert not mt.allclose(train_out, layer(x)[0])


@pytest.mark.parametrize("kind", sorted(LAYERS))
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequence_runs_each_sequence_over_its_length(kind: str, enforce_sorted: bool) -> None:
    ours, theirs = LAYERS[kind]
    lengths = [5, 3, 2] if enforce_sorted else [3, 5, 2]

    def call(module: Any, x: Any) -> Any:
        utils = mt.nn.utils.rnn if isinstance(x, mt.Tensor) else torch.nn.utils.rnn
        packed = utils.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=enforce_sorted)
        output, state = module(packed)
        padded, got_lengths = utils.pad_packed_sequence(output, batch_first=True)
        assert got_lengths.tolist() == lengths
        return output, padded, state

    options = {"bidirectional": True, "batch_first": True}
    x = np.random.default_rng(6).standard_normal((3, 5, 3)).astype(np.float32)
    compare(ours(3, 4, **options), theirs(3, 4, **options), [x], call=call)


@pytest.mark.parametrize("kind", sorted(CELLS))
@pytest.mark.parametrize("batched", [True, False])
def test_cell_matches_pytorch(kind: str, batched: bool) -> None:
    ours, theirs = CELLS[kind]
    rng = np.random.default_rng(7)
    shape = (2, 3) if batched else (3,)
    x, h, c = (rng.standard_normal(shape).astype(np.float32),
               rng.standard_normal(shape[:-1] + (4,)).astype(np.float32),
               rng.standard_normal(shape[:-1] + (4,)).astype(np.float32))  # fmt: skip
    compare(ours(3, 4), theirs(3, 4), [x])
    if kind == "LSTMCell":
        compare(
            ours(3, 4, bias=False), theirs(3, 4, bias=False), [x, h, c], call=lambda m, x, h, c: m(x, (h, c))
        )
    else:
        compare(ours(3, 4, bias=False), theirs(3, 4, bias=False), [x, h])


def test_rnn_cell_relu() -> None:
    compare(mt.nn.RNNCell(3, 4, nonlinearity="relu"), torch.nn.RNNCell(3, 4, nonlinearity="relu"),
            [np.random.default_rng(8).standard_normal((2, 3)).astype(np.float32)])  # fmt: skip


def test_pad_sequence_matches_pytorch() -> None:
    rng = np.random.default_rng(9)
    arrays = [rng.standard_normal((n, 2)).astype(np.float32) for n in (2, 4, 1)]
    for batch_first in (False, True):
        for side in ("left", "right"):
            got = mt.nn.utils.rnn.pad_sequence([mt.tensor(a) for a in arrays], batch_first, -1.0, side)
            expected = torch.nn.utils.rnn.pad_sequence(
                [torch.tensor(a) for a in arrays], batch_first, -1.0, side
            )
            assert_close(got, expected)
    packed = mt.nn.utils.rnn.pack_sequence([mt.tensor(a) for a in arrays], enforce_sorted=False)
    reference = torch.nn.utils.rnn.pack_sequence([torch.tensor(a) for a in arrays], enforce_sorted=False)
    assert_close(packed.data, reference.data)
    assert packed.batch_sizes.tolist() == reference.batch_sizes.tolist()
    assert packed.sorted_indices.tolist() == reference.sorted_indices.tolist()
    for mine, ref in zip(
        mt.nn.utils.rnn.unpack_sequence(packed), torch.nn.utils.rnn.unpack_sequence(reference)
    ):
        assert_close(mine, ref)
    as_double = packed.double()
    assert as_double.data.dtype == mt.float64 and as_double.batch_sizes is packed.batch_sizes
    assert as_double.float().data.dtype == mt.float32 and not packed.cpu().is_cuda


def test_bad_arguments_raise_pytorchs_errors() -> None:
    with pytest.raises(ValueError, match="nonlinearity"):
        mt.nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="proj_size"):
        mt.nn.RNNBase("GRU", 3, 4, proj_size=2)
    with pytest.raises(ValueError, match="proj_size"):
        mt.nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="dropout"):
        mt.nn.LSTM(3, 4, dropout=1.5)
    with pytest.raises(TypeError):
        mt.nn.LSTM(3, "4")
    with pytest.warns(UserWarning, match="num_layers"):
        mt.nn.GRU(3, 4, dropout=0.5)
    layer = mt.nn.LSTM(3, 4)
    with pytest.raises(ValueError, match="2D or 3D"):
        layer(mt.randn(1, 2, 3, 4))
    with pytest.raises(RuntimeError, match="input_size"):
        layer(mt.randn(5, 2, 2))
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        layer(mt.randn(5, 2, 3), (mt.randn(2, 2, 4), mt.randn(2, 2, 4)))
    with pytest.raises(TypeError):
        layer(None)
    with pytest.raises(ValueError, match="1D or 2D"):
        mt.nn.GRUCell(3, 4)(mt.randn(1, 2, 3))
    with pytest.raises(RuntimeError, match="lengths"):
        mt.nn.utils.rnn.pack_padded_sequence(mt.randn(5, 2, 3), [2, 5])
    with pytest.raises(RuntimeError, match="iterable"):  # PyTorch's type here
        mt.nn.utils.rnn.pad_sequence(None)
    with pytest.raises(TypeError):
        mt.nn.utils.rnn.pad_sequence([mt.ones(2), "x"])
    with pytest.raises(TypeError):
        mt.nn.utils.rnn.pack_padded_sequence(None, [1])
