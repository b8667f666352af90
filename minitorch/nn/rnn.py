"""Recurrent layers: ``RNN``, ``LSTM`` and ``GRU``, PyTorch's names and shapes.

A layer runs one cell step (``minitorch/nn/rnn_cells.py``) along the sequence::

    for t in range(L):                       # (backwards too, if bidirectional)
        h = step(x[t] W_ih^T + b_ih, h)      # x W_ih^T is done for all t at once
        output[t] = h

and stacks ``num_layers`` of them: layer ``k + 1`` reads layer ``k``'s outputs (with
``dropout`` between layers while training). A bidirectional layer runs a second,
independent cell from the end of the sequence to the start and concatenates the two
outputs of each step, so ``output`` has ``2 * hidden_size`` features.

Shapes (``L`` sequence length, ``N`` batch, ``D`` = 2 if bidirectional else 1):

* ``input``: ``[L, N, input_size]`` (``[N, L, input_size]`` with ``batch_first=True``),
  or ``[L, input_size]`` unbatched;
* ``h_0`` and the returned ``h_n``: ``[D * num_layers, N, hidden_size]`` (never batch
  first); an LSTM also carries ``c_0``/``c_n`` of the same shape;
* ``output``: ``[L, N, D * hidden_size]``.

The parameters are named as PyTorch names them (``weight_ih_l0``, ``bias_hh_l1``,
``weight_ih_l0_reverse``, ``weight_hr_l0`` for an LSTM with ``proj_size``), registered in
PyTorch's order and initialised from PyTorch's random stream, so a state dict moves
between the two libraries and the same seed gives the same layer.
"""

from __future__ import annotations

import warnings
from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn.module import Module, Parameter
from minitorch.nn.rnn_cells import check_size, gru_step, lstm_step, reset_uniform, rnn_step
from minitorch.nn.utils.rnn import (
    PackedSequence,
    invert_permutation,
    pack_padded_sequence,
    pad_packed_sequence,
)
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import cat, stack

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


