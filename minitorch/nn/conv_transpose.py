"""``ConvTranspose1d``, ``ConvTranspose2d`` and ``ConvTranspose3d``: the learned upsampling layers (the
computation is in ``functional/conv_transpose.py``: ``W^T @ x``, then ``fold``).

The weight is ``[in, out / groups, *kernel_size]``, the transpose of a convolution's,
because this layer is the adjoint of the convolution ``out -> in`` with that weight;
PyTorch initialises it with the same rule as a convolution's (its fan-in is read from
dimension 1), so the same seed gives the same weights.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn.conv import _ConvNd, _tuple
from minitorch.nn.functional import conv_transpose as T


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution: ``_ConvNd``'s weight the other way round, and
    ``output_padding``."""

    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        if isinstance(padding, str):
            raise ValueError(f"padding={padding!r} is not supported for transposed convolutions")
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, device, dtype)  # fmt: skip
        self.output_padding = _tuple(output_padding, self.dims)

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple:  # noqa: A002
        """``output_padding``, or the one that makes the output ``output_size`` (the last
        ``dims`` sizes of it), as PyTorch's ``forward(input, output_size)`` allows."""
        if output_size is None:
            return self.output_padding
        wanted = tuple(output_size)[-self.dims :]
        padding = []
        for d, size in enumerate(wanted):
            length = input.shape[input.ndim - self.dims + d]
            smallest = ((length - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)  # fmt: skip
            if not smallest <= size < smallest + max(self.stride[d], self.dilation[d]):
                raise ValueError(
                    f"requested an output size of {list(wanted)}, but valid sizes range from "
                    f"{smallest} to {smallest + self.stride[d] - 1} (for an input of "
                    f"{list(input.shape[input.ndim - self.dims :])})"
                )
            padding.append(size - smallest)
        return tuple(padding)


class ConvTranspose2d(_ConvTransposeNd):
    """``[N, C_in, H, W] -> [N, C_out, OH, OW]``, with
    ``OH = (H - 1) stride - 2 padding + dilation (kh - 1) + output_padding + 1``."""

    dims = 2

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        self._check_input(input)
        extra = self._output_padding(input, output_size)
        return T.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, extra,
                                  self.groups, self.dilation)  # fmt: skip


class ConvTranspose3d(_ConvTransposeNd):
    """``[N, C_in, D, H, W] -> [N, C_out, OD, OH, OW]``, each size as ``ConvTranspose2d``'s."""

    dims = 3

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        self._check_input(input)
        extra = self._output_padding(input, output_size)
        return T.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, extra,
                                  self.groups, self.dilation)  # fmt: skip


class ConvTranspose1d(_ConvTransposeNd):
    """``[N, C_in, L] -> [N, C_out, L_out]``."""

    dims = 1

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        self._check_input(input)
        extra = self._output_padding(input, output_size)
        return T.conv_transpose1d(input, self.weight, self.bias, self.stride[0], self.padding[0],
                                  extra[0], self.groups, self.dilation[0])  # fmt: skip
