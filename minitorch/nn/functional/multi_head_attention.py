"""``multi_head_attention_forward``: the computation of ``nn.MultiheadAttention``.

Multi-head attention runs ``num_heads`` attentions side by side, each on its own
``head_dim = embed_dim / num_heads`` slice of learned projections of the inputs, and
mixes their results with one more projection::

    Q = query W_q^T + b_q,  K = key W_k^T + b_k,  V = value W_v^T + b_v   # [L|S, N, E]
    split E into num_heads heads of head_dim: [N * heads, L|S, head_dim]
    O = softmax(Q K^T / sqrt(head_dim) + mask) V                           # each head alone
    output = concat(heads of O) W_o^T + b_o                                # [L, N, E]

Different heads can attend to different positions for different reasons; the cost is
that of one attention of full width. ``W_q, W_k, W_v`` are the three row blocks of
``in_proj_weight`` (``[3E, E]``), or three separate weights when keys and values have
other feature sizes (``kdim``, ``vdim``).

Masks, in PyTorch's MultiheadAttention convention (the *opposite* of
``scaled_dot_product_attention``'s bool masks): ``True`` means "do NOT attend".

* ``attn_mask`` ``[L, S]`` or ``[N * heads, L, S]``: bool (``True`` blocks) or float
  (added to the scores);
* ``key_padding_mask`` ``[N, S]``: ``True`` marks a padding key, which no query sees.

Both become one float mask of ``0`` and ``-inf``. With ``need_weights`` the attention
weights are returned too (averaged over the heads unless ``average_attn_weights=False``).
Inputs are sequence first: ``[L, N, E]``, or ``[L, E]`` unbatched.
"""

from __future__ import annotations

import math

from minitorch import creation
from minitorch._tensor import Tensor
from minitorch.dtypes import bool_
from minitorch.nn.functional.attention import scaled_dot_product_attention
from minitorch.nn.functional.conv import pad
from minitorch.nn.functional.linear import dropout, linear
from minitorch.ops.common import require_tensor
from minitorch.ops.shape import cat
from minitorch.ops.softmax import softmax


