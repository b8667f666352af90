"""``scaled_dot_product_attention``: the core of every Transformer.

Each query asks "which keys are like me?", and gets back the values of those keys,
weighted by how alike they are::

    scores  = Q K^T * scale            # [..., L, S]: query i against key j; scale = 1/sqrt(E)
    scores  = scores + mask            # -inf where query i may not look at key j
    weights = softmax(scores, dim=-1)  # each row sums to 1
    output  = weights V                # [..., L, Ev]

Scaling by ``1/sqrt(E)`` keeps the scores' variance near 1 whatever the feature size
``E``, so the softmax does not saturate. Masks:

* ``attn_mask``: a bool mask (``True`` = may attend) or a float mask added to the
  scores, broadcast to ``[..., L, S]``;
* ``is_causal=True``: query ``i`` sees keys ``0..i`` only (the lower triangle), as a
  language model predicting the next token must (not together with ``attn_mask``).

A query that may look at no key at all gets zeros (PyTorch's "safe softmax"), not the
NaN that ``softmax`` of a row of ``-inf`` would give. ``enable_gqa=True`` lets several
query heads share one key/value head (grouped-query attention): each of the ``Hk`` key
heads is repeated for ``Hq / Hk`` query heads.

Everything here is public ops (``matmul``, ``softmax``, ``masked_fill``), so autograd
gives the backward.
"""

from __future__ import annotations

import math

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.dtypes import bool_
from minitorch.nn.functional.linear import dropout
from minitorch.ops.common import require_tensor
from minitorch.ops.softmax import softmax


def _check(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, is_causal: bool) -> None:
    for name, tensor in (("query", query), ("key", key), ("value", value)):
        require_tensor("scaled_dot_product_attention", tensor)
        if tensor.ndim < 2:
            raise RuntimeError(f"scaled_dot_product_attention: {name} must have at least 2 "
                               f"dimensions, got {tensor.ndim}")  # fmt: skip
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {query.dtype} key.dtype: {key.dtype} and value.dtype: "
                           f"{value.dtype} instead.")  # fmt: skip
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"scaled_dot_product_attention expects floating-point inputs, got {query.dtype}")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention: query and key need the same feature "
                           f"size, got {query.shape[-1]} and {key.shape[-1]}")  # fmt: skip
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention: key and value need the same sequence "
                           f"length, got {key.shape[-2]} and {value.shape[-2]}")  # fmt: skip
    if attn_mask is not None:
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                               "when is_causal=True")  # fmt: skip
        require_tensor("scaled_dot_product_attention", attn_mask)
        if attn_mask.dtype is not bool_ and attn_mask.dtype != query.dtype:
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                               f"dtype, but got attn_mask.dtype: {attn_mask.dtype} and "
                               f"query.dtype: {query.dtype} instead.")  # fmt: skip


def _repeat_heads(tensor: Tensor, times: int) -> Tensor:
    """``[..., H, S, E] -> [..., H * times, S, E]``, each head ``times`` times in a row
    (``repeat_interleave`` along the head dimension, as an expanded view and a reshape)."""
    *batch, heads, length, features = tensor.shape
    spread = tensor.unsqueeze(-3).expand(*batch, heads, times, length, features)
    return spread.reshape(*batch, heads * times, length, features)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:  # fmt: skip
    """``softmax(Q K^T * scale + mask) V`` for ``query [..., L, E]``, ``key [..., S, E]``
    and ``value [..., S, Ev]``; returns ``[..., L, Ev]``. ``dropout_p`` drops attention
    weights (always, as in PyTorch: pass ``0.0`` when evaluating)."""
    _check(query, key, value, attn_mask, is_causal)
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3 and query.shape[-3] != key.shape[-3]:
        if query.shape[-3] % key.shape[-3] or key.shape[-3] != value.shape[-3]:
            raise RuntimeError(f"number of heads in key and value must divide the number of heads "
                               f"in query, got {query.shape[-3]}, {key.shape[-3]} and "
                               f"{value.shape[-3]}")  # fmt: skip
        key = _repeat_heads(key, query.shape[-3] // key.shape[-3])
        value = _repeat_heads(value, query.shape[-3] // value.shape[-3])
    length, source = query.shape[-2], key.shape[-2]
    factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if factor >= 0:  # PyTorch scales each side by sqrt(scale): the same float32 rounding
        root = math.sqrt(factor)
        scores = (query * root) @ (key.transpose(-2, -1) * root)
    else:
        scores = (query @ key.transpose(-2, -1)) * factor
    allowed = None  # bool [.., L, S]: True where a query may look at a key
    if is_causal:
        allowed = creation.ones(length, source, dtype=bool_, device=query.device).tril()
    elif attn_mask is not None and attn_mask.dtype is bool_:
        allowed = attn_mask
    elif attn_mask is not None:
        scores = scores + attn_mask
    if allowed is not None:
        scores = scores.masked_fill(allowed.logical_not(), float("-inf"))
    blind = (scores == float("-inf")).all(-1, keepdim=True)  # rows that may see no key
    weights = softmax(scores.masked_fill(blind, 0.0), -1).masked_fill(blind, 0.0)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return weights @ value
