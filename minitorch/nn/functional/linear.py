"""``linear``, ``dropout``, ``flatten``, ``embedding`` and ``one_hot``."""

from __future__ import annotations

import numpy as np

from minitorch import creation, dispatch
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, FunctionCtx
from minitorch.dtypes import int64
from minitorch.memory_format import preserve_format
from minitorch.ops import linalg
from minitorch.ops.common import require_tensor
from minitorch.ops.gather import Gather, ScatterAdd
from minitorch.ops.shape import flatten as _flatten


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """``y = x W^T + b`` with ``W`` of shape ``[out_features, in_features]``.

    Recorded as PyTorch records it (``minitorch/ops/linalg.py``): ``W^T`` is a view
    (``TBackward0``, no copy) and ``AddmmBackward0`` is one matmul kernel with the bias
    added in place; its backward is ``dx = g W``, ``dW = g^T x``, ``db = sum(g)``.
    """
    return linalg.linear(input, weight, bias)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``,
    so the expected value is unchanged; the identity when not ``training``.

    The mask comes from the global generator as PyTorch's does on the CPU without MKL
    (``bernoulli(1 - p)``, one float64 uniform per element, then divided by ``1 - p``): the
    same masks as PyTorch on AMD and ARM CPUs after the same seed. (On Intel CPUs PyTorch
    draws this mask from MKL's own generator, which minitorch does not reproduce.)
    """
    require_tensor("dropout", input)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        result = input * 0
    else:
        # PyTorch fills empty_like(input), which keeps the input's layout, with bernoulli_,
        # which draws in memory order: a transposed input gets its draws column by column
        keep = input.detach().clone(memory_format=preserve_format).bernoulli_(1.0 - p)
        result = input * (keep / (1.0 - p))
    return input.copy_(result) if inplace else result


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:  # noqa: A002
    return _flatten(input, start_dim, end_dim)


class EmbeddingLookup(Function):
    """``out[..., :] = weight[index[...], :]``. Gradient: each looked-up row's gradient
    is added into that row (``scatter_add``); the ``padding_idx`` row gets none."""

    @staticmethod
    def forward(ctx: FunctionCtx, weight: Tensor, index: Tensor, padding_idx: int | None) -> Tensor:
        rows = index.reshape(-1)
        dim = weight.shape[1]
        spread = rows.unsqueeze(1).expand(rows.shape[0], dim)  # one index per output element
        ctx.save_for_backward(spread)
        ctx.weight_shape, ctx.padding_idx = tuple(weight.shape), padding_idx
        out = Gather.apply(weight, 0, spread)
        return out.reshape(tuple(index.shape) + (dim,))

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple:
        (spread,) = ctx.saved_tensors
        grad = grad.reshape(spread.shape)
        if ctx.padding_idx is not None:
            grad = grad * (spread != ctx.padding_idx)
        zeros = grad.new_zeros(ctx.weight_shape)
        return ScatterAdd.apply(zeros, 0, spread, grad), None, None


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None) -> Tensor:  # noqa: A002
    """Rows of ``weight`` picked by the integer tensor ``input``: the result has shape
    ``input.shape + (embedding_dim,)``."""
    if input.dtype.is_floating_point or input.dtype.name == "bool":
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.dtype} instead (while checking arguments for "
            "embedding)"
        )
    count = weight.shape[0]

    def check(values: np.ndarray) -> None:  # on the host: the kernel does no bounds checks
        outside = values[(values >= count) | (values < 0)]
        if outside.size:
            raise IndexError(f"index out of range in self: index {outside.reshape(-1)[0]} is "
                             f"outside the embedding's {count} rows")  # fmt: skip

    dispatch.validate(input, check)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += count
    return EmbeddingLookup.apply(weight, input.to(int64), padding_idx)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``[..., num_classes]`` int64 tensor with a 1 at each class index."""
    require_tensor("one_hot", tensor)
    if tensor.dtype is not int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(tensor.max().item()) + 1 if tensor.numel() else 0
    if tensor.numel() and ((tensor < 0).any() or (tensor >= num_classes).any()):
        raise RuntimeError("Class values must be non-negative and smaller than num_classes.")
    classes = creation.arange(num_classes, device=tensor.device)
    return (tensor.unsqueeze(-1) == classes).to(int64)
