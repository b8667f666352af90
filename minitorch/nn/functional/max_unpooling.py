"""``max_unpool1d/2d/3d``: the partial inverse of max pooling (and ``nn.MaxUnpool1d/2d/3d``).

Max pooling with ``return_indices=True`` says where in the input plane each maximum came
from (the flat position ``h * W + w``, or ``(d * H + h) * W + w`` in a volume). Unpooling
puts each value back at that position of a plane of zeros, the size the pooled input had
(``(in - 1) * stride - 2 * padding + kernel`` per dimension unless ``output_size`` says
otherwise): one ``scatter`` per plane; the backward reads each value's gradient back from
its position (a gather).
"""

from __future__ import annotations

from typing import Any

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.nn.functional.conv import pair, single, triple
from minitorch.ops.common import require_tensor


def _unpool(input: Tensor, indices: Tensor, kernel: tuple, stride: tuple, padding: tuple,  # noqa: A002
            output_size: Any, name: str) -> Tensor:  # fmt: skip
    require_tensor(name, input)
    require_tensor(name, indices, "indices", 2)
    dims = len(kernel)
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}: Expected {dims + 1}D or {dims + 2}D input, got {list(input.shape)}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"{name}: expected indices of the input's shape {list(input.shape)}, "
                           f"got {list(indices.shape)}")  # fmt: skip
    spatial = tuple(input.shape[-dims:])
    default = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(spatial, stride, padding, kernel))
    if output_size is None:
        sizes = default
    else:
        sizes = tuple(int(size) for size in tuple(output_size)[-dims:])
        if len(tuple(output_size)) not in (dims, dims + 1, dims + 2):
            raise ValueError(f"output_size should be a sequence containing {dims} or {dims + 2} elements, "
                             f"but it has a length of '{len(tuple(output_size))}'")  # fmt: skip
        for size, low, k in zip(sizes, default, kernel):
            if not low - k < size < low + k:
                raise ValueError(f"invalid output_size {list(sizes)} (dim must be between the default "
                                 f"{list(default)} minus and plus the kernel size)")  # fmt: skip
    lead = tuple(input.shape[:-dims])
    plane = 1
    for size in sizes:
        plane *= size
    flat_indices = indices.reshape(lead + (-1,))
    if flat_indices.numel() and (int(flat_indices.min()) < 0 or int(flat_indices.max()) >= plane):
        raise RuntimeError(f"Found an invalid max index: {int(flat_indices.max())} (output volumes are of "
                           f"size {' x '.join(str(s) for s in sizes)})")  # fmt: skip
    zeros = creation.zeros(lead + (plane,), dtype=input.dtype, device=input.device)
    values, dim = input.reshape(lead + (-1,)), len(lead)
    # Overlapping windows can pick the same position twice: the value is written once
    # (scatter), but each of the two still gets that position's gradient, as in PyTorch,
    # which is scatter_add's backward (a gather); so the value comes from one, the gradient
    # from the other.
    added = zeros.scatter_add(dim, flat_indices, values)
    out = zeros.scatter(dim, flat_indices, values.detach()) + (added - added.detach())
    return out.reshape(lead + sizes)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                 padding: Any = 0, output_size: Any = None) -> Tensor:  # fmt: skip
    kernel = pair(kernel_size, "kernel_size")
    stride = kernel if stride is None else pair(stride, "stride")
    return _unpool(input, indices, kernel, stride, pair(padding, "padding"), output_size, "max_unpool2d")


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                 padding: Any = 0, output_size: Any = None) -> Tensor:  # fmt: skip
    kernel = (single(kernel_size, "kernel_size"),)
    stride = kernel if stride is None else (single(stride, "stride"),)
    return _unpool(input, indices, kernel, stride, (single(padding, "padding"),), output_size, "max_unpool1d")


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,  # noqa: A002
                 padding: Any = 0, output_size: Any = None) -> Tensor:  # fmt: skip
    kernel = triple(kernel_size, "kernel_size")
    stride = kernel if stride is None else triple(stride, "stride")
    return _unpool(input, indices, kernel, stride, triple(padding, "padding"), output_size, "max_unpool3d")
