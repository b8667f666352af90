"""The random factories: ``rand``, ``randn``, ``randint``, ``randperm``, ``normal``,
``bernoulli``, ``multinomial``, the ``*_like`` ones, and the in-place fills
``uniform_``/``normal_``/``exponential_``.

Each draws on the host from a ``Generator`` (``minitorch/random.py``) by PyTorch's own
recipe (``minitorch/random_transforms.py``), so after the same seed the numbers are
PyTorch's CPU numbers; on another device the host values are copied there (PyTorch's
CUDA generator is Philox, so PyTorch's own CUDA numbers differ from these).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch import dispatch
from minitorch import random_transforms as transforms
from minitorch._tensor import Tensor
from minitorch.creation import _finish, _like, _sizes
from minitorch.dtypes import as_dtype, get_default_dtype, int64
from minitorch.layout import allocating
from minitorch.random import Generator, default_generator


def generator_or_default(generator: Generator | None) -> Generator:
    """The generator to draw from. A graph captured by ``minitorch.compile`` could only
    replay the numbers drawn while it was captured, so drawing inside a capture is
    refused with an explanation."""
    dispatch.refuse_in_capture("random numbers (rand, randn, dropout, ...)")
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a minitorch.Generator, not {type(generator).__name__}")
    return generator


def _float_dtype(dtype: Any) -> Any:
    dtype = as_dtype(dtype or get_default_dtype())
    if not dtype.is_floating_point:
        raise RuntimeError(f"expected a floating-point dtype for random floats, got {dtype}")
    return dtype


def rand(*size: Any, generator: Generator | None = None, dtype: Any = None, device: Any = None,
         requires_grad: bool = False) -> Tensor:  # fmt: skip
    """Uniform random numbers in ``[0, 1)``."""
    gen, sizes, dtype = generator_or_default(generator), _sizes(size), _float_dtype(dtype)
    with allocating(sizes, 8):
        values = transforms.uniform(gen, math.prod(sizes), dtype.name).reshape(sizes)
    return _finish(values, dtype, device, requires_grad)


def randn(*size: Any, generator: Generator | None = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False) -> Tensor:  # fmt: skip
    """Standard normal random numbers (mean 0, variance 1)."""
    gen, sizes, dtype = generator_or_default(generator), _sizes(size), _float_dtype(dtype)
    with allocating(sizes, 8):
        values = transforms.normal(gen, math.prod(sizes), dtype.name).reshape(sizes)
    return _finish(values, dtype, device, requires_grad)


def randint(low: int, high: int | None = None, size: Sequence[int] = (), *,
            generator: Generator | None = None, dtype: Any = None, device: Any = None) -> Tensor:  # fmt: skip
    """Random integers in ``[low, high)`` (``randint(high, size)`` starts at 0)."""
    if high is None:
        low, high = 0, low
    if isinstance(high, (tuple, list)):  # randint(high, size)
        low, high, size = 0, low, high
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    gen, sizes, dtype = generator_or_default(generator), _sizes((tuple(size),)), as_dtype(dtype or int64)
    values = transforms.integers(gen, math.prod(sizes), int(low), int(high)).reshape(sizes)
    return _finish(values, dtype, device, False)


def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None,
             device: Any = None) -> Tensor:  # fmt: skip
    """A random permutation of ``0 .. n-1``."""
    gen = generator_or_default(generator)
    with allocating(_sizes((n,)), 8):
        values = transforms.permutation(gen, int(n))
    return _finish(values, as_dtype(dtype or int64), device, False)


def rand_like(t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    like = _like("rand_like", t, dtype, device)
    return rand(tuple(t.shape), requires_grad=requires_grad, **like)


def randn_like(t: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    like = _like("randn_like", t, dtype, device)
    return randn(tuple(t.shape), requires_grad=requires_grad, **like)


# ----- filling an existing tensor (the in-place methods use these) -------------------


def in_memory_order(t: Tensor, draws: Any) -> np.ndarray:
    """``draws(t.numel())`` laid out so that the i-th draw lands in the i-th element of
    ``t``'s *memory* order (dimensions by decreasing stride), in ``t``'s logical shape.
    PyTorch's CPU kernels fill a tensor in that order, so a transposed or sliced tensor
    gets its draws in the order its storage holds them."""
    shape, strides = tuple(t.shape), t.stride()
    order = sorted(range(t.ndim), key=lambda d: -strides[d])
    values = draws(t.numel()).reshape([shape[d] for d in order])
    return np.ascontiguousarray(np.transpose(values, np.argsort(order))) if t.ndim else values.reshape(())


def uniform_values(t: Tensor, a: float, b: float, generator: Generator | None) -> Tensor:
    """A new tensor like ``t`` holding what ``t.uniform_(a, b)`` writes."""
    gen, dtype = generator_or_default(generator), _float_dtype(t.dtype)
    values = in_memory_order(t, lambda n: transforms.uniform(gen, n, dtype.name, a, b))
    return _finish(values, dtype, t.device, False)


def normal_values(t: Tensor, mean: float, std: float, generator: Generator | None) -> Tensor:
    """A new tensor like ``t`` holding what ``t.normal_(mean, std)`` writes (PyTorch's
    path depends on whether ``t`` is contiguous)."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    gen, dtype = generator_or_default(generator), _float_dtype(t.dtype)
    values = in_memory_order(t, lambda n: transforms.normal(gen, n, dtype.name, mean, std, t.is_contiguous()))
    return _finish(values, dtype, t.device, False)


