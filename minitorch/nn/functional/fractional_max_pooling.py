"""Fractional max pooling (Graham, 2014): ``fractional_max_pool2d/3d`` and their
``_with_indices`` forms.

Ordinary max pooling shrinks a dimension by a whole factor (a stride of 2 halves it).
Fractional pooling shrinks it to any ``output_size`` (or ``output_ratio`` of the input) by
placing windows of ``kernel_size`` at *pseudo-random* starts. Along an axis of ``n`` input
positions, pooled to ``m`` outputs with windows of ``k``, one random number ``u`` in
``[0, 1)`` (per sample, channel and axis) fixes the starts::

    alpha    = (n - k) / (m - 1)
    start[i] = int((i + u) * alpha) - int(u * alpha)      for i < m - 1
    start[m - 1] = n - k

so the steps between windows are ``floor(alpha)`` or ``ceil(alpha)``, in an order ``u``
shuffles, and the last window ends at the input's edge. (The arithmetic is done in the
input's dtype, as PyTorch does, so float32 inputs pick float32's windows.)

The random numbers come as ``_random_samples`` (``[N, C, 2]`` for images, ``[N, C, 3]``
for volumes) or are drawn as PyTorch draws them: ``rand(N, C, dims)``, from minitorch's
generator, which makes PyTorch's numbers after the same seed. For images sample 0 moves
along the width and sample 1 along the height; for volumes samples 0, 1, 2 move along
time (depth), height and width: PyTorch's order.

The pooling itself is a ``gather``: the flat input index of every (output cell, window
offset) pair is worked out once from the starts, the input flattened to
``[N, C, pixels]`` is gathered at them, and ``max`` over the window picks each output (and,
gathered back from the same index table, its flat index in the input plane, as
``max_pool2d`` returns). ``gather`` and ``max`` carry the gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch import creation, random_factories
from minitorch._tensor import Tensor
from minitorch.dtypes import float64, int64
from minitorch.ops.common import require_tensor

AXES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _tuple(value: Any, dims: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims


def window_starts(sample: np.ndarray, size: int, out: int, kernel: int) -> np.ndarray:
    """The start of each of ``out`` windows of ``kernel`` over ``size`` positions, for
    every random number in ``sample`` (any shape, its dtype the arithmetic's): shape
    ``sample.shape + (out,)``."""
    starts = np.zeros(sample.shape + (out,), dtype=np.int64)
    if out > 1:
        real = sample.dtype.type
        alpha = real(size - kernel) / real(out - 1)
        first = (sample * alpha).astype(np.int64)  # int() of a positive number: truncation
        for i in range(out - 1):
            starts[..., i] = ((real(i) + sample) * alpha).astype(np.int64) - first
    if out > 0:
        starts[..., out - 1] = size - kernel
    return starts


def _output_size(input: Tensor, output_size: Any, output_ratio: Any, dims: int, name: str) -> tuple:  # noqa: A002
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return tuple(int(size) for size in _tuple(output_size, dims))
    if isinstance(output_ratio, (tuple, list)) and len(output_ratio) > dims:
        raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
    ratios = _tuple(output_ratio, dims)
    return tuple(int(input.shape[input.ndim - dims + k] * ratios[k]) for k in range(dims))


def _fractional_max_pool(input: Tensor, kernel_size: Any, output_size: Any, output_ratio: Any,  # noqa: A002
                         random_samples: Tensor | None, dims: int, name: str) -> tuple:  # fmt: skip
    require_tensor(name, input)
    sizes = _output_size(input, output_size, output_ratio, dims, name)
    kernel = tuple(int(k) for k in _tuple(kernel_size, dims))
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: "
                           f"{list(input.shape)}")  # fmt: skip
    x = input if input.ndim == dims + 2 else input.unsqueeze(0)
    batch, channels, spatial = x.shape[0], x.shape[1], tuple(x.shape[2:])
    if random_samples is None:
        if not input.dtype.is_floating_point:
            raise NotImplementedError(f'"check_uniform_bounds" not implemented for {input.dtype}')
        random_samples = random_factories.rand(batch, channels, dims, dtype=input.dtype, device=input.device)
    if random_samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if random_samples.ndim != 3 or random_samples.shape[0] != batch:
        raise RuntimeError(f"Expect _random_samples to have size [{batch}, {channels}, {dims}]; got "
                           f"{list(random_samples.shape)}")  # fmt: skip
    if random_samples.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if random_samples.shape[2] != dims:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {dims}; got {random_samples.shape[2]}.")
    for k, axis in enumerate(AXES[dims]):
        if sizes[k] + kernel[k] - 1 > spatial[k]:
            raise RuntimeError(f"{name}(): pool {axis} {kernel[k]} too large relative to input "
                               f"{axis} {spatial[k]}")  # fmt: skip
    real = np.float64 if input.dtype == float64 else np.float32
    samples = np.asarray(random_samples.detach().cpu().tolist(), dtype=real).reshape(batch, channels, dims)
    if dims == 2:  # PyTorch's images take sample 0 for the width, 1 for the height
        samples = samples[..., ::-1]
    # flat[n, c, o_0, .., o_d, k_0, .., k_d]: the input plane's flat index of window offset k
    strides = [int(np.prod(spatial[k + 1 :], dtype=np.int64)) for k in range(dims)]
    flat = np.zeros((batch, channels) + sizes + kernel, dtype=np.int64)
    for k in range(dims):
        starts = window_starts(samples[..., k], spatial[k], sizes[k], kernel[k])  # [N, C, O_k]
        position = starts[..., :, None] + np.arange(kernel[k])  # [N, C, O_k, K_k]
        shape = [batch, channels] + [1] * (2 * dims)
        shape[2 + k], shape[2 + dims + k] = sizes[k], kernel[k]
        flat = flat + position.reshape(shape) * strides[k]
    cells, window = int(np.prod(sizes, dtype=np.int64)), int(np.prod(kernel, dtype=np.int64))
    table = creation.tensor(flat.reshape(batch, channels, cells, window), dtype=int64, device=input.device)
    pixels = int(np.prod(spatial, dtype=np.int64))
    gathered = x.reshape(batch, channels, pixels).gather(2, table.reshape(batch, channels, cells * window))
    values, where = gathered.reshape(batch, channels, cells, window).max(-1)
    indices = table.gather(3, where.unsqueeze(-1)).squeeze(-1)
    lead = tuple(input.shape[:-dims])
    return values.reshape(lead + sizes), indices.reshape(lead + sizes)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,  # noqa: A002
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple:  # fmt: skip
    """Fractional max pooling of ``[N, C, H, W]`` (or ``[C, H, W]``) to ``output_size``
    (or ``output_ratio`` of the input), windows of ``kernel_size`` at pseudo-random starts:
    ``(values, indices)``, the indices flat in each ``H x W`` plane."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 2,
                                "fractional_max_pool2d")  # fmt: skip


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None,  # noqa: A002
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:  # fmt: skip
    """Fractional max pooling of an image batch (see ``fractional_max_pool2d_with_indices``):
    the values, or ``(values, indices)`` with ``return_indices=True``."""
    values, indices = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                                         True, _random_samples)  # fmt: skip
    return (values, indices) if return_indices else values


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,  # noqa: A002
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple:  # fmt: skip
    """Fractional max pooling of ``[N, C, T, H, W]`` (or ``[C, T, H, W]``):
    ``(values, indices)``, the indices flat in each ``T x H x W`` volume."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 3,
                                "fractional_max_pool3d")  # fmt: skip


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None,  # noqa: A002
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:  # fmt: skip
    """Fractional max pooling of a volume batch: the values, or ``(values, indices)``."""
    values, indices = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                                         True, _random_samples)  # fmt: skip
    return (values, indices) if return_indices else values
