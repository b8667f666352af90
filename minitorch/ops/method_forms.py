"""Second forms of ops minitorch already has: the ``Tensor`` method where only the
function existed (``t.bernoulli()``, ``t.multinomial(n)``), ``hardshrink`` and
``prelu`` (``nn.functional``'s, which imports them from here: ``ops/`` may not import
``nn/``), the ``torch.*`` function where only the method existed (``fill``,
``resize_as_``), and PyTorch's spellings of the same computation (``rsub``,
``unsafe_split``, ``randint_like``). Plus two small formulas, ``logical_xor`` and
``renorm``, and the layout changes ``resize``, ``resize_as`` and ``set_``.

Each is a line or two over the existing op, so gradients, dtypes and errors are that
op's. The ``unsafe_*`` splits are PyTorch's ``split``/``chunk`` without the check that
stops writing into one piece in place while autograd needs it; minitorch's pieces are
the same views either way.

``renorm(p, dim, maxnorm)`` rescales each slice ``t.select(dim, i)`` whose p-norm is
above ``maxnorm`` down to norm ``maxnorm`` (``scale = maxnorm / (norm + 1e-7)``), and
leaves the others alone: the constraint ``nn.Embedding(max_norm=...)`` applies to rows.
"""

from __future__ import annotations

import warnings
from typing import Any

from minitorch import random_factories
from minitorch._tensor import Tensor
from minitorch.ops import binary, choice, compare, inplace, shape, stacking
from minitorch.ops.common import require_tensor
from minitorch.ops.float_parts import float_power
from minitorch.ops.reduce import norm
from minitorch.ops.shape import sizes_from
from minitorch.ops.tensor_queries import (  # their torch.* forms leave through this file's __all__
    adjoint,
    get_device,
    is_conj,
    is_distributed,
    is_floating_point,
    is_nonzero,
    is_same_size,
    is_signed,
    numel,
    strided,
)


def logical_xor(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """True where exactly one of ``input`` and ``other`` is nonzero (a bool tensor,
    broadcast): ``(input != 0) != (other != 0)``. NaN counts as nonzero."""
    require_tensor("logical_xor", input)
    require_tensor("logical_xor", other, "other", 2)
    return compare.ne(compare.ne(input, 0), compare.ne(other, 0))


def rsub(input: Tensor, other: Any, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``other - alpha * input``: ``sub`` with its operands reversed."""
    require_tensor("rsub", input)
    return binary.sub(other, input, alpha=alpha)


def fill(input: Tensor, value: Any) -> Tensor:  # noqa: A002
    """A new tensor shaped and typed like ``input``, every element ``value`` (a number or
    a 0-d tensor): ``input.clone().fill_(value)``. The gradient reaches ``value`` only."""
    require_tensor("fill", input)
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions."
        )
    return inplace.fill_(shape.clone(input.detach()), value)


def float_power_(t: Tensor, exponent: Any) -> Tensor:
    """``t = t ** exponent`` in float64, in place: ``t`` must itself be float64."""
    if t.dtype.type_name != "Double":
        raise RuntimeError(
            f"the base given to float_power_ has dtype {t.dtype.type_name} but the operation's "
            "result requires dtype Double"
        )
    return inplace.apply_inplace(t, lambda old: float_power(old, exponent))


def bernoulli(t: Tensor, p: float | None = None, *, generator: Any = None) -> Tensor:
    """``t.bernoulli()``: 1 with probability ``t`` (or ``p``) at each element, else 0."""
    return random_factories.bernoulli(t, p, generator=generator)


def multinomial(t: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None) -> Tensor:
    """``t.multinomial(n)``: ``n`` category indices drawn with the weights in each row."""
    return random_factories.multinomial(t, num_samples, replacement, generator=generator)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """``x`` where ``|x| > lambd``, else 0."""
    require_tensor("hardshrink", input)
    return input.where(input.abs() > lambd, 0.0)


def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    """``x`` for ``x > 0``, else ``weight * x``, where ``weight`` holds one slope, or one
    per channel (dim 1)."""
    require_tensor("prelu", input)
    require_tensor("prelu", weight, "weight", 2)
    if weight.dtype != input.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype} and {weight.dtype}")
    slopes = weight.numel()
    if slopes != 1:
        channels = input.shape[1] if input.ndim >= 2 else (input.shape[0] if input.ndim else 1)
        if weight.ndim != 1 or slopes != channels:
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {slopes} and channel size = {channels}."
            )
        if input.ndim >= 2:
            weight = weight.reshape((slopes,) + (1,) * (input.ndim - 2))
    else:
        weight = weight.reshape(())
    return input.where(input > 0, input * weight)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """``chunk``: ``chunks`` views along ``dim`` (the last may be smaller)."""
    return shape.chunk(input, chunks, dim)


def unsafe_split(input: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """``split``: views of ``split_size`` along ``dim`` each (the last may be smaller)."""
    return shape.split(input, split_size, dim)


def unsafe_split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """``split_with_sizes``: views along ``dim`` of the sizes listed."""
    return stacking.split_with_sizes(input, split_sizes, dim)


def randint_like(input: Tensor, low: Any, high: Any = None, *, generator: Any = None,  # noqa: A002
                 dtype: Any = None, device: Any = None, requires_grad: bool = False,
                 **ignored: Any) -> Tensor:  # fmt: skip
    """Random integers in ``[low, high)`` (``[0, low)`` with one bound) shaped like
    ``input``, in ``input``'s dtype unless ``dtype`` is given; the same stream as
    ``randint`` (``layout=``/``memory_format=`` are accepted and have one meaning here)."""
    require_tensor("randint_like", input)
    low, high = (0, low) if high is None else (low, high)
    made = random_factories.randint(
        int(low), int(high), tuple(input.shape), generator=generator,
        dtype=dtype or input.dtype, device=device or input.device,
    )  # fmt: skip
    return made.requires_grad_(requires_grad) if requires_grad else made


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:  # noqa: A002
    """Each slice ``input.select(dim, i)`` with p-norm above ``maxnorm`` scaled down to
    norm ``maxnorm``; the other slices unchanged. Gradients follow the formula."""
    require_tensor("renorm", input)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    dim = dim % input.ndim
    norms = norm(input, p, tuple(d for d in range(input.ndim) if d != dim), keepdim=True)
    scale = choice.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return binary.mul(input, scale.to(input.dtype))


def renorm_(t: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """``renorm``, written into ``t``."""
    return inplace.apply_inplace(t, lambda old: renorm(old, p, dim, maxnorm))


def resize(t: Tensor, *sizes: Any) -> Tensor:
    """Deprecated: ``t`` reshaped to ``sizes``, which must hold as many elements."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    sizes = sizes_from(sizes)
    count = 1
    for size in sizes:
        count *= size
    if count != t.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, sizes))} ({count} elements in total), but the "
            f"given tensor has a size of {'x'.join(map(str, t.shape))} ({t.numel()} elements). "
            "autograd's resize can only change the shape of a given tensor, while preserving "
            "the number of elements."
        )
    return t.contiguous().view(sizes)


