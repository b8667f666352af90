"""``BatchNorm1d``, ``BatchNorm2d``, ``BatchNorm3d`` and ``LayerNorm``.

BatchNorm keeps *running* estimates of each channel's mean and variance as buffers
(``running_mean``, ``running_var``, and ``num_batches_tracked``: saved in the state dict,
never trained). In ``train()`` mode it normalizes with the batch's own statistics and
updates the running ones; in ``eval()`` mode it uses the running ones, so a single
example gives the same answer whatever batch it comes in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.dtypes import int64
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.module import Module, Parameter


class _BatchNorm(Module):
    expected_dims: tuple[int, ...] = (2, 3)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        like = {"device": device, "dtype": dtype}
        if affine:
            self.weight = Parameter(creation.ones(num_features, **like))
            if bias:
                self.bias = Parameter(creation.zeros(num_features, **like))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, **like))
            self.register_buffer("running_var", creation.ones(num_features, **like))
            self.register_buffer("num_batches_tracked", creation.tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input(self, input: Tensor) -> None:  # noqa: A002
        if input.ndim not in self.expected_dims:
            wanted = " or ".join(f"{d}D" for d in self.expected_dims)
            raise ValueError(f"expected {wanted} input (got {input.ndim}D input)")
        if input.shape[1] != self.num_features:
            raise RuntimeError(
                f"{self!r} expects inputs with {self.num_features} channels in dimension 1, but "
                f"got input of shape {list(input.shape)}"
            )

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        self._check_input(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative average of all batches so far
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        keep_running = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if keep_running else None,
            self.running_var if keep_running else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")  # fmt: skip


class BatchNorm1d(_BatchNorm):
    """Batch norm of ``[N, C]`` or ``[N, C, L]`` inputs (after a ``Linear`` or ``Conv1d``)."""

    expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm of ``[N, C, H, W]`` images (after a ``Conv2d``)."""

    expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm of ``[N, C, D, H, W]`` volumes (after a ``Conv3d``): each channel's
    mean and variance over the batch and every position of the volume."""

    expected_dims = (5,)


class LayerNorm(Module):
    """Normalize each sample over its last dimensions (``normalized_shape``), then scale
    and shift elementwise (``weight`` ones and ``bias`` zeros at start)."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        like = {"device": device, "dtype": dtype}
        if elementwise_affine:
            self.weight = Parameter(creation.ones(self.normalized_shape, **like))
            if bias:
                self.bias = Parameter(creation.zeros(self.normalized_shape, **like))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")  # fmt: skip
