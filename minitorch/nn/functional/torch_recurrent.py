"""``torch.rnn_tanh``, ``torch.rnn_relu``, ``torch.lstm``, ``torch.gru``: a whole
recurrent network as one function of a flat list of weights (the ATen operators that
``nn.RNN``, ``nn.LSTM`` and ``nn.GRU`` call in PyTorch).

``params`` holds, for each layer and then each direction (forward, then reverse),
``w_ih, w_hh`` and, when ``has_biases``, ``b_ih, b_hh``: the order of a PyTorch
layer's ``_flat_weights``. Layer ``l`` reads the outputs of layer ``l - 1`` (both
directions concatenated), with dropout between layers while ``train``. The steps are
the cells of ``minitorch/nn/rnn_cells.py``::

    for each layer, for each direction:
        x_parts = x W_ih^T + b_ih              (every time step at once)
        for t in time (reversed for the reverse direction):
            h = step(x_parts[t], h, W_hh, b_hh)

Every step is built from public ops, so autograd runs backpropagation through time.
PyTorch's second form of these operators, for a packed sequence (``data, batch_sizes``),
is refused: pass a ``PackedSequence`` to ``nn.LSTM`` and friends instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from minitorch._tensor import Tensor
from minitorch.functional import stack
from minitorch.nn import functional as F
from minitorch.nn.rnn_cells import gru_step, lstm_step, rnn_step
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import cat

__all__ = ["gru", "lstm", "rnn_relu", "rnn_tanh"]


def _refuse_packed(name: str, layer: str) -> None:
    """The packed overload, ``(data, batch_sizes, hx, params, ...)``, is told apart by a
    tensor where the other has a list (``params``; ``hx`` for an LSTM)."""
    raise NotImplementedError(f"torch.{name} of a packed sequence (data, batch_sizes, ...) is not "
                              f"supported by minitorch; give nn.{layer} a PackedSequence instead "
                              "(see docs/api-coverage.md)")  # fmt: skip


def _run(name: str, input: Tensor, states: list[Tensor], params: Sequence[Tensor],  # noqa: A002
         has_biases: bool, num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple[Tensor, list[Tensor]]:  # fmt: skip
    """The loop above; ``states`` are ``[layers * directions, N, H]`` tensors
    (``h``, and ``c`` for an LSTM). Returns the last layer's outputs and the final states."""
    require_tensor(name, input)
    directions = 2 if bidirectional else 1
    per_cell = 4 if has_biases else 2
    if len(params) != num_layers * directions * per_cell:
        raise RuntimeError(f"{name}: expected {num_layers * directions * per_cell} weights for {num_layers} "
                           f"layer(s), {directions} direction(s) and has_biases={has_biases}, got "
                           f"{len(params)} (projections, proj_size, are not supported)")  # fmt: skip
    unbatched = input.ndim == 2
    if unbatched:
        input, states = input.unsqueeze(1), [s.unsqueeze(1) for s in states]
    elif batch_first:
        input = input.transpose(0, 1)
    output, finals = input, [[] for _ in states]
    for layer in range(num_layers):
        if layer > 0 and dropout > 0:
            output = F.dropout(output, dropout, train)
        results = []
        for direction in range(directions):
            cell = layer * directions + direction
            w_ih, w_hh, *biases = params[cell * per_cell : (cell + 1) * per_cell]
            b_ih, b_hh = biases if has_biases else (None, None)
            state = [s[cell] for s in states]
            x_parts = F.linear(output, w_ih, b_ih)
            steps = range(output.shape[0] - 1, -1, -1) if direction else range(output.shape[0])
            outputs: list[Tensor] = [None] * output.shape[0]  # type: ignore[list-item]
            for t in steps:
                if name == "lstm":
                    state = list(lstm_step(x_parts[t], state[0], state[1], w_hh, b_hh))
                elif name == "gru":
                    state = [gru_step(x_parts[t], state[0], w_hh, b_hh)]
                else:
                    state = [rnn_step(x_parts[t], state[0], w_hh, b_hh, relu=name == "rnn_relu")]
                outputs[t] = state[0]
            results.append(stack(outputs))
            for kept, final in zip(finals, state):
                kept.append(final)
        output = results[0] if directions == 1 else cat(results, -1)
    final_states = [stack(kept) for kept in finals]
    if unbatched:
        output, final_states = output.squeeze(1), [s.squeeze(1) for s in final_states]
    elif batch_first:
        output = output.transpose(0, 1)
    return output, final_states


def rnn_tanh(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool, num_layers: int,  # noqa: A002
             dropout: float, train: bool, bidirectional: bool,
             batch_first: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``(output, h_n)`` of an Elman network with ``tanh``, as ``nn.RNN`` computes it."""
    if not isinstance(params, (list, tuple)):
        _refuse_packed("rnn_tanh", "RNN")
    output, (h,) = _run("rnn_tanh", input, [hx], params, has_biases, num_layers, dropout, train,
                        bidirectional, batch_first)  # fmt: skip
    return output, h


def rnn_relu(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool, num_layers: int,  # noqa: A002
             dropout: float, train: bool, bidirectional: bool,
             batch_first: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``(output, h_n)`` of an Elman network with ``relu``."""
    if not isinstance(params, (list, tuple)):
        _refuse_packed("rnn_relu", "RNN")
    output, (h,) = _run("rnn_relu", input, [hx], params, has_biases, num_layers, dropout, train,
                        bidirectional, batch_first)  # fmt: skip
    return output, h


def gru(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool, num_layers: int,  # noqa: A002
        dropout: float, train: bool, bidirectional: bool,
        batch_first: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``(output, h_n)`` of a GRU, as ``nn.GRU`` computes it."""
    if not isinstance(params, (list, tuple)):
        _refuse_packed("gru", "GRU")
    output, (h,) = _run("gru", input, [hx], params, has_biases, num_layers, dropout, train,
                        bidirectional, batch_first)  # fmt: skip
    return output, h


def lstm(input: Tensor, hx: Sequence[Tensor], params: Sequence[Tensor], has_biases: bool,  # noqa: A002
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """``(output, h_n, c_n)`` of an LSTM from ``hx = (h_0, c_0)``, as ``nn.LSTM`` computes it."""
    if isinstance(hx, Tensor):  # the packed form: (data, batch_sizes, hx, params, ...)
        _refuse_packed("lstm", "LSTM")
    if len(hx) != 2:
        raise RuntimeError(f"lstm: Expected hx to hold 2 tensors (h_0, c_0), got {len(hx)}")
    output, (h, c) = _run("lstm", input, list(hx), params, has_biases, num_layers, dropout, train,
                          bidirectional, batch_first)  # fmt: skip
    return output, h, c