class RNNBase(Module):
    """The parameters and the loop shared by ``RNN``, ``LSTM`` and ``GRU``."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        check_size("input_size", input_size)
        check_size("hidden_size", hidden_size)
        check_size("num_layers", num_layers)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")  # fmt: skip
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          f"non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)  # fmt: skip
        if isinstance(proj_size, bool) or not isinstance(proj_size, int) or proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        directions = 2 if bidirectional else 1
        out_size = proj_size or hidden_size
        rows = GATES[mode] * hidden_size
        like = {"device": device, "dtype": dtype}
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else out_size * directions
            for suffix in ("", "_reverse")[:directions]:
                shapes = {f"weight_ih_l{layer}{suffix}": (rows, layer_input),
                          f"weight_hh_l{layer}{suffix}": (rows, out_size)}  # fmt: skip
                if bias:
                    shapes[f"bias_ih_l{layer}{suffix}"] = (rows,)
                    shapes[f"bias_hh_l{layer}{suffix}"] = (rows,)
                if proj_size:
                    shapes[f"weight_hr_l{layer}{suffix}"] = (proj_size, hidden_size)
                for name, shape in shapes.items():
                    setattr(self, name, Parameter(creation.empty(*shape, **like)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_uniform(self, self.hidden_size)

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs the weights into one buffer for cuDNN here;
        minitorch's layers read each parameter where it is. (Kept so that code written
        for PyTorch, which often calls it, runs.)"""

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """Each (layer, direction)'s parameters, in PyTorch's order."""
        per_cell = len(self._flat_weights_names) // (self.num_layers * (2 if self.bidirectional else 1))
        names = self._flat_weights_names
        return [[getattr(self, n) for n in names[i : i + per_cell]] for i in range(0, len(names), per_cell)]

    # ----- the loop ---------------------------------------------------------------

    def _run_direction(self, inputs: Tensor, state: tuple, layer: int, suffix: str,
                       reverse: bool) -> tuple[Tensor, tuple]:  # fmt: skip
        """Run one layer in one direction over ``inputs`` ``[L, N, features]``; return
        its outputs ``[L, N, hidden]`` and the final state."""

        def weight(kind: str) -> Tensor | None:
            return getattr(self, f"{kind}_l{layer}{suffix}") if self.bias or "weight" in kind else None

        w_hh, b_hh = weight("weight_hh"), weight("bias_hh")
        w_hr = weight("weight_hr") if self.proj_size else None
        x_parts = F.linear(inputs, weight("weight_ih"), weight("bias_ih"))  # every step at once
        outputs: list[Tensor] = [None] * inputs.shape[0]  # type: ignore[list-item]
        steps = range(inputs.shape[0] - 1, -1, -1) if reverse else range(inputs.shape[0])
        for t in steps:
            if self.mode == "LSTM":
                h, c = lstm_step(x_parts[t], state[0], state[1], w_hh, b_hh)
                state = (h if w_hr is None else F.linear(h, w_hr), c)
            elif self.mode == "GRU":
                state = (gru_step(x_parts[t], state[0], w_hh, b_hh),)
            else:
                state = (rnn_step(x_parts[t], state[0], w_hh, b_hh, self.mode == "RNN_RELU"),)
            outputs[t] = state[0]
        return stack(outputs) if outputs else inputs.new_zeros(0, inputs.shape[1], state[0].shape[-1]), state

    def _initial_state(self, input: Tensor, hx: Any) -> tuple[Tensor, ...]:  # noqa: A002
        """``(h_0,)`` or ``(h_0, c_0)``, zeros when not given, after checking shapes."""
        cells = self.num_layers * (2 if self.bidirectional else 1)
        batch = input.shape[1]
        sizes = [self.proj_size or self.hidden_size] + ([self.hidden_size] if self.mode == "LSTM" else [])
        if hx is None:
            return tuple(creation.zeros(cells, batch, size, dtype=input.dtype, device=input.device)
                         for size in sizes)  # fmt: skip
        states = tuple(hx) if self.mode == "LSTM" else (hx,)
        for state, size in zip(states, sizes):
            require_tensor(type(self).__name__, state)
            if tuple(state.shape) != (cells, batch, size):
                raise RuntimeError(f"Expected hidden size {(cells, batch, size)}, got {list(state.shape)}")
        return states

    def _sequence_first(self, input: Any, hx: Any) -> tuple[Tensor, Any, bool]:  # noqa: A002
        """Check a tensor input; view it as ``[L, N, features]`` (a batch of one for an
        unbatched input, whose ``hx`` gets one too). Returns ``(input, hx, batched)``."""
        name = type(self).__name__
        require_tensor(name, input)
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D tensor instead")
        batched = input.ndim == 3
        if hx is not None:
            first = hx[0] if self.mode == "LSTM" else hx
            require_tensor(name, first)
            if first.ndim != (3 if batched else 2):
                kind = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(f"For {kind} input, hx should also be {input.ndim}-D but got "
                                   f"{first.ndim}-D tensor")  # fmt: skip
        if not batched:
            input = input.unsqueeze(1)
            if hx is not None:
                hx = tuple(h.unsqueeze(1) for h in hx) if self.mode == "LSTM" else hx.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        return input, hx, batched

    def forward(self, input: Any, hx: Any = None) -> tuple[Any, Any]:  # noqa: A002
        """``output, h_n`` (an LSTM: ``output, (h_n, c_n)``); ``output`` is a
        ``PackedSequence`` when ``input`` is one."""
        packed = isinstance(input, PackedSequence)
        if packed:
            sorted_indices, unsorted_indices = input.sorted_indices, input.unsorted_indices
            input, lengths = pad_packed_sequence(input)  # [L, N, features], the caller's order
            batched = True
        else:
            input, hx, batched = self._sequence_first(input, hx)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")  # fmt: skip
        states = self._initial_state(input, hx)
        mask = _length_mask(lengths, input) if packed else None
        output, finals = input, []
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and packed:
                output = _dropout_packed(output, lengths, sorted_indices, self.dropout, self.training)
            elif layer > 0 and self.dropout > 0:
                output = F.dropout(output, self.dropout, self.training)
            results = []
            for d, suffix in enumerate(("", "_reverse")[: 2 if self.bidirectional else 1]):
                cell = layer * (2 if self.bidirectional else 1) + d
                start = tuple(s[cell] for s in states)
                if mask is None:
                    out, end = self._run_direction(output, start, layer, suffix, reverse=d == 1)
                else:
                    out, end = self._run_masked(output, start, layer, suffix, d == 1, mask)
                results.append(out)
                finals.append(end)
            output = results[0] if len(results) == 1 else cat(results, -1)
        final = tuple(stack([f[i] for f in finals]) for i in range(len(states)))
        if packed:  # pack again in the input's order of sequences
            if sorted_indices is not None:
                output, lengths = output.index_select(1, sorted_indices), lengths[sorted_indices.to("cpu")]
            output = pack_padded_sequence(output, lengths, enforce_sorted=True)
            output = PackedSequence(output.data, output.batch_sizes, sorted_indices, unsorted_indices)
        elif not batched:
            output, final = output.squeeze(1), tuple(f.squeeze(1) for f in final)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, (final if self.mode == "LSTM" else final[0])

    def _run_masked(self, inputs: Tensor, state: tuple, layer: int, suffix: str, reverse: bool,
                    mask: Tensor) -> tuple[Tensor, tuple]:  # fmt: skip
        """A packed batch: run each sequence only over its own length. Padding steps
        keep the state unchanged (``where``) and output zeros, so a reverse direction
        starts at each sequence's own last element and ``h_n`` is each sequence's
        state at its own end."""
        steps = [(t, mask[t]) for t in range(inputs.shape[0])]
        outputs: list[Tensor] = [None] * len(steps)  # type: ignore[list-item]
        for t, keep in reversed(steps) if reverse else steps:
            out, new_state = self._run_direction(inputs[t : t + 1], state, layer, suffix, False)
            state = tuple(new.where(keep, old) for new, old in zip(new_state, state))
            outputs[t] = out[0] * keep
        return stack(outputs), state

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if not self.bias:
            text += ", bias=False"
        if self.batch_first:
            text += ", batch_first=True"
        if self.dropout:
            text += f", dropout={self.dropout}"
        if self.bidirectional:
            text += ", bidirectional=True"
        return text