def exponential_(t: Tensor, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill ``t`` with exponential numbers of rate ``lambd`` (``-log(1 - u) / lambd``)."""
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    gen = generator_or_default(generator)
    values = in_memory_order(t, lambda n: transforms.exponential(gen, n, lambd))
    return t.copy_(_finish(values, t.dtype, t.device, False))


# ----- distributions of torch's namespace --------------------------------------------


def normal(mean: Any = 0.0, std: Any = 1.0, size: Sequence[int] | None = None, *,
           generator: Generator | None = None, dtype: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:  # fmt: skip
    """``torch.normal``'s overloads: two numbers and a ``size``; or a tensor of means and/or
    of standard deviations (broadcast together). As PyTorch: standard normals are drawn
    into the result, then scaled by ``std`` and shifted by ``mean``."""
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError("normal() missing required argument 'size' when mean and std are numbers")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        gen, sizes, dtype = generator_or_default(generator), _sizes((tuple(size),)), _float_dtype(dtype)
        values = transforms.normal(gen, math.prod(sizes), dtype.name, float(mean), float(std))
        return _finish(values.reshape(sizes), dtype, device, requires_grad)
    if isinstance(std, Tensor) and bool((std < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    like = mean if isinstance(mean, Tensor) else std
    shape = np.broadcast_shapes(tuple(getattr(mean, "shape", ())), tuple(getattr(std, "shape", ())))
    gen = generator_or_default(generator)
    if isinstance(std, Tensor):  # output.normal_(0, 1); output *= std; output += mean
        out = normal_values(like.new_zeros(shape), 0.0, 1.0, gen)
        return (out * std + mean).requires_grad_(requires_grad)
    out = normal_values(like.new_zeros(shape), 0.0, float(std), gen)  # normal_(0, std); += mean
    return (out + mean).requires_grad_(requires_grad)


def bernoulli(input: Tensor, p: float | None = None, *, generator: Generator | None = None) -> Tensor:  # noqa: A002
    """0 or 1 for each element, 1 with probability ``input[i]`` (or ``p`` for every element).
    PyTorch: ``u < p`` with ``u`` uniform, one draw per element in order."""
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' must be Tensor, not {type(input).__name__}")
    gen = generator_or_default(generator)
    probabilities = input.detach().cpu().contiguous().numpy()
    if p is not None:
        probabilities = np.full(probabilities.shape, p, dtype=np.float64)
    if probabilities.size and not ((probabilities >= 0) & (probabilities <= 1)).all():
        raise RuntimeError("bernoulli_ expects p to be in [0, 1]")
    values = transforms.bernoulli(gen, probabilities)
    return _finish(values, input.dtype, input.device, False)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,  # noqa: A002
                generator: Generator | None = None) -> Tensor:  # fmt: skip
    """``num_samples`` category indices per row of the weights ``input`` (1-D or 2-D).

    With replacement (PyTorch's loop): each row's running sums, normalised so the last is 1,
    then per sample one float64 uniform ``u`` and the first index whose sum is not below
    ``u`` (a binary search). Without replacement (PyTorch's trick): divide each weight by an
    exponential number, ``q = w / Exp(1)``, and take the ``num_samples`` largest ``q``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype}")
    weights = input.detach().cpu().contiguous().numpy().reshape(-1, input.shape[-1])
    categories = weights.shape[1]
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if (weights < 0).any() or not np.isfinite(weights).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (weights.sum(axis=1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    gen = generator_or_default(generator)
    if replacement and num_samples > 1:  # one sample takes PyTorch's fast path below
        picks = transforms.categorical(gen, weights, num_samples)
    else:
        noise = transforms.exponential(gen, weights.size, 1.0).astype(weights.dtype).reshape(weights.shape)
        keys = weights / noise
        picks = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    shape = (num_samples,) if input.ndim == 1 else (weights.shape[0], num_samples)
    return _finish(picks.reshape(shape).astype(np.int64), int64, input.device, False)
