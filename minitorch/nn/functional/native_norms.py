"""ATen's normalization kernels as ``torch.*`` names them: ``native_batch_norm``,
``native_layer_norm``, ``native_group_norm``, and ``native_dropout_backward``.

PyTorch's ``F.batch_norm``, ``F.layer_norm`` and ``F.group_norm`` are thin wrappers over
these. Each returns the normalized output *and* the statistics it used, which the
backward formula of PyTorch's kernel reads again instead of recomputing:

* ``native_batch_norm(x, weight, bias, running_mean, running_var, training, momentum,
  eps)`` -> ``(out, save_mean, save_invstd)``, one number per channel: the batch's mean
  and ``1 / sqrt(var + eps)`` (biased variance) in training, where the running buffers
  (when given) move towards the batch's mean and *unbiased* variance; in evaluation the
  running statistics normalize, and the two saved tensors are empty (shape ``(0,)``);
* ``native_layer_norm(x, normalized_shape, weight, bias, eps)`` -> ``(out, mean,
  rstd)``, one number per sample: shape ``x.shape[:-k] + (1,) * k`` for a
  ``normalized_shape`` of ``k`` dimensions;
* ``native_group_norm(x, weight, bias, N, C, HxW, group, eps)`` -> ``(out, mean,
  rstd)``, shape ``(N, group)``: a contiguous ``x`` read as ``[N, group, C / group * HxW]``
  (``F.group_norm`` accepts any layout; this kernel, like PyTorch's, refuses a strided one).

For batch and layer norm PyTorch's saved statistics carry no gradient (they are
bookkeeping for the backward); group norm's do, so its mean and rstd here are part of
the graph. Everything is composed from reductions and elementwise ops (the functions of
``normalization.py`` and ``sample_normalization.py``), so autograd gives every gradient.

``native_dropout_backward(grad, mask, scale)`` (PyTorch's ``torch.ops.aten.`` form, which
OpInfo tests) is dropout's backward as a function:
``grad * mask * scale``, the gradient flowing only where the mask kept an element, scaled
as the forward scaled it (``1 / (1 - p)``).
"""

from __future__ import annotations

from collections.abc import Sequence

from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.creation import empty
from minitorch.nn.functional.normalization import batch_norm, layer_norm
from minitorch.nn.functional.sample_normalization import _affine
from minitorch.ops.common import require_tensor
from minitorch.ops.reduce import accumulation_dtype


def _statistics(wide: Tensor, dims: tuple, eps: float) -> tuple[Tensor, Tensor]:
    """The mean over ``dims`` (kept) and ``1 / sqrt(biased variance + eps)``."""
    mean = wide.mean(dims, keepdim=True)
    centered = wide - mean
    return mean, ((centered * centered).mean(dims, keepdim=True) + eps).rsqrt()


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                      running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                      momentum: float, eps: float) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """Batch norm's output with the per-channel mean and inverse standard deviation it
    used (training), or with two empty tensors (evaluation, from the running buffers)."""
    require_tensor("native_batch_norm", input)
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("native_batch_norm: running_mean and running_var must be defined in "
                           "evaluation mode")  # fmt: skip
    out = batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    wide_dtype = accumulation_dtype(input.dtype)
    if not training:
        none = empty(0, dtype=wide_dtype, device=input.device)
        return out, none, none.clone()
    dims = (0,) + tuple(range(2, input.ndim))
    with no_grad():
        mean, invstd = _statistics(input.detach().to(wide_dtype), dims, eps)
    channels = input.shape[1]
    return out, mean.reshape(channels), invstd.reshape(channels)


def native_layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None,  # noqa: A002
                      bias: Tensor | None, eps: float) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """Layer norm's output with each sample's mean and ``1 / sqrt(var + eps)``, shaped
    ``input.shape[:-k] + (1,) * k``."""
    require_tensor("native_layer_norm", input)
    out = layer_norm(input, normalized_shape, weight, bias, eps)
    count = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    dims = tuple(range(input.ndim - count, input.ndim))
    with no_grad():
        mean, rstd = _statistics(input.detach().to(accumulation_dtype(input.dtype)), dims, eps)
    return out, mean, rstd


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int,  # noqa: A002, N803
                      C: int, HxW: int, group: int, eps: float) -> tuple[Tensor, Tensor, Tensor]:  # noqa: N803
    """Group norm of ``input`` read as ``[N, group, C / group * HxW]``, with each group's
    mean and ``1 / sqrt(var + eps)`` (shape ``(N, group)``), all three differentiable."""
    require_tensor("native_group_norm", input)
    if not input.dtype.is_floating_point:
        name = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool"}[input.dtype.name]  # fmt: skip
        raise NotImplementedError(f"\"GroupNormKernelImpl\" not implemented for '{name}'")
    if group <= 0 or C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got "
                           f"input of shape {list(input.shape)} and num_groups={group}")  # fmt: skip
    if not input.is_contiguous():  # ATen's kernel reads the storage as [N, group, ...]
        raise RuntimeError("Expected X.is_contiguous(memory_format) to be true, but got false.")
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected input to have {N * C * HxW} elements (N * C * HxW = {N} * {C} * "
                           f"{HxW}), but got {input.numel()}")  # fmt: skip
    wide = input.to(accumulation_dtype(input.dtype))
    grouped = wide.reshape(N, group, C // group * HxW)
    mean, rstd = _statistics(grouped, (2,), eps)
    out = ((grouped - mean) * rstd).reshape(tuple(input.shape))
    out = _affine(out, weight, bias, input.ndim) if input.ndim >= 2 else out
    out = out.to(input.dtype) if wide.dtype is not input.dtype else out
    return out, mean.reshape(N, group), rstd.reshape(N, group)


def native_dropout_backward(grad_output: Tensor, mask: Tensor, scale: float) -> Tensor:
    """Dropout's backward: ``grad_output * mask * scale`` (zero where the mask dropped an
    element; an integer gradient times the float ``scale`` gives floats)."""
    require_tensor("native_dropout_backward", grad_output, "grad_output")
    require_tensor("native_dropout_backward", mask, "mask")
    return grad_output * mask * scale


__all__ = ["native_batch_norm", "native_dropout_backward", "native_group_norm", "native_layer_norm"]