def resize_as(t: Tensor, tensor: Tensor) -> Tensor:
    """Deprecated: ``t.resize(tensor.shape)``."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    require_tensor("resize_as", tensor, "tensor", 1)
    if t.numel() != tensor.numel():
        return resize(t, *tensor.shape)  # its error
    return t.contiguous().view(tuple(tensor.shape))


def resize_as_(input: Tensor, the_template: Tensor) -> Tensor:  # noqa: A002
    """``input.resize_(the_template.shape)``: row-major strides, the storage grown if
    needed (``resize_``)."""
    require_tensor("resize_as_", input)
    require_tensor("resize_as_", the_template, "the_template", 2)
    return inplace.resize_(input, tuple(the_template.shape))


def set_(t: Tensor, source: Any = None, storage_offset: int = 0, size: Any = None,
         stride: Any = None) -> Tensor:  # fmt: skip
    """Make ``t`` read other memory: ``t.set_(other)`` shares ``other``'s storage and
    layout; ``t.set_(storage, offset, size, stride)`` reads ``storage`` through that
    layout; ``t.set_()`` leaves ``t`` empty. The old storage is left to its other views."""
    from minitorch.ops.storage import UntypedStorage
    from minitorch.storage_tensor import tensor_over_storage

    inplace.check_inplace(t)
    if source is not None and not isinstance(source, (Tensor, UntypedStorage)):
        raise TypeError(f"set_(): argument 'source' must be Tensor or Storage, not {type(source).__name__}")
    if source is None:
        made = Tensor._empty((0,), t.dtype, t.device)
    elif isinstance(source, Tensor):
        if source.dtype is not t.dtype:
            raise RuntimeError(
                f"Expected a Storage of type {t.dtype.type_name} but got type "
                f"{source.dtype.type_name} for argument #1 'source'"
            )
        made = source
    else:
        cells = source._array
        size = (len(cells) - storage_offset,) if size is None else tuple(size)
        if stride is None:
            stride, step = [], 1
            for extent in reversed(size):
                stride.insert(0, step)
                step *= max(extent, 1)
        made = tensor_over_storage(cells, size, tuple(stride), storage_offset, t.dtype, t.device)
    t._storage, t._shape, t._strides, t._offset = made._storage, made._shape, made._strides, made._offset
    t._bump_version()
    return t


METHODS = {
    "logical_xor": logical_xor, "float_power_": float_power_, "bernoulli": bernoulli,
    "multinomial": multinomial, "hardshrink": hardshrink, "prelu": prelu,
    "unsafe_chunk": unsafe_chunk, "unsafe_split": unsafe_split,
    "unsafe_split_with_sizes": unsafe_split_with_sizes, "renorm": renorm, "renorm_": renorm_,
    "resize": resize, "resize_as": resize_as, "resize_as_": resize_as_, "set_": set_,
}  # fmt: skip

# The torch.* functions (``minitorch.rsub``...); the methods above with a ``t`` first are
# Tensor-only, their functions live elsewhere (``minitorch.bernoulli``, ``F.prelu``).
__all__ = [
    "adjoint", "fill", "get_device", "is_conj", "is_distributed",
    "is_floating_point", "is_nonzero", "is_same_size", "is_signed", "logical_xor", "numel",
    "randint_like", "renorm", "resize_as_", "rsub", "strided", "unsafe_chunk", "unsafe_split",
    "unsafe_split_with_sizes",
]
