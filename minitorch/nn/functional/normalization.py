"""Normalization: ``batch_norm`` and ``layer_norm``.

Both compute ``(x - mean) / sqrt(var + eps)`` and then an optional learned scale and
shift; they differ in *which* elements share a mean:

* batch norm: per channel, over the batch (and the spatial positions of images):
  ``x[N, C, H, W]`` has ``C`` means, over ``N*H*W`` values each. At evaluation time the
  running averages collected during training are used instead;
* layer norm: per sample, over the last dimensions (``normalized_shape``).

The variance used to normalize is the biased one (divide by ``n``); the running variance
is updated with the unbiased one (divide by ``n - 1``), as in PyTorch.

A float16 or bfloat16 input is normalized in float32 (``accumulation_dtype``) and the
result rounded back once, as PyTorch does: in float16 the square of a deviation of 300
is ``inf`` (the largest float16 is 65504), the variance with it, and the row would come
out as zeros instead of values near -1 and 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.layout import numel
from minitorch.ops.reduce import accumulation_dtype


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,  # noqa: A002
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:  # fmt: skip
    """Normalize each channel (dim 1). In ``training`` mode with batch statistics (and,
    when given, update ``running_mean``/``running_var`` in place); otherwise with the
    running statistics."""
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected at least a 2D input [N, C, ...], got "
                         f"{list(input.shape)}")  # fmt: skip
    channels = input.shape[1]
    wide = input.to(accumulation_dtype(input.dtype))
    dims = (0,) + tuple(range(2, input.ndim))
    shape = (1, channels) + (1,) * (input.ndim - 2)
    if training:
        count = numel([input.shape[d] for d in dims])
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {input.shape}"
            )
        mean = wide.mean(dims, keepdim=True)
        centered = wide - mean
        var = (centered * centered).mean(dims, keepdim=True)
        if running_mean is not None and running_var is not None:
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.reshape(channels) * momentum)
                unbiased = var.reshape(channels) * (count / (count - 1))
                running_var.mul_(1 - momentum).add_(unbiased * momentum)
        out = centered * (var + eps).rsqrt()
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm in evaluation mode needs running_mean and running_var")
        out = (wide - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out.to(input.dtype) if wide.dtype is not input.dtype else out


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:  # fmt: skip
    """Normalize over the last ``len(normalized_shape)`` dimensions of each sample."""
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    count = len(normalized_shape)
    if tuple(input.shape[input.ndim - count :]) != normalized_shape:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size "
            f"{list(input.shape)}"
        )
    dims = tuple(range(input.ndim - count, input.ndim))
    wide = input.to(accumulation_dtype(input.dtype))
    mean = wide.mean(dims, keepdim=True)
    centered = wide - mean
    var = (centered * centered).mean(dims, keepdim=True)
    out = centered * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out.to(input.dtype) if wide.dtype is not input.dtype else out
