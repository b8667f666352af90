"""``linear_cross_entropy``: ``cross_entropy(linear(input, linear_weight, linear_bias), target)``
in one call, the last layer of a classifier (a language model's vocabulary projection)
and its loss.

PyTorch offers it to save memory: with ``options`` it runs the projection in chunks of the
batch so the full ``[N, C]`` logits never exist at once. minitorch computes the reference
form (the logits, then ``cross_entropy``), which gives the same numbers; ``options`` is
accepted and changes nothing but memory in PyTorch, so it is ignored here.

``linear_weight`` is ``[C, in_features]``, or ``[C, d_1, .., d_K, in_features]`` for a
K-dimensional loss: the logits are then ``[N, C, d_1, .., d_K]``, as ``cross_entropy``
reads them.
"""

from __future__ import annotations

from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn.functional.linear import linear
from minitorch.nn.functional.loss import cross_entropy
from minitorch.ops.common import require_tensor


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *,  # noqa: A002
                         linear_bias: Tensor | None = None, weight: Tensor | None = None,
                         reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options: Any = None) -> Tensor:  # fmt: skip
    """The cross entropy of ``linear(input, linear_weight, linear_bias)`` against
    ``target`` (class indices, or class probabilities of the logits' shape)."""
    require_tensor("linear_cross_entropy", input)
    require_tensor("linear_cross_entropy", linear_weight, "linear_weight", 2)
    require_tensor("linear_cross_entropy", target, "target", 3)
    if input.ndim < 1 or input.ndim > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.ndim}")
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {in_features} and {linear_weight.shape[-1]}, respectively")  # fmt: skip
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")  # fmt: skip
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
                           f"requires batched input, (N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")  # fmt: skip
    logits_shape = (*batches, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if out_features:  # one linear map to C * d_1 * .. * d_K outputs, then the loss's shape
        width = classes
        for extent in out_features:
            width *= extent
        linear_weight = linear_weight.reshape(width, in_features)
        linear_bias = None if linear_bias is None else linear_bias.reshape(width)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         label_smoothing=label_smoothing)  # fmt: skip
