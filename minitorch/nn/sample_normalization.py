"""``GroupNorm``, ``InstanceNorm1d/2d/3d``, ``RMSNorm`` and ``LocalResponseNorm``: the
normalization layers whose statistics come from one sample at a time (the math is in
``functional/sample_normalization.py``).

``InstanceNorm`` shares ``BatchNorm``'s state (``affine`` weight and bias,
``running_mean``/``running_var``/``num_batches_tracked`` buffers when
``track_running_stats``), but PyTorch's defaults differ: no affine and no running
statistics, so by default it normalizes every input with its own numbers, in training
and in evaluation alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.nn.functional import sample_normalization as S
from minitorch.nn.module import Module, Parameter
from minitorch.nn.normalization import _BatchNorm


class GroupNorm(Module):
    """Normalize ``num_groups`` groups of channels of each sample, then scale and shift
    per channel (``weight`` ones and ``bias`` zeros at start)."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = Parameter(creation.ones(num_channels, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(creation.zeros(num_channels, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return S.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")  # fmt: skip


class _InstanceNorm(_BatchNorm):
    """Instance norm of ``[N, C, *spatial]`` (or an unbatched ``[C, *spatial]``)."""

    spatial_dims = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)  # fmt: skip

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        batched = self.spatial_dims + 2
        if input.ndim not in (batched - 1, batched):
            raise ValueError(f"expected {batched - 1}D or {batched}D input (got {input.ndim}D input)")
        unbatched = input.ndim == batched - 1
        x = input.unsqueeze(0) if unbatched else input
        if self.affine and x.shape[1] != self.num_features:
            raise ValueError(
                f"expected input's size at dim={int(not unbatched)} to match num_features "
                f"({self.num_features}), but got: {x.shape[1]}."
            )
        use_input_stats = self.training or not self.track_running_stats
        momentum = self.momentum if self.momentum is not None else 0.0
        out = S.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              use_input_stats, momentum, self.eps)  # fmt: skip
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance norm of ``[N, C, L]``."""

    spatial_dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance norm of ``[N, C, H, W]``."""

    spatial_dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance norm of ``[N, C, D, H, W]``."""

    spatial_dims = 3


class RMSNorm(Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the last dimensions (``weight`` ones at
    start; ``eps=None`` is the input dtype's machine epsilon)."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.ones(shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return S.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """Divide each channel by the energy of its ``size`` neighbouring channels."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return S.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
