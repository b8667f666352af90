"""One step of a recurrent network: ``RNNCell``, ``LSTMCell`` and ``GRUCell``.

A recurrent layer reads a sequence ``x_1, x_2, ...`` one element at a time and carries a
*hidden state* ``h`` from each step to the next. One step is a few matrix products and
elementwise gates; the layers in ``minitorch/nn/rnn.py`` run these same step functions
along the sequence. Every step is built from public ops, so autograd differentiates
through the whole unrolled loop ("backpropagation through time") with no backward of
its own.

With ``W_ih`` of shape ``[gates * hidden, input]`` and ``W_hh`` of ``[gates * hidden,
hidden]`` (the gates stacked in PyTorch's order):

* **RNN** (1 gate):  ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ``relu``).
* **LSTM** (4 gates ``i, f, g, o``): ``i, f, o = sigmoid(.)``, ``g = tanh(.)``,
  ``c' = f * c + i * g``, ``h' = o * tanh(c')``. The cell state ``c`` is updated by
  addition, so its gradient flows back over many steps without vanishing.
* **GRU** (3 gates ``r, z, n``): ``r, z = sigmoid(x-part + h-part)``,
  ``n = tanh(x-part_n + r * h-part_n)``, ``h' = (1 - z) * n + z * h``.

Initialisation is PyTorch's: every weight and bias uniform in ``[-1/sqrt(hidden),
1/sqrt(hidden)]``, drawn in the order the parameters are registered, so the same seed
gives PyTorch's weights.
"""

from __future__ import annotations

import math
from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.module import Module, Parameter
from minitorch.ops.common import require_tensor


def rnn_step(x_part: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None, relu: bool) -> Tensor:
    """``h' = tanh(x_part + h W_hh^T + b_hh)``, where ``x_part = x W_ih^T + b_ih``."""
    total = x_part + F.linear(h, w_hh, b_hh)
    return total.relu() if relu else total.tanh()


def lstm_step(x_part: Tensor, h: Tensor, c: Tensor, w_hh: Tensor,
              b_hh: Tensor | None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """One LSTM step: returns ``(h', c')`` (``h'`` before any projection)."""
    i, f, g, o = (x_part + F.linear(h, w_hh, b_hh)).chunk(4, -1)
    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c_next.tanh(), c_next


def gru_step(x_part: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """One GRU step. The reset gate ``r`` scales the *hidden* part of ``n`` (bias
    included), as PyTorch (and cuDNN) define it."""
    x_r, x_z, x_n = x_part.chunk(3, -1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r = (x_r + h_r).sigmoid()
    z = (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    return (1 - z) * n + z * h


def check_size(name: str, value: Any) -> int:
    """Sizes must be Python ints (PyTorch's ``TypeError``) and positive (``ValueError``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be greater than zero")
    return value


def reset_uniform(module: Module, hidden_size: int) -> None:
    """Every parameter uniform in ``[-1/sqrt(hidden), 1/sqrt(hidden)]``, in registration
    order (PyTorch's ``reset_parameters`` of its cells and recurrent layers)."""
    stdv = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -stdv, stdv)


class RNNCellBase(Module):
    """The parameters shared by the three cells: ``weight_ih``, ``weight_hh``, ``bias_ih``,
    ``bias_hh``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, gates: int, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        self.input_size = check_size("input_size", input_size)
        self.hidden_size = check_size("hidden_size", hidden_size)
        self.bias = bias
        rows = gates * hidden_size
        like = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(creation.empty(rows, input_size, **like))
        self.weight_hh = Parameter(creation.empty(rows, hidden_size, **like))
        if bias:
            self.bias_ih = Parameter(creation.empty(rows, **like))
            self.bias_hh = Parameter(creation.empty(rows, **like))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_uniform(self, self.hidden_size)

    def _prepare(self, input: Tensor, hx: Tensor | None) -> tuple[Tensor, Tensor, bool]:  # noqa: A002
        """Check shapes; add a batch of one to an unbatched input; zeros for a missing
        state. Returns ``(input, hx, batched)``."""
        name = type(self).__name__
        require_tensor(name, input)
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if hx is not None:
            require_tensor(name, hx)
            if hx.ndim != input.ndim:
                raise ValueError(f"{name}: Expected hidden to be {input.ndim}D, got {hx.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
            hx = None if hx is None else hx.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                               f"{self.input_size}")  # fmt: skip
        if hx is None:
            hx = creation.zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
        elif tuple(hx.shape) != (input.shape[0], self.hidden_size):
            raise RuntimeError(f"Expected hidden size {(input.shape[0], self.hidden_size)}, got "
                               f"{list(hx.shape)}")  # fmt: skip
        return input, hx, batched

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            text += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text


class RNNCell(RNNCellBase):
    """An Elman RNN cell: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        input, hx, batched = self._prepare(input, hx)
        x_part = F.linear(input, self.weight_ih, self.bias_ih)
        h = rnn_step(x_part, hx, self.weight_hh, self.bias_hh, self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """A long short-term memory cell; ``forward(x, (h, c))`` returns ``(h', c')``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:  # noqa: A002
        h0, c0 = (None, None) if hx is None else hx
        input, h, batched = self._prepare(input, h0)
        _, c, _ = self._prepare(input if batched else input.squeeze(0), c0)
        x_part = F.linear(input, self.weight_ih, self.bias_ih)
        h, c = lstm_step(x_part, h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """A gated recurrent unit cell."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        input, hx, batched = self._prepare(input, hx)
        x_part = F.linear(input, self.weight_ih, self.bias_ih)
        h = gru_step(x_part, hx, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