def _dropout_packed(padded: Tensor, lengths: Tensor, sorted_indices: Tensor | None, p: float,
                    training: bool) -> Tensor:  # fmt: skip
    """Dropout between the layers of a packed batch, drawn over the packed steps only
    (as PyTorch draws it, so the same seed gives the same masks); returns it padded."""
    if sorted_indices is not None:
        padded, lengths = padded.index_select(1, sorted_indices), lengths[sorted_indices.to("cpu")]
    packed = pack_padded_sequence(padded, lengths)
    dropped = PackedSequence(F.dropout(packed.data, p, training), packed.batch_sizes, sorted_indices,
                             invert_permutation(sorted_indices))  # fmt: skip
    return pad_packed_sequence(dropped)[0]


def _length_mask(lengths: Tensor, input: Tensor) -> Tensor:  # noqa: A002
    """``mask[t, n, 0]`` is true while step ``t`` lies inside sequence ``n``."""
    steps = creation.arange(input.shape[0], device=input.device).unsqueeze(1)
    return (steps < lengths.to(input.device).unsqueeze(0)).unsqueeze(-1)


class RNN(RNNBase):
    """An Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or
    ``nonlinearity="relu"``)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)  # fmt: skip
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """A long short-term memory layer; ``forward(x, (h_0, c_0))`` returns
    ``output, (h_n, c_n)``. With ``proj_size > 0`` each step's ``h`` is projected to
    ``proj_size`` features by ``weight_hr`` before it is output and fed back."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)  # fmt: skip


class GRU(RNNBase):
    """A gated recurrent unit layer."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)  # fmt: skip
