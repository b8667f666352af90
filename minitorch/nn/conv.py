"""``Conv1d``, ``Conv2d`` and ``Conv3d``: convolution layers (the computation is in
``functional/conv.py``: im2col as a strided view, then one matmul). ``_ConvNd`` is also
the base of the transposed convolutions (``conv_transpose.py``), whose weight is stored
the other way round: ``[in, out / groups, *kernel]``."""

from __future__ import annotations

import math
from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.module import Module, Parameter


def _tuple(value: Any, n: int) -> tuple:
    if isinstance(value, str):
        return value  # type: ignore[return-value]  ('same' / 'valid')
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    return value * n if len(value) == 1 else value


PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """What the convolution layers share: weight ``[out, in / groups, *kernel_size]``
    (``[in, out / groups, *kernel_size]`` when ``transposed``), bias ``[out]``, PyTorch's
    initialisation, the printed form and the input check."""

    dims = 2
    transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")  # fmt: skip
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
        n = self.dims
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        if padding == "same" and any(s != 1 for s in self.stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        self.padding, self.dilation = _tuple(padding, n), _tuple(dilation, n)
        self.groups, self.padding_mode = groups, padding_mode
        self._reversed_padding_repeated_twice = self._border_widths()
        if self.transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(creation.empty(shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _border_widths(self) -> tuple:
        """``F.pad``'s widths (last dimension first) for a ``padding_mode`` other than
        zeros: the border is padded by ``F.pad`` and the convolution then pads nothing.
        ``'same'`` splits ``dilation * (kernel - 1)`` with the odd cell at the end."""
        widths: list[int] = []
        for d in reversed(range(self.dims)):
            if self.padding == "same":
                total = self.dilation[d] * (self.kernel_size[d] - 1)
                widths += [total // 2, total - total // 2]
            elif self.padding == "valid":
                widths += [0, 0]
            else:
                widths += [self.padding[d], self.padding[d]]
        return tuple(widths)

    def _padded(self, input: Tensor) -> tuple[Tensor, Any]:  # noqa: A002
        """The input and the padding to give the convolution: for ``reflect``,
        ``replicate`` and ``circular`` the border is made here first."""
        if self.padding_mode == "zeros":
            return input, self.padding
        x = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return x, 0

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in else 0
            init.uniform_(self.bias, -bound, bound)

    def _check_input(self, input: Tensor) -> None:  # noqa: A002
        expected = self.dims + 2
        if input.ndim not in (expected - 1, expected):
            raise RuntimeError(
                f"{self!r} expects a {expected - 1}D (unbatched) or {expected}D (batched) input, "
                f"but got input of shape {list(input.shape)}"
            )
        channels = input.shape[-self.dims - 1]
        if channels != self.in_channels:
            raise RuntimeError(
                f"{self!r} expects inputs with {self.in_channels} channels, but got input of "
                f"shape {list(input.shape)} ({channels} channels)"
            )

    def extra_repr(self) -> str:
        n = self.dims
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")  # fmt: skip
        if self.padding != (0,) * n:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            text += f", dilation={self.dilation}"
        if getattr(self, "output_padding", (0,) * n) != (0,) * n:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv2d(_ConvNd):
    """2-D convolution: ``[N, C_in, H, W] -> [N, C_out, OH, OW]``."""

    dims = 2

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        self._check_input(input)
        x, padding = self._padded(input)
        return F.conv2d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv3d(_ConvNd):
    """3-D convolution: ``[N, C_in, D, H, W] -> [N, C_out, OD, OH, OW]``."""

    dims = 3

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        self._check_input(input)
        x, padding = self._padded(input)
        return F.conv3d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """1-D convolution: ``[N, C_in, L] -> [N, C_out, L_out]``."""

    dims = 1

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        self._check_input(input)
        x, padding = self._padded(input)
        padding = padding if isinstance(padding, (str, int)) else padding[0]
        return F.conv1d(x, self.weight, self.bias, self.stride[0], padding, self.dilation[0],
                        self.groups)  # fmt: skip