def _as_float_mask(mask: Tensor | None, like: Tensor, name: str) -> Tensor | None:
    """A bool mask (``True`` = blocked) becomes ``-inf`` there and ``0`` elsewhere; a
    float mask is used as it is."""
    if mask is None:
        return None
    require_tensor("multi_head_attention_forward", mask)
    if mask.dtype is bool_:
        zeros = creation.zeros(mask.shape, dtype=like.dtype, device=like.device)
        return zeros.masked_fill(mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _check_attn_mask(mask: Tensor, length: int, source: int, groups: int) -> Tensor:
    """``[L, S]`` -> ``[1, L, S]``; ``[N * heads, L, S]`` kept; anything else refused."""
    if mask.ndim == 2:
        if tuple(mask.shape) != (length, source):
            raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(mask.shape)}, but should be "
                               f"{(length, source)}.")  # fmt: skip
        return mask.unsqueeze(0)
    if mask.ndim == 3:
        if tuple(mask.shape) != (groups, length, source):
            raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(mask.shape)}, but should be "
                               f"{(groups, length, source)}.")  # fmt: skip
        return mask
    raise RuntimeError(f"attn_mask's dimension {mask.ndim} is not supported")


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int,
                                 num_heads: int, in_proj_weight: Tensor | None,
                                 in_proj_bias: Tensor | None, bias_k: Tensor | None,
                                 bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight: Tensor, out_proj_bias: Tensor | None,
                                 training: bool = True, key_padding_mask: Tensor | None = None,
                                 need_weights: bool = True, attn_mask: Tensor | None = None,
                                 use_separate_proj_weight: bool = False,
                                 q_proj_weight: Tensor | None = None,
                                 k_proj_weight: Tensor | None = None,
                                 v_proj_weight: Tensor | None = None,
                                 static_k: Tensor | None = None, static_v: Tensor | None = None,
                                 average_attn_weights: bool = True,
                                 is_causal: bool = False) -> tuple[Tensor, Tensor | None]:  # fmt: skip
    """Multi-head attention of ``query [L, N, E]`` over ``key [S, N, kdim]`` and
    ``value [S, N, vdim]``; returns ``(output [L, N, E], weights or None)``."""
    for tensor in (query, key, value):
        require_tensor("multi_head_attention_forward", tensor)
    batched = query.ndim == 3
    if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"query, key and value should be all 2-D (unbatched) or all 3-D "
                             f"(batched) tensors, got {query.ndim}-D, {key.ndim}-D and "
                             f"{value.ndim}-D")  # fmt: skip
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    length, batch, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got "
                             f"{embed_dim}")  # fmt: skip
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if key.shape[:2] != value.shape[:2]:
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")  # fmt: skip
    key_padding_mask = _as_float_mask(key_padding_mask, query, "key_padding_mask")
    attn_mask = _as_float_mask(attn_mask, query, "attn_mask")

    # the three input projections
    if use_separate_proj_weight:
        weights = (q_proj_weight, k_proj_weight, v_proj_weight)
    else:
        weights = tuple(in_proj_weight.chunk(3))
    biases = (None, None, None) if in_proj_bias is None else tuple(in_proj_bias.chunk(3))
    q = linear(query, weights[0], biases[0])
    k = linear(key, weights[1], biases[1])
    v = linear(value, weights[2], biases[2])

    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, length, key.shape[0], batch * num_heads)
    if bias_k is not None and bias_v is not None:  # one more key and value, learned
        k = cat([k, bias_k.expand(1, batch, embed_dim)])
        v = cat([v, bias_v.expand(1, batch, embed_dim)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))

    # split the heads: [L, N, E] -> [N * heads, L, head_dim]
    q = q.reshape(length, batch * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], batch * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k
    v = v.reshape(v.shape[0], batch * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v
    if add_zero_attn:  # one more key and value, all zeros
        zeros = creation.zeros(batch * num_heads, 1, head_dim, dtype=q.dtype, device=q.device)
        k, v = cat([k, zeros], 1), cat([v, zeros], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    source = k.shape[1]

    if key_padding_mask is not None:  # [N, S] -> [N * heads, 1, S], merged into attn_mask
        if tuple(key_padding_mask.shape) != (batch, source):
            raise AssertionError(f"expecting key_padding_mask shape of {(batch, source)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")  # fmt: skip
        spread = key_padding_mask.reshape(batch, 1, 1, source).expand(batch, num_heads, 1, source)
        spread = spread.reshape(batch * num_heads, 1, source)
        attn_mask = spread if attn_mask is None else attn_mask + spread
    if not training:
        dropout_p = 0.0

    if need_weights:
        scores = (q * math.sqrt(1.0 / head_dim)) @ k.transpose(-2, -1)
        if attn_mask is not None:
            scores = scores + attn_mask
        attention = softmax(scores, -1)
        if dropout_p > 0.0:
            attention = dropout(attention, dropout_p)
        heads = attention @ v  # [N * heads, L, head_dim]
        averaged = attention.reshape(batch, num_heads, length, source)
        if average_attn_weights:
            averaged = averaged.mean(1)
    else:
        if attn_mask is not None:  # [1 | N * heads, L | 1, S] -> [1 | N, 1 | heads, L | 1, S]
            single = attn_mask.shape[0] == 1
            attn_mask = attn_mask.unsqueeze(0) if single else attn_mask.reshape(batch, num_heads, -1, source)
        split = [t.reshape(batch, num_heads, t.shape[1], head_dim) for t in (q, k, v)]
        heads = scaled_dot_product_attention(*split, attn_mask, dropout_p)
        heads = heads.reshape(batch * num_heads, length, head_dim)
        averaged = None
    # concat the heads: [N * heads, L, head_dim] -> [L, N, E], then the output projection
    output = linear(heads.transpose(0, 1).reshape(length, batch, embed_dim), out_proj_weight, out_proj_bias)
    if not batched:
        output = output.squeeze(1)
        averaged = None if averaged is None else averaged.squeeze(0)
    return output, averaged
